//! Instances sharing one database: each holds a lease (renewed by its heartbeat) on the runs it
//! executes (`runs.instance`). A run is failed only by its own instance at startup (left over
//! from the instance's previous process) or by any instance once its owner's lease has expired
//! (the owner crashed or lost the database). Times are milliseconds since the Unix epoch.

use serde::Serialize;

use super::{Db, Store, StoreResult};

row_struct! {
    /// One instance's lease.
    #[derive(Debug, Clone, Serialize)]
    pub struct InstanceRow {
        pub id: String,
        pub host: String,
        pub pid: i64,
        pub started_ms: i64,
        pub heartbeat_ms: i64,
        pub lease_until_ms: i64,
    }
}

/// The states a run holds carriers or a source in.
const ACTIVE: &str = "('created', 'armed', 'running')";

impl Store {
    /// Takes (or renews) the lease of instance `r.id` until `r.lease_until_ms`.
    pub async fn put_instance(&self, r: &InstanceRow) -> StoreResult<()> {
        on_db!(&self.db, |p, DB| {
            sqlx::query(
                "INSERT INTO instances (id, host, pid, started_ms, heartbeat_ms, lease_until_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6) \
                 ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid, \
                 started_ms = excluded.started_ms, heartbeat_ms = excluded.heartbeat_ms, \
                 lease_until_ms = excluded.lease_until_ms",
            )
            .bind(&r.id)
            .bind(&r.host)
            .bind(r.pid)
            .bind(r.started_ms)
            .bind(r.heartbeat_ms)
            .bind(r.lease_until_ms)
            .execute(p)
            .await
            .map(|_| ())
        })
    }

    /// Takes the lease of instance `r.id` for process (`r.host`, `r.pid`) in one statement:
    /// when nobody holds it, its lease has expired (before `r.started_ms`), this process holds
    /// it already, or `take_over`. False when another process's live lease stands.
    pub async fn claim_instance(&self, r: &InstanceRow, take_over: bool) -> StoreResult<bool> {
        on_db!(&self.db, |p, DB| {
            sqlx::query(
                "INSERT INTO instances (id, host, pid, started_ms, heartbeat_ms, lease_until_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6) \
                 ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid, \
                 started_ms = excluded.started_ms, heartbeat_ms = excluded.heartbeat_ms, \
                 lease_until_ms = excluded.lease_until_ms \
                 WHERE instances.lease_until_ms < excluded.started_ms \
                 OR (instances.host = excluded.host AND instances.pid = excluded.pid) OR $7",
            )
            .bind(&r.id)
            .bind(&r.host)
            .bind(r.pid)
            .bind(r.started_ms)
            .bind(r.heartbeat_ms)
            .bind(r.lease_until_ms)
            .bind(take_over)
            .execute(p)
            .await
            .map(|q| q.rows_affected() == 1)
        })
    }

    /// The heartbeat: extends instance `id`'s lease held by process (`host`, `pid`); false when
    /// its row is gone or another process has taken it over.
    pub async fn renew_instance(
        &self,
        id: &str,
        (host, pid): (&str, i64),
        now_ms: i64,
        until_ms: i64,
    ) -> StoreResult<bool> {
        on_db!(&self.db, |p, DB| {
            sqlx::query(
                "UPDATE instances SET heartbeat_ms = $2, lease_until_ms = $3 \
                 WHERE id = $1 AND host = $4 AND pid = $5",
            )
            .bind(id)
            .bind(now_ms)
            .bind(until_ms)
            .bind(host)
            .bind(pid)
            .execute(p)
            .await
            .map(|r| r.rows_affected() == 1)
        })
    }

    pub async fn get_instance(&self, id: &str) -> StoreResult<Option<InstanceRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, InstanceRow>("SELECT * FROM instances WHERE id = $1")
                .bind(id)
                .fetch_optional(p)
                .await
        })
    }

    pub async fn list_instances(&self) -> StoreResult<Vec<InstanceRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, InstanceRow>("SELECT * FROM instances ORDER BY id")
                .fetch_all(p)
                .await
        })
    }

    /// At startup of instance `me`: fails its own unfinished runs (its previous process is
    /// gone), runs without an owner (written before instances existed) and runs whose owner's
    /// lease expired before `now_ms`. Returns (run id, owner) of each.
    pub async fn fail_runs_at_startup(
        &self,
        me: &str,
        now_ms: i64,
        finished_at: chrono::DateTime<chrono::Utc>,
    ) -> StoreResult<Vec<(String, Option<String>)>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, (String, Option<String>)>(&format!(
                "UPDATE runs SET state = 'failed', finished_at = $3, error = CASE \
                 WHEN instance = $1 THEN 'instance ' || instance || ' restarted while the run was active' \
                 WHEN instance IS NULL THEN 'service restarted while the run was active' \
                 ELSE 'instance ' || instance || ' stopped renewing its lease while the run was active (crashed or cut off from the database)' END \
                 WHERE state IN {ACTIVE} AND (instance IS NULL OR instance = $1 OR instance NOT IN \
                 (SELECT id FROM instances WHERE lease_until_ms >= $2)) RETURNING id, instance"
            ))
            .bind(me)
            .bind(now_ms)
            .bind(finished_at)
            .fetch_all(p)
            .await
        })
    }

    /// The periodic sweep of instance `me`: fails other instances' unfinished runs whose
    /// owner's lease expired before `now_ms`. Returns (run id, owner) of each.
    pub async fn fail_expired_runs(
        &self,
        me: &str,
        now_ms: i64,
        finished_at: chrono::DateTime<chrono::Utc>,
    ) -> StoreResult<Vec<(String, Option<String>)>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, (String, Option<String>)>(&format!(
                "UPDATE runs SET state = 'failed', finished_at = $3, error = 'instance ' || instance || \
                 ' stopped renewing its lease while the run was active (crashed or cut off from the database)' \
                 WHERE state IN {ACTIVE} AND instance IS NOT NULL AND instance <> $1 AND instance NOT IN \
                 (SELECT id FROM instances WHERE lease_until_ms >= $2) RETURNING id, instance"
            ))
            .bind(me)
            .bind(now_ms)
            .bind(finished_at)
            .fetch_all(p)
            .await
        })
    }
}
