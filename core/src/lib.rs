//! scil's sans-IO core, in data-flow order: [`sample`] (what sources produce) → [`frame`]
//! (interface block to the map frame) → [`twin`] (digital twin, map-matched on the [`map`]) →
//! [`scenario`] (scenario files, TTC method, target profiles, and the sans-IO
//! [`scenario::engine::Engine`]: `(now, input)` in, commands, events and the next timeout out).
//!
//! This crate performs no I/O of its own besides reading a scenario or map file when asked, and
//! cannot reach a clock: time comes from the samples. Its dependencies keep it that way — no
//! tokio, sqlx, axum or clap.

pub mod capabilities;
pub mod frame;
pub mod map;
#[cfg(feature = "proj")]
pub mod proj_geo;
pub mod sample;
pub mod scenario;
pub mod twin;
