//! A finished run's telemetry as columnar chunks ([`super::telemetry_codec`]) in the blob
//! store, and the one reader every consumer of a run's telemetry goes through.
//!
//! * **Compaction** ([`Store::compact_run`]) moves a finished run's rows into one chunk per
//!   vehicle, together one blob `telemetry/<run>` (one blob a run keeps the pages it leaves
//!   part-filled few), in ONE transaction: the chunks are written and decoded again (compared with the
//!   rows, bit for bit), then the rows are deleted and the run is marked compacted
//!   (`telemetry_archive`). A crash anywhere before the commit leaves the rows as they were;
//!   [`Store::compact_pending`] (at startup and `scil db compact`) finishes the job.
//! * **Reading** ([`Store::run_telemetry`]): the chunks of a compacted run merged with any rows
//!   it still has (rows written back after the compaction, from a spill file), in `seq` order;
//!   a live run's rows otherwise. A reader that raced a compaction (its rows deleted between
//!   the look-up and the read) looks again and reads the chunks.
//! * **Retention** ([`Store::prune_telemetry`]) drops the telemetry of runs finished before a
//!   date; the run keeps its row, events and results, and its record notes the telemetry as
//!   pruned rather than changed.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use super::{telemetry_codec, Db, Store, StoreResult, TelemetryRow, TELEMETRY_COLUMNS};
use crate::store::blobs::CHUNK_BYTES;

/// Blob kind of telemetry chunks.
pub const BLOB_KIND: &str = "telemetry";

/// Run states after which a run's telemetry no longer grows.
pub const TERMINAL_STATES: &str = "('finished', 'aborted', 'failed')";

/// Env var (tests): milliseconds to pause inside a compaction's transaction, after the chunks
/// are written and before the rows are deleted, announcing the pause on stderr.
pub const PAUSE_ENV: &str = "SCIL_COMPACT_PAUSE_MS";

row_struct! {
    /// A compacted run's entry.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct ArchiveInfo {
        pub samples: i64,
        pub chunks: i64,
        pub bytes: i64,
        pub compacted_ms: i64,
        pub pruned_ms: Option<i64>,
    }
}

/// What one compaction did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Compacted {
    /// Rows moved out of the telemetry table.
    pub rows: u64,
    /// Samples now in the run's chunks.
    pub samples: u64,
    /// Bytes of the chunks.
    pub bytes: u64,
}

/// The blob of a run's chunks.
pub fn blob_id(run_id: &str) -> String {
    format!("telemetry/{run_id}")
}

/// Rows of one run merged by `seq` (the chunks' first; a row stored twice is taken once).
fn merge(a: Vec<TelemetryRow>, b: Vec<TelemetryRow>) -> Vec<TelemetryRow> {
    // Both come in `seq` order (the chunks decoded, the rows by ORDER BY).
    if b.is_empty() {
        return a;
    }
    if a.is_empty() {
        return b;
    }
    let mut m: BTreeMap<i64, TelemetryRow> = BTreeMap::new();
    for r in b.into_iter().chain(a) {
        m.insert(r.seq, r);
    }
    m.into_values().collect()
}

/// The same rows, bit for bit (NaN payloads and signed zeros included).
fn identical(a: &[TelemetryRow], b: &[TelemetryRow]) -> bool {
    let bits = |x: f64| x.to_bits();
    let ob = |x: Option<f64>| x.map(f64::to_bits);
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| {
            a.run_id == b.run_id
                && a.seq == b.seq
                && bits(a.t) == bits(b.t)
                && a.vehicle == b.vehicle
                && a.kind == b.kind
                && bits(a.x) == bits(b.x)
                && bits(a.y) == bits(b.y)
                && bits(a.yaw) == bits(b.yaw)
                && bits(a.speed_mps) == bits(b.speed_mps)
                && ob(a.steering_wheel_deg) == ob(b.steering_wheel_deg)
                && a.brake_light == b.brake_light
                && a.road_id == b.road_id
                && a.lane_id == b.lane_id
                && ob(a.road_s) == ob(b.road_s)
                && ob(a.road_t) == ob(b.road_t)
                && ob(a.wheel_speed_mps) == ob(b.wheel_speed_mps)
        })
}

fn corrupt(run_id: &str, e: impl std::fmt::Display) -> sqlx::Error {
    sqlx::Error::Protocol(format!("run {run_id}: {e}"))
}

/// Encodes a run's rows as chunks and checks they decode to the same rows (lossless or
/// nothing), on the blocking pool: a long run takes a few hundred ms of CPU, which on a
/// runtime worker would starve the live links of a run that is starting meanwhile.
async fn encode_checked(
    run_id: &str,
    all: Vec<TelemetryRow>,
) -> Result<(Vec<TelemetryRow>, Vec<u8>), sqlx::Error> {
    let id = run_id.to_owned();
    tokio::task::spawn_blocking(move || {
        let data = telemetry_codec::encode_run(&all);
        let back = telemetry_codec::decode_run(&id, &data).map_err(|e| corrupt(&id, e))?;
        if !identical(&back, &all) {
            return Err(corrupt(&id, "its chunks do not give back its rows"));
        }
        Ok((all, data))
    })
    .await
    .map_err(|e| corrupt(run_id, format_args!("its compaction did not finish: {e}")))?
}

/// Reads the chunks and rows of a run on `$ex` (a pool or a transaction).
macro_rules! read_all {
    ($DB:ident, $ex:expr, $run:expr) => {{
        let run: &str = $run;
        let info = sqlx::query_as::<$DB, ArchiveInfo>(
            "SELECT samples, chunks, bytes, compacted_ms, pruned_ms FROM telemetry_archive \
             WHERE run_id = $1",
        )
        .bind(run)
        .fetch_optional(&mut *$ex)
        .await?;
        let mut chunked = Vec::new();
        if info.is_some_and(|i| i.chunks > 0) {
            let parts = sqlx::query_scalar::<$DB, Vec<u8>>(
                "SELECT data FROM blob_chunks WHERE blob_id = $1 ORDER BY seq",
            )
            .bind(blob_id(run))
            .fetch_all(&mut *$ex)
            .await?;
            if parts.is_empty() {
                return Err(corrupt(run, "its telemetry chunks are missing"));
            }
            let data = if parts.len() == 1 {
                parts.into_iter().next().unwrap_or_default()
            } else {
                parts.concat()
            };
            chunked = telemetry_codec::decode_run(run, &data).map_err(|e| corrupt(run, e))?;
        }
        let rows = sqlx::query_as::<$DB, TelemetryRow>(&format!(
            "SELECT {TELEMETRY_COLUMNS} FROM telemetry WHERE run_id = $1 ORDER BY seq"
        ))
        .bind(run)
        .fetch_all(&mut *$ex)
        .await?;
        (info, chunked, rows)
    }};
}

impl Store {
    /// A compacted run's entry (None: its telemetry is still in rows, or it has none).
    pub async fn archive_info(&self, run_id: &str) -> StoreResult<Option<ArchiveInfo>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, ArchiveInfo>(
                "SELECT samples, chunks, bytes, compacted_ms, pruned_ms FROM telemetry_archive \
                 WHERE run_id = $1",
            )
            .bind(run_id)
            .fetch_optional(p)
            .await
        })
    }

    /// Every telemetry row of a run, in `seq` order, wherever it is stored (chunks, rows or
    /// both). Every reader of a run's telemetry goes through here.
    pub async fn run_telemetry(&self, run_id: &str) -> StoreResult<Vec<TelemetryRow>> {
        // Twice at most: a run whose rows vanished between the look-up and the read was
        // compacted meanwhile, and its chunks are committed by then.
        for _ in 0..2 {
            let (info, chunked, rows) = on_db!(&self.db, |p, DB| {
                let mut c = p.acquire().await?;
                let c = &mut *c;
                read_all!(DB, c, run_id)
            });
            if info.is_some() || !rows.is_empty() {
                return Ok(merge(chunked, rows));
            }
            if self.archive_info(run_id).await?.is_none() {
                return Ok(Vec::new());
            }
        }
        let (_, chunked, rows) = on_db!(&self.db, |p, DB| {
            let mut c = p.acquire().await?;
            let c = &mut *c;
            read_all!(DB, c, run_id)
        });
        Ok(merge(chunked, rows))
    }

    /// Compacts a finished run's telemetry into chunks (see the module). `None`: the run is
    /// not finished (or unknown), and keeps its rows.
    pub async fn compact_run(&self, run_id: &str) -> StoreResult<Option<Compacted>> {
        let pause = std::env::var(PAUSE_ENV)
            .ok()
            .and_then(|v| v.parse::<u64>().ok());
        let now = Utc::now().timestamp_millis();
        on_db!(&self.db, |p, DB| {
            let mut tx = p.begin().await?;
            // A write first: SQLite takes its write lock now (no upgrade from a read lock
            // later), PostgreSQL locks the run's row (one compaction of a run at a time).
            let live = sqlx::query_scalar::<DB, String>(&format!(
                "UPDATE runs SET id = id WHERE id = $1 AND state IN {TERMINAL_STATES} \
                 RETURNING id"
            ))
            .bind(run_id)
            .fetch_optional(&mut *tx)
            .await?;
            if live.is_none() {
                return Ok(None);
            }
            let (info, chunked, rows) = read_all!(DB, tx, run_id);
            if info.is_some_and(|i| i.pruned_ms.is_some()) {
                return Ok(None);
            }
            let moved = rows.len() as u64;
            if info.is_some() && rows.is_empty() {
                return Ok(Some(Compacted {
                    rows: 0,
                    samples: info.map_or(0, |i| i.samples as u64),
                    bytes: info.map_or(0, |i| i.bytes as u64),
                }));
            }
            let all = merge(chunked, rows);
            let vehicles = all
                .iter()
                .map(|r| r.vehicle.as_str())
                .collect::<std::collections::BTreeSet<_>>()
                .len();
            let id = blob_id(run_id);
            sqlx::query("DELETE FROM blob_chunks WHERE blob_id = $1")
                .bind(&id)
                .execute(&mut *tx)
                .await?;
            sqlx::query("DELETE FROM blobs WHERE id = $1")
                .bind(&id)
                .execute(&mut *tx)
                .await?;
            let (all, data) = encode_checked(run_id, all).await?;
            let parts: Vec<&[u8]> = data.chunks(CHUNK_BYTES).collect();
            sqlx::query(
                "INSERT INTO blobs (id, kind, bytes, chunks, complete, created_ms) \
                 VALUES ($1, $2, $3, $4, TRUE, $5)",
            )
            .bind(&id)
            .bind(BLOB_KIND)
            .bind(data.len() as i64)
            .bind(parts.len() as i64)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            for (seq, part) in parts.iter().enumerate() {
                sqlx::query("INSERT INTO blob_chunks (blob_id, seq, data) VALUES ($1, $2, $3)")
                    .bind(&id)
                    .bind(seq as i64)
                    .bind(*part)
                    .execute(&mut *tx)
                    .await?;
            }
            let bytes = data.len() as u64;
            if let Some(ms) = pause {
                eprintln!("compaction of run {run_id}: chunks written, pausing {ms} ms");
                tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
            }
            sqlx::query("DELETE FROM telemetry WHERE run_id = $1")
                .bind(run_id)
                .execute(&mut *tx)
                .await?;
            sqlx::query(
                "INSERT INTO telemetry_archive (run_id, samples, chunks, bytes, compacted_ms) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_id) DO UPDATE SET \
                 samples = excluded.samples, chunks = excluded.chunks, bytes = excluded.bytes, \
                 compacted_ms = excluded.compacted_ms",
            )
            .bind(run_id)
            .bind(all.len() as i64)
            .bind(vehicles as i64)
            .bind(bytes as i64)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(Some(Compacted {
                rows: moved,
                samples: all.len() as u64,
                bytes,
            }))
        })
    }

    /// Finished runs that still have telemetry rows (what a compaction has left to do), oldest
    /// first.
    pub async fn compaction_pending(&self) -> StoreResult<Vec<String>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_scalar::<DB, String>(&format!(
                "SELECT r.id FROM runs r WHERE r.state IN {TERMINAL_STATES} \
                 AND EXISTS (SELECT 1 FROM telemetry t WHERE t.run_id = r.id) \
                 ORDER BY r.created_at, r.id"
            ))
            .fetch_all(p)
            .await
        })
    }

    /// Compacts every finished run that still has rows, calling `progress(done, total)` after
    /// each. Answers the totals.
    pub async fn compact_pending(
        &self,
        mut progress: impl FnMut(usize, usize),
    ) -> StoreResult<Compacted> {
        let ids = self.compaction_pending().await?;
        let mut sum = Compacted::default();
        for (i, id) in ids.iter().enumerate() {
            if let Some(c) = self.compact_run(id).await? {
                sum.rows += c.rows;
                sum.samples += c.samples;
                sum.bytes += c.bytes;
            }
            progress(i + 1, ids.len());
        }
        Ok(sum)
    }

    /// Drops the telemetry (rows and chunks) of the finished runs that ended before `before`
    /// (or, never started, were created before it). The runs keep their row, events and
    /// results; `telemetry_archive.pruned_ms` marks the drop. Answers the pruned run ids.
    pub async fn prune_telemetry(&self, before: DateTime<Utc>) -> StoreResult<Vec<String>> {
        let now = Utc::now().timestamp_millis();
        let ids = on_db!(&self.db, |p, DB| {
            sqlx::query_scalar::<DB, String>(&format!(
                "SELECT r.id FROM runs r LEFT JOIN telemetry_archive a ON a.run_id = r.id \
                 WHERE r.state IN {TERMINAL_STATES} AND a.pruned_ms IS NULL \
                 AND COALESCE(r.finished_at, r.created_at) < $1 ORDER BY r.created_at, r.id"
            ))
            .bind(before)
            .fetch_all(p)
            .await
        })?;
        for id in &ids {
            on_db!(&self.db, |p, DB| {
                let mut tx = p.begin().await?;
                let b = blob_id(id);
                sqlx::query("DELETE FROM blob_chunks WHERE blob_id = $1")
                    .bind(&b)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query("DELETE FROM blobs WHERE id = $1")
                    .bind(&b)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query("DELETE FROM telemetry WHERE run_id = $1")
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(
                    "INSERT INTO telemetry_archive \
                     (run_id, samples, chunks, bytes, compacted_ms, pruned_ms) \
                     VALUES ($1, 0, 0, 0, $2, $2) ON CONFLICT (run_id) DO UPDATE SET \
                     samples = 0, chunks = 0, bytes = 0, pruned_ms = excluded.pruned_ms",
                )
                .bind(id)
                .bind(now)
                .execute(&mut *tx)
                .await?;
                tx.commit().await
            })?;
        }
        Ok(ids)
    }

    /// When a run's telemetry was dropped by retention (None: it was not).
    pub async fn telemetry_pruned(&self, run_id: &str) -> StoreResult<Option<DateTime<Utc>>> {
        Ok(self
            .archive_info(run_id)
            .await?
            .and_then(|i| i.pruned_ms)
            .and_then(DateTime::from_timestamp_millis))
    }
}
