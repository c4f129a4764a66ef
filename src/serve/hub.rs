//! The service's live fan-out: which run each track follows, service-wide notices
//! (`run_started`, sweeps, store errors), the frame type of every live channel and the run JSON
//! that the API and the WebSocket `hello` share.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::ws::Utf8Bytes;
use serde_json::{json, Value};
use tokio::sync::{broadcast, watch};

use crate::store::RunRow;

pub type Frame = Utf8Bytes;

/// Frame capacity per run channel (about 20 s of 25 Hz telemetry with two vehicles).
pub const RUN_CHANNEL: usize = 4096;

/// The latest started run of each track, plus a side channel for service-wide notices
/// (`run_started`, sweeps, store errors).
#[derive(Clone)]
pub struct Hub {
    pub(super) active: Arc<watch::Sender<BTreeMap<String, String>>>,
    pub(super) notices: broadcast::Sender<Frame>,
}

impl Default for Hub {
    fn default() -> Self {
        Self::new()
    }
}

impl Hub {
    pub fn new() -> Hub {
        Hub {
            active: Arc::new(watch::channel(BTreeMap::new()).0),
            notices: broadcast::channel(256).0,
        }
    }

    /// A run started: the run its track's followers switch to, and a `run_started` notice to
    /// every client (a page showing another run says so instead of switching).
    pub fn run_started(&self, run: &RunRow) {
        let track = run.track.clone().unwrap_or_default();
        self.active.send_modify(|m| {
            m.insert(track.clone(), run.id.clone());
        });
        self.notice(
            &json!({"type": "run_started", "run_id": run.id, "track": track,
                            "run": run_json(run)}),
        );
    }

    /// The latest started run of `track`.
    pub fn active(&self, track: &str) -> Option<String> {
        self.active.borrow().get(track).cloned()
    }

    /// A service-wide frame to every live client (sweep progress: `{"type":"sweep",…}`).
    pub fn notice(&self, v: &Value) {
        let _ = self.notices.send(frame(v));
    }

    /// A database write failure, as an event frame to every live client.
    pub fn store_error(&self, msg: &str) {
        let f = json!({"type": "event", "run_id": null, "t": null,
                       "event": {"event": "store_error", "detail": msg}});
        let _ = self.notices.send(f.to_string().into());
    }
}

pub fn frame(v: &Value) -> Frame {
    v.to_string().into()
}

/// The run JSON of the API and the WebSocket `hello`.
pub fn run_json(r: &RunRow) -> Value {
    json!({
        "id": r.id,
        "state": r.state,
        "scenario_id": r.scenario_id,
        "map_id": r.map_id,
        "source": serde_json::from_str::<Value>(&r.source).unwrap_or(Value::Null),
        "created_at": r.created_at,
        "armed_at": r.armed_at,
        "started_at": r.started_at,
        "finished_at": r.finished_at,
        "speed": match r.speed { Some(f) => json!(f), None => json!("max") },
        "error": r.error,
        "track": r.track,
        "demo": r.demo,
        "instance": r.instance,
        "abort": r.abort.as_deref().and_then(|a| serde_json::from_str::<Value>(a).ok()),
    })
}
