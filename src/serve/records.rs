//! A run's record for an auditor: `GET /runs/{id}/verify` checks its hash chain, seal, results
//! and telemetry as stored; `GET /runs/{id}/record.json` exports the whole record (run, events
//! with their hashes, results with their provenance, the chain's head, the verdict;
//! `?telemetry=true` adds every telemetry row), which `scil verify FILE` checks offline with the
//! same code ([`check_file`]).

use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::auth::Reader;
use super::error::{ApiError, ApiResult};
use super::hub::run_json;
use super::state::AppState;
use crate::store::chain::{self, ChainEvent, Record, RunIdentity, TelemetryDigest, Verdict};

/// The format an exported record names.
pub const RECORD_FORMAT: &str = "scil-run-record/1";
/// Telemetry rows a record may carry (a longer run is exported without them).
const RECORD_TELEMETRY_MAX: i64 = 1_000_000;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/runs/{id}/verify", get(verify))
        .route("/runs/{id}/record.json", get(record))
}

/// The exported record.
#[derive(Debug, Serialize, Deserialize)]
pub struct RecordFile {
    pub format: String,
    /// The run as `GET /runs/{id}` shows it.
    pub run: Value,
    /// The run row's fields the seal covers.
    pub identity: RunIdentity,
    pub chain: ChainInfo,
    pub events: Vec<ChainEvent>,
    /// The results text exactly as stored (None: no results).
    pub results: Option<String>,
    /// The results' provenance (also inside `results`), for reading.
    pub provenance: Value,
    /// The stored telemetry's SHA-256 and row count when exported.
    pub telemetry_digest: Option<TelemetryInfo>,
    /// Every telemetry row, in `seq` order, with `?telemetry=true`: each row's JSON line
    /// exactly as hashed (text, so no number is re-rounded on the way).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub telemetry: Option<Vec<String>>,
    /// The service's verdict at export.
    pub verdict: Verdict,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChainInfo {
    pub unchained: bool,
    pub head: Option<String>,
    pub len: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TelemetryInfo {
    pub sha256: String,
    pub rows: u64,
}

/// Everything the checks need, read from the store.
struct Stored {
    row: crate::store::RunRow,
    chain: ChainInfo,
    events: Vec<ChainEvent>,
    results: Option<String>,
    /// None: dropped by retention (`scil db prune`, `telemetry.keep_days`): not checked.
    telemetry: Option<(String, u64)>,
}

async fn load(st: &AppState, id: &str) -> ApiResult<Stored> {
    let row = st
        .store
        .get_run(id)
        .await?
        .ok_or_else(|| ApiError::not_found("run", id))?;
    let (unchained, head, len) = st
        .store
        .run_chain(id)
        .await?
        .ok_or_else(|| ApiError::not_found("run", id))?;
    Ok(Stored {
        events: st.store.chain_events(id).await?,
        results: st.store.get_result(id).await?,
        telemetry: match st.store.telemetry_pruned(id).await? {
            Some(_) => None,
            None => Some(st.store.telemetry_digest(id).await?),
        },
        chain: ChainInfo {
            unchained,
            head,
            len,
        },
        row,
    })
}

fn verdict_of(s: &Stored, identity: &RunIdentity) -> Verdict {
    chain::verify(&Record {
        unchained: s.chain.unchained,
        chain_head: s.chain.head.as_deref(),
        chain_len: s.chain.len,
        run: identity,
        events: &s.events,
        results: s.results.as_deref(),
        telemetry: s.telemetry.clone(),
    })
}

/// `GET /runs/{id}/verify`: `{"ok": true, "events": N, …}` or
/// `{"ok": false, "first_bad_event": ID, "problems": […], …}`.
async fn verify(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let s = load(&st, &id).await?;
    let v = verdict_of(&s, &RunIdentity::of(&s.row));
    Ok(axum::Json(v).into_response())
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordQuery {
    /// Include every telemetry row (so `scil verify` checks the telemetry digest too).
    telemetry: Option<bool>,
}

/// `GET /runs/{id}/record.json`: the whole record, downloadable.
async fn record(
    State(st): State<AppState>,
    _r: Reader,
    Path(id): Path<String>,
    Query(q): Query<RecordQuery>,
) -> ApiResult<Response> {
    let s = load(&st, &id).await?;
    let identity = RunIdentity::of(&s.row);
    let verdict = verdict_of(&s, &identity);
    let telemetry = if let (true, Some((_, n))) = (q.telemetry.unwrap_or(false), &s.telemetry) {
        if *n > RECORD_TELEMETRY_MAX as u64 {
            return Err(ApiError::Unprocessable(format!(
                "run '{id}' has {n} telemetry rows, more than a record carries ({RECORD_TELEMETRY_MAX}): \
                 export it without telemetry (its digest is in the record) and the telemetry as Parquet",
            )));
        }
        let rows = st
            .store
            .telemetry(&id, None, None, RECORD_TELEMETRY_MAX)
            .await?;
        Some(rows.iter().map(chain::telemetry_line).collect())
    } else {
        None
    };
    let provenance = s
        .results
        .as_deref()
        .and_then(|r| serde_json::from_str::<Value>(r).ok())
        .map(|v| v["provenance"].clone())
        .unwrap_or(Value::Null);
    let mut run = run_json(&s.row);
    if let Some(r) = st.supervisor.current_row(&id) {
        run = run_json(&r);
    }
    let file = RecordFile {
        format: RECORD_FORMAT.into(),
        run,
        identity,
        chain: s.chain,
        events: s.events,
        results: s.results,
        provenance,
        telemetry_digest: s
            .telemetry
            .map(|(sha256, rows)| TelemetryInfo { sha256, rows }),
        telemetry,
        verdict,
    };
    let body = serde_json::to_vec_pretty(&file).map_err(anyhow::Error::from)?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/json".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{id}.record.json\""),
            ),
        ],
        body,
    )
        .into_response())
}

/// The OpenAPI paths of the records.
pub fn openapi_paths() -> serde_json::Map<String, Value> {
    use super::openapi::build::{id_param, op};
    let mut m = serde_json::Map::new();
    m.insert("/runs/{id}/verify".into(), serde_json::json!({"get": op(
        "Check the run's record: its events' hash chain, the head and length the run keeps, and the seal of its results, telemetry and row: {\"ok\": true, \"events\": N, …} or {\"ok\": false, \"first_bad_event\": ID, \"problems\": […]}; runs stored before records were chained answer ok false, chained false",
        "records", false, "200", serde_json::json!({"parameters": id_param()}))}));
    let mut params = id_param();
    if let Some(a) = params.as_array_mut() {
        a.push(serde_json::json!({"name": "telemetry", "in": "query", "schema": {"type": "boolean"},
            "description": "include every telemetry row (so scil verify checks the telemetry digest too)"}));
    }
    m.insert("/runs/{id}/record.json".into(), serde_json::json!({"get": op(
        "The run's whole record for an auditor (run, events with their hashes, results with their provenance, the chain's head, the verdict); scil verify FILE checks it offline",
        "records", false, "200", serde_json::json!({"parameters": params}))}));
    m
}

/// Checks an exported record offline: the chain, the head and length it names, the seal's
/// digests of its results and run row, and its telemetry when the record carries the rows
/// (else the telemetry is reported unchecked). The record's own verdict is not trusted.
pub fn check_file(text: &str) -> anyhow::Result<(Verdict, bool)> {
    let f: RecordFile = serde_json::from_str(text)
        .map_err(|e| anyhow::anyhow!("not a scil run record: line {}: {e}", e.line()))?;
    if f.format != RECORD_FORMAT {
        anyhow::bail!(
            "format '{}' is not {RECORD_FORMAT} (a record of another scil version?)",
            f.format
        );
    }
    let telemetry = f.telemetry.as_ref().map(|rows| {
        let mut d = TelemetryDigest::default();
        for line in rows {
            d.add_line(line);
        }
        let n = d.rows;
        (d.finish(), n)
    });
    let checked = telemetry.is_some();
    let v = chain::verify(&Record {
        unchained: f.chain.unchained,
        chain_head: f.chain.head.as_deref(),
        chain_len: f.chain.len,
        run: &f.identity,
        events: &f.events,
        results: f.results.as_deref(),
        telemetry,
    });
    Ok((v, checked))
}
