//! Benchmarks' measuring code (figures printed by `scil bench …` and `cargo bench`; never
//! asserted in tests). Kept apart from the modules they measure.

pub mod archive;
pub mod cosim;
pub mod dispatch;
pub mod ground_series;
pub mod ingest;
pub mod join;
pub mod loop_latency;
pub mod map;
pub mod replay;
pub mod store;
