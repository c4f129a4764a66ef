//! Drives one object through a characterisation run ([`super::characterise`]) over its
//! ISO 22133 link: its straight motion uploaded as TRAJ, armed, started, run to its end,
//! stopped, and measured from its MONR.

use std::time::Duration;

use serde::Serialize;

use super::characterise::{analyse, Measured, Request};
use super::motion::Motion;
use super::plan::{Drives, GroundOptions, ObjectPlan};
use super::route::Mobility;
use super::track::{PlannedTrack, Pose};
use crate::capabilities::{ObjectCapabilities, ObjectKind};
use crate::dispatch::control_centre::GeoOrigin;
use crate::dispatch::events::Phase;
use crate::dispatch::iso22133::ObjectState;

/// One characterisation as driven.
#[derive(Debug, Clone, Serialize)]
pub struct Characterisation {
    pub object: String,
    pub request: Request,
    pub measured: Measured,
    /// Where it started and stopped (map frame, INS heading).
    pub from: super::report::PoseOut,
    pub final_pose: Option<super::report::PoseOut>,
    /// Length of the planned straight motion, m.
    pub length_m: f64,
    pub monr_count: usize,
}

/// The plan of object `name` of kind `kind` for `req` from `from`, as a motion's plan.
pub fn plan(name: &str, kind: ObjectKind, req: &Request, from: Pose, dt_s: f64) -> ObjectPlan {
    let track: PlannedTrack = req.track(from, dt_s);
    let capabilities = ObjectCapabilities::default_for(kind);
    let base = match kind {
        ObjectKind::VutRobot => Mobility::CAR,
        ObjectKind::VehiclePlatform => Mobility::PLATFORM,
        ObjectKind::PedestrianPlatform => Mobility::SMALL_PLATFORM,
    };
    ObjectPlan {
        name: name.to_string(),
        drives: if kind == ObjectKind::VutRobot {
            Drives::Vut
        } else {
            Drives::Target(name.to_string())
        },
        track,
        mobility: super::plan::mobility_within(base, &capabilities),
        capabilities,
        start_s: 0.0,
        lead_s: 0.0,
    }
}

/// Drives `plan` (see [`plan`]) on the object at `address` and measures it. The geofence of
/// `opts` is checked first (the motion and the drive back to where it started).
pub async fn characterise(
    plan: ObjectPlan,
    address: &str,
    req: &Request,
    origin: GeoOrigin,
    opts: &GroundOptions,
) -> Result<Characterisation, String> {
    req.validate()?;
    let from = plan.track.start();
    if let Some(fence) = &opts.geofence {
        if let Some(why) = super::fence::first_breach(
            fence,
            std::slice::from_ref(&plan),
            &[Some(from)],
            opts.traj_dt_s.max(0.01),
        ) {
            return Err(format!(
                "the characterisation breaks the site's geofence: {why}"
            ));
        }
    }
    let name = plan.name.clone();
    let duration = plan.track.duration_s();
    let length_m = plan.track.length_m();
    let track = plan.track.clone();
    let m = Motion::connect(vec![plan], &[address.to_string()], origin, opts).await?;
    if let Err(e) = m.arm().await {
        m.h.disarm();
        m.shutdown().await;
        return Err(e);
    }
    // No VUT telemetry drives it: the object's own MONR (supervised for loss) counts.
    let h = m.h.clone();
    let tick = tokio::spawn(async move {
        loop {
            h.telemetry();
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    m.h.start_at(tokio::time::Instant::now() + opts.start_lead);
    let end = track.end();
    let limit = Duration::from_secs_f64(duration * 2.5 + 10.0);
    let _ =
        m.h.wait_for(limit, |s| {
            s.phase == Phase::Aborted
                || s.carriers.iter().all(|c| match c.state {
                    Some(ObjectState::Running) => {
                        let p = Pose::new(c.x, c.y, c.yaw_deg.to_radians());
                        p.offset_to(&end).0 <= 0.05 && c.speed_mps.abs() < 0.01
                    }
                    Some(ObjectState::Armed | ObjectState::PreRunning) => false,
                    _ => true,
                })
        })
        .await;
    // The last MONR of the stop land before it ends.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let snap = m.stop().await;
    tick.abort();
    let monr = m.monr().into_iter().next().unwrap_or_default();
    let c = snap.carriers.first();
    let aborted = snap.phase == Phase::Aborted;
    let start_s = c.and_then(|c| c.strt_scheduled_s);
    let latency = c
        .filter(|c| c.link.span_s > 0.0)
        .map(|c| c.link.latency_ms / 1000.0);
    let final_pose = monr
        .last()
        .map(|s| super::report::PoseOut::from(Pose::new(s.x, s.y, s.yaw_deg.to_radians())));
    m.reset_objects().await;
    m.shutdown().await;
    if aborted {
        let why = crate::dispatch::ground::motion::abort_cause(&snap)
            .map(|(o, w)| format!("object {o}: {w}"))
            .unwrap_or_else(|| "aborted".into());
        return Err(format!("the characterisation was aborted: {why}"));
    }
    let start_s = start_s.ok_or("the object was never started")?;
    let measured = analyse(req, &track, start_s, &monr, latency)?;
    Ok(Characterisation {
        object: name,
        request: req.clone(),
        measured,
        from: from.into(),
        final_pose,
        length_m,
        monr_count: monr.len(),
    })
}
