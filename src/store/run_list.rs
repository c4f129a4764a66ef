//! Run lists by track, activity and demo flag, the demo's bounded history (older demo runs
//! deleted with their telemetry, events and results), and a run's trace for a late joiner of
//! the live view (only the columns it draws).

use sqlx::QueryBuilder;

use super::{Db, RunRow, Store, StoreResult};

/// Which runs `GET /runs` lists (every field optional; newest first).
#[derive(Debug, Clone, Default)]
pub struct RunFilter {
    /// `true`: only created/armed/running runs; `false`: only terminal ones.
    pub active: Option<bool>,
    /// `false`: hide demo runs; `true`: only demo runs.
    pub demo: Option<bool>,
    pub track: Option<String>,
    pub limit: i64,
}

row_struct! {
    /// One stored sample as the live view draws it.
    #[derive(Debug, Clone)]
    pub struct TraceRow {
        pub t: f64,
        pub vehicle: String,
        pub kind: String,
        pub x: f64,
        pub y: f64,
        pub yaw: f64,
        pub speed_mps: f64,
        pub brake_light: Option<bool>,
    }
}

const ACTIVE_STATES: &str = "('created', 'armed', 'running')";

impl Store {
    /// Runs matching `f`, newest first.
    pub async fn list_runs_filtered(&self, f: &RunFilter) -> StoreResult<Vec<RunRow>> {
        on_db!(&self.db, |p, DB| {
            let mut qb = QueryBuilder::<DB>::new("SELECT * FROM runs WHERE 1 = 1");
            match f.active {
                Some(true) => {
                    qb.push(format!(" AND state IN {ACTIVE_STATES}"));
                }
                Some(false) => {
                    qb.push(format!(" AND state NOT IN {ACTIVE_STATES}"));
                }
                None => {}
            }
            if let Some(d) = f.demo {
                qb.push(" AND demo = ").push_bind(d);
            }
            if let Some(t) = &f.track {
                qb.push(" AND track = ").push_bind(t.as_str());
            }
            qb.push(" ORDER BY created_at DESC, id DESC LIMIT ")
                .push_bind(f.limit);
            qb.build_query_as::<RunRow>().fetch_all(p).await
        })
    }

    /// A run's samples in recording order, the live view's columns only.
    pub async fn trace(&self, run_id: &str) -> StoreResult<Vec<TraceRow>> {
        let from_chunks = |rows: Vec<super::TelemetryRow>| -> Vec<TraceRow> {
            rows.into_iter()
                .map(|r| TraceRow {
                    t: r.t,
                    vehicle: r.vehicle,
                    kind: r.kind,
                    x: r.x,
                    y: r.y,
                    yaw: r.yaw,
                    speed_mps: r.speed_mps,
                    brake_light: r.brake_light,
                })
                .collect()
        };
        if self.archive_info(run_id).await?.is_some() {
            return Ok(from_chunks(self.run_telemetry(run_id).await?));
        }
        let rows = on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, TraceRow>(
                "SELECT t, vehicle, kind, x, y, yaw, speed_mps, brake_light FROM telemetry \
                 WHERE run_id = $1 ORDER BY seq",
            )
            .bind(run_id)
            .fetch_all(p)
            .await
        })?;
        // No rows: perhaps compacted meanwhile.
        if rows.is_empty() && self.archive_info(run_id).await?.is_some() {
            return Ok(from_chunks(self.run_telemetry(run_id).await?));
        }
        Ok(rows)
    }

    /// Keeps the newest `keep` demo runs: older terminal demo runs are deleted with their
    /// telemetry, events and results (one transaction). Answers the deleted run ids.
    pub async fn prune_demo_runs(&self, keep: u32) -> StoreResult<Vec<String>> {
        on_db!(&self.db, |p, DB| {
            let mut tx = p.begin().await?;
            let ids: Vec<String> = sqlx::query_scalar::<DB, String>(&format!(
                "SELECT id FROM runs WHERE demo = $1 AND state NOT IN {ACTIVE_STATES} \
                 AND id NOT IN (SELECT id FROM runs WHERE demo = $1 \
                 ORDER BY created_at DESC, id DESC LIMIT $2)"
            ))
            .bind(true)
            .bind(i64::from(keep))
            .fetch_all(&mut *tx)
            .await?;
            for id in &ids {
                drop_chunks!(DB, tx, id);
                for table in ["telemetry", "events", "results"] {
                    sqlx::query(&format!("DELETE FROM {table} WHERE run_id = $1"))
                        .bind(id)
                        .execute(&mut *tx)
                        .await?;
                }
                sqlx::query("DELETE FROM runs WHERE id = $1")
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            Ok(ids)
        })
    }
}
