//! The JSON telemetry feed (UDP datagrams, TCP/WebSocket lines).
#![no_main]
use libfuzzer_sys::fuzz_target;
use scil::ingest::health::SourceHealth;
use scil::ingest::json::{parse_line, to_line, JsonLineDecoder};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(s) = parse_line(text) {
        let _ = parse_line(&to_line(&s));
    }
    let mut dec = JsonLineDecoder::new(SourceHealth::new("fuzz"));
    let _ = dec.handle_text(text);
});
