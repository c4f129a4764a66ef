//! A run's telemetry rows: stored in batches, read back by time, counted and deleted.

use super::{
    Db, Store, StoreResult, TelemetryRow, TELEMETRY_COLUMNS, TELEMETRY_ROWS_PER_STATEMENT,
};
use sqlx::QueryBuilder;

impl Store {
    /// Inserts telemetry rows in one transaction with multi-row INSERTs. Idempotent: rows already
    /// stored (same run and sequence number) are skipped, so a batch can be retried safely.
    pub async fn insert_telemetry(&self, rows: &[TelemetryRow]) -> StoreResult<()> {
        if rows.is_empty() {
            return Ok(());
        }
        on_db!(&self.db, |p, DB| {
            let mut tx = p.begin().await?;
            for chunk in rows.chunks(TELEMETRY_ROWS_PER_STATEMENT) {
                telemetry_insert!(DB, chunk)
                    .build()
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await
        })
    }

    /// Telemetry of a run with `from ≤ t ≤ to` (sample time), in recording order.
    pub async fn telemetry(
        &self,
        run_id: &str,
        from: Option<f64>,
        to: Option<f64>,
        limit: i64,
    ) -> StoreResult<Vec<TelemetryRow>> {
        let from = from.unwrap_or(-1e300);
        let to = to.unwrap_or(1e300);
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, TelemetryRow>(&format!(
                "SELECT {TELEMETRY_COLUMNS} FROM telemetry WHERE run_id = $1 AND t >= $2 AND t <= $3 \
                 ORDER BY seq LIMIT $4"
            ))
            .bind(run_id)
            .bind(from)
            .bind(to)
            .bind(limit)
            .fetch_all(p)
            .await
        })
    }

    pub async fn telemetry_count(&self, run_id: &str) -> StoreResult<i64> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_scalar::<DB, i64>("SELECT COUNT(*) FROM telemetry WHERE run_id = $1")
                .bind(run_id)
                .fetch_one(p)
                .await
        })
    }

    /// Deletes a run's telemetry (benchmarks clean up after themselves).
    pub async fn delete_telemetry(&self, run_id: &str) -> StoreResult<u64> {
        on_db!(&self.db, |p, DB| {
            sqlx::query("DELETE FROM telemetry WHERE run_id = $1")
                .bind(run_id)
                .execute(p)
                .await
                .map(|r| r.rows_affected())
        })
    }
}
