//! Sans-IO safety supervisor: fed wall times (seconds since the control centre's epoch) and
//! observations, returns actions. No sockets, no clocks: unit-testable.
//!
//! Rules:
//! * Arm: only from Idle, only if every carrier is connected and DISARMED (or already ARMED);
//!   readyToArm matters only in DISARMED, where only an explicit 0 (not ready) blocks; 2
//!   (unavailable, what the stock RI-SE isoObject reports) arms with a warning event unless
//!   `arm_when_readiness_unavailable` is off. The phase becomes Armed when every carrier reports
//!   ARMED (the isoObject clears readyToArm to 0 on leaving DISARMED, so it is not asked again).
//!   Not all ARMED within `arm_timeout_s` → DISARM all, back to Idle.
//! * Start: every carrier at once only when Armed; one carrier when Armed, or Running and that
//!   carrier not started yet (several targets triggered one after the other).
//! * Retime (MTSP): only when Running and that carrier was started.
//! * Abort all carriers (HEAB ABORT) during Armed/Running when VUT telemetry is stale (no
//!   sample for `telemetry_stale_s`; the clock starts at the first sample after the arm request
//!   or at the start, never during arming), a carrier misses `monr_miss_limit` consecutive MONR,
//!   a carrier disconnects, reports ABORTING or leaves ARMED before its start; and in any phase
//!   on operator e-stop.
//! * Abort all carriers during Arming/Armed/Running when an object's MONR position breaks a
//!   motion rule ([`super::motion_watch`]: off its path, faster than planned, moving before its
//!   start, a position jump, outside the geofence): at the MONR that shows it.

use super::events::{AbortReason, EventKind, Phase};
use super::iso22133::{error_bits, CcStatus, ObjectState, OstmCommand, Readiness, Traj};
use super::motion_watch::{Geofence, MonrPos, MotionLimits, ObjectWatch, PathWatch};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::sync::Arc;

/// The most a carrier's MTSP origin is moved for its measured lag, s.
pub const MAX_LAG_COMPENSATION_S: f64 = 0.3;
/// The smallest lag compensation still in an MTSP that is taken back once the carrier's plan
/// cruises, s.
pub const RESEND_ORIGIN_S: f64 = 0.001;
/// How much earlier than its lag a lagging carrier's MTSP origin goes (see
/// `Supervisor::lag_compensation_s`).
pub const LAG_COMPENSATION_GAIN: f64 = 2.0;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SafetyConfig {
    /// Wall time without a new VUT sample after which an armed run is aborted.
    pub telemetry_stale_s: f64,
    /// Consecutive missing MONR (n ≥ 1) after which an armed run is aborted.
    pub monr_miss_limit: u32,
    /// Expected MONR period (1 / OSEM MONR rate).
    pub monr_period_s: f64,
    /// How long arming may take.
    pub arm_timeout_s: f64,
    /// Arm a DISARMED carrier whose MONR readyToArm is 2 (unavailable); recorded as a
    /// `readiness_unavailable` warning event. Off: only readyToArm = 1 arms.
    pub arm_when_readiness_unavailable: bool,
    /// Limits of the motion rules (path, speed, standing, position jumps).
    pub motion: MotionLimits,
    /// Move each MTSP origin earlier by the carrier's measured lag
    /// (`Supervisor::lag_compensation_s`): for objects that follow their uploaded TRAJ on
    /// its clock (a ground run's), not for carriers that run a profile of their own.
    pub lag_compensation: bool,
}

impl Default for SafetyConfig {
    fn default() -> Self {
        Self {
            telemetry_stale_s: 0.2,
            monr_miss_limit: 10,
            monr_period_s: 0.01,
            arm_timeout_s: 3.0,
            arm_when_readiness_unavailable: true,
            motion: MotionLimits::default(),
            lag_compensation: false,
        }
    }
}

impl SafetyConfig {
    pub fn validate(&self) -> Result<(), String> {
        if self.monr_miss_limit == 0 {
            return Err("monr_miss_limit must be at least 1 (real objects jitter)".into());
        }
        if !(self.telemetry_stale_s > 0.0 && self.telemetry_stale_s.is_finite()) {
            return Err("telemetry_stale_s must be positive".into());
        }
        if !(self.monr_period_s > 0.0 && self.monr_period_s.is_finite()) {
            return Err("monr_period_s must be positive".into());
        }
        if !(self.arm_timeout_s > 0.0 && self.arm_timeout_s.is_finite()) {
            return Err("arm_timeout_s must be positive".into());
        }
        self.motion.validate()
    }

    /// Time without MONR after which `monr_miss_limit` MONR count as missed (half a period of
    /// grace for jitter).
    pub fn monr_deadline_s(&self) -> f64 {
        (self.monr_miss_limit as f64 + 0.5) * self.monr_period_s
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Ostm {
        carrier: usize,
        command: OstmCommand,
    },
    /// Send STRT to this carrier at `at_s`.
    Strt {
        carrier: usize,
        at_s: f64,
    },
    /// Send MTSP to this carrier: its trajectory origin is now `origin_s`.
    Mtsp {
        carrier: usize,
        origin_s: f64,
    },
    /// Status every HEAB carries from now on (a change is sent at once).
    HeabStatus(CcStatus),
    Event {
        t_s: f64,
        kind: EventKind,
    },
}

#[derive(Debug, Clone)]
struct CarrierWatch {
    name: String,
    connected: bool,
    state: Option<ObjectState>,
    readiness: Readiness,
    last_monr_s: Option<f64>,
    missing_reported: bool,
    /// STRT requested since the last arm.
    started: bool,
    /// Why the link does not allow arming (a measure beyond its limit), if it does not.
    link_problem: Option<String>,
    /// Its STRT instant since the last arm.
    start_at_s: Option<f64>,
    /// The trajectory origin last asked for by a retime (before any lag compensation): the
    /// schedule it has been told to follow since.
    requested_origin_s: Option<f64>,
    /// The origin last sent in an MTSP (the one asked for less the lag compensation then).
    sent_origin_s: Option<f64>,
    /// Its motion against its TRAJ ([`super::motion_watch`]).
    watch: ObjectWatch,
}

#[derive(Debug)]
pub struct Supervisor {
    cfg: SafetyConfig,
    carriers: Vec<CarrierWatch>,
    phase: Phase,
    phase_since: f64,
    last_sample_s: Option<f64>,
    stale_reported: bool,
    /// HEAB NORMAL_STOP is being sent; back to READY once no carrier is Running any more (the
    /// isoObject treats NORMAL_STOP outside Running as an unexpected event, every heartbeat).
    normal_stop_sent: bool,
    actions: VecDeque<Action>,
    geofence: Option<Arc<Geofence>>,
}

impl Supervisor {
    pub fn new(cfg: SafetyConfig, carrier_names: Vec<String>) -> Result<Self, String> {
        cfg.validate()?;
        Ok(Self {
            cfg,
            carriers: carrier_names
                .into_iter()
                .map(|name| CarrierWatch {
                    name,
                    connected: false,
                    state: None,
                    readiness: Readiness::NotReady,
                    last_monr_s: None,
                    missing_reported: false,
                    started: false,
                    link_problem: None,
                    start_at_s: None,
                    requested_origin_s: None,
                    sent_origin_s: None,
                    watch: ObjectWatch::default(),
                })
                .collect(),
            phase: Phase::Idle,
            phase_since: 0.0,
            last_sample_s: None,
            stale_reported: false,
            normal_stop_sent: false,
            actions: VecDeque::new(),
            geofence: None,
        })
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn config(&self) -> &SafetyConfig {
        &self.cfg
    }

    /// Index of the carrier called `name`.
    pub fn carrier_index(&self, name: &str) -> Option<usize> {
        self.carriers.iter().position(|c| c.name == name)
    }

    fn event(&mut self, t_s: f64, kind: EventKind) {
        self.actions.push_back(Action::Event { t_s, kind });
    }

    fn set_phase(&mut self, now: f64, to: Phase) {
        if self.phase != to {
            let from = self.phase;
            self.phase = to;
            self.phase_since = now;
            self.stale_reported = false;
            self.event(now, EventKind::PhaseChanged { from, to });
        }
    }

    fn supervising(&self) -> bool {
        matches!(self.phase, Phase::Arming | Phase::Armed | Phase::Running)
    }

    fn abort(&mut self, now: f64, reason: AbortReason) {
        self.actions.push_back(Action::HeabStatus(CcStatus::Abort));
        self.event(now, EventKind::Abort { reason });
        self.set_phase(now, Phase::Aborted);
    }

    // --- observations -----------------------------------------------------------------------

    pub fn on_connected(&mut self, now: f64, carrier: usize) {
        let Some(c) = self.carriers.get_mut(carrier) else {
            return;
        };
        c.connected = true;
        c.last_monr_s = Some(now);
        c.missing_reported = false;
        let name = c.name.clone();
        self.event(now, EventKind::CarrierConnected { carrier: name });
    }

    pub fn on_disconnected(&mut self, now: f64, carrier: usize, reason: &str) {
        let Some(c) = self.carriers.get_mut(carrier) else {
            return;
        };
        if !c.connected {
            return;
        }
        c.connected = false;
        c.state = None;
        c.readiness = Readiness::NotReady;
        let name = c.name.clone();
        self.event(
            now,
            EventKind::CarrierDisconnected {
                carrier: name.clone(),
                reason: reason.to_string(),
            },
        );
        if self.supervising() {
            self.abort(now, AbortReason::CarrierDisconnected { carrier: name });
        }
    }

    /// A MONR arrived from `carrier`.
    pub fn on_monr(
        &mut self,
        now: f64,
        carrier: usize,
        state: ObjectState,
        readiness: impl Into<Readiness>,
        error_status: u8,
    ) {
        let Some(c) = self.carriers.get_mut(carrier) else {
            return;
        };
        c.last_monr_s = Some(now);
        c.missing_reported = false;
        c.readiness = readiness.into();
        let prev = c.state;
        let name = c.name.clone();
        if prev != Some(state) {
            c.state = Some(state);
            self.event(
                now,
                EventKind::CarrierState {
                    carrier: name.clone(),
                    from: prev,
                    to: state,
                },
            );
        }
        if self.supervising()
            && (state == ObjectState::Aborting || error_status & error_bits::ABORT_REQUEST != 0)
        {
            self.abort(now, AbortReason::CarrierAbort { carrier: name });
            return;
        }
        // Armed as one means every carrier ARMED in its latest MONR: one that leaves ARMED
        // before its start (disarmed locally, reset, an internal error) ends the armed run.
        if self.phase == Phase::Armed
            && !self.carriers[carrier].started
            && prev == Some(ObjectState::Armed)
            && state != ObjectState::Armed
        {
            self.abort(
                now,
                AbortReason::LeftArmed {
                    carrier: name,
                    state,
                },
            );
            return;
        }
        if self.phase == Phase::Arming
            && self
                .carriers
                .iter()
                .all(|c| c.state == Some(ObjectState::Armed))
        {
            self.set_phase(now, Phase::Armed);
            self.event(now, EventKind::Armed);
        }
        if self.normal_stop_sent
            && self.carriers.iter().all(|c| {
                !matches!(
                    c.state,
                    Some(ObjectState::Running | ObjectState::PreRunning)
                )
            })
        {
            self.normal_stop_sent = false;
            self.actions.push_back(Action::HeabStatus(CcStatus::Ready));
        }
    }

    /// The path `carrier` is to follow (its TRAJ, as uploaded).
    pub fn set_path(&mut self, carrier: usize, traj: &Traj) {
        if let Some(c) = self.carriers.get_mut(carrier) {
            c.watch.path = PathWatch::of_traj(traj);
        }
    }

    /// `carrier`'s own lateral limit (None: the site's).
    pub fn set_lateral_limit(&mut self, carrier: usize, limit_m: Option<f64>) {
        if let Some(c) = self.carriers.get_mut(carrier) {
            c.watch.lateral_m = limit_m;
        }
    }

    /// The site's geofence (None or empty: none).
    pub fn set_geofence(&mut self, fence: Option<Arc<Geofence>>) {
        self.geofence = fence.filter(|f| !f.is_empty());
    }

    /// A MONR position of `carrier` (after [`Self::on_monr`] with the same MONR), arrived at
    /// `now`, time-stamped `stamp_s` by the object (on the same clock): checked against the
    /// motion rules while the run is supervised.
    pub fn on_position(
        &mut self,
        now: f64,
        stamp_s: f64,
        carrier: usize,
        (x, y): (f64, f64),
        speed_mps: f64,
    ) {
        if !self.supervising() {
            return;
        }
        let limits = self.cfg.motion;
        let Some(c) = self.carriers.get_mut(carrier) else {
            return;
        };
        let m = MonrPos {
            t_s: now,
            x,
            y,
            speed_mps,
            armed: c.state == Some(ObjectState::Armed),
            started: c.start_at_s.is_some_and(|t| now >= t),
            start_s: c.start_at_s,
            stamp_s,
        };
        let was_at_speed = c.watch.at_speed;
        if let Some(reason) = c.watch.check(&c.name, m, &limits, self.geofence.as_ref()) {
            self.abort(now, reason);
            return;
        }
        // Its plan now cruises: an origin sent earlier for its launch lag is taken back (at
        // speed it keeps the plain schedule, see `lag_compensation_s`) even when no new
        // retime comes to carry it; left in place, it drove on that far ahead.
        let c = &mut self.carriers[carrier];
        if !was_at_speed && c.watch.at_speed && self.phase == Phase::Running {
            if let (Some(asked), Some(sent)) = (c.requested_origin_s, c.sent_origin_s) {
                if (asked - sent).abs() > RESEND_ORIGIN_S {
                    c.sent_origin_s = Some(asked);
                    self.actions.push_back(Action::Mtsp {
                        carrier,
                        origin_s: asked,
                    });
                }
            }
        }
    }

    /// How far `carrier` is behind its plan at its latest MONR, once started.
    pub fn lag(&self, carrier: usize) -> Option<super::motion_watch::Lag> {
        self.carriers.get(carrier).and_then(|c| c.watch.lag)
    }

    /// Whether `c` blocks arming: not connected, not DISARMED/ARMED, or DISARMED and not ready
    /// (readyToArm 0; 2 only when `arm_when_readiness_unavailable` is off).
    fn blocks_arming(&self, c: &CarrierWatch) -> bool {
        match c.state {
            _ if !c.connected => true,
            Some(ObjectState::Armed) => false,
            Some(ObjectState::Disarmed) => match c.readiness {
                Readiness::Ready => false,
                Readiness::NotReady => true,
                Readiness::Unavailable => !self.cfg.arm_when_readiness_unavailable,
            },
            _ => true,
        }
    }

    /// The carrier's link health judged against its limits: `Some(measure)` refuses arming.
    pub fn on_link(&mut self, carrier: usize, problem: Option<String>) {
        if let Some(c) = self.carriers.get_mut(carrier) {
            c.link_problem = problem;
        }
    }

    /// A new VUT telemetry sample arrived.
    pub fn on_sample(&mut self, now: f64) {
        self.last_sample_s = Some(now);
        self.stale_reported = false;
    }

    // --- commands ---------------------------------------------------------------------------

    pub fn request_arm(&mut self, now: f64) {
        self.event(now, EventKind::ArmRequested);
        if self.phase != Phase::Idle {
            let reason = format!("phase is {:?}", self.phase);
            self.event(now, EventKind::ArmRefused { reason });
            return;
        }
        if let Some(c) = self.carriers.iter().find(|c| self.blocks_arming(c)) {
            let ready = match c.readiness {
                Readiness::Ready => "true",
                Readiness::NotReady => "false",
                Readiness::Unavailable => "unavailable",
            };
            let reason = format!(
                "carrier {} not ready (connected {}, state {:?}, ready_to_arm {ready})",
                c.name, c.connected, c.state
            );
            self.event(now, EventKind::ArmRefused { reason });
            return;
        }
        if let Some(c) = self.carriers.iter().find(|c| c.link_problem.is_some()) {
            let reason = format!(
                "carrier {} link: {}",
                c.name,
                c.link_problem.as_deref().unwrap_or_default()
            );
            self.event(now, EventKind::ArmRefused { reason });
            return;
        }
        let unavailable: Vec<String> = self
            .carriers
            .iter()
            .filter(|c| {
                c.state == Some(ObjectState::Disarmed) && c.readiness == Readiness::Unavailable
            })
            .map(|c| c.name.clone())
            .collect();
        for carrier in unavailable {
            self.event(now, EventKind::ReadinessUnavailable { carrier });
        }
        // The staleness clock restarts: a sample from before this arm request does not count.
        self.last_sample_s = None;
        self.normal_stop_sent = false;
        for i in 0..self.carriers.len() {
            self.carriers[i].started = false;
            self.carriers[i].start_at_s = None;
            self.carriers[i].requested_origin_s = None;
            self.carriers[i].sent_origin_s = None;
            self.carriers[i].watch.reset();
            self.actions.push_back(Action::Ostm {
                carrier: i,
                command: OstmCommand::Arm,
            });
        }
        self.actions.push_back(Action::HeabStatus(CcStatus::Ready));
        self.set_phase(now, Phase::Arming);
    }

    pub fn request_disarm(&mut self, now: f64) {
        if matches!(
            self.phase,
            Phase::Arming | Phase::Armed | Phase::Idle | Phase::Finished
        ) {
            for i in 0..self.carriers.len() {
                self.actions.push_back(Action::Ostm {
                    carrier: i,
                    command: OstmCommand::Disarm,
                });
            }
            self.actions.push_back(Action::HeabStatus(CcStatus::Ready));
            self.set_phase(now, Phase::Idle);
        }
    }

    /// Start every carrier at `at_s` (≥ now; earlier means now).
    pub fn request_start(&mut self, now: f64, at_s: f64) {
        if self.phase != Phase::Armed {
            let reason = format!("phase is {:?}, not armed", self.phase);
            self.event(now, EventKind::StartRefused { reason });
            return;
        }
        let at_s = at_s.max(now);
        for i in 0..self.carriers.len() {
            self.carriers[i].started = true;
            self.carriers[i].start_at_s = Some(at_s);
            self.carriers[i].requested_origin_s = None;
            self.carriers[i].sent_origin_s = None;
            self.actions.push_back(Action::Strt { carrier: i, at_s });
            let carrier = self.carriers[i].name.clone();
            self.event(now, EventKind::StartScheduled { carrier, at_s });
        }
        self.actions
            .push_back(Action::HeabStatus(CcStatus::Running));
        self.set_phase(now, Phase::Running);
    }

    /// Start one carrier at `at_s` (≥ now; earlier means now): when Armed (the run starts), or
    /// when Running and this carrier has not been started yet.
    pub fn request_start_carrier(&mut self, now: f64, carrier: usize, at_s: f64) {
        let Some(c) = self.carriers.get(carrier) else {
            let reason = format!("no carrier #{carrier}");
            self.event(now, EventKind::StartRefused { reason });
            return;
        };
        let ok = match self.phase {
            Phase::Armed => true,
            Phase::Running => !c.started,
            _ => false,
        };
        if !ok {
            let reason = if c.started {
                format!("carrier {} already started", c.name)
            } else {
                format!("phase is {:?}, not armed", self.phase)
            };
            self.event(now, EventKind::StartRefused { reason });
            return;
        }
        let at_s = at_s.max(now);
        let name = c.name.clone();
        self.carriers[carrier].started = true;
        self.carriers[carrier].start_at_s = Some(at_s);
        self.carriers[carrier].requested_origin_s = None;
        self.carriers[carrier].sent_origin_s = None;
        self.actions.push_back(Action::Strt { carrier, at_s });
        self.event(
            now,
            EventKind::StartScheduled {
                carrier: name,
                at_s,
            },
        );
        if self.phase == Phase::Armed {
            self.actions
                .push_back(Action::HeabStatus(CcStatus::Running));
            self.set_phase(now, Phase::Running);
        }
    }

    /// Move a started carrier's trajectory origin to `origin_s` (MTSP). Only while Running.
    pub fn request_retime(&mut self, now: f64, carrier: usize, origin_s: f64) {
        let refused = match self.carriers.get(carrier) {
            None => Some((format!("#{carrier}"), "no such carrier".to_string())),
            Some(c) if self.phase != Phase::Running => Some((
                c.name.clone(),
                format!("phase is {:?}, not running", self.phase),
            )),
            Some(c) if !c.started => Some((c.name.clone(), "carrier not started".to_string())),
            Some(_) => None,
        };
        match refused {
            Some((carrier, reason)) => {
                self.event(now, EventKind::RetimeRefused { carrier, reason })
            }
            None => {
                let sent = origin_s - self.lag_compensation_s(carrier);
                self.carriers[carrier].requested_origin_s = Some(origin_s);
                self.carriers[carrier].sent_origin_s = Some(sent);
                let origin_s = sent;
                self.actions.push_back(Action::Mtsp { carrier, origin_s })
            }
        }
    }

    /// How much earlier than the origin asked for a carrier's MTSP origin goes, s: its lag
    /// behind the schedule it was last told to follow (its STRT's, or the previous retime's),
    /// as measured live from its MONR (times [`LAG_COMPENSATION_GAIN`], within
    /// ±[`MAX_LAG_COMPENSATION_S`]). A platform that tracks its trajectory's clock with a
    /// position controller trails it while it accelerates and makes the lag up only slowly;
    /// told earlier, it sees its lag several times over and makes it up before the sync
    /// point instead of carrying it there. Once on schedule, and once its plan cruises, it is
    /// told the plain origin again: at speed inside the validity window a target must hold
    /// its speed within the protocol's tolerance, and the engine's retimes already use that
    /// tolerance; the gain on top drove it 1–2 km/h over. A retime it has not had the time
    /// to follow is not lag either: counting it would multiply every retime by the gain.
    fn lag_compensation_s(&self, carrier: usize) -> f64 {
        let Some(c) = self
            .carriers
            .get(carrier)
            .filter(|_| self.cfg.lag_compensation)
        else {
            return 0.0;
        };
        match (c.watch.lag, c.start_at_s) {
            // At its speed its own controller and the engine's synchronisation (within the
            // speed tolerance) keep it on schedule.
            _ if c.watch.at_speed => 0.0,
            // Its lag is measured against its STRT's schedule; the one it was told to follow
            // is `given - start` later.
            (Some(lag), Some(start)) if lag.s != 0.0 => {
                let given = c.requested_origin_s.unwrap_or(start);
                (LAG_COMPENSATION_GAIN * (lag.s - (given - start)))
                    .clamp(-MAX_LAG_COMPENSATION_S, MAX_LAG_COMPENSATION_S)
            }
            _ => 0.0,
        }
    }

    /// Operator e-stop: abort all carriers whatever the phase.
    pub fn estop(&mut self, now: f64, reason: &str) {
        self.abort(
            now,
            AbortReason::Estop {
                reason: reason.to_string(),
            },
        );
    }

    /// Normal end of a run: HEAB NORMAL_STOP.
    pub fn finish(&mut self, now: f64) {
        if self.phase == Phase::Running {
            self.actions
                .push_back(Action::HeabStatus(CcStatus::NormalStop));
            self.normal_stop_sent = true;
            self.set_phase(now, Phase::Finished);
        }
    }

    /// After an abort: HEAB back to READY while still aborted (before ALL_CLEAR, so that no
    /// HEAB ABORT reaches an object after its ALL_CLEAR).
    pub fn heab_ready(&mut self) {
        if self.phase == Phase::Aborted {
            self.actions.push_back(Action::HeabStatus(CcStatus::Ready));
        }
    }

    /// After an abort or a finished run: ALL_CLEAR to every carrier, back to Idle.
    pub fn all_clear(&mut self, now: f64) {
        if matches!(self.phase, Phase::Aborted | Phase::Finished) {
            for i in 0..self.carriers.len() {
                self.actions.push_back(Action::Ostm {
                    carrier: i,
                    command: OstmCommand::AllClear,
                });
            }
            self.normal_stop_sent = false;
            self.actions.push_back(Action::HeabStatus(CcStatus::Ready));
            self.event(now, EventKind::AllClear);
            self.set_phase(now, Phase::Idle);
        }
    }

    // --- time -------------------------------------------------------------------------------

    pub fn poll_timeout(&self) -> Option<f64> {
        let mut t: Option<f64> = None;
        let mut min = |x: f64| t = Some(t.map_or(x, |t: f64| t.min(x)));
        if self.supervising() {
            if let Some(since) = self.stale_since() {
                min(since + self.cfg.telemetry_stale_s);
            }
            if self.phase == Phase::Arming {
                min(self.phase_since + self.cfg.arm_timeout_s);
            }
        }
        for c in &self.carriers {
            if c.connected && !c.missing_reported {
                if let Some(last) = c.last_monr_s {
                    min(last + self.cfg.monr_deadline_s());
                }
            }
        }
        t
    }

    /// When the stale-telemetry clock started: the last sample (none before the arm request
    /// counts), else the start; `None` while arming, before a first sample while armed, outside
    /// supervision, or once reported.
    fn stale_since(&self) -> Option<f64> {
        if self.stale_reported {
            return None;
        }
        match self.phase {
            Phase::Armed => self.last_sample_s,
            Phase::Running => Some(self.last_sample_s.unwrap_or(self.phase_since)),
            _ => None,
        }
    }

    pub fn handle_timeout(&mut self, now: f64) {
        if let Some(since) = self.stale_since() {
            let age = now - since;
            if age >= self.cfg.telemetry_stale_s - 1e-9 {
                self.stale_reported = true;
                self.event(now, EventKind::TelemetryStale { age_s: age });
                let limit_s = self.cfg.telemetry_stale_s;
                self.abort(
                    now,
                    AbortReason::TelemetryStale {
                        age_s: age,
                        limit_s,
                    },
                );
                return;
            }
        }
        if self.phase == Phase::Arming && now >= self.phase_since + self.cfg.arm_timeout_s - 1e-9 {
            for i in 0..self.carriers.len() {
                self.actions.push_back(Action::Ostm {
                    carrier: i,
                    command: OstmCommand::Disarm,
                });
            }
            self.event(
                now,
                EventKind::ArmRefused {
                    reason: "not every carrier reported ARMED in time".into(),
                },
            );
            self.set_phase(now, Phase::Idle);
        }
        let deadline = self.cfg.monr_deadline_s();
        let period = self.cfg.monr_period_s;
        for i in 0..self.carriers.len() {
            let c = &self.carriers[i];
            let Some(last) = c.last_monr_s else { continue };
            if !c.connected || c.missing_reported || now - last < deadline - 1e-9 {
                continue;
            }
            let missed = ((now - last) / period).floor() as u32;
            let name = c.name.clone();
            self.carriers[i].missing_reported = true;
            self.event(
                now,
                EventKind::MonrMissing {
                    carrier: name.clone(),
                    missed,
                },
            );
            if self.supervising() {
                self.abort(
                    now,
                    AbortReason::MonrLost {
                        carrier: name,
                        missed,
                    },
                );
            }
        }
    }

    pub fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }
}

#[cfg(test)]
#[path = "safety_interop_tests.rs"]
mod interop_tests;

#[cfg(test)]
#[path = "safety_tests.rs"]
mod tests;
