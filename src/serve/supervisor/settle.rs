//! The end of a run: its report settled, its telemetry accounted for (a run is `finished` only
//! when every row it produced is stored), its result stored, its carriers marked disconnected.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use serde::Serialize;
use serde_json::{json, Value};

use super::run::{lock, set_state, ActiveRun};
use super::Supervisor;
use crate::run::{RunReport, RunState};

/// Settles an ended run: its data first, then its result, then its terminal state.
pub(super) async fn settle(
    st: &Supervisor,
    run: &Arc<ActiveRun>,
    mut report: RunReport,
    real_carriers: bool,
) {
    let outcome = crate::run::session::outcome_of(&report);
    // An abort no object's rule explains: the operator's, or the run's own.
    if report.abort.is_none() {
        if let Some(r) = &report.aborted {
            let by_operator = matches!(
                run.stop.requested(),
                Some(crate::run::StopRequest::Abort {
                    by: crate::run::Stopper::Operator,
                    ..
                })
            );
            let kind = if by_operator { "operator" } else { "run" };
            report.abort = Some(crate::dispatch::events::AbortInfo::other(kind, r));
        }
    }
    // The objects on the ground: where each ended, before the run is seen ended.
    st.ground.settled(&run.id).await;
    // Telemetry and events first: a run is marked finished only once every row it sent is
    // committed (the writer keeps retrying through a full disk or a database restart, for
    // `telemetry.settle_timeout_s` at most).
    let deadline = Instant::now() + st.config.telemetry.settle_timeout();
    let mut committed = false;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if st.writer.flush(left.min(Duration::from_secs(10))).await {
            committed = true;
            break;
        }
        if left.is_zero() {
            break;
        }
        tracing::warn!(
            "run {}: telemetry not yet committed (database slow or failing); kept buffered, \
             {:.0} s left",
            run.id,
            left.as_secs_f64()
        );
    }
    // The recording goes into the database before the run is seen finished.
    if run.recording.is_some() {
        crate::serve::shared_files::share_recording(st, &run.id).await;
    }
    let storage = telemetry_accounting(st, run, committed).await;
    let loss = storage.loss();
    let row_now = run.row.lock().await.clone();
    let provenance = super::provenance::of(st, run, &row_now).await;
    let result_json = {
        let mut v = serde_json::to_value(&report).unwrap_or_else(|_| json!({}));
        v["storage"] = serde_json::to_value(&storage).unwrap_or(Value::Null);
        // The result names the instance that ran it (several may share the database).
        v["instance"] = json!(st.instance.id);
        v["provenance"] = provenance;
        super::virtual_targets::mark(&mut v, &run.virtual_targets);
        v.to_string()
    };
    let sealed_result = result_json.clone();
    let result_pending = match st.store.put_result(&run.id, &result_json).await {
        Ok(()) => None,
        Err(e) => {
            tracing::error!(
                "run {}: cannot store the result (kept, retried): {e}",
                run.id
            );
            Some(result_json)
        }
    };
    if real_carriers {
        // The control centre is gone: the carriers keep their last state, disconnected.
        let mut cs = lock(&st.carriers);
        for spec in &run.carriers {
            if let Some(c) = cs.get_mut(&spec.name) {
                c.connected = Some(false);
                c.updated_at = Some(Utc::now());
            }
        }
    }
    let mut row = run.row.lock().await;
    row.finished_at = Some(Utc::now());
    let reason = report.error.clone().or_else(|| report.aborted.clone());
    row.error = match (reason, &loss) {
        (Some(r), Some(l)) => Some(format!("{r}; {l}")),
        (r, l) => r.or_else(|| l.clone()),
    }
    .map(|r| crate::store::bound_reason(&r));
    row.abort = report
        .abort
        .as_ref()
        .and_then(|a| serde_json::to_string(a).ok());
    // Never `finished` with rows missing.
    let state = match RunState::from(outcome) {
        RunState::Finished if loss.is_some() => RunState::Failed,
        s => s,
    };
    set_state(st, run, &mut row, state);
    // The seal follows the final state event in the run's chain.
    super::provenance::seal(st, &row, &sealed_result).await;
    // The final state event is written before the row says terminal.
    st.writer.flush(Duration::from_secs(5)).await;
    let stored = st.store.update_run(&row).await;
    if let Err(e) = &stored {
        tracing::error!(
            "run {}: cannot store the final state (kept, retried): {e}",
            run.id
        );
    }
    if stored.is_err() || result_pending.is_some() {
        super::unsaved::keep(st, row.clone(), result_pending);
    }
    drop(row);
    match state {
        RunState::Finished => &st.metrics.runs_finished,
        RunState::Aborted => &st.metrics.runs_aborted,
        _ => &st.metrics.runs_failed,
    }
    .fetch_add(1, Ordering::Relaxed);
    lock(&st.runs).remove(&run.id);
    // The run's telemetry no longer grows: into columnar chunks (its rows stay until the
    // chunks are committed; what fails here is done again at the next start).
    if stored.is_ok() {
        if let Err(e) = st.store.compact_run(&run.id).await {
            tracing::error!(
                "run {}: telemetry not compacted (kept as rows): {e}",
                run.id
            );
        }
    }
    let _ = run.done.send(true);
}

/// What became of a run's telemetry: rows sent to the writer, rows the database holds.
#[derive(Debug, Serialize)]
struct Storage {
    rows_sent: u64,
    /// None: the database did not answer the count.
    rows_stored: Option<u64>,
    rows_lost: Option<u64>,
}

impl Storage {
    /// Why the run cannot be `finished`, if it cannot.
    fn loss(&self) -> Option<String> {
        match self.rows_lost {
            Some(0) => None,
            Some(n) => Some(format!(
                "{n} of {} telemetry rows lost: the database kept failing",
                self.rows_sent
            )),
            None => Some(format!(
                "telemetry of {} rows unverified: the database does not answer",
                self.rows_sent
            )),
        }
    }
}

/// Counts the run's stored rows. When the writer could not commit them in time, the rows it
/// still holds are given up first, so the count is final and the loss exact.
async fn telemetry_accounting(st: &Supervisor, run: &ActiveRun, committed: bool) -> Storage {
    if !committed {
        let n = st.writer.discard_run(&run.id).await.unwrap_or(0);
        tracing::error!("run {}: {n} buffered telemetry rows given up", run.id);
    }
    let rows_sent = run.rows_sent.load(Ordering::Relaxed);
    let rows_stored = st
        .store
        .telemetry_count(&run.id)
        .await
        .ok()
        .map(|n| n.max(0) as u64);
    Storage {
        rows_sent,
        rows_stored,
        rows_lost: rows_stored.map(|n| rows_sent.saturating_sub(n)),
    }
}
