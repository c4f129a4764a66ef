//! Targets beyond the crossing dummy: how a target starts and whether it brakes.
//!
//! * [`Activation::Ttc`] — the crossing start of the seed paper: the engine fires when the VUT
//!   TTC reaches TTC_dummy (the default; every existing scenario file is this).
//! * [`Activation::Begin`] — the target starts when the run is armed (longitudinal CPLA/CBLA
//!   dummies walking ahead of the VUT, CCRm/CCRb lead vehicles with their headway).
//! * [`Activation::Static`] — never moves (CPNCO obstruction vehicles, the CCRs target).
//! * [`Activation::Conflict`] — started (and then kept synchronised) so that it reaches its
//!   conflict point along its own path when the VUT reaches its conflict point along the VUT
//!   path ([`super::ConflictSpec`]): turning, junction, head-on and lane-change tests.
//!
//! A [`BrakeSpec`] makes a moving target decelerate `after_s` seconds after its start (CCRb).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Activation {
    #[default]
    Ttc,
    Begin,
    Static,
    Conflict,
}

pub(crate) fn is_default_activation(a: &Activation) -> bool {
    *a == Activation::Ttc
}

/// Constant deceleration from `after_s` seconds after the target's start until standstill.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrakeSpec {
    pub after_s: f64,
    /// Positive number, m/s² (CCRb: 2 or 6).
    pub decel_mps2: f64,
}
