//! Live WebSocket: `GET /api/v1/runs/{id}/live` and `GET /api/v1/live` (follows the active run).
//!
//! Frames are JSON text objects with a `type` (the dashboard contract):
//! `hello` (on connect and when the followed run changes), `sample` (VUT and each simulated
//! target at every VUT sample), `ttc` (per VUT sample per target), `event` (engine events and
//! carrier state changes), `state` (run state), `health` (about once per second).
//!
//! Fan-out: each run has a `tokio::sync::broadcast` channel of pre-serialised frames. The engine
//! only ever `send`s (never waits); a client that falls behind gets `Lagged`, is skipped forward
//! and the skipped count goes to `scil_ws_lagged_frames_total`.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde_json::{json, Value};
use tokio::sync::{broadcast, watch};

use super::auth::Reader;
use super::context::AppState;
use super::error::{ApiError, ApiResult};
use super::runs::run_json;

pub type Frame = Utf8Bytes;

/// Frame capacity per run channel (about 20 s of 25 Hz telemetry with two vehicles).
pub const RUN_CHANNEL: usize = 4096;

/// Which run is active, plus a side channel for service-wide notices (store errors).
#[derive(Clone)]
pub struct Hub {
    active: Arc<watch::Sender<Option<String>>>,
    notices: broadcast::Sender<Frame>,
}

impl Default for Hub {
    fn default() -> Self {
        Self::new()
    }
}

impl Hub {
    pub fn new() -> Hub {
        Hub {
            active: Arc::new(watch::channel(None).0),
            notices: broadcast::channel(256).0,
        }
    }

    pub fn set_active(&self, run_id: &str) {
        self.active.send_replace(Some(run_id.to_string()));
    }

    pub fn active(&self) -> Option<String> {
        self.active.borrow().clone()
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

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/live", get(live_active))
        .route("/runs/{id}/live", get(live_run))
}

async fn live_run(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
    ws: WebSocketUpgrade,
) -> ApiResult<Response> {
    if st.store.get_run(&id).await?.is_none() {
        return Err(ApiError::not_found("run", &id));
    }
    Ok(ws.on_upgrade(move |socket| client(st, socket, Some(id))))
}

async fn live_active(State(st): State<AppState>, _r: Reader, ws: WebSocketUpgrade) -> Response {
    ws.on_upgrade(move |socket| client(st, socket, None))
}

/// Serves one client: `fixed` = a given run, `None` = follow the active run.
async fn client(st: AppState, mut socket: WebSocket, fixed: Option<String>) {
    st.metrics.ws_clients.fetch_add(1, Ordering::Relaxed);
    let _guard = ClientGuard(st.clone());
    let mut active_rx = st.hub.active.subscribe();
    let mut notices = st.hub.notices.subscribe();
    let mut current: Option<String> = None;
    let mut rx: Option<broadcast::Receiver<Frame>> = None;
    loop {
        // (Re)attach when the followed run changes.
        let want = match &fixed {
            Some(id) => Some(id.clone()),
            None => active_rx.borrow_and_update().clone(),
        };
        if want != current {
            current = want.clone();
            rx = None;
            if let Some(id) = &want {
                // Subscribe before reading the run so no frame between the two is missed.
                rx = st.runs.lock().unwrap().get(id).map(|r| r.tx.subscribe());
                match hello(&st, id).await {
                    Ok(frames) => {
                        for f in frames {
                            if socket.send(Message::Text(f)).await.is_err() {
                                return;
                            }
                        }
                    }
                    Err(e) => tracing::warn!("live: hello for {id}: {e}"),
                }
            }
        }
        tokio::select! {
            m = async { match rx.as_mut() { Some(r) => r.recv().await, None => std::future::pending().await } } => {
                match m {
                    Ok(f) => {
                        if socket.send(Message::Text(f)).await.is_err() { return; }
                        st.metrics.ws_frames_sent.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        st.metrics.ws_lagged_frames.fetch_add(n, Ordering::Relaxed);
                    }
                    // The run ended: stay connected (follow mode waits for the next run).
                    Err(broadcast::error::RecvError::Closed) => rx = None,
                }
            }
            n = notices.recv() => {
                if let Ok(f) = n {
                    if socket.send(Message::Text(f)).await.is_err() { return; }
                }
            }
            c = active_rx.changed(), if fixed.is_none() => {
                if c.is_err() { return; }
            }
            incoming = socket.recv() => {
                match incoming {
                    None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                    Some(Ok(_)) => {} // pings are answered by axum; other input is ignored
                }
            }
        }
    }
}

struct ClientGuard(AppState);
impl Drop for ClientGuard {
    fn drop(&mut self) {
        self.0.metrics.ws_clients.fetch_sub(1, Ordering::Relaxed);
    }
}

/// `hello` plus the current `state` of a run.
async fn hello(st: &AppState, id: &str) -> ApiResult<Vec<Frame>> {
    let run = st
        .store
        .get_run(id)
        .await?
        .ok_or_else(|| ApiError::not_found("run", id))?;
    Ok(vec![
        frame(
            &json!({"type": "hello", "run": run_json(&run), "scenario_id": run.scenario_id,
                      "map_id": run.map_id}),
        ),
        frame(&json!({"type": "state", "run_id": run.id, "state": run.state})),
    ])
}
