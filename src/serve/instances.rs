//! `GET /instances`: the instances sharing the database, their leases, which one answers.

use chrono::Utc;
use serde_json::json;

use super::instance::now_ms;
use super::state::AppState;

pub fn router() -> axum::Router<AppState> {
    axum::Router::new().route("/instances", axum::routing::get(list))
}

async fn list(
    axum::extract::State(st): axum::extract::State<AppState>,
    _r: super::auth::Reader,
) -> super::error::ApiResult<axum::Json<serde_json::Value>> {
    let now = now_ms();
    let rows = st.store.list_instances().await?;
    let at = |ms: i64| chrono::DateTime::<Utc>::from_timestamp_millis(ms);
    Ok(axum::Json(json!({
        "this": st.instance.id,
        "lease_s": st.instance.lease.as_secs_f64(),
        "instances": rows.iter().map(|r| json!({
            "id": r.id,
            "host": r.host,
            "pid": r.pid,
            "started_at": at(r.started_ms),
            "heartbeat_at": at(r.heartbeat_ms),
            "lease_until": at(r.lease_until_ms),
            "lease_until_ms": r.lease_until_ms,
            "live": r.lease_until_ms >= now,
        })).collect::<Vec<_>>(),
    })))
}
