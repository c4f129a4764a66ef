//! The controls of a run: `POST /runs/{id}/arm|start|finish|abort` and the emergency
//! `POST /runs/abort-all` (all operator).
//!
//! Every control names its run in the path and may name the state the operator saw: the body
//! field `expect_state` or the header `Scil-Expect-State` (`created`, `armed`, `running`). The
//! server refuses a control for a run that is no longer in that state with 409 and a detail
//! naming both states, so a page that shows a stale state can never act on what it does not show.
//! The one exception is an abort: it stops the run in whatever active state it is (an operator's
//! ABORT is never refused because the page missed a state change); its `expect_state` is still
//! checked for being a state name.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde::Deserialize;
use serde_json::json;

use super::auth::Operator;
use super::error::{ApiError, ApiResult};
use super::hub::run_json;
use super::state::AppState;
use crate::run::RunState;

/// The header that carries the expected state (alternative to the body's `expect_state`).
pub const EXPECT_HEADER: &str = "scil-expect-state";

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/runs/abort-all", post(abort_all))
        .route("/runs/{id}/arm", post(arm))
        .route("/runs/{id}/start", post(start))
        .route("/runs/{id}/abort", post(abort))
        .route("/runs/{id}/finish", post(finish))
        .route("/runs/{id}/return", post(return_to_start))
}

/// The optional body of a control.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ControlBody {
    /// The state the operator saw; the control is refused (409) when the run is elsewhere.
    expect_state: Option<String>,
    /// Abort only: why (stored with the run; default "operator abort").
    reason: Option<String>,
    /// Arm only: arm although an object on the ground is not at its start (the operator's
    /// explicit override).
    override_start: Option<bool>,
}

/// A state name as a control expects it: 422 for anything that is not a run state.
pub fn parse_expect(s: &str) -> ApiResult<RunState> {
    RunState::parse(s.trim()).ok_or_else(|| {
        ApiError::Unprocessable(format!(
            "expect_state '{s}' is not a run state (created, armed, running, finished, aborted, failed)"
        ))
    })
}

/// The header's expected state, if any.
pub fn header_expect(headers: &HeaderMap) -> ApiResult<Option<RunState>> {
    match headers.get(EXPECT_HEADER) {
        None => Ok(None),
        Some(v) => {
            let s = v.to_str().map_err(|_| {
                ApiError::Unprocessable(format!("header {EXPECT_HEADER} is not text"))
            })?;
            parse_expect(s).map(Some)
        }
    }
}

/// The state a control expects: from the body or the header; when both are given they must
/// agree.
pub fn expected(from_body: Option<RunState>, headers: &HeaderMap) -> ApiResult<Option<RunState>> {
    match (from_body, header_expect(headers)?) {
        (Some(b), Some(h)) if b != h => Err(ApiError::Unprocessable(format!(
            "expect_state '{}' and header {EXPECT_HEADER} '{}' disagree",
            b.as_str(),
            h.as_str()
        ))),
        (b, h) => Ok(b.or(h)),
    }
}

/// The expected state (body or header; they must agree) and the abort reason.
fn control_args(
    action: &str,
    headers: &HeaderMap,
    body: &[u8],
) -> ApiResult<(Option<RunState>, Option<String>)> {
    let parsed: ControlBody = if body.iter().all(|b| b.is_ascii_whitespace()) {
        ControlBody::default()
    } else {
        serde_json::from_slice(body)
            .map_err(|e| ApiError::Unprocessable(format!("{action} body: {e}")))?
    };
    if parsed.override_start.is_some() && action != "arm" {
        return Err(ApiError::Unprocessable(format!(
            "{action} body: only arming takes override_start"
        )));
    }
    if parsed.reason.is_some() && action != "abort" {
        return Err(ApiError::Unprocessable(format!(
            "{action} body: only an abort takes a reason"
        )));
    }
    let from_body = parsed
        .expect_state
        .as_deref()
        .map(parse_expect)
        .transpose()?;
    Ok((expected(from_body, headers)?, parsed.reason))
}

async fn arm(
    State(st): State<AppState>,
    _op: Operator,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> ApiResult<Response> {
    let (expect, _) = control_args("arm", &headers, &body)?;
    let r = if arm_override(&body)? {
        st.supervisor.arm_override(&id, expect).await?
    } else {
        st.supervisor.arm(&id, expect).await?
    };
    Ok(axum::Json(run_json(&r)).into_response())
}

/// `override_start` of an arm body (false when absent).
fn arm_override(body: &[u8]) -> ApiResult<bool> {
    if body.iter().all(|b| b.is_ascii_whitespace()) {
        return Ok(false);
    }
    let parsed: ControlBody = serde_json::from_slice(body)
        .map_err(|e| ApiError::Unprocessable(format!("arm body: {e}")))?;
    Ok(parsed.override_start.unwrap_or(false))
}

/// `POST /runs/{id}/return`: the run's objects drive back to their start poses (202).
async fn return_to_start(
    State(st): State<AppState>,
    _op: Operator,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let v = st.supervisor.return_to_start(&id).await?;
    Ok((StatusCode::ACCEPTED, axum::Json(v)).into_response())
}

async fn start(
    State(st): State<AppState>,
    _op: Operator,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> ApiResult<Response> {
    let (expect, _) = control_args("start", &headers, &body)?;
    let r = st.supervisor.start(&id, expect).await?;
    Ok(axum::Json(run_json(&r)).into_response())
}

async fn finish(
    State(st): State<AppState>,
    _op: Operator,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> ApiResult<Response> {
    let (expect, _) = control_args("finish", &headers, &body)?;
    let r = st.supervisor.finish(&id, expect).await?;
    Ok((StatusCode::ACCEPTED, axum::Json(run_json(&r))).into_response())
}

async fn abort(
    State(st): State<AppState>,
    _op: Operator,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> ApiResult<Response> {
    // The expected state does not gate an abort (any active state is aborted).
    let (_seen, reason) = control_args("abort", &headers, &body)?;
    let reason = reason.unwrap_or_else(|| "operator abort".into());
    let r = st.supervisor.abort(&id, &reason, None).await?;
    Ok((StatusCode::ACCEPTED, axum::Json(run_json(&r))).into_response())
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AbortAllBody {
    reason: Option<String>,
}

/// Aborts every active run: `{"aborted": [run, …]}` (202).
async fn abort_all(
    State(st): State<AppState>,
    _op: Operator,
    body: axum::body::Bytes,
) -> ApiResult<Response> {
    let parsed: AbortAllBody = if body.iter().all(|b| b.is_ascii_whitespace()) {
        AbortAllBody::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| ApiError::Unprocessable(format!("abort-all body: {e}")))?
    };
    let reason = parsed
        .reason
        .unwrap_or_else(|| "operator abort (abort all)".into());
    let rows = st.supervisor.abort_all(&reason).await;
    let list: Vec<_> = rows.iter().map(run_json).collect();
    Ok((StatusCode::ACCEPTED, axum::Json(json!({"aborted": list}))).into_response())
}
