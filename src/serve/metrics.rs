//! `/metrics`: Prometheus text exposition format 0.0.4.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;

use super::context::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/metrics", get(metrics))
}

pub fn render(st: &AppState) -> String {
    let m = &st.metrics;
    let w = &st.writer.stats;
    let g = |c: &AtomicU64| c.load(Ordering::Relaxed);
    let mut out = String::new();
    let mut put = |name: &str, kind: &str, help: &str, v: u64| {
        let _ = writeln!(
            out,
            "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {v}"
        );
    };
    put(
        "scil_http_requests_total",
        "counter",
        "HTTP requests served.",
        g(&m.http_requests),
    );
    put(
        "scil_runs_created_total",
        "counter",
        "Runs created.",
        g(&m.runs_created),
    );
    put(
        "scil_runs_finished_total",
        "counter",
        "Runs finished.",
        g(&m.runs_finished),
    );
    put(
        "scil_runs_aborted_total",
        "counter",
        "Runs aborted.",
        g(&m.runs_aborted),
    );
    put(
        "scil_runs_failed_total",
        "counter",
        "Runs failed.",
        g(&m.runs_failed),
    );
    put(
        "scil_runs_in_progress",
        "gauge",
        "Runs not yet terminal.",
        st.runs.lock().unwrap().len() as u64,
    );
    put(
        "scil_samples_ingested_total",
        "counter",
        "Samples applied to engines.",
        g(&m.samples_ingested),
    );
    put(
        "scil_engine_events_total",
        "counter",
        "Engine events.",
        g(&m.engine_events),
    );
    put(
        "scil_uploads_total",
        "counter",
        "Replay uploads.",
        g(&m.uploads),
    );
    put(
        "scil_telemetry_rows_written_total",
        "counter",
        "Telemetry rows written to the database.",
        g(&w.rows_written),
    );
    put(
        "scil_events_written_total",
        "counter",
        "Events written to the database.",
        g(&w.events_written),
    );
    put(
        "scil_store_batches_total",
        "counter",
        "Write transactions committed.",
        g(&w.batches),
    );
    put(
        "scil_store_write_errors_total",
        "counter",
        "Failed write attempts (retried).",
        g(&w.errors),
    );
    put(
        "scil_store_buffered_rows",
        "gauge",
        "Rows waiting to be written.",
        g(&w.buffered),
    );
    put(
        "scil_store_dropped_rows_total",
        "counter",
        "Rows dropped (writer overwhelmed or buffer cap reached).",
        g(&w.dropped),
    );
    put(
        "scil_ws_clients",
        "gauge",
        "Connected WebSocket clients.",
        g(&m.ws_clients),
    );
    put(
        "scil_ws_frames_sent_total",
        "counter",
        "WebSocket frames sent.",
        g(&m.ws_frames_sent),
    );
    put(
        "scil_ws_lagged_frames_total",
        "counter",
        "Frames skipped for slow WebSocket clients.",
        g(&m.ws_lagged_frames),
    );
    out
}

async fn metrics(State(st): State<AppState>) -> impl IntoResponse {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        render(&st),
    )
}
