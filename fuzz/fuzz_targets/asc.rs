//! Vector ASC CAN logs, line by line (a frame parsed formats back to candump and parses again).
#![no_main]
use libfuzzer_sys::fuzz_target;
use scil::ingest::can::asc::AscParser;
use scil::ingest::can::candump::{format_line, parse_line};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut p = AscParser::new();
    for l in text.lines() {
        if let Ok(Some(f)) = p.line(l) {
            if f.time_s.is_some_and(f64::is_finite) {
                let _ = parse_line(&format_line(&f));
            }
        }
    }
});
