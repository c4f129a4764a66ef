//! `/series`: a test day from Euro NCAP's rating-tool workbook. Uploading the preprocessed
//! workbook plans every verification point with the planner of `scil ncap plan`
//! ([`crate::ncap`]) and stores the workbook and its points; each point is then run
//! ([`crate::serve::series_run`]) until a run with a valid verdict measures its value; the filled
//! workbook is the upload with those values in its `Value` cells.

use std::collections::BTreeMap;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, FromRequest, Multipart, Path, Query, Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use chrono::Utc;
use serde::Deserialize;
use serde_json::{json, Value};

pub mod attempts;
pub mod run_point;

pub use run_point::series_row;

use crate::ncap::rehearse::round6;
use crate::ncap::sheet;
use crate::ncap::xlsx::{NewValue, Workbook};
use crate::serve::auth::{Operator, Reader};
use crate::serve::error::{ApiError, ApiQuery, ApiResult};
use crate::serve::state::AppState;
use crate::store::series::{AttemptRow, PointRow, SeriesRow};

/// The map the straight rows are placed on when the upload names none.
pub const DEFAULT_MAP: &str = "proving_ground";

pub fn router(max_bytes: u64) -> Router<AppState> {
    Router::new()
        .route(
            "/series",
            get(list)
                .post(create)
                .layer(DefaultBodyLimit::max((max_bytes + (1 << 20)) as usize)),
        )
        .route("/series/{id}", get(get_one))
        .route("/series/{id}/workbook.xlsx", get(workbook))
        .route(
            "/series/{id}/points/{point}/run",
            post(run_point::run_point),
        )
}

/// The options of an upload (form fields, or query parameters of a raw upload).
#[derive(Debug, Default, Deserialize)]
struct UploadOptions {
    /// Map id for the straight rows (default `proving_ground`).
    map: Option<String>,
    /// Map id with a junction for the turning and crossing-path rows.
    junction_map: Option<String>,
    track: Option<String>,
    /// Display name (default: the file name).
    name: Option<String>,
}

const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/// `POST /series`: multipart (`file` plus optional `map`, `junction_map`, `track`, `name`) or
/// the workbook as the raw body (options as query parameters).
async fn create(State(st): State<AppState>, _op: Operator, req: Request) -> ApiResult<Response> {
    let max = st.config.limits.document_max_bytes;
    let multipart = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data"));
    let (opts, file_name, bytes) = if multipart {
        let mut mp = Multipart::from_request(req, &st)
            .await
            .map_err(|e| ApiError::BadRequest(format!("multipart: {e}")))?;
        let mut o = UploadOptions::default();
        let mut file: Option<(String, Bytes)> = None;
        while let Some(field) = mp.next_field().await? {
            let name = field.name().unwrap_or("").to_string();
            match name.as_str() {
                "file" => {
                    let fname = crate::serve::replays::display_name(
                        field.file_name().unwrap_or("workbook.xlsx"),
                    );
                    file = Some((fname, field.bytes().await?));
                }
                "map" | "junction_map" | "track" | "name" => {
                    let v = field.text().await?.trim().to_string();
                    let v = (!v.is_empty()).then_some(v);
                    match name.as_str() {
                        "map" => o.map = v,
                        "junction_map" => o.junction_map = v,
                        "track" => o.track = v,
                        _ => o.name = v,
                    }
                }
                other => {
                    return Err(ApiError::Unprocessable(format!(
                        "unknown form field '{other}' (file, map, junction_map, track, name)"
                    )))
                }
            }
        }
        let (f, b) =
            file.ok_or_else(|| ApiError::Unprocessable("missing form field 'file'".into()))?;
        (o, f, b)
    } else {
        let q: Query<UploadOptions> = Query::try_from_uri(req.uri())
            .map_err(|e| ApiError::BadRequest(format!("query: {e}")))?;
        let b = axum::body::to_bytes(req.into_body(), (max + 1) as usize)
            .await
            .map_err(|_| {
                ApiError::PayloadTooLarge(format!(
                    "the workbook is larger than {max} bytes (limits.document_max_bytes)"
                ))
            })?;
        (q.0, "workbook.xlsx".to_string(), b)
    };
    if bytes.len() as u64 > max {
        return Err(ApiError::PayloadTooLarge(format!(
            "the workbook is {} bytes; the limit is {max} (limits.document_max_bytes)",
            bytes.len()
        )));
    }
    if bytes.is_empty() {
        return Err(ApiError::Unprocessable(
            "no workbook: send the rating tool's ca_preprocessed_template.xlsx".into(),
        ));
    }
    let map_id = opts.map.clone().unwrap_or_else(|| DEFAULT_MAP.to_string());
    let map = map_for(&st, &map_id, "map").await?;
    let junction = match &opts.junction_map {
        Some(j) => Some((j.clone(), map_for(&st, j, "junction_map").await?)),
        None => None,
    };
    if let Some(t) = &opts.track {
        if !st.config.is_track(t) {
            return Err(ApiError::Unprocessable(format!(
                "track '{t}' is not a track of this service (tracks: {})",
                st.config.tracks.join(", ")
            )));
        }
    }
    let name = opts.name.clone().unwrap_or_else(|| file_name.clone());
    let data = bytes.to_vec();
    let (mid, jid) = (map_id.clone(), junction.as_ref().map(|(j, _)| j.clone()));
    let planned = tokio::task::spawn_blocking(move || {
        let j = junction.as_ref().map(|(id, m)| (&**m, id.as_str()));
        crate::ncap::plan_bytes(data, &map, &mid, j).map(|(_, _, plan)| plan)
    })
    .await
    .map_err(|e| anyhow::anyhow!("planning task: {e}"))?
    .map_err(|e| ApiError::Unprocessable(format!("{name}: {e:#}")))?;
    let now = Utc::now();
    let id = format!(
        "series-{}-{}",
        now.format("%Y%m%dT%H%M%S"),
        &uuid::Uuid::new_v4().simple().to_string()[..6]
    );
    let mut points = Vec::with_capacity(planned.len());
    for (i, p) in planned.iter().enumerate() {
        let toml = match (&p.scenario, p.runnable()) {
            (Ok(sc), true) => Some(
                toml::to_string(sc)
                    .map_err(|e| anyhow::anyhow!("{}: scenario as TOML: {e}", p.point.label()))?,
            ),
            _ => None,
        };
        let runnable = toml.is_some();
        points.push(PointRow {
            series_id: id.clone(),
            idx: i as i64,
            sheet: p.point.sheet.clone(),
            row_no: i64::from(p.point.row),
            scenario: p.point.scenario.clone(),
            test_point: p.point.get("Test point").map(str::to_string),
            expected: p.point.expected.clone(),
            baseline_expected: p.point.expected_baseline.clone(),
            prediction: p.point.get("OEM Prediction").map(str::to_string),
            catalogue_row: p.catalogue_row.clone(),
            params: serde_json::to_string(&p.params).map_err(anyhow::Error::from)?,
            scenario_toml: toml,
            junction: p.junction,
            reason: if runnable { None } else { p.reason() },
            state: if runnable { "planned" } else { "not_runnable" }.into(),
            value: None,
            baseline_value: None,
            updated_at: now,
        });
    }
    let row = SeriesRow {
        id: id.clone(),
        name,
        workbook_bytes: bytes.len() as i64,
        workbook: bytes.to_vec(),
        map_id,
        junction_map_id: jid,
        track: opts.track,
        points: points.len() as i64,
        runnable: points.iter().filter(|p| p.scenario_toml.is_some()).count() as i64,
        created_at: now,
    };
    st.store.insert_series(&row, &points).await?;
    let mut v = series_json(&row, &counts_of(&points));
    v["points"] = json!(points
        .iter()
        .map(|p| point_json(p, &[]))
        .collect::<Vec<_>>());
    Ok((StatusCode::CREATED, axum::Json(v)).into_response())
}

/// A registered map, parsed (422 naming the field when it does not exist).
async fn map_for(
    st: &AppState,
    id: &str,
    field: &str,
) -> ApiResult<std::sync::Arc<crate::map::Map>> {
    match st.map(id).await {
        Ok(m) => Ok(m),
        Err(ApiError::NotFound(_)) => Err(ApiError::Unprocessable(format!(
            "{field}: map '{id}' is not registered (POST /api/v1/maps)"
        ))),
        Err(e) => Err(e),
    }
}

fn counts_of(points: &[PointRow]) -> BTreeMap<String, i64> {
    let mut c = BTreeMap::new();
    for p in points {
        *c.entry(p.state.clone()).or_insert(0) += 1;
    }
    c
}

fn series_json(s: &SeriesRow, counts: &BTreeMap<String, i64>) -> Value {
    json!({
        "id": s.id,
        "name": s.name,
        "workbook_bytes": s.workbook_bytes,
        "map_id": s.map_id,
        "junction_map_id": s.junction_map_id,
        "track": s.track,
        "points_total": s.points,
        "runnable": s.runnable,
        "created_at": s.created_at,
        "states": counts,
        "workbook_url": format!("/api/v1/series/{}/workbook.xlsx", s.id),
    })
}

/// The prediction's colour as the rating tool names its bands (lower case), if it is one.
pub fn predicted_colour(prediction: Option<&str>) -> Option<String> {
    let p = prediction?.trim().to_ascii_lowercase();
    ["green", "yellow", "orange", "brown", "red"]
        .contains(&p.as_str())
        .then_some(p)
}

fn attempt_json(a: &AttemptRow) -> Value {
    json!({
        "attempt": a.attempt,
        "run_id": a.run_id,
        "kind": a.kind,
        "state": a.state,
        "value": a.value,
        "note": a.note,
        "options": serde_json::from_str::<Value>(&a.options).unwrap_or(Value::Null),
        "created_at": a.created_at,
        "ended_at": a.ended_at,
    })
}

/// What objects a point's run on the ground drives: the VUT, then each moving target, each
/// with the value a carrier's `drives` takes for it (static obstructions are not objects).
/// Empty for a point that is not runnable.
fn actors(scenario_toml: Option<&str>) -> Value {
    let Some(sc) = scenario_toml.and_then(|t| crate::scenario::Scenario::from_toml(t).ok()) else {
        return json!([]);
    };
    let mut v = vec![json!({"drives": "vut", "kind": "vut"})];
    v.extend(
        sc.targets
            .iter()
            .filter(|t| t.activation != crate::scenario::Activation::Static)
            .map(|t| json!({"drives": t.id, "kind": t.kind})),
    );
    json!(v)
}

fn point_json(p: &PointRow, attempts: &[&AttemptRow]) -> Value {
    json!({
        "point": p.idx,
        "sheet": p.sheet,
        "row": p.row_no,
        "scenario": p.scenario,
        "test_point": p.test_point,
        "expected": p.expected,
        "baseline_expected": p.baseline_expected,
        "prediction": p.prediction,
        "predicted_colour": predicted_colour(p.prediction.as_deref()),
        "catalogue_row": p.catalogue_row,
        "params": serde_json::from_str::<Value>(&p.params).unwrap_or(Value::Null),
        "junction": p.junction,
        "runnable": p.scenario_toml.is_some(),
        "actors": actors(p.scenario_toml.as_deref()),
        "state": p.state,
        "reason": p.reason,
        "value": p.value,
        "baseline_value": p.baseline_value,
        "attempts": attempts.iter().map(|a| attempt_json(a)).collect::<Vec<_>>(),
    })
}

async fn list(State(st): State<AppState>, _r: Reader) -> ApiResult<Response> {
    let rows = st.store.list_series().await?;
    let mut counts: BTreeMap<String, BTreeMap<String, i64>> = BTreeMap::new();
    for (sid, state, n) in st.store.series_state_counts().await? {
        counts.entry(sid).or_default().insert(state, n);
    }
    let v: Vec<Value> = rows
        .iter()
        .map(|s| series_json(s, counts.get(&s.id).unwrap_or(&BTreeMap::new())))
        .collect();
    Ok(axum::Json(v).into_response())
}

async fn get_one(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let s = series_row(&st, &id).await?;
    let points = st.store.series_points(&id).await?;
    let attempts = st.store.series_attempts(&id, None).await?;
    let mut v = series_json(&s, &counts_of(&points));
    v["points"] = json!(points
        .iter()
        .map(|p| {
            let mine: Vec<&AttemptRow> = attempts.iter().filter(|a| a.idx == p.idx).collect();
            point_json(p, &mine)
        })
        .collect::<Vec<_>>());
    Ok(axum::Json(v).into_response())
}

#[derive(Debug, Deserialize)]
struct WorkbookQuery {
    /// PASS or FAIL into the assessment rows left empty (General requirements, …).
    assess: Option<String>,
}

/// The cells of the filled workbook: each done point's value (and baseline) in its row.
/// New cell values by sheet, then by (row, column).
pub type SheetEdits = BTreeMap<String, BTreeMap<(u32, u32), NewValue>>;

pub fn series_edits(
    wb: &Workbook,
    points: &[PointRow],
    assess: Option<&str>,
) -> anyhow::Result<SheetEdits> {
    let v = sheet::read(wb)?;
    let mut e: BTreeMap<String, BTreeMap<(u32, u32), NewValue>> = BTreeMap::new();
    for p in points.iter().filter(|p| p.state == "done") {
        let Some(wp) = v
            .points
            .iter()
            .find(|w| w.sheet == p.sheet && i64::from(w.row) == p.row_no)
        else {
            anyhow::bail!(
                "{} row {}: the stored workbook has no such point",
                p.sheet,
                p.row_no
            );
        };
        let cells = e.entry(p.sheet.clone()).or_default();
        if let Some(x) = p.value {
            cells.insert((wp.row, wp.value_col), NewValue::Number(round6(x)));
        }
        if let (Some(b), Some(c)) = (p.baseline_value, wp.baseline_col) {
            cells.insert((wp.row, c), NewValue::Number(round6(b)));
        }
    }
    if let Some(a) = assess {
        for x in v.assessments.iter().filter(|x| x.value.is_none()) {
            e.entry(x.sheet.clone())
                .or_default()
                .insert((x.row, x.value_col), NewValue::Text(a.to_string()));
        }
    }
    Ok(e)
}

/// PASS / FAIL (any case), else 422.
pub fn check_assess(a: Option<&str>) -> Result<Option<String>, String> {
    match a.map(str::to_ascii_uppercase) {
        None => Ok(None),
        Some(x) if x == "PASS" || x == "FAIL" => Ok(Some(x)),
        Some(x) => Err(format!("assess must be PASS or FAIL, got '{x}'")),
    }
}

/// The filled workbook of a series (as a file).
pub async fn filled_workbook(
    st: &AppState,
    id: &str,
    assess: Option<&str>,
) -> ApiResult<(SeriesRow, Vec<u8>)> {
    let s = series_row(st, id).await?;
    let points = st.store.series_points(id).await?;
    let bytes = s.workbook.clone();
    let assess = assess.map(str::to_string);
    let out = tokio::task::spawn_blocking(move || -> anyhow::Result<Vec<u8>> {
        let wb = Workbook::from_bytes(bytes)?;
        let edits = series_edits(&wb, &points, assess.as_deref())?;
        wb.with_edits(&edits)
    })
    .await
    .map_err(|e| anyhow::anyhow!("workbook task: {e}"))?
    .map_err(|e| ApiError::Internal(e.context(format!("series '{id}': filled workbook"))))?;
    Ok((s, out))
}

async fn workbook(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<WorkbookQuery>,
) -> ApiResult<Response> {
    let assess = check_assess(q.assess.as_deref()).map_err(ApiError::Unprocessable)?;
    let (s, out) = filled_workbook(&st, &id, assess.as_deref()).await?;
    let stem: String = s
        .name
        .trim_end_matches(".xlsx")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    Ok((
        [
            (header::CONTENT_TYPE, XLSX.to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{stem}_{}.xlsx\"", s.id),
            ),
        ],
        out,
    )
        .into_response())
}

/// The `/series` paths of the OpenAPI document ([`crate::serve::openapi`]).
pub fn openapi_paths() -> serde_json::Map<String, Value> {
    use crate::serve::openapi::build::{id_param, op};
    let upload = json!({"requestBody": {"required": true, "content": {
        "multipart/form-data": {"schema": {"type": "object", "required": ["file"], "additionalProperties": false, "properties": {
            "file": {"type": "string", "format": "binary", "description": "the rating tool's preprocessed workbook (ca_preprocessed_template.xlsx)"},
            "map": {"type": "string", "description": "map id for the straight rows (default proving_ground)"},
            "junction_map": {"type": "string", "description": "map id with a junction for the turning and crossing-path rows"},
            "track": {"type": "string"}, "name": {"type": "string"}}}},
        XLSX: {"schema": {"type": "string", "format": "binary"}}}},
        "parameters": [
            {"name": "map", "in": "query", "schema": {"type": "string"}, "description": "raw upload: map id"},
            {"name": "junction_map", "in": "query", "schema": {"type": "string"}},
            {"name": "track", "in": "query", "schema": {"type": "string"}},
            {"name": "name", "in": "query", "schema": {"type": "string"}}]});
    let point = json!([id_param()[0].clone(), {"name": "point", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 0, "maximum": i64::MAX}, "description": "the point's number in the series (`point` of GET /series/{id}); a number no series holds answers 404"}]);
    // Either on the simulated VUT (its models and faults) or on the ground (a live source, the
    // carriers, live CAN): the two sets of fields do not mix.
    let common = json!({
        "speed": {"oneOf": [{"type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 1000}, {"type": "string", "enum": ["max"]}], "description": "real-time factor or \"max\" (default 1)"},
        "record": {"type": "boolean"},
        "expect_state": {"type": "string", "enum": ["planned", "running", "valid", "invalid", "done", "not_runnable"], "description": "the point's state the operator saw (409 when it moved on)"},
        "start": {"type": "boolean", "default": true, "description": "false: create the run and leave arming and starting it to the operator (POST /runs/{id}/arm, …/start); on the ground its objects that stand elsewhere first drive to its start poses (`objects` of the answer)"}});
    let with = |extra: Value| {
        let mut props = common.clone();
        if let (Some(p), Value::Object(e)) = (props.as_object_mut(), extra) {
            p.extend(e);
        }
        props
    };
    let sim = json!({"type": "object", "title": "simulated VUT", "additionalProperties": false, "example": {"speed": "max"}, "properties": with(json!({
        "aeb": {"$ref": "#/components/schemas/AebParams"},
        "fcw": {"$ref": "#/components/schemas/FcwParams"},
        "elk": {"$ref": "#/components/schemas/ElkParams"},
        "vut_speed_kmh": {"type": "number", "minimum": 1, "maximum": 200, "description": "drive the simulated VUT at this speed instead of the point's"},
        "injection": {"$ref": "#/components/schemas/Injection"},
        "step_ms": {"type": "number", "minimum": 1, "maximum": 100}}))});
    // An IPv4 socket address (what the service binds the live source to).
    let bind = json!({"type": "string", "example": "0.0.0.0:3000",
        "pattern": "^((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9]):([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$"});
    let live = |title: &str, required: Value, props: Value| json!({"type": "object", "title": title, "required": required, "properties": props});
    let ground = json!({"type": "object", "title": "on the ground", "additionalProperties": false, "required": ["source"], "properties": with(json!({
        "source": {"description": "the real VUT's live source, as for a run", "oneOf": [
            live("ncom", json!(["kind", "bind"]), json!({"kind": {"type": "string", "enum": ["ncom"]}, "bind": bind.clone()})),
            live("json", json!(["kind", "transport", "bind"]), json!({"kind": {"type": "string", "enum": ["json"]}, "transport": {"type": "string", "enum": ["udp", "tcp", "ws"]}, "bind": bind})),
            live("monr", json!(["kind", "carrier"]), json!({"kind": {"type": "string", "enum": ["monr"]}, "carrier": {"type": "string"}}))]},
        "carriers": {"type": "array", "items": {"$ref": "#/components/schemas/CarrierSpec"}, "description": "the real carriers, as for a run"},
        "can": {"allOf": [{"$ref": "#/components/schemas/CanSpec"}], "description": "live CAN fused with the source, as for a run"},
        "can_mapping": {"$ref": "#/components/schemas/CanMapping"},
        "return_to_start": {"type": "boolean", "description": "with objects (carriers with drives): drive them back to their start poses when the run has ended"}}))});
    let run_body = json!({"oneOf": [sim, ground]});
    let mut m = serde_json::Map::new();
    m.insert("/series".into(), json!({
        "get": op("Test series, newest first, with their points per state", "series", false, "200", json!({})),
        "post": op("Create a test series from a rating-tool workbook: every verification point planned (as `scil ncap plan`), the workbook and the points stored; 422 naming the file and sheet when it is not a preprocessed workbook", "series", true, "201", upload)}));
    m.insert("/series/{id}".into(), json!({"get": op("A series: every point with its state (planned, running, valid, invalid, done, not_runnable with `reason`), prediction, measured `value`, its attempts (runs) and its `actors` (what objects a run on the ground drives: each with the `drives` value of its carrier)", "series", false, "200", json!({"parameters": id_param()}))}));
    m.insert("/series/{id}/workbook.xlsx".into(), json!({"get": {"summary": "The workbook with the measured values of done points in their Value cells, everything else as uploaded (for the rating tool's compute-score)", "tags": ["series"],
        "parameters": [id_param()[0].clone(), {"name": "assess", "in": "query", "schema": {"type": "string", "enum": ["PASS", "FAIL"]}, "description": "also write this into the assessment rows left empty"}],
        "responses": {"200": {"description": "OK", "content": {XLSX: {}}}, "default": {"description": "Error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}}));
    m.insert("/series/{id}/points/{point}/run".into(), json!({"post": op("Run the point's scenario on the simulated VUT, or on the ground with a live `source` and `carriers` (its next attempt; a point whose value is measured and whose baseline is due runs its baseline): the run counts when its validity verdict is valid, and then its value is measured; an invalid run leaves the point runnable (run it again); 409 when the point is running, done or not runnable", "series", true, "201",
        json!({"parameters": point, "requestBody": {"required": false, "content": {"application/json": {"schema": run_body}}}}))}));
    m
}
