//! Lane-departure rows (Emergency Lane Keeping) on a straight lane: the VUT drives the lane
//! centre, then drifts out of it at the cell's lateral speed (a [`DriftSpec`] on its planned
//! path) so that its outer edge reaches the lane's edge at the placement point.
//!
//! * **Road edge** (`ELK RE`): the drift is to the right, towards the road edge; no target.
//! * **With a target** (`CC/CM ELK On`, `OvU`, `OvI`): the drift is to the left, into the
//!   adjacent lane, where a GVT or motorcycle target drives the lane's centre: towards the VUT
//!   at the VUT's speed (oncoming, `On`) or from behind 10 km/h faster (overtaking, `Ov`). The
//!   target is a conflict target, started and synchronised so that the drifting VUT's front
//!   corner touches its side at the cell's impact location (0 its front end, 1 its rear end;
//!   0.5 by default) — where the test's collision happens when nothing intervenes.

use super::conflict::Setup;
use super::straight::station;
use super::{round6, Cell, Family, Params, Row};
use crate::frame::yaw_to_heading;
use crate::scenario::catalogue::{self, lane_station_at_x};
use crate::scenario::path::{lane_polyline, LanePath, PointsPath, Polyline};
use crate::scenario::validity::ValiditySpec;
use crate::scenario::{
    Activation, ConflictSpec, DriftSpec, ImpactOn, PathSpec, Point, Scenario, TargetKind,
    TargetSpec,
};

/// Straight lane the VUT needs before its drift begins, s (at its speed).
const APPROACH_S: f64 = 2.0;

pub(crate) fn place(
    row: &Row,
    cell: &Cell,
    p: &Params,
    map: &opendrive::OpenDrive,
) -> Result<Scenario, String> {
    let lateral = cell
        .lateral_mps
        .ok_or_else(|| format!("{}: needs a lateral speed", row.id))?;
    let oncoming = row.id.ends_with(" On");
    let lane = match p.lane {
        Some(l) => l,
        None => elk_lane(row, oncoming, p, map)?,
    };
    let mut on_lane = p.clone();
    on_lane.lane = Some(lane);
    let (x0, lane, st) = station(&on_lane, map)?;
    let v = cell.vut_kmh / 3.6;
    let mut vut = p.vut.clone();
    vut.speed_kmh = Some(cell.vut_kmh);
    let lane_path = LanePath {
        road: st.road.clone(),
        lane,
        s_from: round6(st.s_from),
        s_to: round6(st.s_to),
        t_offset: 0.0,
    };
    let centre = lane_polyline(map, &lane_path)?;
    let cline = Polyline::new(&centre).ok_or("the VUT's lane is too short")?;
    let with_target = row.family == Family::ElkTarget;
    // Left (+) into the adjacent lane, right (−) towards the road edge.
    let sign = if with_target { 1.0 } else { -1.0 };
    // The entry into the drift: the 1200 m arc, shortened when the lateral speed would not be
    // reached before half the way to the lane's edge.
    let k = lateral / v;
    let drift_to = |edge: f64| DriftSpec {
        from_s: 0.0,
        lateral_mps: sign * lateral,
        entry_m: Some(round6(
            (k * DriftSpec::ENTRY_RADIUS_M)
                .min(edge / k.max(1e-9))
                .max(1.0),
        )),
    };
    let width_at = |x: f64| -> Result<(f64, catalogue::LaneStation), String> {
        let here = lane_station_at_x(map, Some(&st.road), lane, x)?;
        let road = map
            .road(&st.road)
            .ok_or_else(|| format!("{}: road '{}' missing", row.id, st.road))?;
        let (a, b) = road.lane_span(lane, here.s).ok_or_else(|| {
            format!(
                "{}: road '{}' has no lane {lane} at s = {:.1}",
                row.id, st.road, here.s
            )
        })?;
        Ok(((b - a).abs(), here))
    };
    let (lane_w, _) = width_at(x0)?;
    let edge = 0.5 * (lane_w - vut.width_m);
    if edge <= 0.0 {
        return Err(format!(
            "{}: the lane ({lane_w:.2} m) is narrower than the VUT",
            row.id
        ));
    }
    let u = drift_to(edge)
        .s_at_offset(sign * edge, v)
        .ok_or_else(|| format!("{}: no drift at lateral speed {lateral}", row.id))?;
    // The outer edge reaches the lane's edge at `impact_x` when given, else as early on the
    // straight as the approach allows (leaving the most room beyond it).
    let x_here = match p.impact_x {
        Some(x) => x,
        None => cline.pose(APPROACH_S * v + u).0,
    };
    let (lane_w, here) = width_at(x_here)?;
    let edge = 0.5 * (lane_w - vut.width_m);
    let unit = drift_to(edge);
    let u = unit
        .s_at_offset(sign * edge, v)
        .ok_or_else(|| format!("{}: no drift at lateral speed {lateral}", row.id))?;
    let s_here = cline.project(here.x, here.y);
    let from_s = s_here - u;
    if from_s < APPROACH_S * v - 1e-6 || s_here > cline.length() {
        return Err(format!(
            "{}: the straight lane is {:.0} m long; the drift at {lateral} m/s and {} km/h needs {:.0} m",
            row.id,
            cline.length(),
            cell.vut_kmh,
            u + APPROACH_S * v
        ));
    }
    vut.path = Some(PathSpec::Lane(lane_path));
    vut.drift = Some(DriftSpec {
        from_s: round6(from_s),
        ..unit
    });
    let mut sc = Scenario {
        name: String::new(),
        map: None,
        vut: vut.clone(),
        targets: Vec::new(),
        sync: with_target,
        // As in the turning tests: yaw and steering-wheel rates judged up to the drift's start,
        // the lateral deviation from the drifting path.
        validity: Some(ValiditySpec {
            steer_at_path_s: Some(round6(from_s)),
            ..Default::default()
        }),
        catalogue_id: None,
    };
    if !with_target {
        return Ok(sc);
    }
    let kind = row.target.unwrap_or(TargetKind::Vehicle);
    let target_kmh = if oncoming || p.target_speed_kmh.is_some() {
        cell.target_kmh
    } else {
        cell.target_kmh + 10.0
    };
    let v_t = target_kmh / 3.6;
    // The adjacent lane's centre, `lane_w` to the left of the VUT's lane, straight through the
    // placement point; in the target's driving direction, from well before the meeting to
    // past it.
    let (c, s) = (here.hdg.cos(), here.hdg.sin());
    let before = (8.0 * v_t).max(60.0) + 100.0;
    // The robustness layer's lateral offset: further from the VUT (positive) or closer.
    let beside = lane_w + p.robustness.lateral_away_m;
    if !(0.0..=1.0).contains(&cell.impact) {
        return Err(format!(
            "{}: impact location {} is outside the target (0 its front, 1 its rear)",
            row.id, cell.impact
        ));
    }
    // Where the meeting is (around where the VUT's outer edge reaches the target's near
    // side), ahead of the placement point at a slow drift: an overtaking target's path runs
    // 60 m past it, so that its object is still at speed there, not braking for its path's
    // end (an oncoming target's ends 60 m behind the placement point, past the meeting).
    let w_t = TargetSpec::new("", kind, Point { x: 0.0, y: 0.0 }, 0.0)
        .footprint()
        .1;
    let meet_ahead = unit
        .s_at_offset(beside - 0.5 * (vut.width_m + w_t), v)
        .map_or(0.0, |u_reach| (from_s + u_reach - s_here).max(0.0));
    let (from, to) = if oncoming {
        (before, -60.0)
    } else {
        (-before, 60.0 + meet_ahead)
    };
    let n = ((from - to).abs() / 0.5).ceil() as usize;
    let pts: Vec<Point> = (0..=n)
        .map(|k| {
            let along = from + (to - from) * k as f64 / n as f64;
            Point {
                x: round6(here.x + along * c - beside * s),
                y: round6(here.y + along * s + beside * c),
            }
        })
        .collect();
    let tline = Polyline::new(&pts).ok_or("target path")?;
    let mut t = TargetSpec::new(
        if kind == TargetKind::Motorcycle {
            "emt"
        } else {
            "gvt"
        },
        kind,
        pts[0],
        0.0,
    );
    t.carrier = p.carrier.clone();
    t.speed_kmh = target_kmh;
    t.activation = Activation::Conflict;
    t.impact_on = ImpactOn::TargetSide;
    t.overlap = cell.impact;
    // The path the drifting VUT drives (the lane centre resolved, the drift applied).
    let mut resolved = vut.clone();
    resolved.path = Some(PathSpec::Points(PointsPath { points: centre }));
    let driven = resolved.driven_points().ok_or("the VUT's path")?;
    let vline = Polyline::new(&driven).ok_or("the VUT's path")?;
    // Around where the VUT's outer edge would reach the target's near side.
    let (_, w_t) = t.footprint();
    let reach = beside - 0.5 * (vut.width_m + w_t);
    let s_ref = unit
        .s_at_offset(reach, v)
        .map_or(s_here, |u_reach| from_s + u_reach);
    let (rx, ry, _) = vline.pose(s_ref);
    let q_ref = tline.project(rx, ry);
    let setup = Setup {
        vut: &resolved,
        vpath: &vline,
        tpath: &tline,
        footprint: t.footprint(),
        v_vut: v,
        v_target: v_t,
        on: ImpactOn::TargetSide,
    };
    let (vs, ts) = setup
        .solve(cell.impact, s_ref, q_ref)
        .map_err(|e| format!("{}: {e}", row.id))?;
    if ts <= t.accel_distance_m + 1.0 {
        return Err(format!(
            "{}: the target's path is too short before the conflict point",
            row.id
        ));
    }
    t.conflict = Some(ConflictSpec {
        vut_s: round6(vs),
        target_s: round6(ts),
    });
    let (sx, sy, syaw) = tline.pose(0.0);
    t.start = Point {
        x: round6(sx),
        y: round6(sy),
    };
    t.heading_deg = round6(yaw_to_heading(syaw));
    t.path = Some(PathSpec::Points(PointsPath { points: pts }));
    sc.targets.push(t);
    Ok(sc)
}

/// The VUT's lane when none is given: the outermost right-hand driving lane towards the road
/// edge and for an overtaking target (which then drives the lane to its left, in the same
/// direction), lane −1 for an oncoming target (the lane to its left is the other direction's).
fn elk_lane(
    row: &Row,
    oncoming: bool,
    p: &Params,
    map: &opendrive::OpenDrive,
) -> Result<i32, String> {
    let st = super::straight::longest_straight(map, p.road.as_deref(), Some(-1))
        .ok_or("no straight driving lane on this map")?;
    let road = map
        .road(&st.road)
        .ok_or_else(|| format!("{}: road '{}' missing", row.id, st.road))?;
    let s_mid = 0.5 * (st.s_from + st.s_to);
    let sec = road
        .section_index(s_mid)
        .and_then(|i| road.lane_sections.get(i))
        .ok_or_else(|| format!("{}: road '{}' has no lanes", row.id, st.road))?;
    let driving = |l: &&opendrive::model::Lane| l.lane_type == "driving";
    let right = sec.right.iter().take_while(driving).count() as i32;
    let left = sec.left.iter().take_while(driving).count();
    if oncoming {
        if left == 0 {
            return Err(format!(
                "{}: road '{}' has no oncoming driving lane beside the VUT's",
                row.id, st.road
            ));
        }
        return Ok(-1);
    }
    if row.family == Family::ElkTarget && right < 2 {
        return Err(format!(
            "{}: road '{}' has one driving lane in the VUT's direction; the overtaking target needs a second",
            row.id, st.road
        ));
    }
    Ok(-right.max(1))
}
