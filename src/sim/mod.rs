//! The built-in simulated VUT: the whole loop — trigger → dummy → AEB reaction — with no
//! external tool. The vehicle ([`vut::SimVut`]) is a co-simulation peer of the session
//! ([`crate::run::cosim`]): each step its sample goes to the engine, and the dummies' state
//! after that step comes back to the vehicle's AEB. Time is the step counter × `step_ms`, so a
//! run is deterministic: same setup and options, same report, byte for byte.
//!
//! `scil sim --scenario S --vut-speed 40 [--aeb ttc=1.2,decel=8,delay_ms=150] [--json]` and
//! the sweeps call [`run_sim`].

pub mod elk;
mod executor;
pub mod ins;
pub mod path;
pub mod peers;
pub mod vut;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::run::cosim::{self, OutputsSink, StepOutputs};
use crate::run::source::inject::{Injection, InjectionHandle};
use crate::run::{Feed, RunReport, RunSetup, Session, SessionOptions, Sink};
pub use elk::ElkParams;
pub use path::Path;
pub use vut::{AebParams, FcwParams, SimVut, TargetView, VutParams};

/// Options of a simulated run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimOptions {
    /// Set speed (and start speed) of the VUT, km/h (a VUT starting from standstill takes
    /// its scenario's launch instead).
    pub vut_speed_kmh: f64,
    /// The AEB model; `None`: no AEB.
    pub aeb: Option<AebParams>,
    /// The forward collision warning with the protocol's brake robot; `None`: no FCW.
    pub fcw: Option<FcwParams>,
    /// Emergency lane keeping of a drifting VUT; `None`: none.
    pub elk: Option<ElkParams>,
    /// Simulation step, ms (the samples' interval).
    pub step_ms: f64,
    /// Start this far (m, along the path) before the VUT's line through the first target;
    /// default max(100 m, 8 s at the set speed).
    pub run_up_m: Option<f64>,
    /// End the run after this long (s) at the latest.
    pub max_duration_s: f64,
    /// Noise, dropout and latency on the VUT's telemetry (zero: none).
    pub injection: Injection,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            vut_speed_kmh: 40.0,
            aeb: None,
            fcw: None,
            elk: None,
            step_ms: 10.0,
            run_up_m: None,
            max_duration_s: 60.0,
            injection: Injection::default(),
        }
    }
}

impl SimOptions {
    pub fn validate(&self) -> Result<(), String> {
        if !(self.vut_speed_kmh.is_finite()
            && self.vut_speed_kmh >= 0.0
            && self.vut_speed_kmh <= 250.0)
        {
            return Err(format!(
                "vut speed must be within 0..250 km/h, got {}",
                self.vut_speed_kmh
            ));
        }
        if !(self.step_ms.is_finite() && (0.1..=1000.0).contains(&self.step_ms)) {
            return Err(format!(
                "step must be within 0.1..1000 ms, got {}",
                self.step_ms
            ));
        }
        if !(self.max_duration_s.is_finite()
            && self.max_duration_s > 0.0
            && self.max_duration_s <= 3600.0)
        {
            return Err("max duration must be within 0..3600 s".into());
        }
        if let Some(r) = self.run_up_m {
            if !(r.is_finite() && r >= 0.0) {
                return Err("run-up must be ≥ 0 m".into());
            }
        }
        if let Some(a) = &self.aeb {
            a.validate()?;
        }
        if let Some(f) = &self.fcw {
            f.validate()?;
        }
        if let Some(e) = &self.elk {
            e.validate()?;
        }
        self.injection.validate()
    }
}

/// The vehicle of a scenario at the options' speed, placed at its start.
pub fn vehicle(setup: &RunSetup, opts: &SimOptions) -> (SimVut, f64) {
    let (path, s_line) = Path::for_scenario(setup);
    let v = opts.vut_speed_kmh / 3.6;
    // Long enough for every target's trigger threshold (plus 2 s to settle).
    let lead_s = setup
        .scenario
        .targets
        .iter()
        .filter(|t| t.activation != crate::scenario::Activation::Static)
        .map(|t| crate::scenario::ttc::ttc_dummy(t, &setup.scenario.vut) + 2.0)
        .fold(8.0, f64::max);
    // Measured facing the direction of travel (a reversing VUT mirrored front to back).
    let vs = &setup.scenario.vut.in_travel_direction();
    // A drifting VUT starts straight, 2 s before its drift begins.
    let drift_lead = vs.drift.map_or(0.0, |d| s_line - d.from_s + 2.0 * v);
    // At least 100 m driving forwards; a reversing VUT manoeuvres (a few metres at walking
    // pace), so its run-up is the trigger lead alone.
    let floor = if setup.scenario.vut.reverse {
        0.0
    } else {
        100.0
    };
    let run_up = opts
        .run_up_m
        .unwrap_or((lead_s * v).max(floor).max(drift_lead));
    let p = VutParams {
        set_speed_mps: v,
        kp: 1.0,
        max_accel: 2.0,
        max_ctrl_decel: 3.0,
        width_m: vs.width_m,
        reference_to_front_m: vs.reference_to_front_m,
        wheelbase_m: 2.8,
        steering_ratio: setup.interface.steering_ratio,
        control_ahead_m: vs.control_ahead_m(),
    };
    if setup.scenario.vut.door.is_some() && setup.scenario.vut.launch.is_none() {
        // Parked (dooring): standing at the start of its path throughout.
        let p = VutParams {
            set_speed_mps: 0.0,
            ..p
        };
        return (SimVut::new(path, p, opts.aeb, 0.0, 0.0), s_line);
    }
    if let Some(l) = &setup.scenario.vut.launch {
        // A start from standstill: standing at the start of its planned path until cued.
        let p = VutParams {
            set_speed_mps: l.speed_kmh / 3.6,
            max_accel: l.accel_mps2,
            ..p
        };
        let mut car = SimVut::new(path, p, opts.aeb, 0.0, 0.0).with_fcw(opts.fcw);
        car.reverse = setup.scenario.vut.reverse;
        car.launch = Some(vut::SimLaunch {
            spec: l.clone(),
            s0: 0.0,
            go_s: None,
        });
        return (car, s_line);
    }
    let mut car = SimVut::new(path, p, opts.aeb, s_line - run_up, v).with_fcw(opts.fcw);
    car.reverse = setup.scenario.vut.reverse;
    car.elk = match (opts.elk, &setup.map) {
        (Some(e), Some(map)) => elk::SimElk::new(e, &setup.scenario.vut, map.matcher()),
        _ => None,
    };
    (car, s_line)
}

/// Where a simulated run ends: 30 m past the last target's line (or conflict point), and past
/// the VUT's own length beyond it.
pub fn end_s(setup: &RunSetup, car: &SimVut, s_line: f64) -> f64 {
    let vs = &setup.scenario.vut;
    let v = car.v.max(0.1);
    setup
        .scenario
        .targets
        .iter()
        .map(|t| match &t.conflict {
            Some(c) => c.vut_s,
            None if t.activation == crate::scenario::Activation::Begin && t.speed_kmh > 0.0 => {
                // A target driving ahead from the start: where the VUT catches it up (or where
                // it has stopped, braking).
                let s0 = car.path.project(t.start.x, t.start.y);
                let gap = (s0 - car.s).max(0.0);
                let profile = crate::scenario::profile::Profile::of(t);
                let closing = v - profile.v;
                let t_end = if closing > 0.1 { gap / closing } else { 120.0 };
                s0 + profile.travel(t_end.min(120.0))
            }
            None if t.activation == crate::scenario::Activation::Headway => {
                // A lead waiting for its headway: it starts when the VUT's front is its
                // headway behind it; where the VUT, keeping its speed, catches it up.
                let s0 = car.path.project(t.start.x, t.start.y);
                let h = t.headway.map_or(0.0, |h| h.time_s);
                let profile = crate::scenario::profile::Profile::of(t);
                let front = car.s + vs.reference_to_front_m;
                let t_start = ((s0 - h * v - front) / v).max(0.0);
                (0..=1200)
                    .map(|k| 0.1 * k as f64)
                    .find(|&tt| front + v * tt >= s0 + profile.travel(tt - t_start))
                    .map_or(s0 + profile.travel(120.0), |tt| {
                        s0 + profile.travel(tt - t_start)
                    })
            }
            None => car.path.project(t.start.x, t.start.y),
        })
        .fold(s_line, f64::max)
        + 30.0
        + if vs.path.is_some() { vs.length_m } else { 0.0 }
}

/// What the vehicle sees of the targets after a step (positions and speeds, map frame).
fn target_views(o: &StepOutputs) -> impl Iterator<Item = TargetView> + '_ {
    o.targets.iter().map(|t| TargetView {
        x: t.x,
        y: t.y,
        yaw_rad: t.yaw_rad,
        speed_mps: t.speed_mps,
    })
}

/// A simulated VUT ready to drive a session: the feed to run the session on, the sink the
/// session must carry (the dummies' state goes back to the vehicle through it) and the vehicle
/// task, awaited (or spawned) beside the session. The feed has no injection yet.
pub struct SimDrive {
    pub feed: Feed,
    pub outputs: OutputsSink,
    pub vehicle: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
    /// The FCW's warning (time, TTC), set when the vehicle task ends.
    pub warning: Arc<std::sync::Mutex<Option<crate::run::WarningRecord>>>,
}

/// The parts of a simulated run (see [`SimDrive`]). The vehicle task ends when the VUT has
/// stood still for 1 s, is 30 m past the last target's line, after `max_duration_s`, or when
/// the session ends (its feed is dropped).
pub fn drive(setup: &Arc<RunSetup>, opts: &SimOptions) -> SimDrive {
    let (feed, outputs, mut link) = cosim::link(setup, "sim:vut");
    let (mut car, s_line) = vehicle(setup, opts);
    let s_end = end_s(setup, &car, s_line);
    let dt = opts.step_ms / 1000.0;
    let vut_id = setup.vut_id().to_string();
    let max_steps = (opts.max_duration_s / dt).ceil() as u64;
    let warning = Arc::new(std::sync::Mutex::new(None));
    let warning_out = warning.clone();
    // A parked VUT (dooring) ends 3 s after its door opened.
    let parked = setup.scenario.vut.door.is_some() && setup.scenario.vut.launch.is_none();
    let vehicle = async move {
        let mut standing = 0u64;
        // The session's answer and the targets the vehicle sees, refilled every step.
        let mut outputs = link.outputs();
        let mut targets = Vec::new();
        for k in 0..=max_steps {
            if link
                .step_into(car.sample(k as f64 * dt, &vut_id), &mut outputs)
                .await
            {
                break;
            }
            if let (Some(l), Some(go)) = (car.launch.as_mut(), outputs.vut_launch_s) {
                l.go_s.get_or_insert(go);
            }
            targets.clear();
            targets.extend(target_views(&outputs));
            car.step(dt, &targets);
            // Known as soon as it happens: a service run's session may end before this task.
            if let Some((t, ttc)) = car.fcw_warned {
                if let Ok(mut w) = warning_out.lock() {
                    w.get_or_insert(crate::run::WarningRecord {
                        time_s: t,
                        ttc_s: ttc,
                    });
                }
            }
            standing = if car.v <= 0.0 && !car.waiting_for_launch() && !parked {
                standing + 1
            } else {
                0
            };
            let door_done = parked
                && outputs
                    .door_opened_s
                    .is_some_and(|t| k as f64 * dt >= t + 3.0);
            if standing as f64 * dt >= 1.0 || car.s >= s_end || door_done {
                // One last sample of the final state, then the source ends.
                let _ = link.step(car.sample((k + 1) as f64 * dt, &vut_id)).await;
                break;
            }
        }
        link.close();
        if let Some((t, ttc)) = car.fcw_warned {
            if let Ok(mut w) = warning_out.lock() {
                *w = Some(crate::run::WarningRecord {
                    time_s: t,
                    ttc_s: ttc,
                });
            }
        }
    };
    SimDrive {
        feed,
        outputs,
        vehicle: Box::pin(vehicle),
        warning,
    }
}

/// Runs the simulated VUT through a session (see the module doc and [`drive`]) with
/// `session_opts` (as fast as possible by default). Returns the report and the injection
/// handle.
pub async fn run_sim_session(
    setup: Arc<RunSetup>,
    opts: &SimOptions,
    session_opts: SessionOptions,
    sinks: Vec<Box<dyn Sink>>,
) -> (RunReport, Option<InjectionHandle>) {
    let SimDrive {
        mut feed,
        outputs,
        vehicle,
        warning,
    } = drive(&setup, opts);
    let handle = if opts.injection.is_zero() {
        None
    } else {
        feed.inject(opts.injection).ok()
    };
    let mut session = Session::new(setup.clone(), feed, session_opts);
    for s in sinks {
        session.add_sink(s);
    }
    session.add_sink(Box::new(outputs));
    let (mut report, ()) = tokio::join!(session.run(), vehicle);
    report.warning = warning.lock().ok().and_then(|w| *w);
    (report, handle)
}

/// Runs a simulated session synchronously on the calling thread (what sweeps
/// call). Deterministic: same setup and options, same report.
pub fn run_sim(setup: Arc<RunSetup>, opts: &SimOptions) -> RunReport {
    run_sim_with(setup, opts, Vec::new())
}

/// [`run_sim`] with extra sinks (an OSI trace).
pub fn run_sim_with(
    setup: Arc<RunSetup>,
    opts: &SimOptions,
    sinks: Vec<Box<dyn Sink>>,
) -> RunReport {
    if let Err(e) = opts.validate() {
        return RunReport {
            error: Some(e),
            ..RunReport::default()
        };
    }
    // The simulated VUT and the session step each other over channels at `Max` pace: no
    // timer and no socket, so the future runs on this thread without a runtime.
    executor::block_on(run_sim_session(
        setup,
        opts,
        SessionOptions::default(),
        sinks,
    ))
    .0
}
