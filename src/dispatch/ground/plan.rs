//! Which object drives which actor, and the track each one is sent.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;

use super::route::Mobility;
pub use super::spec::{
    begins_with_run, default_mobility, lead_of, mobility_within, object_kind, Drives, ObjectSpec,
    MAX_LEAD_S,
};
use super::track::{PlannedTrack, TrackPoint};
use crate::capabilities::{ObjectCapabilities, ObjectKind};
use crate::dispatch::profile::DummyProfile;
use crate::run::report::RunReport;
use crate::run::{RunSetup, SessionOptions, Sink, SinkCtx};
use crate::sample::Sample;
use crate::scenario::engine::Engine;
use crate::scenario::Activation;
use crate::sim::SimOptions;

/// Options of the ground layer.
#[derive(Debug, Clone)]
pub struct GroundOptions {
    pub monr_rate_hz: u16,
    pub heab_rate_hz: u16,
    /// Consecutive missing MONR that abort a motion (and make an object "not armed").
    pub monr_miss_limit: u32,
    /// Wall time without VUT telemetry after which a started run is aborted, s.
    pub telemetry_stale_s: f64,
    /// Connected, DISARMED and ready within this.
    pub connect_timeout: Duration,
    /// Every object ARMED within this.
    pub arm_timeout: Duration,
    /// TRAJ point spacing of sampled tracks, s.
    pub traj_dt_s: f64,
    /// The VUT robot's STRT goes out this long after the start is given.
    pub start_lead: Duration,
    /// The rehearsal that plans the VUT's path and speed (no AEB; its speed and run-up).
    pub sim: SimOptions,
    /// At the start pose: within this distance…
    pub at_start_m: f64,
    /// …and this heading difference (degrees).
    pub at_start_deg: f64,
    /// After the run or drive back: how long the objects may take to stop.
    pub stop_timeout: Duration,
    /// Link-health limits for arming; None: the defaults for the HEAB rate.
    pub link_limits: Option<crate::dispatch::link_health::LinkLimits>,
    /// The VUT robot's speed as the run's telemetry: `None` takes its MONR speed; `Some(w)`
    /// measures it from its MONR positions over the last `w` seconds (for a robot whose MONR
    /// speed is its set speed rather than a measurement).
    pub speed_from_positions_s: Option<f64>,
    /// Limits of the control centre's motion rules (path, speed, standing, jumps).
    pub motion: crate::dispatch::motion_watch::MotionLimits,
    /// An object's own lateral limit from its path, by name (others: `motion.lateral_m`).
    pub lateral_m: std::collections::BTreeMap<String, f64>,
    /// The site's geofence: checked against every planned motion and every MONR.
    pub geofence: Option<Arc<crate::dispatch::motion_watch::Geofence>>,
    /// Targets that exist only in the twin: no object drives them.
    pub virtual_targets: Vec<String>,
}

impl Default for GroundOptions {
    fn default() -> Self {
        GroundOptions {
            monr_rate_hz: 100,
            heab_rate_hz: 100,
            monr_miss_limit: 10,
            telemetry_stale_s: 0.2,
            connect_timeout: Duration::from_secs(10),
            arm_timeout: Duration::from_secs(5),
            traj_dt_s: 0.01,
            start_lead: Duration::from_millis(500),
            sim: SimOptions {
                aeb: None,
                fcw: None,
                ..SimOptions::default()
            },
            at_start_m: 0.5,
            at_start_deg: 5.0,
            stop_timeout: Duration::from_secs(2),
            link_limits: None,
            speed_from_positions_s: None,
            motion: Default::default(),
            lateral_m: Default::default(),
            geofence: None,
            virtual_targets: Vec::new(),
        }
    }
}

/// One object's plan for a run.
#[derive(Debug, Clone)]
pub struct ObjectPlan {
    pub name: String,
    pub drives: Drives,
    pub track: PlannedTrack,
    pub mobility: Mobility,
    /// What it can drive: its trajectories stay within these.
    pub capabilities: ObjectCapabilities,
    /// When the object is planned to start after the motion's first STRT, s: a target when
    /// the rehearsal triggers it (on the VUT robot's track time), 0 for the robot and for a
    /// drive back.
    pub start_s: f64,
    /// Its trajectory begins standing this long at its start (its dead time), and its STRT
    /// and MTSP origins are this much earlier than the engine's instants: an object that
    /// starts moving that long after its start time is on schedule from its first metre, and
    /// one that starts at once (a perfect follower) waits for it. 0 for a drive back.
    pub lead_s: f64,
}

impl ObjectPlan {
    /// This plan with its track standing `lead_s` (clamped to 0..[`MAX_LEAD_S`]) before it
    /// moves (its `start_s` is the caller's to move).
    pub fn with_lead(mut self, lead_s: f64) -> ObjectPlan {
        let lead = if lead_s.is_finite() {
            lead_s.clamp(0.0, MAX_LEAD_S)
        } else {
            0.0
        };
        if lead == 0.0 {
            return self;
        }
        self.track = self.track.standing_first(lead);
        self.lead_s = lead;
        self
    }
}

/// A run prepared for its objects: the setup as planned (run-ups fitted to the platforms),
/// the plans, the rehearsal's report and the run-ups lengthened.
#[derive(Clone)]
pub struct Prepared {
    pub setup: Arc<RunSetup>,
    pub plans: Vec<ObjectPlan>,
    pub rehearsal: Option<RunReport>,
    pub run_ups: Vec<super::run_up::RunUpFit>,
}

/// Records the VUT's samples of a rehearsal.
struct Recorder(Arc<Mutex<Vec<TrackPoint>>>);

impl Sink for Recorder {
    fn name(&self) -> &'static str {
        "vut plan"
    }

    fn sample(&mut self, _ctx: &SinkCtx<'_>, _engine: &Engine, s: &Sample) {
        if let Ok(mut v) = self.0.lock() {
            v.push(TrackPoint {
                t: s.time_s,
                x: s.x,
                y: s.y,
                yaw: s.yaw_rad,
                v: s.speed_mps,
                a: s.accel_mps2.unwrap_or(0.0),
                curvature: 0.0,
            });
        }
    }

    fn close<'a>(
        &'a mut self,
        _e: &'a crate::run::RunEnd,
        _r: &'a mut RunReport,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
}

/// The VUT's planned track: the engine's rehearsal of the scenario with the simulated VUT
/// (no AEB), its samples as timed poses (speed signed by the direction of motion, so a
/// reversing VUT's TRAJ says so), the rehearsal's report (the planned impacts), the sample
/// time of its last sample and the offset from rehearsal time to the track's time.
pub async fn vut_track(
    setup: &Arc<RunSetup>,
    sim: &SimOptions,
    launch: Launch,
) -> Result<(PlannedTrack, RunReport, f64, f64), String> {
    let mut opts = sim.clone();
    opts.aeb = None;
    opts.fcw = None;
    // The scenario's nominal VUT speed when it names one, planned at the middle of the
    // protocol's VUT speed band (nominal 0/+1 km/h): a robot that tracks its plan to within
    // ±0.5 km/h stays valid, where one planned at the band's lower edge is invalid at -0.02.
    if let Some(v) = setup.scenario.vut.speed_kmh {
        opts.vut_speed_kmh = if v > 0.0 { v + VUT_BAND_MIDDLE_KMH } else { v };
    }
    if opts.run_up_m.is_none() {
        // The robot launches from standstill before the rehearsal's first sample, so the
        // run-up need only cover the triggers' lead (each target's time to its conflict plus
        // 2 s to settle), not the 100 m of a driver's flying start.
        let lead_s = setup
            .scenario
            .targets
            .iter()
            .filter(|t| t.activation != Activation::Static)
            .map(|t| crate::scenario::ttc::ttc_dummy(t, &setup.scenario.vut) + 2.0)
            .fold(3.0, f64::max);
        let v = opts.vut_speed_kmh / 3.6;
        opts.run_up_m = Some((lead_s * v).max(t0_run_up_m(setup, v)));
    }
    opts.validate()?;
    let rec = Arc::new(Mutex::new(Vec::new()));
    let (report, _) = crate::sim::run_sim_session(
        setup.clone(),
        &opts,
        SessionOptions::default(),
        vec![Box::new(Recorder(rec.clone()))],
    )
    .await;
    if let Some(e) = &report.error {
        return Err(format!("rehearsal of the VUT's path failed: {e}"));
    }
    let mut pts = rec.lock().map(|v| v.clone()).unwrap_or_default();
    if pts.len() < 2 {
        return Err("rehearsal of the VUT's path produced no motion".into());
    }
    let t0 = pts[0].t;
    let end_t = pts[pts.len() - 1].t;
    let n = pts.len();
    for i in 0..n {
        pts[i].t -= t0;
        // Direction of motion against the vehicle's heading: reversing is a negative speed.
        let (a, b) = if i + 1 < n { (i, i + 1) } else { (i - 1, i) };
        let (dx, dy) = (pts[b].x - pts[a].x, pts[b].y - pts[a].y);
        let along = dx * pts[i].yaw.cos() + dy * pts[i].yaw.sin();
        if along < -1e-6 {
            pts[i].v = -pts[i].v.abs();
        }
    }
    // Curvature from the heading change over the distance (the TRAJ's informative field).
    for i in 1..n {
        let ds = (pts[i].x - pts[i - 1].x).hypot(pts[i].y - pts[i - 1].y);
        if ds > 1e-6 {
            pts[i].curvature = crate::frame::wrap_pi(pts[i].yaw - pts[i - 1].yaw) / ds;
        }
    }
    // The launch before the first sample: from standstill to its speed, jerk-limited at or
    // below the robot's acceleration.
    let launch_s = launch.duration_s(pts[0].v.abs());
    let pts = with_launch_and_stop(pts, launch, ROBOT_DECEL_MPS2, 0.01);
    let track = PlannedTrack::new(pts).ok_or("rehearsal samples not finite")?;
    Ok((track, report, end_t, launch_s - t0))
}

/// Seconds the robot drives at its speed before the validity window opens (T0), so that the
/// window sees a settled robot, not its launch.
const T0_SETTLE_S: f64 = 2.0;

/// The run-up (metres before the rehearsal's trigger line or conflict point) that puts the
/// robot at its speed `T0_SETTLE_S` before T0: for a turn (T0 = T_steer − 1 s, T_steer where
/// the curve begins) from before that place on its path; for the TTC rule from before
/// TTC = `t0_ttc_s`. Zero when T0 follows the target (its braking or acceleration), which the
/// triggers' lead covers.
fn t0_run_up_m(setup: &RunSetup, v: f64) -> f64 {
    use crate::scenario::validity::T0Rule;
    let sc = &setup.scenario;
    let Some(spec) = &sc.validity else {
        return 0.0;
    };
    let settle = T0_SETTLE_S * v;
    // The primary target: the first that moves (as the validity verdict takes it).
    let braking = sc
        .targets
        .iter()
        .find(|t| t.activation != Activation::Static)
        .is_some_and(|t| t.brake.is_some());
    match spec.t0.resolved(braking) {
        T0Rule::Steer => match spec.steer_at_path_s {
            Some(at) => {
                let (_, s_line) = crate::sim::path::Path::for_scenario(setup);
                (s_line - at).max(0.0) + v + settle + sc.vut.control_ahead_m().abs()
            }
            None => 0.0,
        },
        T0Rule::Ttc => spec.t0_ttc_s * v + settle,
        _ => 0.0,
    }
}

/// Middle of the protocol's VUT speed band (nominal 0/+1 km/h), above nominal: the VUT
/// robot's planned speed.
pub const VUT_BAND_MIDDLE_KMH: f64 = 0.5;

/// How late the VUT robot's MONR may reach the control centre when its latency was not
/// measured, s: real platforms report 20–40 ms late over their radio link.
pub const DEFAULT_MONR_LATENCY_S: f64 = 0.05;

/// How far the engine's start predictions reach beyond their leads for the VUT robot's MONR
/// (when they are the run's telemetry): its measured MONR latency with half again as margin
/// (the latency varies from one MONR to the next), at least [`DEFAULT_MONR_LATENCY_S`]. (A
/// run fed by an INS instead predicts that little further than it needs: harmless, each
/// prediction is renewed at every sample until the command goes out.)
pub fn robot_telemetry_latency_s(c: &ObjectCapabilities) -> f64 {
    let measured = c
        .monr_latency_s
        .filter(|l| l.is_finite() && *l >= 0.0)
        .map_or(0.0, |l| 1.5 * l);
    measured.max(DEFAULT_MONR_LATENCY_S)
}

/// The most the VUT robot is asked to accelerate in its launch, m/s² (less where its
/// capabilities say so).
pub const ROBOT_ACCEL_MPS2: f64 = 2.0;
/// How fast the robot's acceleration builds up and falls off in its launch, m/s³.
pub const ROBOT_JERK_MPS3: f64 = crate::scenario::launch::LAUNCH_JERK_MPS3;

pub use crate::scenario::launch::Launch;

/// How it stops after the rehearsal's last sample, m/s².
pub const ROBOT_DECEL_MPS2: f64 = 3.0;

/// A rehearsal starts at speed (a flying start) and ends at speed: the robot's track starts
/// from standstill, with `launch` straight along the first sample's heading so that it
/// reaches the first sample at its speed, and ends braking at `dec` straight on from the last.
/// The rehearsal's own samples are kept as they are (times shifted by the launch).
pub fn with_launch_and_stop(
    pts: Vec<TrackPoint>,
    launch: Launch,
    dec: f64,
    dt: f64,
) -> Vec<TrackPoint> {
    let (Some(&first), Some(&last)) = (pts.first(), pts.last()) else {
        return pts;
    };
    let straight = |p: &TrackPoint, s: f64, v: f64, a: f64, t: f64| {
        let dir = if p.v < 0.0 { -1.0 } else { 1.0 };
        TrackPoint {
            t,
            x: p.x + dir * s * p.yaw.cos(),
            y: p.y + dir * s * p.yaw.sin(),
            yaw: p.yaw,
            v: dir * v,
            a: dir * a,
            curvature: 0.0,
        }
    };
    let mut out = Vec::with_capacity(pts.len() + 1000);
    let v0 = first.v.abs();
    let t_launch = launch.duration_s(v0);
    if t_launch > 0.0 {
        // Each point placed back from the first sample by the distance still to go.
        let total = launch.distance_m(v0, t_launch);
        let n = (t_launch / dt).ceil() as usize;
        for k in 0..n {
            let t = k as f64 * dt;
            let (v, a) = launch.at(v0, t);
            out.push(straight(
                &first,
                -(total - launch.distance_m(v0, t)),
                v,
                a,
                t,
            ));
        }
    }
    for p in &pts {
        out.push(TrackPoint {
            t: p.t + t_launch,
            ..*p
        });
    }
    let v1 = last.v.abs();
    if v1 > 0.05 {
        let t_stop = v1 / dec;
        let n = (t_stop / dt).ceil() as usize;
        let t_end = last.t + t_launch;
        for k in 1..=n {
            let tau = (k as f64 * dt).min(t_stop);
            let v = (v1 - dec * tau).max(0.0);
            let s = v1 * tau - 0.5 * dec * tau * tau;
            out.push(straight(&last, s, v, -dec, t_end + tau));
        }
    }
    out
}

/// What [`plan_objects`] planned: the setup as planned (each carried target's run-up fitted to
/// its platform, see [`super::run_up`]), every object's plan, the rehearsal's report and the
/// run-ups it lengthened.
pub struct Planned {
    pub setup: Arc<RunSetup>,
    pub plans: Vec<ObjectPlan>,
    pub rehearsal: Option<RunReport>,
    pub run_ups: Vec<super::run_up::RunUpFit>,
}

/// Each object's capabilities, resolved from the defaults of the platform that carries what it
/// drives and its layers (errors name the object).
pub fn resolve_capabilities(
    setup: &RunSetup,
    objects: &[ObjectSpec],
) -> Result<Vec<ObjectCapabilities>, String> {
    objects
        .iter()
        .map(|o| {
            ObjectCapabilities::resolve(object_kind(setup, &o.drives), &o.capabilities)
                .map_err(|e| format!("object {}: {e}", o.name))
        })
        .collect()
}

/// Every object's plan for `setup`: the VUT robot's rehearsed track, each moving target's
/// profile. Errors name the object or target: an object driving a static or unknown target,
/// a moving target no object drives, two objects for one actor, a run-up the geofence cannot
/// hold.
pub async fn plan_objects(
    setup: &Arc<RunSetup>,
    objects: &[ObjectSpec],
    opts: &GroundOptions,
) -> Result<Planned, String> {
    let caps = resolve_capabilities(setup, objects)?;
    // Every carried target gets the run-up its platform needs (its start moved back when the
    // scenario's is too short); the rehearsal and the engine see the fitted scenario.
    let (setup, run_ups) =
        super::run_up::fit_targets(setup, objects, &caps, opts.geofence.as_deref())?;
    let setup = &setup;
    // The rehearsal plans the VUT's path and tells when each target starts and the run ends.
    // The robot launches within its capability (a robot in a car: 1.5 m/s² by default), at
    // the planned share of it.
    let robot_accel = objects
        .iter()
        .zip(&caps)
        .find(|(o, _)| o.drives == Drives::Vut)
        .map_or_else(
            || ObjectCapabilities::default_for(ObjectKind::VutRobot).max_accel_mps2,
            |(_, c)| c.max_accel_mps2,
        );
    let launch = Launch::planned_for(robot_accel.min(ROBOT_ACCEL_MPS2));
    let (vut, rehearsal, run_end_s, to_track_s) = vut_track(setup, &opts.sim, launch).await?;
    let mut plans = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        if objects[..i].iter().any(|p| p.drives == o.drives) {
            return Err(format!("two objects drive {}", o.drives));
        }
        let capabilities = caps[i].clone();
        let mobility = match o.mobility {
            Some(m) => m,
            None => mobility_within(default_mobility(setup, &o.drives), &capabilities),
        };
        mobility
            .validate()
            .map_err(|e| format!("object {}: {e}", o.name))?;
        let mut start_s = 0.0;
        let track = match &o.drives {
            Drives::Vut => vut.clone(),
            Drives::Target(id) => {
                let Some(t) = setup.scenario.targets.iter().find(|t| &t.id == id) else {
                    return Err(format!(
                        "object {} drives {id}, which the scenario does not have (targets: {})",
                        o.name,
                        setup.target_ids().join(", ")
                    ));
                };
                if opts.virtual_targets.contains(id) {
                    return Err(format!(
                        "object {} drives {id}, a virtual target (it exists only in the twin)",
                        o.name
                    ));
                }
                if t.activation == Activation::Static {
                    return Err(format!(
                        "object {} drives {id}, a static target (obstructions and parked cars are not objects)",
                        o.name
                    ));
                }
                // Its launch a jerk-limited ramp as long as the profile's (the same distance,
                // so the same motion once at speed), within its acceleration.
                let mut profile = DummyProfile::of_target(t);
                profile.launch = Launch::of_duration(
                    profile.motion.v,
                    profile.motion.t_acc,
                    crate::scenario::launch::LAUNCH_JERK_MPS3,
                )
                .filter(|l| {
                    l.accel_mps2
                        <= crate::scenario::launch::PLANNED_SHARE * capabilities.max_accel_mps2
                            + 1e-6
                });
                let full = PlannedTrack::of_profile(&profile, opts.traj_dt_s);
                // Started at `origin` of the rehearsal, it need not drive beyond the run's end
                // (plus a second): a long lane path ends braking there instead. A path that
                // ends at speed (a crossing target's ends just past the VUT's path) runs out
                // straight on and stops within the platform's deceleration, so that it is
                // still at its test speed when it meets the VUT.
                let origin = rehearsal
                    .triggers
                    .iter()
                    .find(|r| &r.target == id)
                    .map_or(0.0, |r| r.fired_at_s);
                start_s = (origin + to_track_s).max(0.0);
                truncate_with_stop(
                    full,
                    run_end_s - origin + 1.0,
                    TARGET_DECEL_MPS2
                        .min(crate::scenario::launch::PLANNED_SHARE * capabilities.max_decel_mps2),
                    opts.traj_dt_s,
                )
            }
        };
        let lead = lead_of(&capabilities);
        plans.push(
            ObjectPlan {
                name: o.name.clone(),
                drives: o.drives.clone(),
                track,
                mobility,
                capabilities,
                start_s,
                lead_s: 0.0,
            }
            .with_lead(lead),
        );
    }
    // Targets start on the robot's track time, which its own lead delays (the robot's STRT
    // is its track's start), each its own lead earlier.
    let robot_lead = plans
        .iter()
        .find(|p| p.drives == Drives::Vut)
        .map_or(0.0, |p| p.lead_s);
    for p in plans.iter_mut().filter(|p| p.drives != Drives::Vut) {
        p.start_s += robot_lead - p.lead_s;
    }
    // A target that moves with the run ([`begins_with_run`]) is started with the robot: the
    // engine starts it at its first sample. Its plan may start later on the robot's track
    // (the rehearsal began where the robot's launch ends; the robot's dead time is longer
    // than its own): its trajectory stands that long first, so that it moves when it did in
    // the rehearsal, and the live engine starts its profile (and places its retimes) that
    // whole standing later.
    let mut engine = setup.engine.clone();
    for p in plans.iter_mut() {
        let Drives::Target(id) = &p.drives else {
            continue;
        };
        let begins = setup
            .scenario
            .targets
            .iter()
            .any(|t| &t.id == id && begins_with_run(&setup.scenario.vut, t));
        if !begins {
            continue;
        }
        if p.start_s > 0.0 {
            p.track = p.track.clone().standing_first(p.start_s);
            p.lead_s += p.start_s;
            p.start_s = 0.0;
        }
        if p.lead_s > 0.0 {
            engine.start_leads_s.insert(id.clone(), p.lead_s);
        }
    }
    // The VUT robot's MONR reach the control centre late (a radio link): its triggers look
    // that much further ahead ([`robot_telemetry_latency_s`]).
    if let Some(robot) = plans.iter().find(|p| p.drives == Drives::Vut) {
        engine.telemetry_latency_s = engine
            .telemetry_latency_s
            .max(robot_telemetry_latency_s(&robot.capabilities));
    }
    let setup = &if engine.start_leads_s == setup.engine.start_leads_s
        && engine.telemetry_latency_s == setup.engine.telemetry_latency_s
    {
        setup.clone()
    } else {
        Arc::new(
            RunSetup::try_new(setup.scenario.clone(), setup.map.clone(), engine)
                .map_err(|e| format!("scenario with its objects' leads: {e:#}"))?,
        )
    };
    for t in &setup.scenario.targets {
        if t.activation != Activation::Static
            && !opts.virtual_targets.contains(&t.id)
            && !objects
                .iter()
                .any(|o| o.drives == Drives::Target(t.id.clone()))
        {
            return Err(format!(
                "target {} moves but no object drives it (add a carrier with \"drives\": \"{}\")",
                t.id, t.id
            ));
        }
    }
    Ok(Planned {
        setup: setup.clone(),
        plans,
        rehearsal: Some(rehearsal),
        run_ups,
    })
}

/// How a target carrier brakes at the end of its path, m/s² (less where its deceleration
/// is lower).
pub const TARGET_DECEL_MPS2: f64 = 3.0;

/// `track` up to `t_end` (from its start), then braking at `dec` straight on. A track that
/// ends before keeps all its points and, when it ends at speed, gets the same stop.
pub fn truncate_with_stop(track: PlannedTrack, t_end: f64, dec: f64, dt: f64) -> PlannedTrack {
    let t0 = track.points[0].t;
    let whole = track.duration_s() <= t_end || t_end <= 0.0;
    let kept: Vec<TrackPoint> = track
        .points
        .iter()
        .copied()
        .filter(|p| whole || p.t - t0 <= t_end)
        .collect();
    // A profile ends its path standing (its last point at rest right after one at speed):
    // that end is driven at speed, and the stop follows.
    let mut kept = kept;
    if let [.., prev, last] = kept.as_mut_slice() {
        let dt_end = last.t - prev.t;
        if last.v.abs() < 0.05 && prev.v.abs() > 0.05 && prev.v.abs() > dec * dt_end {
            last.v = prev.v;
            last.a = 0.0;
        }
    }
    let pts = with_launch_and_stop(kept, Launch::NONE, dec, dt);
    PlannedTrack::new(pts).unwrap_or(track)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_is_a_jerk_limited_ramp_within_the_acceleration() {
        for v in [2.0, 8.0, 16.7] {
            let l = Launch::within(ROBOT_ACCEL_MPS2);
            let t = l.duration_s(v);
            let (mut s, mut prev) = (0.0, (0.0, 0.0));
            let dt = 1e-4;
            let mut k = 1;
            while (k as f64) * dt <= t {
                let now = l.at(v, k as f64 * dt);
                assert!(now.1 <= l.accel_mps2 + 1e-9, "{v}: {now:?}");
                assert!(
                    (now.1 - prev.1).abs() / dt <= l.jerk_mps3 * (1.0 + 1e-6) + 1e-6,
                    "{v}: jerk at {}",
                    k as f64 * dt
                );
                // Speed is the integral of the acceleration; distance of the speed.
                assert!((now.0 - prev.0 - 0.5 * (now.1 + prev.1) * dt).abs() < 1e-6);
                s += 0.5 * (now.0 + prev.0) * dt;
                prev = now;
                k += 1;
            }
            assert!((l.at(v, t).0 - v).abs() < 1e-9);
            let d = l.distance_m(v, t);
            assert!((d - s).abs() < 1e-2 * d.max(1.0), "{v}: {d} vs {s}");
        }
        // A track's launch ends at its first sample, at its speed.
        let first = TrackPoint {
            t: 0.0,
            x: 10.0,
            y: 0.0,
            yaw: 0.0,
            v: 10.0,
            a: 0.0,
            curvature: 0.0,
        };
        let pts = with_launch_and_stop(vec![first], Launch::within(ROBOT_ACCEL_MPS2), 3.0, 0.01);
        assert_eq!(pts[0].v, 0.0);
        let i = pts.iter().position(|p| p.v == 10.0).expect("first sample");
        let (a, b) = (pts[i - 1], pts[i]);
        assert!(
            ((b.x - a.x) - 10.0 * (b.t - a.t)).abs() < 1e-3,
            "{a:?} {b:?}"
        );
        assert!(pts.windows(2).all(|w| w[1].x >= w[0].x));
    }
}
