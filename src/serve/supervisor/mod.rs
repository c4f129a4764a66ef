//! The run supervisor: the one owner of this instance's active runs, from create to stored
//! result. It holds the active runs and the ended runs whose data is not stored yet, and it
//! does everything a run's life needs: carrier claims ([`claims`]), arming and starting
//! ([`lifecycle`]), what is special to objects on the ground ([`ground`]), the session with the service's sinks ([`sinks`]), health frames
//! ([`health`]), the simulated VUT beside a session ([`vehicle`]), settling the result
//! ([`settle`], [`unsaved`]), and the runs a stopped process left, at startup and while this
//! instance keeps its lease ([`recovery`]).
//!
//! It is given the shared context ([`Ctx`]: store, writer, live hub, instance, maps, carrier
//! board) and knows nothing of HTTP routes; every handler is a thin adapter calling it.

mod admission;
mod claims;
mod drive;
pub mod ground;
mod health;
pub mod lifecycle;
mod objects;
mod provenance;
mod recovery;
mod run;
mod settle;
mod sinks;
pub mod unsaved;
mod vehicle;
pub mod virtual_targets;

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use ground::{geofence_of, options_for as ground_options_for};
pub use health::ingest_health_json;
pub use run::{speed_to_db, ActiveRun, CarrierSpec, NewRun, RunSource, StoredSource};
pub use unsaved::derived_result;

use super::context::{Ctx, Shared};
use super::error::ApiResult;
use crate::run::RunState;
use crate::store::RunRow;

/// Cheaply cloneable handle to the supervisor.
#[derive(Clone)]
pub struct Supervisor(Arc<Inner>);

pub struct Inner {
    ctx: Ctx,
    /// The runs that are not terminal yet, by id.
    runs: Mutex<HashMap<String, Arc<ActiveRun>>>,
    /// Ended runs whose final state or result is not stored yet.
    pub unsaved: unsaved::Unsaved,
    /// Runs with objects on the ground, and the objects' last poses.
    pub ground: ground::Board,
}

impl Deref for Supervisor {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl Deref for Inner {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.ctx
    }
}

impl Supervisor {
    pub fn new(ctx: Ctx) -> Supervisor {
        Supervisor(Arc::new(Inner {
            ctx,
            runs: Mutex::new(HashMap::new()),
            unsaved: Default::default(),
            ground: Default::default(),
        }))
    }

    /// An active run (not terminal yet).
    pub fn active(&self, id: &str) -> Option<Arc<ActiveRun>> {
        run::lock(&self.runs).get(id).cloned()
    }

    /// True while run `id` is not terminal.
    pub fn is_active(&self, id: &str) -> bool {
        self.active(id).is_some()
    }

    /// How many runs are active.
    pub fn active_count(&self) -> usize {
        run::lock(&self.runs).len()
    }

    /// Creates a run (state `created`).
    pub async fn create(&self, req: NewRun) -> ApiResult<RunRow> {
        lifecycle::create(self, req).await
    }

    /// Creates, arms and starts a run in one step.
    pub async fn create_and_start(&self, req: NewRun) -> ApiResult<RunRow> {
        lifecycle::create_and_start(self, req).await
    }

    /// `created → armed`.
    pub async fn arm(&self, id: &str, expect: Option<RunState>) -> ApiResult<RunRow> {
        lifecycle::arm(self, id, expect).await
    }

    /// `armed → running`.
    pub async fn start(&self, id: &str, expect: Option<RunState>) -> ApiResult<RunRow> {
        lifecycle::start(self, id, expect).await
    }

    /// Operator finish of a running run.
    pub async fn finish(&self, id: &str, expect: Option<RunState>) -> ApiResult<RunRow> {
        lifecycle::finish(self, id, expect).await
    }

    /// Drives the objects of run `id` to its start poses (202: under way): back after the run
    /// has ended, or, for a run not armed yet, from wherever they stand (the next test's start).
    pub async fn return_to_start(&self, id: &str) -> ApiResult<serde_json::Value> {
        if let Some(run) = self.active(id) {
            let row = run.row.lock().await.clone();
            if row.state != RunState::Created.to_string() || !ground::is_ground(&run.carriers)? {
                return Err(crate::serve::error::ApiError::Conflict(format!(
                    "cannot drive the objects of run '{id}' to their starts: the run is {}{}",
                    row.state,
                    if row.state == RunState::Created.to_string() {
                        " and has no objects on the ground"
                    } else {
                        " (abort it first)"
                    }
                )));
            }
            let setup = lifecycle::setup_of(self, &row, &run.carriers).await?;
            return ground::position(self, &row, &setup, &run.carriers).await;
        }
        ground::return_to_start(self, id).await
    }

    /// A run's objects on the ground, if it has any.
    pub async fn objects(&self, id: &str) -> Option<serde_json::Value> {
        objects::view(self, id)
    }

    /// `created → armed`, moving on although an object is not at its start.
    pub async fn arm_override(&self, id: &str, expect: Option<RunState>) -> ApiResult<RunRow> {
        lifecycle::arm_with(self, id, expect, true).await
    }

    /// Operator abort.
    pub async fn abort(
        &self,
        id: &str,
        reason: &str,
        expect: Option<RunState>,
    ) -> ApiResult<RunRow> {
        lifecycle::abort(self, id, reason, expect).await
    }

    /// Aborts every active run.
    pub async fn abort_all(&self, reason: &str) -> Vec<RunRow> {
        lifecycle::abort_all(self, reason).await
    }

    /// Waits until a run is terminal (or `timeout`).
    pub async fn wait_done(&self, id: &str, timeout: Duration) -> ApiResult<RunRow> {
        lifecycle::wait_done(self, id, timeout).await
    }

    /// A running run whose abort was requested, as the API shows it (`aborted`).
    pub fn aborting_view(&self, id: &str) -> Option<RunRow> {
        lifecycle::aborting_view(self, id)
    }

    /// The row of a run as it is now: an ended run's unsaved row, or a running run being
    /// aborted.
    pub fn current_row(&self, id: &str) -> Option<RunRow> {
        self.unsaved.row(id).or_else(|| self.aborting_view(id))
    }
}
