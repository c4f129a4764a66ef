//! `/health`: liveness plus database and writer state (503 when the database does not answer).

use std::sync::atomic::Ordering;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde_json::json;

use super::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/health", get(health))
}

async fn health(State(st): State<AppState>) -> Response {
    let db = tokio::time::timeout(std::time::Duration::from_secs(2), st.store.ping()).await;
    let db_ok = matches!(db, Ok(Ok(())));
    let w = &st.writer.stats;
    let body = json!({
        "status": if db_ok { "ok" } else { "degraded" },
        "version": env!("CARGO_PKG_VERSION"),
        "uptime_s": st.started.elapsed().as_secs_f64(),
        "database": {"backend": st.store.backend(), "ok": db_ok},
        "store": {
            "rows_written": w.rows_written.load(Ordering::Relaxed),
            "buffered": w.buffered.load(Ordering::Relaxed),
            "errors": w.errors.load(Ordering::Relaxed),
            "dropped": w.dropped.load(Ordering::Relaxed),
            "spilled": w.spilled.load(Ordering::Relaxed),
            "spill_pending": w.spill_pending.load(Ordering::Relaxed),
            "last_error": w.last_error.lock().unwrap().clone(),
        },
        "active_run": st.hub.active(st.config.default_track()),
        "runs_in_progress": st.supervisor.active_count(),
    });
    let code = if db_ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (code, axum::Json(body)).into_response()
}
