//! `/sweeps`: sweeps run by the service. `POST /sweeps` (operator) checks the grid
//! and the sources, then runs the sweep in the background (`spawn_blocking`: the same
//! [`crate::sweep::execute`] as `scil sweep`) into `<storage_dir>/sweeps/<id>/`; progress goes
//! to every live WebSocket client as `{"type":"sweep", …}` frames (at most ten a second, and
//! the last one); `GET /sweeps/{id}` gives progress, rows, the report's plots and links to
//! `report.html` and `results.csv`; `POST /sweeps/{id}/cancel` keeps what finished.
//!
//! Request: `{"scenario_id": "cpna75_30kmh", "replays": ["cpna75_30kmh", …],
//! "vary": ["method=predicted,at_sample", "noise.pos=0,0.1"], "repeat": 5, "seed": 1,
//! "jobs": 2}` or `"sim_vut_speed": [10, 30, 50]` instead of `replays`.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use chrono::Utc;
use serde::Deserialize;
use serde_json::{json, Value};

use super::auth::{Operator, Reader};
use super::error::{ApiError, ApiJson, ApiResult};
use super::state::AppState;
use crate::scenario::engine::EngineConfig;
use crate::sweep::{self, Axis, Row, Source};

/// Runs above this in one service sweep are refused (the CLI's `--max-runs` default).
pub const SERVICE_MAX_RUNS: usize = sweep::DEFAULT_MAX_RUNS;

use super::sweep_jobs::{lock, Job};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/sweeps", get(list).post(create))
        .route("/sweeps/{id}", get(get_one))
        .route("/sweeps/{id}/cancel", post(cancel))
        .route("/sweeps/{id}/report.html", get(report_html))
        .route("/sweeps/{id}/results.csv", get(results_csv))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateSweep {
    pub scenario_id: String,
    /// Replays to sweep over (absent: none); an empty list or null is refused.
    #[serde(default, deserialize_with = "super::error::not_null")]
    pub replays: Option<Vec<String>>,
    /// Simulated-VUT speeds instead of replays (absent: none); an empty list or null is refused.
    #[serde(default, deserialize_with = "super::error::not_null")]
    pub sim_vut_speed: Option<Vec<f64>>,
    #[serde(default)]
    pub vary: Vec<String>,
    #[serde(default = "one")]
    pub repeat: u32,
    #[serde(default = "one_u64")]
    pub seed: u64,
    /// Worker threads (default and maximum: every core).
    #[serde(default)]
    pub jobs: usize,
}

fn one() -> u32 {
    1
}
fn one_u64() -> u64 {
    1
}

async fn create(
    State(st): State<AppState>,
    _op: Operator,
    ApiJson(req): ApiJson<CreateSweep>,
) -> ApiResult<Response> {
    let bad = |e: sweep::SweepError| ApiError::Unprocessable(e.to_string());
    let vary = req
        .vary
        .iter()
        .map(|v| Axis::parse(v))
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad)?;
    let (sc, scenario) = st.load_scenario(&req.scenario_id, "does not exist").await?;
    let map = st.map_opt(sc.map_id.as_deref()).await?;
    let source = match (&req.replays, &req.sim_vut_speed) {
        (Some(_), Some(_)) => {
            return Err(ApiError::Unprocessable(
                "give either \"replays\" or \"sim_vut_speed\", not both".into(),
            ))
        }
        (Some(r), None) if r.is_empty() => {
            return Err(ApiError::Unprocessable("\"replays\" is empty".into()))
        }
        (None, Some(v)) if v.is_empty() => {
            return Err(ApiError::Unprocessable("\"sim_vut_speed\" is empty".into()))
        }
        (None, Some(v)) => Source::Sim(v.clone()),
        (r, None) => {
            let mut out = Vec::new();
            for id in r.iter().flatten() {
                let Some(row) = st.store.get_replay(id).await? else {
                    return Err(ApiError::Unprocessable(
                        super::known::unknown(&st.store, "replay", id).await,
                    ));
                };
                out.push((
                    id.clone(),
                    super::shared_files::replay_path(&st, &row).await?,
                ));
            }
            Source::Replays(out)
        }
    };
    let (repeat, seed) = (req.repeat, req.seed);
    // Checks and reads the replays off the async workers; every error before anything runs.
    let plan = tokio::task::spawn_blocking(move || {
        sweep::plan(
            scenario,
            map,
            EngineConfig::default(),
            source,
            vary,
            repeat,
            seed,
            SERVICE_MAX_RUNS,
        )
    })
    .await
    .map_err(|e| anyhow::anyhow!("sweep planning: {e}"))?
    .map_err(bad)?;
    let id = uuid::Uuid::new_v4().simple().to_string()[..12].to_string();
    let dir = st.config.storage_dir.join("sweeps").join(&id);
    let job = Arc::new(Job {
        id: id.clone(),
        created_at: Utc::now(),
        scenario_id: req.scenario_id.clone(),
        total: plan.grid.runs(),
        keys: plan
            .grid
            .keys()
            .iter()
            .map(|k| k.name().to_string())
            .collect(),
        done: AtomicUsize::new(0),
        cancel: AtomicBool::new(false),
        dir,
        state: Mutex::new("running"),
        rows: Mutex::new(Vec::new()),
        plots: Mutex::new(Vec::new()),
        table2: Mutex::new(Value::Null),
        error: Mutex::new(None),
    });
    lock(&st.sweeps.0).insert(id.clone(), job.clone());
    let jobs = match req.jobs {
        0 => sweep::default_jobs(),
        j => j.min(sweep::default_jobs()),
    };
    let st2 = st.clone();
    let j2 = job.clone();
    tokio::task::spawn_blocking(move || run_job(st2, j2, plan, jobs));
    Ok((StatusCode::ACCEPTED, axum::Json(job.summary())).into_response())
}

/// The background part: runs, progress frames, outputs.
fn run_job(st: AppState, job: Arc<Job>, plan: sweep::Plan, jobs: usize) {
    let frame = |job: &Job| {
        let mut v = job.summary();
        v["type"] = json!("sweep");
        v
    };
    st.hub.notice(&frame(&job));
    let mut last = Instant::now();
    let out = sweep::execute(&plan, jobs, &job.cancel, &mut |_, done| {
        job.done.store(done, Ordering::Relaxed);
        if last.elapsed() >= Duration::from_millis(100) {
            last = Instant::now();
            st.hub.notice(&frame(&job));
        }
    });
    let state = match sweep::write_outputs(&job.dir, &plan, &out) {
        Ok(()) if out.cancelled => "cancelled",
        Ok(()) => "finished",
        Err(e) => {
            *lock(&job.error) = Some(format!("writing the report: {e}"));
            "failed"
        }
    };
    *lock(&job.plots) = sweep::report::plots(&plan.grid, &out.rows);
    *lock(&job.table2) = json!(sweep::report::table2(&plan.grid, &out.rows));
    *lock(&job.rows) = out.rows;
    *lock(&job.state) = state;
    st.hub.notice(&frame(&job));
}

async fn list(State(st): State<AppState>, _r: Reader) -> ApiResult<Response> {
    let mut jobs: Vec<Arc<Job>> = lock(&st.sweeps.0).values().cloned().collect();
    jobs.sort_by_key(|j| std::cmp::Reverse(j.created_at));
    let v: Vec<Value> = jobs.iter().map(|j| j.summary()).collect();
    Ok(axum::Json(v).into_response())
}

fn job(st: &AppState, id: &str) -> ApiResult<Arc<Job>> {
    st.sweeps
        .get(id)
        .ok_or_else(|| ApiError::not_found("sweep", id))
}

async fn get_one(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let j = job(&st, &id)?;
    let mut v = j.summary();
    v["rows"] = Value::Array(lock(&j.rows).iter().map(Row::to_json).collect());
    v["plots"] = json!(*lock(&j.plots));
    v["table2"] = lock(&j.table2).clone();
    Ok(axum::Json(v).into_response())
}

async fn cancel(
    State(st): State<AppState>,
    _op: Operator,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let j = job(&st, &id)?;
    j.cancel.store(true, Ordering::Relaxed);
    Ok(axum::Json(j.summary()).into_response())
}

async fn file(st: &AppState, id: &str, name: &str, mime: &'static str) -> ApiResult<Response> {
    let j = job(st, id)?;
    if *lock(&j.state) == "running" {
        return Err(ApiError::Conflict(format!("sweep '{id}' is still running")));
    }
    let body = tokio::fs::read(j.dir.join(name))
        .await
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("sweep '{id}': {name}: {e}")))?;
    Ok(([(header::CONTENT_TYPE, mime)], body).into_response())
}

async fn report_html(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    file(&st, &id, "report.html", "text/html; charset=utf-8").await
}

async fn results_csv(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    file(&st, &id, "results.csv", "text/csv; charset=utf-8").await
}
