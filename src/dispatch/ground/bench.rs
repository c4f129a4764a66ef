//! The objects of a test bench across runs: plan, arm as one, run with the VUT robot's MONR
//! as telemetry, drive back to the start, and what each object did.

use std::sync::Arc;
use std::time::Duration;

use serde::{Serialize, Serializer};

use super::impact::{drift_between, monr_impact, timing_corrected, MonrImpact};
use super::motion::{Motion, StartRefused};
use super::plan::{plan_objects, Drives, GroundOptions, ObjectPlan, ObjectSpec};
use super::route::plan_route;
use super::track::{PlannedTrack, Pose};
use crate::dispatch::control_centre::{MonrSample, Snapshot};
use crate::dispatch::events::{EventKind, Phase};
use crate::dispatch::iso22133::ObjectState;
use crate::run::report::RunReport;
use crate::run::sink::carriers::{CarrierOptions, CarrierSink};
use crate::run::{Feed, RunSetup, Session, SessionOptions, Sink};
use crate::sample::{InsPosition, InsSample};

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

fn opt_pose<S: Serializer>(p: &Option<Pose>, s: S) -> Result<S::Ok, S::Error> {
    p.map(PoseOut::from).serialize(s)
}

fn pose<S: Serializer>(p: &Pose, s: S) -> Result<S::Ok, S::Error> {
    PoseOut::from(*p).serialize(s)
}

#[derive(Debug, thiserror::Error)]
pub enum GroundError {
    #[error("{0}")]
    Plan(String),
    #[error("{0}")]
    Connect(String),
    #[error("{0}")]
    Arm(String),
    #[error(transparent)]
    StartRefused(#[from] StartRefused),
    #[error("object {object} is not at its start: {distance_m:.2} m and {heading_deg:.1}° away (return it, or override)")]
    NotAtStart {
        object: String,
        distance_m: f64,
        heading_deg: f64,
    },
}

/// One object as the bench knows it now.
#[derive(Debug, Clone, Serialize)]
pub struct ObjectStatus {
    pub name: String,
    pub drives: Drives,
    /// Latest reported state (none before the first connection).
    pub state: Option<ObjectState>,
    #[serde(serialize_with = "opt_pose")]
    pub pose: Option<Pose>,
    /// Start pose of the prepared run.
    #[serde(serialize_with = "opt_pose")]
    pub start: Option<Pose>,
    /// Within the tolerances of the start pose (none while either pose is unknown).
    pub at_start: Option<bool>,
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
    /// between the target's start and the impact, s (positive: the target fell behind).
    pub relative_drift_s: Option<f64>,
    /// The impact from MONR with that drift taken out, and its location − planned location.
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
}

/// A run prepared for the bench: the plans and the rehearsal's report.
#[derive(Clone)]
pub struct Prepared {
    pub setup: Arc<RunSetup>,
    pub plans: Vec<ObjectPlan>,
    pub rehearsal: Option<RunReport>,
}

/// The objects of a test bench (see the module doc).
pub struct Ground {
    pub objects: Vec<ObjectSpec>,
    pub opts: GroundOptions,
    status: Vec<ObjectStatus>,
}

impl Ground {
    pub fn new(objects: Vec<ObjectSpec>, opts: GroundOptions) -> Result<Ground, GroundError> {
        if objects.is_empty() {
            return Err(GroundError::Plan("no objects".into()));
        }
        for (i, o) in objects.iter().enumerate() {
            if o.name.is_empty() || o.address.is_empty() {
                return Err(GroundError::Plan(format!(
                    "object #{}: empty name or address",
                    i + 1
                )));
            }
            if objects[..i].iter().any(|p| p.name == o.name) {
                return Err(GroundError::Plan(format!("object {} given twice", o.name)));
            }
            crate::dispatch::control_centre::CarrierConfig::parse_spec(
                &format!("{}={}", o.name, o.address),
                1,
            )
            .map_err(|e| GroundError::Plan(format!("object {}: {e}", o.name)))?;
        }
        let status = objects
            .iter()
            .map(|o| ObjectStatus {
                name: o.name.clone(),
                drives: o.drives.clone(),
                state: None,
                pose: None,
                start: None,
                at_start: None,
            })
            .collect();
        Ok(Ground {
            objects,
            opts,
            status,
        })
    }

    pub fn status(&self) -> &[ObjectStatus] {
        &self.status
    }

    /// What is known of object `name` from before (its last pose and state).
    pub fn set_known(&mut self, name: &str, pose: Option<Pose>, state: Option<ObjectState>) {
        if let Some(s) = self.status.iter_mut().find(|s| s.name == name) {
            s.pose = pose;
            s.state = state;
        }
        self.update_at_start();
    }

    fn addresses(&self) -> Vec<String> {
        self.objects.iter().map(|o| o.address.clone()).collect()
    }

    fn update_at_start(&mut self) {
        let (m, deg) = (self.opts.at_start_m, self.opts.at_start_deg);
        for s in &mut self.status {
            s.at_start = match (s.pose, s.start) {
                (Some(p), Some(st)) => {
                    let (d, h) = p.offset_to(&st);
                    Some(d <= m && h <= deg)
                }
                _ => None,
            };
        }
    }

    /// Plans every object's track for `setup`; the start poses become the bench's.
    pub async fn prepare(&mut self, setup: Arc<RunSetup>) -> Result<Prepared, GroundError> {
        let (plans, rehearsal) = plan_objects(&setup, &self.objects, &self.opts)
            .await
            .map_err(GroundError::Plan)?;
        for (s, p) in self.status.iter_mut().zip(&plans) {
            s.start = Some(p.track.start());
        }
        self.update_at_start();
        Ok(Prepared {
            setup,
            plans,
            rehearsal,
        })
    }

    /// Connects, uploads and arms every object as one. Unless `override_start`, an object
    /// known to stand away from its start pose refuses (the first run of a day knows none).
    pub async fn arm(
        &mut self,
        prepared: &Prepared,
        override_start: bool,
    ) -> Result<Motion, GroundError> {
        if !override_start {
            for (s, p) in self.status.iter().zip(&prepared.plans) {
                if let Some(pose) = s.pose {
                    let (d, h) = pose.offset_to(&p.track.start());
                    if d > self.opts.at_start_m || h > self.opts.at_start_deg {
                        return Err(GroundError::NotAtStart {
                            object: s.name.clone(),
                            distance_m: d,
                            heading_deg: h,
                        });
                    }
                }
            }
        }
        self.arm_plans(prepared.plans.clone(), prepared).await
    }

    async fn arm_plans(
        &mut self,
        plans: Vec<ObjectPlan>,
        prepared: &Prepared,
    ) -> Result<Motion, GroundError> {
        let origin = prepared.setup.osem_origin().unwrap_or_default();
        let m = Motion::connect(plans, &self.addresses(), origin, &self.opts)
            .await
            .map_err(GroundError::Connect)?;
        if let Err(e) = m.arm().await {
            self.observe(&m.h.snapshot());
            m.h.disarm();
            m.shutdown().await;
            return Err(GroundError::Arm(e));
        }
        self.observe(&m.h.snapshot());
        Ok(m)
    }

    /// The latest state of each object from a snapshot (poses only from the MONR of a motion
    /// that ran: a stock object reports its TRAJ's end while DISARMED).
    fn observe(&mut self, s: &Snapshot) {
        for (st, c) in self.status.iter_mut().zip(&s.carriers) {
            st.state = c.state;
        }
    }

    /// An object the motion lost (disconnected, or its MONR stopped) may have been moved or
    /// restarted since its last MONR: its pose is unknown until it reports one in a motion, so
    /// no drive back is planned from a pose it had before the fault.
    fn forget_lost(&mut self, events: &[crate::dispatch::events::DispatchEvent]) {
        use crate::dispatch::events::AbortReason;
        for e in events {
            let lost = match &e.kind {
                EventKind::Abort {
                    reason:
                        AbortReason::CarrierDisconnected { carrier }
                        | AbortReason::MonrLost { carrier, .. },
                } => carrier,
                EventKind::CarrierDisconnected { carrier, .. } => carrier,
                _ => continue,
            };
            if let Some(s) = self.status.iter_mut().find(|s| &s.name == lost) {
                s.pose = None;
                s.at_start = None;
            }
        }
    }

    fn observe_poses(&mut self, poses: &[Option<Pose>]) {
        for (st, p) in self.status.iter_mut().zip(poses) {
            if p.is_some() {
                st.pose = *p;
            }
        }
        self.update_at_start();
    }

    /// Starts and drives an armed run. With the VUT robot among the objects and no `feed`,
    /// its MONR is the run's VUT telemetry; its STRT goes out `start_lead` after the start, the
    /// targets' when the engine triggers them. Refused (nothing sent) unless armed as one.
    pub async fn run(
        &mut self,
        motion: Motion,
        prepared: &Prepared,
        feed: Option<Feed>,
        sinks: Vec<Box<dyn Sink>>,
    ) -> Result<GroundReport, GroundError> {
        let opts = SessionOptions {
            pace: crate::run::Pace::Live,
            first_sample_timeout: Some(Duration::from_secs(10)),
            ..SessionOptions::default()
        };
        self.run_with(motion, prepared, feed, sinks, opts, None, None)
            .await
    }

    /// [`Self::run`] with the session's options, its stop handle and an observer of the
    /// control centre's events (the service's).
    #[allow(clippy::too_many_arguments)]
    pub async fn run_with(
        &mut self,
        motion: Motion,
        prepared: &Prepared,
        feed: Option<Feed>,
        sinks: Vec<Box<dyn Sink>>,
        session_opts: SessionOptions,
        stop: Option<crate::run::StopHandle>,
        observer: Option<crate::run::sink::carriers::DispatchObserver>,
    ) -> Result<GroundReport, GroundError> {
        if let Err(r) = motion.start_check() {
            self.observe(&motion.h.snapshot());
            motion.h.disarm();
            motion.shutdown().await;
            return Err(GroundError::StartRefused(r));
        }
        let setup = prepared.setup.clone();
        let vut_idx = prepared.plans.iter().position(|p| p.drives == Drives::Vut);
        // An INS beside the VUT's robot: the robot's MONR is compared with it.
        let mut ins_check = None;
        let (feed, pump) = match (feed, vut_idx) {
            (Some(f), Some(i)) => {
                let (sink, diff) = super::ins_check::InsMonrSink::new(
                    setup.vut_id(),
                    &prepared.plans[i].name,
                    i,
                    motion.h.monr(),
                );
                ins_check = Some((sink, diff));
                (f, None)
            }
            (Some(f), None) => (f, None),
            (None, Some(i)) => {
                let track = &prepared.plans[i].track;
                let (f, pump) = monr_feed(
                    &motion,
                    i,
                    setup.vut_id().to_string(),
                    track.duration_s(),
                    track.end(),
                    self.opts.speed_from_positions_s,
                );
                (f, Some(pump))
            }
            (None, None) => {
                motion.h.disarm();
                motion.shutdown().await;
                return Err(GroundError::Plan(
                    "no VUT telemetry: no object drives the VUT and no source was given".into(),
                ));
            }
        };
        let targets_of: Vec<(String, String)> = prepared
            .plans
            .iter()
            .filter_map(|p| match &p.drives {
                Drives::Target(t) => Some((t.clone(), p.name.clone())),
                Drives::Vut => None,
            })
            .collect();
        let copts = CarrierOptions {
            stop_timeout: self.opts.stop_timeout,
            monr_rate_hz: self.opts.monr_rate_hz,
            heab_rate_hz: self.opts.heab_rate_hz,
            monr_miss_limit: self.opts.monr_miss_limit,
            virtual_targets: self.opts.virtual_targets.clone(),
            ..CarrierOptions::default()
        };
        let start_on_arm = vut_idx.map(|i| (prepared.plans[i].name.clone(), self.opts.start_lead));
        let mut sink = CarrierSink::attached(motion.h.clone(), copts, targets_of, start_on_arm)
            .with_events_from(motion.window.events);
        if let Some(o) = observer {
            sink = sink.with_observer(o);
        }
        let mut session = Session::new(setup.clone(), feed, session_opts);
        if let Some(stop) = stop {
            session = session.with_stop(stop);
        }
        for s in sinks {
            session.add_sink(s);
        }
        session.add_sink(Box::new(sink));
        let vut_ins = ins_check.map(|(sink, diff)| {
            session.add_sink(Box::new(sink));
            diff
        });
        let run = session.run().await;
        if let Some(p) = pump {
            p.abort();
        }
        // Objects that still follow their TRAJ finish it before the stop (a stopped object is
        // where its path ends, which is where its drive back starts from); their MONR keeps
        // the stale-telemetry rule fed meanwhile.
        if motion.h.snapshot().phase == Phase::Running {
            let tick = keep_alive(&motion);
            let left = prepared
                .plans
                .iter()
                .map(|p| p.track.duration_s())
                .fold(0.0, f64::max);
            wait_at_ends(&motion, Duration::from_secs_f64(left + 10.0), true).await;
            tick.abort();
        }
        let snap = motion.stop().await;
        let monr = motion.monr();
        let (objects, impacts) = off_workers(|| {
            let lags = lags_of(&motion.plans, &monr);
            (
                object_reports(&motion, &snap, &monr, &lags),
                impact_checks(prepared, &monr, &lags),
            )
        });
        self.observe(&snap);
        self.observe_poses(&last_poses(&monr));
        self.forget_lost(&motion.events(&snap));
        motion.reset_objects().await;
        motion.shutdown().await;
        let vut_ins = vut_ins.and_then(|d| d.lock().ok().map(|d| d.clone()));
        Ok(GroundReport {
            run,
            objects,
            impacts,
            vut_ins,
        })
    }

    /// Plans each object's drive from its last MONR pose back to its start pose, connects,
    /// uploads and arms them. The returned motion is started by [`Self::drive_back`]; abort it
    /// with [`Motion::abort`].
    pub async fn arm_return(&mut self, prepared: &Prepared) -> Result<Motion, GroundError> {
        self.poses_reported_now().await;
        let mut plans = Vec::new();
        for (s, p) in self.status.iter().zip(&prepared.plans) {
            let Some(from) = s.pose else {
                return Err(GroundError::Plan(format!(
                    "object {}: no MONR pose known to drive back from",
                    s.name
                )));
            };
            let to = p.track.start();
            let track = plan_route(from, to, &p.mobility, self.opts.traj_dt_s.max(0.01))
                .ok_or_else(|| {
                    GroundError::Plan(format!("object {}: no route back to its start", s.name))
                })?;
            plans.push(ObjectPlan {
                track,
                start_s: 0.0,
                ..p.clone()
            });
        }
        self.arm_plans(plans, prepared).await
    }

    /// Each object's pose as it reports it now (see [`super::links::reported_poses`]); without
    /// a fresh MONR the pose from its last motion stands (none after a fault, see
    /// `forget_lost`). A drive back is planned from where an object is, not where it was.
    async fn poses_reported_now(&mut self) {
        let objects: Vec<(String, String)> = self
            .objects
            .iter()
            .map(|o| (o.name.clone(), o.address.clone()))
            .collect();
        let now = super::links::reported_poses(&objects).await;
        for (st, p) in self.status.iter_mut().zip(now) {
            if p.is_some() {
                st.pose = p;
            }
        }
        self.update_at_start();
    }

    /// Drives an armed return: every object started at once, until each has driven its path
    /// (or the motion is aborted), then stopped; at_start per object from its final MONR.
    pub async fn drive_back(&mut self, motion: Motion) -> Result<ReturnReport, GroundError> {
        if let Err(r) = motion.start_check() {
            self.observe(&motion.h.snapshot());
            motion.h.disarm();
            motion.shutdown().await;
            return Err(GroundError::StartRefused(r));
        }
        let longest = motion
            .plans
            .iter()
            .map(|p| p.track.duration_s())
            .fold(0.0, f64::max);
        // No VUT telemetry drives a return: the objects' own MONR (supervised for loss) is
        // what counts, so the stale-telemetry rule is kept satisfied while they move.
        let tick = keep_alive(&motion);
        motion
            .h
            .start_at(tokio::time::Instant::now() + self.opts.start_lead);
        // Until every object reported the end of its path, or an abort.
        wait_at_ends(
            &motion,
            Duration::from_secs_f64(longest * 2.5 + 10.0),
            false,
        )
        .await;
        // The last MONR of the end pose lands before the stop.
        tokio::time::sleep(Duration::from_millis(100)).await;
        let snap = motion.stop().await;
        tick.abort();
        let monr = motion.monr();
        let objects =
            off_workers(|| object_reports(&motion, &snap, &monr, &lags_of(&motion.plans, &monr)));
        let aborted = motion.events(&snap).iter().find_map(|e| match &e.kind {
            EventKind::Abort { reason } => Some(reason.info().text),
            _ => None,
        });
        self.observe(&snap);
        self.observe_poses(&last_poses(&monr));
        self.forget_lost(&motion.events(&snap));
        motion.reset_objects().await;
        motion.shutdown().await;
        let at_start = self.status.iter().all(|s| s.at_start == Some(true));
        Ok(ReturnReport {
            objects,
            at_start,
            aborted,
        })
    }
}

/// Feeds the stale-telemetry rule while no VUT samples drive the motion (a drive back, the
/// objects finishing their paths after the run's source ended): their own MONR is
/// supervised for loss meanwhile.
fn keep_alive(motion: &Motion) -> tokio::task::JoinHandle<()> {
    let h = motion.h.clone();
    tokio::spawn(async move {
        loop {
            h.telemetry();
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
}

/// Waits (at most `limit`) until every object reports the end of its path (2 cm, 0.5°) or has
/// stopped, or the motion is aborted. Objects still ARMED count as done when `skip_armed`
/// (targets never started in a run) and as not yet started otherwise (a drive back).
async fn wait_at_ends(motion: &Motion, limit: Duration, skip_armed: bool) {
    let ends: Vec<Pose> = motion.plans.iter().map(|p| p.track.end()).collect();
    let _ = motion
        .h
        .wait_for(limit, |s| {
            s.phase == Phase::Aborted
                || s.carriers.iter().zip(&ends).all(|(c, end)| {
                    let (d, h) = Pose::new(c.x, c.y, c.yaw_deg.to_radians()).offset_to(end);
                    match c.state {
                        Some(ObjectState::Running) => d <= 0.02 && h <= 0.5,
                        Some(ObjectState::Armed) => skip_armed,
                        Some(ObjectState::PreRunning) => false,
                        _ => true,
                    }
                })
        })
        .await;
}

/// The last MONR pose of each object.
fn last_poses(monr: &[Vec<MonrSample>]) -> Vec<Option<Pose>> {
    monr.iter()
        .map(|v| {
            v.last()
                .map(|m| Pose::new(m.x, m.y, m.yaw_deg.to_radians()))
        })
        .collect()
}

/// The VUT robot's MONR as the run's telemetry: samples from its first RUNNING MONR until it
/// reports the end of its path (or 1.5 × its duration + 5 s passed) or leaves RUNNING.
fn monr_feed(
    motion: &Motion,
    idx: usize,
    vut_id: String,
    end_s: f64,
    end: Pose,
    speed_window_s: Option<f64>,
) -> (Feed, tokio::task::JoinHandle<()>) {
    let (tx, rx) = tokio::sync::mpsc::channel(4096);
    let mut monr = motion.h.monr();
    let h = motion.h.clone();
    let pump = tokio::spawn(async move {
        let mut first: Option<f64> = None;
        // (t, distance driven so far) of the recent RUNNING MONR, for a measured speed.
        let mut recent: std::collections::VecDeque<(f64, f64)> = Default::default();
        let mut driven = 0.0;
        let mut last_xy: Option<(f64, f64)> = None;
        loop {
            let m = match monr.recv().await {
                Ok(m) => m,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(_) => return,
            };
            if m.carrier != idx {
                continue;
            }
            if m.state != ObjectState::Running {
                if first.is_some() {
                    return; // stopped or aborted: the source ends
                }
                // Standing armed until its STRT: its MONR is the VUT's telemetry already
                // (the stale-telemetry rule), the engine's samples start when it runs.
                h.telemetry();
                continue;
            }
            let t0 = *first.get_or_insert(m.t_s);
            if let Some((x, y)) = last_xy {
                driven += (m.x - x).hypot(m.y - y);
            }
            last_xy = Some((m.x, m.y));
            let mut speed = m.speed_mps.abs();
            if let Some(w) = speed_window_s {
                recent.push_back((m.t_s, driven));
                while recent.len() > 2 && m.t_s - recent[1].0 >= w {
                    recent.pop_front();
                }
                if let (Some(a), Some(b)) = (recent.front(), recent.back()) {
                    if b.0 - a.0 >= w {
                        speed = (b.1 - a.1) / (b.0 - a.0);
                    }
                }
            }
            let s = InsSample {
                time_s: m.t_s,
                vehicle: vut_id.as_str().into(),
                position: InsPosition::Local { x: m.x, y: m.y },
                heading_deg: crate::frame::yaw_to_heading(m.yaw_deg.to_radians()),
                speed_mps: speed,
                steering_wheel_deg: None,
                brake_light: None,
                accel_mps2: None,
                yaw_rate_rps: None,
                wheel_speed_mps: None,
                fcw: None,
            };
            if tx.send(s).await.is_err() {
                return;
            }
            // Its path driven (at its end pose), or far beyond its duration: the source ends.
            let (d, _) = Pose::new(m.x, m.y, m.yaw_deg.to_radians()).offset_to(&end);
            if d <= 0.02 || m.t_s - t0 > 1.5 * end_s + 5.0 {
                return;
            }
        }
    });
    (Feed::from_channel("monr:vut", rx).with_map_frame(), pump)
}

/// Per object: states, TRAJ, MONR count, lateral deviation while RUNNING, final pose.
fn object_reports(
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
            }
        })
        .collect()
}

/// Runs `f` (the analysis of a motion's tracks: tens of thousands of MONR against their
/// paths) off the runtime's workers where the runtime allows it: a worker busy with it holds
/// the tasks queued on it, the heartbeat among them, and an object whose heartbeat lapses
/// for a second drops its link.
fn off_workers<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// An object's lags behind its plan while RUNNING ([`PlannedTrack::schedule_lags`], times
/// from its first RUNNING MONR) with that MONR's control-centre time.
type Lags = Option<(f64, Vec<(f64, f64)>)>;

/// Every object's [`Lags`], computed once for the reports and the impact checks.
fn lags_of(plans: &[ObjectPlan], monr: &[Vec<MonrSample>]) -> Vec<Lags> {
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
/// MONR against the rehearsal's, as driven and with the objects' own drift off their
/// schedules taken out.
fn impact_checks(prepared: &Prepared, monr: &[Vec<MonrSample>], lags: &[Lags]) -> Vec<ImpactCheck> {
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
            let corrected = relative_drift_s.and_then(|d| timing_corrected(vut, spec, vt, tt, d));
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
                corrected_error: error(corrected),
                corrected,
            })
        })
        .collect()
}
