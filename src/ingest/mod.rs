//! Telemetry sources. Every source yields [`crate::sample::InsSample`]s in source conventions;
//! the interface block ([`crate::frame`]) converts them to the map frame.

pub mod adma;
pub mod can;
pub mod csv;
mod csv_cells;
mod csv_rows;
pub mod detect;
pub mod fusion;
pub mod health;
pub mod json;
pub mod mdf4;
pub mod ncom;
pub mod plausibility;
pub mod recording;
pub mod udp;
pub mod vbo;

/// A live sample and the instant it was taken off its socket (before any hop to the engine).
#[derive(Debug, Clone)]
pub struct Received {
    pub sample: crate::sample::InsSample,
    pub at: tokio::time::Instant,
}

/// A small deterministic generator (xorshift64) for the reader tests' random inputs.
#[cfg(test)]
pub(crate) fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}
