//! The site's geofence and motion limits for a run's objects: the map's geofence (set over
//! the API, else from `[ground.geofence.<map>]`), checked against every object's whole motion
//! before anything moves, and handed to the control centre, which checks every MONR.

use std::sync::Arc;

use crate::dispatch::ground::GroundOptions;
use crate::dispatch::motion_watch::Geofence;
use crate::serve::context::Shared;
use crate::serve::error::{ApiError, ApiResult};
use crate::serve::supervisor::run::CarrierSpec;

/// A map's geofence and where it was set (`"api"` or `"config"`).
pub async fn geofence_of(st: &Shared, map_id: &str) -> ApiResult<Option<(Geofence, &'static str)>> {
    if let Some(text) = st.store.get_geofence(map_id).await? {
        let f: Geofence = serde_json::from_str(&text).map_err(|e| {
            ApiError::Internal(anyhow::anyhow!("stored geofence of map '{map_id}': {e}"))
        })?;
        return Ok(Some((f, "api")));
    }
    Ok(st
        .config
        .ground
        .geofence
        .get(map_id)
        .cloned()
        .map(|f| (f, "config")))
}

/// The service's ground options (its `[ground]` configuration).
pub fn options(c: &crate::serve::config::GroundConfig) -> GroundOptions {
    let base = GroundOptions::default();
    GroundOptions {
        monr_miss_limit: c.monr_miss_limit,
        heab_rate_hz: c.heab_rate_hz,
        telemetry_stale_s: c.telemetry_stale_s,
        connect_timeout: std::time::Duration::from_secs_f64(c.connect_timeout_s),
        link_limits: Some(crate::dispatch::link_health::LinkLimits {
            max_monr_loss: c.max_monr_loss,
            ..crate::dispatch::link_health::LinkLimits::for_heab_rate(c.heab_rate_hz)
        }),
        ..base
    }
}

/// The ground options of a run on `map_id` with `carriers`: the service's `[ground]`
/// settings, its motion limits, each object's own lateral limit and the map's geofence.
pub async fn options_for(
    st: &Shared,
    map_id: Option<&str>,
    carriers: &[CarrierSpec],
) -> ApiResult<GroundOptions> {
    let mut o = options(&st.config.ground);
    o.motion = st.config.ground.motion_limits();
    o.lateral_m = carriers
        .iter()
        .filter_map(|c| c.max_lateral_m.map(|m| (c.name.clone(), m)))
        .collect();
    if let Some(id) = map_id {
        o.geofence = geofence_of(st, id).await?.map(|(f, _)| Arc::new(f));
    }
    Ok(o)
}

/// Every object's whole motion inside the geofence (422 naming the object and the first
/// point outside otherwise); `from` is where each object stands now, if known.
pub fn check_motion(
    o: &GroundOptions,
    plans: &[crate::dispatch::ground::ObjectPlan],
    from: &[Option<crate::dispatch::ground::Pose>],
) -> ApiResult<()> {
    let Some(fence) = &o.geofence else {
        return Ok(());
    };
    match crate::dispatch::ground::fence::first_breach(fence, plans, from, o.traj_dt_s.max(0.01)) {
        Some(why) => Err(ApiError::Unprocessable(format!(
            "the run's motion breaks the site's geofence: {why}"
        ))),
        None => Ok(()),
    }
}
