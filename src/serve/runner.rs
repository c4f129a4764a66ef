//! Run lifecycle and the engine task.
//!
//! States: `created → armed → running → finished | aborted | failed` (`created`/`armed` may also
//! go straight to `aborted`). The database row is the record; an [`ActiveRun`] lives in memory
//! from creation until the run is terminal and carries the live channel and the abort flag.
//!
//! One engine task per run: the sans-IO [`Engine`] is driven on a blocking thread
//! (`spawn_blocking`) from a [`SampleStream`], with the same loop for replays and (once the
//! ingest sources land) live sources: timers due before the next sample fire first, at their own
//! instants; every output is recorded, persisted (through the writer) and broadcast. A replay is
//! paced by [`Pacer`] (×N or max); the wait is sliced so an abort is seen within 20 ms.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::broadcast;

use super::context::AppState;
use super::error::{ApiError, ApiResult};
use super::live::{frame, Frame, RUN_CHANNEL};
use crate::frame::Interface;
use crate::ingest::csv::{BadRowPolicy, CsvSource};
use crate::map::Map;
use crate::replay::{Pacer, Recorder, ReplaySetup, RunResult, Speed};
use crate::sample::InsSample;
use crate::scenario::engine::{Command, Engine, EngineConfig, Event, Output};
use crate::scenario::Scenario;
use crate::store::{RunRow, TelemetryRow};
use crate::twin::RoadState;

/// Where a run's telemetry comes from. Tagged by `kind` in JSON.
///
/// Live sources (NCOM over UDP, CAN through a DBC, JSON lines over UDP/TCP/WebSocket, being built
/// in `src/ingest/`) slot in as new variants; [`open_source`] turns a variant into a
/// [`SampleStream`] and the engine loop does not change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunSource {
    /// A recorded CSV (bundled or uploaded) replayed at the run's speed.
    CsvReplay {
        replay_id: String,
        /// Original file name (display only; the file is stored under a generated name).
        file_name: String,
    },
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

/// Opens the source of a run.
pub async fn open_source(st: &AppState, src: &RunSource) -> ApiResult<Box<dyn SampleStream>> {
    match src {
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
            Ok(Box::new(CsvStream {
                name: format!("csv:{file_name}"),
                src,
            }))
        }
    }
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
    pub source: Box<dyn SampleStream>,
}

/// Source health counters, updated by the engine thread, read by the health ticker.
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
    pub prepared: Mutex<Option<Prepared>>,
    pub health: Mutex<SourceHealth>,
    /// Set when the run reaches a terminal state (tests and the demo wait on it).
    pub done: tokio::sync::watch::Sender<bool>,
}

impl ActiveRun {
    pub fn new(row: RunRow) -> ActiveRun {
        ActiveRun {
            id: row.id.clone(),
            row: tokio::sync::Mutex::new(row),
            tx: broadcast::channel(RUN_CHANNEL).0,
            abort: AtomicBool::new(false),
            abort_reason: Mutex::new(None),
            prepared: Mutex::new(None),
            health: Mutex::new(SourceHealth::default()),
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
        }
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
    st.runs
        .lock()
        .unwrap()
        .insert(row.id.clone(), Arc::new(ActiveRun::new(row.clone())));
    st.record_event(
        Some(&row.id),
        None,
        "state",
        &json!({"event": "state", "state": CREATED}),
    );
    Ok(row)
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
    let prepared = prepare(st, &row).await?;
    *run.prepared.lock().unwrap() = Some(prepared);
    row.armed_at = Some(Utc::now());
    set_state(st, &run, &mut row, ARMED);
    st.store.update_run(&row).await?;
    Ok(row.clone())
}

async fn prepare(st: &AppState, row: &RunRow) -> ApiResult<Prepared> {
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
    let setup = setup_for(scenario, map, EngineConfig::default());
    let source: RunSource = serde_json::from_str(&row.source).map_err(|e| {
        ApiError::Internal(anyhow::anyhow!("stored source of run '{}': {e}", row.id))
    })?;
    let source = open_source(st, &source).await?;
    Ok(Prepared { setup, source })
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
    result: RunResult,
    state: &'static str,
    error: Option<String>,
}

/// Runs the engine thread and a health ticker, then settles the run.
async fn supervise(st: AppState, run: Arc<ActiveRun>, prepared: Prepared, speed: Speed) {
    let ticker = tokio::spawn(health_ticker(st.clone(), run.clone()));
    let (st2, run2) = (st.clone(), run.clone());
    let joined =
        tokio::task::spawn_blocking(move || engine_loop(&st2, &run2, prepared, speed)).await;
    ticker.abort();
    let outcome = match joined {
        Ok(o) => o,
        Err(e) => Outcome {
            result: Recorder::default().result(0, 0),
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
        let (src, n) = {
            let h = run.health.lock().unwrap();
            let n = h.samples;
            (
                json!({"name": h.name, "rate_hz": (n - prev.1) as f64 / dt,
                       "age_s": h.last.map(|l| (now - l).as_secs_f64()), "errors": h.errors}),
                n,
            )
        };
        let ws = &st.writer.stats;
        let written = ws.rows_written.load(Ordering::Relaxed);
        let store = json!({"name": "store", "rate_hz": (written - prev.2) as f64 / dt,
                           "age_s": st.writer.last_ok_age_s(), "errors": ws.errors.load(Ordering::Relaxed),
                           "buffered": ws.buffered.load(Ordering::Relaxed),
                           "dropped": ws.dropped.load(Ordering::Relaxed)});
        prev = (now, n, written);
        run.send(&json!({"type": "health", "run_id": run.id, "sources": [src, store]}));
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

/// The engine thread: the same loop as [`crate::replay::drive`], plus persistence, live frames
/// and abort.
fn engine_loop(st: &AppState, run: &ActiveRun, mut p: Prepared, speed: Speed) -> Outcome {
    let id = run.id.clone();
    let mut engine = p.setup.engine();
    let vut_id = engine.config().vut_id.clone();
    let target_ids: Vec<String> = p
        .setup
        .scenario
        .targets
        .iter()
        .map(|t| t.id.clone())
        .collect();
    let carriers: Vec<(String, String)> = p
        .setup
        .scenario
        .targets
        .iter()
        .filter_map(|t| t.carrier.clone().map(|c| (t.id.clone(), c)))
        .collect();
    let mut pacer = Pacer::new(if p.source.is_recording() {
        speed
    } else {
        Speed::Max
    });
    let mut rec = Recorder::default();
    let mut seq: i64 = 0;
    let mut n: u64 = 0;
    let mut last_t: Option<f64> = None;
    let mut error: Option<String> = None;
    let mut aborted = false;
    run.health.lock().unwrap().name = p.source.name();

    let emit = |o: Output, rec: &mut Recorder| {
        match &o {
            Output::Event(e) => {
                st.metrics.engine_events.fetch_add(1, Ordering::Relaxed);
                let v = serde_json::to_value(e).unwrap_or(Value::Null);
                let t = event_time(e);
                st.record_event(Some(&id), t, &event_kind(&v), &v);
                run.send(&json!({"type": "event", "run_id": id, "t": t, "event": v}));
            }
            Output::Command(c) => {
                let v = serde_json::to_value(c).unwrap_or(Value::Null);
                st.record_event(Some(&id), None, "command", &v);
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
                                    "state": state, "time_s": t});
                    if let Some(c) = &carrier {
                        st.set_carrier_state(c, state, &id);
                    }
                    st.record_event(Some(&id), t, "carrier_state", &ev);
                    run.send(&json!({"type": "event", "run_id": id, "t": t, "event": ev}));
                }
            }
        }
        rec.record(o);
    };

    loop {
        if run.abort.load(Ordering::SeqCst) {
            aborted = true;
            break;
        }
        let Some(item) = p.source.next_sample() else {
            break;
        };
        let ins = match item {
            Ok(s) => s,
            Err(e) => {
                run.health.lock().unwrap().errors += 1;
                error = Some(e.to_string());
                break;
            }
        };
        let s = match p.setup.interface.to_map(&ins) {
            Ok(s) => s,
            Err(e) => {
                error = Some(format!("sample at t={}: {e}", ins.time_s));
                break;
            }
        };
        if n == 0 {
            engine.arm(s.time_s);
        }
        while let Some(t) = engine.poll_timeout() {
            if t > s.time_s {
                break;
            }
            if !wait(&mut pacer, t, run) {
                break;
            }
            engine.handle_timeout(t);
            while let Some(o) = engine.poll_output() {
                emit(o, &mut rec);
            }
        }
        if !wait(&mut pacer, s.time_s, run) {
            aborted = true;
            break;
        }
        engine.handle_sample(&s);
        {
            let mut h = run.health.lock().unwrap();
            h.samples += 1;
            h.last = Some(Instant::now());
        }
        st.metrics.samples_ingested.fetch_add(1, Ordering::Relaxed);
        while let Some(o) = engine.poll_output() {
            emit(o, &mut rec);
        }
        if s.vehicle == vut_id {
            publish(st, run, &engine, &vut_id, &target_ids, s.time_s, &mut seq);
        }
        last_t = Some(s.time_s);
        n += 1;
    }
    let now_t = last_t.unwrap_or(0.0);
    if aborted {
        let reason = run
            .abort_reason
            .lock()
            .unwrap()
            .clone()
            .unwrap_or_else(|| "operator abort".into());
        engine.abort(now_t, &reason);
    } else if error.is_some() {
        engine.abort(now_t, "source error");
    } else {
        engine.finish(now_t);
    }
    while let Some(o) = engine.poll_output() {
        emit(o, &mut rec);
    }
    let (skipped, reasons) = p.source.skipped();
    let mut result = rec.result(n, skipped);
    result.skipped = reasons;
    let state = if error.is_some() {
        FAILED
    } else if aborted || result.aborted.is_some() {
        ABORTED
    } else {
        FINISHED
    };
    Outcome {
        result,
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

/// Sleeps until sample time `t` is due, in slices, so an abort is seen. False if aborted.
fn wait(pacer: &mut Pacer, t: f64, run: &ActiveRun) -> bool {
    if let Some(due) = pacer.due(t) {
        loop {
            if run.abort.load(Ordering::SeqCst) {
                return false;
            }
            let now = Instant::now();
            if now >= due {
                break;
            }
            std::thread::sleep((due - now).min(Duration::from_millis(20)));
        }
    }
    !run.abort.load(Ordering::SeqCst)
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
