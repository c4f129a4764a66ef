//! `/replays`: recorded CSV files. `POST /replays` uploads one (multipart) and creates a run.
//!
//! Uploads are streamed to `<storage_dir>/uploads/<generated>.csv` — the client's file name is
//! kept for display only, so it can never choose a path — with byte and row limits enforced
//! while streaming (413 past either).

use std::sync::atomic::Ordering;

use axum::extract::{DefaultBodyLimit, Multipart, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use chrono::Utc;
use serde_json::json;
use tokio::io::AsyncWriteExt;

use super::auth::{Operator, Reader};
use super::error::{ApiError, ApiResult};
use super::hub::run_json;
use super::runs::SpeedArg;
use super::state::AppState;
use super::supervisor::{NewRun, RunSource};
use crate::ingest::csv::{BadRowPolicy, CsvError};
use crate::ingest::recording::Recording;
use crate::store::ReplayRow;

pub fn router(max_upload: u64) -> Router<AppState> {
    Router::new().route(
        "/replays",
        get(list)
            .post(upload)
            .layer(DefaultBodyLimit::max((max_upload + (1 << 20)) as usize)),
    )
}

#[derive(serde::Deserialize)]
struct ListQuery {
    /// Judge every replay against this scenario (`fits`, and `misfit` with the reason).
    scenario: Option<String>,
}

async fn list(
    State(st): State<AppState>,
    _r: Reader,
    q: axum::extract::Query<ListQuery>,
) -> ApiResult<Response> {
    let rows = st.store.list_replays().await?;
    let Some(sc) = &q.scenario else {
        return Ok(axum::Json(rows).into_response());
    };
    if st.store.get_scenario(sc).await?.is_none() {
        return Err(ApiError::not_found("scenario", sc));
    }
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let mut v = serde_json::to_value(&r).map_err(|e| ApiError::Internal(e.into()))?;
        let (fits, misfit) = match super::replay_fit::check(&st, sc, None, &r).await {
            Ok(None) => (true, None),
            Ok(Some(why)) => (false, Some(why)),
            // A replay that cannot be read for this scenario does not fit it.
            Err(ApiError::Unprocessable(why)) => (false, Some(why)),
            Err(e) => return Err(e),
        };
        v["fits"] = json!(fits);
        v["misfit"] = json!(misfit);
        out.push(v);
    }
    Ok(axum::Json(out).into_response())
}

/// Display name of an uploaded file: the last path component, printable characters only.
pub fn display_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("");
    let clean: String = base.chars().filter(|c| !c.is_control()).take(200).collect();
    if clean.is_empty() || clean == "." || clean == ".." {
        "upload.csv".into()
    } else {
        clean
    }
}

struct Upload {
    path: std::path::PathBuf,
    name: String,
    bytes: u64,
}

/// Removes the stored file unless disarmed (on any error path).
struct Cleanup(Option<std::path::PathBuf>);
impl Drop for Cleanup {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

async fn upload(
    State(st): State<AppState>,
    _op: Operator,
    mut mp: Multipart,
) -> ApiResult<Response> {
    let limits = st.config.limits.clone();
    let mut scenario_id: Option<String> = None;
    let mut map_id: Option<String> = None;
    let mut speed: Option<String> = None;
    let mut start = true;
    let mut up: Option<Upload> = None;
    let mut cleanup = Cleanup(None);
    while let Some(mut field) = mp.next_field().await? {
        match field.name().unwrap_or("") {
            "file" => {
                if up.is_some() {
                    return Err(ApiError::BadRequest("only one file per upload".into()));
                }
                let name = display_name(field.file_name().unwrap_or("upload.csv"));
                let gen = format!("{}.csv", uuid::Uuid::new_v4().simple());
                let path = st.upload_dir.join(gen);
                cleanup.0 = Some(path.clone());
                let mut f = tokio::fs::File::create(&path)
                    .await
                    .map_err(|e| anyhow::anyhow!("cannot store the upload: {e}"))?;
                let (mut bytes, mut newlines) = (0u64, 0u64);
                while let Some(chunk) = field.chunk().await? {
                    bytes += chunk.len() as u64;
                    if bytes > limits.upload_max_bytes {
                        return Err(ApiError::PayloadTooLarge(format!(
                            "upload larger than {} bytes",
                            limits.upload_max_bytes
                        )));
                    }
                    newlines += chunk.iter().filter(|b| **b == b'\n').count() as u64;
                    if newlines > limits.upload_max_rows + 1 {
                        return Err(ApiError::PayloadTooLarge(format!(
                            "upload has more than {} rows",
                            limits.upload_max_rows
                        )));
                    }
                    f.write_all(&chunk)
                        .await
                        .map_err(|e| anyhow::anyhow!("cannot store the upload: {e}"))?;
                }
                f.flush().await.map_err(|e| anyhow::anyhow!("{e}"))?;
                up = Some(Upload { path, name, bytes });
            }
            "scenario_id" | "scenario" => {
                scenario_id = Some(field.text().await?.trim().to_string())
            }
            "map_id" => {
                map_id = Some(field.text().await?.trim().to_string()).filter(|s| !s.is_empty())
            }
            "speed" => speed = Some(field.text().await?).filter(|s| !s.is_empty()),
            "start" => {
                start = match field.text().await?.trim() {
                    "true" => true,
                    "false" => false,
                    other => {
                        return Err(ApiError::Unprocessable(format!(
                            "start: \"true\" or \"false\", got {other:?}"
                        )))
                    }
                }
            }
            other => {
                return Err(ApiError::Unprocessable(format!(
                "unknown form field '{other}' (expected file, scenario_id, speed, map_id, start)"
            )))
            }
        }
    }
    let up =
        up.ok_or_else(|| ApiError::Unprocessable("missing form field 'file' (the CSV)".into()))?;
    let scenario_id = scenario_id
        .ok_or_else(|| ApiError::Unprocessable("missing form field 'scenario_id'".into()))?;
    if let Some(t) = speed
        .as_deref()
        .filter(|t| *t != "max" && !plain_decimal(t))
    {
        return Err(ApiError::Unprocessable(format!(
            "speed: \"max\" or a real-time factor such as 1 or 0.5, got {t:?}"
        )));
    }
    let speed = SpeedArg::parse(speed.map(SpeedArg::Text).as_ref())?;
    let Some(scenario) = st.store.get_scenario(&scenario_id).await? else {
        return Err(ApiError::Unprocessable(format!(
            "scenario '{scenario_id}' does not exist"
        )));
    };
    // The header must map to the fields a replay needs, and every row must be readable and
    // physically plausible; errors name the uploaded file, never the stored path.
    let path = up.path.clone();
    let name = up.name.clone();
    // Any recording scil replays (CSV, MDF4, VBOX), told by its content.
    let samples = tokio::task::spawn_blocking(move || -> Result<u64, CsvError> {
        let display = std::path::Path::new(&name);
        let mut src = Recording::open_as(&path, display, &[], BadRowPolicy::Stop)?;
        if let Some(e) = src.find_map(Result::err) {
            return Err(e);
        }
        match src.rows() {
            0 => Err(CsvError {
                file: display.to_path_buf(),
                line: 0,
                reason: "no sample in the recording".into(),
            }),
            n => Ok(n),
        }
    })
    .await
    .map_err(|e| anyhow::anyhow!("{e}"))?
    .map_err(|e| ApiError::Unprocessable(e.to_string()))?;
    let replay_id = format!(
        "upload-{}",
        &uuid::Uuid::new_v4().simple().to_string()[..12]
    );
    // PostgreSQL: into the database, so that every instance can replay it.
    let stored_path = super::shared_files::share_replay(&st, &replay_id, &up.path).await?;
    st.store
        .insert_replay(&ReplayRow {
            id: replay_id.clone(),
            name: up.name.clone(),
            scenario_id: Some(scenario_id.clone()),
            path: stored_path,
            bytes: up.bytes as i64,
            row_count: samples as i64,
            bundled: false,
            created_at: Utc::now(),
            // Recorded for this scenario: on the run's map, else on the scenario's.
            map_id: map_id.clone().or(scenario.map_id.clone()),
        })
        .await
        .map_err(|e| super::error::conflict_on_duplicate(e, "replay", &replay_id))?;
    cleanup.0 = None; // registered: keep the file
    st.metrics.uploads.fetch_add(1, Ordering::Relaxed);
    let mut row = st
        .supervisor
        .create(NewRun {
            scenario_id,
            map_id,
            source: RunSource::CsvReplay {
                replay_id: replay_id.clone(),
                file_name: up.name,
            },
            can: None,
            can_mapping: None,
            speed,
            carriers: Vec::new(),
            sync: false,
            record: false,
            track: None,
            demo: false,
            virtual_targets: Vec::new(),
            osi: None,
        })
        .await?;
    if start {
        st.supervisor.arm(&row.id, None).await?;
        row = st.supervisor.start(&row.id, None).await?;
    }
    let mut v = run_json(&row);
    v["replay_id"] = json!(replay_id);
    Ok((StatusCode::CREATED, axum::Json(v)).into_response())
}

/// Digits with at most one decimal point inside (`1`, `0.5`, `12.25`): a real-time factor as a
/// form field writes it (no sign, exponent or words).
fn plain_decimal(t: &str) -> bool {
    let (int, frac) = t.split_once('.').unwrap_or((t, "0"));
    (1..=4).contains(&int.len())
        && (1..=6).contains(&frac.len())
        && int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    #[test]
    fn display_names_cannot_carry_paths() {
        use super::display_name;
        assert_eq!(display_name("../../etc/passwd"), "passwd");
        assert_eq!(display_name("C:\\x\\run.csv"), "run.csv");
        assert_eq!(display_name(".."), "upload.csv");
        assert_eq!(display_name(""), "upload.csv");
    }

    #[test]
    fn a_form_speed_is_plain_digits() {
        for ok in ["1", "0.5", "12.25", "1000"] {
            assert!(super::plain_decimal(ok), "{ok}");
        }
        for bad in [
            "",
            " 1",
            "1e2",
            "+1",
            "-1",
            "1.",
            ".5",
            "inf",
            "1.0000001",
            "12345",
        ] {
            assert!(!super::plain_decimal(bad), "{bad}");
        }
    }
}
