//! `/runs/{id}/parameters`: the live parameters of a running run. `GET` shows them, `PATCH`
//! (operator) changes them — `{"ttc_offset_s": 0.5, "noise.pos": 0.2, …}`, optionally with
//! `"expect_state": "running"` (or the `Scil-Expect-State` header) — all or none:
//! 409 when the run is not running, 422 for an unknown name or a bad value (named). Every
//! change is a stored run event (`parameter_change`), goes out on the run's live stream and
//! is listed in the results' `parameter_changes`.

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde_json::{json, Value};

use super::auth::{Operator, Reader};
use super::error::{ApiError, ApiResult};
use super::run_control::parse_expect;
use super::state::AppState;
use super::supervisor::ActiveRun;
use crate::run::params::NAMES;
use crate::run::RunState;

pub fn router() -> Router<AppState> {
    Router::new().route("/runs/{id}/parameters", get(current).patch(change))
}

/// The run if it is active, else 404 (unknown) or 409 (not running).
async fn running(st: &AppState, id: &str, action: &str) -> ApiResult<std::sync::Arc<ActiveRun>> {
    let run = st.supervisor.active(id);
    match run {
        Some(r) => Ok(r),
        None => match st.store.get_run(id).await? {
            Some(r) => Err(super::instance::foreign_owner(&st.instance, &r, action)
                .unwrap_or_else(|| {
                    ApiError::Conflict(format!("cannot {action} run '{id}': it is {}", r.state))
                })),
            None => Err(ApiError::not_found("run", id)),
        },
    }
}

async fn current(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let run = running(&st, &id, "read the live parameters of").await?;
    let state = run.row.lock().await.state.clone();
    Ok(axum::Json(json!({
        "run_id": id,
        "state": state,
        "names": NAMES,
        "parameters": run.params.values(),
        "changes": run.params.changes(),
    }))
    .into_response())
}

/// Parameter changes `(name, value)`, in the body's order.
type Changes = Vec<(String, f64)>;

/// The body as `(name, value)` pairs, in order, and the body's `expect_state` (the state the
/// operator saw); 422 naming what is wrong.
fn parse_body(body: &[u8]) -> ApiResult<(Changes, Option<RunState>)> {
    let mut v: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::Unprocessable(format!("parameters body: {e}")))?;
    let expect = match v.as_object_mut().and_then(|o| o.remove("expect_state")) {
        None => None,
        Some(Value::String(s)) => Some(parse_expect(&s)?),
        Some(other) => {
            return Err(ApiError::Unprocessable(format!(
                "expect_state must be a state name, got {other}"
            )))
        }
    };
    let Some(obj) = v.as_object() else {
        return Err(ApiError::Unprocessable(
            "parameters body must be an object such as {\"ttc_offset_s\": 0.5}".into(),
        ));
    };
    if obj.is_empty() {
        return Err(ApiError::Unprocessable(format!(
            "no parameter given (known: {})",
            NAMES.join(", ")
        )));
    }
    let pairs = obj
        .iter()
        .map(|(k, v)| {
            if !NAMES.contains(&k.as_str()) {
                return Err(ApiError::Unprocessable(format!(
                    "unknown parameter '{k}' (known: {})",
                    NAMES.join(", ")
                )));
            }
            match v.as_f64() {
                Some(x) => Ok((k.clone(), x)),
                None => Err(ApiError::Unprocessable(format!(
                    "parameter '{k}' must be a number, got {v}"
                ))),
            }
        })
        .collect::<ApiResult<Vec<_>>>()?;
    Ok((pairs, expect))
}

async fn change(
    State(st): State<AppState>,
    _op: Operator,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> ApiResult<Response> {
    let (changes, body_expect) = parse_body(&body)?;
    let expect = super::run_control::expected(body_expect, &headers)?;
    let run = running(&st, &id, "change the parameters of").await?;
    // The row lock serialises this with the run's state transitions.
    let row = run.row.lock().await;
    if let Some(e) = expect {
        if RunState::parse(&row.state) != Some(e) {
            return Err(ApiError::Conflict(format!(
                "cannot change the parameters of run '{id}': it is {}, not {} as the request expected",
                row.state,
                e.as_str()
            )));
        }
    }
    if RunState::parse(&row.state) != Some(RunState::Running) || run.stop.requested().is_some() {
        return Err(ApiError::Conflict(format!(
            "cannot change the parameters of run '{id}': it is {}",
            row.state
        )));
    }
    let applied = run
        .params
        .set_all(&changes, "operator")
        .map_err(ApiError::Unprocessable)?;
    drop(row);
    for c in &applied {
        let ev = json!({"event": "parameter_change", "name": c.name, "value": c.value,
                        "after_sample_s": c.after_sample_s, "by": c.by});
        st.record_event(Some(&id), c.after_sample_s, "parameter_change", &ev);
        run.send(&json!({"type": "event", "run_id": id, "t": c.after_sample_s, "event": ev}));
    }
    Ok(axum::Json(json!({
        "run_id": id,
        "parameters": run.params.values(),
        "changes": applied,
    }))
    .into_response())
}
