//! What an object on the ground can drive: its acceleration and deceleration, top speed, the
//! dead time between its start command and its first motion, its smallest turning radius,
//! whether it honours a retime (MTSP), and — once measured — how closely it tracks a timed
//! trajectory and how late its MONR arrive. Planners keep every trajectory within these; the
//! control centre uses the dead time to advance the start of an object that ignores MTSP.
//!
//! Every value says where it came from ([`Source`]): the default for the object's kind, the
//! site's or the run's configuration, or a characterisation run (with its date). Values are
//! layered: defaults by [`ObjectKind`], then [`CapabilitiesPatch`]es in order (site
//! configuration, the run's carrier entry, measurements), each one overriding only what it
//! names.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::scenario::TargetKind;

/// What kind of platform an object is, for its default capabilities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObjectKind {
    /// A driving robot in a passenger car (the VUT).
    VutRobot,
    /// A small low-profile platform or belt carrying a pedestrian or cyclist dummy.
    PedestrianPlatform,
    /// A low-profile platform carrying a car or motorcycle target.
    VehiclePlatform,
}

impl ObjectKind {
    /// The platform that carries a target of this kind.
    pub fn carrying(t: TargetKind) -> Self {
        match t {
            TargetKind::Pedestrian | TargetKind::Cyclist => ObjectKind::PedestrianPlatform,
            TargetKind::Vehicle | TargetKind::Motorcycle => ObjectKind::VehiclePlatform,
        }
    }

    /// The name used in configuration (`[ground.capabilities.<name>]`).
    pub fn name(self) -> &'static str {
        match self {
            ObjectKind::VutRobot => "vut_robot",
            ObjectKind::PedestrianPlatform => "pedestrian_platform",
            ObjectKind::VehiclePlatform => "vehicle_platform",
        }
    }

    /// Every kind, in order.
    pub const ALL: [ObjectKind; 3] = [
        ObjectKind::VutRobot,
        ObjectKind::PedestrianPlatform,
        ObjectKind::VehiclePlatform,
    ];

    /// The kind named `s` ([`Self::name`]).
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// Where a capability's value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "snake_case")]
pub enum Source {
    /// The default for the object's kind.
    Default,
    /// Set in the site's configuration or the run's carrier entry (`by` says which).
    Configured { by: String },
    /// Measured by a characterisation run on `date` (RFC 3339, UTC).
    Measured { date: String },
}

/// The capability fields, by name (the keys of [`ObjectCapabilities::sources`]).
pub const FIELDS: [&str; 10] = [
    "max_accel_mps2",
    "max_decel_mps2",
    "max_speed_mps",
    "dead_time_s",
    "min_turn_radius_m",
    "honours_mtsp",
    "may_reverse",
    "speed_error_mps",
    "lateral_error_m",
    "monr_latency_s",
];

/// What an object can drive, and where each figure came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectCapabilities {
    /// What kind of platform it is (whose defaults it started from).
    pub kind: ObjectKind,
    /// Largest acceleration it drives, m/s² (launches are planned at or below it).
    pub max_accel_mps2: f64,
    /// Largest deceleration it drives, m/s² (positive).
    pub max_decel_mps2: f64,
    /// Highest speed it drives, m/s.
    pub max_speed_mps: f64,
    /// From its start command (STRT time) to its first motion, s.
    pub dead_time_s: f64,
    /// Smallest turning radius of its path, m.
    pub min_turn_radius_m: f64,
    /// It retimes its trajectory on MTSP. An object that does not is sent none; its start is
    /// advanced by its dead time instead.
    pub honours_mtsp: bool,
    /// It may drive backwards (the drive back may reverse).
    pub may_reverse: bool,
    /// Measured speed-tracking error (RMS of MONR speed − planned speed while holding), m/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_error_mps: Option<f64>,
    /// Measured lateral-tracking error (RMS distance from its path), m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lateral_error_m: Option<f64>,
    /// Measured MONR latency (arrival − the MONR's own timestamp), s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monr_latency_s: Option<f64>,
    /// Where each value came from, by field name ([`FIELDS`]); a field not listed is a default.
    #[serde(default)]
    pub sources: BTreeMap<String, Source>,
}

impl ObjectCapabilities {
    /// The defaults of a kind of platform (every source [`Source::Default`]).
    ///
    /// * Driving robot in a car: launches at 1.5 m/s² (robots launch at 1–2 m/s² to keep
    ///   wheel spin and pitch out of the measurement), brakes at up to 4 m/s² under the
    ///   robot's own control (harder stops are the car's AEB, not the plan), 36 m/s
    ///   (130 km/h), 0.2 s from STRT to motion (actuator travel and the car's throttle
    ///   response), turning circle ≈ 11 m.
    /// * Pedestrian or cyclist platform: 2 m/s² (a dummy on a platform topples above that),
    ///   3 m/s² braking, 8.5 m/s (≈ 30 km/h, above the fastest cyclist row), 0.15 s,
    ///   1 m radius.
    /// * Car or motorcycle platform: 3 m/s² (the middle of the 2–4 m/s² such platforms
    ///   drive), 7 m/s² braking (a braking-target row asks for 6), 22.5 m/s (≈ 80 km/h),
    ///   0.15 s, 3 m radius.
    ///
    /// Every kind is assumed to honour MTSP and to reverse, until configured or identified
    /// otherwise.
    pub fn default_for(kind: ObjectKind) -> Self {
        let (acc, dec, vmax, dead, r) = match kind {
            ObjectKind::VutRobot => (1.5, 4.0, 36.0, 0.2, 5.5),
            ObjectKind::PedestrianPlatform => (2.0, 3.0, 8.5, 0.15, 1.0),
            ObjectKind::VehiclePlatform => (3.0, 7.0, 22.5, 0.15, 3.0),
        };
        ObjectCapabilities {
            kind,
            max_accel_mps2: acc,
            max_decel_mps2: dec,
            max_speed_mps: vmax,
            dead_time_s: dead,
            min_turn_radius_m: r,
            honours_mtsp: true,
            may_reverse: true,
            speed_error_mps: None,
            lateral_error_m: None,
            monr_latency_s: None,
            sources: FIELDS
                .iter()
                .map(|f| (f.to_string(), Source::Default))
                .collect(),
        }
    }

    /// Where `field` came from ([`Source::Default`] when not recorded).
    pub fn source_of(&self, field: &str) -> Source {
        self.sources.get(field).cloned().unwrap_or(Source::Default)
    }

    /// These capabilities with `patch` applied: each value it names replaces the current one
    /// and is marked with `source`. The result is validated.
    pub fn with(mut self, patch: &CapabilitiesPatch, source: &Source) -> Result<Self, String> {
        let mut set = |name: &str| {
            self.sources.insert(name.to_string(), source.clone());
        };
        macro_rules! take {
            ($f:ident) => {
                if patch.$f.is_some() {
                    set(stringify!($f));
                }
            };
        }
        take!(max_accel_mps2);
        take!(max_decel_mps2);
        take!(max_speed_mps);
        take!(dead_time_s);
        take!(min_turn_radius_m);
        take!(honours_mtsp);
        take!(may_reverse);
        take!(speed_error_mps);
        take!(lateral_error_m);
        take!(monr_latency_s);
        let p = patch;
        self.max_accel_mps2 = p.max_accel_mps2.unwrap_or(self.max_accel_mps2);
        self.max_decel_mps2 = p.max_decel_mps2.unwrap_or(self.max_decel_mps2);
        self.max_speed_mps = p.max_speed_mps.unwrap_or(self.max_speed_mps);
        self.dead_time_s = p.dead_time_s.unwrap_or(self.dead_time_s);
        self.min_turn_radius_m = p.min_turn_radius_m.unwrap_or(self.min_turn_radius_m);
        self.honours_mtsp = p.honours_mtsp.unwrap_or(self.honours_mtsp);
        self.may_reverse = p.may_reverse.unwrap_or(self.may_reverse);
        self.speed_error_mps = p.speed_error_mps.or(self.speed_error_mps);
        self.lateral_error_m = p.lateral_error_m.or(self.lateral_error_m);
        self.monr_latency_s = p.monr_latency_s.or(self.monr_latency_s);
        self.validate()?;
        Ok(self)
    }

    /// Positive finite acceleration, deceleration, speed and radius; a dead time, errors and
    /// latency finite and at least 0 (dead time and latency below 5 s).
    pub fn validate(&self) -> Result<(), String> {
        let pos = |v: f64| v.is_finite() && v > 0.0;
        let nonneg = |v: f64| v.is_finite() && v >= 0.0;
        for (name, v) in [
            ("max_accel_mps2", self.max_accel_mps2),
            ("max_decel_mps2", self.max_decel_mps2),
            ("max_speed_mps", self.max_speed_mps),
            ("min_turn_radius_m", self.min_turn_radius_m),
        ] {
            if !pos(v) {
                return Err(format!("capabilities: {name} must be positive, got {v}"));
            }
        }
        if !(nonneg(self.dead_time_s) && self.dead_time_s < 5.0) {
            return Err(format!(
                "capabilities: dead_time_s must be 0..5 s, got {}",
                self.dead_time_s
            ));
        }
        for (name, v) in [
            ("speed_error_mps", self.speed_error_mps),
            ("lateral_error_m", self.lateral_error_m),
            ("monr_latency_s", self.monr_latency_s),
        ] {
            if let Some(v) = v {
                if !nonneg(v) || (name == "monr_latency_s" && v >= 5.0) {
                    return Err(format!("capabilities: {name} out of range, got {v}"));
                }
            }
        }
        Ok(())
    }

    /// Time and distance to reach `v` from rest at the largest acceleration (s, m).
    pub fn launch(&self, v: f64) -> (f64, f64) {
        let t = v.abs() / self.max_accel_mps2;
        (t, 0.5 * v.abs() * t)
    }

    /// Time and distance to stop from `v` at the largest deceleration (s, m).
    pub fn stop(&self, v: f64) -> (f64, f64) {
        let t = v.abs() / self.max_decel_mps2;
        (t, 0.5 * v.abs() * t)
    }
}

/// Some capabilities, each optional: a layer of configuration (`[ground.capabilities.<key>]`,
/// a run's carrier `"capabilities"`) or of measurement. Field names as in
/// [`ObjectCapabilities`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapabilitiesPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_accel_mps2: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_decel_mps2: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_speed_mps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dead_time_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_turn_radius_m: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub honours_mtsp: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub may_reverse: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_error_mps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lateral_error_m: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monr_latency_s: Option<f64>,
}

impl CapabilitiesPatch {
    /// Nothing set.
    pub fn is_empty(&self) -> bool {
        *self == CapabilitiesPatch::default()
    }

    /// The defaults of `kind` with this patch applied as `source`, validated.
    pub fn over(&self, kind: ObjectKind, source: &Source) -> Result<ObjectCapabilities, String> {
        ObjectCapabilities::default_for(kind).with(self, source)
    }
}

/// One layer of capabilities over an object's defaults: what it sets, who set it, and (for a
/// site-wide setting by kind) which kind of platform it applies to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapabilityLayer {
    /// Only objects of this kind; `None`: any object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ObjectKind>,
    pub source: Source,
    pub patch: CapabilitiesPatch,
}

impl ObjectCapabilities {
    /// The defaults of `kind` with each layer that applies to it on top, in order (later
    /// layers win). Errors name the layer's source.
    pub fn resolve(kind: ObjectKind, layers: &[CapabilityLayer]) -> Result<Self, String> {
        let mut c = Self::default_for(kind);
        for l in layers.iter().filter(|l| l.kind.is_none_or(|k| k == kind)) {
            c = c.with(&l.patch, &l.source).map_err(|e| match &l.source {
                Source::Configured { by } => format!("{by}: {e}"),
                Source::Measured { date } => format!("measured on {date}: {e}"),
                Source::Default => e,
            })?;
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_marked_default() {
        for k in ObjectKind::ALL {
            let c = ObjectCapabilities::default_for(k);
            c.validate().unwrap();
            assert_eq!(c.source_of("max_accel_mps2"), Source::Default);
            assert_eq!(ObjectKind::parse(k.name()), Some(k));
        }
        let robot = ObjectCapabilities::default_for(ObjectKind::VutRobot);
        assert!((1.0..=2.0).contains(&robot.max_accel_mps2));
        let platform = ObjectCapabilities::default_for(ObjectKind::VehiclePlatform);
        assert!((2.0..=4.0).contains(&platform.max_accel_mps2));
        assert!(
            platform.max_decel_mps2 >= 6.0,
            "braking targets need 6 m/s²"
        );
    }

    #[test]
    fn a_patch_overrides_only_what_it_names_and_says_so() {
        let p: CapabilitiesPatch =
            serde_json::from_str(r#"{"max_accel_mps2": 1.2, "honours_mtsp": false}"#).unwrap();
        let by = Source::Configured {
            by: "scil.toml".into(),
        };
        let c = p.over(ObjectKind::VutRobot, &by).unwrap();
        assert_eq!(c.max_accel_mps2, 1.2);
        assert!(!c.honours_mtsp);
        assert_eq!(c.dead_time_s, 0.2);
        assert_eq!(c.source_of("max_accel_mps2"), by);
        assert_eq!(c.source_of("dead_time_s"), Source::Default);
        let m = CapabilitiesPatch {
            dead_time_s: Some(0.21),
            ..Default::default()
        };
        let date = Source::Measured {
            date: "2026-11-28T17:00:00Z".into(),
        };
        let c = c.with(&m, &date).unwrap();
        assert_eq!(c.source_of("dead_time_s"), date);
        assert_eq!(c.source_of("max_accel_mps2"), by);
        // Round trip through JSON.
        let back: ObjectCapabilities =
            serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
        assert_eq!(back, c);
    }

    #[test]
    fn bad_values_are_refused_by_name() {
        let p = CapabilitiesPatch {
            max_accel_mps2: Some(-1.0),
            ..Default::default()
        };
        let e = p
            .over(ObjectKind::PedestrianPlatform, &Source::Default)
            .unwrap_err();
        assert!(e.contains("max_accel_mps2"), "{e}");
        assert!(serde_json::from_str::<CapabilitiesPatch>(r#"{"max_acel": 1}"#).is_err());
    }

    #[test]
    fn layers_apply_by_kind_in_order() {
        let site = |k: Option<ObjectKind>, a: f64| CapabilityLayer {
            kind: k,
            source: Source::Configured {
                by: "[ground.capabilities]".into(),
            },
            patch: CapabilitiesPatch {
                max_accel_mps2: Some(a),
                ..Default::default()
            },
        };
        let layers = [
            site(Some(ObjectKind::VehiclePlatform), 2.5),
            site(Some(ObjectKind::VutRobot), 1.1),
            site(None, 1.3),
        ];
        let c = ObjectCapabilities::resolve(ObjectKind::VehiclePlatform, &layers[..1]).unwrap();
        assert_eq!(c.max_accel_mps2, 2.5);
        let c = ObjectCapabilities::resolve(ObjectKind::VutRobot, &layers[..2]).unwrap();
        assert_eq!(c.max_accel_mps2, 1.1);
        let c = ObjectCapabilities::resolve(ObjectKind::VutRobot, &layers).unwrap();
        assert_eq!(c.max_accel_mps2, 1.3);
        let bad = [site(None, 0.0)];
        let e = ObjectCapabilities::resolve(ObjectKind::VutRobot, &bad).unwrap_err();
        assert!(e.starts_with("[ground.capabilities]: "), "{e}");
    }
}
