//! scil — Scenario-in-the-Loop proving-ground control.
//!
//! Modules follow the data flow: [`ingest`] (sources) → [`frame`] (interface block to the map
//! frame) → [`twin`] (digital twin on the [`map`]) → [`scenario`] (sans-IO engine: triggers,
//! commands, events) → [`replay`] (drivers) → dispatch / store / serve.

pub mod cli;
pub mod dispatch;
pub mod feed;
pub mod frame;
pub mod ingest;
pub mod map;
#[cfg(feature = "proj")]
pub mod proj_geo;
pub mod replay;
pub mod replay_live;
pub mod run_driver;
pub mod sample;
pub mod scenario;
pub mod serve;
pub mod store;
pub mod twin;
