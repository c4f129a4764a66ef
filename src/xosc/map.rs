//! Mapping an imported OpenSCENARIO scenario onto scil's engine.
//!
//! * The entity named `Ego` (else the first entity) is the VUT: its size from the bounding box,
//!   its reference point the OpenSCENARIO one (rear-axle centre), its speed from the Init speed
//!   action, its planned path (`vut.path`) from its trajectory, route, or lane.
//! * An entity moved by a `SynchronizeAction` is a target started by the conflict rule: the
//!   master and target positions are projected onto the VUT's and the target's paths
//!   (`conflict = { vut_s, target_s }`), the final speed is its speed, the steady-state distance
//!   or time gives its run-up.
//! * An entity that starts moving when a run-time condition holds (the VUT within a distance,
//!   the VUT's travelled distance, a simulation time) is a conflict target too: the pair
//!   `(vut_s, target_s)` is where both are in the file's nominal motion at the end of the
//!   target's run-up.
//! * An entity moving from the start is a target started at arm (`begin`), with a braking
//!   action as `brake`; an entity that never moves is a static obstruction.
//! * Variable, environment, light and entity-existence actions have no counterpart in the
//!   engine (they are bookkeeping for a simulator); stop triggers do not either (scil ends a
//!   run itself). Any other motion the engine cannot honour is an error naming the action.

mod follow;

use std::collections::HashMap;

use anyhow::{anyhow, bail, Result};
use openscenario::geom::{self, Leg, Placer, Pose, Sample};
use openscenario::model::{self as m, Action, ConditionKind, EntityKind};

use super::plan::{self, Start};
use crate::frame::yaw_to_heading;
use crate::scenario::path::PointsPath;
use crate::scenario::{
    Activation, BrakeSpec, ConflictSpec, PathSpec, Point, Scenario, TargetKind, TargetSpec, VutSpec,
};

/// Sampling step of route and lane paths (m).
const STEP_M: f64 = 0.5;
/// Largest distance of a synchronisation position from its entity's path (m): a position on
/// the road's reference line beside the lane the entity drives still names its s.
const OFF_PATH_M: f64 = 5.0;

#[derive(Default, Clone)]
struct Motion {
    pose: Option<Pose>,
    speed: f64,
    trajectory: Option<(m::Trajectory, f64)>,
    route: Option<m::Route>,
    /// A continuous distance action of Init: keeps a distance to another entity.
    follow: Option<follow::Follow>,
    /// Placed ahead of another entity by a one-off distance action: (that entity, the free
    /// space between them in m, `file:line` of the action).
    placed_ahead: Option<(String, f64, String)>,
}

struct Ctx<'a> {
    sc: &'a m::Scenario,
    placer: Placer<'a>,
    motion: HashMap<String, Motion>,
}

fn entity<'a>(sc: &'a m::Scenario, name: &str) -> Result<&'a m::Entity> {
    sc.entities
        .iter()
        .find(|e| e.name == name)
        .ok_or_else(|| anyhow!("no entity '{name}'"))
}

fn front(e: &m::Entity) -> f64 {
    e.bounding_box.center_x + 0.5 * e.bounding_box.length
}

fn rear(e: &m::Entity) -> f64 {
    0.5 * e.bounding_box.length - e.bounding_box.center_x
}

/// Whether a controller property asks for the front-axle centre as the trajectory control
/// point (a vendor key-value pair: a property named like `…ControlPoint…` whose value names
/// the front axle).
fn front_axle_control(e: &m::Entity) -> bool {
    e.controller_properties.iter().any(|(k, v)| {
        let (k, v) = (k.to_ascii_lowercase(), v.to_ascii_lowercase());
        (k.contains("controlpoint") || k.contains("control_point") || k.contains("referencepoint"))
            && v.contains("front")
    })
}

impl<'a> Ctx<'a> {
    fn set_pose(&mut self, name: &str, p: Pose) {
        self.motion.entry(name.to_string()).or_default().pose = Some(p);
        self.placer.entities.insert(name.to_string(), p);
    }

    /// Applies an action at the start (Init, or a story action at time 0 that places).
    fn apply_initial(&mut self, name: &str, a: &Action, at: &str) -> Result<()> {
        match a {
            Action::Teleport { position } => {
                let p = self.placer.pose(position)?;
                self.set_pose(name, p);
            }
            Action::Speed { target, .. } => match target {
                m::SpeedTarget::Absolute { value } => {
                    self.motion.entry(name.to_string()).or_default().speed = *value
                }
                m::SpeedTarget::Relative { .. } => {
                    bail!("{at}: a relative target speed has no counterpart in scil's engine")
                }
            },
            Action::FollowTrajectory {
                trajectory,
                initial_distance_offset,
                ..
            } => {
                let current = self.motion.get(name).and_then(|mo| mo.pose);
                if current.is_none() {
                    let samples = self.placer.sample_from(trajectory, None)?;
                    let p = geom::at_s(&samples, *initial_distance_offset).ok_or_else(|| {
                        anyhow!(
                            "{at}: initialDistanceOffset is beyond trajectory '{}'",
                            trajectory.name
                        )
                    })?;
                    self.set_pose(name, p);
                }
                self.motion.entry(name.to_string()).or_default().trajectory =
                    Some((trajectory.clone(), *initial_distance_offset));
            }
            Action::AssignRoute { route } => {
                self.motion.entry(name.to_string()).or_default().route = Some(route.clone())
            }
            Action::LongitudinalDistance {
                entity: reference,
                freespace,
                continuous,
                distance,
                time_gap,
                displacement,
                coordinate_system,
                constraints,
                at: line,
            } => {
                let r = self
                    .motion
                    .get(reference)
                    .and_then(|mo| mo.pose.map(|p| (p, mo.speed)))
                    .ok_or_else(|| anyhow!("{at}: entity '{reference}' has no position"))?;
                let d = match (distance, time_gap) {
                    (Some(d), _) => *d,
                    (None, Some(g)) => g * r.1,
                    _ => 0.0,
                };
                let me = entity(self.sc, name)?;
                let re = entity(self.sc, reference)?;
                let sign = if displacement == "trailingReferencedEntity" {
                    -1.0
                } else {
                    1.0
                };
                let along = if *freespace {
                    if sign > 0.0 {
                        front(re) + d + rear(me)
                    } else {
                        -(rear(re) + d + front(me))
                    }
                } else {
                    sign * d
                };
                // Keep the entity's lateral offset from the reference, if it has a position.
                let (c, s) = (r.0.h.cos(), r.0.h.sin());
                let lateral = self
                    .motion
                    .get(name)
                    .and_then(|mo| mo.pose)
                    .map_or(0.0, |p| -(p.x - r.0.x) * s + (p.y - r.0.y) * c);
                let p = Pose {
                    x: r.0.x + along * c - lateral * s,
                    y: r.0.y + along * s + lateral * c,
                    h: r.0.h,
                };
                self.set_pose(name, p);
                if sign > 0.0 {
                    let gap = if *freespace {
                        d
                    } else {
                        d - front(re) - rear(me)
                    };
                    self.motion
                        .entry(name.to_string())
                        .or_default()
                        .placed_ahead = Some((reference.clone(), gap, line.clone()));
                }
                if *continuous {
                    self.motion.entry(name.to_string()).or_default().follow =
                        Some(follow::Follow {
                            reference: reference.clone(),
                            time_gap: *time_gap,
                            coordinate_system: coordinate_system.clone(),
                            constraints: constraints.clone(),
                            at: line.clone(),
                        });
                }
            }
            Action::SetVariable { .. } | Action::Environment { .. } | Action::Event { .. } => {}
            Action::Synchronize { .. } => {
                bail!("{at}: a SynchronizeAction in Init is not supported")
            }
        }
        Ok(())
    }

    /// The path of an entity's reference point from its position on: its trajectory, its
    /// route, or its lane.
    fn path(&self, name: &str) -> Result<Vec<Sample>> {
        let mo = self
            .motion
            .get(name)
            .ok_or_else(|| anyhow!("entity '{name}' has no position"))?;
        let pose = mo
            .pose
            .ok_or_else(|| anyhow!("entity '{name}' has no position"))?;
        let base = if let Some((t, _)) = &mo.trajectory {
            self.placer.sample_from(t, Some(pose))?
        } else if let Some(r) = &mo.route {
            let legs = self.placer.route_legs(r)?;
            self.sample_legs(&legs, &r.name)?
        } else {
            let lp = self
                .placer
                .map
                .locate(pose.x, pose.y, Some(pose.h))
                .ok_or_else(|| anyhow!("entity '{name}' is not on a road of the map"))?;
            let road = self
                .placer
                .map
                .road(&lp.road_id)
                .ok_or_else(|| anyhow!("no road '{}'", lp.road_id))?;
            // `heading_rel` is measured from the direction of increasing s in every lane: the
            // entity drives toward the road's end when it heads along it.
            let ahead = lp.heading_rel.cos() >= 0.0;
            let end = if ahead { road.length } else { 0.0 };
            let legs = [Leg {
                road: lp.road_id.to_string(),
                s0: lp.s,
                s1: end,
            }];
            self.sample_legs(&legs, &lp.road_id)?
        };
        cut_at(&base, pose).ok_or_else(|| anyhow!("entity '{name}': its path is empty"))
    }

    fn sample_legs(&self, legs: &[Leg], name: &str) -> Result<Vec<Sample>> {
        let total = Placer::legs_length(legs);
        let n = (total / STEP_M).ceil().max(1.0) as usize;
        let mut out = Vec::with_capacity(n + 1);
        for i in 0..=n {
            let s = total * i as f64 / n as f64;
            let pose =
                self.placer
                    .route_point(legs, name, &m::InRoute::Road { path_s: s, t: 0.0 })?;
            out.push(Sample {
                pose,
                s,
                time: None,
            });
        }
        Ok(out)
    }
}

/// The part of a path from the point nearest `pose` on, shifted sideways onto `pose`.
fn cut_at(samples: &[Sample], pose: Pose) -> Option<Vec<Sample>> {
    let (s0, _) = geom::project(samples, pose.x, pose.y)?;
    let foot = geom::at_s(samples, s0)?;
    let lateral = -(pose.x - foot.x) * foot.h.sin() + (pose.y - foot.y) * foot.h.cos();
    let mut out = vec![Sample {
        pose: foot,
        s: s0,
        time: None,
    }];
    out.extend(samples.iter().filter(|p| p.s > s0 + 1e-9).copied());
    let shifted: Vec<Sample> = out
        .iter()
        .map(|p| Sample {
            pose: Pose {
                x: p.pose.x - lateral * p.pose.h.sin(),
                y: p.pose.y + lateral * p.pose.h.cos(),
                h: p.pose.h,
            },
            s: p.s - s0,
            time: p.time,
        })
        .collect();
    (shifted.len() >= 2).then_some(shifted)
}

/// Moves every point `d` along its heading (re-measuring the arc length).
fn shift_along(samples: &[Sample], d: f64) -> Vec<Sample> {
    let mut out: Vec<Sample> = Vec::with_capacity(samples.len());
    for p in samples {
        let pose = Pose {
            x: p.pose.x + d * p.pose.h.cos(),
            y: p.pose.y + d * p.pose.h.sin(),
            h: p.pose.h,
        };
        let s = out
            .last()
            .map_or(0.0, |q| q.s + (pose.x - q.pose.x).hypot(pose.y - q.pose.y));
        out.push(Sample {
            pose,
            s,
            time: p.time,
        });
    }
    out
}

/// Douglas–Peucker within 1 mm: straight stretches keep their ends only.
fn points(samples: &[Sample]) -> PathSpec {
    fn dp(p: &[Sample], keep: &mut Vec<bool>, a: usize, b: usize) {
        if b <= a + 1 {
            return;
        }
        let (ax, ay, bx, by) = (p[a].pose.x, p[a].pose.y, p[b].pose.x, p[b].pose.y);
        let l = (bx - ax).hypot(by - ay).max(1e-12);
        let (mut worst, mut wi) = (0.0, a);
        for (i, q) in p.iter().enumerate().take(b).skip(a + 1) {
            let d = ((q.pose.x - ax) * (by - ay) - (q.pose.y - ay) * (bx - ax)).abs() / l;
            if d > worst {
                worst = d;
                wi = i;
            }
        }
        if worst > 1e-3 {
            keep[wi] = true;
            dp(p, keep, a, wi);
            dp(p, keep, wi, b);
        }
    }
    let n = samples.len();
    if n == 0 {
        return PathSpec::Points(PointsPath { points: Vec::new() });
    }
    let mut keep = vec![false; n];
    keep[0] = true;
    keep[n - 1] = true;
    dp(samples, &mut keep, 0, n - 1);
    PathSpec::Points(PointsPath {
        points: samples
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(p, _)| Point {
                x: p.pose.x,
                y: p.pose.y,
            })
            .collect(),
    })
}

/// m/s → km/h without the float noise of `/3.6·3.6`.
fn kmh(v: f64) -> f64 {
    (v * 3.6 * 1e9).round() / 1e9
}

fn kind(e: &m::Entity) -> TargetKind {
    match (e.kind, e.category.as_str()) {
        (EntityKind::Pedestrian, _) => TargetKind::Pedestrian,
        (_, "bicycle") => TargetKind::Cyclist,
        (_, "motorbike") => TargetKind::Motorcycle,
        _ => TargetKind::Vehicle,
    }
}

/// Run-up of a target to `v` by a speed action's dynamics: (distance, time).
fn run_up(d: &m::Dynamics, v: f64) -> Result<(f64, f64)> {
    Ok(match (d.dimension.as_str(), d.shape.as_str()) {
        (_, "step") => (0.0, 0.0),
        ("time", "linear") => (0.5 * v * d.value, d.value),
        ("rate", "linear") if d.value > 0.0 => (v * v / (2.0 * d.value), v / d.value),
        ("distance", "linear") if v > 0.0 => (d.value, 2.0 * d.value / v),
        (dim, shape) => {
            bail!("a {shape} speed change by {dim} has no counterpart in scil's engine")
        }
    })
}

/// The scil scenario of an imported OpenSCENARIO scenario.
pub fn to_scil(sc: &m::Scenario) -> Result<Scenario> {
    let map_path = sc
        .road_network
        .as_ref()
        .ok_or_else(|| anyhow!("the scenario has no road network (RoadNetwork/LogicFile)"))?;
    let od = opendrive::OpenDrive::from_path(map_path)
        .map_err(|e| anyhow!("{}: {e}", map_path.display()))?;
    let mut cx = Ctx {
        sc,
        placer: Placer::new(&od),
        motion: HashMap::new(),
    };
    let ego_name = sc
        .entities
        .iter()
        .find(|e| e.name == "Ego")
        .or_else(|| sc.entities.first())
        .map(|e| e.name.clone())
        .ok_or_else(|| anyhow!("the scenario has no entities"))?;
    for ia in &sc.init {
        let Some(name) = &ia.entity else { continue };
        cx.apply_initial(name, &ia.action, &format!("Init of '{name}'"))?;
    }
    let steps = plan::steps(sc);
    // Placing actions at the start (teleports, distance placements) come first.
    let mut later = Vec::new();
    for st in &steps {
        let placing = matches!(
            st.action,
            Action::Teleport { .. }
                | Action::LongitudinalDistance {
                    continuous: false,
                    ..
                }
        );
        match (&st.start, placing) {
            (Start::Never, _) => {}
            (Start::At(t), true)
                if *t <= 1e-9
                    || st
                        .actors
                        .iter()
                        .all(|a| cx.motion.get(a).is_none_or(|m| m.speed == 0.0)) =>
            {
                for a in &st.actors {
                    cx.apply_initial(a, st.action, &st.at)?;
                }
            }
            _ => later.push(st),
        }
    }
    // VUT.
    let ego = entity(sc, &ego_name)?;
    let ego_motion = cx.motion.get(&ego_name).cloned().unwrap_or_default();
    let front_axle = front_axle_control(ego);
    let ahead = if front_axle {
        ego.front_axle_x.unwrap_or(0.0)
    } else {
        0.0
    };
    let ego_ref_path = cx.path(&ego_name)?;
    let vut_path = if ahead != 0.0 {
        shift_along(&ego_ref_path, ahead)
    } else {
        ego_ref_path.clone()
    };
    let ego_pose = ego_motion
        .pose
        .ok_or_else(|| anyhow!("the VUT '{ego_name}' has no position"))?;
    let reverse = {
        let p0 = vut_path[0].pose;
        (p0.h - ego_pose.h).cos() < 0.0
    };
    let v_ego = ego_motion.speed.abs();
    let mut vut = VutSpec::new(ego.bounding_box.width, ego.bounding_box.length, front(ego));
    vut.speed_kmh = Some(kmh(v_ego));
    vut.path = Some(points(&vut_path));
    vut.reverse = reverse;
    if front_axle {
        vut.control_point_to_front_m = Some(front(ego) - ahead);
    }
    for st in &later {
        if st.actors.contains(&ego_name) {
            match st.action {
                Action::SetVariable { .. } | Action::Environment { .. } | Action::Event { .. } => {}
                _ => bail!("{}: the VUT's motion is the driver's; a storyboard action moving it has no counterpart in scil's engine", st.at),
            }
        }
    }
    // Targets.
    let mut targets = Vec::new();
    let mut followers = Vec::new();
    let mut carriers = 0;
    for e in &sc.entities {
        if e.name == ego_name {
            continue;
        }
        if let Some(f) = cx.motion.get(&e.name).and_then(|mo| mo.follow.clone()) {
            followers.push((e, f));
            continue;
        }
        let mine: Vec<_> = later
            .iter()
            .filter(|s| s.actors.contains(&e.name))
            .filter(|s| {
                !matches!(
                    s.action,
                    Action::SetVariable { .. } | Action::Environment { .. } | Action::Event { .. }
                )
            })
            .collect();
        let mo = cx.motion.get(&e.name).cloned().unwrap_or_default();
        let pose = mo
            .pose
            .ok_or_else(|| anyhow!("entity '{}' has no position", e.name))?;
        let mut t = TargetSpec::new(
            &e.name,
            kind(e),
            Point {
                x: pose.x,
                y: pose.y,
            },
            yaw_to_heading(pose.h),
        );
        t.length_m = Some(e.bounding_box.length);
        t.width_m = Some(e.bounding_box.width);
        let sync = mine
            .iter()
            .find(|s| matches!(s.action, Action::Synchronize { .. }));
        let speed_starts: Vec<_> = mine
            .iter()
            .filter(|s| matches!(s.action, Action::Speed { .. }))
            .collect();
        if let Some(st) = sync {
            let Action::Synchronize {
                master,
                master_position,
                target_position,
                final_speed,
            } = st.action
            else {
                unreachable!()
            };
            if *master != ego_name {
                bail!("{}: synchronisation with '{master}' (not the VUT) has no counterpart in scil's engine", st.at);
            }
            if let Start::On(c) = &st.start {
                bail!("{}: a synchronisation started by condition '{}' has no counterpart in scil's engine", st.at, c.name);
            }
            let mp = cx.placer.pose(master_position)?;
            let mc = Pose {
                x: mp.x + ahead * mp.h.cos(),
                y: mp.y + ahead * mp.h.sin(),
                h: mp.h,
            };
            let (vut_s, off) =
                geom::project(&vut_path, mc.x, mc.y).ok_or_else(|| anyhow!("empty VUT path"))?;
            if off > OFF_PATH_M {
                bail!(
                    "{}: the master position is {off:.2} m off the VUT's path",
                    st.at
                );
            }
            let tp = cx.placer.pose(target_position)?;
            let cxb = e.bounding_box.center_x;
            // A trajectory followed once the synchronisation completes (CCFhol's lane change)
            // continues the path from the synchronisation position.
            let mut ref_path = cx.path(&e.name)?;
            let then = mine
                .iter()
                .find(|s| !std::ptr::eq(**s, *st))
                .map(|s2| follow::after_sync(&cx, st, s2, &ref_path, tp))
                .transpose()?;
            if let Some((p, _)) = &then {
                ref_path = p.clone();
            }
            let tpath = shift_along(&ref_path, cxb);
            let tc = Pose {
                x: tp.x + cxb * tp.h.cos(),
                y: tp.y + cxb * tp.h.sin(),
                h: tp.h,
            };
            let (target_s, off) =
                geom::project(&tpath, tc.x, tc.y).ok_or_else(|| anyhow!("empty path"))?;
            if off > OFF_PATH_M {
                bail!(
                    "{}: the target position is {off:.2} m off '{}''s path",
                    st.at,
                    e.name
                );
            }
            let fs = final_speed.as_ref().ok_or_else(|| anyhow!("{}: a synchronisation without a final speed has no counterpart in scil's engine", st.at))?;
            let v = fs.absolute.ok_or_else(|| {
                anyhow!(
                    "{}: a final speed relative to the master has no counterpart in scil's engine",
                    st.at
                )
            })?;
            let steady = fs
                .steady_state_distance
                .or(fs.steady_state_time.map(|t| t * v));
            t.accel_distance_m = steady.map_or(0.0, |d| (target_s - d).clamp(0.0, target_s));
            t.speed_kmh = kmh(v);
            // Impact location: the target's reference point across the VUT front, from its
            // right (nearside) edge.
            let lateral = -(tp.x - mp.x) * mp.h.sin() + (tp.y - mp.y) * mp.h.cos();
            t.overlap =
                ((lateral + 0.5 * ego.bounding_box.width) / ego.bounding_box.width).clamp(0.0, 1.0);
            let (mut vut_s, mut target_s) = (vut_s, target_s);
            if then.is_some() {
                // The target leaves its path toward the VUT after the synchronisation: the
                // pair is their nominal contact (0.1 s before it, so that the arrival is
                // measured before the impact), and the overlap is measured there.
                let (tau, lateral) = follow::contact(
                    &vut_path,
                    &tpath,
                    (vut_s, target_s),
                    (v_ego, v),
                    (front(ego) - ahead, ego.bounding_box.width),
                    (e.bounding_box.length, e.bounding_box.width),
                )
                .ok_or_else(|| {
                    anyhow!(
                        "{}: '{}' never meets the VUT after its synchronisation",
                        st.at,
                        e.name
                    )
                })?;
                let tau = (tau - 0.1).max(0.0);
                vut_s += v_ego * tau;
                target_s += v * tau;
                t.overlap = ((lateral + 0.5 * ego.bounding_box.width) / ego.bounding_box.width)
                    .clamp(0.0, 1.0);
            }
            t.activation = Activation::Conflict;
            t.path = Some(points(&tpath));
            t.conflict = Some(ConflictSpec { vut_s, target_s });
            for s in &mine {
                let consumed = then.as_ref().is_some_and(|(_, k)| std::ptr::eq(**s, *k));
                if !std::ptr::eq(*s, *st) && !consumed {
                    bail!("{}: a further motion of synchronised target '{}' has no counterpart in scil's engine", s.at, e.name);
                }
            }
        } else if mo.speed == 0.0 && !speed_starts.is_empty() {
            // Starts when a condition holds: the nominal meeting point as a conflict pair.
            let st = speed_starts[0];
            let Action::Speed {
                dynamics,
                target: m::SpeedTarget::Absolute { value: v },
            } = st.action
            else {
                bail!(
                    "{}: a relative target speed has no counterpart in scil's engine",
                    st.at
                );
            };
            let (a_d, a_t) = run_up(dynamics, *v).map_err(|err| anyhow!("{}: {err}", st.at))?;
            let tpath = shift_along(&cx.path(&e.name)?, e.bounding_box.center_x);
            let (s_t, _) = geom::project(&vut_path, pose.x, pose.y)
                .ok_or_else(|| anyhow!("empty VUT path"))?;
            let ego_s0 = 0.0;
            let ego_front = front(ego) - ahead;
            let vut_s_trigger = match &st.start {
                Start::At(t0) => ego_s0 + v_ego * t0,
                Start::Never => continue,
                Start::On(c) => match &c.kind {
                    ConditionKind::RelativeDistance {
                        entities,
                        entity: other,
                        distance_type,
                        freespace,
                        rule,
                        value,
                        ..
                    } if distance_type == "longitudinal"
                        && (rule == "lessThan" || rule == "lessOrEqual")
                        && ((entities.contains(&ego_name) && *other == e.name)
                            || (entities.contains(&e.name) && *other == ego_name)) =>
                    {
                        if *freespace {
                            s_t - rear(e) - value - ego_front
                        } else {
                            s_t - value - ahead
                        }
                    }
                    ConditionKind::TraveledDistance {
                        entities, value, ..
                    } if entities.contains(&ego_name) => ego_s0 + value,
                    _ => bail!(
                        "{}: a start on condition '{}' has no counterpart in scil's start rules",
                        st.at,
                        c.name
                    ),
                },
            };
            if vut_s_trigger < 0.0 {
                bail!(
                    "{}: the VUT starts past the point where '{}' starts",
                    st.at,
                    e.name
                );
            }
            t.activation = Activation::Conflict;
            t.speed_kmh = kmh(*v);
            t.accel_distance_m = a_d;
            t.path = Some(points(&tpath));
            // Where both are at the end of the run-up (the target's footprint centred on its
            // bounding box); a target ahead on the VUT's path that
            // the VUT then catches up with meets it later: that nominal impact is the pair.
            let (mut vut_s, mut target_s) = (vut_s_trigger + v_ego * a_t, a_d.max(1e-3));
            let along = geom::at_s(&vut_path, s_t).map_or(0.0, |p| (p.h - pose.h).cos());
            let gap = (s_t + a_d - rear(e)) - (vut_s + ego_front);
            if along > 0.9 && gap > 0.0 && v_ego > *v + 1e-6 {
                // 0.1 s before contact, so that the arrival is measured before the impact.
                let tau = (gap / (v_ego - v) - 0.1).max(0.0);
                vut_s += v_ego * tau;
                target_s += v * tau;
            }
            t.conflict = Some(ConflictSpec { vut_s, target_s });
            let lateral = -(pose.x - ego_pose.x) * ego_pose.h.sin()
                + (pose.y - ego_pose.y) * ego_pose.h.cos();
            t.overlap =
                ((lateral + 0.5 * ego.bounding_box.width) / ego.bounding_box.width).clamp(0.0, 1.0);
            for s in &mine {
                if !std::ptr::eq(*s, *st) {
                    bail!(
                        "{}: a further motion of '{}' has no counterpart in scil's engine",
                        s.at,
                        e.name
                    );
                }
            }
        } else if mo.speed > 0.0 {
            t.activation = Activation::Begin;
            // Placed its headway ahead of the VUT (CCRb/CMRb): in scil it waits for the VUT
            // to be that headway behind it (the VUT is driven, not placed).
            if let Some((reference, gap, line)) = &mo.placed_ahead {
                if *reference == ego_name {
                    if v_ego <= 0.0 || *gap <= 0.0 {
                        bail!("{line}: <LongitudinalDistanceAction>: a headway of {gap:.2} m to a VUT at {v_ego:.2} m/s has no counterpart in scil's engine (a lead vehicle needs a positive time headway)");
                    }
                    t.activation = Activation::Headway;
                    t.headway = Some(crate::scenario::HeadwaySpec::new(gap / v_ego));
                }
            }
            t.speed_kmh = kmh(mo.speed);
            t.path = Some(points(&shift_along(&cx.path(&e.name)?, -rear(e))));
            t.start = Point {
                x: f64::NAN,
                y: f64::NAN,
            };
            t.heading_deg = f64::NAN;
            for s in &mine {
                match (s.action, &s.start) {
                    (Action::Speed { dynamics, target: m::SpeedTarget::Absolute { value } }, Start::At(after))
                        if dynamics.dimension == "rate" && dynamics.shape == "linear" && dynamics.value != 0.0 && *value < mo.speed && t.brake.is_none() =>
                    {
                        t.brake = Some(BrakeSpec {
                            after_s: *after,
                            decel_mps2: dynamics.value.abs(),
                            final_kmh: kmh(value.max(0.0)),
                        });
                    }
                    (a, _) => bail!("{}: <{}> of '{}' has no counterpart in scil's engine (a moving target brakes at a constant rate, at a known time after its start, to a lower speed)", s.at, a.element(), e.name),
                }
            }
        } else {
            if let Some(s) = mine.first() {
                bail!(
                    "{}: this motion of '{}' has no counterpart in scil's engine",
                    s.at,
                    e.name
                );
            }
            t.activation = Activation::Static;
            let r = rear(e);
            t.start = Point {
                x: pose.x - r * pose.h.cos(),
                y: pose.y - r * pose.h.sin(),
            };
        }
        if let (Activation::Conflict, Some(c)) = (t.activation, &t.conflict) {
            // The trigger threshold: the target's time from its start to its conflict point
            // (run-up at constant acceleration, then its speed).
            let v = t.speed_kmh / 3.6;
            let a = t.accel_distance_m.min(c.target_s);
            t.ttc_s = Some(2.0 * a / v + (c.target_s - a) / v);
        }
        if t.activation != Activation::Static {
            carriers += 1;
            t.carrier = Some(format!("carrier-{carriers}"));
        }
        targets.push(t);
    }
    // Followers after the targets they follow (a chain in any order).
    while !followers.is_empty() {
        let Some(k) = followers
            .iter()
            .position(|(_, f)| targets.iter().any(|t: &TargetSpec| t.id == f.reference))
        else {
            let (e, f) = &followers[0];
            return Err(follow::refuse(
                f,
                "entityRef",
                if f.reference == ego_name {
                    format!("'{}' keeping a distance to the VUT '{ego_name}' has no counterpart in scil's engine (the VUT's motion is the driver's)", e.name)
                } else {
                    format!(
                        "'{}' keeps a distance to '{}', which scil does not move",
                        e.name, f.reference
                    )
                },
            ));
        };
        let (e, f) = followers.remove(k);
        let r = targets
            .iter()
            .find(|t| t.id == f.reference)
            .cloned()
            .ok_or_else(|| anyhow!("no target '{}'", f.reference))?;
        let mut t = follow::follower(&cx, e, &f, &r, &later)?;
        if t.activation != Activation::Static {
            carriers += 1;
            t.carrier = Some(format!("carrier-{carriers}"));
        }
        targets.push(t);
    }
    // A target whose run-up and steady state take longer than the VUT needs from its start to
    // the conflict could not be started in time: the VUT path then begins with a straight
    // run-up (along its initial heading) that leaves the trigger one second.
    let need = targets
        .iter()
        .filter_map(|t| Some(t.ttc_s? * v_ego + v_ego - t.conflict?.vut_s))
        .fold(0.0f64, f64::max);
    if need > 0.0 && v_ego > 0.0 {
        let p0 = vut_path[0].pose;
        let pre = Sample {
            pose: Pose {
                x: p0.x - need * p0.h.cos(),
                y: p0.y - need * p0.h.sin(),
                h: p0.h,
            },
            s: 0.0,
            time: None,
        };
        let mut longer = vec![pre];
        longer.extend(vut_path.iter().map(|p| Sample {
            s: p.s + need,
            ..*p
        }));
        vut.path = Some(points(&longer));
        for t in &mut targets {
            if let Some(c) = &mut t.conflict {
                c.vut_s += need;
            }
        }
    }
    let name = sc
        .parameters
        .get("Scenario_ID")
        .map(|v| v.as_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| {
            sc.file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "xosc".into())
        });
    let map = std::fs::canonicalize(map_path).unwrap_or_else(|_| map_path.clone());
    let out = Scenario {
        name,
        map: Some(map.to_string_lossy().into_owned()),
        vut,
        targets,
        sync: false,
        validity: None,
        catalogue_id: None,
    };
    // The scenario must pass scil's own validation.
    let text = toml::to_string(&out)?;
    Scenario::from_toml(&text).map_err(|e| anyhow!("the mapped scenario is invalid: {e}"))?;
    Ok(out)
}
