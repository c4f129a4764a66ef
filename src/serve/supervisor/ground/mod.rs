//! What is special to runs whose carriers are objects on the ground (the VUT robot and target
//! carriers, each with `drives`): the checks at admission, the geofence ([`geofence`]), arming
//! them as one, the start check, the drive with the service's sinks, the release of an armed
//! run and the drive back to the start. The [`Board`] keeps the runs and the
//! objects' last poses across runs: the next run arms only when every object stands at its
//! start.
//!
//! The lifecycle calls this room and this room never calls back: what happens to armed
//! objects comes back as a value the lifecycle owns ([`ArmedWatch`]), and what a step needs
//! of the run (its setup) is handed in.

mod board;
mod geofence;

use std::sync::{Arc, Weak};

use serde_json::{json, Value};

use super::run::{lock, ActiveRun, CarrierSpec};
use crate::dispatch::control_centre::ControlCentreHandle;
use crate::dispatch::events::AbortInfo;
use crate::dispatch::ground::{Ground, GroundError, GroundOptions, ObjectSpec, Pose};
use crate::run::{RunSetup, RunState};
use crate::serve::error::ApiError;

pub use board::{Board, GroundRun, Known};
pub use geofence::{geofence_of, options, options_for};

/// Whether a run's carriers are objects on the ground (every one names what it drives; the
/// ground layer dispatches them, not the carriers sink); a mix is refused.
pub fn is_ground(carriers: &[CarrierSpec]) -> Result<bool, ApiError> {
    let with = carriers.iter().filter(|c| c.drives.is_some()).count();
    match with {
        0 => Ok(false),
        n if n == carriers.len() => Ok(true),
        _ => Err(ApiError::Unprocessable(
            "carriers: either every carrier names what it drives (\"drives\": \"vut\" or a target id) or none does".into(),
        )),
    }
}

/// The run's objects: each with its capability layers — the site's (by kind, by name), its
/// measured capabilities, then the run's own carrier entry.
pub fn object_specs(st: &super::Supervisor, carriers: &[CarrierSpec]) -> Vec<ObjectSpec> {
    carriers
        .iter()
        .filter_map(|c| {
            c.drives.clone().map(|d| ObjectSpec {
                name: c.name.clone(),
                address: c.address.clone(),
                drives: d,
                mobility: c.mobility,
                capabilities: capability_layers(st, c),
            })
        })
        .collect()
}

/// `setup` with each carried target's run-up fitted to its object's capabilities (see
/// [`crate::dispatch::ground::run_up`]); 422 naming the object, its acceleration and the room
/// it needs when the site's geofence cannot hold it.
pub async fn fitted_setup(
    st: &super::Supervisor,
    row: &crate::store::RunRow,
    setup: Arc<RunSetup>,
    carriers: &[CarrierSpec],
) -> Result<Arc<RunSetup>, ApiError> {
    let objects = object_specs(st, carriers);
    let caps = crate::dispatch::ground::plan::resolve_capabilities(&setup, &objects)
        .map_err(ApiError::Unprocessable)?;
    let opts = geofence::options_for(st, row.map_id.as_deref(), carriers).await?;
    let (fitted, _) = crate::dispatch::ground::run_up::fit_targets(
        &setup,
        &objects,
        &caps,
        opts.geofence.as_deref(),
    )
    .map_err(ApiError::Unprocessable)?;
    Ok(fitted)
}

/// An object's capability layers (see [`object_specs`]).
pub fn capability_layers(
    st: &super::Supervisor,
    c: &CarrierSpec,
) -> Vec<crate::capabilities::CapabilityLayer> {
    let mut layers = st.config.ground.capability_layers(&c.name);
    layers.extend(st.ground.measured(&c.name));
    if let Some(p) = &c.capabilities {
        layers.push(crate::capabilities::CapabilityLayer {
            kind: None,
            source: crate::capabilities::Source::Configured {
                by: format!("the run's carrier {}", c.name),
            },
            patch: p.clone(),
        });
    }
    layers
}

/// The engine's own stale-telemetry limit of a run: the `[ground]` one when it has objects.
pub fn engine_stale_limit(st: &super::Supervisor, carriers: &[CarrierSpec]) -> Option<f64> {
    match is_ground(carriers) {
        Ok(true) => Some(st.config.ground.telemetry_stale_s),
        _ => crate::scenario::engine::EngineConfig::default().stale_limit_s,
    }
}

/// A ground error as the API answers it: plans are the request's fault (422), arming and
/// starting conflicts with the objects' state (409).
pub fn api_error(e: GroundError) -> ApiError {
    match e {
        GroundError::Plan(m) => ApiError::Unprocessable(m),
        other => ApiError::Conflict(other.to_string()),
    }
}

/// `"objects"` of a run: name, drives, state, pose, start pose, at_start.
pub fn objects_json(g: &GroundRun) -> Value {
    board::status_json(&g.ground)
}

/// Plans and arms a run's objects as one (at the run's arming); refuses (409) when an object
/// is known to stand away from its start, unless `override_start`. Answers the watch over
/// the armed objects, which the lifecycle keeps until the run is no longer armed.
pub async fn arm_objects(
    st: &super::Supervisor,
    run: &Arc<ActiveRun>,
    row: &crate::store::RunRow,
    setup: &Arc<RunSetup>,
    override_start: bool,
) -> Result<ArmedWatch, ApiError> {
    let carriers = &run.carriers;
    let stored: super::StoredSource = serde_json::from_str(&row.source).map_err(|e| {
        ApiError::Internal(anyhow::anyhow!("stored source of run '{}': {e}", row.id))
    })?;
    let monr_source = matches!(stored.ins, super::RunSource::Monr { .. });
    if lock(&st.ground.returning).contains_key(&row.id) {
        return Err(ApiError::Conflict(format!(
            "cannot arm run '{}': its objects are driving to their starts (arm it when they stand)",
            row.id
        )));
    }
    let mut opts = geofence::options_for(st, row.map_id.as_deref(), carriers).await?;
    opts.virtual_targets = super::virtual_targets::of(row);
    let mut ground = Ground::new(object_specs(st, carriers), opts.clone())
        .map_err(|e| ApiError::Unprocessable(format!("carriers: {e}")))?;
    st.ground.seed(&mut ground);
    let prepared = ground.prepare(setup.clone()).await.map_err(api_error)?;
    geofence::check_motion(&opts, &prepared.plans, &poses_of(&ground))?;
    let motion = match ground.arm(&prepared, override_start).await {
        Ok(m) => m,
        Err(e) => {
            // The operator sees where the objects stand against this run's starts.
            st.ground.publish_status(&row.id, &ground);
            return Err(api_error(e));
        }
    };
    st.record_event(
        Some(&row.id),
        None,
        "objects",
        &json!({"event": "objects_armed", "objects": ground.status()}),
    );
    let h = motion.h.clone();
    let g = st.ground.insert(
        &row.id,
        GroundRun {
            ground,
            prepared,
            motion: Some(motion),
            monr_source,
        },
    );
    st.ground.publish(&row.id, &*g.lock().await);
    lock(&st.ground.live).insert(row.id.clone(), h.clone());
    Ok(ArmedWatch {
        id: row.id.clone(),
        run: Arc::downgrade(run),
        h,
    })
}

/// The objects of an armed run, watched for the lifecycle: the moment they are no longer
/// armed as one (one disconnected, silent, ABORTING or out of ARMED: the control centre aborted
/// all of them, or left armed), [`ArmedWatch::lost`] answers the abort that ends the run, with
/// its cause.
pub struct ArmedWatch {
    id: String,
    run: Weak<ActiveRun>,
    h: ControlCentreHandle,
}

impl ArmedWatch {
    /// Waits while the run is armed: the abort to end it with when its objects are no longer
    /// armed as one; none once the run is no longer armed (started, aborted or gone).
    pub async fn lost(self) -> Option<AbortInfo> {
        use crate::dispatch::events::Phase;
        let (id, h) = (self.id, self.h);
        loop {
            let broken = h
                .wait_for(std::time::Duration::from_millis(200), |s| {
                    !matches!(s.phase, Phase::Armed | Phase::Running)
                })
                .await;
            let run = self.run.upgrade()?;
            let state = run.row.lock().await.state.clone();
            if state != RunState::Armed.as_str() {
                return None;
            }
            if !broken {
                continue;
            }
            let snap = h.snapshot();
            let info = snap
                .events
                .iter()
                .rev()
                .find_map(|e| match &e.kind {
                    crate::dispatch::events::EventKind::Abort { reason } => Some(reason.info()),
                    _ => None,
                })
                .filter(|_| snap.phase == Phase::Aborted)
                .unwrap_or_else(|| {
                    AbortInfo::other(
                        "left_armed",
                        &format!("the objects are no longer armed ({:?})", snap.phase),
                    )
                });
            tracing::warn!(run = %id, reason = %info.text, "armed run aborted: its objects are no longer armed");
            return Some(info);
        }
    }
}

/// Where each object stands now, as far as the bench knows.
fn poses_of(g: &Ground) -> Vec<Option<Pose>> {
    g.status().iter().map(|s| s.pose).collect()
}

/// At create, for a run with objects on a map with a geofence: the options its objects' whole
/// motion is checked with ([`check_at_create`]). None otherwise: nothing is planned at create.
pub async fn fence_at_create(
    st: &super::Supervisor,
    row: &crate::store::RunRow,
    carriers: &[CarrierSpec],
) -> Result<Option<GroundOptions>, ApiError> {
    if !is_ground(carriers)? {
        return Ok(None);
    }
    let mut opts = geofence::options_for(st, row.map_id.as_deref(), carriers).await?;
    opts.virtual_targets = super::virtual_targets::of(row);
    Ok(opts.geofence.is_some().then_some(opts))
}

/// At create, with the options of [`fence_at_create`]: every object's whole motion planned
/// (its drive to the start, the test, the drive back) on the run's `setup` and checked against
/// the geofence (422 naming the object and the first point outside).
pub async fn check_at_create(
    st: &super::Supervisor,
    opts: GroundOptions,
    setup: Arc<RunSetup>,
    carriers: &[CarrierSpec],
) -> Result<(), ApiError> {
    let mut ground = Ground::new(object_specs(st, carriers), opts.clone())
        .map_err(|e| ApiError::Unprocessable(format!("carriers: {e}")))?;
    st.ground.seed(&mut ground);
    let prepared = ground.prepare(setup).await.map_err(api_error)?;
    geofence::check_motion(&opts, &prepared.plans, &poses_of(&ground))
}

/// Before the start: every object ARMED in its latest MONR, fresh, at its start (409 naming
/// the object otherwise). Runs without objects pass.
pub async fn start_check(st: &super::Supervisor, id: &str) -> Result<(), ApiError> {
    let Some(g) = st.ground.get(id) else {
        return Ok(());
    };
    let g = g.lock().await;
    match &g.motion {
        Some(m) => m
            .start_check()
            .map_err(|r| ApiError::Conflict(format!("cannot start run '{id}': {r}"))),
        None => Err(ApiError::Conflict(format!(
            "cannot start run '{id}': its objects are not armed"
        ))),
    }
}

/// Drives a started run with its objects: the session (live, the service's sinks) beside the
/// ground layer's, the control centre's events forwarded like a carrier run's. The objects'
/// final state goes to the board when the run is settled ([`Board::settled`]).
pub async fn drive(
    st: &super::Supervisor,
    run: &Arc<super::ActiveRun>,
    g: Arc<tokio::sync::Mutex<GroundRun>>,
    feed: crate::run::Feed,
    sinks: Vec<Box<dyn crate::run::Sink>>,
    observer: crate::run::sink::carriers::DispatchObserver,
) -> crate::run::RunReport {
    let opts = crate::run::SessionOptions {
        pace: crate::run::Pace::Live,
        first_sample_timeout: Some(st.config.limits.first_sample_timeout()),
        live: Some(run.params.clone()),
        traces: true,
        ..crate::run::SessionOptions::default()
    };
    let mut g = g.lock().await;
    let Some(motion) = g.motion.take() else {
        return crate::run::RunReport {
            error: Some("objects not armed".into()),
            ..Default::default()
        };
    };
    let feed = (!g.monr_source).then_some(feed);
    let prepared = g.prepared.clone();
    let r = g
        .ground
        .run_with(
            motion,
            &prepared,
            feed,
            sinks,
            opts,
            Some(run.stop.clone()),
            Some(observer),
        )
        .await;
    match r {
        Ok(rep) => {
            let mut report = rep.run.clone();
            let mut v = rep.objects_json();
            // What each object could drive in this run, and where each figure came from.
            v["capabilities"] = Value::Array(
                g.ground
                    .status()
                    .iter()
                    .map(|s| json!({"name": s.name, "capabilities": s.capabilities}))
                    .collect(),
            );
            report.ground = Some(v);
            report
        }
        Err(e) => crate::run::RunReport {
            error: Some(e.to_string()),
            ..Default::default()
        },
    }
}

/// Stops a drive back under way (true when there was one).
pub async fn abort_return(st: &super::Supervisor, id: &str, reason: &str) -> bool {
    let h = lock(&st.ground.returning).get(id).cloned();
    match h {
        Some(h) => {
            h.abort(reason);
            true
        }
        None => false,
    }
}

/// Drives the objects of an ended run back to their start poses (202: under way; `returned`
/// in the run's events when they stand).
pub async fn return_to_start(st: &super::Supervisor, id: &str) -> Result<Value, ApiError> {
    if st.is_active(id) {
        return Err(ApiError::Conflict(format!(
            "cannot return the objects of run '{id}': the run is still active"
        )));
    }
    let Some(g) = st.ground.get(id) else {
        return Err(ApiError::Conflict(format!(
            "run '{id}' has no objects on the ground"
        )));
    };
    drive_to_start(st, id, g).await
}

/// Drives the objects of a run that is not armed yet to its start poses, from wherever they
/// stand (their last MONR poses): the next test's start, before it is armed.
pub async fn position(
    st: &super::Supervisor,
    row: &crate::store::RunRow,
    setup: &Arc<crate::run::RunSetup>,
    carriers: &[CarrierSpec],
) -> Result<Value, ApiError> {
    if lock(&st.ground.returning).contains_key(&row.id) {
        return Err(ApiError::Conflict(format!(
            "the objects of run '{}' are already driving to their starts",
            row.id
        )));
    }
    let stored: super::StoredSource = serde_json::from_str(&row.source).map_err(|e| {
        ApiError::Internal(anyhow::anyhow!("stored source of run '{}': {e}", row.id))
    })?;
    let mut opts = geofence::options_for(st, row.map_id.as_deref(), carriers).await?;
    opts.virtual_targets = super::virtual_targets::of(row);
    let mut ground = Ground::new(object_specs(st, carriers), opts.clone())
        .map_err(|e| ApiError::Unprocessable(format!("carriers: {e}")))?;
    st.ground.seed(&mut ground);
    let prepared = ground.prepare(setup.clone()).await.map_err(api_error)?;
    geofence::check_motion(&opts, &prepared.plans, &poses_of(&ground))?;
    if let Some(o) = ground.status().iter().find(|o| o.pose.is_none()) {
        return Err(ApiError::Conflict(format!(
            "cannot drive the objects of run '{}' to their starts: object {} has reported no position yet (place it at its start and arm)",
            row.id, o.name
        )));
    }
    if ground.status().iter().all(|o| o.at_start == Some(true)) {
        return Ok(json!({"run_id": row.id, "state": "at_start", "objects": ground.status()}));
    }
    let g = st.ground.insert(
        &row.id,
        GroundRun {
            ground,
            prepared,
            motion: None,
            monr_source: matches!(stored.ins, super::RunSource::Monr { .. }),
        },
    );
    drive_to_start(st, &row.id, g).await
}

/// Plans, uploads, arms and runs each object's drive from its last pose to its start pose in
/// the background; the run's `objects` read `returning` meanwhile, ABORT stops it.
async fn drive_to_start(
    st: &super::Supervisor,
    id: &str,
    g: Arc<tokio::sync::Mutex<GroundRun>>,
) -> Result<Value, ApiError> {
    if lock(&st.ground.returning).contains_key(id) {
        return Err(ApiError::Conflict(format!(
            "the objects of run '{id}' are already driving back"
        )));
    }
    let mut guard = g.lock_owned().await;
    let prepared = guard.prepared.clone();
    let motion = guard
        .ground
        .arm_return(&prepared)
        .await
        .map_err(api_error)?;
    let planned: Vec<Value> = motion
        .plans
        .iter()
        .map(|p| {
            json!({"name": p.name, "drives": p.drives, "traj_points": p.track.points.len(),
                   "length_m": p.track.length_m(), "duration_s": p.track.duration_s()})
        })
        .collect();
    lock(&st.ground.returning).insert(id.to_string(), motion.h.clone());
    st.ground.publish(id, &guard);
    let (st2, id2) = (st.clone(), id.to_string());
    tokio::spawn(async move {
        let r = crate::dispatch::ground::back_to_start::drive_back_to_start(
            &mut guard.ground,
            &prepared,
            motion,
            crate::dispatch::ground::back_to_start::PASSES,
        )
        .await;
        st2.ground.remember(&guard.ground);
        st2.ground.publish(&id2, &guard);
        lock(&st2.ground.returning).remove(&id2);
        let report = match r {
            Ok(r) => serde_json::to_value(&r).unwrap_or(Value::Null),
            Err(e) => json!({"error": e.to_string()}),
        };
        st2.record_event(
            Some(&id2),
            None,
            "objects",
            &json!({"event": "returned", "report": report}),
        );
    });
    Ok(json!({"run_id": id, "state": "returning", "objects": planned}))
}

/// An armed run that will not start (aborted): ABORT to every object, connections closed.
pub async fn release(st: &super::Supervisor, id: &str, reason: &str) {
    let Some(g) = st.ground.get(id) else {
        return;
    };
    let mut g = g.lock().await;
    lock(&st.ground.live).remove(id);
    if let Some(m) = g.motion.take() {
        m.abort(reason);
        let _ = m.stop().await;
        m.shutdown().await;
    }
}
