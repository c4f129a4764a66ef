//! The HTTP lifecycle of a run: `created → armed → running → finished | aborted | failed`
//! (`created`/`armed` may also go straight to `aborted`). The database row is the record; an
//! [`ActiveRun`] lives in memory until the run is terminal and carries the live channel, the
//! stop handle and the prepared session.
//!
//! The run itself is the run layer's: arming builds a [`RunSetup`] from the stored scenario and
//! map, opens the source through the one source factory (live sockets are bound then, so their
//! health shows before the start), and starting runs a [`Session`] with the service's sinks
//! ([`super::run_sinks`]: store, live stream, simulated carriers) and, with real carriers, the
//! run layer's carriers sink.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::broadcast;

use super::carrier_claims::{claim_error, claims_for};
use super::context::AppState;
use super::error::{ApiError, ApiResult};
use super::live::{frame, Frame, RUN_CHANNEL};
use super::run_sinks::{dispatch_observer, LiveSink, SimCarrierSink, StoreSink};
use crate::ingest::can::{CanMapping, DbcDecoder};
use crate::ingest::csv::BadRowPolicy;
use crate::ingest::health::SourceHealth as IngestHealth;
use crate::run::sink::carriers::{CarrierOptions, CarrierSink};
use crate::run::sink::recording::McapSink;
use crate::run::{
    CanSpec, Feed, InsSpec, JsonTransport, OpenCtx, Pace, RunReport, RunSetup, RunState, Session,
    SessionOptions, SourceSpec, StopHandle, Stopper,
};
use crate::scenario::engine::EngineConfig;
use crate::scenario::Scenario;
use crate::store::RunRow;

/// Where a run's INS telemetry comes from, as the API takes and stores it. Tagged by `kind`.
///
/// `csv_replay` names a registered recording (never a path); the others are live sources
/// bound when the run is armed and applied in real time (the run's speed does not apply).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunSource {
    /// A recorded CSV (bundled or uploaded) replayed at the run's speed.
    CsvReplay {
        replay_id: String,
        /// Original file name (display only; the file is stored under a generated name).
        file_name: String,
    },
    /// OxTS NCOM over UDP, e.g. `{"kind":"ncom","bind":"0.0.0.0:3000"}`.
    Ncom { bind: String },
    /// JSON lines over UDP datagrams, a TCP server or a WebSocket server.
    Json {
        transport: JsonTransport,
        bind: String,
    },
    /// The built-in simulated VUT with its AEB (`{"kind":"sim_vut","vut_speed_kmh":40,
    /// "aeb":{"ttc_s":1.2,"decel_mps2":8,"delay_ms":150}}`), paced at the run's speed.
    SimVut(crate::sim::SimOptions),
}

impl RunSource {
    pub fn is_live(&self) -> bool {
        !matches!(self, RunSource::CsvReplay { .. } | RunSource::SimVut(_))
    }
}

/// The stored source of a run: the INS source and, optionally, the CAN source fused with it
/// (`dbc` names a DBC registered with the service).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredSource {
    #[serde(flatten)]
    pub ins: RunSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub can: Option<CanSpec>,
    /// The CAN signal mapping when not the default (e.g. with an FCW signal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub can_mapping: Option<CanMapping>,
    /// Closed-loop synchronisation of the targets (issue 11; `"sync": true` on the run). Kept
    /// with the source so that the stored run says how it ran without a schema change.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sync: bool,
}

/// A real carrier of a run: `name` is the scenario's carrier name, `address` its ISO 22133
/// endpoint `HOST[:TCP_PORT]` (UDP port = TCP − 1) or `HOST:TCP_PORT:UDP_PORT`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CarrierSpec {
    pub name: String,
    pub address: String,
}

/// Source health counters, updated by the store sink, read by the health ticker.
#[derive(Debug, Default)]
pub struct SourceHealth {
    pub name: String,
    pub samples: u64,
    pub errors: u64,
    pub last: Option<Instant>,
}

/// What an armed run has ready.
pub struct Prepared {
    pub setup: Arc<RunSetup>,
    pub feed: Feed,
    pub carriers: Option<CarrierOptions>,
    /// The simulated VUT's vehicle task and its session sink (a `sim_vut` source).
    pub vehicle: Option<super::sim_run::Vehicle>,
}

/// A run that is not terminal yet.
pub struct ActiveRun {
    pub id: String,
    /// The run's row; the lock also serialises state transitions.
    pub row: tokio::sync::Mutex<RunRow>,
    pub tx: broadcast::Sender<Frame>,
    /// Stops the session (operator abort or finish).
    pub stop: StopHandle,
    pub prepared: Mutex<Option<Prepared>>,
    pub health: Mutex<SourceHealth>,
    /// Live source health (ingest counters, INS and CAN), when the source is live.
    pub ingest_health: Mutex<Vec<IngestHealth>>,
    /// Real carriers (ISO 22133) of the run.
    pub carriers: Vec<CarrierSpec>,
    /// Record the run to MCAP (see [`recording_path`]).
    pub record: std::sync::atomic::AtomicBool,
    /// Set when the run reaches a terminal state (tests and the demo wait on it).
    pub done: tokio::sync::watch::Sender<bool>,
    /// Live parameters (`PATCH …/parameters`), in the session's options.
    pub params: crate::run::LiveParams,
    /// Telemetry rows handed to the writer (the run is `finished` only if all are stored).
    pub rows_sent: std::sync::atomic::AtomicU64,
}

impl ActiveRun {
    pub fn new(row: RunRow, carriers: Vec<CarrierSpec>) -> ActiveRun {
        ActiveRun {
            id: row.id.clone(),
            row: tokio::sync::Mutex::new(row),
            tx: broadcast::channel(RUN_CHANNEL).0,
            stop: StopHandle::new(),
            prepared: Mutex::new(None),
            health: Mutex::new(SourceHealth::default()),
            ingest_health: Mutex::new(Vec::new()),
            carriers,
            record: std::sync::atomic::AtomicBool::new(false),
            done: tokio::sync::watch::channel(false).0,
            params: crate::run::LiveParams::new(),
            rows_sent: std::sync::atomic::AtomicU64::new(0),
        }
    }

    pub fn send(&self, v: &Value) {
        if self.tx.receiver_count() > 0 {
            let _ = self.tx.send(frame(v));
        }
    }
}

/// Options of a new run.
#[derive(Debug, Clone)]
pub struct NewRun {
    pub scenario_id: String,
    pub map_id: Option<String>,
    pub source: RunSource,
    /// CAN fused with the INS source.
    pub can: Option<CanSpec>,
    /// Which DBC signals feed which fields (`None`: the default mapping).
    pub can_mapping: Option<CanMapping>,
    pub speed: Pace,
    /// Real carriers (ISO 22133); empty: the carriers are simulated (engine commands only).
    pub carriers: Vec<CarrierSpec>,
    /// Closed-loop synchronisation (also on when the scenario says `sync = true`).
    pub sync: bool,
    /// Record the run to `<storage_dir>/recordings/<id>.mcap` (served by `export.mcap`).
    pub record: bool,
}

pub fn speed_to_db(s: Pace) -> Option<f64> {
    match s {
        Pace::Factor(f) => Some(f),
        Pace::Max | Pace::Live => None,
    }
}

fn speed_of(row: &RunRow) -> Pace {
    row.speed.map_or(Pace::Max, Pace::Factor)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Checks a new run against the store (scenario, map, replay, DBC, carriers).
async fn validate(st: &AppState, req: &NewRun) -> ApiResult<Option<String>> {
    let sc = st
        .store
        .get_scenario(&req.scenario_id)
        .await?
        .ok_or_else(|| {
            ApiError::Unprocessable(format!("scenario '{}' does not exist", req.scenario_id))
        })?;
    let map_id = req.map_id.clone().or(sc.map_id);
    if let Some(m) = &map_id {
        if st.store.get_map(m).await?.is_none() {
            return Err(ApiError::Unprocessable(format!("map '{m}' does not exist")));
        }
    }
    let spec = SourceSpec {
        can: req.can.clone(),
        ..SourceSpec::ins(ins_spec_unresolved(&req.source))
    };
    spec.validate().map_err(ApiError::Unprocessable)?;
    super::sim_run::validate(req)?;
    if let RunSource::CsvReplay { replay_id, .. } = &req.source {
        if st.store.get_replay(replay_id).await?.is_none() {
            return Err(ApiError::Unprocessable(format!(
                "replay '{replay_id}' does not exist"
            )));
        }
        if !req.carriers.is_empty() && req.speed == Pace::Max {
            return Err(ApiError::Unprocessable(
                "real carriers move in real time: a replay with carriers needs a speed factor, not \"max\"".into(),
            ));
        }
    }
    if let Some(c) = &req.can {
        let Some(row) = st.store.get_dbc(c.dbc()).await? else {
            return Err(ApiError::Unprocessable(format!(
                "DBC '{}' is not registered (POST /api/v1/dbcs)",
                c.dbc()
            )));
        };
        if let Some(m) = &req.can_mapping {
            let dbc = DbcDecoder::parse(&row.text)
                .map_err(|e| ApiError::Unprocessable(format!("DBC '{}': {e}", c.dbc())))?;
            let missing = m.missing_in(&dbc);
            if !missing.is_empty() {
                return Err(ApiError::Unprocessable(format!(
                    "DBC '{}' defines no signal {}",
                    c.dbc(),
                    missing.join(", ")
                )));
            }
        }
    } else if req.can_mapping.is_some() {
        return Err(ApiError::Unprocessable(
            "can_mapping needs a CAN source (can)".into(),
        ));
    }
    if !req.carriers.is_empty() {
        let scenario = Scenario::from_toml(&sc.toml)
            .map_err(|e| ApiError::Unprocessable(format!("scenario '{}': {e}", req.scenario_id)))?;
        let setup = RunSetup::new(scenario, None, EngineConfig::default());
        setup
            .carrier_configs(&carrier_specs(&req.carriers)?)
            .map_err(|e| ApiError::Unprocessable(format!("carriers: {e:#}")))?;
    }
    Ok(map_id)
}

/// The INS spec of a stored source before the replay id is resolved to its file.
fn ins_spec_unresolved(src: &RunSource) -> InsSpec {
    match src {
        RunSource::CsvReplay { replay_id, .. } => InsSpec::Csv {
            path: replay_id.into(),
            columns: Vec::new(),
            on_bad_row: BadRowPolicy::Stop,
        },
        RunSource::Ncom { bind } => InsSpec::Ncom { bind: bind.clone() },
        RunSource::Json { transport, bind } => InsSpec::Json {
            transport: *transport,
            bind: bind.clone(),
        },
        // Not opened through the source factory (see `sim_run`); checked by its own rules.
        RunSource::SimVut(_) => InsSpec::Csv {
            path: "sim:vut".into(),
            columns: Vec::new(),
            on_bad_row: BadRowPolicy::Stop,
        },
    }
}

fn carrier_specs(carriers: &[CarrierSpec]) -> ApiResult<Vec<String>> {
    carriers
        .iter()
        .map(|c| {
            if c.name.contains('=') || c.name.trim().is_empty() {
                Err(ApiError::Unprocessable(format!(
                    "bad carrier name '{}'",
                    c.name
                )))
            } else {
                Ok(format!("{}={}", c.name, c.address))
            }
        })
        .collect()
}

fn new_row(req: &NewRun, map_id: Option<String>) -> ApiResult<RunRow> {
    let now = Utc::now();
    let stored = StoredSource {
        ins: req.source.clone(),
        can: req.can.clone(),
        can_mapping: req.can_mapping.clone(),
        sync: req.sync,
    };
    Ok(RunRow {
        id: format!(
            "run-{}-{}",
            now.format("%Y%m%dT%H%M%S"),
            &uuid::Uuid::new_v4().simple().to_string()[..6]
        ),
        state: RunState::Created.as_str().into(),
        scenario_id: req.scenario_id.clone(),
        map_id,
        source: serde_json::to_string(&stored).map_err(anyhow::Error::from)?,
        speed: speed_to_db(req.speed),
        error: None,
        created_at: now,
        armed_at: None,
        started_at: None,
        finished_at: None,
    })
}

fn register(st: &AppState, row: &RunRow, carriers: &[CarrierSpec]) -> Arc<ActiveRun> {
    st.metrics.runs_created.fetch_add(1, Ordering::Relaxed);
    let run = Arc::new(ActiveRun::new(row.clone(), carriers.to_vec()));
    lock(&st.runs).insert(row.id.clone(), run.clone());
    st.record_event(
        Some(&row.id),
        None,
        "state",
        &json!({"event": "state", "state": RunState::Created}),
    );
    if !carriers.is_empty() {
        st.record_event(
            Some(&row.id),
            None,
            "carriers",
            &json!({"event": "carriers", "mode": "iso22133", "carriers": carriers}),
        );
    }
    run
}

/// Inserts the run with its carrier claims (one transaction; 409 when a carrier is taken).
async fn insert_claiming(st: &AppState, row: &RunRow, carriers: &[CarrierSpec]) -> ApiResult<()> {
    let claims = claims_for(carriers).await?;
    st.store
        .insert_run_claiming(row, &claims)
        .await
        .map_err(claim_error)
}

/// The run still holds its carriers (arm and start check; a restart may have released them).
async fn hold_claims(st: &AppState, run: &ActiveRun) -> ApiResult<()> {
    if run.carriers.is_empty() {
        return Ok(());
    }
    let claims = claims_for(&run.carriers).await?;
    st.store
        .ensure_claims(&run.id, &claims)
        .await
        .map_err(claim_error)
}

/// Creates a run (state `created`).
pub async fn create(st: &AppState, req: NewRun) -> ApiResult<RunRow> {
    let map_id = validate(st, &req).await?;
    let row = new_row(&req, map_id)?;
    insert_claiming(st, &row, &req.carriers).await?;
    let run = register(st, &row, &req.carriers);
    run.record.store(req.record, Ordering::Relaxed);
    Ok(row)
}

/// Creates, arms and starts a run in one step. Atomic: the source is opened (live sockets
/// bound) before the run is stored, so a failure leaves nothing behind.
pub async fn create_and_start(st: &AppState, req: NewRun) -> ApiResult<RunRow> {
    let map_id = validate(st, &req).await?;
    let row = new_row(&req, map_id)?;
    let claims = claims_for(&req.carriers).await?;
    let prepared = prepare(st, &row, &req.carriers).await?;
    st.store
        .insert_run_claiming(&row, &claims)
        .await
        .map_err(claim_error)?;
    let run = register(st, &row, &req.carriers);
    run.record.store(req.record, Ordering::Relaxed);
    {
        let mut r = run.row.lock().await;
        publish_prepared(st, &run, &r, &prepared);
        *lock(&run.prepared) = Some(prepared);
        r.armed_at = Some(Utc::now());
        set_state(st, &run, &mut r, RunState::Armed);
        st.store.update_run(&r).await?;
    }
    start(st, &row.id).await
}

/// A running run whose abort was requested (by the operator or by a sink's safety rule) reads
/// `aborted` at once, with the reason, while its data is still being settled: the API state
/// follows the abort within milliseconds, not after the carriers stopped and the telemetry was
/// committed. `finished_at` is set when it is settled.
pub fn aborting_view(st: &AppState, id: &str) -> Option<RunRow> {
    let run = active(st, id)?;
    let Some(crate::run::StopRequest::Abort { reason, .. }) = run.stop.requested() else {
        return None;
    };
    let mut row = run.row.try_lock().ok()?.clone();
    if state_of(&row) != Some(RunState::Running) {
        return None;
    }
    row.state = RunState::Aborted.as_str().into();
    row.error = Some(crate::store::bound_reason(&reason));
    Some(row)
}

/// True while run `id` is not terminal.
pub fn is_active(st: &AppState, id: &str) -> bool {
    active(st, id).is_some()
}

fn active(st: &AppState, id: &str) -> Option<Arc<ActiveRun>> {
    lock(&st.runs).get(id).cloned()
}

async fn not_active_error(st: &AppState, id: &str, action: &str) -> ApiError {
    match st.store.get_run(id).await {
        Ok(Some(r)) => ApiError::Conflict(format!("cannot {action} run '{id}': it is {}", r.state)),
        Ok(None) => ApiError::not_found("run", id),
        Err(e) => e.into(),
    }
}

fn set_state(st: &AppState, run: &ActiveRun, row: &mut RunRow, state: RunState) {
    row.state = state.as_str().to_string();
    run.send(&json!({"type": "state", "run_id": row.id, "state": state}));
    st.record_event(
        Some(&row.id),
        None,
        "state",
        &json!({"event": "state", "state": state}),
    );
}

fn state_of(row: &RunRow) -> Option<RunState> {
    RunState::parse(&row.state)
}

/// Loads the scenario, map and source: `created → armed`.
pub async fn arm(st: &AppState, id: &str) -> ApiResult<RunRow> {
    let run = match active(st, id) {
        Some(r) => r,
        None => return Err(not_active_error(st, id, "arm").await),
    };
    let mut row = run.row.lock().await;
    if state_of(&row) != Some(RunState::Created) {
        return Err(ApiError::Conflict(format!(
            "cannot arm run '{id}': it is {}",
            row.state
        )));
    }
    hold_claims(st, &run).await?;
    let prepared = prepare(st, &row, &run.carriers).await?;
    publish_prepared(st, &run, &row, &prepared);
    *lock(&run.prepared) = Some(prepared);
    row.armed_at = Some(Utc::now());
    set_state(st, &run, &mut row, RunState::Armed);
    st.store.update_run(&row).await?;
    Ok(row.clone())
}

/// The setup, the opened source and the carrier options of a run.
async fn prepare(st: &AppState, row: &RunRow, carriers: &[CarrierSpec]) -> ApiResult<Prepared> {
    let (_, scenario) = st
        .load_scenario(&row.scenario_id, "no longer exists")
        .await?;
    let map = st.map_opt(row.map_id.as_deref()).await?;
    let carriers = if carriers.is_empty() {
        None
    } else {
        Some(CarrierOptions {
            carriers: carrier_specs(carriers)?,
            ..CarrierOptions::default()
        })
    };
    let stored: StoredSource = serde_json::from_str(&row.source).map_err(|e| {
        ApiError::Internal(anyhow::anyhow!("stored source of run '{}': {e}", row.id))
    })?;
    let engine = EngineConfig {
        sync: stored.sync,
        ..EngineConfig::default()
    };
    let setup = Arc::new(
        RunSetup::try_new(scenario, map, engine)
            .map_err(|e| ApiError::Unprocessable(format!("scenario: {e:#}")))?,
    );
    if let RunSource::SimVut(opts) = &stored.ins {
        return Ok(super::sim_run::prepare(setup, carriers, opts));
    }
    let ins = match &stored.ins {
        RunSource::CsvReplay { replay_id, .. } => {
            let r = st
                .store
                .get_replay(replay_id)
                .await?
                .ok_or_else(|| ApiError::not_found("replay", replay_id))?;
            InsSpec::Csv {
                path: r.path.into(),
                columns: Vec::new(),
                // Same default as `scil replay`: stop at the first unreadable row.
                on_bad_row: BadRowPolicy::Stop,
            }
        }
        other => ins_spec_unresolved(other),
    };
    let spec = SourceSpec {
        can: stored.can.clone(),
        can_mapping: stored.can_mapping.clone().unwrap_or_default(),
        ..SourceSpec::ins(ins)
    };
    // The DBC named by the CAN source, parsed once here.
    let dbc: Option<Arc<DbcDecoder>> = match &stored.can {
        Some(c) => {
            let row = st.store.get_dbc(c.dbc()).await?.ok_or_else(|| {
                ApiError::Unprocessable(format!("DBC '{}' is not registered", c.dbc()))
            })?;
            Some(Arc::new(DbcDecoder::parse(&row.text).map_err(|e| {
                ApiError::Unprocessable(format!("DBC '{}': {e}", c.dbc()))
            })?))
        }
        None => None,
    };
    let resolve = move |_: &str| -> Result<Arc<DbcDecoder>, String> {
        dbc.clone().ok_or_else(|| "no DBC".to_string())
    };
    let ctx = OpenCtx {
        vut_id: setup.vut_id(),
        dbc: &resolve,
    };
    let feed = crate::run::source::open(&spec, &ctx).await.map_err(|e| {
        // Name the uploaded file, never its storage path.
        let msg = match (&stored.ins, &e) {
            (RunSource::CsvReplay { file_name, .. }, crate::run::SourceError::Csv(c)) => {
                format!("replay '{file_name}': line {}: {}", c.line, c.reason)
            }
            _ => e.to_string(),
        };
        ApiError::Unprocessable(msg)
    })?;
    Ok(Prepared {
        setup,
        feed,
        carriers,
        vehicle: None,
    })
}

/// A live source is bound: its health and address are visible from now on.
fn publish_prepared(st: &AppState, run: &ActiveRun, row: &RunRow, p: &Prepared) {
    let health = p.feed.health();
    for h in &health {
        st.register_source(h.clone());
    }
    *lock(&run.ingest_health) = health;
    lock(&run.health).name = p.feed.name.clone();
    if p.feed.is_live() {
        let ev = json!({"event": "source_bound", "source": p.feed.name,
                        "addr": p.feed.local_addrs().first().map(|a| a.to_string()),
                        "addrs": p.feed.local_addrs().iter().map(|a| a.to_string()).collect::<Vec<_>>()});
        st.record_event(Some(&row.id), None, "source", &ev);
        run.send(&json!({"type": "event", "run_id": row.id, "t": null, "event": ev}));
    }
}

/// `armed → running`: spawns the session.
pub async fn start(st: &AppState, id: &str) -> ApiResult<RunRow> {
    let run = match active(st, id) {
        Some(r) => r,
        None => return Err(not_active_error(st, id, "start").await),
    };
    let mut row = run.row.lock().await;
    if state_of(&row) != Some(RunState::Armed) {
        return Err(ApiError::Conflict(format!(
            "cannot start run '{id}': it is {} (arm it first)",
            row.state
        )));
    }
    hold_claims(st, &run).await?;
    let prepared = lock(&run.prepared).take().ok_or_else(|| {
        ApiError::Internal(anyhow::anyhow!("armed run without a prepared source"))
    })?;
    row.started_at = Some(Utc::now());
    set_state(st, &run, &mut row, RunState::Running);
    st.store.update_run(&row).await?;
    st.hub.set_active(id);
    let speed = speed_of(&row);
    let out = row.clone();
    drop(row);
    tokio::spawn(supervise(st.clone(), run, prepared, speed));
    Ok(out)
}

/// Operator abort: a running run's engine aborts at its current sample time; a created/armed
/// run goes straight to `aborted`.
pub async fn abort(st: &AppState, id: &str, reason: &str) -> ApiResult<RunRow> {
    let reason = crate::store::bound_reason(reason);
    let run = match active(st, id) {
        Some(r) => r,
        None => return Err(not_active_error(st, id, "abort").await),
    };
    let mut row = run.row.lock().await;
    match state_of(&row) {
        Some(RunState::Running) => {
            run.stop.abort(&reason, Stopper::Operator);
            Ok(row.clone())
        }
        Some(RunState::Created | RunState::Armed) => {
            // Closes a bound live source.
            lock(&run.prepared).take();
            row.finished_at = Some(Utc::now());
            row.error = Some(reason);
            set_state(st, &run, &mut row, RunState::Aborted);
            st.store.update_run(&row).await?;
            st.metrics.runs_aborted.fetch_add(1, Ordering::Relaxed);
            let out = row.clone();
            drop(row);
            lock(&st.runs).remove(id);
            let _ = run.done.send(true);
            Ok(out)
        }
        _ => Err(ApiError::Conflict(format!(
            "cannot abort run '{id}': it is {}",
            row.state
        ))),
    }
}

/// Operator finish: a running run ends normally at its current sample time (the engine settles
/// its results; real carriers get NORMAL_STOP). The way a live run ends; a replay ends by itself.
pub async fn finish(st: &AppState, id: &str) -> ApiResult<RunRow> {
    let run = match active(st, id) {
        Some(r) => r,
        None => return Err(not_active_error(st, id, "finish").await),
    };
    let row = run.row.lock().await;
    if state_of(&row) != Some(RunState::Running) {
        return Err(ApiError::Conflict(format!(
            "cannot finish run '{id}': it is {} (abort a run that is not running)",
            row.state
        )));
    }
    run.stop.finish();
    Ok(row.clone())
}

/// Waits until a run is terminal (or `timeout`); returns its row.
pub async fn wait_done(st: &AppState, id: &str, timeout: Duration) -> ApiResult<RunRow> {
    if let Some(run) = active(st, id) {
        let mut rx = run.done.subscribe();
        drop(run);
        let _ = tokio::time::timeout(timeout, rx.wait_for(|d| *d)).await;
    }
    st.store
        .get_run(id)
        .await?
        .ok_or_else(|| ApiError::not_found("run", id))
}

/// Runs the session and a health ticker, then settles the run: its data first, then its
/// result, then its terminal state.
async fn supervise(st: AppState, run: Arc<ActiveRun>, p: Prepared, speed: Pace) {
    let ticker = tokio::spawn(super::run_health::ticker(st.clone(), run.clone()));
    let live = p.feed.is_live();
    let (feed, vehicle) = super::sim_run::with_params(&run.params, p.feed, p.vehicle);
    let mut session = Session::new(
        p.setup.clone(),
        feed,
        SessionOptions {
            pace: if live { Pace::Live } else { speed },
            strt_lead: if live || p.carriers.is_none() {
                Duration::ZERO
            } else {
                Duration::from_millis(5)
            },
            first_sample_timeout: live.then_some(st.config.limits.first_sample_timeout()),
            live: Some(run.params.clone()),
            // Results are stored and reported: keep the plots' time series.
            traces: true,
        },
    )
    .with_stop(run.stop.clone());
    let setup = p.setup.clone();
    let real_carriers = p.carriers.is_some();
    if let Some(opts) = p.carriers {
        match CarrierSink::new(&setup, opts) {
            Ok(c) => {
                session.add_sink(Box::new(
                    c.with_observer(dispatch_observer(st.clone(), run.clone())),
                ));
            }
            Err(e) => {
                ticker.abort();
                let report = RunReport {
                    error: Some(format!("carriers: {e:#}")),
                    ..RunReport::default()
                };
                settle(&st, &run, report, real_carriers).await;
                return;
            }
        }
    }
    let (vut, targets) = (setup.vut_id().to_string(), setup.target_ids());
    session.add_sink(Box::new(StoreSink::new(
        st.clone(),
        run.clone(),
        vut.clone(),
        targets.clone(),
    )));
    session.add_sink(Box::new(LiveSink::new(run.clone(), vut, targets)));
    if let Some(hub) = &st.foxglove {
        session.add_sink(Box::new(super::foxglove::FoxgloveSink::new(hub)));
    }
    if run.record.load(Ordering::Relaxed) {
        session.add_sink(Box::new(McapSink::new(recording_path(&st, &run.id))));
    }
    if !real_carriers {
        let sim: Vec<(String, String)> = setup
            .scenario
            .targets
            .iter()
            .filter_map(|t| t.carrier.clone().map(|c| (t.id.clone(), c)))
            .collect();
        session.add_sink(Box::new(SimCarrierSink::new(st.clone(), run.clone(), sim)));
    }
    // The simulated VUT steps beside the session (it ends when the session drops its feed).
    let vehicle = vehicle.map(|v| v.spawn(&mut session));
    // Its own task, so a panic fails the run instead of leaving it running.
    let joined = tokio::spawn(session.run()).await;
    ticker.abort();
    if let Some(v) = vehicle {
        v.abort();
    }
    let report = joined.unwrap_or_else(|e| RunReport {
        error: Some(format!("run task panicked: {e}")),
        ..RunReport::default()
    });
    settle(&st, &run, report, real_carriers).await;
}

/// Where a service run's MCAP recording goes.
pub fn recording_path(st: &AppState, id: &str) -> std::path::PathBuf {
    st.config
        .storage_dir
        .join("recordings")
        .join(format!("{id}.mcap"))
}

async fn settle(st: &AppState, run: &Arc<ActiveRun>, report: RunReport, real_carriers: bool) {
    let outcome = crate::run::session::outcome_of(&report);
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
    let storage = telemetry_accounting(st, run, committed).await;
    let loss = storage.loss();
    let result_json = {
        let mut v = serde_json::to_value(&report).unwrap_or_else(|_| json!({}));
        v["storage"] = serde_json::to_value(&storage).unwrap_or(Value::Null);
        v.to_string()
    };
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
    // Never `finished` with rows missing.
    let state = match RunState::from(outcome) {
        RunState::Finished if loss.is_some() => RunState::Failed,
        s => s,
    };
    set_state(st, run, &mut row, state);
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
async fn telemetry_accounting(st: &AppState, run: &ActiveRun, committed: bool) -> Storage {
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
