//! A continuous `LongitudinalDistanceAction` in Init (CCFhol: the overtaken vehicle keeps its
//! distance ahead of the GVT): the follower becomes a target with its reference target's start
//! rule and speed profile on a path of its own, so it moves by the same distance along its
//! path as the reference along its own, at the same instants. That keeps the distance exactly
//! while both paths run side by side in the action's coordinate system (checked along the
//! whole following), and scil's engine honours it without a notion of following. What it
//! cannot honour (following the VUT, a time gap while the reference accelerates, a
//! constraint the reference's profile breaks, `coordinateSystem="trajectory"`, paths that are
//! not side by side) is an error naming the element, the attribute and its line.

use anyhow::{anyhow, bail, Result};
use openscenario::geom::{self, Sample};
use openscenario::model::{self as m, Action, ConditionKind};

use super::super::plan::{Start, Step};
use super::{entity, points, rear, shift_along, Ctx};
use crate::scenario::{Activation, Point, TargetSpec};

/// Largest change of the kept distance along the following (m).
const KEPT_M: f64 = 0.05;

/// A continuous distance action of Init, as read.
#[derive(Debug, Clone)]
pub(super) struct Follow {
    pub reference: String,
    pub time_gap: Option<f64>,
    pub coordinate_system: String,
    pub constraints: Option<m::DynamicConstraints>,
    /// `file:line` of the action.
    pub at: String,
}

pub(super) fn refuse(f: &Follow, attr: &str, why: String) -> anyhow::Error {
    anyhow!(
        "{}: <LongitudinalDistanceAction>: attribute '{attr}': {why}",
        f.at
    )
}

/// The target of follower `e` from the already mapped target of its reference.
pub(super) fn follower(
    cx: &Ctx,
    e: &m::Entity,
    f: &Follow,
    r: &TargetSpec,
    later: &[&Step],
) -> Result<TargetSpec> {
    if f.coordinate_system == "trajectory" {
        return Err(refuse(
            f,
            "coordinateSystem",
            "a distance along a trajectory has no counterpart in scil's engine (entity, lane and road have)".into(),
        ));
    }
    let v = r.speed_kmh / 3.6;
    let run_up = r.activation == Activation::Conflict && r.accel_distance_m > 0.0;
    let step_up = r.activation == Activation::Conflict && r.accel_distance_m <= 0.0 && v > 0.0;
    if f.time_gap.is_some() && (run_up || step_up || r.brake.is_some()) {
        return Err(refuse(
            f,
            "timeGap",
            format!("'{}' changes its speed, and a time gap then changes the distance: no counterpart in scil's engine (give a distance)", r.id),
        ));
    }
    if let Some(c) = &f.constraints {
        let lim = |attr: &str, why: String| {
            anyhow!("{}: <DynamicConstraints>: attribute '{attr}': {why}", c.at)
        };
        if let Some(max) = c.max_speed.filter(|x| v > *x + 1e-9) {
            return Err(lim(
                "maxSpeed",
                format!(
                    "{max} m/s is below the speed of '{}' ({v:.3} m/s) that the distance needs",
                    r.id
                ),
            ));
        }
        let accel = if run_up {
            v * v / (2.0 * r.accel_distance_m)
        } else if step_up {
            f64::INFINITY
        } else {
            0.0
        };
        if let Some(max) = c.max_acceleration.filter(|x| accel > *x + 1e-9) {
            return Err(lim("maxAcceleration", format!("{max} m/s² is below the run-up of '{}' ({accel:.3} m/s²) that the distance needs", r.id)));
        }
        if let (Some(max), Some(b)) = (c.max_deceleration, r.brake) {
            if b.decel_mps2 > max + 1e-9 {
                return Err(lim(
                    "maxDeceleration",
                    format!(
                        "{max} m/s² is below the braking of '{}' ({} m/s²) that the distance needs",
                        r.id, b.decel_mps2
                    ),
                ));
            }
        }
        for (attr, limit, changes) in [
            ("maxAccelerationRate", c.max_acceleration_rate, accel > 0.0),
            (
                "maxDecelerationRate",
                c.max_deceleration_rate,
                accel > 0.0 || r.brake.is_some(),
            ),
        ] {
            if limit.is_some() && changes {
                return Err(lim(attr, format!("'{}' changes its acceleration stepwise (scil's targets do): the distance needs an unlimited rate", r.id)));
            }
        }
    }
    // The follower's own later motion: a speed action to the reference's final speed once the
    // reference has reached it ends the following without changing the motion.
    let mine: Vec<&&Step> = later
        .iter()
        .filter(|s| s.actors.contains(&e.name))
        .filter(|s| {
            !matches!(
                s.action,
                Action::SetVariable { .. } | Action::Environment { .. } | Action::Event { .. }
            )
        })
        .collect();
    let sync = later.iter().find(|s| {
        s.actors.contains(&f.reference) && matches!(s.action, Action::Synchronize { .. })
    });
    let mut follow_ends = false;
    for s in &mine {
        let same_speed = matches!(s.action, Action::Speed { target: m::SpeedTarget::Absolute { value }, .. } if (value - v).abs() < 1e-6);
        let after_run_up = match &s.start {
            Start::At(_) => !run_up && !step_up,
            Start::On(c) => match (&c.kind, sync) {
                (ConditionKind::StoryboardElementState { element, state, .. }, Some(sy)) => {
                    (state == "completeState" || state == "endTransition")
                        && (sy.maneuver == *element || sy.at.split('/').any(|p| p == element))
                }
                _ => false,
            },
            Start::Never => true,
        };
        if !same_speed || !after_run_up || r.brake.is_some() {
            bail!("{}: this motion of '{}' (keeping its distance to '{}' by {}) has no counterpart in scil's engine: only a speed action to the speed of '{}' once it has reached it", s.at, e.name, f.reference, f.at, f.reference);
        }
        follow_ends = true;
    }
    let mut t = r.clone();
    t.id = e.name.clone();
    t.kind = super::kind(e);
    t.length_m = Some(e.bounding_box.length);
    t.width_m = Some(e.bounding_box.width);
    t.carrier = None;
    let re = entity(cx.sc, &f.reference)?;
    let (mine_path, ref_path) = match r.activation {
        Activation::Static => {
            let pose = cx
                .motion
                .get(&e.name)
                .and_then(|mo| mo.pose)
                .ok_or_else(|| anyhow!("entity '{}' has no position", e.name))?;
            let back = rear(e);
            t.start = Point {
                x: pose.x - back * pose.h.cos(),
                y: pose.y - back * pose.h.sin(),
            };
            t.heading_deg = crate::frame::yaw_to_heading(pose.h);
            return Ok(t);
        }
        Activation::Begin => (
            shift_along(&cx.path(&e.name)?, -rear(e)),
            shift_along(&cx.path(&f.reference)?, -rear(re)),
        ),
        _ => (
            shift_along(&cx.path(&e.name)?, e.bounding_box.center_x),
            shift_along(&cx.path(&f.reference)?, re.bounding_box.center_x),
        ),
    };
    // How far the following reaches along the paths: to the end of the reference's
    // synchronisation when a speed action then takes over, else as far as both go.
    let common = mine_path
        .last()
        .map_or(0.0, |p| p.s)
        .min(ref_path.last().map_or(0.0, |p| p.s));
    let end = match (&r.conflict, follow_ends) {
        (Some(c), true) => c.target_s.min(common),
        _ => common,
    };
    check_side_by_side(cx, f, e, re, &mine_path, &ref_path, end)?;
    t.path = Some(points(&mine_path));
    Ok(t)
}

/// The distance between the two reference points in the action's coordinate system stays
/// what it is at the start (within [`KEPT_M`]) from 0 to `end` along both paths.
fn check_side_by_side(
    cx: &Ctx,
    f: &Follow,
    e: &m::Entity,
    re: &m::Entity,
    mine: &[Sample],
    reference: &[Sample],
    end: f64,
) -> Result<()> {
    let gap = |s: f64| -> Result<f64> {
        let (a, b) = geom::at_s(mine, s)
            .zip(geom::at_s(reference, s))
            .ok_or_else(|| anyhow!("empty path"))?;
        if f.coordinate_system == "entity" {
            return Ok((a.x - b.x) * b.h.cos() + (a.y - b.y) * b.h.sin());
        }
        let map = cx.placer.map;
        let (la, lb) = map
            .locate(a.x, a.y, Some(a.h))
            .zip(map.locate(b.x, b.y, Some(b.h)))
            .ok_or_else(|| {
                refuse(
                    f,
                    "coordinateSystem",
                    format!(
                        "'{}' or '{}' leaves the roads of the map at {s:.1} m",
                        e.name, re.name
                    ),
                )
            })?;
        if la.road_id != lb.road_id {
            return Err(refuse(f, "coordinateSystem", format!("'{}' and '{}' are on different roads at {s:.1} m: no counterpart in scil's engine", e.name, re.name)));
        }
        let along = if lb.heading_rel.cos() >= 0.0 {
            1.0
        } else {
            -1.0
        };
        Ok(along * (la.s - lb.s))
    };
    let g0 = gap(0.0)?;
    let n = (end / 1.0).ceil().max(1.0) as usize;
    for i in 0..=n {
        let s = end * i as f64 / n as f64;
        let g = gap(s)?;
        if (g - g0).abs() > KEPT_M {
            return Err(refuse(f, "coordinateSystem", format!("'{}' and '{}' do not drive side by side: the distance changes by {:.2} m at {s:.1} m along their paths (no counterpart in scil's engine)", e.name, re.name, g - g0)));
        }
    }
    Ok(())
}

/// `st` synchronises the entity; `next` is its one further motion. A FollowTrajectoryAction
/// without timing (position mode, no initial offset) that starts when the synchronisation
/// completes is honoured: the path runs along `path` to the synchronisation position (`tp`
/// projected onto it), then along the trajectory from the entity's pose there, then straight
/// on. Returns the new path and the step it used.
pub(super) fn after_sync<'s, 'a>(
    cx: &Ctx,
    st: &Step,
    next: &'s &'s Step<'a>,
    path: &[Sample],
    tp: geom::Pose,
) -> Result<(Vec<Sample>, &'s Step<'a>)> {
    let refuse = || {
        anyhow!("{}: a further motion of a synchronised target has no counterpart in scil's engine (a trajectory without timing once the synchronisation completes has)", next.at)
    };
    let Action::FollowTrajectory {
        trajectory,
        timing: None,
        initial_distance_offset,
        ..
    } = next.action
    else {
        return Err(refuse());
    };
    let completes = match &next.start {
        Start::On(c) => {
            matches!(&c.kind, ConditionKind::StoryboardElementState { element, state, .. }
            if (state == "completeState" || state == "endTransition")
                && (st.maneuver == *element || st.at.split('/').any(|p| p == element)))
        }
        _ => false,
    };
    if !completes || *initial_distance_offset != 0.0 {
        return Err(refuse());
    }
    let (s_sync, _) = geom::project(path, tp.x, tp.y).ok_or_else(|| anyhow!("empty path"))?;
    let at = geom::at_s(path, s_sync).ok_or_else(|| anyhow!("empty path"))?;
    let traj = cx.placer.sample_from(trajectory, Some(at))?;
    let mut out: Vec<Sample> = path
        .iter()
        .filter(|p| p.s < s_sync - 1e-9)
        .copied()
        .collect();
    let base = out.last().map_or(0.0, |p| p.s);
    let mut last = out.last().map(|p| p.pose);
    for q in &traj {
        let s = match last {
            Some(l) => {
                base.max(out.last().map_or(0.0, |p| p.s)) + (q.pose.x - l.x).hypot(q.pose.y - l.y)
            }
            None => 0.0,
        };
        out.push(Sample {
            pose: q.pose,
            s,
            time: None,
        });
        last = Some(q.pose);
    }
    // Straight on after the trajectory (as far as the path went before).
    if let Some(end) = out.last().copied() {
        let rest = (path.last().map_or(0.0, |p| p.s) - s_sync).max(50.0);
        out.push(Sample {
            pose: geom::Pose {
                x: end.pose.x + rest * end.pose.h.cos(),
                y: end.pose.y + rest * end.pose.h.sin(),
                h: end.pose.h,
            },
            s: end.s + rest,
            time: None,
        });
    }
    Ok((out, *next))
}

/// The nominal contact after a synchronisation whose target then leaves its path toward the
/// VUT (CCFhol): both drive on at constant speed from the pair (`vut_s`, `target_s`); returns
/// the time τ until the target's footprint (`len` × `wid`, centred on `tpath`) first touches
/// the VUT's front (`front` ahead of its control point on `vpath`, `vw` wide), and the target
/// centre's offset to the left of the VUT there. `None` when they do not meet within 60 s.
#[allow(clippy::too_many_arguments)]
pub(super) fn contact(
    vpath: &[Sample],
    tpath: &[Sample],
    (vut_s, target_s): (f64, f64),
    (v_ego, v): (f64, f64),
    (front, vw): (f64, f64),
    (len, wid): (f64, f64),
) -> Option<(f64, f64)> {
    let dt = 0.01;
    for k in 0..6000 {
        let tau = k as f64 * dt;
        let pv = geom::at_s(vpath, vut_s + v_ego * tau)?;
        let pt = geom::at_s(tpath, target_s + v * tau)?;
        let (c, s) = (pv.h.cos(), pv.h.sin());
        let (ct, st) = (pt.h.cos(), pt.h.sin());
        let mut lon = f64::INFINITY;
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for (a, b) in [(0.5, 0.5), (0.5, -0.5), (-0.5, 0.5), (-0.5, -0.5)] {
            let x = pt.x + a * len * ct - b * wid * st - pv.x;
            let y = pt.y + a * len * st + b * wid * ct - pv.y;
            lon = lon.min(x * c + y * s);
            let lat = -x * s + y * c;
            lo = lo.min(lat);
            hi = hi.max(lat);
        }
        if lon <= front && lo < 0.5 * vw && hi > -0.5 * vw && lon > front - len - 1.0 {
            let lateral = -(pt.x - pv.x) * s + (pt.y - pv.y) * c;
            return Some((tau, lateral));
        }
    }
    None
}
