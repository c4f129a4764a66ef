//! candump logs (`(seconds) iface ID#DATA`), as uploaded or read by `scil feed`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use scil::ingest::can::candump::{format_line, parse_line, parse_log_bytes};

fuzz_target!(|data: &[u8]| {
    for (_line, frame) in parse_log_bytes(data) {
        // A decoded frame formats back to a line that parses again.
        if let Ok(f) = frame {
            let _ = parse_line(&format_line(&f));
        }
    }
});
