//! `/metrics`: Prometheus text exposition format 0.0.4.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;

use super::state::AppState;

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
        "scil_audit_failures_total",
        "counter",
        "Audit entries the database did not take.",
        g(&m.audit_failures),
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
        st.supervisor.active_count() as u64,
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
        "scil_store_spilled_rows_total",
        "counter",
        "Rows written to the spill file (buffer full while the database failed).",
        g(&w.spilled),
    );
    put(
        "scil_store_spill_replayed_rows_total",
        "counter",
        "Rows written back from spill files into the database.",
        g(&w.spill_replayed),
    );
    put(
        "scil_store_spill_pending_rows",
        "gauge",
        "Rows in spill files not yet written back.",
        g(&w.spill_pending),
    );
    put(
        "scil_store_spill_problems_total",
        "counter",
        "Spill files found torn, corrupt or unreadable.",
        g(&w.spill_problems),
    );
    put(
        "scil_store_wal_bytes",
        "gauge",
        "SQLite write-ahead log size after the last batch, bytes.",
        g(&w.wal_bytes),
    );
    put(
        "scil_store_wal_peak_bytes",
        "gauge",
        "Largest SQLite write-ahead log size seen after a batch, bytes.",
        g(&w.wal_peak_bytes),
    );
    put(
        "scil_runs_unsaved",
        "gauge",
        "Ended runs whose final state is not stored yet (retried).",
        st.supervisor.unsaved.len() as u64,
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
    put(
        "scil_samples_rejected_total",
        "counter",
        "Live samples skipped (not mappable to the map frame).",
        g(&m.samples_rejected),
    );
    // Live ingest sources (one series per source name).
    let sources: Vec<_> = st
        .sources
        .lock()
        .unwrap()
        .values()
        .map(|h| h.snapshot())
        .collect();
    if !sources.is_empty() {
        let esc = |s: &str| {
            s.replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n")
        };
        type Get = fn(&crate::ingest::health::HealthSnapshot) -> f64;
        let series: [(&str, &str, &str, Get); 9] = [
            (
                "scil_source_messages_total",
                "counter",
                "Messages received by a live source.",
                |h| h.messages as f64,
            ),
            (
                "scil_source_samples_total",
                "counter",
                "Samples produced by a live source.",
                |h| h.samples as f64,
            ),
            (
                "scil_source_malformed_total",
                "counter",
                "Malformed messages of a live source.",
                |h| h.malformed as f64,
            ),
            (
                "scil_source_checksum_failed_total",
                "counter",
                "Messages with a failed checksum.",
                |h| h.checksum_failed as f64,
            ),
            (
                "scil_source_out_of_order_total",
                "counter",
                "Messages out of time order (dropped).",
                |h| h.out_of_order as f64,
            ),
            (
                "scil_source_no_fix_total",
                "counter",
                "Valid messages without a sample.",
                |h| h.no_fix as f64,
            ),
            (
                "scil_source_not_locked_total",
                "counter",
                "Samples without a locked navigation status.",
                |h| h.not_locked as f64,
            ),
            (
                "scil_source_rate_hz",
                "gauge",
                "Samples per second over the last two seconds.",
                |h| h.rate_hz,
            ),
            (
                "scil_source_age_seconds",
                "gauge",
                "Seconds since the last sample (-1 before the first).",
                |h| h.last_sample_age_s.unwrap_or(-1.0),
            ),
        ];
        for (name, kind, help, get) in series {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
            for h in &sources {
                let _ = writeln!(out, "{name}{{source=\"{}\"}} {}", esc(&h.source), get(h));
            }
        }
    }
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
