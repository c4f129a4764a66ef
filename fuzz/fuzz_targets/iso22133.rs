//! ISO 22133 frames from a carrier (the dispatch codec): single frames and the TCP stream framer.
#![no_main]
use libfuzzer_sys::fuzz_target;
use scil::dispatch::iso22133::{decode_frame, encode_frame, StreamFramer};

fuzz_target!(|data: &[u8]| {
    if let Ok(f) = decode_frame(data) {
        // What decodes, encodes again and decodes to the same frame.
        let again = decode_frame(&encode_frame(&f.header, &f.message));
        assert!(again.is_ok(), "re-encoded frame does not decode: {again:?}");
    }
    let mut framer = StreamFramer::new();
    for chunk in data.chunks(61) {
        framer.push(chunk);
        while let Some(_frame) = framer.next_frame() {}
    }
});
