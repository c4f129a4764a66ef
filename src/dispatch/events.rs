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
