//! CSV telemetry rows (replay files, uploads): header mapping, row splitting, cell parsing and
//! the plausibility filter, under both bad-row policies.
#![no_main]
use libfuzzer_sys::fuzz_target;
use scil::ingest::csv::{BadRowPolicy, CsvSource};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    for policy in [BadRowPolicy::Stop, BadRowPolicy::Skip] {
        let Ok(mut src) = CsvSource::from_reader(Path::new("fuzz.csv"), data, &[], policy) else {
            continue;
        };
        while let Some(r) = src.next_sample() {
            if r.is_err() && policy == BadRowPolicy::Stop {
                break;
            }
        }
    }
});
