//! Real target carriers as a sink: ISO 22133 through the control centre.
//!
//! * Arm: the control centre connects to every carrier (OSEM origin from the map's geo frame,
//!   TRAJ from the engine's own target profile), waits until each is DISARMED and ready, and
//!   arms them. Its own aborts (stale telemetry, lost MONR, a disconnect, a carrier aborting)
//!   stop the run through the session's [`StopHandle`].
//! * Every applied sample feeds the control centre's stale-telemetry rule.
//! * `Command::Start` → STRT to the target's carrier at the wall instant of the predicted
//!   sample time (the carrier task's own timer puts it on the wire then);
//!   `Command::Retime` → MTSP with the new profile origin; `Command::Abort` → HEAB ABORT.
//! * Close: NORMAL_STOP when the carriers run, DISARM when nothing started (nothing after an
//!   abort), wait for them to leave RUNNING, and report per carrier (states seen, STRT timing,
//!   MONR travel at the engine's impact instant against the engine's simulated figure).

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde::Serialize;
use tokio::sync::broadcast;
use tokio::time::Instant;

use super::{ArmCtx, Sink, SinkCtx};
use crate::dispatch::control_centre::{
    ControlCentre, ControlCentreConfig, ControlCentreHandle, GeoOrigin, Snapshot,
};
use crate::dispatch::events::{DispatchEvent, EventKind, Phase};
use crate::dispatch::iso22133::ObjectState;
use crate::dispatch::safety::SafetyConfig;
use crate::run::clock::Clock;
use crate::run::control::{StopHandle, Stopper};
use crate::run::report::{RunEnd, RunReport};
use crate::run::setup::RunSetup;
use crate::sample::Sample;
use crate::scenario::engine::{Command, Engine, Event, Output};

/// Options of a run with real carriers.
#[derive(Debug, Clone)]
pub struct CarrierOptions {
    /// `NAME=HOST[:PORT]` (or `NAME=HOST:TCP:UDP`), one per carrier of the scenario.
    pub carriers: Vec<String>,
    /// How long the carriers may take to connect and report DISARMED + ready-to-arm.
    pub connect_timeout: Duration,
    /// How long arming may take (every carrier ARMED).
    pub arm_timeout: Duration,
    /// Control-centre stale-telemetry limit (wall time without a VUT sample).
    pub telemetry_stale_s: f64,
    /// After the run: how long to wait for the carriers to leave RUNNING.
    pub stop_timeout: Duration,
    pub monr_rate_hz: u16,
    pub heab_rate_hz: u16,
    /// Consecutive missing MONR that abort the run.
    pub monr_miss_limit: u32,
    /// Targets that exist only in the twin: they have no carrier, their starts and retimes
    /// go nowhere (the engine moves them on their plan).
    pub virtual_targets: Vec<String>,
}

impl Default for CarrierOptions {
    fn default() -> Self {
        CarrierOptions {
            carriers: Vec::new(),
            connect_timeout: Duration::from_secs(10),
            arm_timeout: Duration::from_secs(5),
            telemetry_stale_s: 0.2,
            stop_timeout: Duration::from_secs(1),
            monr_rate_hz: 100,
            heab_rate_hz: 100,
            monr_miss_limit: 10,
            virtual_targets: Vec::new(),
        }
    }
}

/// The control-centre configuration of a setup and carrier options: the one place it is built.
pub fn control_centre_config(
    setup: &RunSetup,
    opts: &CarrierOptions,
) -> anyhow::Result<ControlCentreConfig> {
    let carriers = setup.carrier_configs_except(&opts.carriers, &opts.virtual_targets)?;
    let origin = setup.osem_origin().unwrap_or_else(|| {
        tracing::warn!("map without a usable geoReference: OSEM origin 0/0");
        GeoOrigin::default()
    });
    Ok(ControlCentreConfig {
        origin,
        monr_rate_hz: opts.monr_rate_hz,
        heab_rate_hz: opts.heab_rate_hz,
        carriers,
        safety: SafetyConfig {
            telemetry_stale_s: opts.telemetry_stale_s,
            monr_miss_limit: opts.monr_miss_limit,
            arm_timeout_s: opts.arm_timeout.as_secs_f64(),
            ..SafetyConfig::default()
        },
        ..ControlCentreConfig::default()
    })
}

/// A start command as the sink saw it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StartRecord {
    pub target: String,
    pub carrier: Option<String>,
    /// Predicted instant (sample time base).
    pub at_s: f64,
    /// When the engine decided (sample time base, from the wall clock).
    pub decided_s: f64,
    /// Whether the control centre was asked.
    pub sent: bool,
    #[serde(skip)]
    pub decided_wall: Option<Instant>,
}

/// How the sink starts and retimes one object on the ground (by its carrier name).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObjectSync {
    /// MTSP goes to it; otherwise a retime is recorded but not sent.
    pub honours_mtsp: bool,
    /// Its STRT and MTSP times are this much earlier than the engine's instants (its
    /// trajectory stands that long first, covering its dead time), s.
    pub start_lead_s: f64,
}

/// A retime of a target's profile origin (after the fact, from the exact crossing).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RetimeRecord {
    pub target: String,
    pub origin_s: f64,
    pub correction_ms: f64,
    /// MTSP handed to the control centre (its `MtspSent`/`RetimeRefused` event tells more).
    pub mtsp_sent: bool,
}

/// A carrier state as seen.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StateSeen {
    /// Sample time base.
    pub t_s: f64,
    pub state: ObjectState,
}

/// One carrier's block of the run report.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CarrierResult {
    pub carrier: String,
    /// Target(s) this carrier moves.
    pub targets: Vec<String>,
    pub states_seen: Vec<StateSeen>,
    /// STRT written to the socket (sample time base).
    pub strt_sent_s: Option<f64>,
    /// STRT's scheduled instant (sample time base).
    pub strt_scheduled_s: Option<f64>,
    /// Scheduled/decision instant → STRT written, µs.
    pub strt_latency_us: Option<f64>,
    pub strt_timer_late_us: Option<f64>,
    /// The engine's predicted start instant (sample time base).
    pub predicted_start_s: Option<f64>,
    /// STRT written − predicted instant, ms of real time.
    pub strt_vs_predicted_ms: Option<f64>,
    /// Engine decision → STRT written, µs (with a lead this includes the wait to the instant).
    pub decision_to_strt_us: Option<f64>,
    /// Dummy travel from its start position at the engine's impact instant, from MONR.
    pub travel_at_impact_m: Option<f64>,
    /// The engine's simulated dummy travel at impact.
    pub sim_dummy_travel_m: Option<f64>,
    /// MONR travel at impact − simulated travel, m.
    pub travel_error_m: Option<f64>,
    /// Largest MONR speed seen while RUNNING, m/s (shows motion).
    pub max_monr_speed_mps: f64,
    pub final_position: (f64, f64),
    pub monr_count: u64,
    pub malformed_frames: u64,
    pub retimes: Vec<RetimeRecord>,
    /// Retimes within [`MTSP_DEADBAND_S`] of the origin last sent: not sent (closed-loop sync
    /// asks every sample; the carrier is not flooded with sub-millisecond shifts).
    #[serde(skip_serializing_if = "is_zero")]
    pub retimes_below_deadband: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// How late a start may be decided (its STRT instant already past) before its carrier, when it
/// takes MTSP, is given its asked origin right after the STRT.
const LATE_START: Duration = Duration::from_millis(3);

/// Smallest change of a target's profile origin that goes out as a new MTSP, s (0.5 ms:
/// 1.4 mm of dummy travel at 10 km/h, 2.8 mm at 20 km/h).
pub const MTSP_DEADBAND_S: f64 = 0.0005;

/// The dispatch side of a run with real carriers.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DispatchSummary {
    /// Wall-clock seconds from the control centre's start to ARMED.
    pub armed_after_s: f64,
    /// Why the control centre aborted (its own rule or the engine's command), if it did.
    pub abort: Option<String>,
    /// Abort sent − last VUT sample applied, ms (wall).
    pub abort_after_last_sample_ms: Option<f64>,
    pub final_phase: Phase,
    pub starts: Vec<StartRecord>,
    pub events: Vec<DispatchEvent>,
}

/// Observer of every control-centre event (the service forwards them to its store and
/// dashboard).
pub type DispatchObserver = Arc<dyn Fn(&DispatchEvent) + Send + Sync>;

/// The carriers sink (see the module doc).
pub struct CarrierSink {
    cfg: Option<ControlCentreConfig>,
    opts: CarrierOptions,
    observer: Option<DispatchObserver>,
    h: Option<ControlCentreHandle>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    clock: Clock,
    armed_after_s: f64,
    starts: Vec<StartRecord>,
    retimes: Vec<RetimeRecord>,
    /// Per target: the origin last sent as MTSP, and the retimes skipped by the dead-band.
    mtsp_origin: std::collections::HashMap<String, f64>,
    below_deadband: std::collections::HashMap<String, u64>,
    /// The control centre aborted by its own rule (its abort is not sent back to it).
    cc_abort: Option<String>,
    engine_abort: Option<String>,
    targets_of: Vec<(String, String)>,
    sim_travel: Vec<(String, Option<f64>)>,
    /// The control centre was spawned by this sink (shut down at close) rather than handed
    /// to it armed by the caller, who keeps it (the ground layer's objects).
    owned: bool,
    /// Started when the run arms: an object that is not a scenario target (the VUT robot).
    start_on_arm: Option<(String, Duration)>,
    /// The run's events start at this index of the control centre's record (a session kept
    /// open across runs holds the runs before it too).
    events_from: usize,
    /// How each object on the ground is started and retimed, by carrier name.
    sync: std::collections::HashMap<String, ObjectSync>,
}

impl CarrierSink {
    /// Builds the control-centre configuration from the setup (fails on bad carrier specs).
    pub fn new(setup: &RunSetup, opts: CarrierOptions) -> anyhow::Result<CarrierSink> {
        let cfg = control_centre_config(setup, &opts)?;
        Ok(CarrierSink {
            cfg: Some(cfg),
            opts,
            observer: None,
            h: None,
            tasks: Vec::new(),
            clock: Clock::new(crate::run::clock::Pace::Max),
            armed_after_s: 0.0,
            starts: Vec::new(),
            retimes: Vec::new(),
            mtsp_origin: Default::default(),
            below_deadband: Default::default(),
            cc_abort: None,
            engine_abort: None,
            targets_of: setup.target_carriers(),
            sim_travel: Vec::new(),
            owned: true,
            start_on_arm: None,
            events_from: 0,
            sync: Default::default(),
        })
    }

    /// A sink on a control centre the caller has spawned and armed (and keeps after the run):
    /// arming only checks that it is still armed; `start_on_arm` (a carrier and a lead) is
    /// started then, the others by the engine's commands. `targets_of` maps target ids to
    /// carrier names.
    pub fn attached(
        h: ControlCentreHandle,
        opts: CarrierOptions,
        targets_of: Vec<(String, String)>,
        start_on_arm: Option<(String, Duration)>,
    ) -> CarrierSink {
        CarrierSink {
            cfg: None,
            opts,
            observer: None,
            h: Some(h),
            tasks: Vec::new(),
            clock: Clock::new(crate::run::clock::Pace::Max),
            armed_after_s: 0.0,
            starts: Vec::new(),
            retimes: Vec::new(),
            mtsp_origin: Default::default(),
            below_deadband: Default::default(),
            cc_abort: None,
            engine_abort: None,
            targets_of,
            sim_travel: Vec::new(),
            owned: false,
            start_on_arm,
            events_from: 0,
            sync: Default::default(),
        }
    }

    /// How each object is started and retimed (objects not named: at once, with MTSP).
    pub fn with_object_sync(mut self, sync: Vec<(String, ObjectSync)>) -> Self {
        self.sync = sync.into_iter().collect();
        self
    }

    /// The run's events are those from index `n` of the control centre's record on (the
    /// ground layer's session stays open across runs).
    pub fn with_events_from(mut self, n: usize) -> Self {
        self.events_from = n;
        self
    }

    /// Every control-centre event also goes to `f` (from before arming on).
    pub fn with_observer(mut self, f: DispatchObserver) -> Self {
        self.observer = Some(f);
        self
    }

    /// The carrier that moves `target`: the run's mapping, else the engine's, else its id.
    fn carrier_of(&self, target: &str, engine: Option<&str>) -> String {
        self.targets_of
            .iter()
            .find(|(t, _)| t == target)
            .map(|(_, c)| c.as_str())
            .or(engine)
            .unwrap_or(target)
            .to_string()
    }

    fn describe(h: &ControlCentreHandle) -> String {
        h.snapshot()
            .carriers
            .iter()
            .map(|c| {
                format!(
                    "{}: connected {}, state {:?}, readiness {:?}",
                    c.name, c.connected, c.state, c.readiness
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    async fn connect_and_arm(&mut self, stop: StopHandle) -> anyhow::Result<()> {
        let h = match (&self.h, self.owned) {
            (Some(h), false) => {
                // Armed by the caller: it must still be, every object ARMED.
                let h = h.clone();
                if let Some(obs) = self.observer.clone() {
                    self.tasks.push(spawn_observer(&h, obs, self.events_from));
                }
                if h.snapshot().phase != Phase::Armed {
                    anyhow::bail!("not armed: {}", Self::describe(&h));
                }
                h
            }
            _ => {
                let cfg = self
                    .cfg
                    .take()
                    .ok_or_else(|| anyhow::anyhow!("carriers armed twice"))?;
                let h = ControlCentre::spawn(cfg)?;
                if let Some(obs) = self.observer.clone() {
                    self.tasks.push(spawn_observer(&h, obs, self.events_from));
                }
                self.h = Some(h.clone());
                // Connected and DISARMED with readiness that allows arming (readyToArm 1, or
                // 2 = unavailable as the stock isoObject reports, unless configured strict).
                let ready = h.wait_armable(self.opts.connect_timeout).await;
                if !ready {
                    anyhow::bail!(
                        "carriers not connected/DISARMED/armable within {:.1} s: {}",
                        self.opts.connect_timeout.as_secs_f64(),
                        Self::describe(&h)
                    );
                }
                if let Err(e) = h.arm(self.opts.arm_timeout).await {
                    let what = Self::describe(&h);
                    h.disarm();
                    anyhow::bail!("arming failed ({e}): {what}");
                }
                h
            }
        };
        self.armed_after_s = h.epoch().elapsed().as_secs_f64();
        if let Some((carrier, lead)) = &self.start_on_arm {
            h.start_carrier_at(carrier, Instant::now() + *lead);
        }
        // The control centre's own aborts stop the run.
        let mut rx = h.events();
        self.tasks.push(tokio::spawn(async move {
            loop {
                match rx.recv().await {
                    Ok(DispatchEvent {
                        kind: EventKind::Abort { reason },
                        ..
                    }) => {
                        stop.abort(&reason.info().text, Stopper::Sink("control centre"));
                        return;
                    }
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        }));
        Ok(())
    }

    /// Control-centre seconds → sample time (identity before the clock is anchored).
    fn cc_to_sample(&self, epoch: Instant, t: f64) -> f64 {
        self.clock
            .sample_time(epoch + Duration::from_secs_f64(t.max(0.0)))
            .unwrap_or(t)
    }

    fn sample_to_cc(&self, epoch: Instant, s: f64) -> Option<f64> {
        self.clock
            .wall(s)
            .map(|w| w.saturating_duration_since(epoch).as_secs_f64())
    }

    fn results(&self, snap: &Snapshot, end: &RunEnd, epoch: Instant) -> Vec<CarrierResult> {
        let speed = self.clock.pace().factor().unwrap_or(1.0).max(1e-9);
        snap.carriers
            .iter()
            .map(|cs| {
                let targets: Vec<String> = self
                    .targets_of
                    .iter()
                    .filter(|(_, c)| *c == cs.name)
                    .map(|(t, _)| t.clone())
                    .collect();
                let impact_s = end
                    .impacts
                    .iter()
                    .find(|(t, at)| targets.contains(t) && at.is_some())
                    .and_then(|(_, at)| *at);
                let travel_at_impact_m = impact_s
                    .and_then(|s| self.sample_to_cc(epoch, s))
                    .and_then(|t| cs.travel_at(t));
                let start = self.starts.iter().find(|s| {
                    s.sent
                        && (targets.contains(&s.target) || s.carrier.as_deref() == Some(&cs.name))
                });
                let predicted_start_s = start.map(|s| s.at_s);
                let strt_sent_s = cs.strt_written_s.map(|t| self.cc_to_sample(epoch, t));
                let strt_vs_predicted_ms = match (strt_sent_s, predicted_start_s) {
                    (Some(sent), Some(p)) => Some((sent - p) / speed * 1000.0),
                    _ => None,
                };
                let decision_to_strt_us =
                    match (cs.strt_written_s, start.and_then(|s| s.decided_wall)) {
                        (Some(w), Some(dw)) => {
                            let written = epoch + Duration::from_secs_f64(w.max(0.0));
                            Some(written.saturating_duration_since(dw).as_secs_f64() * 1e6)
                        }
                        _ => None,
                    };
                let sim_dummy_travel_m = self
                    .sim_travel
                    .iter()
                    .find(|(t, d)| targets.contains(t) && d.is_some())
                    .and_then(|(_, d)| *d);
                CarrierResult {
                    carrier: cs.name.clone(),
                    states_seen: cs
                        .states_seen
                        .iter()
                        .map(|(t, s)| StateSeen {
                            t_s: self.cc_to_sample(epoch, *t),
                            state: *s,
                        })
                        .collect(),
                    strt_sent_s,
                    strt_scheduled_s: cs.strt_scheduled_s.map(|t| self.cc_to_sample(epoch, t)),
                    strt_latency_us: cs.strt_latency_us,
                    strt_timer_late_us: cs.strt_timer_late_us,
                    predicted_start_s,
                    strt_vs_predicted_ms,
                    decision_to_strt_us,
                    travel_at_impact_m,
                    sim_dummy_travel_m,
                    travel_error_m: match (travel_at_impact_m, sim_dummy_travel_m) {
                        (Some(a), Some(b)) => Some(a - b),
                        _ => None,
                    },
                    max_monr_speed_mps: cs
                        .track
                        .iter()
                        .filter(|p| p.4 == ObjectState::Running)
                        .map(|p| p.3)
                        .fold(0.0, f64::max),
                    final_position: (cs.x, cs.y),
                    monr_count: cs.monr_count,
                    malformed_frames: cs.malformed_frames,
                    retimes: self
                        .retimes
                        .iter()
                        .filter(|r| targets.contains(&r.target))
                        .cloned()
                        .collect(),
                    retimes_below_deadband: targets
                        .iter()
                        .map(|t| self.below_deadband.get(t).copied().unwrap_or(0))
                        .sum(),
                    targets,
                }
            })
            .collect()
    }
}

/// Forwards every control-centre event to `obs` (those before the subscription from the
/// snapshot).
fn spawn_observer(
    h: &ControlCentreHandle,
    obs: DispatchObserver,
    from: usize,
) -> tokio::task::JoinHandle<()> {
    let mut rx = h.events();
    let seen: Vec<DispatchEvent> = h.snapshot().events.get(from..).unwrap_or(&[]).to_vec();
    for e in &seen {
        obs(e);
    }
    tokio::spawn(async move {
        loop {
            match rx.recv().await {
                Ok(e) => {
                    if !seen.contains(&e) {
                        obs(&e);
                    }
                }
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!("{n} dispatch events not forwarded (lagged)");
                }
                Err(broadcast::error::RecvError::Closed) => break,
            }
        }
    })
}

/// NORMAL_STOP when running, DISARM when armed but never started (nothing after an abort,
/// which already went out); waits up to `timeout` for every carrier to leave RUNNING and
/// returns the final snapshot after the last MONR had time to land.
pub async fn stop_carriers(h: &ControlCentreHandle, aborted: bool, timeout: Duration) -> Snapshot {
    if !aborted {
        match h.snapshot().phase {
            Phase::Running => h.finish(),
            Phase::Armed | Phase::Arming => h.disarm(),
            _ => {}
        }
    }
    let _ = h
        .wait_for(timeout, |s| {
            s.carriers
                .iter()
                .all(|c| c.state != Some(ObjectState::Running))
        })
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    h.snapshot()
}

impl Sink for CarrierSink {
    fn name(&self) -> &'static str {
        "carriers"
    }

    fn arm<'a>(&'a mut self, ctx: ArmCtx<'a>) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            let r = self.connect_and_arm(ctx.stop).await;
            if r.is_err() {
                // Nothing moved: let go of the carriers (the caller's stay with the caller).
                if let Some(h) = self.h.take() {
                    if self.owned {
                        h.shutdown().await;
                    }
                }
                for t in self.tasks.drain(..) {
                    t.abort();
                }
            }
            r
        })
    }

    fn sample(&mut self, ctx: &SinkCtx<'_>, _engine: &Engine, _s: &Sample) {
        self.clock = *ctx.clock;
        if let Some(h) = &self.h {
            h.telemetry();
        }
    }

    fn output(&mut self, ctx: &SinkCtx<'_>, o: &Output) {
        self.clock = *ctx.clock;
        let Some(h) = &self.h else { return };
        match o {
            Output::Command(Command::Start { target, .. } | Command::Retime { target, .. })
                if self.opts.virtual_targets.contains(target) => {}
            Output::Command(Command::Start {
                target,
                carrier,
                at_s,
            }) => {
                let now = Instant::now();
                let at = self.clock.wall(*at_s).unwrap_or(now);
                let name = self.carrier_of(target, carrier.as_deref());
                // Its trajectory stands for its lead first (its dead time).
                let lead = self.sync.get(&name).map_or(0.0, |s| s.start_lead_s);
                let at = at
                    .checked_sub(Duration::from_secs_f64(lead.max(0.0)))
                    .unwrap_or(at);
                h.start_carrier_at(&name, at);
                // Its STRT instant had passed when the start was decided (the sample it was
                // decided on arrived late, or it starts with the run at that sample): the STRT
                // goes out now, and a carrier that takes MTSP is given the asked origin at once,
                // while its trajectory still stands out its lead, so that it moves as planned.
                let late = now.saturating_duration_since(at);
                let takes_mtsp = self.sync.get(&name).is_none_or(|s| s.honours_mtsp);
                if late > LATE_START && takes_mtsp {
                    h.retime(&name, at);
                    self.mtsp_origin.insert(target.clone(), *at_s);
                    self.retimes.push(RetimeRecord {
                        target: target.clone(),
                        origin_s: *at_s,
                        correction_ms: -late.as_secs_f64() * 1000.0,
                        mtsp_sent: true,
                    });
                }
                self.starts.push(StartRecord {
                    target: target.clone(),
                    carrier: carrier.clone(),
                    at_s: *at_s,
                    decided_s: self.clock.sample_time(now).unwrap_or(f64::NAN),
                    sent: true,
                    decided_wall: Some(now),
                });
            }
            Output::Command(Command::Retime {
                target,
                carrier,
                origin_s,
                correction_s,
            }) => {
                if self
                    .mtsp_origin
                    .get(target)
                    .is_some_and(|last| (origin_s - last).abs() < MTSP_DEADBAND_S)
                {
                    *self.below_deadband.entry(target.clone()).or_default() += 1;
                    return;
                }
                let name = self.carrier_of(target, carrier.as_deref());
                if self.sync.get(&name).is_some_and(|s| !s.honours_mtsp) {
                    // It ignores MTSP: none is sent.
                    self.retimes.push(RetimeRecord {
                        target: target.clone(),
                        origin_s: *origin_s,
                        correction_ms: correction_s * 1000.0,
                        mtsp_sent: false,
                    });
                    return;
                }
                // Without an anchored clock nothing can have started: nothing is sent.
                let lead = self.sync.get(&name).map_or(0.0, |s| s.start_lead_s);
                let mtsp_sent = match self.clock.wall(*origin_s) {
                    Some(w) => {
                        let w = w
                            .checked_sub(Duration::from_secs_f64(lead.max(0.0)))
                            .unwrap_or(w);
                        h.retime(&name, w);
                        self.mtsp_origin.insert(target.clone(), *origin_s);
                        true
                    }
                    None => false,
                };
                self.retimes.push(RetimeRecord {
                    target: target.clone(),
                    origin_s: *origin_s,
                    correction_ms: correction_s * 1000.0,
                    mtsp_sent,
                });
            }
            Output::Command(Command::Abort { reason }) => {
                if let Some(own) = reason.strip_prefix("control centre abort: ") {
                    // Its own abort, echoed by the engine: already on the wire.
                    self.cc_abort.get_or_insert_with(|| own.to_string());
                } else {
                    h.abort(reason);
                    self.engine_abort.get_or_insert_with(|| reason.clone());
                }
            }
            Output::Event(Event::Impact(i)) => {
                self.sim_travel.push((i.target.clone(), i.dummy_travel_m));
            }
            Output::Event(_) => {}
        }
    }

    fn close<'a>(&'a mut self, end: &'a RunEnd, report: &'a mut RunReport) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let Some(h) = self.h.take() else { return };
            let aborted = end.outcome != crate::run::report::Outcome::Finished;
            if aborted && self.cc_abort.is_none() && self.engine_abort.is_none() {
                h.abort(end.reason.as_deref().unwrap_or("run failed"));
            }
            // The caller that keeps the control centre also stops it (its objects may still be
            // finishing their paths); an abort goes out here either way.
            let mut snap = if self.owned {
                stop_carriers(&h, aborted, self.opts.stop_timeout).await
            } else {
                h.snapshot()
            };
            // This run's events only.
            snap.events.drain(..self.events_from.min(snap.events.len()));
            let epoch = h.epoch();
            let abort_event = snap.events.iter().find_map(|e| match &e.kind {
                EventKind::Abort { reason } => Some((e.t_s, reason.clone())),
                _ => None,
            });
            let abort_after_last_sample_ms = match (abort_event.as_ref(), end.last_sample_wall) {
                (Some((t, _)), Some(w)) => {
                    let abort_wall = epoch + Duration::from_secs_f64(t.max(0.0));
                    Some(
                        (abort_wall.saturating_duration_since(w).as_secs_f64()
                            - w.saturating_duration_since(abort_wall).as_secs_f64())
                            * 1000.0,
                    )
                }
                _ => None,
            };
            if let Some((_, r)) = &abort_event {
                report.abort = Some(r.info());
            }
            report.carriers = Some(self.results(&snap, end, epoch));
            report.dispatch = Some(DispatchSummary {
                armed_after_s: self.armed_after_s,
                abort: self
                    .cc_abort
                    .clone()
                    .or_else(|| self.engine_abort.clone())
                    .or_else(|| abort_event.as_ref().map(|(_, r)| r.info().text)),
                abort_after_last_sample_ms,
                final_phase: snap.phase,
                starts: self.starts.clone(),
                events: snap.events.clone(),
            });
            if self.owned {
                h.shutdown().await;
            }
            for t in self.tasks.drain(..) {
                if !self.owned {
                    // The caller keeps the control centre: its event stream does not end.
                    t.abort();
                    continue;
                }
                if tokio::time::timeout(Duration::from_secs(1), t)
                    .await
                    .is_err()
                {
                    tracing::debug!("dispatch task still running after shutdown");
                }
            }
        })
    }
}

impl Drop for CarrierSink {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}
