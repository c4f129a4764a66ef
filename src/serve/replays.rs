//! `/replays`: recordings (CSV, MDF4, VBOX, MCAP, raw GeneSys ADMAnet). `POST /replays` uploads one (multipart) and
//! creates a run.
//!
//! Uploads are streamed to `<storage_dir>/uploads/<generated>` — the client's file name is
//! kept for display only, so it can never choose a path — with byte and row limits enforced
//! while streaming (413 past either). The stored replay records its kind, told by its content,
//! and the SHA-256 of its bytes: a second upload of the same file (with the same column
//! mapping) reuses the first replay instead of storing a copy.

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
use crate::ingest::csv::{BadRowPolicy, ColumnSpec};
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
        return Err(ApiError::NotFound(
            super::known::unknown(&st.store, "scenario", sc).await,
        ));
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
    sha256: String,
}

/// SHA-256 of a file's bytes, hex.
pub fn sha256_file(path: &std::path::Path) -> std::io::Result<String> {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    let mut f = std::fs::File::open(path)?;
    std::io::copy(&mut f, &mut h)?;
    Ok(hex(&h.finalize()))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The kind a replay records (`csv`, `mdf4`, `vbo`, `mcap`); `Err` names what the file is and
/// where it belongs when it is no recording.
fn replay_kind(name: &str, head: &[u8]) -> Result<&'static str, String> {
    use crate::ingest::detect::{belongs, sniff, FileKind};
    let kind = sniff(head);
    let text = String::from_utf8_lossy(head);
    let lead = text.trim_start_matches('\u{feff}').trim_start();
    if kind == FileKind::Csv && lead.starts_with('<') {
        let what = if text.contains("<OpenDRIVE") {
            "an OpenDRIVE map: upload it as a map (POST /api/v1/maps, the Maps tab)"
        } else if text.contains("<OpenSCENARIO") {
            "an OpenSCENARIO file: upload it as a scenario (POST /api/v1/scenarios)"
        } else {
            "XML, not a recording"
        };
        return Err(format!("{name} is {what}"));
    }
    if kind == FileKind::Csv
        && (text.contains("\n[vut]") || text.contains("[[targets]]") || lead.starts_with("[vut]"))
    {
        return Err(format!(
            "{name} is a scenario file (TOML): upload it as a scenario (POST /api/v1/scenarios)"
        ));
    }
    match kind {
        FileKind::Csv => Ok("csv"),
        FileKind::Mdf4 => Ok("mdf4"),
        FileKind::Vbo => Ok("vbo"),
        FileKind::Mcap => Ok("mcap"),
        FileKind::Adma => Ok("adma"),
        FileKind::Empty => Err(format!("{name} is empty: no sample to replay")),
        k => Err(format!(
            "{name} is {}, {}; a replay is a CSV, MDF4, VBOX, MCAP or ADMA recording",
            k.describe(),
            belongs(k).unwrap_or("not a recording")
        )),
    }
}

/// Reads the whole recording as a run would (an MCAP through its VUT channel) and counts its
/// samples; errors name the uploaded file.
fn count_samples(
    path: &std::path::Path,
    name: &str,
    kind: &str,
    columns: &[ColumnSpec],
) -> Result<u64, String> {
    let display = std::path::Path::new(name);
    let n = if kind == "mcap" {
        if !columns.is_empty() {
            return Err(format!(
                "{name} is an MCAP recording: its channels are named, no column mapping applies"
            ));
        }
        crate::record::McapSource::open(path)
            .map_err(|e| {
                format!(
                    "{name}: {}",
                    crate::error_message(&e).replace(&path.display().to_string(), name)
                )
            })?
            .count() as u64
    } else {
        let mut src = Recording::open_as(path, display, columns, BadRowPolicy::Stop)
            .map_err(|e| e.to_string())?;
        if let Some(e) = src.find_map(Result::err) {
            return Err(e.to_string());
        }
        src.rows()
    };
    if n == 0 {
        return Err(format!("{name}: no sample in the recording"));
    }
    Ok(n)
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
    let mut columns: Vec<String> = Vec::new();
    let mut cleanup = Cleanup(None);
    while let Some(mut field) = mp.next_field().await? {
        match field.name().unwrap_or("") {
            "file" => {
                if up.is_some() {
                    return Err(ApiError::BadRequest("only one file per upload".into()));
                }
                let name = display_name(field.file_name().unwrap_or("upload.csv"));
                let gen = format!("{}.upload", uuid::Uuid::new_v4().simple());
                let path = st.upload_dir.join(gen);
                cleanup.0 = Some(path.clone());
                let mut f = tokio::fs::File::create(&path)
                    .await
                    .map_err(|e| anyhow::anyhow!("cannot store the upload: {e}"))?;
                let (mut bytes, mut newlines) = (0u64, 0u64);
                let mut hash = <sha2::Sha256 as sha2::Digest>::new();
                while let Some(chunk) = field.chunk().await? {
                    sha2::Digest::update(&mut hash, &chunk);
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
                up = Some(Upload {
                    path,
                    name,
                    bytes,
                    sha256: hex(&sha2::Digest::finalize(hash)),
                });
            }
            "scenario_id" | "scenario" => {
                scenario_id = Some(field.text().await?.trim().to_string())
            }
            "map_id" => {
                map_id = Some(field.text().await?.trim().to_string()).filter(|s| !s.is_empty())
            }
            "speed" => speed = Some(field.text().await?).filter(|s| !s.is_empty()),
            // FIELD=COLUMN[:UNIT], as `scil replay --column` (repeatable).
            "column" => {
                let c = field.text().await?.trim().to_string();
                if c.is_empty() {
                    return Err(ApiError::Unprocessable(
                        "column: empty; give FIELD=COLUMN[:UNIT], e.g. speed=VelocityKmh:kmh".into(),
                    ));
                }
                c.parse::<ColumnSpec>()
                    .map_err(|e| ApiError::Unprocessable(format!("column: {e}")))?;
                columns.push(c);
            }
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
                "unknown form field '{other}' (expected file, scenario_id, speed, map_id, start, column)"
            )))
            }
        }
    }
    let up = up.ok_or_else(|| {
        ApiError::Unprocessable("missing form field 'file' (the recording)".into())
    })?;
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
        return Err(ApiError::Unprocessable(
            super::known::unknown(&st.store, "scenario", &scenario_id).await,
        ));
    };
    // The header must map to the fields a replay needs, and every row must be readable and
    // physically plausible; errors name the uploaded file, never the stored path.
    let head = {
        use tokio::io::AsyncReadExt;
        let mut f = tokio::fs::File::open(&up.path)
            .await
            .map_err(|e| anyhow::anyhow!("cannot read the upload back: {e}"))?;
        let mut head = vec![0u8; 8192];
        let n = f
            .read(&mut head)
            .await
            .map_err(|e| anyhow::anyhow!("cannot read the upload back: {e}"))?;
        head.truncate(n);
        head
    };
    let kind = replay_kind(&up.name, &head).map_err(ApiError::Unprocessable)?;
    let column_text = (!columns.is_empty()).then(|| columns.join("\n"));
    // The same bytes with the same mapping: the replay stored before.
    let existing = st
        .store
        .replay_by_sha256(&up.sha256)
        .await?
        .filter(|r| r.columns == column_text);
    let replay_id = if let Some(r) = &existing {
        r.id.clone()
    } else {
        let path = up.path.clone();
        let name = up.name.clone();
        let specs: Vec<ColumnSpec> = columns.iter().filter_map(|c| c.parse().ok()).collect();
        let samples =
            tokio::task::spawn_blocking(move || count_samples(&path, &name, kind, &specs))
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?
                .map_err(|e| ApiError::Unprocessable(with_form_advice(e)))?;
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
                kind: kind.into(),
                sha256: Some(up.sha256.clone()),
                columns: column_text,
            })
            .await
            .map_err(|e| super::error::conflict_on_duplicate(e, "replay", &replay_id))?;
        cleanup.0 = None; // registered: keep the file
        replay_id
    };
    if existing.is_some() {
        // The copy just streamed is not needed: the stored replay has these bytes.
        drop(cleanup);
    }
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
    v["replay_kind"] = json!(kind);
    if let Some(r) = &existing {
        v["duplicate_of"] = json!({"id": r.id, "name": r.name, "created_at": r.created_at});
    }
    Ok((StatusCode::CREATED, axum::Json(v)).into_response())
}

/// A missing-column error as the service's caller can act on it: the form field, beside the
/// command line's flag.
fn with_form_advice(e: String) -> String {
    if e.contains("--column") {
        format!("{e}; in this upload: a form field column=FIELD=NAME[:UNIT] (repeatable, e.g. column=speed=VelocityKmh:kmh)")
    } else {
        e
    }
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
