//! Rows on a straight lane: crossing (nearside/farside, obstructed), longitudinal, rear (also
//! braking) and head-on (also with a lane change).

use super::conflict::Setup;
use super::{round6, Cell, Family, Params, Row};
use crate::frame::yaw_to_heading;
use crate::scenario::catalogue::{self, lane_station_at_x, Catalogue as Legacy};
use crate::scenario::path::{LanePath, PointsPath, Polyline, SegmentSpec, SegmentsPath};
use crate::scenario::{
    Activation, BrakeSpec, ConflictSpec, HeadwaySpec, PathSpec, Point, Scenario, TargetKind,
    TargetSpec,
};

/// A straight stretch of a driving lane: road, lane, s range (in driving direction order:
/// `s_from` upstream).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stretch {
    pub road: String,
    pub lane: i32,
    pub s_from: f64,
    pub s_to: f64,
}

impl Stretch {
    pub fn length(&self) -> f64 {
        (self.s_to - self.s_from).abs()
    }
}

/// The longest straight stretch of a driving lane on the map (heading constant within 0.05°
/// over 1 m steps), preferring right-hand lanes (negative ids) outside junctions.
pub(crate) fn longest_straight(
    map: &opendrive::OpenDrive,
    road: Option<&str>,
    lane: Option<i32>,
) -> Option<Stretch> {
    let mut best: Option<Stretch> = None;
    for r in &map.roads {
        if r.in_junction() || road.is_some_and(|id| id != r.id) {
            continue;
        }
        let lanes: Vec<i32> = match lane {
            Some(l) => vec![l],
            None => vec![-1],
        };
        for l in lanes {
            let n = r.length.floor() as usize;
            let mut run_start: Option<(f64, f64)> = None;
            let check = |from: f64, to: f64, best: &mut Option<Stretch>| {
                let len = to - from;
                if best.as_ref().is_none_or(|b| len > b.length() + 1e-9) && len > 1.0 {
                    let (s_from, s_to) = if l < 0 { (from, to) } else { (to, from) };
                    *best = Some(Stretch {
                        road: r.id.clone(),
                        lane: l,
                        s_from,
                        s_to,
                    });
                }
            };
            let mut last_s = 0.0;
            for k in 0..=n {
                let s = (k as f64).min(r.length);
                let Some(h) = r.lane_center_heading(l, s) else {
                    if let Some((s0, _)) = run_start.take() {
                        check(s0, last_s, &mut best);
                    }
                    continue;
                };
                match run_start {
                    Some((_, h0))
                        if opendrive::wrap_angle(h - h0).abs() < 0.05_f64.to_radians() => {}
                    Some((s0, _)) => {
                        check(s0, last_s, &mut best);
                        run_start = Some((s, h));
                    }
                    None => run_start = Some((s, h)),
                }
                last_s = s;
            }
            if let Some((s0, _)) = run_start {
                check(s0, r.length, &mut best);
            }
        }
    }
    best
}

/// The legacy catalogue entry a straight row is built from (its geometry and speeds).
fn legacy_entry(row: &Row) -> Result<catalogue::Entry, String> {
    let legacy = Legacy::bundled();
    let base = match (row.family, row.target) {
        (Family::CrossingNearside, Some(TargetKind::Pedestrian)) if row.obstructed => "CPNCO-50",
        (Family::CrossingNearside, Some(TargetKind::Pedestrian)) => "CPNA-75",
        (Family::CrossingFarside, Some(TargetKind::Pedestrian)) => "CPFA-50",
        (Family::CrossingNearside, Some(TargetKind::Cyclist)) => "CBNA-50",
        (Family::CrossingFarside, Some(TargetKind::Cyclist)) => "CBFA-50",
        (Family::Longitudinal, Some(TargetKind::Pedestrian)) => "CPLA-50",
        (Family::Longitudinal, Some(TargetKind::Cyclist)) => "CBLA-50",
        _ => return Err(format!("{}: no straight-lane layout for this row", row.id)),
    };
    let mut e = legacy
        .get(base)
        .cloned()
        .ok_or_else(|| format!("{}: layout {base} missing", row.id))?;
    if row.obstructed && e.obstruction.is_none() {
        e.obstruction = legacy.get("CPNCO-50").and_then(|o| o.obstruction);
    }
    Ok(e)
}

/// Where on the map a straight row goes: the given x and lane, or 80 % along the longest
/// straight (so that the run-up and the run-out both fit).
pub(crate) fn station(
    p: &Params,
    map: &opendrive::OpenDrive,
) -> Result<(f64, i32, Stretch), String> {
    let st = longest_straight(map, p.road.as_deref(), p.lane)
        .ok_or("no straight driving lane on this map")?;
    let lane = p.lane.unwrap_or(st.lane);
    let x = match p.impact_x {
        Some(x) => x,
        None => {
            let s = st.s_from + 0.8 * (st.s_to - st.s_from);
            map.lane_center(&st.road, lane, s)
                .map(|q| q.x)
                .ok_or("the straight lane has no centre")?
        }
    };
    Ok((x, lane, st))
}

pub(crate) fn place(
    row: &Row,
    cell: &Cell,
    p: &Params,
    map: &opendrive::OpenDrive,
) -> Result<Scenario, String> {
    let (x, lane, st) = station(p, map)?;
    if matches!(row.family, Family::Rear | Family::RearBraking) {
        return rear(row, cell, p, map, x, lane, &st);
    }
    let mut e = legacy_entry(row)?;
    // The legacy layouts measure the crossing overlap from the side the target comes from.
    let overlap = match row.family {
        Family::CrossingFarside => 1.0 - cell.impact,
        _ => cell.impact,
    };
    e.overlaps = vec![round6(overlap)];
    e.target_speed_kmh = vec![cell.target_kmh];
    e.vut_speed_kmh.min = e.vut_speed_kmh.min.min(cell.vut_kmh);
    e.vut_speed_kmh.max = e.vut_speed_kmh.max.max(cell.vut_kmh);
    let mut lp = catalogue::Params::new(cell.vut_kmh, x, lane);
    lp.road = Some(st.road.clone());
    lp.carrier = p.carrier.clone();
    lp.vut = p.vut.clone();
    let mut sc = e.instantiate(&lp, map)?;
    sc.vut.path = Some(PathSpec::Lane(LanePath {
        road: st.road.clone(),
        lane,
        s_from: round6(st.s_from),
        s_to: round6(st.s_to),
        t_offset: 0.0,
    }));
    if let Some(t) = sc.targets.first_mut() {
        t.kind = row.target.unwrap_or(t.kind);
        // A target along the lane stays on the straight (beyond it the path goes on straight).
        if let Some(PathSpec::Lane(l)) = t.path.as_mut() {
            l.s_to = round6(st.s_to);
        }
    }
    Ok(sc)
}

/// How long a lead vehicle keeps its headway before it brakes (s): Vector's
/// `Target_braking_delay`; the protocol's validity window opens 1 s before the braking.
pub(crate) const HEADWAY_HOLD_S: f64 = 3.0;

/// Nominal travel of a braking lead from its start to contact with a VUT that keeps its speed
/// `v` (m/s), headway `h` (s), hold `hold` (s), deceleration `a` (m/s²): the gap `h·v` closes
/// as ½·a·t² while the lead still moves, else the VUT meets it where it stopped.
pub(crate) fn braking_lead_travel(v: f64, h: f64, hold: f64, a: f64) -> f64 {
    let t_c = (2.0 * h * v / a).sqrt();
    if t_c <= v / a {
        v * hold + v * t_c - 0.5 * a * t_c * t_c
    } else {
        v * hold + v * v / (2.0 * a)
    }
}

/// Rear rows: the target's centre `(0.5 − impact)·w` right of the VUT's lane centre, its rear
/// end at x; moving targets drive the lane. Braking rows: the lead waits in the lane, starts at
/// the VUT's speed when the VUT is its headway behind it (`activation = "headway"`), keeps
/// that headway for [`HEADWAY_HOLD_S`] and brakes; it waits upstream of x by its nominal travel
/// to contact, so that without intervention the impact happens at x.
fn rear(
    row: &Row,
    cell: &Cell,
    p: &Params,
    map: &opendrive::OpenDrive,
    x: f64,
    lane: i32,
    st: &Stretch,
) -> Result<Scenario, String> {
    let mut station = lane_station_at_x(map, Some(&st.road), lane, x)?;
    let braking = row.family == Family::RearBraking;
    let decel = row.decel_mps2.unwrap_or(4.0) + p.robustness.decel_mps2;
    let headway = row.headway_s.unwrap_or(1.0) + p.robustness.headway_s;
    if braking {
        if decel <= 0.0 || headway <= 0.0 {
            return Err(format!(
                "{}: deceleration {decel} m/s² and headway {headway} s must be positive",
                row.id
            ));
        }
        let v = cell.vut_kmh / 3.6;
        let back = braking_lead_travel(v, headway, HEADWAY_HOLD_S, decel);
        // Upstream along the lane, keeping room for the VUT to be its headway behind.
        let dir = if st.s_to >= st.s_from { 1.0 } else { -1.0 };
        let room = headway * v + p.vut.length_m + 2.0;
        let mut s_start = station.s - dir * back;
        if (s_start - st.s_from) * dir < room {
            s_start = st.s_from + dir * room.min(st.length());
        }
        let q = map
            .lane_center(&st.road, lane, s_start)
            .ok_or("the straight lane has no centre where the lead waits")?;
        station = crate::scenario::catalogue::LaneStation {
            road: st.road.clone(),
            s: s_start,
            x: q.x,
            y: q.y,
            hdg: station.hdg,
        };
    }
    let w = p.vut.width_m;
    let rightward = (0.5 - cell.impact) * w;
    let (c, s) = (station.hdg.cos(), station.hdg.sin());
    let start = Point {
        x: round6(station.x + rightward * s),
        y: round6(station.y - rightward * c),
    };
    let kind = row.target.unwrap_or(TargetKind::Vehicle);
    let mut t = TargetSpec::new("lead", kind, start, round6(yaw_to_heading(station.hdg)));
    t.carrier = p.carrier.clone();
    t.speed_kmh = if braking {
        cell.vut_kmh
    } else {
        cell.target_kmh
    };
    t.overlap = cell.impact.clamp(0.0, 1.0);
    t.length_m = Some(if kind == TargetKind::Motorcycle {
        2.2
    } else {
        4.0
    });
    t.activation = if braking {
        Activation::Headway
    } else if t.speed_kmh > 0.0 {
        Activation::Begin
    } else {
        Activation::Static
    };
    // To the end of the straight (beyond it the path goes on straight).
    let end = st.s_to;
    if t.activation != Activation::Static && (end - station.s).abs() >= 1.0 {
        t.path = Some(PathSpec::Lane(LanePath {
            road: station.road.clone(),
            lane,
            s_from: round6(station.s),
            s_to: round6(end),
            t_offset: round6(if lane < 0 { -rightward } else { rightward }),
        }));
    }
    if braking {
        t.headway = Some(HeadwaySpec::new(round6(headway)));
        t.brake = Some(BrakeSpec {
            after_s: HEADWAY_HOLD_S,
            decel_mps2: round6(decel),
            final_kmh: 0.0,
        });
    }
    let mut vut = p.vut.clone();
    vut.speed_kmh = Some(cell.vut_kmh);
    vut.path = Some(PathSpec::Lane(LanePath {
        road: st.road.clone(),
        lane,
        s_from: round6(st.s_from),
        s_to: round6(st.s_to),
        t_offset: 0.0,
    }));
    Ok(Scenario {
        name: String::new(),
        map: None,
        vut,
        targets: vec![t],
        sync: false,
        validity: Some(Default::default()),
        catalogue_id: None,
    })
}

/// Head-on rows: the target comes towards the VUT in its lane, its centreline at the impact
/// location across the VUT's width (from the VUT's right edge: 0.5 = centred, 1.0 = on the
/// VUT's left edge, as Vector's `ImpactLocation`), i.e. `(location − 0.5)·w` left of the VUT's
/// centreline; with a lane change it starts in the oncoming lane and changes into the VUT's
/// lane (3.5 m over 44–88 m by its speed, see [`super::lane_change`]) while overtaking a
/// slower car.
pub(crate) fn head_on(
    row: &Row,
    cell: &Cell,
    p: &Params,
    map: &opendrive::OpenDrive,
) -> Result<Scenario, String> {
    let (x, lane, st) = station(p, map)?;
    let station = lane_station_at_x(map, Some(&st.road), lane, x)?;
    let mut vut = p.vut.clone();
    vut.speed_kmh = Some(cell.vut_kmh);
    let vpts = crate::scenario::path::lane_polyline(
        map,
        &LanePath {
            road: st.road.clone(),
            lane,
            s_from: st.s_from,
            s_to: st.s_to,
            t_offset: 0.0,
        },
    )?;
    let vline = Polyline::new(&vpts).ok_or("the VUT's lane is too short")?;
    let (c, s) = (station.hdg.cos(), station.hdg.sin());
    let w = vut.width_m;
    let left = (cell.impact - 0.5) * w;
    let v_t = cell.target_kmh / 3.6;
    // The target's path, in its own driving direction (towards −heading), centred `left` to the
    // VUT's left: from far ahead of the meeting point to well past it.
    let ahead = (6.0 * v_t).max(60.0) + 100.0;
    let changes_lane = row.family == Family::HeadOnLaneChange;
    let lane_w = 3.5;
    let change = changes_lane
        .then(|| super::lane_change::for_speed(v_t, lane_w))
        .transpose()?;
    let change_len = change.as_ref().map_or(0.0, |c| c.span_m);
    let (from, to) = (ahead, -60.0);
    // Lane change: in the oncoming lane (lane_w further left) until `change_end + change_len`
    // along, in the VUT's lane from `change_end` on.
    let change_end = 25.0;
    let at = |along: f64, lat: f64| Point {
        x: round6(station.x + along * c - lat * s),
        y: round6(station.y + along * s + lat * c),
    };
    let tspec = if let Some(change) = change {
        let start = at(from, left + lane_w);
        let mut segments = vec![SegmentSpec::line(round6(from - change_end - change_len))];
        segments.extend(change.segments);
        segments.push(SegmentSpec::line(round6(change_end - to)));
        PathSpec::Segments(SegmentsPath {
            start,
            heading_deg: round6(yaw_to_heading(station.hdg + std::f64::consts::PI)),
            segments,
        })
    } else {
        PathSpec::Points(PointsPath {
            points: vec![at(from, left), at(to, left)],
        })
    };
    let tline = tspec.geometry()?;
    let kind = row.target.unwrap_or(TargetKind::Vehicle);
    let (sx, sy, _) = tline.pose(0.0);
    let mut t = TargetSpec::new("gvt", kind, Point { x: sx, y: sy }, 0.0);
    t.carrier = p.carrier.clone();
    t.speed_kmh = cell.target_kmh;
    t.activation = Activation::Conflict;
    t.overlap = cell.impact;
    t.path = Some(tspec);
    let setup = Setup {
        vut: &vut,
        vpath: &vline,
        tpath: &tline,
        footprint: t.footprint(),
        v_vut: cell.vut_kmh / 3.6,
        v_target: v_t,
        on: t.impact_on,
    };
    // The paths run side by side: they meet where the target passes the station.
    let s_ref = vline.project(station.x, station.y);
    let q_ref = tline.project(station.x, station.y);
    let (vs, ts) = setup.solve(cell.impact, s_ref, q_ref)?;
    t.conflict = Some(ConflictSpec {
        vut_s: round6(vs),
        target_s: round6(ts),
    });
    let (sx, sy, syaw) = tline.pose(0.0);
    t.start = Point { x: sx, y: sy };
    t.heading_deg = round6(yaw_to_heading(syaw));
    let mut targets = vec![t];
    if changes_lane {
        // The overtaken car: in the oncoming lane, 30 km/h slower, alongside the target
        // when it pulls out.
        let opts = vec![at(from, left + lane_w), at(to, left + lane_w)];
        let mut o = TargetSpec::new("overtaken", TargetKind::Vehicle, opts[0], 0.0);
        let ov = (cell.target_kmh - 30.0).max(10.0);
        o.speed_kmh = ov;
        o.activation = Activation::Conflict;
        o.path = Some(PathSpec::Points(PointsPath {
            points: opts.clone(),
        }));
        // When the target starts its change the overtaken car is 15 m ahead of it.
        let ts = targets[0].conflict.map_or(0.0, |c| c.target_s);
        let q_change = (ahead - change_end - change_len).max(0.0);
        let dt = (ts - q_change) / v_t;
        o.conflict = Some(ConflictSpec {
            vut_s: round6(vs - dt * cell.vut_kmh / 3.6),
            target_s: round6(q_change + 15.0),
        });
        let (ox, oy, oyaw) = Polyline::new(&opts).ok_or("path")?.pose(0.0);
        o.start = Point { x: ox, y: oy };
        o.heading_deg = round6(yaw_to_heading(oyaw));
        targets.push(o);
    }
    vut.path = Some(PathSpec::Points(PointsPath { points: vpts }));
    Ok(Scenario {
        name: String::new(),
        map: None,
        vut,
        targets,
        sync: true,
        validity: Some(Default::default()),
        catalogue_id: None,
    })
}
