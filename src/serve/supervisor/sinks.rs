//! The service's sinks of a run: persistence (telemetry rows and events through the batching
//! writer), the live WebSocket stream (samples, TTC, events), and the simulated carriers'
//! status when a run has no real ones. Real carriers are the run layer's carriers sink; their
//! control-centre events reach the store and the dashboard through [`dispatch_observer`].

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use super::run::ActiveRun;
use super::Supervisor;
use crate::dispatch::events::{DispatchEvent, EventKind};
use crate::run::sink::carriers::DispatchObserver;
use crate::run::sink::recording::McapSink;
use crate::run::{RunSetup, Sink, SinkCtx};
use crate::sample::{InsSample, Sample};
use crate::scenario::engine::{Command, Engine, Event, Output};
use crate::serve::history::SampleIn;
use crate::serve::hub::frame;
use crate::store::TelemetryRow;
use crate::twin::RoadState;

/// Sample time of an event, when it has one.
pub fn event_time(e: &Event) -> Option<f64> {
    e.time_s()
}

/// The VUT and the scenario's targets as the twin holds them after a sample: (id, kind, state,
/// lane).
fn vehicles<'a>(
    twin: &'a crate::twin::Twin,
    vut_id: &'a str,
    target_ids: &'a [String],
) -> impl Iterator<
    Item = (
        &'a str,
        &'static str,
        &'a crate::twin::VehicleState,
        Option<&'a crate::twin::LaneMatch>,
    ),
> + 'a {
    std::iter::once((vut_id, "vut"))
        .chain(target_ids.iter().map(|t| (t.as_str(), "target")))
        .filter_map(move |(id, kind)| {
            let v = twin.get(id)?;
            let lane = match &v.road {
                RoadState::OnLane(l) => Some(l),
                _ => None,
            };
            Some((id, kind, v, lane))
        })
}

fn event_kind(v: &Value) -> String {
    v.get("event")
        .and_then(Value::as_str)
        .unwrap_or("event")
        .to_string()
}

/// Persistence: a telemetry row per vehicle at every VUT sample, every event and command.
pub struct StoreSink {
    st: Supervisor,
    run: Arc<ActiveRun>,
    vut_id: String,
    target_ids: Vec<String>,
    seq: i64,
}

impl StoreSink {
    pub fn new(
        st: Supervisor,
        run: Arc<ActiveRun>,
        vut_id: String,
        target_ids: Vec<String>,
    ) -> Self {
        StoreSink {
            st,
            run,
            vut_id,
            target_ids,
            seq: 0,
        }
    }
}

impl Sink for StoreSink {
    fn name(&self) -> &'static str {
        "store"
    }

    fn sample(&mut self, _ctx: &SinkCtx<'_>, engine: &Engine, s: &Sample) {
        {
            let mut h = self.run.health.lock().unwrap_or_else(|p| p.into_inner());
            h.samples += 1;
            h.last = Some(Instant::now());
        }
        self.st
            .metrics
            .samples_ingested
            .fetch_add(1, Ordering::Relaxed);
        if *s.vehicle != *self.vut_id {
            return;
        }
        for (vid, kind, v, lane) in vehicles(engine.twin(), &self.vut_id, &self.target_ids) {
            let row = TelemetryRow {
                run_id: self.run.id.clone(),
                seq: self.seq,
                t: if kind == "vut" { v.time_s } else { s.time_s },
                vehicle: vid.to_string(),
                kind: kind.to_string(),
                x: v.x,
                y: v.y,
                yaw: v.yaw_rad,
                speed_mps: v.speed_mps,
                steering_wheel_deg: v.steering_wheel_deg,
                brake_light: v.brake_light,
                road_id: lane.map(|l| l.road_id.to_string()),
                lane_id: lane.map(|l| l.lane_id),
                road_s: lane.map(|l| l.s),
                road_t: lane.map(|l| l.t),
                wheel_speed_mps: v.wheel_speed_mps,
            };
            self.seq += 1;
            self.run.rows_sent.fetch_add(1, Ordering::Relaxed);
            self.st.writer.send_telemetry(row);
        }
    }

    fn output(&mut self, _ctx: &SinkCtx<'_>, o: &Output) {
        let id = self.run.id.as_str();
        match o {
            Output::Event(e) => {
                self.st
                    .metrics
                    .engine_events
                    .fetch_add(1, Ordering::Relaxed);
                let v = serde_json::to_value(e).unwrap_or(Value::Null);
                self.st
                    .record_event(Some(id), event_time(e), &event_kind(&v), &v);
            }
            Output::Command(c) => {
                let v = serde_json::to_value(c).unwrap_or(Value::Null);
                self.st.record_event(Some(id), None, "command", &v);
            }
        }
    }

    fn bad_sample(&mut self, _ctx: &SinkCtx<'_>, _ins: &InsSample, reason: &str) {
        let n = {
            let mut h = self.run.health.lock().unwrap_or_else(|p| p.into_inner());
            h.errors += 1;
            h.errors
        };
        self.st
            .metrics
            .samples_rejected
            .fetch_add(1, Ordering::Relaxed);
        if n <= 10 || n % 100 == 0 {
            tracing::warn!(run = %self.run.id, "live sample skipped ({n} so far): {reason}");
        }
    }
}

/// The live WebSocket stream of a run: `sample` frames per vehicle, `ttc` per target, and
/// `event` frames. Nothing is serialised when nobody listens.
pub struct LiveSink {
    run: Arc<ActiveRun>,
    vut_id: String,
    target_ids: Vec<String>,
}

impl LiveSink {
    pub fn new(run: Arc<ActiveRun>, vut_id: String, target_ids: Vec<String>) -> Self {
        LiveSink {
            run,
            vut_id,
            target_ids,
        }
    }
}

impl Sink for LiveSink {
    fn name(&self) -> &'static str {
        "live"
    }

    fn sample(&mut self, _ctx: &SinkCtx<'_>, engine: &Engine, s: &Sample) {
        if *s.vehicle != *self.vut_id {
            return;
        }
        // The history always; frames only for listeners. One lock: see `history`.
        let mut h = self.run.history.lock().unwrap_or_else(|p| p.into_inner());
        let listening = self.run.tx.receiver_count() > 0;
        let id = &self.run.id;
        for (vid, kind, v, lane) in vehicles(engine.twin(), &self.vut_id, &self.target_ids) {
            let t = if kind == "vut" { v.time_s } else { s.time_s };
            h.sample(SampleIn {
                vehicle: vid,
                kind,
                t,
                x: v.x,
                y: v.y,
                yaw: v.yaw_rad,
                speed_mps: v.speed_mps,
                brake: v.brake_light,
            });
            if listening {
                let _ = self.run.tx.send(frame(&json!({
                    "type": "sample", "run_id": id, "t": t, "vehicle": vid, "kind": kind,
                    "x": v.x, "y": v.y, "yaw": v.yaw_rad, "speed_mps": v.speed_mps,
                    "brake": v.brake_light, "steering_wheel_deg": v.steering_wheel_deg,
                    "wheel_speed_mps": v.wheel_speed_mps,
                    "road": lane.map(|l| json!({"road_id": l.road_id, "lane_id": l.lane_id, "s": l.s, "t": l.t})),
                })));
            }
        }
        for ts in engine.targets() {
            h.ttc(&ts.target, s.time_s, ts.ttc_s, Some(ts.threshold_s));
            if listening {
                let _ = self.run.tx.send(frame(
                    &json!({"type": "ttc", "run_id": id, "t": s.time_s, "target": ts.target,
                                   "ttc_s": ts.ttc_s, "threshold_s": ts.threshold_s}),
                ));
            }
        }
    }

    fn output(&mut self, _ctx: &SinkCtx<'_>, o: &Output) {
        if let Output::Event(e) = o {
            let v = serde_json::to_value(e).unwrap_or(Value::Null);
            self.run.send(
                &json!({"type": "event", "run_id": self.run.id, "t": event_time(e), "event": v}),
            );
        }
    }
}

/// Simulated carriers (a run without real ones): their state follows the engine's commands,
/// in `/carriers`, the event log and the live stream.
pub struct SimCarrierSink {
    st: Supervisor,
    run: Arc<ActiveRun>,
    /// (target, carrier) of the scenario's targets that name a carrier.
    carriers: Vec<(String, String)>,
}

impl SimCarrierSink {
    pub fn new(st: Supervisor, run: Arc<ActiveRun>, carriers: Vec<(String, String)>) -> Self {
        SimCarrierSink { st, run, carriers }
    }
}

impl Sink for SimCarrierSink {
    fn name(&self) -> &'static str {
        "simulated carriers"
    }

    fn output(&mut self, _ctx: &SinkCtx<'_>, o: &Output) {
        let Output::Command(c) = o else { return };
        let id = self.run.id.as_str();
        let changes: Vec<(Option<String>, String, &str, Option<f64>)> = match c {
            Command::Start {
                target,
                carrier,
                at_s,
            } => vec![(carrier.clone(), target.clone(), "started", Some(*at_s))],
            Command::Retime {
                target,
                carrier,
                origin_s,
                ..
            } => vec![(carrier.clone(), target.clone(), "retimed", Some(*origin_s))],
            Command::Abort { .. } => self
                .carriers
                .iter()
                .map(|(t, c)| (Some(c.clone()), t.clone(), "stopped", None))
                .collect(),
        };
        for (carrier, target, state, t) in changes {
            let ev = json!({"event": "carrier_state", "carrier": carrier, "target": target,
                            "state": state, "time_s": t, "mode": "simulated"});
            if let Some(c) = &carrier {
                self.st.set_carrier_state(c, state, id);
            }
            self.st.record_event(Some(id), t, "carrier_state", &ev);
            self.run
                .send(&json!({"type": "event", "run_id": id, "t": t, "event": ev}));
        }
    }
}

/// What every service run records and streams: its telemetry and events to the store, the live
/// stream, Foxglove when it is served, and the MCAP recording when one was asked for.
pub fn for_run(st: &Supervisor, run: &Arc<ActiveRun>, setup: &RunSetup) -> Vec<Box<dyn Sink>> {
    let (vut, targets) = (setup.vut_id().to_string(), setup.target_ids());
    let store = StoreSink::new(st.clone(), run.clone(), vut.clone(), targets.clone());
    let live = LiveSink::new(run.clone(), vut, targets);
    let mut sinks: Vec<Box<dyn Sink>> = vec![Box::new(store), Box::new(live)];
    if let Some(hub) = &st.foxglove {
        sinks.push(Box::new(crate::serve::foxglove::FoxgloveSink::new(hub)));
    }
    if let Some(path) = &run.recording {
        let mcap = McapSink::new(path.clone()).with_virtual(run.virtual_targets.clone());
        sinks.push(Box::new(mcap));
    }
    if let Some(server) = &run.osi {
        let osi = crate::run::sink::osi::OsiSink::new(None, run.virtual_targets.clone())
            .with_feed(server.feed());
        sinks.push(Box::new(osi));
    }
    sinks
}

/// Real carriers' control-centre events as the run shows them: every event to the events
/// table; carrier states, connections and aborts also as live `event` frames and in
/// `/carriers`.
pub fn dispatch_observer(st: Supervisor, run: Arc<ActiveRun>) -> DispatchObserver {
    Arc::new(move |e: &DispatchEvent| forward_dispatch_event(&st, &run, e))
}

fn forward_dispatch_event(st: &Supervisor, run: &ActiveRun, e: &DispatchEvent) {
    let id = run.id.as_str();
    let v = serde_json::to_value(e).unwrap_or(Value::Null);
    st.record_event(Some(id), None, "dispatch", &v);
    let address = |c: &str| {
        run.carriers
            .iter()
            .find(|s| s.name == c)
            .map(|s| s.address.clone())
    };
    let ev = match &e.kind {
        EventKind::CarrierState { carrier, from, to } => {
            let state = serde_json::to_value(to).unwrap_or(Value::Null);
            let state_s = state.as_str().unwrap_or("UNKNOWN").to_string();
            st.set_carrier_status(
                carrier,
                &state_s,
                id,
                "iso22133",
                address(carrier),
                Some(true),
            );
            let ev = json!({"event": "carrier_state", "carrier": carrier, "state": state,
                            "from": from, "mode": "iso22133", "cc_t_s": e.t_s});
            st.record_event(Some(id), None, "carrier_state", &ev);
            ev
        }
        EventKind::CarrierConnected { carrier } => {
            st.set_carrier_status(
                carrier,
                "connected",
                id,
                "iso22133",
                address(carrier),
                Some(true),
            );
            json!({"event": "carrier_connected", "carrier": carrier, "mode": "iso22133", "cc_t_s": e.t_s})
        }
        EventKind::CarrierDisconnected { carrier, reason } => {
            st.set_carrier_status(
                carrier,
                "disconnected",
                id,
                "iso22133",
                address(carrier),
                Some(false),
            );
            json!({"event": "carrier_disconnected", "carrier": carrier, "reason": reason,
                   "mode": "iso22133", "cc_t_s": e.t_s})
        }
        EventKind::Abort { reason } => {
            json!({"event": "carrier_abort", "reason": reason, "mode": "iso22133", "cc_t_s": e.t_s})
        }
        EventKind::StrtSent { carrier, .. } => {
            json!({"event": "carrier_strt", "carrier": carrier, "detail": v, "cc_t_s": e.t_s})
        }
        EventKind::LinkDegraded {
            carrier,
            measure,
            link,
        } => {
            let ev = json!({"event": "link_degraded", "carrier": carrier, "measure": measure,
                            "link": link, "mode": "iso22133", "cc_t_s": e.t_s});
            st.record_event(Some(id), None, "link_degraded", &ev);
            ev
        }
        _ => return,
    };
    run.send(&json!({"type": "event", "run_id": id, "t": null, "event": ev}));
}
