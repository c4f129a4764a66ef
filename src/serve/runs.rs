//! `/runs`: create, list, read, events, results, telemetry (the controls are
//! [`super::run_control`]).

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::Deserialize;
use serde_json::{json, Value};

use super::auth::{Operator, Reader};
use super::error::{ApiError, ApiJson, ApiQuery, ApiResult};
use super::hub::run_json;
use super::state::AppState;
use super::supervisor::{CarrierSpec, NewRun, RunSource};
use crate::ingest::can::CanMapping;
use crate::run::{CanSpec, Pace};
use crate::store::{RunFilter, RunRow};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/runs", get(list).post(create))
        .route("/tracks", get(tracks))
        .route("/runs/{id}", get(get_one))
        .route("/runs/{id}/events", get(events))
        .route("/runs/{id}/results", get(results))
        .route("/runs/{id}/telemetry", get(telemetry))
}

/// `speed`: a positive number (real-time factor) or `"max"`; default 1 (real time).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum SpeedArg {
    Factor(f64),
    Text(String),
}

impl SpeedArg {
    pub fn parse(s: Option<&SpeedArg>) -> ApiResult<Pace> {
        match s {
            None => Ok(Pace::Factor(1.0)),
            Some(SpeedArg::Factor(f)) => Pace::factor_checked(*f).map_err(ApiError::Unprocessable),
            Some(SpeedArg::Text(t)) => t.parse::<Pace>().map_err(ApiError::Unprocessable),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateRun {
    pub scenario_id: String,
    #[serde(default, deserialize_with = "super::error::not_null")]
    pub map_id: Option<String>,
    /// Replay id (a bundled or uploaded recording). Also accepted: the id of an earlier run
    /// whose source was a replay (that recording is replayed again).
    #[serde(
        default,
        alias = "replay_id",
        deserialize_with = "super::error::not_null"
    )]
    pub replay: Option<String>,
    /// Explicit source: `{"kind":"csv_replay","replay_id":…}` (alternative to `replay`), or a
    /// live source `{"kind":"ncom","bind":"0.0.0.0:3000"}`,
    /// `{"kind":"json","transport":"udp"|"tcp"|"ws","bind":…}`, or the built-in simulated VUT
    /// `{"kind":"sim_vut","vut_speed_kmh":40,"aeb":{"ttc_s":1.2,"decel_mps2":8,"delay_ms":150}}`
    /// (optional `step_ms`, `injection`; paced at `speed`).
    #[serde(default, deserialize_with = "super::error::not_null")]
    pub source: Option<Value>,
    /// Real carriers dispatched over ISO 22133: `[{"name":"carrier-1","address":"HOST:PORT"}]`.
    #[serde(default)]
    pub carriers: Vec<CarrierSpec>,
    /// CAN fused with the INS source: `{"kind":"cannelloni","bind":"0.0.0.0:20000","dbc":"vut"}`
    /// or `{"kind":"socketcan","iface":"can0","dbc":"vut"}` (`dbc`: a registered DBC id).
    #[serde(default, deserialize_with = "super::error::not_null")]
    pub can: Option<CanSpec>,
    /// Which DBC signals feed which fields (default: `vut.dbc`'s steering, brake light, wheel
    /// speeds; add `"fcw": {"message": "ADAS_STATUS", "signal": "FCW"}` for a CAN FCW).
    #[serde(default, deserialize_with = "super::error::not_null")]
    pub can_mapping: Option<CanMapping>,
    #[serde(default, deserialize_with = "super::error::not_null")]
    pub speed: Option<SpeedArg>,
    /// Arm and start at once.
    #[serde(default)]
    pub start: bool,
    /// Closed-loop synchronisation of the targets with the VUT.
    #[serde(default)]
    pub sync: bool,
    /// Record the run to MCAP (Foxglove schemas); `GET /runs/{id}/export.mcap` then serves
    /// the recording itself.
    #[serde(default)]
    pub record: bool,
    /// The track (one of the service's `tracks`; default: the default track).
    #[serde(default)]
    pub track: Option<String>,
    /// Targets that exist only in the twin: no carrier; each moves on its planned path,
    /// triggered and synchronised like a real one (`["dummy"]`).
    /// Default: `[twin] virtual` of scil.toml (those of its ids the scenario has).
    #[serde(
        default,
        rename = "virtual",
        deserialize_with = "super::error::not_null"
    )]
    pub virtual_targets: Option<Vec<String>>,
    /// A live ASAM OSI stream while the run is live: `{"tcp": "HOST:PORT"}` (docs/osi.md).
    #[serde(default, deserialize_with = "super::error::not_null")]
    pub osi: Option<super::osi_stream::OsiSpec>,
}

async fn list(
    State(st): State<AppState>,
    _r: Reader,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> ApiResult<Response> {
    let limit = q.limit.unwrap_or(100).clamp(1, 1000);
    // Filtered lists (the active runs of a track, the operator's runs) are short: one page.
    if q.active.is_some() || q.demo.is_some() || q.track.is_some() {
        let filter = RunFilter {
            active: q.active,
            demo: q.demo,
            track: q.track,
            limit,
        };
        let mut rows = st.store.list_runs_filtered(&filter).await?;
        st.supervisor.unsaved.overlay(&mut rows);
        overlay_aborting(&st, &mut rows);
        let list: Vec<Value> = rows
            .iter()
            .map(|r| {
                let mut v = run_json(r);
                // An active run's own time: its latest sample on the run's axis.
                let run = st.supervisor.active(&r.id);
                if let Some(run) = run {
                    let h = run.history.lock().unwrap_or_else(|p| p.into_inner());
                    if let (Some(t0), Some(t)) = (h.t0, h.last_t) {
                        v["t_s"] = json!(t - t0);
                    }
                }
                v
            })
            .collect();
        return Ok(axum::Json(list).into_response());
    }
    let after = match q.cursor.as_deref() {
        Some(c) => Some(parse_cursor(c)?),
        None => None,
    };
    let mut rows = st
        .store
        .list_runs_page(limit, after.as_ref().map(|(t, id)| (*t, id.as_str())))
        .await?;
    st.supervisor.unsaved.overlay(&mut rows);
    overlay_aborting(&st, &mut rows);
    let mut resp = axum::Json(rows.iter().map(run_json).collect::<Vec<_>>()).into_response();
    // A full page: the next one starts after its last run.
    if let Some(last) = rows.last().filter(|_| rows.len() as i64 == limit) {
        if let Some(ns) = last.created_at.timestamp_nanos_opt() {
            let cursor = format!("{ns}_{}", last.id);
            let link = format!("</api/v1/runs?limit={limit}&cursor={cursor}>; rel=\"next\"");
            for (k, v) in [("x-next-cursor", cursor), ("link", link)] {
                if let Ok(v) = header::HeaderValue::from_str(&v) {
                    resp.headers_mut().insert(k, v);
                }
            }
        }
    }
    Ok(resp)
}

/// Running runs whose abort was requested read `aborted` at once.
fn overlay_aborting(st: &AppState, rows: &mut [RunRow]) {
    for r in rows.iter_mut().filter(|r| r.state == "running") {
        if let Some(v) = st.supervisor.aborting_view(&r.id) {
            *r = v;
        }
    }
}

/// `NANOS_ID`: the creation time (ns since the epoch) and id of the previous page's last run.
fn parse_cursor(c: &str) -> ApiResult<(chrono::DateTime<chrono::Utc>, String)> {
    let bad = || {
        ApiError::BadRequest(format!(
            "cursor '{c}': expected the x-next-cursor of the previous page"
        ))
    };
    let (ns, id) = c.split_once('_').ok_or_else(bad)?;
    let ns: i64 = ns.parse().map_err(|_| bad())?;
    if id.is_empty() {
        return Err(bad());
    }
    Ok((chrono::DateTime::from_timestamp_nanos(ns), id.to_string()))
}

/// (Unknown keys are ignored: `?token=` authenticates browser GETs.)
#[derive(Debug, Deserialize)]
struct ListQuery {
    limit: Option<i64>,
    /// `true`: only created/armed/running runs (each with `t_s`, its latest sample time).
    active: Option<bool>,
    /// `false`: hide the demo's runs.
    demo: Option<bool>,
    track: Option<String>,
    /// The previous page's `x-next-cursor` (key-based pagination, newest first).
    cursor: Option<String>,
}

/// `GET /tracks`: the service's tracks, the default one, the demo's, and the latest started
/// run of each.
async fn tracks(State(st): State<AppState>, _r: Reader) -> ApiResult<Response> {
    let c = &st.config;
    let latest: serde_json::Map<String, Value> = c
        .tracks
        .iter()
        .chain(std::iter::once(&c.demo.track))
        .filter_map(|t| st.hub.active(t).map(|id| (t.clone(), json!(id))))
        .collect();
    Ok(axum::Json(json!({
        "tracks": c.tracks,
        "default": c.default_track(),
        "demo": c.demo.track,
        "latest_run": latest,
    }))
    .into_response())
}

/// Resolves a replay id (or the id of a replay run) to a source.
async fn source_for(st: &AppState, replay: &str) -> ApiResult<RunSource> {
    if let Some(r) = st.store.get_replay(replay).await? {
        return Ok(RunSource::CsvReplay {
            replay_id: r.id,
            file_name: r.name,
        });
    }
    if let Some(run) = st.store.get_run(replay).await? {
        if let Ok(src) = serde_json::from_str::<super::supervisor::StoredSource>(&run.source) {
            return Ok(src.ins);
        }
    }
    Err(ApiError::Unprocessable(
        super::known::unknown(&st.store, "replay", replay).await,
    ))
}

async fn create(
    State(st): State<AppState>,
    _op: Operator,
    ApiJson(req): ApiJson<CreateRun>,
) -> ApiResult<Response> {
    let speed = SpeedArg::parse(req.speed.as_ref())?;
    let source = match (&req.source, &req.replay) {
        (Some(v), _) => {
            let src: RunSource = serde_json::from_value(v.clone())
                .map_err(|e| ApiError::Unprocessable(format!("source: {e}")))?;
            match &src {
                RunSource::CsvReplay { replay_id, .. } => source_for(&st, replay_id).await?,
                RunSource::Ncom { .. }
                | RunSource::Adma { .. }
                | RunSource::Json { .. }
                | RunSource::SimVut(_)
                | RunSource::Monr { .. } => src,
            }
        }
        (None, Some(r)) => source_for(&st, r).await?,
        (None, None) => {
            // Default: the bundled recording named like the scenario, if any.
            source_for(&st, &req.scenario_id).await.map_err(|_| {
                ApiError::Unprocessable(
                    "a run needs a source: give \"replay\" (a replay id) or \"source\"".into(),
                )
            })?
        }
    };
    if matches!(req.can, Some(CanSpec::Candump { .. })) {
        return Err(ApiError::Unprocessable(
            "a service run fuses live CAN (cannelloni or socketcan), not a log file".into(),
        ));
    }
    let virtual_targets = match req.virtual_targets {
        Some(v) => v,
        None => configured_virtual(&st, &req.scenario_id).await?,
    };
    let new = NewRun {
        scenario_id: req.scenario_id,
        map_id: req.map_id,
        source,
        can: req.can,
        can_mapping: req.can_mapping,
        speed,
        carriers: req.carriers,
        sync: req.sync,
        record: req.record,
        track: req.track,
        demo: false,
        virtual_targets,
        osi: req.osi.or_else(|| st.config.osi.clone()),
    };
    // With start: created, armed and started at once, or nothing is left behind.
    let row = if req.start {
        st.supervisor.create_and_start(new).await?
    } else {
        st.supervisor.create(new).await?
    };
    let mut v = run_json(&row);
    osi_address(&st, &row.id, &mut v);
    Ok((StatusCode::CREATED, axum::Json(v)).into_response())
}

/// An active run's live OSI stream: `"osi": {"tcp": ADDRESS}`, the address it listens on.
fn osi_address(st: &AppState, id: &str, v: &mut Value) {
    if let Some(addr) = st
        .supervisor
        .active(id)
        .and_then(|r| r.osi.as_ref().map(|s| s.local_addr()))
    {
        v["osi"] = json!({"tcp": addr.to_string()});
    }
}

/// `[twin] virtual` of scil.toml: those of its targets the run's scenario has.
async fn configured_virtual(st: &AppState, scenario_id: &str) -> ApiResult<Vec<String>> {
    let ids = &st.config.twin.virtual_targets;
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let scenario = st
        .store
        .get_scenario(scenario_id)
        .await?
        .and_then(|s| crate::scenario::Scenario::from_toml(&s.toml).ok());
    Ok(scenario
        .map(|sc| {
            sc.targets
                .iter()
                .filter(|t| ids.contains(&t.id))
                .map(|t| t.id.clone())
                .collect()
        })
        .unwrap_or_default())
}

async fn get_one(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let r = run_row(&st, &id).await?;
    let mut v = run_json(&r);
    if let Some(mut objects) = st.supervisor.objects(&id).await {
        // The virtual targets beside the objects on the ground: in the twin only, no carrier.
        if let Some(list) = objects.as_array_mut() {
            for t in super::supervisor::virtual_targets::of(&r) {
                list.push(
                    json!({"name": t, "drives": t, "virtual": true, "state": "virtual",
                                 "at_start": true}),
                );
            }
        }
        v["objects"] = objects;
    }
    osi_address(&st, &id, &mut v);
    Ok(axum::Json(v).into_response())
}

/// The run's row: its final state from memory while the database has not taken it.
async fn run_row(st: &AppState, id: &str) -> ApiResult<RunRow> {
    if let Some(r) = st
        .supervisor
        .unsaved
        .row(id)
        .or_else(|| st.supervisor.aborting_view(id))
    {
        return Ok(r);
    }
    st.store
        .get_run(id)
        .await?
        .ok_or_else(|| ApiError::not_found("run", id))
}

#[derive(Debug, Deserialize)]
struct EventsQuery {
    after: Option<i64>,
    limit: Option<i64>,
}

async fn events(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<EventsQuery>,
) -> ApiResult<Response> {
    if st.store.get_run(&id).await?.is_none() {
        return Err(ApiError::not_found("run", &id));
    }
    let rows = st
        .store
        .list_events(
            &id,
            q.after.unwrap_or(0),
            q.limit.unwrap_or(10_000).clamp(1, 100_000),
        )
        .await?;
    let v: Vec<Value> = rows
        .iter()
        .map(|e| {
            json!({"id": e.id, "t": e.t, "kind": e.kind, "created_at": e.created_at,
                   "event": serde_json::from_str::<Value>(&e.payload).unwrap_or(Value::Null)})
        })
        .collect();
    Ok(axum::Json(v).into_response())
}

async fn results(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let mut run = run_row(&st, &id).await?;
    if run.finished_at.is_none() && run.state == "aborted" {
        // Aborting: its result comes once its data is settled.
        run = st
            .supervisor
            .wait_done(&id, std::time::Duration::from_secs(30))
            .await?;
    }
    let text = match st.supervisor.unsaved.result(&id) {
        Some(t) => Some(t),
        None => st.store.get_result(&id).await?,
    };
    // Every ended run answers: one without a stored result (ended before it started, or by
    // a restart) gets the result its row implies.
    match text.or_else(|| super::supervisor::derived_result(&run)) {
        Some(text) => Ok(([(header::CONTENT_TYPE, "application/json")], text).into_response()),
        None => Err(ApiError::NotFound(format!(
            "run '{id}' has no results yet (it is {})",
            run.state
        ))),
    }
}

#[derive(Debug, Deserialize)]
struct TelemetryQuery {
    from: Option<f64>,
    to: Option<f64>,
    format: Option<String>,
    limit: Option<i64>,
}

async fn telemetry(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<TelemetryQuery>,
) -> ApiResult<Response> {
    if st.store.get_run(&id).await?.is_none() {
        return Err(ApiError::not_found("run", &id));
    }
    let limit = q.limit.unwrap_or(1_000_000).clamp(1, 5_000_000);
    let rows = st.store.telemetry(&id, q.from, q.to, limit).await?;
    match q.format.as_deref().unwrap_or("json") {
        "json" => Ok(axum::Json(rows).into_response()),
        "csv" => {
            let mut w = csv::Writer::from_writer(Vec::new());
            let _ = w.write_record(crate::store::TELEMETRY_COLUMNS.split(", "));
            let o = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
            for r in &rows {
                let _ = w.write_record([
                    r.run_id.clone(),
                    r.seq.to_string(),
                    r.t.to_string(),
                    r.vehicle.clone(),
                    r.kind.clone(),
                    r.x.to_string(),
                    r.y.to_string(),
                    r.yaw.to_string(),
                    r.speed_mps.to_string(),
                    o(r.steering_wheel_deg),
                    r.brake_light
                        .map(|b| (b as u8).to_string())
                        .unwrap_or_default(),
                    r.road_id.clone().unwrap_or_default(),
                    r.lane_id.map(|l| l.to_string()).unwrap_or_default(),
                    o(r.road_s),
                    o(r.road_t),
                    o(r.wheel_speed_mps),
                ]);
            }
            let body = w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
            Ok(([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], body).into_response())
        }
        f => Err(ApiError::Unprocessable(format!(
            "format must be json or csv, got '{f}'"
        ))),
    }
}
