//! Racelogic VBOX `.vbo` files (sections, minutes, hhmmss.ss).
#![no_main]
use libfuzzer_sys::fuzz_target;
use scil::ingest::csv::BadRowPolicy;
use scil::ingest::vbo::VboSource;

fuzz_target!(|data: &[u8]| {
    if let Ok(src) = VboSource::from_reader(std::path::Path::new("f.vbo"), data, &[], BadRowPolicy::Skip) {
        for _ in src.take(100_000) {}
    }
});
