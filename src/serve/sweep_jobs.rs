//! The sweeps this service runs, by id: each one's progress, rows, plots and error as the
//! background task fills them in.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use chrono::Utc;
use serde_json::{json, Value};

use crate::sweep::{report::Plot, Row};

/// The service's sweeps, by id.
#[derive(Default)]
pub struct Registry(pub Mutex<HashMap<String, Arc<Job>>>);

impl Registry {
    pub fn get(&self, id: &str) -> Option<Arc<Job>> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()
    }
}

/// One sweep of the service.
pub struct Job {
    pub id: String,
    pub created_at: chrono::DateTime<Utc>,
    pub scenario_id: String,
    pub total: usize,
    pub keys: Vec<String>,
    pub done: AtomicUsize,
    pub cancel: AtomicBool,
    pub dir: PathBuf,
    pub state: Mutex<&'static str>,
    pub rows: Mutex<Vec<Row>>,
    pub plots: Mutex<Vec<Plot>>,
    pub table2: Mutex<Value>,
    pub error: Mutex<Option<String>>,
}

pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Job {
    pub fn summary(&self) -> Value {
        json!({
            "id": self.id,
            "state": *lock(&self.state),
            "scenario_id": self.scenario_id,
            "created_at": self.created_at,
            "done": self.done.load(Ordering::Relaxed),
            "total": self.total,
            "keys": self.keys,
            "error": *lock(&self.error),
            "report_url": format!("/api/v1/sweeps/{}/report.html", self.id),
            "csv_url": format!("/api/v1/sweeps/{}/results.csv", self.id),
        })
    }
}
