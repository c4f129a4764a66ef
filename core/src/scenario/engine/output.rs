//! What the engine emits: commands for the dispatch layer, events for the record.

use serde::Serialize;

use super::TriggerMethod;
use crate::scenario::validity::{Break, Validity};

/// What the engine asks the dispatch layer to do.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    /// Start the target's motion profile now (`at_s` is the due instant in sample time).
    Start {
        target: String,
        carrier: Option<String>,
        at_s: f64,
    },
    /// Shift the target's profile origin to `origin_s` (it started `correction_s` off).
    Retime {
        target: String,
        carrier: Option<String>,
        origin_s: f64,
        correction_s: f64,
    },
    /// Stop every carrier now.
    Abort { reason: String },
}

/// Something that happened, with its sample-time instant.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Armed {
        time_s: f64,
    },
    TriggerScheduled {
        target: String,
        at_s: f64,
        from_sample_s: f64,
    },
    TriggerUnscheduled {
        target: String,
        time_s: f64,
    },
    Triggered(TriggerRecord),
    /// The bracketing sample is in: the record now carries the exact crossing, the start
    /// command's error and, when retimed, the new profile origin as `time_s`.
    TriggerAssessed(TriggerRecord),
    Impact(ImpactRecord),
    SampleRejected {
        time_s: f64,
        vehicle: String,
        reason: String,
    },
    Aborted {
        time_s: f64,
        reason: String,
    },
    Finished {
        time_s: f64,
    },
    /// A target not started by the TTC trigger started (activation `begin`).
    TargetStarted {
        target: String,
        carrier: Option<String>,
        at_s: f64,
    },
    /// Closed-loop synchronisation changed a target's remaining profile (`origin_s`: the
    /// equivalent origin of its nominal profile, sent as a retime).
    Synced {
        target: String,
        time_s: f64,
        speed_mps: f64,
        origin_s: f64,
        predicted_impact_s: f64,
    },
    /// A validity channel broke (live, causal filter), the moment it did.
    Validity(Break),
    /// The final validity verdict, at finish or abort: the run result's `"validity"` object.
    Verdict(Validity),
    /// How close the drifting VUT came to its lane's edge, at finish or abort (lane-departure
    /// tests): the run result's `"lane_departure"` object.
    LaneDeparture(super::lane_edge::LaneDeparture),
}

impl Event {
    /// Sample time of the event, when it has one (trigger records: the later of the profile
    /// origin and the start command).
    pub fn time_s(&self) -> Option<f64> {
        match self {
            Event::Armed { time_s }
            | Event::TriggerUnscheduled { time_s, .. }
            | Event::SampleRejected { time_s, .. }
            | Event::Aborted { time_s, .. }
            | Event::Finished { time_s }
            | Event::Synced { time_s, .. } => Some(*time_s),
            Event::TriggerScheduled { from_sample_s, .. } => Some(*from_sample_s),
            Event::Triggered(r) | Event::TriggerAssessed(r) => Some(r.fired_at_s.max(r.time_s)),
            Event::Impact(r) => r.time_s,
            Event::TargetStarted { at_s, .. } => Some(*at_s),
            Event::Validity(b) => Some(b.time_s),
            Event::Verdict(v) => v.window.map(|w| w.to_s),
            Event::LaneDeparture(d) => Some(d.time_s),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TriggerRecord {
    pub target: String,
    /// Trigger instant: the dummy profile's origin (the TTC crossing when retimed).
    pub time_s: f64,
    /// When the start command was issued.
    pub fired_at_s: f64,
    pub method: TriggerMethod,
    pub threshold_s: f64,
    /// VUT TTC, d_long and speed at `time_s`, interpolated between the bracketing samples.
    pub ttc_s: f64,
    pub d_long_m: f64,
    pub vut_speed_mps: f64,
    /// `fired_at_s − crossing`, once the bracketing sample is known.
    pub fire_error_ms: Option<f64>,
    pub retimed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImpactRecord {
    pub target: String,
    /// VUT front bumper reaches the dummy's path line; `None` if it never did.
    pub time_s: Option<f64>,
    pub dummy_travel_m: Option<f64>,
    pub nominal_travel_m: f64,
    /// Impact point on the VUT front as a fraction of its width from the near side.
    pub overlap: Option<f64>,
    /// The VUT stopped (AEB) this far before the path line.
    pub stopped_short_m: Option<f64>,
    /// Why there is no impact, if there is none.
    pub note: Option<String>,
    /// Map-frame point of contact (set when the scenario names the VUT's nominal speed or
    /// the target is not a crossing one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impact_point: Option<crate::scenario::Point>,
    /// VUT speed at impact, km/h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impact_speed_kmh: Option<f64>,
    /// Closing speed along the VUT heading at impact (longitudinal/rear targets), km/h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative_speed_kmh: Option<f64>,
    /// Nominal VUT speed minus the impact speed (the whole nominal speed when the VUT stopped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_reduction_kmh: Option<f64>,
    /// Euro NCAP impact location: the target's reference point across the VUT front, as a
    /// fraction of the VUT width from its right (nearside) edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<f64>,
    /// VUT speed at impact (or at the end of the run without one), km/h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vut_speed_kmh: Option<f64>,
    /// Synchronised conflict targets: the target's arrival at its conflict point minus the
    /// VUT's at its own (s; positive = the target late).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival_error_s: Option<f64>,
    /// Conflict targets: smallest distance between the footprints (0 on contact), m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closest_approach_m: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "output", rename_all = "snake_case")]
pub enum Output {
    Command(Command),
    Event(Event),
}
