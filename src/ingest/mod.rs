//! Telemetry sources. Every source yields [`crate::sample::InsSample`]s in source conventions;
//! the interface block ([`crate::frame`]) converts them to the map frame.

pub mod can;
pub mod csv;
mod csv_rows;
pub mod fusion;
pub mod health;
pub mod json;
pub mod ncom;
pub mod plausibility;
pub mod udp;
