//! The audit trail: every request that changes something (any method but GET, HEAD and
//! OPTIONS) leaves one entry, accepted or refused — who sent it (a configured name, `unknown
//! token` or `anonymous`; never the token), what it asked, on what, the status answered and the
//! detail (the refusal's reason, or a small JSON request body). A layer around the whole API,
//! so no handler can be missed.
//!
//! An accepted control of a run (`POST /runs`, `POST /runs/{id}/arm|start|abort|finish|return|…`)
//! also goes into the run's own events as a `control` event naming who (`by`).
//!
//! `GET /audit?since=&until=&who=&after=&limit=` lists the entries oldest first (operators).

use axum::body::Body;
use axum::extract::{Query, Request, State};
use axum::http::{header, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{json, Value};

use super::auth::Operator;
use super::error::{ApiError, ApiResult};
use super::state::AppState;
use crate::store::audit::{AuditFilter, NewAudit};

/// Request bodies kept as an entry's detail: JSON of at most this many bytes.
const DETAIL_BODY_MAX: usize = 4096;
/// Response bodies read for the refusal's reason or the created id.
const RESPONSE_READ_MAX: u64 = 64 << 10;

pub fn router() -> Router<AppState> {
    Router::new().route("/audit", get(list))
}

fn changes(m: &Method) -> bool {
    !matches!(*m, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// `action` and `target` of a request path (below `/api/v1`): `POST /runs/{id}/arm` is `arm`
/// on `runs/{id}`; `POST /runs` is `create` on `runs`; `DELETE /maps/{id}` is `delete` on
/// `maps/{id}`; a path of an odd number of segments ending in a word is that word on the rest.
pub fn action_of(method: &Method, path: &str) -> (String, String) {
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    let generic = match *method {
        Method::POST => "create",
        Method::DELETE => "delete",
        _ => "update",
    };
    if segs.len() >= 3 && segs.len() % 2 == 1 {
        if let Some((last, rest)) = segs.split_last() {
            return (last.to_string(), rest.join("/"));
        }
    }
    if segs.len() == 2 && *method == Method::POST && segs[1].contains('-') && segs[0] == "runs" {
        // `POST /runs/abort-all`.
        return (segs[1].to_string(), segs[0].to_string());
    }
    (generic.to_string(), segs.join("/"))
}

/// The run a control acts on: `runs/{id}` (or `runs` with the created run's id).
fn run_of(target: &str, created: Option<&str>) -> Option<String> {
    match target.split('/').collect::<Vec<_>>()[..] {
        ["runs", id] if id != "abort-all" => Some(id.to_string()),
        ["runs"] => created.map(str::to_string),
        _ => None,
    }
}

/// The layer: passes the request on, then appends the entry (awaited, so entries keep the
/// order requests were answered in).
pub async fn audit(State(st): State<AppState>, req: Request, next: Next) -> Response {
    if !changes(req.method()) {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let who = st.tokens.who(&parts);
    let method = parts.method.clone();
    let path = parts.uri.path().to_string();
    let path = path.strip_prefix("/api/v1").unwrap_or(&path).to_string();
    let is_json = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let small = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
        .is_some_and(|n| n <= DETAIL_BODY_MAX);
    let (body, request_detail) = if is_json && small {
        match axum::body::to_bytes(body, DETAIL_BODY_MAX).await {
            Ok(b) => {
                let text = String::from_utf8_lossy(&b).into_owned();
                (Body::from(b), text)
            }
            // Unreadable: the handler would have failed the same way.
            Err(e) => return ApiError::Unprocessable(format!("request body: {e}")).into_response(),
        }
    } else {
        (body, String::new())
    };
    let resp = next.run(Request::from_parts(parts, body)).await;
    let mut resp = resp;
    let status = resp.status();
    if status == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        // The rest of the body was never read: the connection cannot carry another request
        // (a client reusing it would see its next request fail).
        resp.headers_mut().insert(
            header::CONNECTION,
            axum::http::HeaderValue::from_static("close"),
        );
    }
    let (action, target) = action_of(&method, &path);
    // Read the answer when it is small and tells something: the refusal's reason, or the id
    // of what a POST created.
    let exact = axum::body::HttpBody::size_hint(resp.body()).exact();
    let want = !status.is_success() || (method == Method::POST && action == "create");
    let (resp, answer) = match exact {
        Some(n) if want && n <= RESPONSE_READ_MAX => {
            let (p, b) = resp.into_parts();
            let bytes = axum::body::to_bytes(b, RESPONSE_READ_MAX as usize)
                .await
                .unwrap_or_default();
            let v: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            (Response::from_parts(p, Body::from(bytes)), v)
        }
        _ => (resp, Value::Null),
    };
    let created = answer["id"].as_str();
    let detail = if status.is_success() {
        request_detail
    } else {
        answer["detail"]
            .as_str()
            .or(answer["error"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    let target = match (created, status.is_success() && action == "create") {
        (Some(id), true) => format!("{target}/{id}"),
        _ => target,
    };
    if status.is_success() {
        if let Some(run) = run_of(&action_target_base(&target, &action), created) {
            st.record_event(
                Some(&run),
                None,
                "control",
                &json!({"event": "control", "action": action, "by": who}),
            );
        }
    }
    let entry = NewAudit {
        at: Utc::now(),
        who,
        action,
        target,
        method: method.to_string(),
        path,
        status: i64::from(status.as_u16()),
        detail: crate::store::bound_reason(&detail),
    };
    if let Err(e) = st.store.append_audit(&entry).await {
        st.metrics
            .audit_failures
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tracing::error!(
            "audit: cannot store the entry for {} {} by {}: {e}",
            entry.method,
            entry.path,
            entry.who
        );
    }
    resp
}

/// The run path a control names: a created run's target is `runs/{id}` already.
fn action_target_base(target: &str, action: &str) -> String {
    if action == "create" {
        target
            .rsplit_once('/')
            .map_or(target, |(b, _)| b)
            .to_string()
    } else {
        target.to_string()
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AuditQuery {
    since: Option<String>,
    until: Option<String>,
    who: Option<String>,
    after: Option<i64>,
    limit: Option<i64>,
}

fn time_param(name: &str, v: Option<&str>) -> ApiResult<Option<DateTime<Utc>>> {
    v.map(|s| {
        DateTime::parse_from_rfc3339(s)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| {
                ApiError::Unprocessable(format!(
                    "{name} '{s}' is not an RFC 3339 time (2026-11-27T08:00:00Z): {e}"
                ))
            })
    })
    .transpose()
}

/// `GET /audit`: `{"entries": [...], "next": ID|null}`, oldest first; `next` is the `after` of
/// the following page.
async fn list(
    State(st): State<AppState>,
    _op: Operator,
    Query(q): Query<AuditQuery>,
) -> ApiResult<Response> {
    let limit = q.limit.unwrap_or(100);
    if !(1..=1000).contains(&limit) {
        return Err(ApiError::Unprocessable(format!(
            "limit {limit}: 1 to 1000 entries a page"
        )));
    }
    let f = AuditFilter {
        since: time_param("since", q.since.as_deref())?,
        until: time_param("until", q.until.as_deref())?,
        who: q.who,
        after: q.after.unwrap_or(0).max(0),
        limit,
    };
    let entries = st.store.list_audit(&f).await?;
    let next = (entries.len() as i64 == limit)
        .then(|| entries.last().map(|e| e.id))
        .flatten();
    Ok(axum::Json(json!({"entries": entries, "next": next})).into_response())
}

/// The OpenAPI paths of the audit trail and of who is signed in.
pub fn openapi_paths() -> serde_json::Map<String, Value> {
    use super::openapi::build::op;
    let q = |name: &str, d: &str, schema: Value| json!({"name": name, "in": "query", "description": d, "schema": schema});
    let mut m = serde_json::Map::new();
    m.insert("/audit".into(), json!({"get": op(
        "The audit trail, oldest first: every request that changed something or tried to (who, action, target, status, detail; never a token): {\"entries\": [...], \"next\": ID|null}",
        "records", true, "200", json!({"parameters": [
            q("since", "entries at or after this time (RFC 3339)", json!({"type": "string", "format": "date-time"})),
            q("until", "entries at or before this time (RFC 3339)", json!({"type": "string", "format": "date-time"})),
            q("who", "only this name (or \"unknown token\", \"anonymous\")", json!({"type": "string"})),
            q("after", "entries after this id (the previous page's next)", json!({"type": "integer", "format": "int64"})),
            q("limit", "entries a page (1 to 1000, default 100)", json!({"type": "integer", "minimum": 1, "maximum": 1000}))]}))}));
    m.insert("/whoami".into(), json!({"get": op(
        "Who the request's token signs in: {\"name\": \"alice\", \"role\": \"operator\"} (nulls without a known token)",
        "records", false, "200", json!({}))}));
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_and_targets() {
        let a = |m: Method, p: &str| action_of(&m, p);
        assert_eq!(a(Method::POST, "/runs"), ("create".into(), "runs".into()));
        assert_eq!(
            a(Method::POST, "/runs/r1/arm"),
            ("arm".into(), "runs/r1".into())
        );
        assert_eq!(
            a(Method::POST, "/runs/abort-all"),
            ("abort-all".into(), "runs".into())
        );
        assert_eq!(
            a(Method::DELETE, "/maps/m1"),
            ("delete".into(), "maps/m1".into())
        );
        assert_eq!(
            a(Method::POST, "/series/s1/points/3/run"),
            ("run".into(), "series/s1/points/3".into())
        );
        assert_eq!(run_of("runs/r1", None).as_deref(), Some("r1"));
        assert_eq!(run_of("runs", Some("r2")).as_deref(), Some("r2"));
        assert_eq!(run_of("maps/m1", None), None);
    }
}
