//! DBC files (uploaded or named on the command line), then decoding frames with the result.
//! Input: DBC text, then optionally `\0` and raw frame bytes (4-byte id, then up to 64 data bytes
//! per frame, frames separated by `\0\0`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use scil::ingest::can::{CanFrame, CanMapping, CanState, DbcDecoder};

fuzz_target!(|data: &[u8]| {
    let (text, frames) = match data.iter().position(|b| *b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let Ok(dbc) = DbcDecoder::parse(text) else {
        return;
    };
    let mapping = CanMapping::default();
    let _ = mapping.missing_in(&dbc);
    let mut state = CanState::default();
    for raw in frames.split(|b| *b == 0).filter(|r| r.len() >= 4) {
        let id = u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]);
        let body = &raw[4..raw.len().min(68)];
        for extended in [false, true] {
            let frame = CanFrame::new(id & 0x1FFF_FFFF, extended, body);
            if let Ok(m) = dbc.decode(&frame) {
                state.update(&mapping.apply(0.0, &m));
            }
        }
    }
});
