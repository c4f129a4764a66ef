//! Scenarios: what the test is (file format), the TTC method, the simulated dummy, and the
//! sans-IO [`engine::Engine`] that turns samples into commands and events.

pub mod catalogue;
pub mod engine;
pub mod geom;
pub mod launch;
pub mod ncap2026;
pub mod path;
pub mod place;
pub mod profile;
pub mod target;
pub mod ttc;
pub mod turn;
mod validate;
pub mod validity;

pub use path::PathSpec;
pub use target::{Activation, BrakeSpec, HeadwaySpec};

/// Spacing of the points a segment path is drawn with where points are asked for (m).
const LANE_STEP_SAMPLE_M: f64 = 0.25;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A scenario file (`scenarios/*.toml`). Unknown keys are rejected so that a misspelt
/// safety-relevant setting cannot be silently ignored; new keys are added here as options.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    /// OpenDRIVE map, relative to the scenario file.
    #[serde(default)]
    pub map: Option<String>,
    pub vut: VutSpec,
    #[serde(default)]
    pub targets: Vec<TargetSpec>,
    /// Closed-loop synchronisation of the targets with the VUT after their start.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sync: bool,
    /// Live validity verdicts per Euro NCAP; off unless set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validity: Option<validity::ValiditySpec>,
    /// Catalogue entry this scenario was instantiated from (e.g. "CPNA-75").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalogue_id: Option<String>,
}

/// The vehicle under test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VutSpec {
    pub width_m: f64,
    pub length_m: f64,
    /// d_COG in the seed paper: INS reference point to the front bumper.
    pub reference_to_front_m: f64,
    /// Steering-wheel to road-wheel angle ratio (extension; default 16).
    #[serde(default)]
    pub steering_ratio: Option<f64>,
    /// Nominal test speed (km/h). When set, impacts report the impact speed and the speed
    /// reduction, and validity verdicts check the VUT speed against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_kmh: Option<f64>,
    /// The VUT's planned path (path of its control point): a map-frame polyline or an
    /// OpenDRIVE lane range, as a target's `path`. Targets started by a conflict rule measure
    /// the VUT's distance along it, for any angle of approach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathSpec>,
    /// Distance from the control point (the point that follows `path`; the front-axle centre
    /// in the Euro NCAP turning tests) to the front bumper. Default: `reference_to_front_m`
    /// (the control point is the INS reference point).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_point_to_front_m: Option<f64>,
    /// The VUT drives its path backwards (reversing tests): its rear leads.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reverse: bool,
    /// Lateral drift of the VUT away from its path (lane departure tests): from `from_s`
    /// along the path the VUT moves sideways at `lateral_mps` (positive to the left).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drift: Option<DriftSpec>,
    /// The VUT starts from standstill (low-speed tests that start from standstill): it stands
    /// at the start of its planned path until the engine cues its launch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch: Option<LaunchSpec>,
    /// A door of the standing VUT that is opened on a distance rule (dooring tests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub door: Option<DoorSpec>,
    /// The ISO 22133 object that drives the VUT on the ground (its driving robot): a run whose
    /// carriers include one of this name drives every object it lists along its planned path,
    /// each carrier driving the actor the scenario names it for (`targets[].carrier`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carrier: Option<String>,
}

impl VutSpec {
    /// A VUT of the given size with every option at its default.
    pub fn new(width_m: f64, length_m: f64, reference_to_front_m: f64) -> VutSpec {
        VutSpec {
            width_m,
            length_m,
            reference_to_front_m,
            steering_ratio: None,
            speed_kmh: None,
            path: None,
            control_point_to_front_m: None,
            reverse: false,
            drift: None,
            launch: None,
            door: None,
            carrier: None,
        }
    }

    /// The VUT as the engine measures it: facing its direction of travel. For a reversing VUT
    /// (`reverse`) the body is mirrored front to back — the rear bumper is then its "front", so
    /// that distances, TTC, footprints and impact locations are measured from the rear bumper,
    /// and across it from its right edge as seen looking backwards (the VUT's left side).
    pub fn in_travel_direction(&self) -> VutSpec {
        if !self.reverse {
            return self.clone();
        }
        VutSpec {
            reference_to_front_m: self.length_m - self.reference_to_front_m,
            control_point_to_front_m: self.control_point_to_front_m.map(|c| self.length_m - c),
            reverse: false,
            ..self.clone()
        }
    }

    /// The path the VUT's control point follows: the planned path (once resolved to points)
    /// with the lane-departure drift applied when there is one. `None` before the path is
    /// resolved or without a path.
    pub fn driven_points(&self) -> Option<Vec<Point>> {
        let path = self.path.as_ref()?;
        match (&self.drift, self.speed_kmh) {
            (Some(d), Some(v)) => Some(d.apply_path(&path.geometry().ok()?, v / 3.6)),
            _ => path.points(LANE_STEP_SAMPLE_M),
        }
    }

    /// [`VutSpec::driven_points`] as geometry: the planned path itself without a drift.
    pub fn driven_path(&self) -> Option<path::Path> {
        let path = self.path.as_ref()?;
        match (&self.drift, self.speed_kmh) {
            (Some(d), Some(v)) => path::Path::new(&d.apply_path(&path.geometry().ok()?, v / 3.6)),
            _ => path.geometry().ok(),
        }
    }

    /// How far the control point lies ahead of the INS reference point (m, along the body).
    pub fn control_ahead_m(&self) -> f64 {
        self.control_point_to_front_m
            .map_or(0.0, |c| self.reference_to_front_m - c)
    }
}

/// Lane-departure drift of the VUT (ELK): sideways at `lateral_mps` from arc length `from_s`
/// of its path on (positive to the left), at the VUT's nominal speed (`vut.speed_kmh`). The
/// drift builds up over an entry `entry_m` long (by default as long as an arc of radius
/// [`DriftSpec::ENTRY_RADIUS_M`] that reaches the drift's heading; see [`DriftSpec::offset_at`]),
/// then the lateral speed is constant.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriftSpec {
    pub from_s: f64,
    pub lateral_mps: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_m: Option<f64>,
}

impl DriftSpec {
    /// Radius of the default entry into the drift, m.
    pub const ENTRY_RADIUS_M: f64 = 1200.0;

    /// Length of the entry along the path at speed `v_mps`, m.
    pub fn entry_len(&self, v_mps: f64) -> f64 {
        let k = (self.lateral_mps / v_mps.max(0.1)).abs();
        self.entry_m.unwrap_or(k * Self::ENTRY_RADIUS_M).max(1e-3)
    }

    /// Sideways offset (left positive) at arc length `s` of the path, at speed `v_mps`. The
    /// entry's curvature rises linearly to its peak halfway and falls back to zero at its end (a
    /// clothoid pair: the steering wheel turns in and back out at a steady rate), so that the
    /// path leaves the entry with the drift's slope `k = lateral/v` and an offset of `k·e/2`.
    pub fn offset_at(&self, s: f64, v_mps: f64) -> f64 {
        let k = self.lateral_mps / v_mps.max(0.1);
        let e = self.entry_len(v_mps);
        let u = s - self.from_s;
        if u <= 0.0 {
            0.0
        } else if u <= 0.5 * e {
            2.0 * k * u.powi(3) / (3.0 * e * e)
        } else if u < e {
            k * (u - 0.5 * e) + 2.0 * k * (e - u).powi(3) / (3.0 * e * e)
        } else {
            k * (u - 0.5 * e)
        }
    }

    /// Arc length at which the offset reaches `offset` (same sign as the drift), if it does.
    pub fn s_at_offset(&self, offset: f64, v_mps: f64) -> Option<f64> {
        let k = self.lateral_mps / v_mps.max(0.1);
        if k == 0.0 || offset / k < 0.0 {
            return None;
        }
        let e = self.entry_len(v_mps);
        if (offset / k) >= 0.5 * e {
            return Some(self.from_s + offset / k + 0.5 * e);
        }
        // Within the entry: the offset grows monotonically, bisection.
        let (mut lo, mut hi) = (0.0, e);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if (self.offset_at(self.from_s + mid, v_mps) / k) < offset / k {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(self.from_s + 0.5 * (lo + hi))
    }

    /// The path the drifting VUT's control point follows: `pts` moved sideways by the offset,
    /// each point along the path's local normal.
    pub fn apply(&self, pts: &[Point], v_mps: f64) -> Vec<Point> {
        match path::Polyline::new(pts) {
            Some(line) => self.apply_path(&line, v_mps),
            None => pts.to_vec(),
        }
    }

    /// [`DriftSpec::apply`] on a path's geometry.
    pub fn apply_path(&self, line: &path::Path, v_mps: f64) -> Vec<Point> {
        // Resampled every 0.5 m so that the entry is smooth whatever the input spacing.
        let n = (line.length() / 0.5).ceil().max(1.0) as usize;
        (0..=n)
            .map(|i| {
                let s = line.length() * i as f64 / n as f64;
                let (x, y, yaw) = line.pose(s);
                let o = self.offset_at(s, v_mps);
                Point {
                    x: x - o * yaw.sin(),
                    y: y + o * yaw.cos(),
                }
            })
            .collect()
    }
}

/// A start from standstill (Euro NCAP's SfS tests): the VUT stands at the start of its planned
/// path; the targets start when the run is armed and drive their paths, and the engine cues the
/// VUT's launch (an event, and a `start` command to its driver robot's `carrier` if named) at the
/// instant from which the nominal launch — constant `accel_mps2` from rest up to `speed_kmh` —
/// brings its control point to the conflict point when the first moving target reaches its
/// own (without a moving target: as soon as the run is armed). After the launch the targets
/// are synchronised to the VUT's measured progress.
///
/// With `jerk_mps3` the launch is the jerk-limited ramp a driving robot is given: its
/// acceleration rises at that jerk to `accel_mps2`, holds, and falls at that jerk as the speed
/// is reached (it takes `accel_mps2 / jerk_mps3` longer than the step, and trails it by half
/// that from then on); the simulated VUT drives it, and the engine cues and predicts with it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchSpec {
    pub accel_mps2: f64,
    pub speed_kmh: f64,
    /// Carrier (ISO 22133 object) that receives the VUT's start: its driver robot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carrier: Option<String>,
    /// The launch's jerk, m/s³ (none: the acceleration steps to `accel_mps2` and back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jerk_mps3: Option<f64>,
}

impl LaunchSpec {
    /// Default launch of the bundled SfS tests: 2 m/s² up to 20 km/h.
    pub const DEFAULT_ACCEL_MPS2: f64 = 2.0;
    pub const DEFAULT_SPEED_KMH: f64 = 20.0;

    /// The jerk-limited ramp, when a jerk is set.
    fn ramp(&self) -> Option<launch::Launch> {
        let j = self.jerk_mps3.filter(|j| *j > 0.0 && j.is_finite())?;
        Some(launch::Launch {
            accel_mps2: self.accel_mps2,
            jerk_mps3: j,
        })
    }

    /// Time into the ramp at which its speed is `v` (bisection; speed rises monotonically).
    fn ramp_time_at(r: &launch::Launch, vmax: f64, v: f64) -> f64 {
        let (mut lo, mut hi) = (0.0, r.duration_s(vmax));
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if r.at(vmax, mid).0 < v {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }

    /// Time the nominal launch takes to cover `d` metres from a speed of `v0` (m/s).
    pub fn time_to(&self, d: f64, v0: f64) -> f64 {
        let (a, vmax) = (self.accel_mps2, self.speed_kmh / 3.6);
        let v0 = v0.clamp(0.0, vmax);
        if d <= 0.0 {
            return 0.0;
        }
        if let Some(r) = self.ramp() {
            // Where on the ramp its speed is v0, then along the ramp and on at its speed.
            let total = r.duration_s(vmax);
            let t0 = Self::ramp_time_at(&r, vmax, v0);
            let (s0, s_end) = (r.distance_m(vmax, t0), r.distance_m(vmax, total));
            let goal = s0 + d;
            if goal >= s_end {
                return (total - t0) + (goal - s_end) / vmax;
            }
            let (mut lo, mut hi) = (t0, total);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if r.distance_m(vmax, mid) < goal {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            return 0.5 * (lo + hi) - t0;
        }
        // Distance to reach vmax from v0.
        let d_acc = (vmax * vmax - v0 * v0) / (2.0 * a);
        if d <= d_acc {
            ((v0 * v0 + 2.0 * a * d).sqrt() - v0) / a
        } else {
            (vmax - v0) / a + (d - d_acc) / vmax
        }
    }

    /// Distance covered `t` seconds after the launch.
    pub fn travel(&self, t: f64) -> f64 {
        let (a, vmax) = (self.accel_mps2, self.speed_kmh / 3.6);
        let t = t.max(0.0);
        let t_acc = vmax / a;
        if let Some(r) = self.ramp() {
            // (The step launch's t_acc is not this one's: the ramp's own duration.)
            let total = r.duration_s(vmax);
            return r.distance_m(vmax, t.min(total)) + vmax * (t - total).max(0.0);
        }
        if t <= t_acc {
            0.5 * a * t * t
        } else {
            0.5 * a * t_acc * t_acc + vmax * (t - t_acc)
        }
    }

    /// Speed `t` seconds after the launch, m/s.
    pub fn speed(&self, t: f64) -> f64 {
        self.speed_accel(t).0
    }

    /// (speed m/s, acceleration m/s²) `t` seconds after the launch.
    pub fn speed_accel(&self, t: f64) -> (f64, f64) {
        let vmax = self.speed_kmh / 3.6;
        if let Some(r) = self.ramp() {
            return r.at(vmax, t.max(0.0));
        }
        let v = (self.accel_mps2 * t.max(0.0)).min(vmax);
        (v, if v < vmax { self.accel_mps2 } else { 0.0 })
    }
}

/// A door of the VUT opened when a target comes within a distance of it (Euro NCAP's CBDA):
/// the engine cues the opening (a `start` command to the door robot's `carrier` when one is
/// named) at the instant the target's front is `open_at_m` from the door's rear edge,
/// measured along the target's path, and reports it as a trigger of target `door` whose TTC is
/// the target's time to the door's rear edge then.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DoorSpec {
    /// The target whose approach opens the door.
    pub target: String,
    /// The closed door's rear edge in the VUT's body frame from its INS reference point:
    /// forward (m) and to the left (m; negative: the right side).
    pub rear_edge_forward_m: f64,
    pub rear_edge_left_m: f64,
    pub open_at_m: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carrier: Option<String>,
}

impl DoorSpec {
    /// Id of the door in commands and triggers.
    pub const ID: &'static str = "door";
}

/// Where a target started by a conflict rule meets the VUT: its reference point reaches arc
/// length `target_s` of its own path when the VUT's control point reaches `vut_s` of the VUT
/// path.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConflictSpec {
    pub vut_s: f64,
    pub target_s: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    Pedestrian,
    Cyclist,
    Vehicle,
    Motorcycle,
}

impl TargetKind {
    /// Euro NCAP target speed tolerance, m/s (pedestrian ±0.2, cyclist ±0.5, car and
    /// motorcycle ±1.0 km/h).
    pub fn speed_tolerance_mps(self) -> f64 {
        let kmh = match self {
            TargetKind::Pedestrian => 0.2,
            TargetKind::Cyclist => 0.5,
            TargetKind::Vehicle | TargetKind::Motorcycle => 1.0,
        };
        kmh / 3.6
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// A crossing target (VRU dummy on a carrier).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetSpec {
    pub id: String,
    pub kind: TargetKind,
    /// Carrier that moves this target (dispatch configuration key).
    #[serde(default)]
    pub carrier: Option<String>,
    /// Dummy start point, map frame. Optional with a `path` (its first point).
    #[serde(default = "path::unset_point")]
    pub start: Point,
    /// Walking direction, INS convention (clockwise from north, degrees). Optional with a
    /// `path` (its initial direction).
    #[serde(default = "path::unset")]
    pub heading_deg: f64,
    /// E: start distance from the VUT centreline.
    pub lateral_start_m: f64,
    /// s_acc: distance over which the dummy accelerates to its speed.
    pub accel_distance_m: f64,
    pub speed_kmh: f64,
    /// Impact point as a fraction of the VUT width from the near side.
    pub overlap: f64,
    /// Override of the computed TTC_dummy threshold (extension).
    #[serde(default)]
    pub ttc_s: Option<f64>,
    /// What the carrier needs besides a start signal (extension; default: trajectory upload).
    #[serde(default)]
    pub carrier_mode: Option<CarrierMode>,
    /// How the target starts (default: TTC-triggered crossing start).
    #[serde(default, skip_serializing_if = "target::is_default_activation")]
    pub activation: Activation,
    /// Braking of a lead vehicle (CCRb): at a time after its start, at a deceleration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brake: Option<BrakeSpec>,
    /// The start rule of a lead vehicle (`activation = "headway"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headway: Option<HeadwaySpec>,
    /// Target length along its heading (longitudinal/rear impacts hit its rear end; the start
    /// point is the target's rear end). Default 0 (a point-like dummy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length_m: Option<f64>,
    /// Path along which the target moves (a map-frame polyline or an OpenDRIVE lane and s
    /// range, see [`path`]); default: straight from `start` along `heading_deg`. Not for
    /// TTC-triggered crossing targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathSpec>,
    /// Conflict point of a target started by `activation = "conflict"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflict: Option<ConflictSpec>,
    /// Target width across its heading (m): the footprint that impacts are detected on for
    /// conflict targets. Default by kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width_m: Option<f64>,
    /// What `overlap` and the impact location measure (conflict targets): a position across
    /// the VUT front (default) or along the target's side.
    #[serde(default, skip_serializing_if = "ImpactOn::is_default")]
    pub impact_on: ImpactOn,
}

/// What an impact location of a conflict target measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ImpactOn {
    /// The target's reference point across the VUT front, as a fraction of the VUT width from
    /// its right (nearside) edge.
    #[default]
    VutFront,
    /// Where the VUT first touches the target, along the target from its front end (0) to its
    /// rear end (1): for a target that overtakes a turning VUT and meets its front corner
    /// (CBTA, same direction).
    TargetSide,
    /// The target's reference point along the VUT's side, as a fraction of the VUT length
    /// from its rear end (0) to its front (1): a crossing motorcycle striking the VUT's side
    /// (CMCscp: 0.9, i.e. 10 % of the VUT length behind its front, as Vector's files place it).
    VutSide,
}

impl ImpactOn {
    fn is_default(&self) -> bool {
        *self == ImpactOn::VutFront
    }
}

impl TargetSpec {
    /// A target of `kind` at `start` heading `heading_deg` with every option at its default
    /// (a point-like dummy started by the TTC rule, overlap 0.5, not moving).
    pub fn new(id: &str, kind: TargetKind, start: Point, heading_deg: f64) -> TargetSpec {
        TargetSpec {
            id: id.into(),
            kind,
            carrier: None,
            start,
            heading_deg,
            lateral_start_m: 0.0,
            accel_distance_m: 0.0,
            speed_kmh: 0.0,
            overlap: 0.5,
            ttc_s: None,
            carrier_mode: None,
            activation: Activation::Ttc,
            brake: None,
            headway: None,
            length_m: None,
            path: None,
            conflict: None,
            width_m: None,
            impact_on: ImpactOn::VutFront,
        }
    }

    /// Footprint (length, width) of the target for impact detection.
    pub fn footprint(&self) -> (f64, f64) {
        let (l, w) = match self.kind {
            TargetKind::Pedestrian => (0.3, 0.5),
            TargetKind::Cyclist => (1.8, 0.6),
            TargetKind::Motorcycle => (2.2, 0.8),
            TargetKind::Vehicle => (4.0, 1.8),
        };
        (self.length_m.unwrap_or(l), self.width_m.unwrap_or(w))
    }
}

/// What a carrier needs besides a start signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CarrierMode {
    /// OSEM + TRAJ upload + ARM + STRT.
    #[default]
    Trajectory,
    /// A carrier that only needs a start signal (CarMaker-style 0/1 trigger): no TRAJ.
    StartOnly,
}

#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Toml {
        path: PathBuf,
        source: toml::de::Error,
    },
    #[error("{path}: {reason}")]
    Invalid { path: PathBuf, reason: String },
}

impl Scenario {
    pub fn from_path(path: &Path) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Io {
            path: path.into(),
            source,
        })?;
        Self::from_toml(&text).map_err(|e| match e {
            ScenarioError::Toml { source, .. } => ScenarioError::Toml {
                path: path.into(),
                source,
            },
            ScenarioError::Invalid { reason, .. } => ScenarioError::Invalid {
                path: path.into(),
                reason,
            },
            other => other,
        })
    }

    pub fn from_toml(text: &str) -> Result<Scenario, ScenarioError> {
        let sc: Scenario = toml::from_str(text).map_err(|source| ScenarioError::Toml {
            path: PathBuf::new(),
            source,
        })?;
        sc.validate().map_err(|reason| ScenarioError::Invalid {
            path: PathBuf::new(),
            reason,
        })?;
        Ok(sc)
    }

    /// Map path resolved against the scenario file's directory.
    pub fn map_path(&self, scenario_file: &Path) -> Option<PathBuf> {
        let m = self.map.as_ref()?;
        let p = Path::new(m);
        Some(if p.is_absolute() {
            p.to_path_buf()
        } else {
            scenario_file.parent().unwrap_or(Path::new(".")).join(p)
        })
    }

    fn validate(&self) -> Result<(), String> {
        validate::check(self)
    }
}

#[cfg(test)]
mod drift_tests {
    use super::{DriftSpec, LaunchSpec};

    #[test]
    fn launch_model_inverts() {
        let l = LaunchSpec {
            accel_mps2: 2.0,
            speed_kmh: 18.0,
            carrier: None,
            jerk_mps3: None,
        };
        // 5 m/s after 2.5 s and 6.25 m; constant beyond.
        assert!((l.travel(2.5) - 6.25).abs() < 1e-12);
        assert!((l.speed(2.5) - 5.0).abs() < 1e-12 && (l.speed(9.0) - 5.0).abs() < 1e-12);
        for d in [0.0, 0.5, 2.9, 6.25, 10.0, 40.0] {
            let t = l.time_to(d, 0.0);
            assert!((l.travel(t) - d).abs() < 1e-9, "{d}");
        }
        // From a speed already reached: the remaining time only.
        let (t0, d0) = (1.0, l.travel(1.0));
        for d in [0.3, 5.0, 20.0] {
            let t = l.time_to(d, l.speed(t0));
            assert!((l.travel(t0 + t) - d0 - d).abs() < 1e-9, "{d}");
        }
    }

    #[test]
    fn a_jerk_limited_launch_ramps_trails_the_step_and_inverts() {
        let step = LaunchSpec {
            accel_mps2: 1.35,
            speed_kmh: 10.0,
            carrier: None,
            jerk_mps3: None,
        };
        let l = LaunchSpec {
            jerk_mps3: Some(4.0),
            ..step.clone()
        };
        let (vmax, t_acc, lag) = (10.0 / 3.6, 10.0 / 3.6 / 1.35, 1.35 / 4.0);
        // At its speed a/j later than the step, and from then on half that behind it.
        assert!(l.speed(t_acc + lag - 1e-6) < vmax && (l.speed(t_acc + lag) - vmax).abs() < 1e-9);
        for t in [t_acc + lag, 9.0] {
            assert!(
                (l.travel(t) - step.travel(t - 0.5 * lag)).abs() < 1e-9,
                "{t}"
            );
        }
        // Its acceleration ramps (no step at the start nor at the end), never above the step's.
        assert!(l.speed_accel(0.01).1 < 0.05 && l.speed_accel(t_acc + lag - 0.01).1 < 0.05);
        for k in 0..100 {
            assert!(l.speed_accel(k as f64 * 0.03).1 <= 1.35 + 1e-12);
        }
        for d in [0.0, 0.05, 1.0, 2.9, 6.25, 10.0, 40.0] {
            let t = l.time_to(d, 0.0);
            assert!((l.travel(t) - d).abs() < 1e-6, "{d}");
        }
        // From a speed reached on the ramp: the remaining time along it.
        for t0 in [0.2, 1.0, 2.2] {
            let (v0, d0) = (l.speed(t0), l.travel(t0));
            for d in [0.3, 2.0, 20.0] {
                let t = l.time_to(d, v0);
                assert!((l.travel(t0 + t) - d0 - d).abs() < 1e-6, "{t0} {d}");
            }
        }
    }

    #[test]
    fn drift_entry_is_smooth_and_inverts() {
        let v = 50.0 / 3.6;
        for d in [
            DriftSpec {
                from_s: 10.0,
                lateral_mps: 0.5,
                entry_m: None,
            },
            DriftSpec {
                from_s: 10.0,
                lateral_mps: -0.8,
                entry_m: Some(14.0),
            },
        ] {
            let k = d.lateral_mps / v;
            let e = d.entry_len(v);
            assert_eq!(d.offset_at(10.0, v), 0.0);
            // Continuous offset and slope through the entry; the drift's slope after it.
            let h = 1e-4;
            let mut prev_slope = 0.0;
            for i in 1..4000 {
                let s = 10.0 + i as f64 * 0.02;
                let slope = (d.offset_at(s + h, v) - d.offset_at(s - h, v)) / (2.0 * h);
                assert!((slope - prev_slope).abs() < 0.01 * k.abs() + 1e-9, "s {s}");
                prev_slope = slope;
            }
            assert!((prev_slope - k).abs() < 1e-6);
            assert!((d.offset_at(10.0 + e, v) - 0.5 * k * e).abs() < 1e-12);
            for o in [0.01, 0.3, 0.82, 2.0] {
                let off = o * d.lateral_mps.signum();
                let s = d.s_at_offset(off, v).expect("reached");
                assert!((d.offset_at(s, v) - off).abs() < 1e-9, "{o}");
            }
            assert!(d.s_at_offset(-d.lateral_mps, v).is_none(), "the other side");
        }
    }
}
