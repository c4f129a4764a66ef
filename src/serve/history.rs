//! What a run's live stream has said so far, kept in memory while the run is active, so that a
//! WebSocket client joining late gets the whole run first (one `history` frame), then the live
//! frames — on the run's own time axis: `t0` is the sample time of the run's first VUT sample,
//! the same origin as the results' plots (their first telemetry row).
//!
//! Every frame a run sends goes through [`History::record`] (or [`History::sample`] for the
//! telemetry) under the same lock as the broadcast, so a joining client takes the snapshot and
//! subscribes at one instant: each frame is either in its snapshot or on its channel, never
//! both and never neither. A finished run's history is read back from the store instead (its
//! TTC series from the results' traces, at the report's plot rate).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use crate::store::run_list::TraceRow;
use crate::store::EventRow;

/// Samples kept per vehicle (10 minutes at 100 Hz is 60 000); past it the history says
/// `truncated` and keeps the beginning.
pub const MAX_SAMPLES: usize = 2_000_000;

/// One vehicle's samples, column by column.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Track {
    pub kind: &'static str,
    pub t: Vec<f64>,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub yaw: Vec<f64>,
    pub speed_mps: Vec<f64>,
    /// Brake light: 1 on, 0 off, null unknown.
    pub brake: Vec<Option<u8>>,
}

/// One target's TTC series.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TtcSeries {
    pub t: Vec<f64>,
    pub ttc_s: Vec<Option<f64>>,
    pub threshold_s: Option<f64>,
}

/// A run's stream so far.
#[derive(Debug, Clone, Default)]
pub struct History {
    pub t0: Option<f64>,
    pub last_t: Option<f64>,
    vehicles: BTreeMap<String, Track>,
    ttc: BTreeMap<String, TtcSeries>,
    /// `event` frames in order (engine events, carrier states, parameter changes, …).
    events: Vec<Value>,
    state: Option<String>,
    truncated: bool,
}

/// A sample as the live stream carries it.
pub struct SampleIn<'a> {
    pub vehicle: &'a str,
    pub kind: &'static str,
    pub t: f64,
    pub x: f64,
    pub y: f64,
    pub yaw: f64,
    pub speed_mps: f64,
    pub brake: Option<bool>,
}

fn finite(v: Option<f64>) -> Option<f64> {
    v.filter(|x| x.is_finite())
}

impl History {
    /// A vehicle's sample (the VUT first at each VUT sample: its time opens the run's axis).
    pub fn sample(&mut self, s: SampleIn<'_>) {
        if s.kind == "vut" && self.t0.is_none() {
            self.t0 = Some(s.t);
        }
        if s.kind == "vut" {
            self.last_t = Some(s.t);
        }
        // No allocation per sample: the vehicle's entry exists after its first one.
        if !self.vehicles.contains_key(s.vehicle) {
            self.vehicles
                .insert(s.vehicle.to_string(), Track::default());
        }
        let Some(tr) = self.vehicles.get_mut(s.vehicle) else {
            return;
        };
        if tr.t.len() >= MAX_SAMPLES {
            self.truncated = true;
            return;
        }
        tr.kind = s.kind;
        tr.t.push(s.t);
        tr.x.push(s.x);
        tr.y.push(s.y);
        tr.yaw.push(s.yaw);
        tr.speed_mps.push(s.speed_mps);
        tr.brake.push(s.brake.map(u8::from));
    }

    /// A target's TTC at a VUT sample.
    pub fn ttc(&mut self, target: &str, t: f64, ttc_s: Option<f64>, threshold_s: Option<f64>) {
        if !self.ttc.contains_key(target) {
            self.ttc.insert(target.to_string(), TtcSeries::default());
        }
        let Some(s) = self.ttc.get_mut(target) else {
            return;
        };
        if s.t.len() >= MAX_SAMPLES {
            self.truncated = true;
            return;
        }
        s.t.push(t);
        s.ttc_s.push(finite(ttc_s));
        if threshold_s.is_some() {
            s.threshold_s = threshold_s;
        }
    }

    /// A finished run's TTC series from its results (`traces`, at the report's plot rate;
    /// the threshold from the target's trigger).
    pub fn ttc_from_result(&mut self, result: &Value) {
        let Some(t) = result["traces"]["t_s"].as_array() else {
            return;
        };
        for tg in result["traces"]["targets"].as_array().into_iter().flatten() {
            let (Some(id), Some(ttc)) = (tg["id"].as_str(), tg["ttc_s"].as_array()) else {
                continue;
            };
            let threshold = result["triggers"]
                .as_array()
                .and_then(|ts| ts.iter().find(|x| x["target"] == id))
                .and_then(|x| x["threshold_s"].as_f64());
            for (ti, ci) in t.iter().zip(ttc) {
                if let Some(ti) = ti.as_f64() {
                    self.ttc(id, ti, ci.as_f64(), threshold);
                }
            }
        }
    }

    /// Any other frame the run sends: events and states are kept, the rest (health) is not.
    pub fn record(&mut self, frame: &Value) {
        match frame.get("type").and_then(Value::as_str) {
            Some("event") => self.events.push(frame.clone()),
            Some("state") => {
                self.state = frame
                    .get("state")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            }
            _ => {}
        }
    }

    /// The `history` frame: everything so far, on the run's own time axis (`t0`).
    pub fn frame(&self, run_id: &str) -> Value {
        json!({
            "type": "history",
            "run_id": run_id,
            "t0": self.t0,
            "last_t": self.last_t,
            "state": self.state,
            "vehicles": self.vehicles,
            "ttc": self.ttc,
            "events": self.events,
            "truncated": self.truncated,
        })
    }

    /// A stored run's history: its telemetry rows and the events its live stream carried.
    pub fn from_store(
        run_id: &str,
        state: &str,
        rows: &[TraceRow],
        events: &[EventRow],
    ) -> History {
        let mut h = History::default();
        for r in rows {
            h.sample(SampleIn {
                vehicle: &r.vehicle,
                kind: if r.kind == "vut" { "vut" } else { "target" },
                t: r.t,
                x: r.x,
                y: r.y,
                yaw: r.yaw,
                speed_mps: r.speed_mps,
                brake: r.brake_light,
            });
        }
        for e in events {
            // Commands, dispatch records, carrier lists and states are not live `event` frames.
            if matches!(
                e.kind.as_str(),
                "command" | "dispatch" | "carriers" | "state"
            ) {
                continue;
            }
            let ev: Value = serde_json::from_str(&e.payload).unwrap_or(Value::Null);
            h.events
                .push(json!({"type": "event", "run_id": run_id, "t": e.t, "at": e.created_at, "event": ev}));
        }
        h.state = Some(state.to_string());
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s<'a>(vehicle: &'a str, kind: &'static str, t: f64) -> SampleIn<'a> {
        SampleIn {
            vehicle,
            kind,
            t,
            x: t,
            y: 0.0,
            yaw: 0.0,
            speed_mps: 1.0,
            brake: Some(t > 100.5),
        }
    }

    #[test]
    fn the_first_vut_sample_opens_the_axis() {
        let mut h = History::default();
        h.record(&json!({"type": "state", "state": "running"}));
        h.sample(s("vut", "vut", 100.0));
        h.sample(s("dummy", "target", 100.0));
        h.ttc("dummy", 100.0, Some(f64::INFINITY), Some(1.5));
        h.sample(s("vut", "vut", 101.5));
        h.ttc("dummy", 101.5, Some(3.0), None);
        h.record(&json!({"type": "event", "t": 101.5, "event": {"event": "triggered"}}));
        h.record(&json!({"type": "health", "sources": []}));
        let f = h.frame("r1");
        assert_eq!(f["t0"], 100.0);
        assert_eq!(f["last_t"], 101.5);
        assert_eq!(f["state"], "running");
        assert_eq!(f["vehicles"]["vut"]["t"], json!([100.0, 101.5]));
        assert_eq!(f["vehicles"]["vut"]["brake"], json!([0, 1]));
        assert_eq!(f["vehicles"]["dummy"]["kind"], "target");
        assert_eq!(f["ttc"]["dummy"]["ttc_s"], json!([null, 3.0]));
        assert_eq!(f["ttc"]["dummy"]["threshold_s"], 1.5);
        assert_eq!(f["events"].as_array().map(Vec::len), Some(1));
    }

    #[test]
    fn a_stored_run_takes_its_ttc_from_the_results() {
        let mut h = History::default();
        h.ttc_from_result(&json!({
            "triggers": [{"target": "dummy", "threshold_s": 3.9}],
            "traces": {"t_s": [1.0, 1.1], "targets": [{"id": "dummy", "ttc_s": [5.0, null]}]}
        }));
        let f = h.frame("r");
        assert_eq!(f["ttc"]["dummy"]["t"], json!([1.0, 1.1]));
        assert_eq!(f["ttc"]["dummy"]["ttc_s"], json!([5.0, null]));
        assert_eq!(f["ttc"]["dummy"]["threshold_s"], 3.9);
        h.ttc_from_result(&json!({"aborted": "x"}));
    }
}
