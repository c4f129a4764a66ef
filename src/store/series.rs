//! Test series (`/series`): a rating-tool workbook, its verification points and every attempt
//! (run) of each point. A series and all its points are inserted in one transaction; an
//! attempt's end and its point's new state are written in one transaction too, so a point's
//! state always agrees with its attempts.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Db, Store, StoreResult};

row_struct! {
    /// A series (the workbook bytes are read only when asked for).
    #[derive(Debug, Clone, Serialize)]
    pub struct SeriesRow {
        pub id: String,
        /// The uploaded file's name.
        pub name: String,
        #[serde(skip)]
        pub workbook: Vec<u8> = default,
        pub workbook_bytes: i64,
        pub map_id: String,
        pub junction_map_id: Option<String>,
        pub track: Option<String>,
        pub points: i64,
        pub runnable: i64,
        pub created_at: DateTime<Utc>,
    }
}

row_struct! {
    /// One verification point of a series.
    #[derive(Debug, Clone, Serialize)]
    pub struct PointRow {
        pub series_id: String,
        pub idx: i64,
        pub sheet: String,
        pub row_no: i64,
        pub scenario: String,
        pub test_point: Option<String>,
        pub expected: String,
        pub baseline_expected: Option<String>,
        pub prediction: Option<String>,
        pub catalogue_row: Option<String>,
        /// The point's parameters as JSON.
        pub params: String,
        /// The scenario to run (TOML); `None` when the point is not runnable.
        pub scenario_toml: Option<String>,
        pub junction: bool,
        pub reason: Option<String>,
        pub state: String,
        pub value: Option<f64>,
        pub baseline_value: Option<f64>,
        pub updated_at: DateTime<Utc>,
    }
}

row_struct! {
    /// One run of a point.
    #[derive(Debug, Clone, Serialize)]
    pub struct AttemptRow {
        pub series_id: String,
        pub idx: i64,
        pub attempt: i64,
        pub run_id: String,
        /// `test` or `baseline`.
        pub kind: String,
        /// `running`, `valid`, `invalid`, `failed`.
        pub state: String,
        pub value: Option<f64>,
        pub note: Option<String>,
        /// The simulation options of the run as JSON.
        pub options: String,
        pub created_at: DateTime<Utc>,
        pub ended_at: Option<DateTime<Utc>>,
    }
}

/// A point's new state with its values.
#[derive(Debug, Clone, PartialEq)]
pub struct PointState {
    pub state: String,
    pub value: Option<f64>,
    pub baseline_value: Option<f64>,
}

const POINT_COLUMNS: &str = "series_id, idx, sheet, row_no, scenario, test_point, expected, \
     baseline_expected, prediction, catalogue_row, params, scenario_toml, junction, reason, \
     state, value, baseline_value, updated_at";

const SERIES_LIST_COLUMNS: &str = "id, name, workbook_bytes, map_id, junction_map_id, track, \
     points, runnable, created_at";

/// `UPDATE series_points …` of one point's state and values.
macro_rules! set_point_query {
    ($DB:ident, $series:expr, $idx:expr, $point:expr) => {{
        let point: &PointState = $point;
        sqlx::query::<$DB>(
            "UPDATE series_points SET state = $3, value = $4, baseline_value = $5, \
             updated_at = $6 WHERE series_id = $1 AND idx = $2",
        )
        .bind($series)
        .bind($idx)
        .bind(point.state.as_str())
        .bind(point.value)
        .bind(point.baseline_value)
        .bind(Utc::now())
    }};
}

impl Store {
    /// Inserts a series with all its points (one transaction: all or nothing).
    pub async fn insert_series(&self, s: &SeriesRow, points: &[PointRow]) -> StoreResult<()> {
        on_db!(&self.db, |p, DB| async {
            let mut tx = p.begin().await?;
            sqlx::query(
                "INSERT INTO series (id, name, workbook, workbook_bytes, map_id, \
                 junction_map_id, track, points, runnable, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            )
            .bind(&s.id)
            .bind(&s.name)
            .bind(&s.workbook)
            .bind(s.workbook_bytes)
            .bind(&s.map_id)
            .bind(&s.junction_map_id)
            .bind(&s.track)
            .bind(s.points)
            .bind(s.runnable)
            .bind(s.created_at)
            .execute(&mut *tx)
            .await?;
            for pt in points {
                sqlx::query(&format!(
                    "INSERT INTO series_points ({POINT_COLUMNS}) VALUES \
                     ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, \
                     $17, $18)"
                ))
                .bind(&pt.series_id)
                .bind(pt.idx)
                .bind(&pt.sheet)
                .bind(pt.row_no)
                .bind(&pt.scenario)
                .bind(&pt.test_point)
                .bind(&pt.expected)
                .bind(&pt.baseline_expected)
                .bind(&pt.prediction)
                .bind(&pt.catalogue_row)
                .bind(&pt.params)
                .bind(&pt.scenario_toml)
                .bind(pt.junction)
                .bind(&pt.reason)
                .bind(&pt.state)
                .bind(pt.value)
                .bind(pt.baseline_value)
                .bind(pt.updated_at)
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await
        }
        .await)
    }

    /// Every series, newest first (without the workbook bytes).
    pub async fn list_series(&self) -> StoreResult<Vec<SeriesRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, SeriesRow>(&format!(
                "SELECT {SERIES_LIST_COLUMNS} FROM series ORDER BY created_at DESC, id"
            ))
            .fetch_all(p)
            .await
        })
    }

    /// Points per state of every series: (series id, state, count).
    pub async fn series_state_counts(&self) -> StoreResult<Vec<(String, String, i64)>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, (String, String, i64)>(
                "SELECT series_id, state, COUNT(*) FROM series_points \
                 GROUP BY series_id, state ORDER BY series_id, state",
            )
            .fetch_all(p)
            .await
        })
    }

    /// One series with its workbook bytes.
    pub async fn get_series(&self, id: &str) -> StoreResult<Option<SeriesRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, SeriesRow>("SELECT * FROM series WHERE id = $1")
                .bind(id)
                .fetch_optional(p)
                .await
        })
    }

    pub async fn series_points(&self, series_id: &str) -> StoreResult<Vec<PointRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, PointRow>(&format!(
                "SELECT {POINT_COLUMNS} FROM series_points WHERE series_id = $1 ORDER BY idx"
            ))
            .bind(series_id)
            .fetch_all(p)
            .await
        })
    }

    pub async fn series_point(&self, series_id: &str, idx: i64) -> StoreResult<Option<PointRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, PointRow>(&format!(
                "SELECT {POINT_COLUMNS} FROM series_points WHERE series_id = $1 AND idx = $2"
            ))
            .bind(series_id)
            .bind(idx)
            .fetch_optional(p)
            .await
        })
    }

    /// The attempts of a series (`idx`: of one point only), in order.
    pub async fn series_attempts(
        &self,
        series_id: &str,
        idx: Option<i64>,
    ) -> StoreResult<Vec<AttemptRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, AttemptRow>(
                "SELECT * FROM series_attempts WHERE series_id = $1 \
                 AND ($2 IS NULL OR idx = $2) ORDER BY idx, attempt",
            )
            .bind(series_id)
            .bind(idx)
            .fetch_all(p)
            .await
        })
    }

    /// Every attempt still `running` (in any series): what a restarted service settles.
    pub async fn running_attempts(&self) -> StoreResult<Vec<AttemptRow>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, AttemptRow>(
                "SELECT * FROM series_attempts WHERE state = 'running' \
                 ORDER BY series_id, idx, attempt",
            )
            .fetch_all(p)
            .await
        })
    }

    /// Points in `running` state (in any series) taken before `before`.
    pub async fn running_points(&self, before: DateTime<Utc>) -> StoreResult<Vec<(String, i64)>> {
        let rows = on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, (String, i64, DateTime<Utc>)>(
                "SELECT series_id, idx, updated_at FROM series_points WHERE state = 'running' \
                 ORDER BY series_id, idx",
            )
            .fetch_all(p)
            .await
        })?;
        Ok(rows
            .into_iter()
            .filter(|(_, _, at)| *at < before)
            .map(|(s, i, _)| (s, i))
            .collect())
    }

    /// Takes a point for a run: `running` when its state is `from` (false when it was not: a
    /// concurrent request took it, or it is done).
    pub async fn claim_series_point(
        &self,
        series_id: &str,
        idx: i64,
        from: &str,
    ) -> StoreResult<bool> {
        on_db!(&self.db, |p, DB| {
            sqlx::query(
                "UPDATE series_points SET state = 'running', updated_at = $4 \
                 WHERE series_id = $1 AND idx = $2 AND state = $3",
            )
            .bind(series_id)
            .bind(idx)
            .bind(from)
            .bind(Utc::now())
            .execute(p)
            .await
            .map(|r| r.rows_affected() == 1)
        })
    }

    /// Stores a new attempt (the point is already `running`).
    pub async fn insert_attempt(&self, a: &AttemptRow) -> StoreResult<()> {
        on_db!(&self.db, |p, DB| {
            sqlx::query(
                "INSERT INTO series_attempts (series_id, idx, attempt, run_id, kind, state, \
                 value, note, options, created_at, ended_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
            )
            .bind(&a.series_id)
            .bind(a.idx)
            .bind(a.attempt)
            .bind(&a.run_id)
            .bind(&a.kind)
            .bind(&a.state)
            .bind(a.value)
            .bind(&a.note)
            .bind(&a.options)
            .bind(a.created_at)
            .bind(a.ended_at)
            .execute(p)
            .await
            .map(|_| ())
        })
    }

    /// Ends a running attempt (`a` with its final state, value and note) and sets its point's
    /// state, in one transaction. False when the attempt was no longer running (settled
    /// already).
    pub async fn end_attempt(&self, a: &AttemptRow, point: &PointState) -> StoreResult<bool> {
        on_db!(&self.db, |p, DB| async {
            let mut tx = p.begin().await?;
            let n = sqlx::query(
                "UPDATE series_attempts SET state = $4, value = $5, note = $6, ended_at = $7 \
                 WHERE series_id = $1 AND idx = $2 AND attempt = $3 AND state = 'running'",
            )
            .bind(&a.series_id)
            .bind(a.idx)
            .bind(a.attempt)
            .bind(&a.state)
            .bind(a.value)
            .bind(&a.note)
            .bind(a.ended_at)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if n != 1 {
                tx.rollback().await?;
                return Ok(false);
            }
            set_point_query!(DB, &a.series_id, a.idx, point)
                .execute(&mut *tx)
                .await?;
            tx.commit().await.map(|()| true)
        }
        .await)
    }

    /// Sets a point's state and values (a run that could not be created gives the point back).
    pub async fn set_point_state(
        &self,
        series_id: &str,
        idx: i64,
        point: &PointState,
    ) -> StoreResult<()> {
        on_db!(&self.db, |p, DB| {
            set_point_query!(DB, series_id, idx, point)
                .execute(p)
                .await
                .map(|_| ())
        })
    }
}

#[cfg(test)]
impl PointRow {
    /// A runnable CCRs point in `planned` state, for tests.
    pub(crate) fn planned(series_id: &str, idx: i64) -> PointRow {
        PointRow {
            series_id: series_id.into(),
            idx,
            sheet: "FC - Car & PTW verif.".into(),
            row_no: 5,
            scenario: "CCRs".into(),
            test_point: None,
            expected: "v_rel_impact".into(),
            baseline_expected: None,
            prediction: None,
            catalogue_row: Some("CCRs".into()),
            params: "{}".into(),
            scenario_toml: Some(String::new()),
            junction: false,
            reason: None,
            state: "planned".into(),
            value: None,
            baseline_value: None,
            updated_at: Utc::now(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A point claimed just now is not left over: its instance may be arming its run.
    #[tokio::test]
    async fn a_fresh_claim_is_not_a_leftover() {
        let dir = std::env::temp_dir().join(format!("scil-series-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("dir");
        let url = format!("sqlite://{}?mode=rwc", dir.join("s.db").display());
        let store = Store::connect(&url).await.expect("store");
        let now = Utc::now();
        let series = SeriesRow {
            id: "s1".into(),
            name: "w.xlsx".into(),
            workbook: vec![1],
            workbook_bytes: 1,
            map_id: "m".into(),
            junction_map_id: None,
            track: None,
            points: 1,
            runnable: 1,
            created_at: now,
        };
        let point = PointRow::planned("s1", 0);
        store
            .insert_series(&series, &[point])
            .await
            .expect("insert");
        assert!(store
            .claim_series_point("s1", 0, "planned")
            .await
            .expect("claim"));
        let lease = chrono::Duration::seconds(15);
        assert!(store
            .running_points(Utc::now() - lease)
            .await
            .expect("list")
            .is_empty());
        let later = Utc::now() + lease;
        assert_eq!(
            store.running_points(later).await.expect("list"),
            vec![("s1".to_string(), 0)]
        );
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
