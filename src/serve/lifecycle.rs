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
    /// Closed-loop synchronisation of the targets (`"sync": true` on the run). Kept
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
    /// What the live stream has said so far (for clients that join late); its lock is held
    /// while a frame is recorded and broadcast.
    pub history: Mutex<super::history::History>,
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
            history: Mutex::new(super::history::History::default()),
            rows_sent: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Records a frame in the run's history and broadcasts it (serialised only when someone
    /// listens).
    pub fn send(&self, v: &Value) {
        let mut h = lock(&self.history);
        h.record(v);
        if self.tx.receiver_count() > 0 {
            let _ = self.tx.send(frame(v));
        }
    }

    /// The history so far and a receiver of every later frame, taken at one instant.
    pub fn join(&self) -> (super::history::History, broadcast::Receiver<Frame>) {
        let h = lock(&self.history);
        (h.clone(), self.tx.subscribe())
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
    /// The track (one of the service's `tracks`; `None`: the default track).
    pub track: Option<String>,
    /// A run of the demo: on the demo's own track, marked `demo`.
    pub demo: bool,
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

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The track of a new run: the demo's own, a configured one, or the default; 422 otherwise.
fn track_of(st: &AppState, req: &NewRun) -> ApiResult<String> {
    let c = &st.config;
    if req.demo {
        return Ok(c.demo.track.clone());
    }
    match &req.track {
        None => Ok(c.default_track().to_string()),
        Some(t) if c.is_track(t) => Ok(t.clone()),
        Some(t) => Err(ApiError::Unprocessable(format!(
            "track '{t}' is not a track of this service (tracks: {})",
            c.tracks.join(", ")
        ))),
    }
}

/// Checks a new run against the store (scenario, map, replay, DBC, carriers).
async fn validate(st: &AppState, req: &NewRun) -> ApiResult<Option<String>> {
    track_of(st, req)?;
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
    if let RunSource::SimVut(o) = &req.source {
        if o.vut_speed_kmh == 0.0 {
            // 0 km/h is for a VUT that starts from standstill or stands parked; any other
            // simulated VUT would never move.
            let scenario = Scenario::from_toml(&sc.toml).map_err(|e| {
                ApiError::Unprocessable(format!("scenario '{}': {e}", req.scenario_id))
            })?;
            if scenario.vut.launch.is_none() && scenario.vut.door.is_none() {
                return Err(ApiError::Unprocessable(format!(
                    "sim_vut: vut speed 0 km/h, but the VUT of scenario '{}' neither starts from standstill (vut.launch) nor stands parked (vut.door): it would never move",
                    req.scenario_id
                )));
            }
        }
    }
    if let RunSource::CsvReplay { replay_id, .. } = &req.source {
        let Some(replay) = st.store.get_replay(replay_id).await? else {
            return Err(ApiError::Unprocessable(format!(
                "replay '{replay_id}' does not exist"
            )));
        };
        // A replay recorded elsewhere (another map, or far from the scenario's paths).
        if let Some(why) =
            super::replay_fit::check(st, &req.scenario_id, map_id.as_deref(), &replay).await?
        {
            return Err(ApiError::Unprocessable(why));
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

fn new_row(st: &AppState, req: &NewRun, map_id: Option<String>) -> ApiResult<RunRow> {
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
        track: Some(track_of(st, req)?),
        demo: req.demo,
        instance: Some(st.instance.id.clone()),
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
    let row = new_row(st, &req, map_id)?;
    insert_claiming(st, &row, &req.carriers).await?;
    let run = register(st, &row, &req.carriers);
    run.record.store(req.record, Ordering::Relaxed);
    Ok(row)
}

/// Creates, arms and starts a run in one step. Atomic: the source is opened (live sockets
/// bound) before the run is stored, so a failure leaves nothing behind.
pub async fn create_and_start(st: &AppState, req: NewRun) -> ApiResult<RunRow> {
    let map_id = validate(st, &req).await?;
    let row = new_row(st, &req, map_id)?;
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
    start(st, &row.id, None).await
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

async fn not_active_error(
    st: &AppState,
    id: &str,
    action: &str,
    expect: Option<RunState>,
) -> ApiError {
    match st.store.get_run(id).await {
        Ok(Some(r)) => super::instance::foreign_owner(st, &r, action).unwrap_or_else(|| {
            ApiError::Conflict(format!(
                "cannot {action} run '{id}': it is {}{}",
                r.state,
                expected_note(expect)
            ))
        }),
        Ok(None) => ApiError::not_found("run", id),
        Err(e) => e.into(),
    }
}

pub(super) fn set_state(st: &AppState, run: &ActiveRun, row: &mut RunRow, state: RunState) {
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

fn expected_note(expect: Option<RunState>) -> String {
    match expect {
        Some(e) => format!(", not {} as the request expected", e.as_str()),
        None => String::new(),
    }
}

/// The control names the state the operator saw (`expect_state`): refused with 409 when the
/// run has moved on since (checked under the row lock, so no transition slips in between).
fn check_expected(id: &str, action: &str, row: &RunRow, expect: Option<RunState>) -> ApiResult<()> {
    match expect {
        Some(e) if state_of(row) != Some(e) => Err(ApiError::Conflict(format!(
            "cannot {action} run '{id}': it is {}{}",
            row.state,
            expected_note(expect)
        ))),
        _ => Ok(()),
    }
}

/// Loads the scenario, map and source: `created → armed`.
pub async fn arm(st: &AppState, id: &str, expect: Option<RunState>) -> ApiResult<RunRow> {
    let run = match active(st, id) {
        Some(r) => r,
        None => return Err(not_active_error(st, id, "arm", expect).await),
    };
    let mut row = run.row.lock().await;
    check_expected(id, "arm", &row, expect)?;
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
                path: super::shared_files::replay_path(st, &r).await?,
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
pub async fn start(st: &AppState, id: &str, expect: Option<RunState>) -> ApiResult<RunRow> {
    let run = match active(st, id) {
        Some(r) => r,
        None => return Err(not_active_error(st, id, "start", expect).await),
    };
    let mut row = run.row.lock().await;
    check_expected(id, "start", &row, expect)?;
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
    st.hub.run_started(&row);
    let speed = speed_of(&row);
    let out = row.clone();
    drop(row);
    tokio::spawn(supervise(st.clone(), run, prepared, speed));
    Ok(out)
}

/// Operator abort: a running run's engine aborts at its current sample time; a created/armed
/// run goes straight to `aborted`.
pub async fn abort(
    st: &AppState,
    id: &str,
    reason: &str,
    expect: Option<RunState>,
) -> ApiResult<RunRow> {
    let reason = crate::store::bound_reason(reason);
    let run = match active(st, id) {
        Some(r) => r,
        None => return Err(not_active_error(st, id, "abort", expect).await),
    };
    let mut row = run.row.lock().await;
    check_expected(id, "abort", &row, expect)?;
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

/// Emergency: aborts every active run (created, armed or running) at once; answers the runs it
/// aborted (a running one ends at its current sample time, as with a single abort).
pub async fn abort_all(st: &AppState, reason: &str) -> Vec<RunRow> {
    let ids: Vec<String> = lock(&st.runs).keys().cloned().collect();
    let aborts = ids.iter().map(|id| abort(st, id, reason, None));
    let mut out: Vec<RunRow> = futures_util::future::join_all(aborts)
        .await
        .into_iter()
        // A run that ended meanwhile is not in the list.
        .filter_map(Result::ok)
        .collect();
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// Operator finish: a running run ends normally at its current sample time (the engine settles
/// its results; real carriers get NORMAL_STOP). The way a live run ends; a replay ends by itself.
pub async fn finish(st: &AppState, id: &str, expect: Option<RunState>) -> ApiResult<RunRow> {
    let run = match active(st, id) {
        Some(r) => r,
        None => return Err(not_active_error(st, id, "finish", expect).await),
    };
    let row = run.row.lock().await;
    check_expected(id, "finish", &row, expect)?;
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
    let mut report = joined.unwrap_or_else(|e| RunReport {
        error: Some(format!("run task panicked: {e}")),
        ..RunReport::default()
    });
    if let Some((v, warning)) = vehicle {
        v.abort();
        warning.fill(&mut report);
    }
    settle(&st, &run, report, real_carriers).await;
}

pub use super::run_settle::recording_path;
use super::run_settle::settle;
