//! The lifecycle of a run: `created → armed → running → finished | aborted | failed`
//! (`created`/`armed` may also go straight to `aborted`). The database row is the record; an
//! [`ActiveRun`] lives in memory until the run is terminal and carries the live channel, the
//! stop handle and the prepared session.
//!
//! The run itself is the run layer's: arming builds a [`RunSetup`] from the stored scenario and
//! map, opens the source through the one source factory (live sockets are bound then, so their
//! health shows before the start), and starting runs a [`Session`] with the service's sinks
//! ([`super::sinks`]: store, live stream, simulated carriers) and, with real carriers, the
//! run layer's carriers sink.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use serde_json::json;

use super::admission::{carrier_specs, ins_spec_unresolved, track_of, validate};
use super::claims::{claim_error, claims_for};
use super::ground;
use super::run::{
    lock, set_state, speed_to_db, ActiveRun, CarrierSpec, NewRun, Prepared, RunSource, StoredSource,
};
use super::Supervisor;
use crate::dispatch::events::AbortInfo;
use crate::ingest::can::DbcDecoder;
use crate::ingest::csv::BadRowPolicy;
use crate::run::sink::carriers::CarrierOptions;
use crate::run::{InsSpec, OpenCtx, Pace, RunSetup, RunState, SourceSpec, Stopper};
use crate::scenario::engine::EngineConfig;
use crate::serve::error::{ApiError, ApiResult};
use crate::store::{CarrierClaim, RunRow};

fn speed_of(row: &RunRow) -> Pace {
    row.speed.map_or(Pace::Max, Pace::Factor)
}

fn new_row(st: &Supervisor, req: &NewRun, map_id: Option<String>) -> ApiResult<RunRow> {
    let now = Utc::now();
    let stored = StoredSource {
        ins: req.source.clone(),
        can: req.can.clone(),
        can_mapping: req.can_mapping.clone(),
        sync: req.sync,
        virtual_targets: req.virtual_targets.clone(),
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
        abort: None,
    })
}

fn register(
    st: &Supervisor,
    row: &RunRow,
    req: &NewRun,
    claims: Vec<CarrierClaim>,
    osi: Option<Arc<crate::serve::osi_stream::OsiServer>>,
) -> Arc<ActiveRun> {
    st.metrics.runs_created.fetch_add(1, Ordering::Relaxed);
    let carriers = &req.carriers;
    let recording = req
        .record
        .then(|| crate::serve::shared_files::recording_path(st, &row.id));
    let mut active = ActiveRun::new(row.clone(), carriers.to_vec(), claims, recording);
    active.virtual_targets = req.virtual_targets.clone();
    active.osi = osi;
    let run = Arc::new(active);
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

/// The run still holds the carrier addresses it claimed when it was created (arm and start
/// check; a restart may have released them). The addresses were resolved once, at create, so
/// a start never waits on a name lookup.
async fn hold_claims(st: &Supervisor, run: &ActiveRun) -> ApiResult<()> {
    if run.claims.is_empty() {
        return Ok(());
    }
    st.store
        .ensure_claims(&run.id, &run.claims)
        .await
        .map_err(claim_error)
}

/// The run's live OSI server, bound now so that a busy address fails the request (422).
fn osi_server(req: &NewRun) -> ApiResult<Option<Arc<crate::serve::osi_stream::OsiServer>>> {
    req.osi
        .as_ref()
        .map(|spec| {
            crate::serve::osi_stream::OsiServer::bind(spec)
                .map(Arc::new)
                .map_err(ApiError::Unprocessable)
        })
        .transpose()
}

/// At create, for objects on a map with a geofence: their whole motion, planned on the run's
/// setup, checked against it (422 naming the object and the first point outside).
async fn check_at_create(st: &Supervisor, row: &RunRow, carriers: &[CarrierSpec]) -> ApiResult<()> {
    let Some(opts) = ground::fence_at_create(st, row, carriers).await? else {
        return Ok(());
    };
    let setup = setup_of(st, row, carriers).await?;
    ground::check_at_create(st, opts, setup, carriers).await
}

/// While run `id` is armed with objects on the ground: the moment they are no longer armed as
/// one, the run ends `aborted` with that cause.
fn abort_when_lost(st: &Supervisor, id: &str, watch: ground::ArmedWatch) {
    let (st, id) = (st.clone(), id.to_string());
    tokio::spawn(async move {
        if let Some(info) = watch.lost().await {
            let _ = abort_with(&st, &id, info, Some(RunState::Armed)).await;
        }
    });
}

/// Creates a run (state `created`).
pub async fn create(st: &Supervisor, mut req: NewRun) -> ApiResult<RunRow> {
    let map_id = validate(st, &mut req).await?;
    let row = new_row(st, &req, map_id)?;
    check_at_create(st, &row, &req.carriers).await?;
    let claims = claims_for(&req.carriers).await?;
    let osi = osi_server(&req)?;
    st.store
        .insert_run_claiming(&row, &claims)
        .await
        .map_err(claim_error)?;
    register(st, &row, &req, claims, osi);
    Ok(row)
}

/// Creates, arms and starts a run in one step. Atomic: the source is opened (live sockets
/// bound) before the run is stored, so a failure leaves nothing behind.
pub async fn create_and_start(st: &Supervisor, mut req: NewRun) -> ApiResult<RunRow> {
    let map_id = validate(st, &mut req).await?;
    let row = new_row(st, &req, map_id)?;
    check_at_create(st, &row, &req.carriers).await?;
    let claims = claims_for(&req.carriers).await?;
    let prepared = prepare(st, &row, &req.carriers).await?;
    let osi = osi_server(&req)?;
    st.store
        .insert_run_claiming(&row, &claims)
        .await
        .map_err(claim_error)?;
    let run = register(st, &row, &req, claims, osi);
    if ground::is_ground(&req.carriers)? {
        let watch = ground::arm_objects(st, &run, &row, &prepared.setup, false).await?;
        abort_when_lost(st, &row.id, watch);
    }
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
pub fn aborting_view(st: &Supervisor, id: &str) -> Option<RunRow> {
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
pub fn is_active(st: &Supervisor, id: &str) -> bool {
    active(st, id).is_some()
}

fn active(st: &Supervisor, id: &str) -> Option<Arc<ActiveRun>> {
    lock(&st.runs).get(id).cloned()
}

async fn not_active_error(
    st: &Supervisor,
    id: &str,
    action: &str,
    expect: Option<RunState>,
) -> ApiError {
    match st.store.get_run(id).await {
        Ok(Some(r)) => crate::serve::instance::foreign_owner(&st.instance, &r, action)
            .unwrap_or_else(|| {
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
pub async fn arm(st: &Supervisor, id: &str, expect: Option<RunState>) -> ApiResult<RunRow> {
    arm_with(st, id, expect, false).await
}

/// [`arm`]; `override_start` arms objects on the ground standing away from their start.
pub async fn arm_with(
    st: &Supervisor,
    id: &str,
    expect: Option<RunState>,
    override_start: bool,
) -> ApiResult<RunRow> {
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
    if ground::is_ground(&run.carriers)? {
        let watch = ground::arm_objects(st, &run, &row, &prepared.setup, override_start).await?;
        abort_when_lost(st, id, watch);
    }
    publish_prepared(st, &run, &row, &prepared);
    *lock(&run.prepared) = Some(prepared);
    row.armed_at = Some(Utc::now());
    set_state(st, &run, &mut row, RunState::Armed);
    st.store.update_run(&row).await?;
    Ok(row.clone())
}

/// The setup, the opened source and the carrier options of a run.
/// The run's setup: its scenario on its map, with the engine options of its source and
/// carriers.
pub(super) async fn setup_of(
    st: &Supervisor,
    row: &RunRow,
    carriers: &[CarrierSpec],
) -> ApiResult<Arc<RunSetup>> {
    let (_, scenario) = st
        .load_scenario(&row.scenario_id, "no longer exists")
        .await?;
    let map = st.map_opt(row.map_id.as_deref()).await?;
    let stored = stored_source(row)?;
    let engine = EngineConfig {
        sync: stored.sync,
        stale_limit_s: ground::engine_stale_limit(st, carriers),
        ..EngineConfig::default()
    };
    let setup = Arc::new(
        RunSetup::try_new(scenario, map, engine)
            .map_err(|e| ApiError::Unprocessable(format!("scenario: {e:#}")))?,
    );
    // On the ground, each carried target's run-up is the one its platform drives.
    if ground::is_ground(carriers)? {
        return ground::fitted_setup(st, row, setup, carriers).await;
    }
    Ok(setup)
}

fn stored_source(row: &RunRow) -> ApiResult<StoredSource> {
    serde_json::from_str(&row.source)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("stored source of run '{}': {e}", row.id)))
}

async fn prepare(st: &Supervisor, row: &RunRow, carriers: &[CarrierSpec]) -> ApiResult<Prepared> {
    let setup = setup_of(st, row, carriers).await?;
    let stored = stored_source(row)?;
    let carriers = if carriers.is_empty() || ground::is_ground(carriers)? {
        None
    } else {
        Some(CarrierOptions {
            carriers: carrier_specs(carriers)?,
            virtual_targets: stored.virtual_targets.clone(),
            ..CarrierOptions::default()
        })
    };
    if let RunSource::Monr { carrier } = &stored.ins {
        return Ok(Prepared {
            setup,
            feed: crate::run::Feed::from_iter(format!("monr:{carrier}"), std::iter::empty()),
            carriers,
            vehicle: None,
        });
    }
    if let RunSource::SimVut(opts) = &stored.ins {
        let (feed, vehicle) = super::vehicle::drive(&setup, opts);
        return Ok(Prepared {
            setup,
            feed,
            carriers,
            vehicle: Some(vehicle),
        });
    }
    let ins = match &stored.ins {
        RunSource::CsvReplay { replay_id, .. } => {
            let r = st
                .store
                .get_replay(replay_id)
                .await?
                .ok_or_else(|| ApiError::not_found("replay", replay_id))?;
            InsSpec::Csv {
                path: crate::serve::shared_files::replay_path(st, &r).await?,
                columns: r.column_specs(),
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
fn publish_prepared(st: &Supervisor, run: &ActiveRun, row: &RunRow, p: &Prepared) {
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
pub async fn start(st: &Supervisor, id: &str, expect: Option<RunState>) -> ApiResult<RunRow> {
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
    // Objects on the ground start only when each is ARMED (409 naming one that is not).
    ground::start_check(st, id).await?;
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
    tokio::spawn(super::drive::supervise(st.clone(), run, prepared, speed));
    Ok(out)
}

/// Operator abort: a running run's engine aborts at its current sample time; a created/armed
/// run goes straight to `aborted`.
pub async fn abort(
    st: &Supervisor,
    id: &str,
    reason: &str,
    expect: Option<RunState>,
) -> ApiResult<RunRow> {
    abort_with(st, id, AbortInfo::other("operator", reason), expect).await
}

/// [`abort`] with its cause as data: the operator's, or a safety rule's (an object that failed
/// while the run was armed).
pub async fn abort_with(
    st: &Supervisor,
    id: &str,
    info: AbortInfo,
    expect: Option<RunState>,
) -> ApiResult<RunRow> {
    let reason = crate::store::bound_reason(&info.text);
    let run = match active(st, id) {
        Some(r) => r,
        None => {
            // ABORT also stops the objects driving back to their starts after the run.
            if ground::abort_return(st, id, &reason).await {
                return st
                    .store
                    .get_run(id)
                    .await?
                    .ok_or_else(|| ApiError::not_found("run", id));
            }
            return Err(not_active_error(st, id, "abort", expect).await);
        }
    };
    let mut row = run.row.lock().await;
    check_expected(id, "abort", &row, expect)?;
    match state_of(&row) {
        Some(RunState::Running) => {
            run.stop.abort(&reason, Stopper::Operator);
            Ok(row.clone())
        }
        Some(RunState::Created | RunState::Armed) => {
            // Closes a bound live source; armed objects on the ground get ABORT, and so do
            // objects driving to the run's start poses (at once: before any lock is awaited).
            lock(&run.prepared).take();
            ground::abort_return(st, id, &reason).await;
            ground::release(st, id, &reason).await;
            row.finished_at = Some(Utc::now());
            row.error = Some(reason);
            row.abort = serde_json::to_string(&info).ok();
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
pub async fn abort_all(st: &Supervisor, reason: &str) -> Vec<RunRow> {
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
pub async fn finish(st: &Supervisor, id: &str, expect: Option<RunState>) -> ApiResult<RunRow> {
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
pub async fn wait_done(st: &Supervisor, id: &str, timeout: Duration) -> ApiResult<RunRow> {
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
