//! `/reports?runs=ID,ID…`: the Euro NCAP test-series report of stored runs (the HTML of
//! `scil report`; `&format=csv` gives its CSV, `&format=traces_csv` one run's traces as CSV).

use axum::extract::{Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::Deserialize;

use super::auth::Reader;
use super::error::{ApiError, ApiResult};
use super::state::AppState;
use crate::ncap_report::{csv, html, RunInput};

/// At most this many runs per report.
const MAX_RUNS: usize = 200;

pub fn router() -> Router<AppState> {
    Router::new().route("/reports", get(report))
}

#[derive(Debug, Deserialize)]
struct ReportQuery {
    runs: String,
    format: Option<String>,
}

async fn report(
    State(st): State<AppState>,
    _r: Reader,
    Query(q): Query<ReportQuery>,
) -> ApiResult<Response> {
    let ids: Vec<&str> = q
        .runs
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if ids.is_empty() || ids.len() > MAX_RUNS {
        return Err(ApiError::Unprocessable(format!(
            "runs: give 1 to {MAX_RUNS} comma-separated run ids"
        )));
    }
    let mut runs = Vec::new();
    for id in ids {
        let text = st
            .store
            .get_result(id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("run '{id}' has no results")))?;
        let result = serde_json::from_str(&text)
            .map_err(|e| ApiError::Internal(anyhow::anyhow!("stored result of run '{id}': {e}")))?;
        runs.push(RunInput {
            name: id.to_string(),
            result,
        });
    }
    Ok(match q.format.as_deref() {
        Some("csv") => (
            [(header::CONTENT_TYPE, "text/csv; charset=utf-8")],
            csv(&runs),
        )
            .into_response(),
        None | Some("html") => (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            html("Euro NCAP test series", &runs),
        )
            .into_response(),
        Some("traces_csv") => {
            let [r] = runs.as_slice() else {
                return Err(ApiError::Unprocessable(
                    "format=traces_csv takes one run".into(),
                ));
            };
            let text = crate::ncap_report::traces::csv(&r.result)
                .ok_or_else(|| ApiError::NotFound(format!("run '{}' has no traces", r.name)))?;
            ([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], text).into_response()
        }
        Some(other) => {
            return Err(ApiError::Unprocessable(format!(
                "format must be html, csv or traces_csv, got '{other}'"
            )))
        }
    })
}
