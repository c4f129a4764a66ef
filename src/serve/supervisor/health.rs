//! A running run's `health` frame, about once per second: each source's rate, age and error
//! counts (INS and CAN of a live source, the engine's applied samples) and the store's write
//! health.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::run::ActiveRun;
use super::Supervisor;

/// One live source's health entry of a `health` frame.
pub fn ingest_health_json(h: &crate::ingest::health::HealthSnapshot) -> Value {
    json!({"name": h.source, "rate_hz": h.rate_hz, "age_s": h.last_sample_age_s,
           "errors": h.malformed + h.checksum_failed + h.out_of_order,
           "samples": h.samples, "messages": h.messages, "malformed": h.malformed,
           "checksum_failed": h.checksum_failed, "out_of_order": h.out_of_order,
           "no_fix": h.no_fix, "not_locked": h.not_locked, "last_error": h.last_error,
           "rejected": h.rejected})
}

/// About once per second: source rate/age/errors and the store's write health.
pub async fn ticker(st: Supervisor, run: Arc<ActiveRun>) {
    let mut iv = tokio::time::interval(Duration::from_secs(1));
    iv.tick().await; // the first tick is immediate: report after a full second
    let mut prev = (
        Instant::now(),
        0u64,
        st.writer.stats.rows_written.load(Ordering::Relaxed),
    );
    loop {
        iv.tick().await;
        let now = Instant::now();
        let dt = (now - prev.0).as_secs_f64().max(1e-3);
        let live: Vec<Value> = run
            .ingest_health
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|h| ingest_health_json(&h.snapshot()))
            .collect();
        let (src, n) = {
            let h = run.health.lock().unwrap_or_else(|p| p.into_inner());
            let n = h.samples;
            (
                json!({"name": h.name, "rate_hz": (n.saturating_sub(prev.1)) as f64 / dt,
                       "age_s": h.last.map(|l| (now - l).as_secs_f64()), "errors": h.errors}),
                n,
            )
        };
        let ws = &st.writer.stats;
        let written = ws.rows_written.load(Ordering::Relaxed);
        let store = json!({"name": "store", "rate_hz": (written.saturating_sub(prev.2)) as f64 / dt,
                           "age_s": st.writer.last_ok_age_s(), "errors": ws.errors.load(Ordering::Relaxed),
                           "buffered": ws.buffered.load(Ordering::Relaxed),
                           "dropped": ws.dropped.load(Ordering::Relaxed)});
        prev = (now, n, written);
        let mut sources = live;
        if sources.is_empty() {
            sources.push(src);
        } else {
            // The engine's side of a live source: samples applied.
            let mut e = src;
            e["name"] = json!("engine");
            sources.push(e);
        }
        sources.push(store);
        run.send(&json!({"type": "health", "run_id": run.id, "sources": sources}));
    }
}
