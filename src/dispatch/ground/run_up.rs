//! Run-ups each target's platform can drive: before anything is planned, every target that an
//! object carries gets the acceleration distance its platform needs to be at its test speed
//! (a jerk-limited launch at or below the platform's acceleration), its start moved back when
//! the scenario's is too short (see [`crate::scenario::launch::fit_run_up`]). Where the site's
//! geofence cannot hold the longer run-up the run is refused, naming the object, its
//! acceleration and the room it would need. A target or VUT faster than the object that
//! drives it can go is refused too, and a VUT's start from standstill is launched within its
//! robot's acceleration.

use std::sync::Arc;

use serde::Serialize;

use super::spec::{begins_with_run, lead_of, object_kind, Drives, ObjectSpec};
use crate::capabilities::{ObjectCapabilities, Source};
use crate::dispatch::motion_watch::Geofence;
use crate::frame::heading_to_yaw;
use crate::run::RunSetup;
use crate::scenario::launch::{fit_run_up, Launch, RunUp, PLANNED_SHARE};

/// What was changed of one target's run-up, for the plan and the results.
#[derive(Debug, Clone, Serialize)]
pub struct RunUpFit {
    pub target: String,
    pub object: String,
    /// The scenario's acceleration distance, m.
    pub scenario_accel_distance_m: f64,
    /// The one its platform drives, m.
    pub accel_distance_m: f64,
    /// How far its start moved back, m.
    pub moved_back_m: f64,
    /// The platform's largest acceleration, m/s².
    pub max_accel_mps2: f64,
    /// The launch's, planned below it (room for the platform's controller), m/s².
    pub planned_accel_mps2: f64,
}

/// `setup` with every carried target's run-up fitted to its object's capabilities (the same
/// setup when none needed it), and what changed. `capabilities` holds each object's resolved
/// capabilities, in the order of `objects`. With a geofence, a moved start must leave the
/// straight run-up inside it.
pub fn fit_targets(
    setup: &Arc<RunSetup>,
    objects: &[ObjectSpec],
    capabilities: &[ObjectCapabilities],
    geofence: Option<&Geofence>,
) -> Result<(Arc<RunSetup>, Vec<RunUpFit>), String> {
    let mut scenario = setup.scenario.clone();
    let mut fits = Vec::new();
    let mut engine = setup.engine.clone();
    let mut vut_launch_fitted = false;
    for (o, c) in objects.iter().zip(capabilities) {
        let kind = || object_kind(setup, &o.drives).name().replace('_', " ");
        let Drives::Target(id) = &o.drives else {
            if let Some(v) = scenario
                .vut
                .speed_kmh
                .filter(|v| v.abs() / 3.6 > c.max_speed_mps + 1e-9)
            {
                return Err(format!(
                    "object {} ({}) drives at most {:.1} km/h ({}); the VUT is to drive {:.1} km/h",
                    o.name,
                    kind(),
                    c.max_speed_mps * 3.6,
                    source_words(c.sources.get("max_speed_mps")),
                    v.abs()
                ));
            }
            // A start from standstill is launched at no more than the robot's planned share
            // of its acceleration: the rehearsal, the robot's track and the engine's launch
            // model (which cues it and predicts its arrival) then agree on what it drives.
            // Its acceleration ramps up and down at the planned jerk (a robot cannot step it),
            // over the same time and distance.
            if let Some(l) = scenario.vut.launch.as_mut() {
                let within = PLANNED_SHARE * c.max_accel_mps2;
                if l.accel_mps2 > within + 1e-9 {
                    l.accel_mps2 = within;
                    vut_launch_fitted = true;
                }
                if l.jerk_mps3.is_none() {
                    l.jerk_mps3 = Some(crate::scenario::launch::LAUNCH_JERK_MPS3);
                    vut_launch_fitted = true;
                }
            }
            continue;
        };
        let Some(t) = scenario.targets.iter_mut().find(|t| &t.id == id) else {
            continue;
        };
        // Its start command goes out its dead time ahead (its trajectory stands that long).
        // One started with the run gets its lead once planned ([`begins_with_run`]).
        let lead = lead_of(c);
        if lead > 0.0 && !begins_with_run(&scenario.vut, t) {
            engine.start_leads_s.insert(id.clone(), lead);
        }
        if t.speed_kmh.abs() / 3.6 > c.max_speed_mps + 1e-9 {
            return Err(format!(
                "object {} ({}) drives at most {:.1} km/h ({}); target {id} is to drive {:.1} km/h",
                o.name,
                kind(),
                c.max_speed_mps * 3.6,
                source_words(c.sources.get("max_speed_mps")),
                t.speed_kmh.abs()
            ));
        }
        let before = (t.start, t.heading_deg, t.path.clone());
        let Some(RunUp {
            was_m,
            accel_distance_m,
            moved_back_m,
            accel_mps2,
        }) = fit_run_up(t, Launch::planned_for(c.max_accel_mps2))?
        else {
            continue;
        };
        if let (Some(fence), true) = (geofence, moved_back_m > 0.0) {
            let yaw = match &before.2 {
                Some(p) => p.geometry().map(|g| g.pose(0.0).2)?,
                None => heading_to_yaw(before.1),
            };
            let room = room_behind(fence, before.0.x, before.0.y, yaw, moved_back_m);
            if room + 1e-6 < moved_back_m {
                return Err(format!(
                    "object {} ({}) accelerates at most {:.2} m/s² ({}): reaching {:.1} km/h at {:.2} m/s² needs a run-up of {:.1} m, its start {:.1} m further back than the scenario's at ({:.1}, {:.1}); the geofence leaves {:.1} m there",
                    o.name,
                    kind(),
                    c.max_accel_mps2,
                    source_words(c.sources.get("max_accel_mps2")),
                    t.speed_kmh,
                    accel_mps2,
                    accel_distance_m,
                    moved_back_m,
                    before.0.x,
                    before.0.y,
                    room
                ));
            }
        }
        fits.push(RunUpFit {
            target: id.clone(),
            object: o.name.clone(),
            scenario_accel_distance_m: was_m,
            accel_distance_m,
            moved_back_m,
            max_accel_mps2: c.max_accel_mps2,
            planned_accel_mps2: accel_mps2,
        });
    }
    if fits.is_empty() && !vut_launch_fitted && engine.start_leads_s == setup.engine.start_leads_s {
        return Ok((setup.clone(), fits));
    }
    let fitted = RunSetup::try_new(scenario, setup.map.clone(), engine)
        .map_err(|e| format!("scenario with fitted run-ups: {e:#}"))?;
    Ok((Arc::new(fitted), fits))
}

/// How far back from (x, y), against heading `yaw`, the fence stays clear, up to `want` m
/// (checked every 0.1 m).
fn room_behind(fence: &Geofence, x: f64, y: f64, yaw: f64, want: f64) -> f64 {
    let step = 0.1;
    let n = (want / step).ceil() as usize;
    let mut room = 0.0;
    for k in 1..=n {
        let d = (k as f64 * step).min(want);
        if fence.breach(x - d * yaw.cos(), y - d * yaw.sin()).is_some() {
            return room;
        }
        room = d;
    }
    room
}

fn source_words(s: Option<&Source>) -> String {
    match s {
        None | Some(Source::Default) => "the default for its kind".into(),
        Some(Source::Configured { by }) => format!("set by {by}"),
        Some(Source::Measured { date }) => format!("measured on {date}"),
        Some(Source::Identified { what }) => format!("as {what}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capabilities::ObjectKind;

    fn fence(x0: f64, x1: f64) -> Geofence {
        Geofence {
            permitted: vec![[x0, -100.0], [x1, -100.0], [x1, 100.0], [x0, 100.0]],
            forbidden: Vec::new(),
        }
    }

    #[test]
    fn the_room_behind_a_start_ends_at_the_fence() {
        let f = fence(-5.0, 100.0);
        assert!((room_behind(&f, 0.0, 0.0, 0.0, 30.0) - 4.9).abs() < 0.11);
        assert!((room_behind(&f, 0.0, 0.0, std::f64::consts::PI, 30.0) - 30.0).abs() < 1e-9);
    }

    #[test]
    fn source_words_say_where_a_figure_came_from() {
        let c = ObjectCapabilities::default_for(ObjectKind::VehiclePlatform);
        assert_eq!(
            source_words(c.sources.get("max_accel_mps2")),
            "the default for its kind"
        );
    }
}
