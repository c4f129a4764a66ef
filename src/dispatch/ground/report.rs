//! What the objects of a motion did: each object's states, TRAJ, MONR, distance from its
//! path and lag behind its schedule, and each target's impact as driven against the planned
//! one (a run's [`GroundReport`], a drive back's [`ReturnReport`]).

use serde::{Serialize, Serializer};

use super::impact::{drift_between, monr_impact, timing_corrected, MonrImpact};
use super::motion::Motion;
use super::plan::{Drives, ObjectPlan, Prepared};
use super::track::{PlannedTrack, Pose};
use crate::dispatch::control_centre::{MonrSample, Snapshot};
use crate::dispatch::iso22133::ObjectState;
use crate::run::report::RunReport;

/// A pose as the results and the API show it: map frame, INS heading (0 = north, clockwise).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PoseOut {
    pub x: f64,
    pub y: f64,
    pub heading_deg: f64,
}

impl From<Pose> for PoseOut {
    fn from(p: Pose) -> Self {
        PoseOut {
            x: p.x,
            y: p.y,
            heading_deg: crate::frame::yaw_to_heading(p.yaw),
        }
    }
}

pub(super) fn opt_pose<S: Serializer>(p: &Option<Pose>, s: S) -> Result<S::Ok, S::Error> {
    p.map(PoseOut::from).serialize(s)
}

fn pose<S: Serializer>(p: &Pose, s: S) -> Result<S::Ok, S::Error> {
    PoseOut::from(*p).serialize(s)
}

/// A state as seen, control-centre seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StateAt {
    pub t_s: f64,
    pub state: ObjectState,
}

/// What one object did in a motion.
#[derive(Debug, Clone, Serialize)]
pub struct ObjectReport {
    pub name: String,
    pub drives: Drives,
    pub states_seen: Vec<StateAt>,
    /// TRAJ uploaded: points and duration of its path (the TRAJ then holds the end pose for
    /// `traj_hold_s` more, so that the motion ends inside it).
    pub traj_points: usize,
    pub traj_duration_s: f64,
    pub traj_hold_s: f64,
    pub monr_count: u64,
    /// Largest distance of a MONR position while RUNNING from the planned path, m.
    pub max_lateral_m: Option<f64>,
    #[serde(serialize_with = "opt_pose")]
    pub final_pose: Option<Pose>,
    #[serde(serialize_with = "pose")]
    pub start_pose: Pose,
    /// The final pose against the end of its path (a drive back: its start pose).
    pub end_distance_m: Option<f64>,
    pub end_heading_deg: Option<f64>,
    /// How far behind its planned schedule the object drove (MONR time from its first
    /// RUNNING MONR against the planned time of the same place), at its last moving MONR and
    /// the largest, s: positive = late.
    pub schedule_lag_s: Option<f64>,
    pub max_schedule_lag_s: Option<f64>,
    /// The same in metres along its path (planned distance less driven distance) at its last
    /// RUNNING MONR and the largest by magnitude: positive = behind.
    pub lag_m: Option<f64>,
    pub max_lag_m: Option<f64>,
}

/// A target's impact as driven (MONR) against the planned one (the rehearsal's).
#[derive(Debug, Clone, Serialize)]
pub struct ImpactCheck {
    pub target: String,
    pub planned_location: Option<f64>,
    pub monr: Option<MonrImpact>,
    /// MONR location − planned location.
    pub error: Option<f64>,
    /// How much further the target object drifted off its own schedule than the VUT robot
    /// between the target's start and the impact, s (positive: the target fell behind). Shown,
    /// never taken out of the verdict: motion lag is part of what the objects did.
    pub relative_drift_s: Option<f64>,
    /// Diagnosis of a platform, never the verdict: where the objects would have met had each
    /// kept its own TRAJ schedule (the target's track shifted by `relative_drift_s`), and its
    /// location − planned location.
    pub on_schedule: Option<MonrImpact>,
    pub on_schedule_error: Option<f64>,
    /// How far the target object's clock runs ahead of the VUT robot's, measured before the
    /// start: the difference of the smallest MONR arrival − time stamp of each (one-way delay
    /// plus clock offset; the objects share one network, so the difference is their clocks').
    pub clock_offset_s: Option<f64>,
    /// The impact from MONR with that clock offset taken out, and its location − planned
    /// location.
    pub corrected: Option<MonrImpact>,
    pub corrected_error: Option<f64>,
}

/// A run on the ground.
#[derive(Debug, Clone, Serialize)]
pub struct GroundReport {
    pub run: RunReport,
    pub objects: Vec<ObjectReport>,
    pub impacts: Vec<ImpactCheck>,
    /// The VUT robot's MONR against the INS, when an INS fed the run beside the robot.
    pub vut_ins: Option<super::ins_check::InsMonrDiff>,
}

impl GroundReport {
    /// The objects' block of a run's results (`objects`, `impacts`).
    pub fn objects_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "objects": self.objects,
            "impacts": self.impacts,
        });
        if let Some(d) = &self.vut_ins {
            v["vut_ins"] = serde_json::to_value(d).unwrap_or_default();
        }
        v
    }
}

/// A drive back to the start.
#[derive(Debug, Clone, Serialize)]
pub struct ReturnReport {
    pub objects: Vec<ObjectReport>,
    /// Every object within the tolerances of its start pose.
    pub at_start: bool,
    pub aborted: Option<String>,
    /// Drive backs it took ([`super::back_to_start`]); 1 for a single one.
    pub passes: usize,
}

/// An object started ahead of its STRT's instant reports RUNNING from the STRT's arrival
/// while it waits for that instant: such MONR count as ARMED, so that every figure timed from
/// its first RUNNING MONR (lags, the target checks, the impact's drift) is timed from its
/// start instant.
pub fn waiting_until_strt(monr: &mut [Vec<MonrSample>], snap: &Snapshot) {
    for (track, c) in monr.iter_mut().zip(&snap.carriers) {
        let Some(start) = c.strt_scheduled_s else {
            continue;
        };
        for m in track
            .iter_mut()
            .filter(|m| m.state == ObjectState::Running && m.t_s < start)
        {
            m.state = ObjectState::Armed;
        }
    }
}

/// The last MONR pose of each object.
pub(super) fn last_poses(monr: &[Vec<MonrSample>]) -> Vec<Option<Pose>> {
    monr.iter()
        .map(|v| {
            v.last()
                .map(|m| Pose::new(m.x, m.y, m.yaw_deg.to_radians()))
        })
        .collect()
}

/// Per object: states, TRAJ, MONR count, lateral deviation while RUNNING, final pose.
pub(super) fn object_reports(
    motion: &Motion,
    snap: &Snapshot,
    monr: &[Vec<MonrSample>],
    lags: &[Lags],
) -> Vec<ObjectReport> {
    motion
        .plans
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let c = snap.carriers.get(i);
            let w = &motion.window;
            let track = monr.get(i).map(Vec::as_slice).unwrap_or(&[]);
            let max_lateral_m = p.track.max_lateral_m(
                track
                    .iter()
                    .filter(|m| m.state == ObjectState::Running)
                    .map(|m| (m.x, m.y)),
            );
            let final_pose = track
                .last()
                .map(|m| Pose::new(m.x, m.y, m.yaw_deg.to_radians()));
            let off = final_pose.map(|f| f.offset_to(&p.track.end()));
            let lag_m = lag_m(&p.track, &p.name, track);
            let lag = lags.get(i).and_then(Option::as_ref).and_then(|(_, lags)| {
                let last = lags.last()?.1;
                let worst =
                    lags.iter()
                        .map(|l| l.1)
                        .fold(0.0f64, |w, l| if l.abs() > w.abs() { l } else { w });
                Some((last, worst))
            });
            ObjectReport {
                name: p.name.clone(),
                drives: p.drives.clone(),
                // This motion's: its state when it began, then each change since.
                states_seen: c
                    .map(|c| {
                        let first = w
                            .states
                            .get(i)
                            .copied()
                            .flatten()
                            .map(|state| StateAt { t_s: w.t_s, state });
                        first
                            .into_iter()
                            .chain(
                                c.states_seen
                                    .iter()
                                    .filter(|(t, _)| *t > w.t_s)
                                    .map(|(t, s)| StateAt { t_s: *t, state: *s }),
                            )
                            .collect()
                    })
                    .unwrap_or_default(),
                traj_points: p.track.points.len(),
                traj_duration_s: p.track.duration_s(),
                traj_hold_s: motion.holds_s.get(i).copied().unwrap_or(0.0),
                monr_count: c.map_or(0, |c| {
                    c.monr_count
                        .saturating_sub(w.monr_counts.get(i).copied().unwrap_or(0))
                }),
                max_lateral_m,
                final_pose,
                start_pose: p.track.start(),
                end_distance_m: off.map(|o| o.0),
                end_heading_deg: off.map(|o| o.1),
                schedule_lag_s: lag.map(|l| l.0),
                max_schedule_lag_s: lag.map(|l| l.1),
                lag_m: lag_m.map(|l| l.0),
                max_lag_m: lag_m.map(|l| l.1),
            }
        })
        .collect()
}

/// Runs `f` (the analysis of a motion's tracks: tens of thousands of MONR against their
/// paths) off the runtime's workers where the runtime allows it: a worker busy with it holds
/// the tasks queued on it, the heartbeat among them, and an object whose heartbeat lapses
/// for a second drops its link.
pub(super) fn off_workers<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// An object's lags behind its plan while RUNNING ([`PlannedTrack::schedule_lags`], times
/// from its first RUNNING MONR) with that MONR's control-centre time.
pub type Lags = Option<(f64, Vec<(f64, f64)>)>;

/// Every object's [`Lags`], computed once for the reports and the impact checks.
pub fn lags_of(plans: &[ObjectPlan], monr: &[Vec<MonrSample>]) -> Vec<Lags> {
    plans
        .iter()
        .zip(monr)
        .map(|(p, m)| running_lags(&p.track, m))
        .collect()
}

/// One object's [`Lags`] from its MONR.
fn running_lags(track: &PlannedTrack, monr: &[MonrSample]) -> Lags {
    let running: Vec<&MonrSample> = monr
        .iter()
        .filter(|m| m.state == ObjectState::Running)
        .collect();
    let t0 = running.first()?.t_s;
    let pts: Vec<(f64, f64, f64)> = running.iter().map(|m| (m.t_s - t0, m.x, m.y)).collect();
    Some((t0, track.schedule_lags(&pts)))
}

/// Each moving target driven by an object, with the VUT robot among them: its impact from
/// MONR against the rehearsal's: as driven, with a clock offset between the objects measured
/// before the start taken out, and (a diagnosis) had both kept their schedules.
pub fn impact_checks(
    prepared: &Prepared,
    monr: &[Vec<MonrSample>],
    lags: &[Lags],
    pre_start_latency: &[Option<f64>],
) -> Vec<ImpactCheck> {
    let Some(vi) = prepared.plans.iter().position(|p| p.drives == Drives::Vut) else {
        return Vec::new();
    };
    let vut = &prepared.setup.scenario.vut;
    prepared
        .plans
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match &p.drives {
            Drives::Target(id) => Some((i, id)),
            Drives::Vut => None,
        })
        .filter_map(|(i, id)| {
            let spec = prepared
                .setup
                .scenario
                .targets
                .iter()
                .find(|t| &t.id == id)?;
            let planned = prepared.rehearsal.as_ref().and_then(|r| {
                r.impacts
                    .iter()
                    .find(|m| &m.target == id && m.time_s.is_some())
                    .and_then(|m| m.location)
            });
            let (vt, tt) = (monr.get(vi)?, monr.get(i)?);
            let got = monr_impact(vut, spec, vt, tt);
            // Each object's drift from the target's start to the impact.
            let (target_lags, vut_lags) = (lags.get(i)?, lags.get(vi)?);
            let relative_drift_s = got.zip(target_lags.as_ref()).and_then(|(g, (t0, lags))| {
                let target = drift_between(lags, *t0, *t0, g.t_s)?;
                let vut = vut_lags
                    .as_ref()
                    .and_then(|(v0, vl)| drift_between(vl, *v0, *t0, g.t_s))
                    .unwrap_or(0.0);
                Some(target - vut)
            });
            let clock_offset_s = match (pre_start_latency.get(vi), pre_start_latency.get(i)) {
                (Some(Some(v)), Some(Some(t))) => Some(v - t),
                _ => None,
            };
            let corrected = clock_offset_s.and_then(|d| timing_corrected(vut, spec, vt, tt, d));
            let on_schedule = relative_drift_s.and_then(|d| timing_corrected(vut, spec, vt, tt, d));
            let error = |g: Option<MonrImpact>| match (g, planned) {
                (Some(g), Some(p)) => Some(g.location - p),
                _ => None,
            };
            Some(ImpactCheck {
                target: id.clone(),
                planned_location: planned,
                error: error(got),
                monr: got,
                relative_drift_s,
                on_schedule_error: error(on_schedule),
                on_schedule,
                clock_offset_s,
                corrected_error: error(corrected),
                corrected,
            })
        })
        .collect()
}

/// How far behind its plan an object drove in metres, as the speed rule measures it live
/// ([`crate::dispatch::motion_watch::Lag`]): the planned distance along its path at each
/// RUNNING MONR (time from its first RUNNING MONR) less the distance it had driven there. At
/// its last RUNNING MONR and the largest (by magnitude); negative = ahead.
pub fn lag_m(track: &PlannedTrack, name: &str, monr: &[MonrSample]) -> Option<(f64, f64)> {
    let mut w = crate::dispatch::motion_watch::PathWatch::of_traj(&track.to_traj(0, name))?;
    let mut running = monr.iter().filter(|m| m.state == ObjectState::Running);
    let first = running.next()?;
    let t0 = first.t_s;
    let (mut last, mut worst) = (0.0f64, 0.0f64);
    for m in std::iter::once(first).chain(running) {
        let at = w.locate(m.x, m.y, 1.0);
        last = w.planned_along(m.t_s - t0) - at.along_m;
        if last.abs() > worst.abs() {
            worst = last;
        }
    }
    Some((last, worst))
}
