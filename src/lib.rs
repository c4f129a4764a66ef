//! scil — Scenario-in-the-Loop proving-ground control.
//!
//! Modules follow the data flow: [`ingest`] (sources) → [`frame`] (interface block to the map
//! frame) → [`twin`] (digital twin) → [`scenario`] (sans-IO engine: triggers, commands, events)
//! → dispatch / store / serve.

pub mod sample;
pub mod dispatch;
