//! `/dbcs`: DBC files the CAN sources of runs decode with. The bundled `data/can/*.dbc` are
//! registered at startup (`vut`); operators upload more. A DBC that does not parse is refused
//! with the parser's line and reason.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use chrono::Utc;
use serde::Deserialize;

use super::auth::{Operator, Reader};
use super::context::valid_id;
use super::error::{ApiError, ApiJson, ApiResult};
use super::state::AppState;
use crate::ingest::can::DbcDecoder;
use crate::store::DbcRow;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/dbcs", get(list).post(upload))
        .route("/dbcs/{id}", get(get_one))
}

/// A DBC row from its text (parsed to validate it and count its messages).
pub fn dbc_row(id: &str, file_name: &str, text: String, bundled: bool) -> ApiResult<DbcRow> {
    let dec = DbcDecoder::parse(&text)
        .map_err(|e| ApiError::Unprocessable(format!("DBC '{file_name}': {e}")))?;
    Ok(DbcRow {
        id: id.to_string(),
        name: id.to_string(),
        file_name: file_name.to_string(),
        bytes: text.len() as i64,
        messages: dec.message_count() as i64,
        text,
        bundled,
        created_at: Utc::now(),
    })
}

async fn list(State(st): State<AppState>, _r: Reader) -> ApiResult<Response> {
    Ok(axum::Json(st.store.list_dbcs().await?).into_response())
}

async fn get_one(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let row = st
        .store
        .get_dbc(&id)
        .await?
        .ok_or_else(|| ApiError::not_found("dbc", &id))?;
    Ok(axum::Json(row).into_response())
}

/// `{"id": "vut2", "file_name": "vut2.dbc", "text": "VERSION \"\" …"}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Upload {
    id: String,
    #[serde(default, deserialize_with = "super::error::not_null")]
    file_name: Option<String>,
    text: String,
}

async fn upload(
    State(st): State<AppState>,
    _op: Operator,
    ApiJson(u): ApiJson<Upload>,
) -> ApiResult<Response> {
    if !valid_id(&u.id) {
        return Err(ApiError::Unprocessable(format!(
            "invalid DBC id '{}'",
            u.id
        )));
    }
    if u.text.len() as u64 > st.config.limits.document_max_bytes {
        return Err(ApiError::PayloadTooLarge("DBC too large".into()));
    }
    let file_name = u.file_name.unwrap_or_else(|| format!("{}.dbc", u.id));
    let row = dbc_row(&u.id, &file_name, u.text, false)?;
    // One atomic insert: of two uploads with one id, exactly one is stored.
    st.store
        .insert_dbc(&row)
        .await
        .map_err(|e| super::error::conflict_on_duplicate(e, "DBC", &row.id))?;
    Ok((StatusCode::CREATED, axum::Json(row)).into_response())
}
