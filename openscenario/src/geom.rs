//! Positions and trajectories on an OpenDRIVE map: world poses of every position type, routes
//! through junctions, polylines and clothoid splines sampled by arc length.
//!
//! Conventions (as common OpenSCENARIO players read them): a lane position's `offset` and a road
//! position's `t` are positive to the left of the road's reference direction; a lane or road
//! position without orientation heads in the lane's driving direction (right-hand traffic:
//! negative lanes along s, positive lanes against it), a relative orientation adds to that
//! heading; an entity's pose is its reference point (the rear-axle centre of a vehicle).

use std::collections::HashMap;

use opendrive::OpenDrive;

use crate::model::*;
use crate::Error;

/// A map pose: x, y (m), heading (rad, counter-clockwise from +x).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    pub x: f64,
    pub y: f64,
    pub h: f64,
}

/// A sampled trajectory point: pose, arc length, and time where the trajectory has times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub pose: Pose,
    pub s: f64,
    pub time: Option<f64>,
}

/// Resolution of sampled clothoid splines (m).
pub const CLOTHOID_STEP_M: f64 = 0.1;

/// Places positions on a map; entity poses feed relative positions.
pub struct Placer<'a> {
    pub map: &'a OpenDrive,
    pub entities: HashMap<String, Pose>,
}

fn gerr(msg: impl Into<String>) -> Error {
    Error::Geometry(msg.into())
}

/// One stretch of a route: a road from `s0` to `s1` (s1 < s0 travels against s).
#[derive(Debug, Clone)]
pub struct Leg {
    pub road: String,
    pub s0: f64,
    pub s1: f64,
}

impl Leg {
    pub fn dir(&self) -> f64 {
        if self.s1 >= self.s0 {
            1.0
        } else {
            -1.0
        }
    }
    pub fn len(&self) -> f64 {
        (self.s1 - self.s0).abs()
    }
}

impl<'a> Placer<'a> {
    pub fn new(map: &'a OpenDrive) -> Placer<'a> {
        Placer {
            map,
            entities: HashMap::new(),
        }
    }

    fn road(&self, id: &str) -> Result<&opendrive::model::Road, Error> {
        self.map
            .road(id)
            .ok_or_else(|| gerr(format!("the map has no road '{id}'")))
    }

    fn entity(&self, name: &str) -> Result<Pose, Error> {
        self.entities
            .get(name)
            .copied()
            .ok_or_else(|| gerr(format!("entity '{name}' has no position yet")))
    }

    /// Pose on lane `lane` of `road` at `s` with `offset`; heading along the lane's driving
    /// direction.
    pub fn lane_pose(&self, road: &str, lane: i32, s: f64, offset: f64) -> Result<Pose, Error> {
        let r = self.road(road)?;
        if !(-1e-6..=r.length + 1e-6).contains(&s) {
            return Err(gerr(format!(
                "s = {s} is outside road '{road}' (length {})",
                r.length
            )));
        }
        let s = s.clamp(0.0, r.length);
        let (a, b) = r
            .lane_span(lane, s)
            .ok_or_else(|| gerr(format!("road '{road}' has no lane {lane} at s = {s}")))?;
        let (x, y) = r.st_to_xy(s, 0.5 * (a + b) + offset);
        let (_, _, hdg) = r.reference(s);
        let h = if lane > 0 {
            hdg + std::f64::consts::PI
        } else {
            hdg
        };
        Ok(Pose { x, y, h })
    }

    fn road_pose(&self, road: &str, s: f64, t: f64) -> Result<Pose, Error> {
        let r = self.road(road)?;
        if !(-1e-6..=r.length + 1e-6).contains(&s) {
            return Err(gerr(format!(
                "s = {s} is outside road '{road}' (length {})",
                r.length
            )));
        }
        let s = s.clamp(0.0, r.length);
        let (x, y) = r.st_to_xy(s, t);
        let (_, _, hdg) = r.reference(s);
        // The driving direction at t: right of the reference line along s (right-hand traffic).
        let h = if t > 0.0 {
            hdg + std::f64::consts::PI
        } else {
            hdg
        };
        Ok(Pose { x, y, h })
    }

    /// The world pose of a position.
    pub fn pose(&self, p: &Position) -> Result<Pose, Error> {
        let orient = |base: Pose, o: &Option<Orientation>| match o {
            None => base,
            Some(o) if o.relative => Pose {
                h: base.h + o.h,
                ..base
            },
            Some(o) => Pose { h: o.h, ..base },
        };
        match p {
            Position::World { x, y, h, .. } => Ok(Pose {
                x: *x,
                y: *y,
                h: h.unwrap_or(0.0),
            }),
            Position::Lane {
                road,
                lane,
                s,
                offset,
                orientation,
            } => Ok(orient(
                self.lane_pose(road, *lane, *s, *offset)?,
                orientation,
            )),
            Position::Road {
                road,
                s,
                t,
                orientation,
            } => {
                let mut base = self.road_pose(road, *s, *t)?;
                if orientation.is_some() {
                    base.h = self
                        .road(road)?
                        .reference(s.clamp(0.0, self.road(road)?.length))
                        .2;
                }
                Ok(orient(base, orientation))
            }
            Position::RelativeObject {
                entity,
                dx,
                dy,
                orientation,
            } => {
                let e = self.entity(entity)?;
                let (c, s) = (e.h.cos(), e.h.sin());
                Ok(orient(
                    Pose {
                        x: e.x + dx * c - dy * s,
                        y: e.y + dx * s + dy * c,
                        h: e.h,
                    },
                    orientation,
                ))
            }
            Position::RelativeWorld {
                entity,
                dx,
                dy,
                orientation,
            } => {
                let e = self.entity(entity)?;
                Ok(orient(
                    Pose {
                        x: e.x + dx,
                        y: e.y + dy,
                        h: e.h,
                    },
                    orientation,
                ))
            }
            Position::RelativeLane {
                entity,
                dlane,
                ds,
                ds_lane,
                offset,
                orientation,
            } => {
                let e = self.entity(entity)?;
                let lp = self
                    .map
                    .locate(e.x, e.y, Some(e.h))
                    .ok_or_else(|| gerr(format!("entity '{entity}' is not on a lane")))?;
                let mut lane = lp.lane_id + dlane;
                if lp.lane_id.signum() != lane.signum() || lane == 0 {
                    // Lane 0 is the centre line: counting moves over it.
                    lane += if *dlane > 0 { 1 } else { -1 };
                }
                let along = if lp.lane_id > 0 { -1.0 } else { 1.0 };
                let d = ds.or(*ds_lane).unwrap_or(0.0);
                let base = self.lane_pose(&lp.road_id, lane, lp.s + along * d, *offset)?;
                Ok(orient(base, orientation))
            }
            Position::RelativeRoad {
                entity,
                ds,
                dt,
                orientation,
            } => {
                let e = self.entity(entity)?;
                let lp = self
                    .map
                    .locate(e.x, e.y, Some(e.h))
                    .ok_or_else(|| gerr(format!("entity '{entity}' is not on a road")))?;
                let r = self.road(&lp.road_id)?;
                let s = lp.s + ds;
                let (x, y) = self
                    .map
                    .st_to_xy(&lp.road_id, s, lp.t + dt)
                    .ok_or_else(|| gerr(format!("s = {s} is outside road '{}'", lp.road_id)))?;
                let hdg = r.reference(s).2;
                Ok(orient(Pose { x, y, h: hdg }, orientation))
            }
            Position::Route {
                route,
                in_route,
                orientation,
            } => {
                let legs = self.route_legs(route)?;
                Ok(orient(
                    self.route_point(&legs, &route.name, in_route)?,
                    orientation,
                ))
            }
            Position::Trajectory {
                trajectory,
                s,
                t,
                orientation,
            } => {
                let samples = self.sample(trajectory)?;
                let p = at_s(&samples, *s).ok_or_else(|| {
                    gerr(format!(
                        "s = {s} is outside trajectory '{}'",
                        trajectory.name
                    ))
                })?;
                let (c, sn) = (p.h.cos(), p.h.sin());
                let base = Pose {
                    x: p.x - t * sn,
                    y: p.y + t * c,
                    h: p.h,
                };
                Ok(orient(base, orientation))
            }
        }
    }

    /// The pose at a route position, given the route's legs; heading along the route.
    pub fn route_point(&self, legs: &[Leg], name: &str, in_route: &InRoute) -> Result<Pose, Error> {
        let (path_s, lane, t) = match in_route {
            InRoute::Lane {
                path_s,
                lane,
                lane_offset,
            } => (*path_s, Some(*lane), *lane_offset),
            InRoute::Road { path_s, t } => (*path_s, None, *t),
        };
        let total: f64 = legs.iter().map(Leg::len).sum();
        if path_s < -1e-6 || path_s > total + 1e-6 {
            return Err(gerr(format!(
                "pathS = {path_s} is outside route '{name}' (length {total:.3})"
            )));
        }
        let mut acc = 0.0;
        for (i, l) in legs.iter().enumerate() {
            if path_s <= acc + l.len() || i + 1 == legs.len() {
                let s = (l.s0 + l.dir() * (path_s - acc)).clamp(l.s0.min(l.s1), l.s0.max(l.s1));
                let mut pose = match lane {
                    Some(lane) => self.lane_pose(&l.road, lane, s, t)?,
                    None => self.road_pose(&l.road, s, l.dir() * t)?,
                };
                let hdg = self.road(&l.road)?.reference(s).2;
                pose.h = if l.dir() > 0.0 {
                    hdg
                } else {
                    hdg + std::f64::consts::PI
                };
                return Ok(pose);
            }
            acc += l.len();
        }
        Err(gerr(format!("route '{name}' is empty")))
    }

    /// Total length of route legs.
    pub fn legs_length(legs: &[Leg]) -> f64 {
        legs.iter().map(Leg::len).sum()
    }

    /// The legs of a route: waypoint to waypoint along roads (the shortest way through the
    /// road and junction links).
    pub fn route_legs(&self, route: &Route) -> Result<Vec<Leg>, Error> {
        let mut legs: Vec<Leg> = Vec::new();
        for w in route.waypoints.windows(2) {
            let (a, la) = self.road_s(&w[0])?;
            let (b, lb) = self.road_s(&w[1])?;
            let mut part = self.connect(&a, &b, la, lb).ok_or_else(|| {
                gerr(format!(
                    "route '{}': no way along the road links from road '{}' to road '{}'",
                    route.name, a.0, b.0
                ))
            })?;
            legs.append(&mut part);
        }
        Ok(legs)
    }

    /// Road, s and driving direction hint (+1 along s, -1 against) of a waypoint.
    fn road_s(&self, p: &Position) -> Result<((String, f64), Option<f64>), Error> {
        match p {
            Position::Lane { road, lane, s, .. } => {
                Ok(((road.clone(), *s), Some(if *lane > 0 { -1.0 } else { 1.0 })))
            }
            Position::Road { road, s, .. } => Ok(((road.clone(), *s), None)),
            other => {
                let pose = self.pose(other)?;
                let lp = self
                    .map
                    .locate(pose.x, pose.y, Some(pose.h))
                    .ok_or_else(|| gerr("a route waypoint is not on a road"))?;
                Ok((
                    (lp.road_id.to_string(), lp.s),
                    Some(if lp.lane_id > 0 { -1.0 } else { 1.0 }),
                ))
            }
        }
    }

    /// Shortest leg sequence from (road a, s) to (road b, s) (Dijkstra over road ends).
    fn connect(
        &self,
        a: &(String, f64),
        b: &(String, f64),
        dir_a: Option<f64>,
        _dir_b: Option<f64>,
    ) -> Option<Vec<Leg>> {
        if a.0 == b.0 && dir_a.is_none_or(|d| d * (b.1 - a.1) >= 0.0) {
            return Some(vec![Leg {
                road: a.0.clone(),
                s0: a.1,
                s1: b.1,
            }]);
        }
        // State: (road, entered at s), with the legs so far and their length.
        let ra = self.map.road(&a.0)?;
        let mut frontier: Vec<(f64, Vec<Leg>)> = Vec::new();
        for d in [1.0, -1.0] {
            if dir_a.is_some_and(|h| h != d) {
                continue;
            }
            let end = if d > 0.0 { ra.length } else { 0.0 };
            frontier.push((
                (end - a.1).abs(),
                vec![Leg {
                    road: a.0.clone(),
                    s0: a.1,
                    s1: end,
                }],
            ));
        }
        let mut best: Option<(f64, Vec<Leg>)> = None;
        let mut seen: HashMap<(String, bool), f64> = HashMap::new();
        while let Some(i) =
            (0..frontier.len()).min_by(|&i, &j| frontier[i].0.total_cmp(&frontier[j].0))
        {
            let (cost, legs) = frontier.swap_remove(i);
            if best.as_ref().is_some_and(|(c, _)| *c <= cost) {
                break;
            }
            let last = legs.last()?.clone();
            let r = self.map.road(&last.road)?;
            // A leg ends at one end of its road: the far end leaves by the successor.
            let at_end = last.s1 > 0.5 * r.length;
            let link = if at_end {
                r.successor.as_ref()
            } else {
                r.predecessor.as_ref()
            };
            let Some(link) = link else { continue };
            let mut nexts: Vec<(String, bool)> = Vec::new(); // (road, entered at start)
            if link.element_type == "road" {
                nexts.push((
                    link.element_id.clone(),
                    link.contact_point.as_deref() != Some("end"),
                ));
            } else if let Some(j) = self.map.junctions.iter().find(|j| j.id == link.element_id) {
                for c in &j.connections {
                    if c.incoming_road == last.road {
                        if let Some(cr) = &c.connecting_road {
                            nexts.push((cr.clone(), c.contact_point.as_deref() != Some("end")));
                        }
                    }
                }
            }
            for (nr, from_start) in nexts {
                let Some(rr) = self.map.road(&nr) else {
                    continue;
                };
                if seen
                    .get(&(nr.clone(), from_start))
                    .is_some_and(|c| *c <= cost)
                {
                    continue;
                }
                seen.insert((nr.clone(), from_start), cost);
                let entry = if from_start { 0.0 } else { rr.length };
                if nr == b.0 {
                    let ok = if from_start {
                        b.1 >= entry
                    } else {
                        b.1 <= entry
                    };
                    if ok {
                        let mut l2 = legs.clone();
                        l2.push(Leg {
                            road: nr.clone(),
                            s0: entry,
                            s1: b.1,
                        });
                        let c2 = cost + (b.1 - entry).abs();
                        if best.as_ref().is_none_or(|(c, _)| c2 < *c) {
                            best = Some((c2, l2));
                        }
                    }
                }
                if legs.len() < 32 {
                    let exit = if from_start { rr.length } else { 0.0 };
                    let mut l2 = legs.clone();
                    l2.push(Leg {
                        road: nr.clone(),
                        s0: entry,
                        s1: exit,
                    });
                    frontier.push((cost + rr.length, l2));
                }
            }
        }
        best.map(|(_, l)| l)
    }

    /// Samples a trajectory by arc length: a polyline at its vertices, a clothoid spline every
    /// [`CLOTHOID_STEP_M`] (and at every segment end).
    pub fn sample(&self, t: &Trajectory) -> Result<Vec<Sample>, Error> {
        self.sample_from(t, None)
    }

    /// [`Placer::sample`] for an entity at `current` (a clothoid spline whose first segment
    /// has no start position starts there, as the standard says).
    pub fn sample_from(&self, t: &Trajectory, current: Option<Pose>) -> Result<Vec<Sample>, Error> {
        match &t.shape {
            Shape::Polyline { vertices } => {
                let mut out: Vec<Sample> = Vec::with_capacity(vertices.len());
                for v in vertices {
                    let p = self.pose(&v.position)?;
                    let s = match out.last() {
                        Some(prev) => prev.s + (p.x - prev.pose.x).hypot(p.y - prev.pose.y),
                        None => 0.0,
                    };
                    out.push(Sample {
                        pose: p,
                        s,
                        time: v.time,
                    });
                }
                if out.len() < 2 {
                    return Err(gerr(format!("trajectory '{}' needs two vertices", t.name)));
                }
                // Headings along the segments (a vertex takes its outgoing segment's).
                for i in 0..out.len() {
                    let (a, b) = if i + 1 < out.len() {
                        (i, i + 1)
                    } else {
                        (i - 1, i)
                    };
                    let (dx, dy) = (out[b].pose.x - out[a].pose.x, out[b].pose.y - out[a].pose.y);
                    if dx.hypot(dy) > 1e-9 {
                        out[i].pose.h = dy.atan2(dx);
                    }
                }
                Ok(out)
            }
            Shape::ClothoidSpline { segments, time_end } => {
                let mut out: Vec<Sample> = Vec::new();
                let mut pose = match &segments[0].position_start {
                    Some(p) => self.pose(p)?,
                    None => current.ok_or_else(|| {
                        gerr(format!(
                            "trajectory '{}' starts at the entity's position, which is not known here",
                            t.name
                        ))
                    })?,
                };
                let mut s_acc = 0.0;
                for (k, seg) in segments.iter().enumerate() {
                    if k > 0 {
                        if let Some(p) = &seg.position_start {
                            pose = self.pose(p)?;
                        }
                    }
                    pose.h += seg.h_offset;
                    let n = (seg.length / CLOTHOID_STEP_M).ceil().max(1.0) as usize;
                    let time = |i: usize| -> Option<f64> {
                        let t0 = seg.time_start?;
                        let t1 = segments
                            .get(k + 1)
                            .and_then(|n| n.time_start)
                            .or(*time_end)?;
                        Some(t0 + (t1 - t0) * i as f64 / n as f64)
                    };
                    if k == 0 || seg.position_start.is_some() || out.is_empty() {
                        out.push(Sample {
                            pose,
                            s: s_acc,
                            time: time(0),
                        });
                    }
                    let start = pose;
                    for i in 1..=n {
                        let ds = seg.length * i as f64 / n as f64;
                        let p = clothoid_at(
                            start,
                            seg.curvature_start,
                            seg.curvature_end,
                            seg.length,
                            ds,
                        );
                        out.push(Sample {
                            pose: p,
                            s: s_acc + ds,
                            time: time(i),
                        });
                    }
                    pose = clothoid_at(
                        start,
                        seg.curvature_start,
                        seg.curvature_end,
                        seg.length,
                        seg.length,
                    );
                    s_acc += seg.length;
                }
                Ok(out)
            }
        }
    }
}

/// Pose at arc length `ds` along a clothoid segment (curvature linear from k0 to k1 over
/// `len`) starting at `p`: the heading in closed form, the position by 8-point Gauss–Legendre
/// quadrature over sub-intervals of at most 0.5 m.
pub fn clothoid_at(p: Pose, k0: f64, k1: f64, len: f64, ds: f64) -> Pose {
    let dk = (k1 - k0) / len;
    let heading = |u: f64| p.h + k0 * u + 0.5 * dk * u * u;
    const X: [f64; 4] = [
        0.183_434_642_495_649_8,
        0.525_532_409_916_329,
        0.796_666_477_413_626_7,
        0.960_289_856_497_536_3,
    ];
    const W: [f64; 4] = [
        0.362_683_783_378_362,
        0.313_706_645_877_887_3,
        0.222_381_034_453_374_5,
        0.101_228_536_290_376_3,
    ];
    let n = (ds / 0.5).ceil().max(1.0) as usize;
    let (mut x, mut y) = (p.x, p.y);
    for i in 0..n {
        let a = ds * i as f64 / n as f64;
        let b = ds * (i + 1) as f64 / n as f64;
        let (m, r) = (0.5 * (a + b), 0.5 * (b - a));
        for j in 0..4 {
            for sgn in [-1.0, 1.0] {
                let th = heading(m + sgn * r * X[j]);
                x += r * W[j] * th.cos();
                y += r * W[j] * th.sin();
            }
        }
    }
    Pose {
        x,
        y,
        h: heading(ds),
    }
}

/// Pose at arc length `s` of a sampled trajectory (linear between samples).
pub fn at_s(samples: &[Sample], s: f64) -> Option<Pose> {
    let last = samples.last()?;
    if s < -1e-6 || s > last.s + 1e-6 {
        return None;
    }
    let i = samples.partition_point(|p| p.s < s).min(samples.len() - 1);
    if i == 0 {
        return Some(samples[0].pose);
    }
    let (a, b) = (&samples[i - 1], &samples[i]);
    let f = if b.s > a.s {
        (s - a.s) / (b.s - a.s)
    } else {
        0.0
    };
    Some(Pose {
        x: a.pose.x + f * (b.pose.x - a.pose.x),
        y: a.pose.y + f * (b.pose.y - a.pose.y),
        h: if f < 0.5 { a.pose.h } else { b.pose.h },
    })
}

/// Arc length of the point of `samples` nearest to (x, y) (projection onto the segments).
pub fn project(samples: &[Sample], x: f64, y: f64) -> Option<(f64, f64)> {
    let mut best: Option<(f64, f64)> = None; // (distance, s)
    for w in samples.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        let (dx, dy) = (b.pose.x - a.pose.x, b.pose.y - a.pose.y);
        let l2 = dx * dx + dy * dy;
        let f = if l2 > 0.0 {
            (((x - a.pose.x) * dx + (y - a.pose.y) * dy) / l2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let (px, py) = (a.pose.x + f * dx, a.pose.y + f * dy);
        let d = (x - px).hypot(y - py);
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, a.s + f * (b.s - a.s)));
        }
    }
    best.map(|(d, s)| (s, d))
}
