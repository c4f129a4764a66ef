//! Live WebSocket: `GET /api/v1/runs/{id}/live` (one run) and `GET /api/v1/live?track=NAME`
//! (follows the runs of a track, the default track when omitted).
//!
//! Frames are JSON text objects with a `type` (the dashboard contract):
//! `hello` (on connect and when the followed run changes), `history` (right after `hello`: the
//! whole run so far — see [`super::history`]), `sample` (VUT and each simulated target at every
//! VUT sample), `ttc` (per VUT sample per target), `event` (engine events and carrier state
//! changes), `state` (run state), `health` (about once per second), and service-wide
//! `run_started` (any run on any track started) and `sweep` frames.
//!
//! Fan-out: each run has a `tokio::sync::broadcast` channel of pre-serialised frames. The engine
//! only ever `send`s (never waits); a client that falls behind gets `Lagged`, is skipped forward
//! and the skipped count goes to `scil_ws_lagged_frames_total`.

use std::sync::atomic::Ordering;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::broadcast;

use super::auth::Reader;
use super::error::{ApiError, ApiQuery, ApiResult};
use super::history::History;
use super::hub::{frame, run_json, Frame};
use super::state::AppState;
use crate::store::RunRow;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/live", get(live_track))
        .route("/runs/{id}/live", get(live_run))
}

/// A plain GET (no WebSocket upgrade) is answered with the `hello` a socket would get first:
/// what is being followed, as JSON, so that a client without WebSocket can see it.
async fn live_run(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> ApiResult<Response> {
    let Some(run) = st.store.get_run(&id).await? else {
        return Err(ApiError::not_found("run", &id));
    };
    match ws {
        Ok(ws) => Ok(ws.on_upgrade(move |socket| client(st, socket, Follow::Run(id)))),
        Err(_) => Ok(axum::Json(hello_plain(&run, None)).into_response()),
    }
}

/// The `hello` of a plain GET: the run followed (if any), and how to get its frames.
fn hello_plain(run: &RunRow, track: Option<&str>) -> Value {
    json!({"type": "hello", "run": run_json(run), "scenario_id": run.scenario_id,
           "map_id": run.map_id, "track": track.map(str::to_string).or_else(|| run.track.clone()),
           "websocket": "connect with a WebSocket upgrade for the run's history and live frames"})
}

#[derive(Debug, Deserialize)]
struct LiveQuery {
    track: Option<String>,
}

async fn live_track(
    State(st): State<AppState>,
    _r: Reader,
    ApiQuery(q): ApiQuery<LiveQuery>,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> ApiResult<Response> {
    let track = match q.track {
        None => st.config.default_track().to_string(),
        Some(t) if st.config.is_track(&t) || t == st.config.demo.track => t,
        Some(t) => {
            return Err(ApiError::Unprocessable(format!(
                "track '{t}' is not a track of this service (tracks: {}; demo: {})",
                st.config.tracks.join(", "),
                st.config.demo.track
            )))
        }
    };
    match ws {
        Ok(ws) => Ok(ws.on_upgrade(move |socket| client(st, socket, Follow::Track(track)))),
        Err(_) => {
            let latest = st.hub.active.borrow().get(&track).cloned();
            let run = match latest {
                Some(id) => st.store.get_run(&id).await?,
                None => None,
            };
            Ok(axum::Json(match run {
                Some(r) => hello_plain(&r, Some(&track)),
                None => json!({"type": "hello", "run": null, "track": track,
                               "websocket": "connect with a WebSocket upgrade to follow the track's runs"}),
            })
            .into_response())
        }
    }
}

/// What a client follows.
enum Follow {
    Run(String),
    /// The latest started run of a track.
    Track(String),
}

/// Serves one client: `hello` + `history` of the followed run, then its live frames.
async fn client(st: AppState, mut socket: WebSocket, follow: Follow) {
    st.metrics.ws_clients.fetch_add(1, Ordering::Relaxed);
    let _guard = ClientGuard(st.clone());
    let mut active_rx = st.hub.active.subscribe();
    let mut notices = st.hub.notices.subscribe();
    let mut current: Option<String> = None;
    let mut rx: Option<broadcast::Receiver<Frame>> = None;
    loop {
        // (Re)attach when the followed run changes.
        let want = match &follow {
            Follow::Run(id) => Some(id.clone()),
            Follow::Track(t) => active_rx.borrow_and_update().get(t).cloned(),
        };
        if want != current {
            current = want.clone();
            rx = None;
            if let Some(id) = &want {
                match join(&st, id).await {
                    Ok((frames, r)) => {
                        rx = r;
                        for f in frames {
                            if socket.send(Message::Text(f)).await.is_err() {
                                return;
                            }
                        }
                    }
                    Err(e) => tracing::warn!("live: joining {id}: {e}"),
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
            c = active_rx.changed(), if matches!(follow, Follow::Track(_)) => {
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

/// `hello`, `history` (the whole run so far) and the current `state` of a run, and the
/// receiver of its later frames while it is active (taken with the history at one instant).
async fn join(
    st: &AppState,
    id: &str,
) -> ApiResult<(Vec<Frame>, Option<broadcast::Receiver<Frame>>)> {
    let active = st.supervisor.active(id);
    let (history, rx) = match &active {
        Some(run) => {
            let (h, rx) = run.join();
            (Some(h), Some(rx))
        }
        None => (None, None),
    };
    let run = st
        .store
        .get_run(id)
        .await?
        .ok_or_else(|| ApiError::not_found("run", id))?;
    let history = match history {
        Some(h) => h,
        None => stored_history(st, &run).await?,
    };
    // In memory the state is the run's own (the row can lag by a database write).
    let state = match &active {
        Some(a) => a.row.lock().await.state.clone(),
        None => run.state.clone(),
    };
    let hist = history.frame(id);
    let plan = super::plan::of_run(st, &run).await;
    Ok((
        vec![
            frame(
                &json!({"type": "hello", "run": run_json(&run), "scenario_id": run.scenario_id,
                          "map_id": run.map_id, "track": run.track, "t0": history.t0,
                          "plan": plan}),
            ),
            hist.to_string().into(),
            frame(&json!({"type": "state", "run_id": run.id, "state": state})),
        ],
        rx,
    ))
}

/// A terminal run's history from the store (telemetry rows and events).
async fn stored_history(st: &AppState, run: &RunRow) -> ApiResult<History> {
    let rows = st.store.trace(&run.id).await?;
    let events = st.store.list_events(&run.id, 0, 1_000_000).await?;
    let mut h = History::from_store(&run.id, &run.state, &rows, &events);
    if let Some(text) = st.store.get_result(&run.id).await? {
        if let Ok(v) = serde_json::from_str::<Value>(&text) {
            h.ttc_from_result(&v);
        }
    }
    Ok(h)
}
