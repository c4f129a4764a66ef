//! `/maps`: OpenDRIVE maps (file and metadata) and their lanes as GeoJSON.

use axum::extract::{DefaultBodyLimit, Multipart, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;

use super::auth::{Operator, Reader};
use super::context::{stem, valid_id};
use super::error::{ApiError, ApiQuery, ApiResult};
use super::geojson_cache::GeoCacheError;
use super::state::AppState;

pub fn router(max_map: u64) -> Router<AppState> {
    Router::new()
        .route("/maps", get(list))
        .route(
            "/maps",
            post(upload).layer(DefaultBodyLimit::max((max_map + (1 << 20)) as usize)),
        )
        .route("/maps/{id}", get(get_one))
        .route("/maps/{id}/geojson", get(geojson))
        .route(
            "/maps/{id}/geofence",
            get(get_geofence).put(put_geofence).delete(delete_geofence),
        )
}

/// The map's geofence: set over the API, else from `[ground.geofence.<map>]`; a map without
/// one answers an empty one (`"source": "none"`: no limits).
async fn get_geofence(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    map_exists(&st, &id).await?;
    match crate::serve::supervisor::geofence_of(&st, &id).await? {
        Some((f, source)) => Ok(axum::Json(serde_json::json!({
            "map_id": id, "permitted": f.permitted, "forbidden": f.forbidden, "source": source,
        }))
        .into_response()),
        None => Ok(axum::Json(serde_json::json!({
            "map_id": id, "permitted": [], "forbidden": [], "source": "none",
        }))
        .into_response()),
    }
}

/// `{"permitted": [[x, y], …], "forbidden": [[[x, y], …], …]}` in the map's metres; runs
/// created from now on are checked against it (their whole motion at create, every MONR).
async fn put_geofence(
    State(st): State<AppState>,
    _o: Operator,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<Response> {
    map_exists(&st, &id).await?;
    let f: crate::dispatch::motion_watch::Geofence = serde_json::from_slice(&body)
        .map_err(|e| ApiError::Unprocessable(format!("geofence: {e}")))?;
    f.validate()
        .map_err(|e| ApiError::Unprocessable(format!("geofence: {e}")))?;
    if f.is_empty() {
        return Err(ApiError::Unprocessable(
            "geofence: give a permitted area or a forbidden zone (DELETE removes the geofence)"
                .into(),
        ));
    }
    let text = serde_json::to_string(&f).map_err(anyhow::Error::from)?;
    st.store.put_geofence(&id, &text).await?;
    Ok(axum::Json(serde_json::json!({
        "map_id": id, "permitted": f.permitted, "forbidden": f.forbidden, "source": "api",
    }))
    .into_response())
}

/// Removes the geofence set over the API (one from the configuration stays).
async fn delete_geofence(
    State(st): State<AppState>,
    _o: Operator,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    map_exists(&st, &id).await?;
    // Idempotent: afterwards the map has no geofence set over the API, whether it had one.
    st.store.delete_geofence(&id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn map_exists(st: &AppState, id: &str) -> ApiResult<()> {
    st.store
        .get_map(id)
        .await?
        .map(|_| ())
        .ok_or_else(|| ApiError::not_found("map", id))
}

async fn list(State(st): State<AppState>, _r: Reader) -> ApiResult<Response> {
    let rows = st.store.list_maps().await?;
    let out: Vec<serde_json::Value> = rows.iter().map(map_json).collect();
    Ok(axum::Json(out).into_response())
}

/// A map's metadata, with `site` (`{lat, lon, alt, heading}`: where a placed layout's (0, 0)
/// is and where its +x axis points) when the map records one (`scil map place`).
fn map_json(row: &crate::store::MapRow) -> serde_json::Value {
    let mut v = serde_json::to_value(row).unwrap_or_default();
    if let (Some(site), Some(o)) = (opendrive::place::site_of(&row.xodr), v.as_object_mut()) {
        o.insert(
            "site".into(),
            serde_json::json!({
                "lat": site.lat_deg, "lon": site.lon_deg, "alt": site.alt_m,
                "heading": site.heading_deg,
            }),
        );
    }
    v
}

async fn get_one(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let m = st
        .store
        .get_map(&id)
        .await?
        .ok_or_else(|| ApiError::not_found("map", &id))?;
    Ok(axum::Json(map_json(&m)).into_response())
}

#[derive(Debug, Deserialize)]
struct GeoQuery {
    /// `true`: lon/lat (needs the map's geoReference); default map metres.
    wgs84: Option<bool>,
}

async fn geojson(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<GeoQuery>,
) -> ApiResult<Response> {
    let map = st.map(&id).await?;
    let wgs84 = q.wgs84.unwrap_or(false);
    let bytes = st.geojson.get(&id, map, wgs84).await.map_err(|e| match e {
        GeoCacheError::Map(e) => ApiError::Unprocessable(format!("map '{id}': {e}")),
        GeoCacheError::Internal(e) => ApiError::Internal(anyhow::anyhow!("geojson of '{id}': {e}")),
    })?;
    Ok((
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        bytes,
    )
        .into_response())
}

/// Multipart: `file` (the .xodr), optional `id` (default: the file name's stem), optional
/// `origin` (`LAT,LON[,ALT]`) with `heading` (compass degrees of the map's +x axis): the layout
/// is placed at that site before it is stored (`scil map place`).
async fn upload(
    State(st): State<AppState>,
    _op: Operator,
    mut mp: Multipart,
) -> ApiResult<Response> {
    let mut id: Option<String> = None;
    let mut file: Option<(String, String)> = None;
    let mut origin: Option<String> = None;
    let mut heading: Option<String> = None;
    while let Some(field) = mp.next_field().await? {
        match field.name().unwrap_or("") {
            "id" => id = Some(field.text().await?.trim().to_string()),
            "origin" => origin = Some(field.text().await?.trim().to_string()),
            "heading" => heading = Some(field.text().await?.trim().to_string()),
            "file" => {
                let name = super::replays::display_name(field.file_name().unwrap_or("map.xodr"));
                let bytes = field.bytes().await?;
                let max = st.config.limits.map_max_bytes;
                if bytes.len() as u64 > max {
                    return Err(ApiError::PayloadTooLarge(format!(
                        "map '{name}' is {} bytes; the limit is {max} (limits.map_max_bytes)",
                        bytes.len()
                    )));
                }
                let kind = crate::ingest::detect::sniff(&bytes[..bytes.len().min(8192)]);
                let is_xml = bytes.trim_ascii_start().starts_with(b"<");
                if let (false, Some(hint)) = (is_xml, crate::ingest::detect::belongs(kind)) {
                    return Err(ApiError::Unprocessable(format!(
                        "{name} is {}, {hint}; a map is an OpenDRIVE file (.xodr, XML)",
                        kind.describe()
                    )));
                }
                let xml = String::from_utf8(bytes.to_vec()).map_err(|_| {
                    ApiError::Unprocessable(format!(
                        "{name} is not UTF-8 text: a map is an OpenDRIVE file (.xodr, XML)"
                    ))
                })?;
                file = Some((name, xml));
            }
            other => {
                return Err(ApiError::Unprocessable(format!(
                    "unknown form field '{other}'"
                )))
            }
        }
    }
    let (name, xml) =
        file.ok_or_else(|| ApiError::Unprocessable("missing form field 'file'".into()))?;
    let placement = placement(origin.as_deref(), heading.as_deref())?;
    let id = id.unwrap_or_else(|| stem(std::path::Path::new(&name)));
    if !valid_id(&id) {
        return Err(ApiError::Unprocessable(format!("invalid map id '{id}'")));
    }
    let st2 = st.clone();
    let id2 = id.clone();
    let (row, map) = tokio::task::spawn_blocking(move || {
        let xml = match placement {
            Some(at) => opendrive::place::place(&xml, &at)
                .map_err(|e| ApiError::Unprocessable(format!("map '{name}': {e}")))?,
            None => xml,
        };
        st2.map_row(&id2, &name, xml, false)
    })
    .await
    .map_err(|e| anyhow::anyhow!("{e}"))??;
    // One atomic insert: of two uploads with one id, exactly one is stored.
    st.store
        .insert_map(&row)
        .await
        .map_err(|e| super::error::conflict_on_duplicate(e, "map", &id))?;
    st.cache_map(&id, map);
    Ok((StatusCode::CREATED, axum::Json(map_json(&row))).into_response())
}

/// The site a layout is placed at: both `origin` and `heading`, or neither.
fn placement(
    origin: Option<&str>,
    heading: Option<&str>,
) -> ApiResult<Option<opendrive::place::Placement>> {
    let (origin, heading) = match (origin, heading) {
        (None, None) => return Ok(None),
        (Some(o), Some(h)) => (o, h),
        _ => {
            return Err(ApiError::Unprocessable(
                "give both 'origin' (LAT,LON[,ALT]) and 'heading' (degrees), or neither".into(),
            ))
        }
    };
    let (lat_deg, lon_deg, alt_m) =
        crate::site::parse_origin(origin).map_err(|e| ApiError::Unprocessable(e.to_string()))?;
    let heading_deg = heading
        .parse::<f64>()
        .ok()
        .filter(|h| h.is_finite())
        .ok_or_else(|| ApiError::Unprocessable(format!("heading '{heading}' is not a number")))?;
    let at = opendrive::place::Placement {
        lat_deg,
        lon_deg,
        alt_m,
        heading_deg,
    };
    at.validate().map_err(ApiError::Unprocessable)?;
    Ok(Some(at))
}
