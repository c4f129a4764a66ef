//! Running a point of a test series: `POST /series/{id}/points/{point}/run` creates and starts
//! a run of the point's scenario through the run supervisor (the simulated VUT by default),
//! records it as the point's next attempt, and a watcher ([`crate::serve::attempts`]) settles the
//! attempt when the run ends. Every attempt is kept.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use serde::Deserialize;
use serde_json::{json, Value};

use super::attempts::watch;
use crate::ncap::plan::{Function, PointParams};
use crate::ncap::quantity::Quantity;
use crate::ncap::rehearse::{sim_options, Systems};
use crate::run::source::inject::Injection;
use crate::serve::auth::Operator;
use crate::serve::context::scenario_row;
use crate::serve::error::{ApiError, ApiResult};
use crate::serve::hub::run_json;
use crate::serve::runs::SpeedArg;
use crate::serve::state::AppState;
use crate::serve::supervisor::{NewRun, RunSource};
use crate::sim::{AebParams, ElkParams, FcwParams, SimOptions};
use crate::store::series::{AttemptRow, PointRow, PointState, SeriesRow};

/// The optional body of a point's run.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunPoint {
    /// The simulated VUT's AEB for AEB points (default ttc 1.2 s, 8 m/s², 150 ms).
    #[serde(default)]
    pub aeb: Option<AebParams>,
    /// The simulated VUT's forward collision warning for FCW points (default ttc 2.0 s).
    #[serde(default)]
    pub fcw: Option<FcwParams>,
    /// The simulated VUT's emergency lane keeping for road-edge points (default tlc 0.3 s,
    /// 3 m/s², 100 ms).
    #[serde(default)]
    pub elk: Option<ElkParams>,
    /// Real-time factor or `"max"` (default 1: real time).
    #[serde(default)]
    pub speed: Option<SpeedArg>,
    /// Drive the simulated VUT at this speed instead of the point's (a driver off the
    /// nominal speed: the validity verdict judges it).
    #[serde(default)]
    pub vut_speed_kmh: Option<f64>,
    /// Noise, dropout and latency on the VUT's telemetry.
    #[serde(default)]
    pub injection: Option<Injection>,
    /// Simulation step, ms.
    #[serde(default)]
    pub step_ms: Option<f64>,
    /// Record the run to MCAP.
    #[serde(default)]
    pub record: bool,
    /// The point's state the operator saw: 409 when it has moved on since.
    #[serde(default)]
    pub expect_state: Option<String>,
    /// On the ground: the real VUT's live source instead of the simulated VUT
    /// (`{"kind":"ncom","bind":"0.0.0.0:3000"}` or `{"kind":"json",…}`, as for a run).
    #[serde(default)]
    pub source: Option<Value>,
    /// On the ground: the real carriers (ISO 22133), as for a run.
    #[serde(default)]
    pub carriers: Vec<crate::serve::supervisor::CarrierSpec>,
    /// On the ground: live CAN fused with the source, as for a run.
    #[serde(default)]
    pub can: Option<crate::run::CanSpec>,
    /// Which DBC signals feed which fields, as for a run.
    #[serde(default)]
    pub can_mapping: Option<crate::ingest::can::CanMapping>,
    /// On the ground with objects (carriers with `drives`): drive them back to their start
    /// poses when the run has ended.
    #[serde(default)]
    pub return_to_start: bool,
    /// `false`: create the point's run and leave arming and starting it to the operator
    /// (`POST /runs/{id}/arm`, `…/start`), as on the ground between two points; its objects
    /// that stand elsewhere (their last positions known) first drive to its start poses.
    /// Default: arm and start at once.
    #[serde(default)]
    pub start: Option<bool>,
}

impl RunPoint {
    /// The live source of a ground run, `None` for the simulated VUT. The simulated VUT's
    /// options make no sense with a real VUT and are refused with it.
    fn ground_source(&self) -> ApiResult<Option<RunSource>> {
        let Some(v) = &self.source else {
            if !self.carriers.is_empty() || self.can.is_some() {
                return Err(ApiError::Unprocessable(
                    "carriers and can belong to a ground run: give the real VUT's \"source\" too"
                        .into(),
                ));
            }
            return Ok(None);
        };
        let src: RunSource = serde_json::from_value(v.clone())
            .map_err(|e| ApiError::Unprocessable(format!("source: {e}")))?;
        if !src.is_live() {
            return Err(ApiError::Unprocessable(
                "source: a point runs on the simulated VUT (no source) or on the ground with a live source (ncom or json)".into(),
            ));
        }
        let sim_only = [
            ("aeb", self.aeb.is_some()),
            ("fcw", self.fcw.is_some()),
            ("elk", self.elk.is_some()),
            ("vut_speed_kmh", self.vut_speed_kmh.is_some()),
            ("injection", self.injection.is_some()),
            ("step_ms", self.step_ms.is_some()),
        ];
        if let Some((k, _)) = sim_only.iter().find(|(_, set)| *set) {
            return Err(ApiError::Unprocessable(format!(
                "{k} drives the simulated VUT: not with a live source"
            )));
        }
        if matches!(self.can, Some(crate::run::CanSpec::Candump { .. })) {
            return Err(ApiError::Unprocessable(
                "a ground run fuses live CAN (cannelloni or socketcan), not a log file".into(),
            ));
        }
        Ok(Some(src))
    }
}

/// The id of the scenario a point's runs use.
pub fn scenario_id(series_id: &str, idx: i64) -> String {
    format!("{series_id}.p{idx:03}")
}

fn parse_body(body: &Bytes) -> ApiResult<RunPoint> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(RunPoint::default());
    }
    // A JSON object only: serde would also read a struct from an array of its fields.
    let v: Value =
        serde_json::from_slice(body).map_err(|e| ApiError::Unprocessable(format!("body: {e}")))?;
    if !v.is_object() {
        return Err(ApiError::Unprocessable(
            "body: expected a JSON object (or no body)".into(),
        ));
    }
    serde_json::from_value(v).map_err(|e| ApiError::Unprocessable(format!("body: {e}")))
}

/// The simulation options of a point's run.
pub fn options_of(p: &PointRow, body: &RunPoint, baseline: bool) -> ApiResult<SimOptions> {
    let pp: PointParams = serde_json::from_str::<Value>(&p.params)
        .ok()
        .map(|v| point_params(&v))
        .unwrap_or_default();
    let quantity = Quantity::parse(&p.expected);
    let sys = Systems {
        aeb: body.aeb.unwrap_or_default(),
        fcw: body.fcw.unwrap_or_default(),
        elk: body.elk.unwrap_or_default(),
    };
    let mut o = sim_options(
        pp.function,
        quantity,
        pp.vut_speed_kmh.unwrap_or(0.0),
        &sys,
        baseline,
    );
    if let Some(v) = body.vut_speed_kmh {
        o.vut_speed_kmh = v;
    }
    if let Some(i) = body.injection {
        o.injection = i;
    }
    if let Some(s) = body.step_ms {
        o.step_ms = s;
    }
    o.validate()
        .map_err(|e| ApiError::Unprocessable(format!("point {}: {e}", p.idx)))?;
    Ok(o)
}

/// The parts of the stored parameters the run needs (function and VUT speed).
fn point_params(v: &Value) -> PointParams {
    PointParams {
        function: match v.get("function").and_then(Value::as_str) {
            Some("AEB") => Some(Function::Aeb),
            Some("FCW") => Some(Function::Fcw),
            _ => None,
        },
        vut_speed_kmh: v.get("vut_speed_kmh").and_then(Value::as_f64),
        ..PointParams::default()
    }
}

/// `POST /series/{id}/points/{point}/run`.
pub async fn run_point(
    State(st): State<AppState>,
    _op: Operator,
    Path((id, point)): Path<(String, String)>,
    body: Bytes,
) -> ApiResult<Response> {
    let req = parse_body(&body)?;
    let idx: i64 = match point.parse() {
        // Digits only: no sign (the path names a point's number as GET /series/{id} lists it).
        Ok(i) if point.bytes().all(|b| b.is_ascii_digit()) => i,
        // A number beyond any point a series can hold names no point.
        Err(_) if !point.is_empty() && point.bytes().all(|b| b.is_ascii_digit()) => {
            return Err(ApiError::NotFound(format!(
                "series '{id}' has no point {point}"
            )))
        }
        _ => {
            return Err(ApiError::BadRequest(format!(
                "point '{point}': expected the point's number in the series (0, 1, …)"
            )))
        }
    };
    let s = series_row(&st, &id).await?;
    let p = st
        .store
        .series_point(&id, idx)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("series '{id}' has no point {idx}")))?;
    let label = format!(
        "point {idx} of series '{id}' ({} row {})",
        p.sheet, p.row_no
    );
    // Not runnable is one of the point's states, as done and running are: a conflict with
    // the point, whatever the request says.
    let Some(toml) = p.scenario_toml.clone() else {
        return Err(ApiError::Conflict(format!(
            "{label} is not runnable: {}",
            p.reason.as_deref().unwrap_or("no scenario")
        )));
    };
    if let Some(e) = &req.expect_state {
        if *e != p.state {
            return Err(ApiError::Conflict(format!(
                "{label} is {}, not {e} as the request expected",
                p.state
            )));
        }
    }
    let kind = match p.state.as_str() {
        "planned" | "invalid" => "test",
        "valid" => "baseline",
        other => {
            return Err(ApiError::Conflict(format!(
                "{label} is {other}: nothing to run{}",
                if other == "running" {
                    " until its run ends"
                } else {
                    ""
                }
            )))
        }
    };
    let ground = req.ground_source()?;
    let opts = options_of(&p, &req, kind == "baseline")?;
    let speed = SpeedArg::parse(req.speed.as_ref())?;
    let map_id = if p.junction {
        s.junction_map_id.clone()
    } else {
        Some(s.map_id.clone())
    };
    // The point's scenario as a registered scenario (its runs name it).
    let maps = st.store.map_ids().await?;
    let sid = scenario_id(&id, idx);
    let row = scenario_row(&sid, &toml, map_id.clone(), &maps, false)?;
    st.store.upsert_scenario(&row).await?;
    st.refresh_carriers().await?;
    let next_attempt = st
        .store
        .series_attempts(&id, Some(idx))
        .await?
        .iter()
        .map(|a| a.attempt)
        .max()
        .unwrap_or(0)
        + 1;
    if !st.store.claim_series_point(&id, idx, &p.state).await? {
        return Err(ApiError::Conflict(format!(
            "{label} changed meanwhile (another request runs it)"
        )));
    }
    let give_back = PointState {
        state: p.state.clone(),
        value: p.value,
        baseline_value: p.baseline_value,
    };
    let new_run = NewRun {
        scenario_id: sid,
        map_id,
        source: ground.unwrap_or_else(|| RunSource::SimVut(opts.clone())),
        can: req.can.clone(),
        can_mapping: req.can_mapping.clone(),
        speed,
        carriers: req.carriers.clone(),
        sync: false,
        record: req.record,
        track: s.track.clone(),
        demo: false,
        virtual_targets: Vec::new(),
        osi: None,
    };
    let mut positioning = None;
    let run = if req.start.unwrap_or(true) {
        st.supervisor.create_and_start(new_run).await
    } else {
        let ground = !new_run.carriers.is_empty();
        let created = st.supervisor.create(new_run).await;
        if let (true, Ok(r)) = (ground, &created) {
            // Objects elsewhere drive to this run's starts; without known positions (the first
            // run of the day) they are placed by hand and the arm checks them.
            positioning = Some(match st.supervisor.return_to_start(&r.id).await {
                Ok(v) => v,
                Err(e) if e.status().is_server_error() => {
                    tracing::warn!(run = %r.id, error = %e, "objects not driven to their starts");
                    json!({"state": "not_driven", "reason": "internal error (see the service log)"})
                }
                Err(e) => json!({"state": "not_driven", "reason": e.to_string()}),
            });
        }
        created
    };
    let run = match run {
        Ok(r) => r,
        Err(e) => {
            st.store.set_point_state(&id, idx, &give_back).await?;
            return Err(e);
        }
    };
    let a = AttemptRow {
        series_id: id.clone(),
        idx,
        attempt: next_attempt,
        run_id: run.id.clone(),
        kind: kind.into(),
        state: "running".into(),
        value: None,
        note: None,
        options: serde_json::to_string(&opts).map_err(anyhow::Error::from)?,
        created_at: Utc::now(),
        ended_at: None,
    };
    if let Err(e) = st.store.insert_attempt(&a).await {
        let _ = st
            .supervisor
            .abort(&run.id, "the series could not record the attempt", None)
            .await;
        let _ = st.store.set_point_state(&id, idx, &give_back).await;
        return Err(e.into());
    }
    tokio::spawn(watch(st.clone(), a.clone()));
    if req.return_to_start {
        let (sup, run_id) = (st.supervisor.clone(), run.id.clone());
        let st2 = st.clone();
        tokio::spawn(async move {
            let ended = sup
                .wait_done(&run_id, std::time::Duration::from_secs(3600))
                .await;
            // Only a run that finished drives back by itself: after an abort or a failure an
            // object may be lost, restarted or standing where nobody planned; the operator
            // looks and asks for the drive back (`POST /runs/{id}/return_to_start`).
            match ended {
                Ok(r) if r.state == crate::run::RunState::Finished.as_str() => {
                    if let Err(e) = sup.return_to_start(&run_id).await {
                        tracing::warn!(run = %run_id, error = %e, "objects not driven back to the start");
                    }
                }
                Ok(r) => st2.record_event(
                    Some(&run_id),
                    None,
                    "objects",
                    &json!({"event": "return_offered", "state": r.state,
                            "text": format!("the run is {}: the objects were not driven back; drive them back when they are safe to move", r.state)}),
                ),
                Err(e) => tracing::warn!(run = %run_id, error = %e, "objects not driven back to the start"),
            }
        });
    }
    Ok((
        StatusCode::CREATED,
        axum::Json(json!({
            "series_id": id,
            "point": idx,
            "attempt": a.attempt,
            "kind": a.kind,
            "run": run_json(&run),
            "objects": positioning,
        })),
    )
        .into_response())
}

/// The series (404 when it does not exist).
pub async fn series_row(st: &AppState, id: &str) -> ApiResult<SeriesRow> {
    st.store
        .get_series(id)
        .await?
        .ok_or_else(|| ApiError::not_found("series", id))
}
