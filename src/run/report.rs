//! The typed result of a run: what `scil replay --json` prints and what
//! `GET /api/v1/runs/{id}/results` returns — one type, serialised once.
//!
//! The first keys are the replay contract (`samples`, `skipped_rows`, `triggers`, `impacts`,
//! `aborted`); sinks and sources add their blocks (`carriers`, `dispatch`, `source`) only
//! when they took part, so a plain replay's JSON is exactly what it always was.

use serde::Serialize;
use tokio::time::Instant;

use crate::scenario::engine::{Event, ImpactRecord, TriggerMethod, TriggerRecord};

pub use super::sink::carriers::{CarrierResult, DispatchSummary, RetimeRecord, StartRecord};
pub use super::source::SourceReport;

/// Per-target trigger result (the CLI contract's fields first).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TriggerResult {
    pub target: String,
    /// Trigger instant in the source time base.
    pub time_s: f64,
    pub ttc_s: f64,
    pub d_long_m: f64,
    pub vut_speed_kmh: f64,
    pub threshold_s: f64,
    pub fired_at_s: f64,
    pub fire_error_ms: Option<f64>,
    pub method: TriggerMethod,
    pub retimed: bool,
}

impl From<&TriggerRecord> for TriggerResult {
    fn from(r: &TriggerRecord) -> Self {
        TriggerResult {
            target: r.target.clone(),
            time_s: r.time_s,
            ttc_s: r.ttc_s,
            d_long_m: r.d_long_m,
            vut_speed_kmh: r.vut_speed_mps * 3.6,
            threshold_s: r.threshold_s,
            fired_at_s: r.fired_at_s,
            fire_error_ms: r.fire_error_ms,
            method: r.method,
            retimed: r.retimed,
        }
    }
}

/// The result of one run (see the module doc).
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct RunReport {
    pub samples: u64,
    /// Rows/packets the source could not use (bad rows skipped, live samples dropped).
    pub skipped_rows: u64,
    pub triggers: Vec<TriggerResult>,
    pub impacts: Vec<ImpactRecord>,
    pub aborted: Option<String>,
    /// Why the run was aborted, as data and words (the rule, the object, value and limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abort: Option<crate::dispatch::events::AbortInfo>,
    /// First skipped-row errors (file:line: reason), so skipped rows are never silent.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    /// Real carriers (ISO 22133), one block each.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub carriers: Option<Vec<CarrierResult>>,
    /// The dispatch side of a run with real carriers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispatch: Option<DispatchSummary>,
    /// A live source: name, address, health, drops.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceReport>,
    /// What the fusion of a recorded CAN log did: frames read, frames fused, the offset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub can: Option<crate::ingest::can::timebase::CanFusionReport>,
    /// Euro NCAP validity verdict, when the scenario asks for one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub validity: Option<crate::scenario::validity::Validity>,
    /// Why the run failed (source error, carriers could not be armed), when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Live parameter changes (ttc offset, noise), in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parameter_changes: Vec<super::params::ParameterChange>,
    /// A co-simulation peer's counters (`scil cosim`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cosim: Option<CosimReport>,
    /// Objects on the ground (VUT robot and carriers): per object its states, TRAJ, MONR
    /// count, lateral deviation and final pose, and the impacts from MONR.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ground: Option<serde_json::Value>,
    /// A ground run: the plan's figures (the simulated target's impacts and verdict) beside
    /// the objects' verdict in `impacts` and `validity`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<PlanFigures>,
    /// A ground run: where its impacts and checks come from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict_from: Option<VerdictSources>,
    /// The run's MCAP recording (`scil replay --mcap`, a service run with `record`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recording: Option<RecordingReport>,
    /// The run's ASAM OSI output (`--osi`, a service run's live stream).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub osi: Option<OsiReport>,
    /// Per-sample time series for the report's plots (`scil replay --traces`, service runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traces: Option<crate::scenario::validity::trace::Traces>,
    /// The simulated VUT's forward collision warning (`scil sim --fcw`), when it warned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<WarningRecord>,
    /// A drifting VUT's distance to its lane's edge (lane-departure tests).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lane_departure: Option<crate::scenario::engine::LaneDeparture>,
}

/// A forward collision warning: when, and the TTC to the target then.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct WarningRecord {
    pub time_s: f64,
    pub ttc_s: f64,
}

impl RunReport {
    /// The engine's part of the report, from its events in order. Trigger records are
    /// last-wins per target after the assessment, so the reported instant is the final
    /// profile origin.
    pub fn from_events<'a>(events: impl IntoIterator<Item = &'a Event>) -> RunReport {
        let mut r = RunReport::default();
        for e in events {
            r.apply(e);
        }
        r
    }

    /// Folds one engine event into the report.
    pub fn apply(&mut self, e: &Event) {
        match e {
            Event::Triggered(t) => self.triggers.push(t.into()),
            Event::TriggerAssessed(t) => {
                if let Some(x) = self
                    .triggers
                    .iter_mut()
                    .rev()
                    .find(|x| x.target == t.target)
                {
                    *x = t.into();
                }
            }
            Event::Impact(i) => self.impacts.push(i.clone()),
            Event::Aborted { reason, .. } => self.aborted = Some(reason.clone()),
            Event::Verdict(v) => self.validity = Some(v.clone()),
            Event::LaneDeparture(d) => self.lane_departure = Some(d.clone()),
            _ => {}
        }
    }

    /// The run aborted (engine, carriers or operator).
    pub fn is_aborted(&self) -> bool {
        self.aborted.is_some() || self.dispatch.as_ref().is_some_and(|d| d.abort.is_some())
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Finished,
    Aborted,
    Failed,
}

/// What the sinks learn at the end of a run.
#[derive(Debug, Clone)]
pub struct RunEnd {
    pub outcome: Outcome,
    /// Abort or failure reason.
    pub reason: Option<String>,
    /// Sample time of the last applied sample.
    pub last_t: Option<f64>,
    /// Wall instant the last sample was applied.
    pub last_sample_wall: Option<Instant>,
    /// The engine's impact instant per target (sample time).
    pub impacts: Vec<(String, Option<f64>)>,
}

/// The `recording` block of a report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct RecordingReport {
    pub path: String,
    /// VUT samples in the file.
    pub samples: u64,
    pub bytes: u64,
    /// Why the recording stopped early or could not be finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The co-simulation block of the report (`"cosim"` in `--json`).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct CosimReport {
    pub peer: String,
    /// Peer messages received (steps, for BeamNG; lines, for YaCoP).
    pub received: u64,
    /// Answers sent.
    pub answered: u64,
    /// Answers that left later than the step period after their message (wall clock).
    pub late: u64,
    /// Messages that could not be parsed (wrong size, not a number, …): counted, skipped.
    pub malformed: u64,
    /// Messages with a name scil does not know (YaCoP).
    #[serde(skip_serializing_if = "is_zero")]
    pub unknown: u64,
    /// Samples committed to the session.
    pub steps: u64,
    /// First few unknown names / malformed messages, so they are never silent.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// A ground run's plan figures (the simulated target's), kept beside the verdict judged on
/// the objects' MONR.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanFigures {
    pub impacts: Vec<crate::scenario::engine::ImpactRecord>,
    pub validity: Option<crate::scenario::validity::Validity>,
}

/// Where each figure of a ground run's verdict comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerdictSources {
    /// `"monr"`: the objects' MONR.
    pub impacts: &'static str,
    pub target_checks: &'static str,
    /// The VUT's telemetry: `"monr"` (its robot's) or `"ins"`.
    pub vut_checks: &'static str,
}

/// The `osi` block of a run's report.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct OsiReport {
    /// The trace file, when one was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// SensorView messages produced (one per VUT sample).
    pub messages: u64,
    /// Bytes of the trace file.
    pub bytes: u64,
    /// The OSI version of the messages.
    pub version: String,
    /// Why the trace stopped early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
