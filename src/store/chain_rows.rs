//! A run's stored chain as the checks of [`super::chain`] read it: the run's head and length,
//! its events in order, and the digest of its telemetry.

use super::{chain, Db, Store, StoreResult, TelemetryRow, TELEMETRY_COLUMNS};

impl Store {
    /// A run's chain as the run keeps it: (unchained, head, length); None: no such run.
    pub async fn run_chain(
        &self,
        run_id: &str,
    ) -> StoreResult<Option<(bool, Option<String>, i64)>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, (bool, Option<String>, i64)>(
                "SELECT unchained, chain_head, chain_len FROM runs WHERE id = $1",
            )
            .bind(run_id)
            .fetch_optional(p)
            .await
        })
    }

    /// Every event of a run, in order, as the chain checks read them.
    pub async fn chain_events(&self, run_id: &str) -> StoreResult<Vec<chain::ChainEvent>> {
        let mut out = Vec::new();
        let mut after = 0;
        loop {
            let page = self.list_events(run_id, after, 5000).await?;
            let Some(last) = page.last() else {
                return Ok(out);
            };
            after = last.id;
            out.extend(page.into_iter().map(|e| chain::ChainEvent {
                id: e.id,
                run_id: e.run_id.unwrap_or_default(),
                t: e.t,
                kind: e.kind,
                payload: e.payload,
                created_at: chain::time_text(e.created_at),
                hash: e.hash,
            }));
        }
    }

    /// The SHA-256 of a run's stored telemetry (one JSON line per row in `seq` order) and its
    /// row count, read page by page.
    pub async fn telemetry_digest(&self, run_id: &str) -> StoreResult<(String, u64)> {
        let from_chunks = |rows: Vec<TelemetryRow>| {
            let mut d = chain::TelemetryDigest::default();
            for r in &rows {
                d.add(r);
            }
            let n = d.rows;
            (d.finish(), n)
        };
        if self.archive_info(run_id).await?.is_some() {
            return Ok(from_chunks(self.run_telemetry(run_id).await?));
        }
        let mut d = chain::TelemetryDigest::default();
        let mut after = i64::MIN;
        loop {
            let page = on_db!(&self.db, |p, DB| {
                sqlx::query_as::<DB, TelemetryRow>(&format!(
                    "SELECT {TELEMETRY_COLUMNS} FROM telemetry WHERE run_id = $1 AND seq > $2 \
                     ORDER BY seq LIMIT 10000"
                ))
                .bind(run_id)
                .bind(after)
                .fetch_all(p)
                .await
            })?;
            let Some(last) = page.last() else {
                // The rows ran out: perhaps the run was compacted meanwhile (its rows deleted
                // between two pages); then the chunks hold them all.
                if self.archive_info(run_id).await?.is_some() {
                    return Ok(from_chunks(self.run_telemetry(run_id).await?));
                }
                let rows = d.rows;
                return Ok((d.finish(), rows));
            };
            after = last.seq;
            for r in &page {
                d.add(r);
            }
        }
    }
}
