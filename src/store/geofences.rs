//! Maps' geofences set over the API (`PUT /maps/{id}/geofence`), as JSON text.

use super::{Db, Store, StoreResult};

impl Store {
    /// A map's geofence JSON, if one was set.
    pub async fn get_geofence(&self, map_id: &str) -> StoreResult<Option<String>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_scalar::<DB, String>("SELECT geofence FROM map_geofences WHERE map_id = $1")
                .bind(map_id)
                .fetch_optional(p)
                .await
        })
    }

    /// Sets (or replaces) a map's geofence JSON.
    pub async fn put_geofence(&self, map_id: &str, json: &str) -> StoreResult<()> {
        on_db!(&self.db, |p, DB| {
            sqlx::query(
                "INSERT INTO map_geofences (map_id, geofence) VALUES ($1, $2) \
                 ON CONFLICT (map_id) DO UPDATE SET geofence = excluded.geofence",
            )
            .bind(map_id)
            .bind(json)
            .execute(p)
            .await
            .map(|_| ())
        })
    }

    /// Removes a map's geofence; true when there was one.
    pub async fn delete_geofence(&self, map_id: &str) -> StoreResult<bool> {
        on_db!(&self.db, |p, DB| {
            sqlx::query("DELETE FROM map_geofences WHERE map_id = $1")
                .bind(map_id)
                .execute(p)
                .await
                .map(|r| r.rows_affected() > 0)
        })
    }
}
