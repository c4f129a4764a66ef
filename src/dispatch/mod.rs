//! Dispatch to target carriers over ISO 22133.
//!
//! * [`iso22133`]: the wire codec (sans-IO).
pub mod iso22133;
