//! Run lifecycle and the engine task.
//!
//! States: `created → armed → running → finished | aborted | failed` (`created`/`armed` may also
//! go straight to `aborted`). The database row is the record; an [`ActiveRun`] lives in memory
//! from creation until the run is terminal and carries the live channel and the abort signal.
//!
//! One engine task per run, for replays and live sources alike: [`crate::run_driver::drive`]
//! (the driver of `scil replay --carrier` too) feeds the sans-IO [`Engine`] from a sample
//! channel, sleeps engine timers until the wall instant mapped from sample time (so a trigger
//! fires between samples and stale telemetry aborts an armed run), and, when the run has
//! carriers, dispatches them over ISO 22133 through the control centre. Every output is
//! recorded, persisted (through the writer) and broadcast.
//!
//! Sources: a CSV replay is read by a thread and paced by the run's speed; a live source (NCOM
//! over UDP, JSON lines over UDP/TCP/WebSocket) is bound when the run is armed (so its health
//! shows before the start) and its samples reach the engine from the start on (earlier ones are
//! discarded).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc, watch};

use super::context::AppState;
use super::error::{ApiError, ApiResult};
use super::live::{frame, Frame, RUN_CHANNEL};
use crate::dispatch::control_centre::{ControlCentreConfig, ControlCentreHandle, GeoOrigin};
use crate::dispatch::events::EventKind;
use crate::dispatch::live::{
    carrier_reports, carriers_from_scenario, origin_from_georeference, LiveDispatch,
    ScenarioDispatch,
};
use crate::dispatch::safety::SafetyConfig;
use crate::frame::Interface;
use crate::ingest::csv::{BadRowPolicy, CsvSource};
use crate::ingest::health::SourceHealth as IngestHealth;
use crate::map::Map;
use crate::replay::{Recorder, ReplayError, ReplaySetup, Speed};
use crate::replay_live::{connect_and_arm, LiveConfig};
use crate::run_driver::{self, DriveConfig, DriveHooks, LiveDrive, Pace, StopRequest};
use crate::sample::{InsSample, Sample};
use crate::scenario::engine::{Command, Engine, EngineConfig, Event, Output};
use crate::scenario::Scenario;
use crate::store::{RunRow, TelemetryRow};
use crate::twin::RoadState;

/// Where a run's telemetry comes from. Tagged by `kind` in JSON.
///
/// `csv_replay` is a recording paced by the run's speed; the others are live sources bound when
/// the run is armed and applied in real time (the run's speed does not apply to them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunSource {
    /// A recorded CSV (bundled or uploaded) replayed at the run's speed.
    CsvReplay {
        replay_id: String,
        /// Original file name (display only; the file is stored under a generated name).
        file_name: String,
    },
    /// OxTS NCOM over UDP (the VUT's INS), e.g. `{"kind":"ncom","bind":"0.0.0.0:3000"}`.
    Ncom {
        /// Local UDP address to listen on (OxTS default port 3000).
        bind: String,
    },
    /// JSON lines (one sample per line, see `scil listen`) over UDP datagrams, a TCP server or
    /// a WebSocket server, e.g. `{"kind":"json","transport":"tcp","bind":"0.0.0.0:5000"}`.
    Json {
        transport: JsonTransport,
        bind: String,
    },
}

/// Transport of a JSON-lines source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JsonTransport {
    Udp,
    Tcp,
    Ws,
}

impl RunSource {
    pub fn is_live(&self) -> bool {
        !matches!(self, RunSource::CsvReplay { .. })
    }
}

/// A real carrier of a run: `name` is the scenario's carrier name, `address` its ISO 22133
/// endpoint `HOST[:TCP_PORT]` (UDP port = TCP − 1) or `HOST:TCP_PORT:UDP_PORT`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CarrierSpec {
    pub name: String,
    pub address: String,
}

/// A blocking stream of samples (one per source; a fused source is one stream).
pub trait SampleStream: Send {
    /// Name shown in health frames.
    fn name(&self) -> String;
    /// Next sample (blocking); `None` at the end.
    fn next_sample(&mut self) -> Option<anyhow::Result<InsSample>>;
    /// Rows/packets skipped as unreadable so far, with the first reasons.
    fn skipped(&self) -> (u64, Vec<String>);
    /// Recorded data is paced by the run's speed; live data arrives in real time.
    fn is_recording(&self) -> bool;
}

struct CsvStream {
    name: String,
    src: CsvSource,
}

impl SampleStream for CsvStream {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn next_sample(&mut self) -> Option<anyhow::Result<InsSample>> {
        self.src
            .next_sample()
            .map(|r| r.map_err(|e| anyhow::anyhow!("{e}")))
    }
    fn skipped(&self) -> (u64, Vec<String>) {
        (
            self.src.skipped,
            self.src
                .skipped_errors
                .iter()
                .map(|e| e.to_string())
                .collect(),
        )
    }
    fn is_recording(&self) -> bool {
        true
    }
}

/// A source opened at arm time.
pub enum Opened {
    /// Read by a thread at the start (recording).
    Recorded(Box<dyn SampleStream>),
    /// Bound and receiving; samples flow to the engine from the start on.
    Live(LiveInput),
}

/// A live source: its receive task(s), the forwarder that gates samples on the start, health.
pub struct LiveInput {
    pub name: String,
    pub local_addr: Option<std::net::SocketAddr>,
    rx: Option<mpsc::Receiver<Result<InsSample, ReplayError>>>,
    started: Arc<AtomicBool>,
    pub health: Vec<IngestHealth>,
    /// Samples dropped because the engine did not keep up (channel full).
    pub dropped: Arc<AtomicU64>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for LiveInput {
    fn drop(&mut self) {
        // Closes the sockets (a port is free again when the run ends).
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// Capacity of the channel between a live source and the engine.
const LIVE_CHANNEL: usize = 4096;

/// Spawns the forwarder: samples before the start are discarded; after it they go to the
/// engine (never blocking the receive task: a full channel drops and counts).
fn live_input(
    name: String,
    local_addr: Option<std::net::SocketAddr>,
    health: IngestHealth,
    mut raw: mpsc::Receiver<InsSample>,
    mut tasks: Vec<tokio::task::JoinHandle<()>>,
) -> LiveInput {
    let started = Arc::new(AtomicBool::new(false));
    let dropped = Arc::new(AtomicU64::new(0));
    let (tx, rx) = mpsc::channel(LIVE_CHANNEL);
    let (st2, dr2, name2) = (started.clone(), dropped.clone(), name.clone());
    tasks.push(tokio::spawn(async move {
        while let Some(s) = raw.recv().await {
            if !st2.load(Ordering::Acquire) {
                continue;
            }
            match tx.try_send(Ok(s)) {
                Ok(()) => {}
                Err(mpsc::error::TrySendError::Full(_)) => {
                    if dr2.fetch_add(1, Ordering::Relaxed) % 100 == 0 {
                        tracing::warn!(source = %name2, "engine behind: live samples dropped");
                    }
                }
                Err(mpsc::error::TrySendError::Closed(_)) => break,
            }
        }
    }));
    LiveInput {
        name,
        local_addr,
        rx: Some(rx),
        started,
        health: vec![health],
        dropped,
        tasks,
    }
}

fn bind_error(kind: &str, bind: &str, e: std::io::Error) -> ApiError {
    ApiError::Unprocessable(format!("cannot bind the {kind} source on {bind}: {e}"))
}

/// Opens the source of a run (`vut_id` names NCOM samples).
pub async fn open_source(st: &AppState, src: &RunSource, vut_id: &str) -> ApiResult<Opened> {
    use crate::ingest::json::{JsonTcpServer, JsonUdpSource, JsonWsServer};
    use crate::ingest::udp::NcomUdpSource;
    let (raw_tx, raw_rx) = mpsc::channel::<InsSample>(1024);
    let log_end = |name: String| {
        move |r: std::io::Result<()>| {
            if let Err(e) = r {
                tracing::warn!(source = %name, "live source stopped: {e}");
            }
        }
    };
    let input = match src {
        RunSource::CsvReplay {
            replay_id,
            file_name,
        } => {
            let r = st
                .store
                .get_replay(replay_id)
                .await?
                .ok_or_else(|| ApiError::not_found("replay", replay_id))?;
            let path = std::path::PathBuf::from(&r.path);
            // Same default as `scil replay`: stop at the first unreadable row.
            let src = CsvSource::open(&path, &[], BadRowPolicy::Stop).map_err(|e| {
                ApiError::Unprocessable(format!("replay '{replay_id}': {}", e.reason))
            })?;
            return Ok(Opened::Recorded(Box::new(CsvStream {
                name: format!("csv:{file_name}"),
                src,
            })));
        }
        RunSource::Ncom { bind } => {
            let h = IngestHealth::new(format!("ncom-udp:{bind}"));
            let s = NcomUdpSource::bind(bind.as_str(), vut_id, h.clone())
                .await
                .map_err(|e| bind_error("NCOM", bind, e))?;
            let addr = s.local_addr().ok();
            let name = format!("ncom-udp:{}", addr.map_or(bind.clone(), |a| a.to_string()));
            let end = log_end(name.clone());
            let t = tokio::spawn(async move { end(s.run(raw_tx).await) });
            live_input(name, addr, h, raw_rx, vec![t])
        }
        RunSource::Json { transport, bind } => {
            let kind = match transport {
                JsonTransport::Udp => "json-udp",
                JsonTransport::Tcp => "json-tcp",
                JsonTransport::Ws => "json-ws",
            };
            let h = IngestHealth::new(format!("{kind}:{bind}"));
            let (addr, t) = match transport {
                JsonTransport::Udp => {
                    let s = JsonUdpSource::bind(bind.as_str(), h.clone())
                        .await
                        .map_err(|e| bind_error("JSON/UDP", bind, e))?;
                    let addr = s.local_addr().ok();
                    let end = log_end(format!("{kind}:{bind}"));
                    (addr, tokio::spawn(async move { end(s.run(raw_tx).await) }))
                }
                JsonTransport::Tcp => {
                    let s = JsonTcpServer::bind(bind.as_str(), h.clone())
                        .await
                        .map_err(|e| bind_error("JSON/TCP", bind, e))?;
                    let addr = s.local_addr().ok();
                    let end = log_end(format!("{kind}:{bind}"));
                    (addr, tokio::spawn(async move { end(s.run(raw_tx).await) }))
                }
                JsonTransport::Ws => {
                    let s = JsonWsServer::bind(bind.as_str(), h.clone())
                        .await
                        .map_err(|e| bind_error("JSON/WebSocket", bind, e))?;
                    let addr = s.local_addr().ok();
                    let end = log_end(format!("{kind}:{bind}"));
                    (addr, tokio::spawn(async move { end(s.run(raw_tx).await) }))
                }
            };
            let name = format!("{kind}:{}", addr.map_or(bind.clone(), |a| a.to_string()));
            live_input(name, addr, h, raw_rx, vec![t])
        }
    };
    for h in &input.health {
        st.register_source(h.clone());
    }
    Ok(Opened::Live(input))
}

/// Run states.
pub const CREATED: &str = "created";
pub const ARMED: &str = "armed";
pub const RUNNING: &str = "running";
pub const FINISHED: &str = "finished";
pub const ABORTED: &str = "aborted";
pub const FAILED: &str = "failed";

pub fn is_terminal(state: &str) -> bool {
    matches!(state, FINISHED | ABORTED | FAILED)
}

/// What an armed run has ready.
pub struct Prepared {
    pub setup: ReplaySetup,
    pub source: Opened,
    /// Control-centre configuration when the run has real carriers.
    pub carriers: Option<ControlCentreConfig>,
}

/// Source health counters, updated by the engine task, read by the health ticker.
#[derive(Debug, Default)]
pub struct SourceHealth {
    pub name: String,
    pub samples: u64,
    pub errors: u64,
    pub last: Option<Instant>,
}

/// A run that is not terminal yet.
pub struct ActiveRun {
    pub id: String,
    /// The run's row; the lock also serialises state transitions.
    pub row: tokio::sync::Mutex<RunRow>,
    pub tx: broadcast::Sender<Frame>,
    pub abort: AtomicBool,
    pub abort_reason: Mutex<Option<String>>,
    /// The abort as the engine task sees it (wakes it at once).
    pub stop: watch::Sender<Option<StopRequest>>,
    pub prepared: Mutex<Option<Prepared>>,
    pub health: Mutex<SourceHealth>,
    /// Live source health (ingest counters), when the source is live.
    pub ingest_health: Mutex<Vec<IngestHealth>>,
    /// Real carriers (ISO 22133) of the run.
    pub carriers: Vec<CarrierSpec>,
    /// Set when the run reaches a terminal state (tests and the demo wait on it).
    pub done: tokio::sync::watch::Sender<bool>,
}

impl ActiveRun {
    pub fn new(row: RunRow) -> ActiveRun {
        ActiveRun::with_carriers(row, Vec::new())
    }

    pub fn with_carriers(row: RunRow, carriers: Vec<CarrierSpec>) -> ActiveRun {
        ActiveRun {
            id: row.id.clone(),
            row: tokio::sync::Mutex::new(row),
            tx: broadcast::channel(RUN_CHANNEL).0,
            abort: AtomicBool::new(false),
            abort_reason: Mutex::new(None),
            stop: watch::channel(None).0,
            prepared: Mutex::new(None),
            health: Mutex::new(SourceHealth::default()),
            ingest_health: Mutex::new(Vec::new()),
            carriers,
            done: tokio::sync::watch::channel(false).0,
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
    pub speed: Speed,
    /// Real carriers (ISO 22133); empty: the carriers are simulated (engine commands only).
    pub carriers: Vec<CarrierSpec>,
}

pub fn speed_to_db(s: Speed) -> Option<f64> {
    match s {
        Speed::Max => None,
        Speed::Factor(f) => Some(f),
    }
}

fn speed_of(row: &RunRow) -> Speed {
    row.speed.map_or(Speed::Max, Speed::Factor)
}

/// Creates a run (state `created`).
pub async fn create(st: &AppState, req: NewRun) -> ApiResult<RunRow> {
    let sc = st
        .store
        .get_scenario(&req.scenario_id)
        .await?
        .ok_or_else(|| {
            ApiError::Unprocessable(format!("scenario '{}' does not exist", req.scenario_id))
        })?;
    let map_id = req.map_id.or(sc.map_id);
    if let Some(m) = &map_id {
        if st.store.get_map(m).await?.is_none() {
            return Err(ApiError::Unprocessable(format!("map '{m}' does not exist")));
        }
    }
    match &req.source {
        RunSource::CsvReplay { replay_id, .. } => {
            if st.store.get_replay(replay_id).await?.is_none() {
                return Err(ApiError::Unprocessable(format!(
                    "replay '{replay_id}' does not exist"
                )));
            }
            if !req.carriers.is_empty() && req.speed == Speed::Max {
                return Err(ApiError::Unprocessable(
                    "real carriers move in real time: a replay with carriers needs a speed factor, not \"max\"".into(),
                ));
            }
        }
        RunSource::Ncom { bind } | RunSource::Json { bind, .. } => {
            if bind.trim().is_empty() || !bind.contains(':') {
                return Err(ApiError::Unprocessable(format!(
                    "source bind must be HOST:PORT, got '{bind}'"
                )));
            }
        }
    }
    if !req.carriers.is_empty() {
        let scenario = Scenario::from_toml(&sc.toml)
            .map_err(|e| ApiError::Unprocessable(format!("scenario '{}': {e}", req.scenario_id)))?;
        carrier_configs(&scenario, &req.carriers)?;
    }
    let now = Utc::now();
    let row = RunRow {
        id: format!(
            "run-{}-{}",
            now.format("%Y%m%dT%H%M%S"),
            &uuid::Uuid::new_v4().simple().to_string()[..6]
        ),
        state: CREATED.into(),
        scenario_id: req.scenario_id,
        map_id,
        source: serde_json::to_string(&req.source).map_err(anyhow::Error::from)?,
        speed: speed_to_db(req.speed),
        error: None,
        created_at: now,
        armed_at: None,
        started_at: None,
        finished_at: None,
    };
    st.store.insert_run(&row).await?;
    st.metrics.runs_created.fetch_add(1, Ordering::Relaxed);
    st.runs.lock().unwrap().insert(
        row.id.clone(),
        Arc::new(ActiveRun::with_carriers(row.clone(), req.carriers.clone())),
    );
    st.record_event(
        Some(&row.id),
        None,
        "state",
        &json!({"event": "state", "state": CREATED}),
    );
    if !req.carriers.is_empty() {
        st.record_event(
            Some(&row.id),
            None,
            "carriers",
            &json!({"event": "carriers", "mode": "iso22133", "carriers": req.carriers}),
        );
    }
    Ok(row)
}

/// Carrier configurations (with the dummy profiles) for a scenario and a run's carriers; every
/// carrier of the scenario must be given, and only those.
fn carrier_configs(
    scenario: &Scenario,
    carriers: &[CarrierSpec],
) -> ApiResult<Vec<crate::dispatch::control_centre::CarrierConfig>> {
    let sd = ScenarioDispatch::of(scenario);
    let mut specs = Vec::new();
    for c in carriers {
        if c.name.contains('=') || c.name.trim().is_empty() {
            return Err(ApiError::Unprocessable(format!(
                "bad carrier name '{}'",
                c.name
            )));
        }
        specs.push(format!("{}={}", c.name, c.address));
    }
    carriers_from_scenario(&sd, &specs)
        .map_err(|e| ApiError::Unprocessable(format!("carriers: {e}")))
}

/// The control-centre configuration of a run with real carriers (OSEM origin from the map's
/// geoReference).
fn control_centre_config(
    scenario: &Scenario,
    carriers: &[CarrierSpec],
    geo_reference: Option<&str>,
    cfg: &LiveConfig,
) -> ApiResult<ControlCentreConfig> {
    let carriers = carrier_configs(scenario, carriers)?;
    let origin = match geo_reference.and_then(origin_from_georeference) {
        Some(o) => o,
        None => {
            tracing::warn!("no map geoReference with +lat_0/+lon_0: OSEM origin 0/0");
            GeoOrigin::default()
        }
    };
    Ok(ControlCentreConfig {
        origin,
        monr_rate_hz: cfg.monr_rate_hz,
        heab_rate_hz: cfg.heab_rate_hz,
        carriers,
        safety: SafetyConfig {
            telemetry_stale_s: cfg.telemetry_stale_s,
            monr_miss_limit: cfg.monr_miss_limit,
            arm_timeout_s: cfg.arm_timeout.as_secs_f64(),
            ..SafetyConfig::default()
        },
        ..ControlCentreConfig::default()
    })
}

fn active(st: &AppState, id: &str) -> Option<Arc<ActiveRun>> {
    st.runs.lock().unwrap().get(id).cloned()
}

async fn not_active_error(st: &AppState, id: &str, action: &str) -> ApiError {
    match st.store.get_run(id).await {
        Ok(Some(r)) => ApiError::Conflict(format!("cannot {action} run '{id}': it is {}", r.state)),
        Ok(None) => ApiError::not_found("run", id),
        Err(e) => e.into(),
    }
}

fn set_state(st: &AppState, run: &ActiveRun, row: &mut RunRow, state: &str) {
    row.state = state.to_string();
    run.send(&json!({"type": "state", "run_id": row.id, "state": state}));
    st.record_event(
        Some(&row.id),
        None,
        "state",
        &json!({"event": "state", "state": state}),
    );
}

/// Loads the scenario, map and source: `created → armed`.
pub async fn arm(st: &AppState, id: &str) -> ApiResult<RunRow> {
    let run = match active(st, id) {
        Some(r) => r,
        None => return Err(not_active_error(st, id, "arm").await),
    };
    let mut row = run.row.lock().await;
    if row.state != CREATED {
        return Err(ApiError::Conflict(format!(
            "cannot arm run '{id}': it is {}",
            row.state
        )));
    }
    let prepared = prepare(st, &run, &row).await?;
    *run.prepared.lock().unwrap() = Some(prepared);
    row.armed_at = Some(Utc::now());
    set_state(st, &run, &mut row, ARMED);
    st.store.update_run(&row).await?;
    Ok(row.clone())
}

async fn prepare(st: &AppState, run: &ActiveRun, row: &RunRow) -> ApiResult<Prepared> {
    let sc_row = st
        .store
        .get_scenario(&row.scenario_id)
        .await?
        .ok_or_else(|| {
            ApiError::Unprocessable(format!("scenario '{}' no longer exists", row.scenario_id))
        })?;
    let scenario = Scenario::from_toml(&sc_row.toml)
        .map_err(|e| ApiError::Unprocessable(format!("scenario '{}': {e}", row.scenario_id)))?;
    let map: Option<Map> = match &row.map_id {
        Some(m) => {
            let m = st.map(m).await?;
            Some(Map {
                road_network: m.road_network.clone(),
                geo: m.geo.clone(),
                geo_warning: m.geo_warning.clone(),
            })
        }
        None => None,
    };
    let carriers = if run.carriers.is_empty() {
        None
    } else {
        let geo = match &row.map_id {
            Some(m) => st.store.get_map(m).await?.and_then(|m| m.geo_reference),
            None => None,
        };
        Some(control_centre_config(
            &scenario,
            &run.carriers,
            geo.as_deref(),
            &LiveConfig::default(),
        )?)
    };
    let setup = setup_for(scenario, map, EngineConfig::default());
    let source: RunSource = serde_json::from_str(&row.source).map_err(|e| {
        ApiError::Internal(anyhow::anyhow!("stored source of run '{}': {e}", row.id))
    })?;
    let vut_id = setup.engine.vut_id.clone();
    let source = open_source(st, &source, &vut_id).await?;
    if let Opened::Live(l) = &source {
        *run.ingest_health.lock().unwrap() = l.health.clone();
        let ev = json!({"event": "source_bound", "source": l.name,
                        "addr": l.local_addr.map(|a| a.to_string())});
        st.record_event(Some(&row.id), None, "source", &ev);
        run.send(&json!({"type": "event", "run_id": row.id, "t": null, "event": ev}));
    }
    Ok(Prepared {
        setup,
        source,
        carriers,
    })
}

/// The replay setup `scil replay` builds from files, from already-loaded parts.
pub fn setup_for(scenario: Scenario, map: Option<Map>, engine: EngineConfig) -> ReplaySetup {
    let mut interface = Interface::default();
    if let Some(r) = scenario.vut.steering_ratio {
        interface.steering_ratio = r;
    }
    if let Some(m) = &map {
        interface.geo = m.geo.clone().map(|g| g as Arc<dyn crate::frame::GeoToMap>);
    }
    ReplaySetup {
        scenario,
        map,
        interface,
        engine,
    }
}

/// `armed → running`: spawns the engine task.
pub async fn start(st: &AppState, id: &str) -> ApiResult<RunRow> {
    let run = match active(st, id) {
        Some(r) => r,
        None => return Err(not_active_error(st, id, "start").await),
    };
    let mut row = run.row.lock().await;
    if row.state != ARMED {
        return Err(ApiError::Conflict(format!(
            "cannot start run '{id}': it is {} (arm it first)",
            row.state
        )));
    }
    let prepared = run.prepared.lock().unwrap().take().ok_or_else(|| {
        ApiError::Internal(anyhow::anyhow!("armed run without a prepared source"))
    })?;
    row.started_at = Some(Utc::now());
    set_state(st, &run, &mut row, RUNNING);
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
    let run = match active(st, id) {
        Some(r) => r,
        None => return Err(not_active_error(st, id, "abort").await),
    };
    let mut row = run.row.lock().await;
    match row.state.as_str() {
        RUNNING => {
            *run.abort_reason.lock().unwrap() = Some(reason.to_string());
            run.abort.store(true, Ordering::SeqCst);
            run.stop
                .send_replace(Some(StopRequest::Abort(reason.to_string())));
            Ok(row.clone())
        }
        CREATED | ARMED => {
            row.finished_at = Some(Utc::now());
            row.error = Some(reason.to_string());
            set_state(st, &run, &mut row, ABORTED);
            st.store.update_run(&row).await?;
            st.metrics.runs_aborted.fetch_add(1, Ordering::Relaxed);
            let out = row.clone();
            drop(row);
            st.runs.lock().unwrap().remove(id);
            let _ = run.done.send(true);
            Ok(out)
        }
        s => Err(ApiError::Conflict(format!(
            "cannot abort run '{id}': it is {s}"
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
    if row.state != RUNNING {
        return Err(ApiError::Conflict(format!(
            "cannot finish run '{id}': it is {} (abort a run that is not running)",
            row.state
        )));
    }
    run.stop.send_if_modified(|s| {
        if s.is_none() {
            *s = Some(StopRequest::Finish);
            true
        } else {
            false
        }
    });
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

struct Outcome {
    result: Value,
    state: &'static str,
    error: Option<String>,
}

/// Runs the engine task and a health ticker, then settles the run.
async fn supervise(st: AppState, run: Arc<ActiveRun>, prepared: Prepared, speed: Speed) {
    let ticker = tokio::spawn(health_ticker(st.clone(), run.clone()));
    let (st2, run2) = (st.clone(), run.clone());
    // Its own task, so a panic in the engine fails the run instead of leaving it running.
    let joined = tokio::spawn(async move { engine_task(&st2, &run2, prepared, speed).await }).await;
    ticker.abort();
    let outcome = match joined {
        Ok(o) => o,
        Err(e) => Outcome {
            result: serde_json::to_value(Recorder::default().result(0, 0)).unwrap_or_default(),
            state: FAILED,
            error: Some(format!("engine task panicked: {e}")),
        },
    };
    // Telemetry and events first, so a finished run's data is all readable.
    if !st.writer.flush(Duration::from_secs(10)).await {
        tracing::warn!(
            "run {}: telemetry not yet written (database slow or failing); kept buffered",
            run.id
        );
    }
    let result_json = serde_json::to_string(&outcome.result).unwrap_or_else(|_| "{}".into());
    if let Err(e) = st.store.put_result(&run.id, &result_json).await {
        tracing::error!("run {}: cannot store the result: {e}", run.id);
    }
    let mut row = run.row.lock().await;
    row.finished_at = Some(Utc::now());
    row.error = outcome.error.clone();
    set_state(&st, &run, &mut row, outcome.state);
    // The final state event is written before the row says terminal.
    st.writer.flush(Duration::from_secs(5)).await;
    if let Err(e) = st.store.update_run(&row).await {
        tracing::error!("run {}: cannot store the final state: {e}", run.id);
    }
    drop(row);
    match outcome.state {
        FINISHED => &st.metrics.runs_finished,
        ABORTED => &st.metrics.runs_aborted,
        _ => &st.metrics.runs_failed,
    }
    .fetch_add(1, Ordering::Relaxed);
    st.runs.lock().unwrap().remove(&run.id);
    let _ = run.done.send(true);
}

/// One live source's health entry of a `health` frame.
pub fn ingest_health_json(h: &crate::ingest::health::HealthSnapshot) -> Value {
    json!({"name": h.source, "rate_hz": h.rate_hz, "age_s": h.last_sample_age_s,
           "errors": h.malformed + h.checksum_failed + h.out_of_order,
           "samples": h.samples, "messages": h.messages, "malformed": h.malformed,
           "checksum_failed": h.checksum_failed, "out_of_order": h.out_of_order,
           "no_fix": h.no_fix, "not_locked": h.not_locked, "last_error": h.last_error})
}

/// About once per second: source rate/age/errors and the store's write health.
async fn health_ticker(st: AppState, run: Arc<ActiveRun>) {
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
            .unwrap()
            .iter()
            .map(|h| ingest_health_json(&h.snapshot()))
            .collect();
        let (src, n) = {
            let h = run.health.lock().unwrap();
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

/// Sample time of an event, when it has one.
fn event_time(e: &Event) -> Option<f64> {
    match e {
        Event::Armed { time_s }
        | Event::TriggerUnscheduled { time_s, .. }
        | Event::SampleRejected { time_s, .. }
        | Event::Aborted { time_s, .. }
        | Event::Finished { time_s } => Some(*time_s),
        Event::TriggerScheduled { from_sample_s, .. } => Some(*from_sample_s),
        Event::Triggered(r) | Event::TriggerAssessed(r) => Some(r.fired_at_s.max(r.time_s)),
        Event::Impact(r) => r.time_s,
    }
}

fn event_kind(v: &Value) -> String {
    v.get("event")
        .and_then(Value::as_str)
        .unwrap_or("event")
        .to_string()
}

/// What the run sees of the drive: persistence, live frames, health, metrics.
struct RunHooks<'a> {
    st: &'a AppState,
    run: &'a ActiveRun,
    vut_id: String,
    target_ids: Vec<String>,
    /// (target, carrier) of the scenario's simulated carriers; None with real carriers (their
    /// states come from the control centre).
    sim_carriers: Option<Vec<(String, String)>>,
    rec: Recorder,
    seq: i64,
}

impl DriveHooks for RunHooks<'_> {
    fn output(&mut self, o: Output) {
        let (st, run, id) = (self.st, self.run, self.run.id.as_str());
        match &o {
            Output::Event(e) => {
                st.metrics.engine_events.fetch_add(1, Ordering::Relaxed);
                let v = serde_json::to_value(e).unwrap_or(Value::Null);
                let t = event_time(e);
                st.record_event(Some(id), t, &event_kind(&v), &v);
                run.send(&json!({"type": "event", "run_id": id, "t": t, "event": v}));
            }
            Output::Command(c) => {
                let v = serde_json::to_value(c).unwrap_or(Value::Null);
                st.record_event(Some(id), None, "command", &v);
                let Some(carriers) = &self.sim_carriers else {
                    self.rec.record(o);
                    return;
                };
                let changes: Vec<(Option<String>, String, &str, Option<f64>)> = match c {
                    Command::Start {
                        target,
                        carrier,
                        at_s,
                    } => {
                        vec![(carrier.clone(), target.clone(), "started", Some(*at_s))]
                    }
                    Command::Retime {
                        target,
                        carrier,
                        origin_s,
                        ..
                    } => {
                        vec![(carrier.clone(), target.clone(), "retimed", Some(*origin_s))]
                    }
                    Command::Abort { .. } => carriers
                        .iter()
                        .map(|(t, c)| (Some(c.clone()), t.clone(), "stopped", None))
                        .collect(),
                };
                for (carrier, target, state, t) in changes {
                    let ev = json!({"event": "carrier_state", "carrier": carrier, "target": target,
                                    "state": state, "time_s": t, "mode": "simulated"});
                    if let Some(c) = &carrier {
                        st.set_carrier_state(c, state, id);
                    }
                    st.record_event(Some(id), t, "carrier_state", &ev);
                    run.send(&json!({"type": "event", "run_id": id, "t": t, "event": ev}));
                }
            }
        }
        self.rec.record(o);
    }

    fn sample(&mut self, engine: &Engine, s: &Sample) {
        {
            let mut h = self.run.health.lock().unwrap();
            h.samples += 1;
            h.last = Some(Instant::now());
        }
        self.st
            .metrics
            .samples_ingested
            .fetch_add(1, Ordering::Relaxed);
        if s.vehicle == self.vut_id {
            publish(
                self.st,
                self.run,
                engine,
                &self.vut_id,
                &self.target_ids,
                s.time_s,
                &mut self.seq,
            );
        }
    }

    fn bad_sample(&mut self, _ins: &InsSample, error: &str) {
        let n = {
            let mut h = self.run.health.lock().unwrap();
            h.errors += 1;
            h.errors
        };
        self.st
            .metrics
            .samples_rejected
            .fetch_add(1, Ordering::Relaxed);
        if n <= 10 || n % 100 == 0 {
            tracing::warn!(run = %self.run.id, "live sample skipped ({n} so far): {error}");
        }
    }
}

/// A control-centre event as the run shows it: every event to the events table; carrier
/// states, connections and aborts also as live `event` frames and in `/carriers`.
fn forward_dispatch_event(
    st: &AppState,
    run: &ActiveRun,
    e: &crate::dispatch::events::DispatchEvent,
) {
    let id = run.id.as_str();
    let v = serde_json::to_value(e).unwrap_or(Value::Null);
    st.record_event(Some(id), None, "dispatch", &v);
    let address = |c: &str| {
        run.carriers
            .iter()
            .find(|s| s.name == c)
            .map(|s| s.address.clone())
    };
    let ev = match &e.kind {
        EventKind::CarrierState { carrier, from, to } => {
            let state = serde_json::to_value(to).unwrap_or(Value::Null);
            let state_s = state.as_str().unwrap_or("UNKNOWN").to_string();
            st.set_carrier_status(
                carrier,
                &state_s,
                id,
                "iso22133",
                address(carrier),
                Some(true),
            );
            let ev = json!({"event": "carrier_state", "carrier": carrier, "state": state,
                            "from": from, "mode": "iso22133", "cc_t_s": e.t_s});
            st.record_event(Some(id), None, "carrier_state", &ev);
            ev
        }
        EventKind::CarrierConnected { carrier } => {
            st.set_carrier_status(
                carrier,
                "connected",
                id,
                "iso22133",
                address(carrier),
                Some(true),
            );
            json!({"event": "carrier_connected", "carrier": carrier, "mode": "iso22133", "cc_t_s": e.t_s})
        }
        EventKind::CarrierDisconnected { carrier, reason } => {
            st.set_carrier_status(
                carrier,
                "disconnected",
                id,
                "iso22133",
                address(carrier),
                Some(false),
            );
            json!({"event": "carrier_disconnected", "carrier": carrier, "reason": reason,
                   "mode": "iso22133", "cc_t_s": e.t_s})
        }
        EventKind::Abort { reason } => {
            json!({"event": "carrier_abort", "reason": reason, "mode": "iso22133", "cc_t_s": e.t_s})
        }
        EventKind::StrtSent { carrier, .. } => {
            json!({"event": "carrier_strt", "carrier": carrier, "detail": v, "cc_t_s": e.t_s})
        }
        _ => return,
    };
    run.send(&json!({"type": "event", "run_id": id, "t": null, "event": ev}));
}

/// Forwards every control-centre event (those before the subscription from the snapshot).
fn spawn_dispatch_forwarder(
    st: &AppState,
    run: &Arc<ActiveRun>,
    h: &ControlCentreHandle,
) -> tokio::task::JoinHandle<()> {
    let mut rx = h.events();
    let seen = h.snapshot().events;
    for e in &seen {
        forward_dispatch_event(st, run, e);
    }
    let (st, run) = (st.clone(), run.clone());
    tokio::spawn(async move {
        loop {
            match rx.recv().await {
                Ok(e) => {
                    if !seen.contains(&e) {
                        forward_dispatch_event(&st, &run, &e);
                    }
                }
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!(run = %run.id, "{n} dispatch events not forwarded (lagged)");
                }
                Err(broadcast::error::RecvError::Closed) => break,
            }
        }
    })
}

fn failed(error: String) -> Outcome {
    Outcome {
        result: serde_json::to_value(Recorder::default().result(0, 0)).unwrap_or_default(),
        state: FAILED,
        error: Some(error),
    }
}

/// The engine task: the shared driver ([`run_driver::drive`]) plus persistence, live frames,
/// carriers and abort.
async fn engine_task(st: &AppState, run: &Arc<ActiveRun>, p: Prepared, speed: Speed) -> Outcome {
    let Prepared {
        setup,
        source,
        carriers,
    } = p;
    let mut engine = setup.engine();
    let real_carriers = carriers.is_some();
    let mut hooks = RunHooks {
        st,
        run,
        vut_id: engine.config().vut_id.clone(),
        target_ids: setup
            .scenario
            .targets
            .iter()
            .map(|t| t.id.clone())
            .collect(),
        sim_carriers: (!real_carriers).then(|| {
            setup
                .scenario
                .targets
                .iter()
                .filter_map(|t| t.carrier.clone().map(|c| (t.id.clone(), c)))
                .collect()
        }),
        rec: Recorder::default(),
        seq: 0,
    };

    // The sample channel.
    let (mut rx, reader, cfg, live_input) = match source {
        Opened::Recorded(mut stream) => {
            run.health.lock().unwrap().name = stream.name();
            let (tx, rx) = mpsc::channel::<Result<InsSample, ReplayError>>(1024);
            let reader = tokio::task::spawn_blocking(move || {
                while let Some(item) = stream.next_sample() {
                    if tx.blocking_send(item.map_err(ReplayError::Other)).is_err() {
                        break;
                    }
                }
                stream.skipped()
            });
            let cfg = DriveConfig {
                pace: Pace::Recorded(speed),
                strt_lead: LiveConfig::default().strt_lead,
                skip_bad_samples: false,
            };
            (rx, Some(reader), cfg, None)
        }
        Opened::Live(mut l) => {
            run.health.lock().unwrap().name = l.name.clone();
            let Some(rx) = l.rx.take() else {
                return failed("live source without a channel".into());
            };
            l.started.store(true, Ordering::Release);
            let cfg = DriveConfig {
                pace: Pace::Live,
                strt_lead: Duration::ZERO,
                skip_bad_samples: true,
            };
            (rx, None, cfg, Some(l))
        }
    };

    // Real carriers: connect and arm (all ARMED) before the engine runs.
    let live_cfg = LiveConfig {
        speed: match cfg.pace {
            Pace::Recorded(Speed::Factor(f)) => f,
            _ => 1.0,
        },
        ..LiveConfig::default()
    };
    let mut cc: Option<(
        ControlCentreHandle,
        LiveDispatch,
        tokio::task::JoinHandle<()>,
    )> = None;
    if let Some(ccfg) = carriers {
        match connect_and_arm(ccfg, &live_cfg).await {
            Ok(h) => {
                let fwd = spawn_dispatch_forwarder(st, run, &h);
                let live = LiveDispatch::new(h.clone(), live_cfg.speed);
                cc = Some((h, live, fwd));
            }
            Err(e) => {
                drop(rx);
                return failed(format!("carriers: {e}"));
            }
        }
    }

    let stop = run.stop.subscribe();
    let d: LiveDrive = run_driver::drive(
        &mut rx,
        &setup.interface,
        &mut engine,
        cc.as_mut().map(|c| &mut c.1),
        Some(stop),
        &cfg,
        &mut hooks,
    )
    .await;
    drop(rx);

    let error = d.error.as_ref().map(|e| e.to_string());
    if error.is_some() {
        engine.abort(d.last_t.unwrap_or(0.0), "source error");
        while let Some(o) = engine.poll_output() {
            hooks.output(o);
        }
    }

    // Carriers: a normal end stops them (NORMAL_STOP, or DISARM when nothing started); then
    // the per-carrier report.
    let mut dispatch_json = None;
    if let Some((h, live, fwd)) = cc {
        if let Some(e) = &error {
            h.abort(&format!("source error: {e}"));
        }
        let aborted = error.is_some() || d.aborted();
        let snap = crate::dispatch::live::stop_carriers(&h, aborted, live_cfg.stop_timeout).await;
        let impact = hooks.rec.events.iter().find_map(|e| match e {
            Event::Impact(r) => r.time_s,
            _ => None,
        });
        let reports = carrier_reports(&snap, Some(&live), impact);
        dispatch_json = Some(json!({
            "carriers": reports,
            "dispatch": {
                "abort": d.cc_abort.as_ref().map(|(_, r)| r.clone())
                    .or_else(|| d.engine_abort.as_ref().map(|(_, r)| r.clone())),
                "final_phase": snap.phase,
                "starts": d.starts,
            },
        }));
        h.shutdown().await;
        if tokio::time::timeout(Duration::from_secs(1), fwd)
            .await
            .is_err()
        {
            tracing::debug!(run = %run.id, "dispatch forwarder still running after shutdown");
        }
        // The control centre is gone: the carriers keep their last state, disconnected.
        {
            let mut cs = st.carriers.lock().unwrap();
            for spec in &run.carriers {
                if let Some(c) = cs.get_mut(&spec.name) {
                    c.connected = Some(false);
                    c.updated_at = Some(Utc::now());
                }
            }
        }
    }

    let (skipped, reasons) = match reader {
        Some(r) => r.await.unwrap_or((0, vec!["CSV reader panicked".into()])),
        None => (d.bad_samples, Vec::new()),
    };
    let rec = std::mem::take(&mut hooks.rec);
    let mut result = rec.result(d.samples, skipped);
    result.skipped = reasons;
    let state = if error.is_some() {
        FAILED
    } else if matches!(d.stopped, Some(StopRequest::Abort(_))) || result.aborted.is_some() {
        ABORTED
    } else {
        FINISHED
    };
    let mut v = serde_json::to_value(&result).unwrap_or_else(|_| json!({}));
    if let Some(dj) = dispatch_json {
        if let (Some(o), Value::Object(extra)) = (v.as_object_mut(), dj) {
            o.extend(extra);
        }
    }
    if let Some(l) = &live_input {
        v["source"] = json!({
            "name": l.name,
            "addr": l.local_addr.map(|a| a.to_string()),
            "dropped": l.dropped.load(Ordering::Relaxed),
            "bad_samples": d.bad_samples,
            "health": l.health.iter().map(|h| h.snapshot()).collect::<Vec<_>>(),
        });
    }
    drop(live_input);
    Outcome {
        result: v,
        state,
        error: error.or_else(|| result_abort(&rec)),
    }
}

fn result_abort(rec: &Recorder) -> Option<String> {
    rec.events.iter().find_map(|e| match e {
        Event::Aborted { reason, .. } => Some(reason.clone()),
        _ => None,
    })
}

/// Telemetry rows and live frames for one VUT sample instant.
fn publish(
    st: &AppState,
    run: &ActiveRun,
    engine: &Engine,
    vut_id: &str,
    targets: &[String],
    t: f64,
    seq: &mut i64,
) {
    let live = run.tx.receiver_count() > 0;
    let twin = engine.twin();
    let mut ids: Vec<(&str, &str)> = vec![(vut_id, "vut")];
    ids.extend(targets.iter().map(|t| (t.as_str(), "target")));
    for (vid, kind) in ids {
        let Some(v) = twin.get(vid) else { continue };
        let lane = match &v.road {
            RoadState::OnLane(l) => Some(l),
            _ => None,
        };
        let row = TelemetryRow {
            run_id: run.id.clone(),
            seq: *seq,
            t: if kind == "vut" { v.time_s } else { t },
            vehicle: vid.to_string(),
            kind: kind.to_string(),
            x: v.x,
            y: v.y,
            yaw: v.yaw_rad,
            speed_mps: v.speed_mps,
            steering_wheel_deg: v.steering_wheel_deg,
            brake_light: v.brake_light,
            road_id: lane.map(|l| l.road_id.clone()),
            lane_id: lane.map(|l| l.lane_id),
            road_s: lane.map(|l| l.s),
            road_t: lane.map(|l| l.t),
        };
        *seq += 1;
        if live {
            run.send(&json!({
                "type": "sample", "run_id": run.id, "t": row.t, "vehicle": vid, "kind": kind,
                "x": v.x, "y": v.y, "yaw": v.yaw_rad, "speed_mps": v.speed_mps,
                "brake": v.brake_light,
                "road": lane.map(|l| json!({"road_id": l.road_id, "lane_id": l.lane_id, "s": l.s, "t": l.t})),
            }));
        }
        st.writer.send_telemetry(row);
    }
    if live {
        for ts in engine.targets() {
            run.send(
                &json!({"type": "ttc", "run_id": run.id, "t": t, "target": ts.target,
                             "ttc_s": ts.ttc_s, "threshold_s": ts.threshold_s}),
            );
        }
    }
}
