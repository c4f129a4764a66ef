//! Files every instance can read. With PostgreSQL, uploaded replays and run recordings are
//! stored in the database as chunked blobs ([`crate::store::blobs`]) so that a run created,
//! replayed or exported through any instance finds them; each instance keeps a local copy
//! under `<storage_dir>/blobs/`, fetched chunk by chunk on first use. With SQLite (one
//! instance) they stay in the local directory only. Maps, scenarios and DBCs are stored as text
//! in their tables on both backends.
//!
//! A replay stored in the database has the path `db:<blob id>` in its row.

use std::path::{Path, PathBuf};

use axum::body::Body;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::context::Shared;
use super::error::{ApiError, ApiResult};
use crate::store::{Db, ReplayRow};

/// The prefix of a replay path that names a blob.
pub const DB_PREFIX: &str = "db:";

/// Files go into the database (PostgreSQL: instances share it).
pub fn shared(st: &Shared) -> bool {
    matches!(st.store.db, Db::Postgres(_))
}

pub fn replay_blob(replay_id: &str) -> String {
    format!("replays/{replay_id}")
}

pub fn recording_blob(run_id: &str) -> String {
    format!("recordings/{run_id}")
}

/// This instance's copy of a blob.
fn cache_path(st: &Shared, blob: &str) -> PathBuf {
    st.config
        .storage_dir
        .join("blobs")
        .join(blob.replace(['/', '\\'], "-"))
}

/// The local file of a stored replay: its own path, or for one stored in the database this
/// instance's copy (fetched chunk by chunk when missing).
pub async fn replay_path(st: &Shared, row: &ReplayRow) -> ApiResult<PathBuf> {
    let Some(blob) = row.path.strip_prefix(DB_PREFIX) else {
        return Ok(PathBuf::from(&row.path));
    };
    let local = cache_path(st, blob);
    if let Ok(m) = tokio::fs::metadata(&local).await {
        if m.len() == row.bytes as u64 {
            return Ok(local);
        }
    }
    match st.store.blob_to_file(blob, &local).await {
        Ok(true) => Ok(local),
        Ok(false) => Err(ApiError::Unprocessable(format!(
            "replay '{}': its data is not in the database (blob {blob} missing)",
            row.id
        ))),
        Err(e) => Err(ApiError::Internal(e.context(format!(
            "replay '{}': fetching it from the database",
            row.id
        )))),
    }
}

/// After an upload was checked: with PostgreSQL, stores it in the database and moves the file
/// to this instance's copy. Returns the path to record in the replay's row.
pub async fn share_replay(st: &Shared, replay_id: &str, upload: &Path) -> anyhow::Result<String> {
    if !shared(st) {
        return Ok(upload.display().to_string());
    }
    let blob = replay_blob(replay_id);
    st.store.put_blob_from_file(&blob, "replay", upload).await?;
    let local = cache_path(st, &blob);
    if let Some(dir) = local.parent() {
        tokio::fs::create_dir_all(dir).await?;
    }
    tokio::fs::rename(upload, &local).await?;
    Ok(format!("{DB_PREFIX}{blob}"))
}

/// After a recorded run: with PostgreSQL, stores its MCAP recording in the database.
pub async fn share_recording(st: &Shared, run_id: &str) {
    let path = recording_path(st, run_id);
    if !shared(st) || !path.exists() {
        return;
    }
    if let Err(e) = st
        .store
        .put_blob_from_file(&recording_blob(run_id), "recording", &path)
        .await
    {
        tracing::error!("run {run_id}: cannot store the recording in the database: {e:#}");
    }
}

/// A run's recording from the database, streamed one chunk at a time; `None` when there is
/// none (or the backend is SQLite).
pub async fn recording_response(st: &Shared, run_id: &str) -> ApiResult<Option<Response>> {
    if !shared(st) {
        return Ok(None);
    }
    let blob = recording_blob(run_id);
    let Some(info) = st.store.blob_info(&blob).await? else {
        return Ok(None);
    };
    let store = st.store.clone();
    let chunks = futures_util::stream::unfold(0i64, move |seq| {
        let (store, blob) = (store.clone(), blob.clone());
        async move {
            if seq >= info.chunks {
                return None;
            }
            let item = match store.blob_chunk(&blob, seq).await {
                Ok(Some(data)) => Ok(axum::body::Bytes::from(data)),
                Ok(None) => Err(std::io::Error::other(format!("chunk {seq} missing"))),
                Err(e) => Err(std::io::Error::other(e.to_string())),
            };
            Some((item, seq + 1))
        }
    });
    Ok(Some(
        (
            [
                (header::CONTENT_TYPE, "application/x-mcap".to_string()),
                (header::CONTENT_LENGTH, info.bytes.to_string()),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"{run_id}.mcap\""),
                ),
            ],
            Body::from_stream(chunks),
        )
            .into_response(),
    ))
}

/// Where a run's MCAP recording is written on this instance.
pub fn recording_path(st: &Shared, id: &str) -> PathBuf {
    st.config
        .storage_dir
        .join("recordings")
        .join(format!("{id}.mcap"))
}
