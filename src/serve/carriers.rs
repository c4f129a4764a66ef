//! `/carriers`: target carriers named by the registered scenarios, with their last known state.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::auth::Reader;
use super::error::ApiResult;
use super::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/carriers", get(list))
}

async fn list(State(st): State<AppState>, _r: Reader) -> ApiResult<Response> {
    let v: Vec<_> = st.carriers.lock().unwrap().values().cloned().collect();
    Ok(axum::Json(v).into_response())
}
