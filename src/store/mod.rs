//! Persistence: runs, scenarios, maps, replays, telemetry, events and results, with sqlx.
//!
//! # Two backends, one schema
//! SQLite (embedded default, `sqlite://scil.db`, libsqlite3 bundled by sqlx) and PostgreSQL
//! (`postgres://…`). The schema is the same; the dialects differ in types only, so there are two
//! migration folders, `migrations/sqlite` and `migrations/postgres`, embedded in the binary
//! ([`migrations`]) and applied at connect time. [`Db`] is an enum of the two pools; every query is written once in
//! portable SQL (`$1` placeholders work on both) and the [`on_db!`] macro type-checks and runs it
//! against whichever pool is configured. We do not use `sqlx::Any`: it has no chrono types and
//! erases the backend in error messages.
//!
//! Telemetry is written by a [`writer::Writer`] task in batches (multi-row INSERT in one
//! transaction), never directly from the engine.

pub mod writer;

use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::QueryBuilder;

/// The connected database.
#[derive(Clone, Debug)]
pub enum Db {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// A struct read from a query's row by column name, on both backends: what
/// `#[derive(sqlx::FromRow)]` does, without sqlx's macro crate (it compiles a build-time copy of
/// both database drivers into every build). A field written `name: T = default` takes
/// `T::default()` when the query has no such column.
macro_rules! row_struct {
    (
        $(#[$sm:meta])*
        $sv:vis struct $name:ident {
            $(
                $(#[$fm:meta])*
                $fv:vis $field:ident : $ty:ty $(= $how:ident)?
            ),* $(,)?
        }
    ) => {
        $(#[$sm])*
        $sv struct $name {
            $( $(#[$fm])* $fv $field: $ty, )*
        }
        impl<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow> for $name {
            fn from_row(row: &'r sqlx::sqlite::SqliteRow) -> Result<Self, sqlx::Error> {
                Ok($name { $( $field: row_struct!(@column row, $field $(, $how)?), )* })
            }
        }
        impl<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow> for $name {
            fn from_row(row: &'r sqlx::postgres::PgRow) -> Result<Self, sqlx::Error> {
                Ok($name { $( $field: row_struct!(@column row, $field $(, $how)?), )* })
            }
        }
    };
    (@column $row:ident, $field:ident) => {
        sqlx::Row::try_get($row, stringify!($field))?
    };
    (@column $row:ident, $field:ident, default) => {
        match sqlx::Row::try_get($row, stringify!($field)) {
            Err(sqlx::Error::ColumnNotFound(_)) => Default::default(),
            other => other?,
        }
    };
}

/// Runs `$body` with `$p` bound to the pool and `$DB` to the sqlx database type of the backend.
macro_rules! on_db {
    ($db:expr, |$p:ident, $DB:ident| $body:expr) => {
        match $db {
            Db::Sqlite($p) => {
                #[allow(dead_code)]
                type $DB = sqlx::Sqlite;
                $body
            }
            Db::Postgres($p) => {
                #[allow(dead_code)]
                type $DB = sqlx::Postgres;
                $body
            }
        }
    };
}

/// `INSERT INTO events …` for one chunk (shared by the plain insert and the writer's batch),
/// each event with its chain hash ([`chain`]; None: not a chained run's event). Timestamps are
/// stored in microseconds, as the chain hashed them.
macro_rules! events_insert {
    ($DB:ident, $chunk:expr, $hashes:expr) => {{
        let mut qb = QueryBuilder::<$DB>::new(
            "INSERT INTO events (run_id, t, kind, payload, created_at, hash) ",
        );
        let rows = $chunk.iter().zip($hashes.iter());
        qb.push_values(rows, |mut b, (e, h): (&NewEvent, &Option<String>)| {
            b.push_bind(e.run_id.as_deref())
                .push_bind(e.t)
                .push_bind(e.kind.as_str())
                .push_bind(e.payload.as_str())
                .push_bind($crate::store::chain::micros(e.created_at))
                .push_bind(h.as_deref());
        });
        qb
    }};
}

/// The chain hashes of `$events` (in order), inside transaction `$tx`: for each run, its row is
/// locked first (a write: PostgreSQL's row lock, SQLite's write lock) so the head read is the
/// head the next link follows, then the run's head and length are moved on. Events without a
/// run, of an unknown run or of an unchained run get None.
macro_rules! chain_hashes {
    ($DB:ident, $tx:expr, $events:expr) => {{
        let events: &[NewEvent] = $events;
        let mut heads: std::collections::BTreeMap<&str, Option<(Option<String>, i64)>> =
            std::collections::BTreeMap::new();
        let runs: std::collections::BTreeSet<&str> =
            events.iter().filter_map(|e| e.run_id.as_deref()).collect();
        for run in runs {
            sqlx::query::<$DB>("UPDATE runs SET chain_len = chain_len WHERE id = $1")
                .bind(run)
                .execute(&mut *$tx)
                .await?;
            let h = sqlx::query_as::<$DB, (bool, Option<String>, i64)>(
                "SELECT unchained, chain_head, chain_len FROM runs WHERE id = $1",
            )
            .bind(run)
            .fetch_optional(&mut *$tx)
            .await?;
            heads.insert(run, h.filter(|h| !h.0).map(|h| (h.1, h.2)));
        }
        let mut out: Vec<Option<String>> = Vec::with_capacity(events.len());
        for e in events {
            let Some(run) = e.run_id.as_deref() else {
                out.push(None);
                continue;
            };
            match heads.get_mut(run) {
                Some(Some((head, len))) => {
                    let h = $crate::store::chain::link_event(head.as_deref(), e);
                    *head = Some(h.clone());
                    *len += 1;
                    out.push(Some(h));
                }
                _ => out.push(None),
            }
        }
        for (run, h) in &heads {
            if let Some((head, len)) = h {
                sqlx::query::<$DB>("UPDATE runs SET chain_head = $2, chain_len = $3 WHERE id = $1")
                    .bind(*run)
                    .bind(head.as_deref())
                    .bind(*len)
                    .execute(&mut *$tx)
                    .await?;
            }
        }
        out
    }};
}

/// `INSERT INTO telemetry … ON CONFLICT (run_id, seq) DO NOTHING` for one chunk (idempotent,
/// so a batch can be retried).
macro_rules! telemetry_insert {
    ($DB:ident, $chunk:expr) => {{
        let mut qb =
            QueryBuilder::<$DB>::new(format!("INSERT INTO telemetry ({TELEMETRY_COLUMNS}) "));
        qb.push_values($chunk, |mut b, r: &TelemetryRow| {
            b.push_bind(r.run_id.as_str())
                .push_bind(r.seq)
                .push_bind(r.t)
                .push_bind(r.vehicle.as_str())
                .push_bind(r.kind.as_str())
                .push_bind(r.x)
                .push_bind(r.y)
                .push_bind(r.yaw)
                .push_bind(r.speed_mps)
                .push_bind(r.steering_wheel_deg)
                .push_bind(r.brake_light)
                .push_bind(r.road_id.as_deref())
                .push_bind(r.lane_id)
                .push_bind(r.road_s)
                .push_bind(r.road_t)
                .push_bind(r.wheel_speed_mps);
        });
        qb.push(" ON CONFLICT (run_id, seq) DO NOTHING");
        qb
    }};
}

/// `INSERT INTO runs …` of one run row (the plain insert and the claiming one).
macro_rules! run_insert_query {
    ($DB:ident, $r:expr) => {{
        let r: &$crate::store::RunRow = $r;
        sqlx::query::<$DB>(
            "INSERT INTO runs (id, state, scenario_id, map_id, source, speed, error, created_at, \
             armed_at, started_at, finished_at, track, demo, instance, abort) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
        )
        .bind(&r.id)
        .bind(&r.state)
        .bind(&r.scenario_id)
        .bind(&r.map_id)
        .bind(&r.source)
        .bind(r.speed)
        .bind(r.error.as_deref().map($crate::store::bound_reason))
        .bind(r.created_at)
        .bind(r.armed_at)
        .bind(r.started_at)
        .bind(r.finished_at)
        .bind(&r.track)
        .bind(r.demo)
        .bind(&r.instance)
        .bind(&r.abort)
    }};
}

/// Deletes a run's telemetry chunks and its archive entry inside transaction `$tx`.
macro_rules! drop_chunks {
    ($DB:ident, $tx:expr, $run:expr) => {{
        let run: &str = $run;
        let b = $crate::store::telemetry_archive::blob_id(run);
        sqlx::query::<$DB>("DELETE FROM blob_chunks WHERE blob_id = $1")
            .bind(&b)
            .execute(&mut *$tx)
            .await?;
        sqlx::query::<$DB>("DELETE FROM blobs WHERE id = $1")
            .bind(&b)
            .execute(&mut *$tx)
            .await?;
        sqlx::query::<$DB>("DELETE FROM telemetry_archive WHERE run_id = $1")
            .bind(run)
            .execute(&mut *$tx)
            .await?;
    }};
}

// After the macros: the modules use them.
pub mod audit;
pub mod blobs;
pub mod chain;
mod chain_rows;
pub mod claims;
pub mod dbcs;
pub mod geofences;
mod inputs;
pub mod instances;
pub mod migrations;
pub mod run_list;
pub mod series;
pub mod telemetry_archive;
pub mod telemetry_codec;
mod telemetry_rows;
pub use claims::{is_unique_violation, CarrierClaim, ClaimError};
pub use dbcs::DbcRow;
pub use instances::InstanceRow;
pub use run_list::RunFilter;

pub type StoreResult<T> = Result<T, sqlx::Error>;

/// Longest stored run error / abort reason, bytes: a 100 KB reason was stored and returned by
/// every `GET /runs`.
pub const MAX_REASON_BYTES: usize = 1024;

/// `reason` cut to [`MAX_REASON_BYTES`] (on a character boundary, marked with `…`).
pub fn bound_reason(reason: &str) -> String {
    if reason.len() <= MAX_REASON_BYTES {
        return reason.to_string();
    }
    let mut end = MAX_REASON_BYTES - '…'.len_utf8();
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &reason[..end])
}

/// Rows per INSERT statement (16 columns → 16 000 bind parameters, below SQLite's 32 766 and
/// PostgreSQL's 65 535).
pub const TELEMETRY_ROWS_PER_STATEMENT: usize = 1000;

row_struct! {
    #[derive(Debug, Clone, Serialize)]
    pub struct MapRow {
        pub id: String,
        pub name: String,
        pub file_name: String,
        #[serde(skip)]
        pub xodr: String,
        pub bytes: i64,
        pub roads: i64,
        pub geo_reference: Option<String>,
        pub bundled: bool,
        pub created_at: DateTime<Utc>,
    }
}

row_struct! {
    #[derive(Debug, Clone, Serialize)]
    pub struct ScenarioRow {
        pub id: String,
        pub name: String,
        pub map_id: Option<String>,
        pub toml: String,
        pub bundled: bool,
        pub created_at: DateTime<Utc>,
    }
}

row_struct! {
    #[derive(Debug, Clone, Serialize)]
    pub struct ReplayRow {
        pub id: String,
        pub name: String,
        pub scenario_id: Option<String>,
        /// Where the CSV is on disk (bundled file, or a generated name under the upload folder).
        #[serde(skip)]
        pub path: String,
        pub bytes: i64,
        #[serde(rename = "rows")]
        pub row_count: i64,
        pub bundled: bool,
        pub created_at: DateTime<Utc>,
        /// The map it was recorded on, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub map_id: Option<String>,
        /// What the file is, told by its content: `csv`, `mdf4`, `vbo`, `mcap`, `adma`.
        pub kind: String,
        /// SHA-256 of the file's bytes, hex (uploads; a second upload of the same file finds it).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub sha256: Option<String>,
        /// The column mapping it was uploaded with, `FIELD=COLUMN[:UNIT]` one per line (served
        /// as a list).
        #[serde(
            skip_serializing_if = "Option::is_none",
            serialize_with = "lines_as_list"
        )]
        pub columns: Option<String>,
    }
}

/// `a\nb` as `["a", "b"]`.
fn lines_as_list<S: serde::Serializer>(v: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    use serde::Serialize;
    v.as_deref()
        .map(|t| t.lines().collect::<Vec<_>>())
        .serialize(s)
}

impl ReplayRow {
    /// The column mapping it was uploaded with, `FIELD=COLUMN[:UNIT]` each.
    pub fn column_specs(&self) -> Vec<String> {
        self.columns
            .as_deref()
            .unwrap_or("")
            .lines()
            .map(str::to_string)
            .collect()
    }
}

row_struct! {
    #[derive(Debug, Clone)]
    pub struct RunRow {
        pub id: String,
        pub state: String,
        pub scenario_id: String,
        pub map_id: Option<String>,
        /// The run's source as JSON text.
        pub source: String,
        /// Real-time factor; `None` = as fast as possible.
        pub speed: Option<f64>,
        pub error: Option<String>,
        pub created_at: DateTime<Utc>,
        pub armed_at: Option<DateTime<Utc>>,
        pub started_at: Option<DateTime<Utc>>,
        pub finished_at: Option<DateTime<Utc>>,
        /// The track the run belongs to (`None`: stored before tracks existed).
        pub track: Option<String>,
        /// A run of the demo (`scil serve --demo`).
        pub demo: bool,
        /// The instance that executes the run (holds its lease; see [`instances`]).
        pub instance: Option<String> = default,
        /// Why the run was aborted, as data: JSON of [`crate::dispatch::events::AbortInfo`].
        pub abort: Option<String> = default,
    }
}

row_struct! {
    #[derive(Debug, Clone, Serialize)]
    pub struct EventRow {
        pub id: i64,
        pub run_id: Option<String>,
        pub t: Option<f64>,
        pub kind: String,
        #[serde(skip)]
        pub payload: String,
        pub created_at: DateTime<Utc>,
        /// The event's link in its run's hash chain ([`chain`]); None: not chained.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub hash: Option<String> = default,
    }
}

/// An event to insert.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub run_id: Option<String>,
    pub t: Option<f64>,
    pub kind: String,
    pub payload: String,
    pub created_at: DateTime<Utc>,
}

row_struct! {
    /// One telemetry record: a VUT sample or a simulated target's state at a VUT sample instant.
    #[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
    pub struct TelemetryRow {
        pub run_id: String,
        pub seq: i64,
        pub t: f64,
        pub vehicle: String,
        /// `vut` or `target`.
        pub kind: String,
        pub x: f64,
        pub y: f64,
        pub yaw: f64,
        pub speed_mps: f64,
        pub steering_wheel_deg: Option<f64>,
        pub brake_light: Option<bool>,
        pub road_id: Option<String>,
        pub lane_id: Option<i32>,
        pub road_s: Option<f64>,
        pub road_t: Option<f64>,
        /// Mean wheel speed from CAN, m/s.
        pub wheel_speed_mps: Option<f64>,
    }
}

pub const TELEMETRY_COLUMNS: &str = "run_id, seq, t, vehicle, kind, x, y, yaw, speed_mps, \
     steering_wheel_deg, brake_light, road_id, lane_id, road_s, road_t, wheel_speed_mps";

/// A connected, migrated store.
#[derive(Clone, Debug)]
pub struct Store {
    pub db: Db,
    /// SQLite: the write-ahead log's path (`<file>-wal`), measured by the writer.
    wal_path: Option<std::path::PathBuf>,
}

/// SQLite's write-ahead log is kept small: an automatic checkpoint every this many pages
/// (SQLite's default is 1000 pages, ~4 MB, which alone filled a 2 MB volume) …
pub const SQLITE_WAL_AUTOCHECKPOINT_PAGES: u32 = 64;
/// … and the log file truncated back to this size after a checkpoint. What stays allocated is
/// reused, so small writes (a run's final state) still fit when the disk is full.
pub const SQLITE_JOURNAL_SIZE_LIMIT: u64 = 256 << 10;

impl Store {
    /// Connects (creating the SQLite file if needed) and applies the migrations.
    pub async fn connect(url: &str) -> anyhow::Result<Store> {
        let mut wal_path = None;
        let db = if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            let pool = PgPoolOptions::new()
                .max_connections(8)
                .acquire_timeout(Duration::from_secs(10))
                .connect(url)
                .await
                .map_err(|e| anyhow::anyhow!("cannot connect to PostgreSQL: {e}"))?;
            migrations::Embedded(migrations::POSTGRES)
                .migrator()
                .await?
                .run(&pool)
                .await
                .map_err(|e| anyhow::anyhow!("PostgreSQL migrations: {e}"))?;
            Db::Postgres(pool)
        } else {
            let opts = SqliteConnectOptions::from_str(url)
                .map_err(|e| anyhow::anyhow!("bad SQLite URL '{url}': {e}"))?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .busy_timeout(Duration::from_secs(10))
                .foreign_keys(true)
                .pragma(
                    "wal_autocheckpoint",
                    SQLITE_WAL_AUTOCHECKPOINT_PAGES.to_string(),
                )
                .pragma("journal_size_limit", SQLITE_JOURNAL_SIZE_LIMIT.to_string());
            let file = opts.get_filename();
            if !file.as_os_str().is_empty() && file != std::path::Path::new(":memory:") {
                let mut p = file.as_os_str().to_owned();
                p.push("-wal");
                wal_path = Some(std::path::PathBuf::from(p));
            }
            let pool = SqlitePoolOptions::new()
                .max_connections(4)
                .connect_with(opts)
                .await
                .map_err(|e| anyhow::anyhow!("cannot open SQLite database '{url}': {e}"))?;
            migrations::Embedded(migrations::SQLITE)
                .migrator()
                .await?
                .run(&pool)
                .await
                .map_err(|e| anyhow::anyhow!("SQLite migrations: {e}"))?;
            Db::Sqlite(pool)
        };
        Ok(Store { db, wal_path })
    }

    pub fn backend(&self) -> &'static str {
        match self.db {
            Db::Sqlite(_) => "sqlite",
            Db::Postgres(_) => "postgres",
        }
    }

    /// SQLite: the write-ahead log's size on disk, bytes (None: PostgreSQL, or no log yet).
    pub fn wal_bytes(&self) -> Option<u64> {
        let p = self.wal_path.as_ref()?;
        std::fs::metadata(p).ok().map(|m| m.len())
    }

    /// SQLite: a checkpoint of the write-ahead log (`PASSIVE` never waits for readers;
    /// `TRUNCATE` waits for them and empties the file). Returns (busy, log frames, frames
    /// checkpointed). PostgreSQL: nothing to do.
    pub async fn checkpoint(&self, truncate: bool) -> StoreResult<Option<(i64, i64, i64)>> {
        match &self.db {
            Db::Sqlite(p) => {
                let sql = if truncate {
                    "PRAGMA wal_checkpoint(TRUNCATE)"
                } else {
                    "PRAGMA wal_checkpoint(PASSIVE)"
                };
                sqlx::query_as::<sqlx::Sqlite, (i64, i64, i64)>(sql)
                    .fetch_optional(p)
                    .await
            }
            Db::Postgres(_) => Ok(None),
        }
    }

    pub async fn ping(&self) -> StoreResult<()> {
        on_db!(&self.db, |p, DB| {
            sqlx::query("SELECT 1").execute(p).await.map(|_| ())
        })
    }

    pub async fn close(&self) {
        on_db!(&self.db, |p, DB| p.close().await)
    }

    // ---- runs ----

    pub async fn insert_run(&self, r: &RunRow) -> StoreResult<()> {
        on_db!(&self.db, |p, DB| {
            run_insert_query!(DB, r).execute(p).await.map(|_| ())
        })
    }

    /// Inserts many runs in one transaction (imports, benchmarks).
    pub async fn insert_runs(&self, runs: &[RunRow]) -> StoreResult<()> {
        on_db!(&self.db, |p, DB| {
            let mut tx = p.begin().await?;
            for chunk in runs.chunks(1000) {
                let mut qb = QueryBuilder::<DB>::new(
                    "INSERT INTO runs (id, state, scenario_id, map_id, source, speed, error, \
                     created_at, armed_at, started_at, finished_at, instance) ",
                );
                qb.push_values(chunk, |mut b, r: &RunRow| {
                    b.push_bind(r.id.as_str())
                        .push_bind(r.state.as_str())
                        .push_bind(r.scenario_id.as_str())
                        .push_bind(r.map_id.as_deref())
                        .push_bind(r.source.as_str())
                        .push_bind(r.speed)
                        .push_bind(r.error.as_deref().map(bound_reason))
                        .push_bind(r.created_at)
                        .push_bind(r.armed_at)
                        .push_bind(r.started_at)
                        .push_bind(r.finished_at)
                        .push_bind(r.instance.as_deref());
                });
                qb.build().execute(&mut *tx).await?;
            }
            tx.commit().await
        })
    }

    /// Writes the run's state and timestamps. A terminal state releases the run's carrier
    /// claims in the same transaction.
    pub async fn update_run(&self, r: &RunRow) -> StoreResult<()> {
        let terminal = matches!(r.state.as_str(), "finished" | "aborted" | "failed");
        on_db!(&self.db, |p, DB| {
            let mut tx = p.begin().await?;
            sqlx::query(
                "UPDATE runs SET state = $2, error = $3, armed_at = $4, started_at = $5, \
                 finished_at = $6, abort = $7 WHERE id = $1",
            )
            .bind(&r.id)
            .bind(&r.state)
            .bind(r.error.as_deref().map(bound_reason))
            .bind(r.armed_at)
            .bind(r.started_at)
            .bind(r.finished_at)
            .bind(&r.abort)
            .execute(&mut *tx)
            .await?;
            if terminal {
                sqlx::query("DELETE FROM carrier_claims WHERE run_id = $1")
                    .bind(&r.id)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await
        })
    }

    pub async fn get_run(&self, id: &str) -> StoreResult<Option<RunRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, RunRow>("SELECT * FROM runs WHERE id = $1")
                .bind(id)
                .fetch_optional(p)
                .await
        })
    }

    /// Newest first.
    pub async fn list_runs(&self, limit: i64) -> StoreResult<Vec<RunRow>> {
        self.list_runs_page(limit, None).await
    }

    /// Newest first, after the key `(created_at, id)` of the previous page's last run when
    /// given (key-based pagination on the index `runs_created_id`: a page costs the same at any
    /// depth).
    pub async fn list_runs_page(
        &self,
        limit: i64,
        after: Option<(DateTime<Utc>, &str)>,
    ) -> StoreResult<Vec<RunRow>> {
        on_db!(&self.db, |p, DB| match after {
            None => {
                sqlx::query_as::<DB, RunRow>(
                    "SELECT * FROM runs ORDER BY created_at DESC, id DESC LIMIT $1",
                )
                .bind(limit)
                .fetch_all(p)
                .await
            }
            Some((at, id)) => {
                sqlx::query_as::<DB, RunRow>(
                    "SELECT * FROM runs WHERE (created_at, id) < ($2, $3) \
                     ORDER BY created_at DESC, id DESC LIMIT $1",
                )
                .bind(limit)
                .bind(at)
                .bind(id)
                .fetch_all(p)
                .await
            }
        })
    }

    // ---- results ----

    pub async fn put_result(&self, run_id: &str, json: &str) -> StoreResult<()> {
        on_db!(&self.db, |p, DB| {
            sqlx::query(
                "INSERT INTO results (run_id, result, created_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (run_id) DO UPDATE SET result = excluded.result",
            )
            .bind(run_id)
            .bind(json)
            .bind(Utc::now())
            .execute(p)
            .await
            .map(|_| ())
        })
    }

    pub async fn get_result(&self, run_id: &str) -> StoreResult<Option<String>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_scalar::<DB, String>("SELECT result FROM results WHERE run_id = $1")
                .bind(run_id)
                .fetch_optional(p)
                .await
        })
    }

    // ---- events ----

    /// Inserts events in one transaction.
    pub async fn insert_events(&self, events: &[NewEvent]) -> StoreResult<()> {
        if events.is_empty() {
            return Ok(());
        }
        on_db!(&self.db, |p, DB| {
            let mut tx = p.begin().await?;
            let hashes = chain_hashes!(DB, tx, events);
            for (chunk, h) in events.chunks(1000).zip(hashes.chunks(1000)) {
                events_insert!(DB, chunk, h)
                    .build()
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await
        })
    }

    pub async fn list_events(
        &self,
        run_id: &str,
        after_id: i64,
        limit: i64,
    ) -> StoreResult<Vec<EventRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, EventRow>(
                "SELECT * FROM events WHERE run_id = $1 AND id > $2 ORDER BY id LIMIT $3",
            )
            .bind(run_id)
            .bind(after_id)
            .bind(limit)
            .fetch_all(p)
            .await
        })
    }

    /// Writes events and telemetry rows in ONE transaction (events are never stored twice: a
    /// failed batch leaves nothing behind and is retried whole). On failure the connection is
    /// not returned to the pool but closed: a connection whose COMMIT or ROLLBACK failed (disk
    /// full) can keep SQLite's write lock, and every later writer then saw "database is locked"
    /// for minutes after the space came back. Closing it releases the lock.
    pub async fn write_batch(&self, events: &[NewEvent], rows: &[TelemetryRow]) -> StoreResult<()> {
        if events.is_empty() && rows.is_empty() {
            return Ok(());
        }
        on_db!(&self.db, |p, DB| {
            use sqlx::Connection;
            let mut conn = p.acquire().await?;
            let res = async {
                let mut tx = conn.begin().await?;
                let hashes = chain_hashes!(DB, tx, events);
                for (chunk, h) in events.chunks(1000).zip(hashes.chunks(1000)) {
                    events_insert!(DB, chunk, h)
                        .build()
                        .execute(&mut *tx)
                        .await?;
                }
                for chunk in rows.chunks(TELEMETRY_ROWS_PER_STATEMENT) {
                    telemetry_insert!(DB, chunk)
                        .build()
                        .execute(&mut *tx)
                        .await?;
                }
                tx.commit().await
            }
            .await;
            if res.is_err() {
                let raw = conn.detach();
                let _ = raw.close().await;
            }
            res
        })
    }

    /// Runs one raw SQL statement (tests use it to simulate an outage by renaming a table).
    pub async fn execute_raw(&self, sql: &str) -> StoreResult<u64> {
        on_db!(&self.db, |p, DB| {
            sqlx::query(sql).execute(p).await.map(|r| r.rows_affected())
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn reasons_are_bounded_on_a_char_boundary() {
        let long = "é".repeat(100_000);
        let b = super::bound_reason(&long);
        assert!(b.len() <= super::MAX_REASON_BYTES, "{}", b.len());
        assert!(b.ends_with('…'));
        assert_eq!(super::bound_reason("short"), "short");
    }
}
