//! Ended runs whose final state or result the database did not take (a full disk, a database
//! restart): kept in memory, answered by the API as if stored, and written again in the
//! background until the database takes them. Also the result of an ended run that has none
//! stored (ended before it started, or by a restart): derived from its row, so `results`
//! answers for every ended run.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use super::Supervisor;
use crate::run::{RunReport, RunState};
use crate::store::RunRow;

#[derive(Default)]
pub struct Unsaved {
    runs: Mutex<HashMap<String, Entry>>,
}

#[derive(Clone)]
struct Entry {
    row: RunRow,
    /// The result JSON while it is not stored.
    result: Option<String>,
}

impl Unsaved {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.runs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The run's final row while the database does not have it.
    pub fn row(&self, id: &str) -> Option<RunRow> {
        self.lock().get(id).map(|e| e.row.clone())
    }

    /// The run's result while the database does not have it.
    pub fn result(&self, id: &str) -> Option<String> {
        self.lock().get(id).and_then(|e| e.result.clone())
    }

    /// Replaces rows of `rows` by their unsaved final state.
    pub fn overlay(&self, rows: &mut [RunRow]) {
        let m = self.lock();
        if m.is_empty() {
            return;
        }
        for r in rows.iter_mut() {
            if let Some(e) = m.get(&r.id) {
                *r = e.row.clone();
            }
        }
    }

    /// Number of ended runs not yet stored (for `/metrics`).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Keeps `row` (terminal) and, unless stored already, its `result`, and writes them in the
/// background (every 1 s, backing off to 10 s) until the database takes both; then the
/// run's carrier claims are released with the row.
pub fn keep(st: &Supervisor, row: RunRow, result: Option<String>) {
    let id = row.id.clone();
    st.unsaved.lock().insert(id.clone(), Entry { row, result });
    let st = st.clone();
    tokio::spawn(async move {
        let mut wait = Duration::from_secs(1);
        loop {
            tokio::time::sleep(wait).await;
            let Some(e) = st.unsaved.lock().get(&id).cloned() else {
                return;
            };
            if let Some(json) = &e.result {
                if st.store.put_result(&id, json).await.is_err() {
                    wait = (wait * 2).min(Duration::from_secs(10));
                    continue;
                }
                if let Some(x) = st.unsaved.lock().get_mut(&id) {
                    x.result = None;
                }
            }
            match st.store.update_run(&e.row).await {
                Ok(()) => {
                    tracing::info!("run {id}: final state stored after the database recovered");
                    st.unsaved.lock().remove(&id);
                    return;
                }
                Err(_) => wait = (wait * 2).min(Duration::from_secs(10)),
            }
        }
    });
}

/// The result of an ended run that has none stored: its error or abort reason, no samples.
pub fn derived_result(row: &RunRow) -> Option<String> {
    // Ended and settled (an aborting run reads `aborted` before it is settled).
    row.finished_at?;
    let state = RunState::parse(&row.state)?;
    if !matches!(
        state,
        RunState::Finished | RunState::Aborted | RunState::Failed
    ) {
        return None;
    }
    let report = RunReport {
        aborted: (state == RunState::Aborted).then(|| row.error.clone().unwrap_or_default()),
        error: (state != RunState::Aborted)
            .then(|| row.error.clone())
            .flatten(),
        ..RunReport::default()
    };
    let mut v = serde_json::to_value(&report).ok()?;
    v["derived"] = serde_json::json!(true);
    Some(v.to_string())
}
