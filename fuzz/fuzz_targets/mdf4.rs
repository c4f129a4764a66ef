//! ASAM MDF4 files: the block tree, physical channels as a recording, CAN bus logging.
#![no_main]
use libfuzzer_sys::fuzz_target;
use scil::ingest::mdf4::{blocks::read_tree, Mdf4CanFrames, Mdf4Source};
use std::io::Cursor;

fuzz_target!(|data: &[u8]| {
    let Ok(tree) = read_tree(&mut Cursor::new(data)) else {
        return;
    };
    if let Ok(src) = Mdf4Source::from_tree(std::path::Path::new("f.mf4"), Cursor::new(data), &tree, &[]) {
        for s in src.take(100_000) {
            if s.is_err() {
                break;
            }
        }
    }
    if let Ok(frames) = Mdf4CanFrames::from_tree(&tree, || Ok(Cursor::new(data))) {
        for f in frames.take(100_000) {
            if f.is_err() {
                break;
            }
        }
    }
});
