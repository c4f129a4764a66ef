//! Run recordings and exports for the robotics tool chain.
//!
//! - [`messages`]: the channel table (Foxglove well-known schemas, JSON encoding) and the
//!   encoder from engine state / stored telemetry to messages;
//! - [`mcap`]: MCAP out ([`mcap::McapRecorder`]), MCAP in ([`mcap::McapSource`]) and the MCAP
//!   of a stored run ([`mcap::mcap_from_store`]);
//! - [`parquet`]: telemetry and events as Parquet.
//!
//! The live view for Foxglove/Lichtblick is [`crate::serve::foxglove`], fed by the same encoder.

pub mod mcap;
pub mod mdf4;
pub mod messages;
pub mod parquet;

pub use self::mcap::{mcap_from_store, McapRecorder, McapSource};
pub use messages::{Encoder, Message, Snapshot, CHANNELS};
