//! Vector BLF CAN logs (log containers, zlib, CAN and CAN FD objects).
#![no_main]
use libfuzzer_sys::fuzz_target;
use scil::ingest::can::blf::BlfReader;

fuzz_target!(|data: &[u8]| {
    if let Ok(r) = BlfReader::new(data) {
        for f in r.take(1_000_000) {
            if f.is_err() {
                break;
            }
        }
    }
});
