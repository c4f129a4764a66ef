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
//! * [`Activation::Headway`] — a lead vehicle waiting ahead of the VUT in its lane (CCRb,
//!   CMRb): it starts at the VUT's speed when the VUT's front is its time headway
//!   ([`HeadwaySpec`]) behind the lead's rear, and then keeps that headway (its speed follows
//!   the VUT's within the target speed tolerance) until it brakes.
//!
//! A [`BrakeSpec`] makes a moving target decelerate `after_s` seconds after its start (CCRb),
//! down to `final_kmh` (default: standstill).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Activation {
    #[default]
    Ttc,
    Begin,
    Static,
    Conflict,
    Headway,
}

pub(crate) fn is_default_activation(a: &Activation) -> bool {
    *a == Activation::Ttc
}

/// Constant deceleration from `after_s` seconds after the target's start down to `final_kmh`
/// (then held), or to standstill.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrakeSpec {
    pub after_s: f64,
    /// Positive number, m/s² (Euro NCAP 2026 CCRb/CMRb: 4; robustness layers 2 and 6).
    pub decel_mps2: f64,
    /// Speed the braking ends at, km/h (Vector's files: 2 km/h); 0 = standstill.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub final_kmh: f64,
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

/// The start rule of a lead vehicle (`activation = "headway"`): time headway from the VUT's
/// front bumper to the lead's rear, the gap divided by the VUT's speed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeadwaySpec {
    /// Headway the lead starts at and keeps until it brakes, s (Euro NCAP: 1.0).
    pub time_s: f64,
    /// Validity band above `time_s`, s (Euro NCAP: +0.1). Judged from T0 until the lead brakes.
    #[serde(default = "default_band")]
    pub band_s: f64,
}

fn default_band() -> f64 {
    0.1
}

impl HeadwaySpec {
    pub fn new(time_s: f64) -> HeadwaySpec {
        HeadwaySpec {
            time_s,
            band_s: default_band(),
        }
    }
}
