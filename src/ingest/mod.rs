//! Telemetry sources. Every source yields [`crate::sample::InsSample`]s in source conventions;
//! the interface block ([`crate::frame`]) converts them to the map frame.

pub mod csv;
