//! A run's telemetry: rows stored in batches; read back by time, counted and deleted wherever
//! they are (rows of a live run, chunks of a compacted one: [`super::telemetry_archive`]).

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
        let chunked = |all: Vec<TelemetryRow>| -> Vec<TelemetryRow> {
            let whole = all.len() as i64 <= limit && all.iter().all(|r| r.t >= from && r.t <= to);
            if whole {
                return all;
            }
            all.into_iter()
                .filter(|r| r.t >= from && r.t <= to)
                .take(usize::try_from(limit).unwrap_or(0))
                .collect()
        };
        if self.archive_info(run_id).await?.is_some() {
            return Ok(chunked(self.run_telemetry(run_id).await?));
        }
        let rows = on_db!(&self.db, |p, DB| {
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
        })?;
        // No rows: perhaps compacted meanwhile.
        if rows.is_empty() && self.archive_info(run_id).await?.is_some() {
            return Ok(chunked(self.run_telemetry(run_id).await?));
        }
        Ok(rows)
    }

    /// Samples of a run, wherever they are stored.
    pub async fn telemetry_count(&self, run_id: &str) -> StoreResult<i64> {
        let rows = on_db!(&self.db, |p, DB| {
            sqlx::query_scalar::<DB, i64>("SELECT COUNT(*) FROM telemetry WHERE run_id = $1")
                .bind(run_id)
                .fetch_one(p)
                .await
        })?;
        match self.archive_info(run_id).await? {
            None => Ok(rows),
            Some(a) if rows == 0 => Ok(a.samples),
            // Rows beside the chunks (written back after the compaction): count them once.
            Some(_) => Ok(self.run_telemetry(run_id).await?.len() as i64),
        }
    }

    /// Deletes a run's telemetry, rows and chunks (benchmarks clean up after themselves).
    /// Answers the rows deleted.
    pub async fn delete_telemetry(&self, run_id: &str) -> StoreResult<u64> {
        on_db!(&self.db, |p, DB| {
            let mut tx = p.begin().await?;
            drop_chunks!(DB, tx, run_id);
            let n = sqlx::query("DELETE FROM telemetry WHERE run_id = $1")
                .bind(run_id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            tx.commit().await?;
            Ok(n)
        })
    }
}
