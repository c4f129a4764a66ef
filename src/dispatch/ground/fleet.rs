//! The objects of a test bench across runs (the fleet): what each is known to be and where it
//! stands against the prepared run's starts; plan, arm as one, run with the VUT robot's MONR
//! as telemetry, and drive back to the start. What each object did is in [`super::report`].

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use super::motion::{Motion, StartRefused};
use super::plan::{plan_objects, Drives, GroundOptions, ObjectPlan, ObjectSpec, Prepared};
use super::report::{
    impact_checks, lags_of, last_poses, object_reports, off_workers, opt_pose, GroundReport,
    ReturnReport,
};
use super::route::plan_route;
use super::track::Pose;
use crate::dispatch::control_centre::Snapshot;
use crate::dispatch::events::{EventKind, Phase};
use crate::dispatch::iso22133::ObjectState;
use crate::ingest::Received;
use crate::run::sink::carriers::{CarrierOptions, CarrierSink};
use crate::run::{Feed, RunSetup, Session, SessionOptions, Sink};
use crate::sample::{InsPosition, InsSample};

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
    /// What it can drive, as the prepared run plans it (none before a run is prepared).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<crate::capabilities::ObjectCapabilities>,
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
                capabilities: None,
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
        let planned = plan_objects(&setup, &self.objects, &self.opts)
            .await
            .map_err(GroundError::Plan)?;
        let plans = planned.plans;
        for (s, p) in self.status.iter_mut().zip(&plans) {
            s.start = Some(p.track.start());
            s.capabilities = Some(p.capabilities.clone());
        }
        self.update_at_start();
        Ok(Prepared {
            setup: planned.setup,
            plans,
            rehearsal: planned.rehearsal,
            run_ups: planned.run_ups,
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
        // What each object was identified as, in the capabilities shown.
        for ((st, p), stock) in self.status.iter_mut().zip(&m.plans).zip(&m.stock) {
            st.capabilities = Some(super::identify::identified(&p.capabilities, *stock));
        }
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
                    motion.h.epoch(),
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
            .with_events_from(motion.window.events)
            .with_object_sync(super::identify::object_sync(&motion.plans, &motion.stock));
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
        // Each object's smallest MONR arrival − time stamp before the start (its clock offset
        // against the control centre's, plus the network's shortest delay).
        let pre_start_latency: Vec<Option<f64>> = motion
            .h
            .snapshot()
            .carriers
            .iter()
            .map(|c| (c.link.monr > 0).then_some(c.link.latency_min_ms / 1000.0))
            .collect();
        let mut run = session.run().await;
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
        let mut monr = motion.monr();
        super::report::waiting_until_strt(&mut monr, &snap);
        let vut_ins = vut_ins.and_then(|d| d.lock().ok().map(|d| d.clone()));
        let (objects, impacts) = off_workers(|| {
            let lags = lags_of(&motion.plans, &monr);
            let impacts = impact_checks(prepared, &monr, &lags, &pre_start_latency);
            // With the robot's MONR as the VUT's telemetry the sample time is the control
            // centre's; with an INS, the offset its samples were applied at.
            let cc_minus_sample = vut_ins
                .as_ref()
                .and_then(|d| d.cc_minus_sample_s)
                .unwrap_or(0.0);
            super::verdict::from_objects(
                &mut run,
                prepared,
                &monr,
                &impacts,
                cc_minus_sample,
                vut_ins.is_some(),
            );
            (object_reports(&motion, &snap, &monr, &lags), impacts)
        });
        self.observe(&snap);
        self.observe_poses(&last_poses(&monr));
        self.forget_lost(&motion.events(&snap));
        motion.reset_objects().await;
        motion.shutdown().await;
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
                lead_s: 0.0,
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
            passes: 1,
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

/// The VUT robot's MONR as the run's telemetry: samples from its first RUNNING MONR until it
/// reports the end of its path once its plan's time is (nearly) over (or 1.5 × its duration +
/// 5 s passed) or leaves RUNNING.
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
    let epoch = h.epoch();
    let run_start = std::sync::Arc::new(std::sync::OnceLock::new());
    let feed = Feed::from_stamped_channel("monr:vut", rx)
        .with_map_frame()
        .with_run_start(run_start.clone());
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
            if first.is_none() {
                // The run began at the robot's STRT instant, which its first RUNNING MONR
                // reports up to a MONR period later: the engine arms there, so that a target
                // started with the run keeps its place on the robot's track time.
                if let Some(t) = h.peek(|s| s.carriers.get(idx).and_then(|c| c.strt_scheduled_s)) {
                    let _ = run_start.set(t);
                }
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
            // Stamped with the instant it describes, not its arrival (20–40 ms later on a
            // radio link): the run's clock, and so every STRT and MTSP time, is anchored there.
            let at = crate::dispatch::control_centre::instant_of(epoch, m.t_s);
            if tx.send(Received { sample: s, at }).await.is_err() {
                return;
            }
            // Its path driven (at its end pose, its plan's time over but for half a second: a
            // VUT that stands through the test, as the parked car of a dooring test, is at its
            // end pose from the start), or far beyond its duration: the source ends.
            let (d, _) = Pose::new(m.x, m.y, m.yaw_deg.to_radians()).offset_to(&end);
            let over = m.t_s - t0;
            if (d <= 0.02 && over >= end_s - 0.5) || over > 1.5 * end_s + 5.0 {
                return;
            }
        }
    });
    (feed, pump)
}
