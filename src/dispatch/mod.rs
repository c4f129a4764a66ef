//! Dispatch to target carriers over ISO 22133.
//!
//! * [`iso22133`]: the wire codec (sans-IO).
pub mod iso22133;
pub mod object;
pub mod profile;
pub mod carrier_sim;
pub mod events;
pub mod safety;
pub mod control_centre;
pub mod bench;
pub mod cli;
pub mod live;
