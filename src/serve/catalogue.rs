//! `/catalogue`: the Euro NCAP 2026 catalogue (every scenario row of the rating tool with its
//! test matrix) — the same data `scil catalogue --json` prints.

use axum::extract::Path;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::auth::Reader;
use super::error::{ApiError, ApiResult};
use super::state::AppState;
use crate::scenario::ncap2026::Catalogue;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/catalogue", get(list))
        .route("/catalogue/{id}", get(get_one))
}

async fn list(_r: Reader) -> ApiResult<Response> {
    Ok(axum::Json(Catalogue::bundled().row).into_response())
}

async fn get_one(_r: Reader, Path(id): Path<String>) -> ApiResult<Response> {
    let cat = Catalogue::bundled();
    let (row, _) = cat
        .find(&id)
        .ok_or_else(|| ApiError::not_found("catalogue row", &id))?;
    Ok(axum::Json(row).into_response())
}
