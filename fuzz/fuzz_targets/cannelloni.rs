//! cannelloni UDP frames (CAN over Ethernet).
#![no_main]
use libfuzzer_sys::fuzz_target;
use scil::ingest::can::cannelloni::{decode, encode};

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = decode(data) {
        let _ = decode(&encode(p.sequence, &p.frames));
    }
});
