//! Sans-IO ISO 22133 test object: the carrier simulator's logic.
//!
//! Fed TCP messages, HEAB and time (monotonic seconds); returns MONR to send, disconnects and
//! state-change notes. The tokio shell in [`super::carrier_sim`] owns the sockets.
//!
//! States: TCP accept → DISARMED; OSTM ARM → ARMED; STRT → RUNNING (motion from the start
//! time); end of trajectory or HEAB NORMAL_STOP/TEST_DONE → POSTRUN; HEAB ABORT → ABORTING
//! (the dummy stops where it is); OSTM ALL_CLEAR → DISARMED; OSTM DISARM → DISARMED (not while
//! RUNNING/ABORTING); no HEAB for the heartbeat timeout (10 HEAB periods unless OSEM sets one)
//! → INIT and the connection is dropped.
//!
//! MTSP (while RUNNING): scil's convention is that the sync point is the trajectory's origin
//! (TRAJ relative time 0), so the MTSP time is the instant the trajectory should have started.
//! The object moves its time origin there when the shift is within
//! [`ObjectConfig::max_mtsp_shift_s`] (a re-timing of a few ms, absorbed while the dummy still
//! accelerates from rest); a larger shift, an "unavailable" time or MTSP outside RUNNING is
//! rejected and the motion is unchanged.

use super::iso22133::{
    error_bits, CcStatus, Heab, Message, Monr, Mtsp, ObjectState, OstmCommand, Strt, Traj, STRT_NOW,
};
use super::object_dynamics::{Dynamics, Plant, Reference};
use super::object_faults::{self, Fault, FaultFrom, FaultKind};
use super::profile::{yaw_to_cdeg, DummyProfile, MotionState, TrajFollower};
use std::collections::VecDeque;

use super::iso22133::QMS_PER_WEEK;

#[derive(Debug, Clone)]
pub struct ObjectConfig {
    /// Transmitter id until OSEM assigns one.
    pub id: u32,
    /// Motion without an uploaded TRAJ.
    pub profile: DummyProfile,
    /// MONR rate until OSEM sets one.
    pub monr_rate_hz: u16,
    /// HEAB rate assumed until OSEM sets one.
    pub heab_rate_hz: u16,
    /// Report ready-to-arm.
    pub ready_to_arm: bool,
    /// Report readyToArm like the stock RI-SE isoObject demo (`ISO_objectDemo`): 2
    /// (unavailable) in Disarmed, 0 in every other state (the library clears it on leaving
    /// Disarmed); ARM is accepted in Disarmed whatever the flag says.
    pub isoobject_readiness: bool,
    /// Honour MTSP (false: ignore it, as an object without synchronisation support would).
    pub honour_mtsp: bool,
    /// Largest trajectory time-origin shift accepted from MTSP, seconds.
    pub max_mtsp_shift_s: f64,
    /// Faults to show ([`super::object_faults`]); none by default.
    pub faults: Vec<Fault>,
    /// How it differs from a perfect follower (dead time, limits, position controller,
    /// wander, RTK error, MONR latency); the default is the perfect follower.
    pub dynamics: Dynamics,
}

impl Default for ObjectConfig {
    fn default() -> Self {
        Self {
            id: 1,
            profile: DummyProfile::from_scenario(0.0, 0.0, 0.0, 1.0, 5.0),
            monr_rate_hz: 100,
            heab_rate_hz: 100,
            ready_to_arm: true,
            isoobject_readiness: false,
            honour_mtsp: true,
            max_mtsp_shift_s: 0.1,
            faults: Vec::new(),
            dynamics: Dynamics::default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum ObjectOutput {
    /// Send this MONR to the last HEAB source.
    Monr(Monr),
    /// Drop the TCP connection.
    Disconnect { reason: String },
    /// Informational: state changed at `t_s`.
    StateChanged {
        t_s: f64,
        from: ObjectState,
        to: ObjectState,
        cause: String,
    },
    /// MTSP moved the trajectory's time origin by `shift_s` (positive = later).
    Retimed { t_s: f64, shift_s: f64 },
    /// A message was ignored (wrong state, invalid content).
    Rejected {
        t_s: f64,
        message: &'static str,
        reason: String,
    },
}

#[derive(Debug, Clone)]
enum Motion {
    Profile(DummyProfile),
    Traj(TrajFollower),
}

impl Motion {
    fn at(&self, t: f64) -> MotionState {
        match self {
            Motion::Profile(p) => p.at(t),
            Motion::Traj(f) => f.at(t),
        }
    }
    fn duration(&self) -> f64 {
        match self {
            Motion::Profile(p) => p.duration_s(),
            Motion::Traj(f) => f.duration_s(),
        }
    }
    /// Its states sampled for a plant to track: the TRAJ's own points, a built-in profile
    /// every 10 ms.
    fn reference(&self) -> Option<Reference> {
        let samples: Vec<(f64, MotionState)> = match self {
            Motion::Traj(f) => f.states(),
            Motion::Profile(p) => {
                let end = p.duration_s();
                let n = (end / 0.01).ceil() as usize;
                (0..=n)
                    .map(|i| {
                        let t = (i as f64 * 0.01).min(end);
                        let mut m = p.at(t);
                        if t > 0.0 && t < end {
                            m.speed_mps = p.motion.speed(t);
                        }
                        (t, m)
                    })
                    .collect()
            }
        };
        Reference::from_states(&samples)
    }
}

#[derive(Debug)]
pub struct TestObject {
    cfg: ObjectConfig,
    id: u32,
    state: ObjectState,
    connected: bool,
    monr_period_s: f64,
    heab_timeout_s: f64,
    last_heab_at: f64,
    heab_seen: bool,
    next_monr_at: f64,
    motion: Motion,
    start_at: Option<f64>,
    /// When it last became ARMED (faults count from it).
    armed_at: Option<f64>,
    /// The disconnect fault has fired.
    dropped: bool,
    frozen: Option<MotionState>,
    /// GPS seconds of week at monotonic time 0.
    gps_base_s: f64,
    outputs: VecDeque<ObjectOutput>,
    pub monr_sent: u64,
    pub heab_received: u64,
    /// HEAB NORMAL_STOP/TEST_DONE outside Running: the isoObject logs "unexpected event 'soft
    /// stop requested' in state NormalStop" for each one.
    pub unexpected_heab: u64,
    /// The simulated platform when its dynamics are not the perfect follower's.
    plant: Option<Plant>,
    /// MONR measured but not yet sent (latency): (when due, MONR).
    late: VecDeque<(f64, Monr)>,
}

impl TestObject {
    pub fn new(cfg: ObjectConfig, gps_base_s: f64) -> Self {
        let monr_period_s = 1.0 / cfg.monr_rate_hz.max(1) as f64;
        let heab_timeout_s = 10.0 / cfg.heab_rate_hz.max(1) as f64;
        Self {
            id: cfg.id,
            motion: Motion::Profile(cfg.profile.clone()),
            cfg,
            state: ObjectState::Init,
            connected: false,
            monr_period_s,
            heab_timeout_s,
            last_heab_at: 0.0,
            heab_seen: false,
            next_monr_at: 0.0,
            start_at: None,
            armed_at: None,
            dropped: false,
            frozen: None,
            gps_base_s,
            outputs: VecDeque::new(),
            monr_sent: 0,
            heab_received: 0,
            unexpected_heab: 0,
            plant: None,
            late: VecDeque::new(),
        }
    }

    /// The plant tracks the motion (not the exact interpolation).
    fn plant_moves(&self) -> bool {
        self.plant.is_some() && !self.cfg.dynamics.motion_is_perfect()
    }

    /// A new plant (or the current one, its random state kept) on the current motion.
    fn reset_plant(&mut self, now: f64) {
        if self.cfg.dynamics == Dynamics::default() {
            return;
        }
        let Some(r) = self.motion.reference() else {
            return;
        };
        match &mut self.plant {
            Some(p) => p.set_reference(r, now),
            None => self.plant = Some(Plant::new(self.cfg.dynamics.clone(), r, now)),
        }
    }

    fn advance_plant(&mut self, now: f64) {
        if let Some(p) = &mut self.plant {
            p.advance(now);
        }
    }

    /// The object stops moving: a plant brakes at its deceleration, a perfect follower
    /// freezes where it is.
    fn halt(&mut self, now: f64) {
        self.frozen = Some(self.motion_at(now));
        if let Some(p) = &mut self.plant {
            p.brake(now);
        }
    }

    pub fn state(&self) -> ObjectState {
        self.state
    }
    pub fn id(&self) -> u32 {
        self.id
    }
    pub fn is_connected(&self) -> bool {
        self.connected
    }
    pub fn heab_timeout_s(&self) -> f64 {
        self.heab_timeout_s
    }
    pub fn monr_period_s(&self) -> f64 {
        self.monr_period_s
    }

    fn set_state(&mut self, now: f64, to: ObjectState, cause: &str) {
        if to != self.state {
            let from = self.state;
            self.state = to;
            if to == ObjectState::Armed {
                self.armed_at = Some(now);
            }
            self.outputs.push_back(ObjectOutput::StateChanged {
                t_s: now,
                from,
                to,
                cause: cause.to_string(),
            });
        }
    }

    fn reject(&mut self, now: f64, message: &'static str, reason: impl Into<String>) {
        self.outputs.push_back(ObjectOutput::Rejected {
            t_s: now,
            message,
            reason: reason.into(),
        });
    }

    /// A control centre connected over TCP.
    pub fn handle_connected(&mut self, now: f64) {
        self.connected = true;
        self.last_heab_at = now;
        self.heab_seen = false;
        self.start_at = None;
        self.frozen = None;
        self.motion = Motion::Profile(self.cfg.profile.clone());
        self.reset_plant(now);
        self.next_monr_at = now;
        self.set_state(now, ObjectState::Disarmed, "connected");
    }

    /// The TCP connection closed.
    pub fn handle_disconnected(&mut self, now: f64) {
        if self.connected {
            self.connected = false;
            self.heab_seen = false;
            self.set_state(now, ObjectState::Init, "disconnected");
        }
    }

    /// A message from the TCP control channel.
    pub fn handle_tcp(&mut self, now: f64, msg: &Message) {
        self.advance_plant(now);
        match msg {
            Message::Osem(osem) => {
                if let Some(l) = &osem.limits {
                    if l.monr_rate_hz == 0 || l.heab_rate_hz == 0 {
                        self.reject(now, "OSEM", "rate 0 Hz");
                        return;
                    }
                    self.monr_period_s = 1.0 / l.monr_rate_hz as f64;
                    self.heab_timeout_s = if l.heab_timeout_10ms > 0 {
                        l.heab_timeout_10ms as f64 * 0.01
                    } else {
                        10.0 / l.heab_rate_hz as f64
                    };
                }
                if osem.ids.device_id != 0 {
                    self.id = osem.ids.device_id;
                }
            }
            Message::Ostm(ostm) => match (ostm.command, self.state) {
                (OstmCommand::Arm, ObjectState::Disarmed) => {
                    if self.cfg.ready_to_arm || self.cfg.isoobject_readiness {
                        self.set_state(now, ObjectState::Armed, "OSTM ARM");
                    } else {
                        self.reject(now, "OSTM", "not ready to arm");
                    }
                }
                (
                    OstmCommand::Disarm,
                    ObjectState::Armed | ObjectState::Postrun | ObjectState::Disarmed,
                ) => {
                    self.start_at = None;
                    self.frozen = None;
                    self.set_state(now, ObjectState::Disarmed, "OSTM DISARM");
                }
                (OstmCommand::AllClear, ObjectState::Aborting | ObjectState::Postrun) => {
                    self.start_at = None;
                    self.frozen = None;
                    self.set_state(now, ObjectState::Disarmed, "OSTM ALL_CLEAR");
                }
                (cmd, st) => self.reject(now, "OSTM", format!("{cmd:?} in {st:?}")),
            },
            Message::Strt(strt) => self.handle_strt(now, strt),
            Message::Traj(traj) => self.handle_traj(now, traj),
            Message::Heab(h) => self.handle_heab(now, h),
            Message::Mtsp(m) => self.handle_mtsp(now, m),
            other => self.reject(now, other.name(), "not handled on TCP"),
        }
    }

    fn handle_traj(&mut self, now: f64, traj: &Traj) {
        if !matches!(self.state, ObjectState::Disarmed | ObjectState::Armed) {
            self.reject(now, "TRAJ", format!("in {:?}", self.state));
            return;
        }
        match TrajFollower::new(traj) {
            Some(f) => {
                self.motion = Motion::Traj(f);
                self.reset_plant(now);
            }
            None => self.reject(now, "TRAJ", "no points"),
        }
    }

    fn handle_strt(&mut self, now: f64, strt: &Strt) {
        if self.state != ObjectState::Armed {
            self.reject(now, "STRT", format!("in {:?}", self.state));
            return;
        }
        let start = if strt.start_qms_of_week == STRT_NOW {
            now
        } else {
            // A start time in the past (transport delay) is honoured up to 1 s.
            now + (self.local_time_of(now, strt.start_qms_of_week) - now).max(-1.0)
        };
        self.start_at = Some(start);
        self.frozen = None;
        if let Some(p) = &mut self.plant {
            p.start(now, start);
        }
        self.set_state(now, ObjectState::Running, "STRT");
    }

    /// Local (monotonic) time of a GPS qms-of-week instant, the nearest one around `now`
    /// (wrapping around the week).
    fn local_time_of(&self, now: f64, qms: u32) -> f64 {
        now + super::iso22133::qms_delta_s(qms, self.gps_qms(now) as f64)
    }

    fn handle_mtsp(&mut self, now: f64, m: &Mtsp) {
        if !self.cfg.honour_mtsp {
            self.reject(now, "MTSP", "synchronisation not supported");
            return;
        }
        let (ObjectState::Running, Some(t0)) = (self.state, self.start_at) else {
            self.reject(now, "MTSP", format!("in {:?}", self.state));
            return;
        };
        if m.estimated_sync_qms_of_week == u32::MAX {
            self.reject(now, "MTSP", "sync-point time unavailable");
            return;
        }
        let origin = self.local_time_of(now, m.estimated_sync_qms_of_week);
        let shift = origin - t0;
        // Written negated on purpose: a NaN shift is refused too.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        let refused = !(shift.abs() <= self.cfg.max_mtsp_shift_s);
        if refused {
            self.reject(
                now,
                "MTSP",
                format!(
                    "shift {:+.1} ms beyond ±{:.0} ms",
                    shift * 1000.0,
                    self.cfg.max_mtsp_shift_s * 1000.0
                ),
            );
            return;
        }
        self.start_at = Some(origin);
        if let Some(p) = &mut self.plant {
            p.start(now, origin);
        }
        self.outputs.push_back(ObjectOutput::Retimed {
            t_s: now,
            shift_s: shift,
        });
    }

    /// Trajectory time origin (local seconds) while started.
    pub fn start_time(&self) -> Option<f64> {
        self.start_at
    }

    /// A HEAB from the UDP process channel.
    pub fn handle_heab(&mut self, now: f64, heab: &Heab) {
        self.heab_received += 1;
        if !self.connected {
            return;
        }
        self.advance_plant(now);
        self.last_heab_at = now;
        if !self.heab_seen {
            self.heab_seen = true;
            self.next_monr_at = now;
        }
        match heab.status {
            CcStatus::Abort
                if !matches!(
                    self.state,
                    ObjectState::Aborting
                        | ObjectState::Disarmed
                        | ObjectState::Init
                        | ObjectState::Off
                ) =>
            {
                self.halt(now);
                self.set_state(now, ObjectState::Aborting, "HEAB ABORT");
            }
            CcStatus::NormalStop | CcStatus::TestDone if self.state == ObjectState::Running => {
                self.halt(now);
                self.set_state(now, ObjectState::Postrun, "HEAB stop");
            }
            CcStatus::NormalStop | CcStatus::TestDone => {
                // Like the isoObject's state machine: not a transition from this state.
                self.unexpected_heab += 1;
                if self.unexpected_heab == 1 {
                    let state = self.state;
                    self.reject(
                        now,
                        "HEAB",
                        format!("unexpected event 'soft stop requested' in state {state:?}"),
                    );
                }
            }
            _ => {}
        }
    }

    fn motion_at(&self, now: f64) -> MotionState {
        if let (true, Some(p)) = (self.plant_moves(), &self.plant) {
            return p.state();
        }
        if let Some(f) = self.frozen {
            return MotionState {
                speed_mps: 0.0,
                accel_mps2: 0.0,
                ..f
            };
        }
        match (self.state, self.start_at) {
            (ObjectState::Running, Some(t0)) => {
                let (t, k) = self.overspeed(now - t0);
                let m = self.motion.at(t);
                MotionState {
                    speed_mps: m.speed_mps * k,
                    ..m
                }
            }
            _ => self.motion.at(0.0),
        }
    }

    /// Trajectory time at `t` s after the start and the speed factor, with an overspeed fault
    /// (its factor from its onset on).
    fn overspeed(&self, t: f64) -> (f64, f64) {
        for f in &self.cfg.faults {
            if let FaultKind::Overspeed { factor } = f.what {
                let t0 = match f.from {
                    FaultFrom::Start => f.after_s,
                    FaultFrom::Armed => 0.0,
                };
                if t > t0 {
                    return (t0 + (t - t0) * factor, factor);
                }
            }
        }
        (t, 1.0)
    }

    fn fault_on(&self, now: f64, kind: impl Fn(&FaultKind) -> bool) -> bool {
        self.cfg
            .faults
            .iter()
            .any(|f| kind(&f.what) && f.on_for(now, self.armed_at, self.start_at).is_some())
    }

    fn gps_qms(&self, now: f64) -> u32 {
        (((self.gps_base_s + now) * 4000.0).rem_euclid(QMS_PER_WEEK)) as u32
    }

    /// Current MONR content.
    pub fn monr(&self, now: f64) -> Monr {
        let m = self.motion_at(now);
        // Faults that move the reported position to the right of the heading.
        let side = object_faults::sideways_m(&self.cfg.faults, now, self.armed_at, self.start_at);
        let (x, y) = (m.x + side * m.yaw_rad.sin(), m.y - side * m.yaw_rad.cos());
        Monr {
            time_qms_of_week: self.gps_qms(now),
            x_mm: (x * 1000.0).round() as i32,
            y_mm: (y * 1000.0).round() as i32,
            z_mm: 0,
            yaw_cdeg: yaw_to_cdeg(m.yaw_rad),
            pitch_cdeg: 0,
            roll_cdeg: 0,
            speed_lon_cm_s: (m.speed_mps * 100.0).round().clamp(-32768.0, 32767.0) as i16,
            speed_lat_cm_s: 0,
            acc_lon_mm_s2: (m.accel_mps2 * 1000.0).round().clamp(-32768.0, 32767.0) as i16,
            acc_lat_mm_s2: 0,
            drive_direction: 0,
            state: self.state.to_u8(),
            ready_to_arm: match (self.cfg.isoobject_readiness, self.state) {
                (true, ObjectState::Disarmed) => 2,
                (true, _) => 0,
                (false, _) => u8::from(self.cfg.ready_to_arm),
            },
            error_status: if self.state == ObjectState::Aborting {
                error_bits::ABORT_REQUEST
            } else {
                0
            },
            error_code: 0,
        }
    }

    /// Next instant `handle_timeout` has work to do.
    pub fn poll_timeout(&self) -> Option<f64> {
        if !self.connected {
            return None;
        }
        let hb = self.last_heab_at + self.heab_timeout_s;
        let mut t = hb;
        if self.heab_seen {
            t = t.min(self.next_monr_at);
        }
        if let (ObjectState::Running, Some(t0), false) =
            (self.state, self.start_at, self.plant_moves())
        {
            t = t.min(t0 + self.motion.duration());
        }
        if let Some((due, _)) = self.late.front() {
            t = t.min(*due);
        }
        Some(t)
    }

    pub fn handle_timeout(&mut self, now: f64) {
        if !self.connected {
            return;
        }
        self.advance_plant(now);
        while self.late.front().is_some_and(|(due, _)| *due <= now) {
            if let Some((_, m)) = self.late.pop_front() {
                self.outputs.push_back(ObjectOutput::Monr(m));
            }
        }
        if now >= self.last_heab_at + self.heab_timeout_s {
            self.connected = false;
            self.heab_seen = false;
            self.late.clear();
            self.halt(now);
            self.set_state(now, ObjectState::Init, "heartbeat timeout");
            self.outputs.push_back(ObjectOutput::Disconnect {
                reason: "heartbeat timeout".into(),
            });
            return;
        }
        if let (ObjectState::Running, Some(t0)) = (self.state, self.start_at) {
            if self.plant_moves() {
                if self.plant.as_ref().is_some_and(Plant::finished) {
                    self.halt(now);
                    self.set_state(now, ObjectState::Postrun, "end of trajectory");
                }
            } else if now >= t0 + self.motion.duration() {
                self.frozen = Some(self.motion.at(self.motion.duration()));
                self.set_state(now, ObjectState::Postrun, "end of trajectory");
            }
        }
        if !self.dropped && self.fault_on(now, |k| *k == FaultKind::Disconnect) {
            self.dropped = true;
            self.connected = false;
            self.heab_seen = false;
            self.set_state(now, ObjectState::Init, "disconnect fault");
            self.outputs.push_back(ObjectOutput::Disconnect {
                reason: "disconnect fault".into(),
            });
            return;
        }
        if self.heab_seen && now >= self.next_monr_at {
            if !self.fault_on(now, |k| *k == FaultKind::MonrStop) {
                let mut m = self.monr(now);
                match &mut self.plant {
                    Some(p) => {
                        // What its RTK measures, sent when its latency has passed.
                        let (ex, ey) = p.rtk_error();
                        m.x_mm = m.x_mm.saturating_add((ex * 1000.0).round() as i32);
                        m.y_mm = m.y_mm.saturating_add((ey * 1000.0).round() as i32);
                        let due = now + p.latency();
                        let due = self.late.back().map_or(due, |(d, _)| due.max(*d));
                        if due <= now {
                            self.outputs.push_back(ObjectOutput::Monr(m));
                        } else {
                            self.late.push_back((due, m));
                        }
                    }
                    None => self.outputs.push_back(ObjectOutput::Monr(m)),
                }
                self.monr_sent += 1;
            }
            self.next_monr_at += self.monr_period_s;
            if self.next_monr_at < now {
                // fell behind (scheduler stall): skip, do not burst
                self.next_monr_at = now + self.monr_period_s;
            }
        }
    }

    pub fn poll_output(&mut self) -> Option<ObjectOutput> {
        self.outputs.pop_front()
    }
}

#[cfg(test)]
#[path = "object_tests.rs"]
mod tests;
