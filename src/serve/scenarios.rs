//! `/scenarios`: registered scenario files (TOML, or OpenSCENARIO imported to TOML).

use std::collections::BTreeMap;

use axum::extract::{DefaultBodyLimit, FromRequest, Multipart, Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;
use serde_json::{json, Value};

use super::auth::{Operator, Reader};
use super::context::{scenario_row, valid_id};
use super::error::{ApiError, ApiJson, ApiResult};
use super::state::AppState;
use crate::scenario::Scenario;
use crate::store::ScenarioRow;

/// Largest JSON body of `POST /scenarios` (axum's default, the limit of every JSON route).
const JSON_BODY_LIMIT: usize = 2 << 20;

pub fn router(max_document: u64) -> Router<AppState> {
    Router::new()
        .route("/scenarios", get(list))
        .route(
            "/scenarios",
            post(create).layer(DefaultBodyLimit::max((max_document + (1 << 20)) as usize)),
        )
        .route("/scenarios/{id}", get(get_one))
        .route("/scenarios/{id}/plan", get(plan))
}

fn summary(s: &ScenarioRow) -> Value {
    let targets: Vec<Value> = Scenario::from_toml(&s.toml)
        .map(|sc| {
            sc.targets
                .iter()
                .map(|t| json!({"id": t.id, "kind": t.kind, "carrier": t.carrier}))
                .collect()
        })
        .unwrap_or_default();
    json!({"id": s.id, "name": s.name, "map_id": s.map_id, "bundled": s.bundled,
           "created_at": s.created_at, "targets": targets})
}

async fn list(State(st): State<AppState>, _r: Reader) -> ApiResult<Response> {
    let rows = st.store.list_scenarios().await?;
    Ok(axum::Json(rows.iter().map(summary).collect::<Vec<_>>()).into_response())
}

async fn get_one(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let s = st
        .store
        .get_scenario(&id)
        .await?
        .ok_or_else(|| ApiError::not_found("scenario", &id))?;
    let mut v = summary(&s);
    v["toml"] = json!(s.toml);
    v["scenario"] = Scenario::from_toml(&s.toml)
        .ok()
        .and_then(|sc| serde_json::to_value(sc).ok())
        .unwrap_or(Value::Null);
    Ok(axum::Json(v).into_response())
}

/// `GET /scenarios/{id}/plan`: what a run of the scenario would draw before it moves (the
/// VUT's planned path, each target's path and conflict point, the static obstructions; see
/// [`super::plan::of`]) on its map, without a run. 404 for an unknown scenario, 422 when its
/// paths do not resolve on its map.
async fn plan(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let row = st
        .store
        .get_scenario(&id)
        .await?
        .ok_or_else(|| ApiError::not_found("scenario", &id))?;
    let mut sc = Scenario::from_toml(&row.toml)
        .map_err(|e| ApiError::Unprocessable(format!("scenario '{id}': {e}")))?;
    let map = st.map_opt(row.map_id.as_deref()).await?;
    sc.resolve_paths(map.as_ref().map(|m| &*m.road_network))
        .map_err(|e| ApiError::Unprocessable(format!("scenario '{id}': {e}")))?;
    Ok(axum::Json(json!({
        "scenario_id": id,
        "map_id": row.map_id,
        "plan": super::plan::of(&sc),
    }))
    .into_response())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateScenario {
    /// Default: the scenario's `name`.
    #[serde(default, deserialize_with = "super::error::not_null")]
    id: Option<String>,
    /// A scenario file (TOML); or
    #[serde(default, deserialize_with = "super::error::not_null")]
    toml: Option<String>,
    /// an OpenSCENARIO scenario file (XML), read against the bundled Euro NCAP catalogs and
    /// road networks, with
    #[serde(default, deserialize_with = "super::error::not_null")]
    xosc: Option<String>,
    /// values for its declared parameters (NAME → value as text).
    #[serde(default)]
    parameters: BTreeMap<String, String>,
    /// File name of the upload (messages name it).
    #[serde(default, deserialize_with = "super::error::not_null")]
    file_name: Option<String>,
    #[serde(default, deserialize_with = "super::error::not_null")]
    map_id: Option<String>,
}

/// `POST /scenarios`: JSON ([`CreateScenario`]) or a multipart upload of an OpenSCENARIO
/// file with its own catalogs and road network ([`super::scenario_upload`]).
async fn create(State(st): State<AppState>, _op: Operator, req: Request) -> ApiResult<Response> {
    let multipart = req
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data"));
    let (text, id, map_id) = if multipart {
        let mp = Multipart::from_request(req, &st)
            .await
            .map_err(|e| ApiError::BadRequest(e.body_text()))?;
        let form = super::scenario_upload::read(&st, mp).await?;
        let (text, uploaded_map) = super::scenario_upload::import(&st, &form).await?;
        (text, form.id, form.map_id.or(uploaded_map))
    } else {
        // The route's body limit is the multipart upload's; a JSON body keeps the service's
        // default limit, as on every other JSON route.
        let (parts, body) = req.into_parts();
        let bytes = axum::body::to_bytes(body, JSON_BODY_LIMIT)
            .await
            .map_err(|_| {
                ApiError::PayloadTooLarge(format!(
                    "a JSON body is at most {JSON_BODY_LIMIT} bytes (an OpenSCENARIO file with its catalogs: multipart)"
                ))
            })?;
        let req = Request::from_parts(parts, axum::body::Body::from(bytes));
        let ApiJson(req) = ApiJson::<CreateScenario>::from_request(req, &st).await?;
        from_json(&st, req).await?
    };
    store(&st, text, id, map_id).await
}

/// The scenario TOML of a JSON request, with its id and map id.
async fn from_json(
    st: &AppState,
    req: CreateScenario,
) -> ApiResult<(String, Option<String>, Option<String>)> {
    let size = req
        .toml
        .as_ref()
        .or(req.xosc.as_ref())
        .map_or(0, String::len);
    if size as u64 > st.config.limits.document_max_bytes {
        return Err(ApiError::PayloadTooLarge("scenario too large".into()));
    }
    let text = match (req.toml, req.xosc) {
        (Some(t), None) => {
            if !req.parameters.is_empty() {
                return Err(ApiError::Unprocessable(
                    "parameters apply to an OpenSCENARIO upload (xosc), not to TOML".into(),
                ));
            }
            t
        }
        (None, Some(x)) => {
            let name = req
                .file_name
                .clone()
                .unwrap_or_else(|| "upload.xosc".into());
            let params = req.parameters.clone();
            let imported = tokio::task::spawn_blocking(move || {
                crate::xosc::import_text(&x, &name, &params).and_then(|i| i.to_toml())
            })
            .await
            .map_err(|e| ApiError::Internal(anyhow::anyhow!("import task: {e}")))?;
            imported.map_err(|e| ApiError::Unprocessable(format!("invalid OpenSCENARIO: {e:#}")))?
        }
        _ => {
            return Err(ApiError::Unprocessable(
                "give exactly one of toml (a scenario file) and xosc (an OpenSCENARIO file)".into(),
            ))
        }
    };
    Ok((text, req.id, req.map_id))
}

/// Validates and stores a scenario (201 with its summary).
async fn store(
    st: &AppState,
    text: String,
    id: Option<String>,
    map_id: Option<String>,
) -> ApiResult<Response> {
    let maps = st.store.map_ids().await?;
    let parsed = Scenario::from_toml(&text)
        .map_err(|e| ApiError::Unprocessable(format!("invalid scenario: {e}")))?;
    let id = id.unwrap_or(parsed.name);
    if !valid_id(&id) {
        return Err(ApiError::Unprocessable(format!(
            "invalid id '{id}': use letters, digits, '_', '-', '.' (at most 64)"
        )));
    }
    let row = scenario_row(&id, &text, map_id, &maps, false)?;
    // One atomic insert: of two posts with one id, exactly one is stored.
    st.store
        .insert_scenario(&row)
        .await
        .map_err(|e| super::error::conflict_on_duplicate(e, "scenario", &id))?;
    st.refresh_carriers().await?;
    Ok((StatusCode::CREATED, axum::Json(summary(&row))).into_response())
}
