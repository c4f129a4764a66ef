//! An object of the ground as the operator names it: what it drives, its address, its
//! platform's kind and capabilities, and the lead it stands before it moves. The plan and
//! the run-up fit both read it.

use serde::{Deserialize, Serialize};

use super::route::Mobility;
use crate::capabilities::{CapabilityLayer, ObjectCapabilities, ObjectKind};
use crate::run::RunSetup;
use crate::scenario::Activation;

/// What an object moves: the VUT (its driving robot) or a scenario target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drives {
    Vut,
    Target(String),
}

impl Serialize for Drives {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Drives::Vut => s.serialize_str("vut"),
            Drives::Target(t) => s.serialize_str(t),
        }
    }
}

impl<'de> Deserialize<'de> for Drives {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(match s.as_str() {
            "vut" => Drives::Vut,
            "" => return Err(serde::de::Error::custom("drives: empty target id")),
            _ => Drives::Target(s),
        })
    }
}

impl std::fmt::Display for Drives {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Drives::Vut => f.write_str("vut"),
            Drives::Target(t) => f.write_str(t),
        }
    }
}

/// One ISO 22133 object of the ground: `{"name", "address", "drives"}` (address
/// `HOST[:TCP[:UDP]]`, default ports 53241/53240), optionally how it may drive back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectSpec {
    pub name: String,
    pub address: String,
    pub drives: Drives,
    /// Turning radius, reversing and speed of its drive back; default by what it carries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mobility: Option<Mobility>,
    /// What it can drive, as layers over the defaults of the platform that carries what it
    /// drives (the site's settings, the run's, its measurements; later layers win).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<CapabilityLayer>,
}

/// The longest dead time a trajectory waits out at its start, s.
pub const MAX_LEAD_S: f64 = 1.0;

/// An object's lead ([`ObjectPlan::lead_s`]): its dead time, within 0..[`MAX_LEAD_S`].
pub fn lead_of(c: &ObjectCapabilities) -> f64 {
    if c.dead_time_s.is_finite() {
        c.dead_time_s.clamp(0.0, MAX_LEAD_S)
    } else {
        0.0
    }
}

/// What kind of platform drives `d`: the VUT's robot, or the platform of the target's kind
/// (an unknown target: a pedestrian platform).
pub fn object_kind(setup: &RunSetup, d: &Drives) -> ObjectKind {
    match d {
        Drives::Vut => ObjectKind::VutRobot,
        Drives::Target(id) => setup
            .scenario
            .targets
            .iter()
            .find(|t| &t.id == id)
            .map_or(ObjectKind::PedestrianPlatform, |t| {
                ObjectKind::carrying(t.kind)
            }),
    }
}

/// The default mobility of an object by what it carries.
pub fn default_mobility(setup: &RunSetup, d: &Drives) -> Mobility {
    match object_kind(setup, d) {
        ObjectKind::VutRobot => Mobility::CAR,
        ObjectKind::VehiclePlatform => Mobility::PLATFORM,
        ObjectKind::PedestrianPlatform => Mobility::SMALL_PLATFORM,
    }
}

/// The drive back of an object with capabilities `c`: its kind's drive-back speed and
/// acceleration, at most its own, on its own turning radius and reversing rule.
pub fn mobility_within(base: Mobility, c: &ObjectCapabilities) -> Mobility {
    Mobility {
        min_turn_radius_m: c.min_turn_radius_m,
        may_reverse: c.may_reverse,
        speed_mps: base.speed_mps.min(c.max_speed_mps),
        accel_mps2: base.accel_mps2.min(c.max_accel_mps2).min(c.max_decel_mps2),
    }
}

/// The engine starts target `t` at the run's first sample: it moves from the run's beginning,
/// or, in a start from standstill, it approaches from the arm.
pub fn begins_with_run(vut: &crate::scenario::VutSpec, t: &crate::scenario::TargetSpec) -> bool {
    t.activation == Activation::Begin
        || (vut.launch.is_some() && t.activation == Activation::Conflict && t.speed_kmh > 0.0)
}
