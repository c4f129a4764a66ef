//! Dispatch events: every state change, with a timestamp (seconds since the control centre's
//! epoch, wall-clock monotonic). Serialisable for logs, the JSON result and the twin.

use super::iso22133::ObjectState;
use serde::{Deserialize, Serialize};

/// Control-centre phase (the safety supervisor's state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Idle,
    Arming,
    Armed,
    Running,
    Finished,
    Aborted,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AbortReason {
    /// No VUT sample for longer than the limit during an armed run.
    TelemetryStale { age_s: f64, limit_s: f64 },
    /// A carrier missed n consecutive MONR.
    MonrLost { carrier: String, missed: u32 },
    /// The TCP connection to a carrier dropped during an armed run.
    CarrierDisconnected { carrier: String },
    /// A carrier reported ABORTING or an abort request.
    CarrierAbort { carrier: String },
    /// Operator e-stop (or a command from the scenario engine).
    Estop { reason: String },
    /// A carrier left ARMED before it was started (the run is no longer armed as one).
    LeftArmed { carrier: String, state: ObjectState },
    /// An object farther from its own path than the limit (positive: left of it).
    PathDeviation {
        carrier: String,
        lateral_m: f64,
        limit_m: f64,
    },
    /// An object faster than its plan where it is, by more than the limit.
    Overspeed {
        carrier: String,
        speed_mps: f64,
        planned_mps: f64,
        limit_mps: f64,
    },
    /// An object moved from where it stood while it should stand (armed, not started).
    MovedBeforeStart {
        carrier: String,
        moved_m: f64,
        limit_m: f64,
    },
    /// An object's position jumped between two MONR by more than its speed explains.
    PositionJump {
        carrier: String,
        jump_m: f64,
        limit_m: f64,
    },
    /// An object left the permitted area or entered a forbidden zone (`zone` in words).
    Geofence {
        carrier: String,
        x: f64,
        y: f64,
        zone: String,
    },
}

/// An abort as data and in words: what the results, `GET /runs/{id}` and the dashboard show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AbortInfo {
    /// The rule: `path_deviation`, `overspeed`, `moved_before_start`, `position_jump`,
    /// `geofence`, `monr_lost`, `carrier_disconnected`, `carrier_abort`, `left_armed`,
    /// `telemetry_stale`, `operator`, `run`.
    pub kind: String,
    /// The object it names, if it names one.
    pub object: Option<String>,
    /// The measured quantity (metres, m/s, seconds or MONR, as `text` says).
    pub value: Option<f64>,
    /// Its limit, in the same unit.
    pub limit: Option<f64>,
    /// One sentence for people, e.g. "ptw is 1.30 m right of its path (limit 1.0 m)".
    pub text: String,
}

impl AbortInfo {
    /// An abort that names no object's rule: the operator's, or the run's own (its reason).
    pub fn other(kind: &str, text: &str) -> AbortInfo {
        AbortInfo {
            kind: kind.into(),
            object: None,
            value: None,
            limit: None,
            text: text.into(),
        }
    }
}

fn state_word(s: &ObjectState) -> String {
    format!("{s:?}").to_uppercase()
}

impl AbortReason {
    /// The rule's name (the serde tag).
    pub fn kind(&self) -> &'static str {
        match self {
            AbortReason::TelemetryStale { .. } => "telemetry_stale",
            AbortReason::MonrLost { .. } => "monr_lost",
            AbortReason::CarrierDisconnected { .. } => "carrier_disconnected",
            AbortReason::CarrierAbort { .. } => "carrier_abort",
            AbortReason::Estop { .. } => "operator",
            AbortReason::LeftArmed { .. } => "left_armed",
            AbortReason::PathDeviation { .. } => "path_deviation",
            AbortReason::Overspeed { .. } => "overspeed",
            AbortReason::MovedBeforeStart { .. } => "moved_before_start",
            AbortReason::PositionJump { .. } => "position_jump",
            AbortReason::Geofence { .. } => "geofence",
        }
    }

    /// The abort as data and words.
    pub fn info(&self) -> AbortInfo {
        let info = |object: &str, value: Option<f64>, limit: Option<f64>, text: String| AbortInfo {
            kind: self.kind().into(),
            object: Some(object.to_string()),
            value,
            limit,
            text,
        };
        match self {
            AbortReason::TelemetryStale { age_s, limit_s } => AbortInfo {
                kind: self.kind().into(),
                object: None,
                value: Some(*age_s),
                limit: Some(*limit_s),
                text: format!(
                    "no VUT telemetry for {age_s:.2} s (limit {limit_s:.2} s)"
                ),
            },
            AbortReason::MonrLost { carrier, missed } => info(
                carrier,
                Some(*missed as f64),
                None,
                format!("{carrier} sent no MONR: {missed} consecutive MONR missing"),
            ),
            AbortReason::CarrierDisconnected { carrier } => {
                info(carrier, None, None, format!("{carrier} disconnected"))
            }
            AbortReason::CarrierAbort { carrier } => {
                info(carrier, None, None, format!("{carrier} reported ABORTING"))
            }
            AbortReason::Estop { reason } => AbortInfo::other(self.kind(), reason),
            AbortReason::LeftArmed { carrier, state } => info(
                carrier,
                None,
                None,
                format!(
                    "{carrier} left ARMED before its start (now {})",
                    state_word(state)
                ),
            ),
            AbortReason::PathDeviation {
                carrier,
                lateral_m,
                limit_m,
            } => info(
                carrier,
                Some(lateral_m.abs()),
                Some(*limit_m),
                format!(
                    "{carrier} is {:.2} m {} of its path (limit {limit_m:.1} m)",
                    lateral_m.abs(),
                    if *lateral_m >= 0.0 { "left" } else { "right" }
                ),
            ),
            AbortReason::Overspeed {
                carrier,
                speed_mps,
                planned_mps,
                limit_mps,
            } => info(
                carrier,
                Some(speed_mps - planned_mps),
                Some(*limit_mps),
                format!(
                    "{carrier} drives {:.1} km/h, {:.1} km/h above its plan (limit {:.1} km/h)",
                    speed_mps * 3.6,
                    (speed_mps - planned_mps) * 3.6,
                    limit_mps * 3.6
                ),
            ),
            AbortReason::MovedBeforeStart {
                carrier,
                moved_m,
                limit_m,
            } => info(
                carrier,
                Some(*moved_m),
                Some(*limit_m),
                format!(
                    "{carrier} moved {moved_m:.2} m before its start (limit {limit_m:.1} m)"
                ),
            ),
            AbortReason::PositionJump {
                carrier,
                jump_m,
                limit_m,
            } => info(
                carrier,
                Some(*jump_m),
                Some(*limit_m),
                format!(
                    "{carrier}'s position jumped {jump_m:.1} m between two MONR (its speed explains {limit_m:.1} m): a positioning fault"
                ),
            ),
            AbortReason::Geofence {
                carrier,
                x,
                y,
                zone,
            } => info(
                carrier,
                None,
                None,
                format!("{carrier} is {zone} at ({x:.1}, {y:.1})"),
            ),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EventKind {
    CarrierConnected {
        carrier: String,
    },
    CarrierDisconnected {
        carrier: String,
        reason: String,
    },
    CarrierState {
        carrier: String,
        from: Option<ObjectState>,
        to: ObjectState,
    },
    OsemSent {
        carrier: String,
    },
    TrajUploaded {
        carrier: String,
        points: usize,
    },
    PhaseChanged {
        from: Phase,
        to: Phase,
    },
    ArmRequested,
    /// Warning: the carrier reported readyToArm = 2 (unavailable) and was armed anyway.
    ReadinessUnavailable {
        carrier: String,
    },
    ArmRefused {
        reason: String,
    },
    Armed,
    StartScheduled {
        carrier: String,
        at_s: f64,
    },
    StartRefused {
        reason: String,
    },
    /// MTSP (re-timing of the carrier's trajectory origin) written to the carrier.
    MtspSent {
        carrier: String,
        /// New trajectory origin (the MTSP time), control-centre seconds.
        origin_s: f64,
        written_s: f64,
    },
    RetimeRefused {
        carrier: String,
        reason: String,
    },
    StrtSent {
        carrier: String,
        scheduled_s: f64,
        written_s: f64,
        latency_us: f64,
        timer_late_us: f64,
    },
    Abort {
        reason: AbortReason,
    },
    AllClear,
    TelemetryStale {
        age_s: f64,
    },
    MonrMissing {
        carrier: String,
        missed: u32,
    },
    MalformedFrame {
        carrier: String,
        error: String,
    },
    /// A carrier's link passed a warning level while a run goes (`measure` names it).
    LinkDegraded {
        carrier: String,
        measure: String,
        link: super::link_health::LinkHealth,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DispatchEvent {
    /// Seconds since the control centre started (monotonic wall clock).
    pub t_s: f64,
    #[serde(flatten)]
    pub kind: EventKind,
}
