//! The inputs of runs: maps, scenarios and replays, each a row naming its stored file.

use super::{Db, MapRow, ReplayRow, ScenarioRow, Store, StoreResult};

impl Store {
    // ---- maps ----

    /// Inserts or updates (bundled data, registered again at every start).
    pub async fn upsert_map(&self, m: &MapRow) -> StoreResult<()> {
        self.write_map(
            m,
            "ON CONFLICT (id) DO UPDATE SET name = excluded.name, file_name = excluded.file_name, \
                 xodr = excluded.xodr, bytes = excluded.bytes, roads = excluded.roads, \
                 geo_reference = excluded.geo_reference",
        )
        .await
    }

    /// Inserts; a map with the same id is a unique violation ([`is_unique_violation`]).
    pub async fn insert_map(&self, m: &MapRow) -> StoreResult<()> {
        self.write_map(m, "").await
    }

    async fn write_map(&self, m: &MapRow, on_conflict: &str) -> StoreResult<()> {
        on_db!(&self.db, |p, DB| {
            sqlx::query(&format!(
                "INSERT INTO maps (id, name, file_name, xodr, bytes, roads, geo_reference, bundled, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) {on_conflict}"
            ))
            .bind(&m.id)
            .bind(&m.name)
            .bind(&m.file_name)
            .bind(&m.xodr)
            .bind(m.bytes)
            .bind(m.roads)
            .bind(&m.geo_reference)
            .bind(m.bundled)
            .bind(m.created_at)
            .execute(p)
            .await
            .map(|_| ())
        })
    }

    /// The ids of the registered maps (what a scenario's `map_id` may name).
    pub async fn map_ids(&self) -> StoreResult<Vec<String>> {
        Ok(self.list_maps().await?.into_iter().map(|m| m.id).collect())
    }

    pub async fn list_maps(&self) -> StoreResult<Vec<MapRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, MapRow>("SELECT * FROM maps ORDER BY id")
                .fetch_all(p)
                .await
        })
    }

    pub async fn get_map(&self, id: &str) -> StoreResult<Option<MapRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, MapRow>("SELECT * FROM maps WHERE id = $1")
                .bind(id)
                .fetch_optional(p)
                .await
        })
    }

    // ---- scenarios ----

    /// Inserts or updates (bundled data, registered again at every start).
    pub async fn upsert_scenario(&self, s: &ScenarioRow) -> StoreResult<()> {
        self.write_scenario(
            s,
            "ON CONFLICT (id) DO UPDATE SET name = excluded.name, map_id = excluded.map_id, \
                 toml = excluded.toml",
        )
        .await
    }

    /// Inserts; a scenario with the same id is a unique violation ([`is_unique_violation`]).
    pub async fn insert_scenario(&self, s: &ScenarioRow) -> StoreResult<()> {
        self.write_scenario(s, "").await
    }

    async fn write_scenario(&self, s: &ScenarioRow, on_conflict: &str) -> StoreResult<()> {
        on_db!(&self.db, |p, DB| {
            sqlx::query(&format!(
                "INSERT INTO scenarios (id, name, map_id, toml, bundled, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6) {on_conflict}"
            ))
            .bind(&s.id)
            .bind(&s.name)
            .bind(&s.map_id)
            .bind(&s.toml)
            .bind(s.bundled)
            .bind(s.created_at)
            .execute(p)
            .await
            .map(|_| ())
        })
    }

    pub async fn list_scenarios(&self) -> StoreResult<Vec<ScenarioRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, ScenarioRow>("SELECT * FROM scenarios ORDER BY id")
                .fetch_all(p)
                .await
        })
    }

    pub async fn get_scenario(&self, id: &str) -> StoreResult<Option<ScenarioRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, ScenarioRow>("SELECT * FROM scenarios WHERE id = $1")
                .bind(id)
                .fetch_optional(p)
                .await
        })
    }

    // ---- replays ----

    /// Inserts or updates (bundled data, registered again at every start).
    pub async fn upsert_replay(&self, r: &ReplayRow) -> StoreResult<()> {
        self.write_replay(
            r,
            "ON CONFLICT (id) DO UPDATE SET name = excluded.name, scenario_id = excluded.scenario_id, \
                 path = excluded.path, bytes = excluded.bytes, row_count = excluded.row_count, \
                 map_id = excluded.map_id, kind = excluded.kind, sha256 = excluded.sha256, \
                 columns = excluded.columns",
        )
        .await
    }

    /// Inserts; a replay with the same id is a unique violation ([`is_unique_violation`]).
    pub async fn insert_replay(&self, r: &ReplayRow) -> StoreResult<()> {
        self.write_replay(r, "").await
    }

    async fn write_replay(&self, r: &ReplayRow, on_conflict: &str) -> StoreResult<()> {
        on_db!(&self.db, |p, DB| {
            sqlx::query(&format!(
                "INSERT INTO replays (id, name, scenario_id, path, bytes, row_count, bundled, created_at, map_id, kind, sha256, columns) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) {on_conflict}"
            ))
            .bind(&r.id)
            .bind(&r.name)
            .bind(&r.scenario_id)
            .bind(&r.path)
            .bind(r.bytes)
            .bind(r.row_count)
            .bind(r.bundled)
            .bind(r.created_at)
            .bind(&r.map_id)
            .bind(&r.kind)
            .bind(&r.sha256)
            .bind(&r.columns)
            .execute(p)
            .await
            .map(|_| ())
        })
    }

    pub async fn list_replays(&self) -> StoreResult<Vec<ReplayRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, ReplayRow>(
                "SELECT * FROM replays ORDER BY bundled DESC, created_at, id",
            )
            .fetch_all(p)
            .await
        })
    }

    /// An uploaded replay with these bytes (by SHA-256), the oldest first.
    pub async fn replay_by_sha256(&self, sha256: &str) -> StoreResult<Option<ReplayRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, ReplayRow>(
                "SELECT * FROM replays WHERE sha256 = $1 ORDER BY created_at, id LIMIT 1",
            )
            .bind(sha256)
            .fetch_optional(p)
            .await
        })
    }

    pub async fn get_replay(&self, id: &str) -> StoreResult<Option<ReplayRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, ReplayRow>("SELECT * FROM replays WHERE id = $1")
                .bind(id)
                .fetch_optional(p)
                .await
        })
    }
}
