//! `/catalogue`: the Euro NCAP scenario catalogue (issue 11) with its parameter ranges — the
//! same data `scil catalogue --json` prints.

use axum::extract::Path;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::auth::Reader;
use super::context::AppState;
use super::error::{ApiError, ApiResult};
use crate::scenario::catalogue::Catalogue;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/catalogue", get(list))
        .route("/catalogue/{id}", get(get_one))
}

async fn list(_r: Reader) -> ApiResult<Response> {
    Ok(axum::Json(Catalogue::bundled().scenario).into_response())
}

async fn get_one(_r: Reader, Path(id): Path<String>) -> ApiResult<Response> {
    let cat = Catalogue::bundled();
    let e = cat
        .get(&id)
        .ok_or_else(|| ApiError::not_found("catalogue entry", &id))?;
    Ok(axum::Json(e).into_response())
}
