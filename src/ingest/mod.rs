//! Telemetry sources.

pub mod can;
pub mod fusion;
pub mod health;
pub mod json;
pub mod ncom;
pub mod udp;
pub mod bench;
pub mod cli;
