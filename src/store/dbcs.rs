//! DBC files registered with the service (CAN sources of runs name one by id).

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Db, Store, StoreResult};

row_struct! {
    #[derive(Debug, Clone, Serialize)]
    pub struct DbcRow {
        pub id: String,
        pub name: String,
        pub file_name: String,
        #[serde(skip)]
        pub text: String,
        pub bytes: i64,
        /// Messages the DBC defines.
        pub messages: i64,
        pub bundled: bool,
        pub created_at: DateTime<Utc>,
    }
}

impl Store {
    /// Inserts or updates (bundled data, registered again at every start).
    pub async fn upsert_dbc(&self, r: &DbcRow) -> StoreResult<()> {
        self.write_dbc(
            r,
            "ON CONFLICT (id) DO UPDATE SET name = excluded.name, file_name = excluded.file_name, \
                 text = excluded.text, bytes = excluded.bytes, messages = excluded.messages",
        )
        .await
    }

    /// Inserts; a dbc with the same id is a unique violation ([`super::is_unique_violation`]).
    pub async fn insert_dbc(&self, r: &DbcRow) -> StoreResult<()> {
        self.write_dbc(r, "").await
    }

    async fn write_dbc(&self, r: &DbcRow, on_conflict: &str) -> StoreResult<()> {
        on_db!(&self.db, |p, DB| {
            sqlx::query(&format!(
                "INSERT INTO dbcs (id, name, file_name, text, bytes, messages, bundled, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8) {on_conflict}"
            ))
            .bind(&r.id)
            .bind(&r.name)
            .bind(&r.file_name)
            .bind(&r.text)
            .bind(r.bytes)
            .bind(r.messages)
            .bind(r.bundled)
            .bind(r.created_at)
            .execute(p)
            .await
            .map(|_| ())
        })
    }

    pub async fn list_dbcs(&self) -> StoreResult<Vec<DbcRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, DbcRow>("SELECT * FROM dbcs ORDER BY bundled DESC, created_at, id")
                .fetch_all(p)
                .await
        })
    }

    pub async fn get_dbc(&self, id: &str) -> StoreResult<Option<DbcRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, DbcRow>("SELECT * FROM dbcs WHERE id = $1")
                .bind(id)
                .fetch_optional(p)
                .await
        })
    }
}
