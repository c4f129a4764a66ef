//! The audit trail: one row per request that changed something or tried to (see
//! `serve::audit`). Append-only: nothing in scil updates or deletes an entry.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Db, Store, StoreResult};

row_struct! {
    #[derive(Debug, Clone, Serialize)]
    pub struct AuditEntry {
        pub id: i64,
        pub at: DateTime<Utc>,
        /// A configured name, `unknown token` or `anonymous`.
        pub who: String,
        /// What was asked: `create`, `arm`, `start`, `abort`, `delete`, …
        pub action: String,
        /// What it acted on: `runs/run-…`, `scenarios/cpna`, …
        pub target: String,
        pub method: String,
        pub path: String,
        /// The HTTP status answered (2xx accepted; 401, 403, 409, 422, … refused).
        pub status: i64,
        /// The refusal's reason, or the request's small JSON body.
        pub detail: String,
    }
}

/// A new entry (`id` is given by the database).
#[derive(Debug, Clone)]
pub struct NewAudit {
    pub at: DateTime<Utc>,
    pub who: String,
    pub action: String,
    pub target: String,
    pub method: String,
    pub path: String,
    pub status: i64,
    pub detail: String,
}

/// Which entries `GET /audit` lists.
#[derive(Debug, Clone, Default)]
pub struct AuditFilter {
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    pub who: Option<String>,
    /// Entries after this id (the previous page's `next`).
    pub after: i64,
    pub limit: i64,
}

impl Store {
    pub async fn append_audit(&self, a: &NewAudit) -> StoreResult<()> {
        on_db!(&self.db, |p, DB| {
            sqlx::query(
                "INSERT INTO audit (at, who, action, target, method, path, status, detail) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(a.at)
            .bind(&a.who)
            .bind(&a.action)
            .bind(&a.target)
            .bind(&a.method)
            .bind(&a.path)
            .bind(a.status)
            .bind(&a.detail)
            .execute(p)
            .await
            .map(|_| ())
        })
    }

    /// The accepted entries of one `action`, oldest first.
    pub async fn audit_of_action(&self, action: &str) -> StoreResult<Vec<AuditEntry>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, AuditEntry>(
                "SELECT * FROM audit WHERE action = $1 AND status >= 200 AND status < 300 \
                 ORDER BY id",
            )
            .bind(action)
            .fetch_all(p)
            .await
        })
    }

    /// Oldest first (by id: the order the service recorded them).
    pub async fn list_audit(&self, f: &AuditFilter) -> StoreResult<Vec<AuditEntry>> {
        // Bounds every backend stores (PostgreSQL's timestamps end long before chrono's).
        let since = f.since.unwrap_or(DateTime::<Utc>::UNIX_EPOCH);
        let until = f
            .until
            .unwrap_or_else(|| DateTime::<Utc>::UNIX_EPOCH + chrono::Duration::days(2_900_000));
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, AuditEntry>(
                "SELECT * FROM audit WHERE id > $1 AND at >= $2 AND at <= $3 \
                 AND ($4 IS NULL OR who = $4) ORDER BY id LIMIT $5",
            )
            .bind(f.after)
            .bind(since)
            .bind(until)
            .bind(f.who.as_deref())
            .bind(f.limit)
            .fetch_all(p)
            .await
        })
    }
}
