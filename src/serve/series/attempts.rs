//! The attempts of a test series' points: the outcome of an ended run (only a valid run
//! counts, measured with the quantity code of `scil ncap rehearse`/`fill`), a point's state
//! from its attempts, the watcher that settles an attempt when its run ends, and the recovery
//! at startup of attempts whose run ended while no process watched.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::ncap::quantity::{measure, target_for, Quantity};
use crate::scenario::Scenario;
use crate::serve::error::ApiResult;
use crate::serve::state::AppState;
use crate::store::series::{AttemptRow, PointRow, PointState};

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// `valid`, `invalid` or `failed`.
    pub state: &'static str,
    pub value: Option<f64>,
    pub note: Option<String>,
}

impl Outcome {
    fn failed(note: String) -> Outcome {
        Outcome {
            state: "failed",
            value: None,
            note: Some(note),
        }
    }
}

/// The outcome of an ended run of point `p` (`kind` test or baseline): a run that did not
/// finish failed; a finished one counts only when its validity verdict is valid, and then its
/// value is measured.
pub fn outcome(
    p: &PointRow,
    kind: &str,
    run_state: &str,
    run_error: Option<&str>,
    result: Option<&Value>,
) -> Outcome {
    if run_state != "finished" {
        return Outcome::failed(format!(
            "the run is {run_state}{}",
            run_error.map(|e| format!(": {e}")).unwrap_or_default()
        ));
    }
    let Some(r) = result else {
        return Outcome::failed("the run has no result".into());
    };
    if let Some(e) = r.get("error").and_then(Value::as_str) {
        return Outcome::failed(format!("the run failed: {e}"));
    }
    match r.get("validity").and_then(|v| v.get("valid")) {
        Some(Value::Bool(true)) => {}
        Some(Value::Bool(false)) => {
            let broken: Vec<String> = r["validity"]["checks"]
                .as_array()
                .map(|c| {
                    c.iter()
                        .filter(|c| c["ok"] == false)
                        .map(|c| {
                            format!(
                                "{} (worst {}, limit {})",
                                c["channel"].as_str().unwrap_or("?"),
                                c["worst"]
                                    .as_f64()
                                    .map(|w| format!("{w:.3}"))
                                    .unwrap_or_default(),
                                c["limit"].as_str().unwrap_or("")
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            return Outcome {
                state: "invalid",
                value: None,
                note: Some(if broken.is_empty() {
                    "validity verdict: invalid".into()
                } else {
                    format!("validity verdict: invalid: {}", broken.join("; "))
                }),
            };
        }
        _ => {
            return Outcome {
                state: "invalid",
                value: None,
                note: Some("the run has no validity verdict".into()),
            }
        }
    }
    let q = if kind == "baseline" {
        Some(Quantity::VImpact)
    } else {
        Quantity::parse(&p.expected)
    };
    let Some(q) = q else {
        return Outcome::failed(format!("scil does not measure '{}'", p.expected));
    };
    let sc = match p.scenario_toml.as_deref().map(Scenario::from_toml) {
        Some(Ok(sc)) => sc,
        Some(Err(e)) => return Outcome::failed(format!("the point's scenario: {e}")),
        None => return Outcome::failed("the point has no scenario".into()),
    };
    let Some(target) = target_for(q, &sc) else {
        return Outcome::failed("the scenario has no target".into());
    };
    let nominal = serde_json::from_str::<Value>(&p.params)
        .ok()
        .and_then(|v| v.get("vut_speed_kmh").and_then(Value::as_f64))
        .unwrap_or(0.0);
    match measure(q, r, target, nominal) {
        Ok(v) => Outcome {
            state: "valid",
            value: Some(v),
            note: None,
        },
        Err(e) => Outcome::failed(format!("valid run, but {}: {e}", q.name())),
    }
}

/// A point's state from its attempts: running while one runs; done when a valid test attempt
/// measured its value (and a valid baseline attempt its baseline, when it has one); valid when
/// only the baseline is missing; invalid when the last test attempt was invalid; else planned.
pub fn derive_state(p: &PointRow, attempts: &[AttemptRow]) -> PointState {
    if p.scenario_toml.is_none() {
        return PointState {
            state: "not_runnable".into(),
            value: None,
            baseline_value: None,
        };
    }
    let last_valid = |kind: &str| {
        attempts
            .iter()
            .filter(|a| a.kind == kind && a.state == "valid")
            .filter_map(|a| a.value)
            .next_back()
    };
    let (value, baseline_value) = (last_valid("test"), last_valid("baseline"));
    let needs_baseline = p.baseline_expected.is_some();
    let state = if attempts.iter().any(|a| a.state == "running") {
        "running"
    } else if value.is_some() && (!needs_baseline || baseline_value.is_some()) {
        "done"
    } else if value.is_some() {
        "valid"
    } else if attempts
        .iter()
        .rfind(|a| a.kind == "test" && a.state != "running")
        .is_some_and(|a| a.state == "invalid")
    {
        "invalid"
    } else {
        "planned"
    };
    PointState {
        state: state.into(),
        value,
        baseline_value,
    }
}

/// The run if it has ended and is settled: its row and stored result.
async fn ended(
    st: &AppState,
    run_id: &str,
) -> ApiResult<Option<(crate::store::RunRow, Option<String>)>> {
    let row = match st.supervisor.unsaved.row(run_id) {
        Some(r) => Some(r),
        None => st.store.get_run(run_id).await?,
    };
    let Some(row) = row else {
        return Ok(Some((
            crate::store::RunRow {
                state: "failed".into(),
                error: Some("the run no longer exists".into()),
                ..placeholder_row(run_id)
            },
            None,
        )));
    };
    let terminal = matches!(row.state.as_str(), "finished" | "aborted" | "failed");
    if !terminal || row.finished_at.is_none() {
        return Ok(None);
    }
    let text = match st.supervisor.unsaved.result(run_id) {
        Some(t) => Some(t),
        None => st.store.get_result(run_id).await?,
    };
    Ok(Some((row, text)))
}

fn placeholder_row(id: &str) -> crate::store::RunRow {
    crate::store::RunRow {
        id: id.into(),
        state: String::new(),
        scenario_id: String::new(),
        map_id: None,
        source: String::new(),
        speed: None,
        error: None,
        created_at: Utc::now(),
        armed_at: None,
        started_at: None,
        finished_at: None,
        track: None,
        demo: false,
        instance: None,
        abort: None,
    }
}

/// Settles attempt `a` if its run has ended; true when it is settled (by this call or before).
pub async fn settle_if_ended(st: &AppState, a: &AttemptRow) -> ApiResult<bool> {
    let Some((run, text)) = ended(st, &a.run_id).await? else {
        return Ok(false);
    };
    let Some(p) = st.store.series_point(&a.series_id, a.idx).await? else {
        return Ok(true);
    };
    let result: Option<Value> = text.as_deref().and_then(|t| serde_json::from_str(t).ok());
    let o = outcome(
        &p,
        &a.kind,
        &run.state,
        run.error.as_deref(),
        result.as_ref(),
    );
    let done = AttemptRow {
        state: o.state.into(),
        value: o.value,
        note: o.note,
        ended_at: Some(Utc::now()),
        ..a.clone()
    };
    let mut attempts = st.store.series_attempts(&a.series_id, Some(a.idx)).await?;
    for x in attempts.iter_mut().filter(|x| x.attempt == a.attempt) {
        *x = done.clone();
    }
    let state = derive_state(&p, &attempts);
    st.store.end_attempt(&done, &state).await?;
    Ok(true)
}

/// Waits for attempt `a`'s run to end, then settles it.
pub async fn watch(st: AppState, a: AttemptRow) {
    loop {
        match settle_if_ended(&st, &a).await {
            Ok(true) => return,
            Ok(false) => {}
            Err(e) => tracing::warn!(
                "series {} point {}: attempt {} not settled yet: {e}",
                a.series_id,
                a.idx,
                a.attempt
            ),
        }
        if st.supervisor.is_active(&a.run_id) {
            // Until this process ends the run (the wait returns then), or an hour.
            let _ = st
                .supervisor
                .wait_done(&a.run_id, Duration::from_secs(3600))
                .await;
        }
        // A run of another instance, or one whose final state is still being stored.
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Settles the running attempts of `runs` (runs another instance's lease expiry failed).
pub async fn settle_runs(st: AppState, runs: Vec<String>) {
    let attempts = match st.store.running_attempts().await {
        Ok(a) => a,
        Err(e) => {
            tracing::warn!("test series: cannot read running attempts: {e}");
            return;
        }
    };
    for a in attempts.into_iter().filter(|a| runs.contains(&a.run_id)) {
        if let Err(e) = settle_if_ended(&st, &a).await {
            tracing::warn!(
                "series {} point {}: attempt {} not settled: {e}",
                a.series_id,
                a.idx,
                a.attempt
            );
        }
    }
}

/// At startup: settles the attempts whose run ended while no process watched (a run left
/// running by a stopped process has been failed by then: its point is runnable again), gives
/// back points taken by a request that never recorded its attempt, and watches the attempts of
/// runs still active on another instance.
pub async fn recover(st: &AppState) -> anyhow::Result<()> {
    let running = st.store.running_attempts().await?;
    // A point taken within the last lease may be between its claim and its attempt on a live
    // instance (arming takes seconds): only older claims are left over by a stopped process.
    let lease = chrono::Duration::from_std(st.instance.lease).unwrap_or(chrono::Duration::MAX);
    let before = Utc::now()
        .checked_sub_signed(lease)
        .unwrap_or(DateTime::<Utc>::MIN_UTC);
    for (sid, idx) in st.store.running_points(before).await? {
        if running.iter().any(|a| a.series_id == sid && a.idx == idx) {
            continue;
        }
        if let Some(p) = st.store.series_point(&sid, idx).await? {
            let attempts = st.store.series_attempts(&sid, Some(idx)).await?;
            st.store
                .set_point_state(&sid, idx, &derive_state(&p, &attempts))
                .await?;
        }
    }
    let mut settled = 0;
    for a in running {
        match settle_if_ended(st, &a).await {
            Ok(true) => settled += 1,
            Ok(false) => {
                tokio::spawn(watch(st.clone(), a));
            }
            Err(e) => anyhow::bail!("series {} point {}: {e}", a.series_id, a.idx),
        }
    }
    if settled > 0 {
        tracing::warn!("test series: {settled} attempt(s) of ended runs settled at startup");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn point(baseline: bool) -> PointRow {
        PointRow {
            test_point: Some("(2, 2)".into()),
            baseline_expected: baseline.then(|| "v_impact_baseline".into()),
            prediction: Some("Green".into()),
            params: r#"{"function":"AEB","vut_speed_kmh":30}"#.into(),
            ..PointRow::planned("s", 0)
        }
    }

    fn attempt(n: i64, kind: &str, state: &str, value: Option<f64>) -> AttemptRow {
        AttemptRow {
            series_id: "s".into(),
            idx: 0,
            attempt: n,
            run_id: format!("run-{n}"),
            kind: kind.into(),
            state: state.into(),
            value,
            note: None,
            options: "{}".into(),
            created_at: Utc::now(),
            ended_at: None,
        }
    }

    #[test]
    fn state_follows_the_attempts() {
        let p = point(false);
        assert_eq!(derive_state(&p, &[]).state, "planned");
        let inv = attempt(1, "test", "invalid", None);
        assert_eq!(
            derive_state(&p, std::slice::from_ref(&inv)).state,
            "invalid"
        );
        let run = attempt(2, "test", "running", None);
        assert_eq!(
            derive_state(&p, &[inv.clone(), run]).state,
            "running",
            "a repeat runs"
        );
        let failed = attempt(2, "test", "failed", None);
        assert_eq!(
            derive_state(&p, &[inv.clone(), failed]).state,
            "planned",
            "an interrupted repeat gives the point back"
        );
        let ok = attempt(2, "test", "valid", Some(3.5));
        let s = derive_state(&p, &[inv, ok.clone()]);
        assert_eq!((s.state.as_str(), s.value), ("done", Some(3.5)));
        // With a baseline: valid until the baseline run counts.
        let pb = point(true);
        assert_eq!(derive_state(&pb, std::slice::from_ref(&ok)).state, "valid");
        let b = attempt(3, "baseline", "valid", Some(12.0));
        let s = derive_state(&pb, &[ok, b]);
        assert_eq!((s.state.as_str(), s.baseline_value), ("done", Some(12.0)));
        let mut nr = point(false);
        nr.scenario_toml = None;
        assert_eq!(derive_state(&nr, &[]).state, "not_runnable");
    }

    #[test]
    fn only_a_valid_verdict_counts() {
        let p = point(false);
        let o = outcome(&p, "test", "failed", Some("service restarted"), None);
        assert_eq!(o.state, "failed");
        assert!(o.note.unwrap_or_default().contains("service restarted"));
        let r = json!({"impacts": [], "validity": {"valid": false, "checks": [
            {"channel": "vut_speed", "ok": false, "limit": "nominal 0/+1.0 km/h", "worst": 3.0}]}});
        let o = outcome(&p, "test", "finished", None, Some(&r));
        assert_eq!(o.state, "invalid");
        assert!(
            o.note.unwrap_or_default().contains("vut_speed"),
            "names the channel"
        );
        let r = json!({"impacts": []});
        assert_eq!(
            outcome(&p, "test", "finished", None, Some(&r)).state,
            "invalid"
        );
    }
}
