//! `/objects`: the objects on the ground by name, across runs — their characterisation and
//! their measured capabilities.
//!
//! `POST /objects/{name}/characterise` drives one object through a short straight motion
//! (accelerate to a speed, hold it, stop) from where it stands, inside the map's geofence, and
//! measures its dead time, acceleration, deceleration, speed- and lateral-tracking error and
//! MONR latency from its MONR. The figures become the object's measured capabilities (with
//! the date): kept in the audit trail (action `characterised` on `objects/{name}`, the figures
//! as its detail), read back at startup, and layered over its kind's defaults and the site's
//! configuration in every run that uses the object. `GET /objects/{name}/capabilities` shows
//! them.

use axum::extract::{Path, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use chrono::Utc;
use serde::Deserialize;
use serde_json::{json, Value};

use super::auth::{Operator, Reader};
use super::context::valid_id;
use super::error::{ApiError, ApiResult};
use super::state::AppState;
use crate::capabilities::{
    CapabilitiesPatch, CapabilityLayer, ObjectCapabilities, ObjectKind, Source,
};
use crate::dispatch::control_centre::GeoOrigin;
use crate::dispatch::ground::characterise::Request;
use crate::dispatch::ground::Pose;

/// The audit action that stores a characterisation.
pub const CHARACTERISED: &str = "characterised";

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/objects/{name}/characterise", post(characterise))
        .route("/objects/{name}/capabilities", get(capabilities))
}

/// A pose as the API gives it: map frame, INS heading (0 = north, clockwise).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct PoseIn {
    x: f64,
    y: f64,
    heading_deg: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CharacteriseBody {
    /// Its ISO 22133 endpoint, `HOST[:TCP[:UDP]]`.
    address: String,
    /// What kind of platform it is (its defaults; default `vut_robot`).
    #[serde(default)]
    kind: Option<ObjectKind>,
    /// The map whose origin it uses and whose geofence the motion must keep to.
    #[serde(default)]
    map_id: Option<String>,
    /// Where it stands, when it has not reported it (its MONR pose wins when it has).
    #[serde(default)]
    from: Option<PoseIn>,
    /// The motion ([`Request`]; each defaults to its default).
    #[serde(default)]
    speed_kmh: Option<f64>,
    #[serde(default)]
    hold_s: Option<f64>,
    #[serde(default)]
    accel_mps2: Option<f64>,
    #[serde(default)]
    decel_mps2: Option<f64>,
}

impl CharacteriseBody {
    fn request(&self) -> Request {
        let d = Request::for_kind(self.kind.unwrap_or(ObjectKind::VutRobot));
        Request {
            speed_kmh: self.speed_kmh.unwrap_or(d.speed_kmh),
            hold_s: self.hold_s.unwrap_or(d.hold_s),
            accel_mps2: self.accel_mps2.unwrap_or(d.accel_mps2),
            decel_mps2: self.decel_mps2.unwrap_or(d.decel_mps2),
        }
    }
}

/// `POST /objects/{name}/characterise` (operator): drives it and answers the figures (200),
/// 422 for a bad request or a motion outside the geofence, 409 when it cannot be driven
/// (unknown position, not reachable, refused, aborted).
async fn characterise(
    State(st): State<AppState>,
    _o: Operator,
    Path(name): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<Json<Value>> {
    if !valid_id(&name) {
        return Err(ApiError::Unprocessable(format!(
            "object name '{name}': letters, digits, _ - . only"
        )));
    }
    let b: CharacteriseBody = serde_json::from_slice(&body)
        .map_err(|e| ApiError::Unprocessable(format!("characterise: {e}")))?;
    let request = b.request();
    request
        .validate()
        .map_err(|e| ApiError::Unprocessable(format!("characterise: {e}")))?;
    crate::dispatch::control_centre::CarrierConfig::parse_spec(&format!("{name}={}", b.address), 1)
        .map_err(|e| ApiError::Unprocessable(format!("address: {e}")))?;
    let kind = b.kind.unwrap_or(ObjectKind::VutRobot);
    let sup = &st.supervisor;
    let map = sup.map_opt(b.map_id.as_deref()).await?;
    let origin = map
        .as_ref()
        .and_then(|m| m.geo.as_ref())
        .map(|g| g.to_wgs84(0.0, 0.0))
        .filter(|(la, lo)| la.is_finite() && lo.is_finite())
        .map(|(lat_deg, lon_deg)| GeoOrigin {
            lat_deg,
            lon_deg,
            alt_m: 0.0,
            rotation_deg: 0.0,
        })
        .unwrap_or_default();
    let mut opts =
        crate::serve::supervisor::ground_options_for(sup, b.map_id.as_deref(), &[]).await?;
    // One object standing by for its characterisation answers at once: an address that
    // does not is refused (409) after 5 s rather than the arming's 10.
    opts.connect_timeout = opts.connect_timeout.min(std::time::Duration::from_secs(5));
    // Where it stands: its MONR now, else what the bench knows, else the request's.
    let reported =
        crate::dispatch::ground::links::reported_poses(&[(name.clone(), b.address.clone())]).await;
    let from = reported
        .into_iter()
        .next()
        .flatten()
        .or_else(|| sup.ground.known().get(&name).and_then(|k| k.0))
        .or(b
            .from
            .map(|p| Pose::new(p.x, p.y, crate::frame::heading_to_yaw(p.heading_deg))))
        .ok_or_else(|| {
            ApiError::Conflict(format!(
                "object {name} has reported no position yet: give \"from\" (x, y, heading_deg)"
            ))
        })?;
    let plan = crate::dispatch::ground::characterise_drive::plan(
        &name,
        kind,
        &request,
        from,
        opts.traj_dt_s,
    );
    if let Some(fence) = &opts.geofence {
        if let Some(why) = crate::dispatch::ground::fence::first_breach(
            fence,
            std::slice::from_ref(&plan),
            &[Some(from)],
            opts.traj_dt_s.max(0.01),
        ) {
            return Err(ApiError::Unprocessable(format!(
                "the characterisation breaks the site's geofence: {why}"
            )));
        }
    }
    let c = crate::dispatch::ground::characterise_drive::characterise(
        plan, &b.address, &request, origin, &opts,
    )
    .await
    .map_err(|e| ApiError::Conflict(format!("characterisation of object {name}: {e}")))?;
    let date = Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let layer = CapabilityLayer {
        kind: None,
        source: Source::Measured { date: date.clone() },
        patch: c.measured.patch(),
    };
    let caps = ObjectCapabilities::resolve(kind, &measured_layers(sup, &name, layer.clone()))
        .map_err(|e| ApiError::Conflict(format!("object {name}: measured {e}")))?;
    sup.ground.set_measured(&name, layer.clone());
    let entry = crate::store::audit::NewAudit {
        at: Utc::now(),
        who: "scil".into(),
        action: CHARACTERISED.into(),
        target: format!("objects/{name}"),
        method: "POST".into(),
        path: format!("/objects/{name}/characterise"),
        status: 200,
        detail: serde_json::to_string(&json!({"date": date, "patch": layer.patch}))
            .unwrap_or_default(),
    };
    sup.store.append_audit(&entry).await?;
    Ok(Json(json!({
        "object": name,
        "date": date,
        "characterisation": c,
        "capabilities": caps,
    })))
}

/// The site's layers for `name` with `measured` on top (for the answer).
fn measured_layers(
    sup: &crate::serve::supervisor::Supervisor,
    name: &str,
    measured: CapabilityLayer,
) -> Vec<CapabilityLayer> {
    let mut l = sup.config.ground.capability_layers(name);
    l.push(measured);
    l
}

/// `GET /objects/{name}/capabilities`: its measured capabilities (`null` before its first
/// characterisation) and what it can drive as each kind of platform, the site's settings and
/// its measurements applied.
async fn capabilities(
    State(st): State<AppState>,
    _r: Reader,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    if !valid_id(&name) {
        return Err(ApiError::Unprocessable(format!(
            "object name '{name}': letters, digits, _ - . only"
        )));
    }
    let sup = &st.supervisor;
    let measured = sup.ground.measured(&name);
    let mut layers = sup.config.ground.capability_layers(&name);
    layers.extend(measured.clone());
    let by_kind: serde_json::Map<String, Value> = ObjectKind::ALL
        .into_iter()
        .filter_map(|k| {
            ObjectCapabilities::resolve(k, &layers)
                .ok()
                .map(|c| (k.name().to_string(), json!(c)))
        })
        .collect();
    Ok(Json(json!({
        "object": name,
        "measured": measured.map(|l| json!({"source": l.source, "patch": l.patch})),
        "as": by_kind,
    })))
}

/// At startup: every object's latest characterisation from the audit trail.
pub async fn load_measured(st: &AppState) -> anyhow::Result<usize> {
    let rows = st.supervisor.store.audit_of_action(CHARACTERISED).await?;
    let mut n = 0;
    for r in rows {
        let Some(name) = r.target.strip_prefix("objects/") else {
            continue;
        };
        #[derive(Deserialize)]
        struct Detail {
            date: String,
            patch: CapabilitiesPatch,
        }
        match serde_json::from_str::<Detail>(&r.detail) {
            Ok(d) => {
                st.supervisor.ground.set_measured(
                    name,
                    CapabilityLayer {
                        kind: None,
                        source: Source::Measured { date: d.date },
                        patch: d.patch,
                    },
                );
                n += 1;
            }
            Err(e) => tracing::warn!(
                "audit entry {}: characterisation of {name} unreadable: {e}",
                r.id
            ),
        }
    }
    Ok(n)
}
