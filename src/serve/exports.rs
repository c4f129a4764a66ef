//! Run exports for other tools: `GET /runs/{id}/telemetry.parquet`, `/runs/{id}/events.parquet`
//! `/runs/{id}/export.mcap` (Foxglove channels from the stored telemetry and events),
//! `/runs/{id}/export.mf4` (ASAM MDF4) and `/runs/{id}/osi` (an ASAM OSI trace).

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::auth::Reader;
use super::error::{ApiError, ApiResult};
use super::state::AppState;
use crate::record::messages::Encoder;
use crate::store::{EventRow, RunRow, Store, TelemetryRow};

/// Upper bound of rows read for one export.
pub const MAX_ROWS: i64 = 5_000_000;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/runs/{id}/telemetry.parquet", get(telemetry_parquet))
        .route("/runs/{id}/events.parquet", get(events_parquet))
        .route("/runs/{id}/export.mcap", get(export_mcap))
        .route("/runs/{id}/export.mf4", get(export_mf4))
        .route("/runs/{id}/export.xosc", get(export_xosc))
        .route("/runs/{id}/osi", get(export_osi))
}

/// The OSI encoder of a stored run (`None` without its scenario).
pub fn osi_encoder(
    run: &RunRow,
    scenario: Option<&crate::scenario::Scenario>,
    map: Option<&crate::map::Map>,
) -> Option<crate::osi::OsiEncoder> {
    scenario.map(|sc| {
        crate::osi::OsiEncoder::new(sc, map, &super::supervisor::virtual_targets::of(run))
    })
}

/// `GET /runs/{id}/osi`: the run as an OSI trace (`osi3.SensorView`, 4-byte little-endian
/// length then the message; one per VUT sample), from its stored telemetry: the messages its
/// live stream sent.
async fn export_osi(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let (run, rows, _) = load(&st, &id).await?;
    let map = match &run.map_id {
        Some(m) => st.map(m).await.ok(),
        None => None,
    };
    let scenario = st
        .store
        .get_scenario(&run.scenario_id)
        .await?
        .and_then(|s| crate::scenario::Scenario::from_toml(&s.toml).ok())
        .ok_or_else(|| {
            ApiError::Unprocessable(format!(
                "run '{id}': its scenario '{}' is gone; OSI needs its objects",
                run.scenario_id
            ))
        })?;
    let body = tokio::task::spawn_blocking(move || {
        let mut enc = crate::osi::OsiEncoder::new(
            &scenario,
            map.as_deref(),
            &super::supervisor::virtual_targets::of(&run),
        );
        enc.trace(&crate::osi::Frame::from_rows(&rows))
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))?;
    Ok(attachment(
        body,
        "application/octet-stream",
        format!("{id}.osi"),
    ))
}

/// A stored run's telemetry and events (`None` if there is no such run).
pub async fn load_run(
    store: &Store,
    id: &str,
) -> anyhow::Result<Option<(RunRow, Vec<TelemetryRow>, Vec<EventRow>)>> {
    let Some(run) = store.get_run(id).await? else {
        return Ok(None);
    };
    let rows = store.telemetry(id, None, None, MAX_ROWS).await?;
    let events = store.list_events(id, 0, MAX_ROWS).await?;
    Ok(Some((run, rows, events)))
}

async fn load(st: &AppState, id: &str) -> ApiResult<(RunRow, Vec<TelemetryRow>, Vec<EventRow>)> {
    load_run(&st.store, id)
        .await
        .map_err(ApiError::Internal)?
        .ok_or_else(|| ApiError::not_found("run", id))
}

fn attachment(body: Vec<u8>, mime: &'static str, name: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, mime.to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        body,
    )
        .into_response()
}

async fn telemetry_parquet(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let (_, rows, _) = load(&st, &id).await?;
    let body = tokio::task::spawn_blocking(move || {
        crate::record::parquet::write_telemetry(Vec::new(), &rows)
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))??;
    Ok(attachment(
        body,
        "application/vnd.apache.parquet",
        format!("{id}.telemetry.parquet"),
    ))
}

async fn events_parquet(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let (_, _, events) = load(&st, &id).await?;
    let body = crate::record::parquet::write_events(Vec::new(), &events)?;
    Ok(attachment(
        body,
        "application/vnd.apache.parquet",
        format!("{id}.events.parquet"),
    ))
}

async fn export_mcap(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    // A run recorded by the run layer (`"record": true`) and no longer active: the recording
    // itself, byte for byte. Otherwise one built from the stored telemetry and events.
    let recorded = super::shared_files::recording_path(&st, &id);
    let active = st.supervisor.is_active(&id);
    if !active {
        if let Ok(body) = tokio::fs::read(&recorded).await {
            return Ok(attachment(body, "application/x-mcap", format!("{id}.mcap")));
        }
        // Recorded through another instance: its copy in the database, streamed.
        if let Some(r) = super::shared_files::recording_response(&st, &id).await? {
            return Ok(r);
        }
    }
    let (run, rows, events) = load(&st, &id).await?;
    // The map gives lanes and WGS84; a run whose map is gone still exports without them.
    let map = match &run.map_id {
        Some(m) => st.map(m).await.ok(),
        None => None,
    };
    let scenario = st
        .store
        .get_scenario(&run.scenario_id)
        .await?
        .and_then(|s| crate::scenario::Scenario::from_toml(&s.toml).ok());
    let body = tokio::task::spawn_blocking(move || {
        let enc = Encoder::new(scenario.as_ref(), map.as_deref());
        let osi = osi_encoder(&run, scenario.as_ref(), map.as_deref());
        crate::record::mcap_from_store(&rows, &events, enc, osi)
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))??;
    Ok(attachment(body, "application/x-mcap", format!("{id}.mcap")))
}

async fn export_mf4(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let (_, rows, events) = load(&st, &id).await?;
    let made = chrono::Utc::now().timestamp_nanos_opt().unwrap_or(0).max(0) as u64;
    let body =
        tokio::task::spawn_blocking(move || crate::record::mdf4::write_run(&rows, &events, made))
            .await
            .map_err(|e| ApiError::Internal(e.into()))?;
    Ok(attachment(body, "application/x-mdf", format!("{id}.mf4")))
}

/// The run as OpenSCENARIO 1.3 (as `scil export --xosc`): every recorded actor replays its
/// motion; the road network is named `MAP.xodr` (`GET /maps/{id}` serves it).
async fn export_xosc(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let (run, rows, _) = load(&st, &id).await?;
    let scenario = st
        .store
        .get_scenario(&run.scenario_id)
        .await?
        .and_then(|s| crate::scenario::Scenario::from_toml(&s.toml).ok());
    let map = run.map_id.as_ref().map(|m| format!("{m}.xodr"));
    let body = tokio::task::spawn_blocking(move || {
        let rec = crate::xosc::export::recording(&run, &rows, scenario.as_ref(), map.as_deref());
        openscenario::write::write(&rec).into_bytes()
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))?;
    Ok(attachment(body, "application/xml", format!("{id}.xosc")))
}
