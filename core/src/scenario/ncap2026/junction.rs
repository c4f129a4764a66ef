//! Rows at a junction: turn across path (the VUT turns farside or nearside on the protocol's
//! clothoid–arc–clothoid path; a pedestrian crossing the road it turns into, a cyclist along
//! its approach road, or an oncoming car or motorcycle) and straight crossing path (a car or
//! motorcycle from the left or right arm).
//!
//! The junction is read from the map: its incoming roads (the arms), the end of each arm at the
//! junction, the lane that drives towards it and the lane that drives away (right-hand
//! traffic), and the arms' directions around the junction's centre. The VUT approaches on the
//! first arm in the file.

use super::conflict::{meeting_point, Setup};
use super::{line, round6, Cell, Direction, Family, Params, Row};
use crate::frame::{wrap_pi, yaw_to_heading};
use crate::scenario::path::{PointsPath, Polyline};
use crate::scenario::turn::{curve_end, turning_segments, Turn, TurnGeometry};
use crate::scenario::validity::{T0Rule, ValiditySpec};
use crate::scenario::{
    Activation, ConflictSpec, ImpactOn, PathSpec, Point, Scenario, TargetKind, TargetSpec,
};

/// One arm of a junction.
#[derive(Debug, Clone)]
struct Arm {
    /// Lane centre of the lane driving towards the junction, ending at the junction.
    inbound: Vec<(f64, f64)>,
    /// Lane centre of the lane driving away, starting at the junction.
    outbound: Vec<(f64, f64)>,
    /// Direction from the junction's centre outwards along the arm (rad).
    outward: f64,
}

/// The turning VUT's straight approach before the curve and its straight exit after it, m.
const STRAIGHT_IN_M: f64 = 250.0;
const STRAIGHT_OUT_M: f64 = 60.0;

fn arms(map: &opendrive::OpenDrive) -> Result<Vec<Arm>, String> {
    for j in &map.junctions {
        let mut ids: Vec<&str> = Vec::new();
        for c in &j.connections {
            if !ids.contains(&c.incoming_road.as_str()) {
                ids.push(&c.incoming_road);
            }
        }
        let mut arms = Vec::new();
        for r in &map.roads {
            if !ids.contains(&r.id.as_str()) {
                continue;
            }
            let at_end = r
                .successor
                .as_ref()
                .is_some_and(|l| l.element_type == "junction" && l.element_id == j.id);
            let fwd = map.lane_center_polyline(&r.id, -1, 0.5);
            let bwd = map.lane_center_polyline(&r.id, 1, 0.5);
            if fwd.len() < 2 || bwd.len() < 2 {
                continue;
            }
            // Lane -1 drives along s, lane 1 against it.
            let (inbound, outbound) = if at_end {
                let mut out = bwd;
                out.reverse();
                (fwd, out)
            } else {
                let mut inb = bwd;
                inb.reverse();
                (inb, fwd)
            };
            arms.push(Arm {
                inbound,
                outbound,
                outward: 0.0,
            });
        }
        if arms.len() < 3 {
            continue;
        }
        let n = arms.len() as f64;
        let (cx, cy) = arms.iter().fold((0.0, 0.0), |(x, y), a| {
            let e = a.inbound[a.inbound.len() - 1];
            (x + e.0 / n, y + e.1 / n)
        });
        for a in &mut arms {
            let e = a.inbound[a.inbound.len() - 1];
            a.outward = (e.1 - cy).atan2(e.0 - cx);
        }
        return Ok(arms);
    }
    Err("the map has no junction with three or more arms".into())
}

/// The arm whose outward direction is `rel` (rad) from the VUT's approach direction.
fn arm_at<'a>(arms: &'a [Arm], approach: f64, rel: f64, what: &str) -> Result<&'a Arm, String> {
    arms.iter()
        .min_by(|a, b| {
            let da = wrap_pi(a.outward - approach - rel).abs();
            let db = wrap_pi(b.outward - approach - rel).abs();
            da.total_cmp(&db)
        })
        .filter(|a| wrap_pi(a.outward - approach - rel).abs() < 0.5)
        .ok_or_else(|| format!("the junction has no {what} arm"))
}

fn end_pose(pts: &[(f64, f64)]) -> (f64, f64, f64) {
    let (a, b) = (pts[pts.len() - 2], pts[pts.len() - 1]);
    (b.0, b.1, (b.1 - a.1).atan2(b.0 - a.0))
}

fn start_pose(pts: &[(f64, f64)]) -> (f64, f64, f64) {
    let (a, b) = (pts[0], pts[1]);
    (a.0, a.1, (b.1 - a.1).atan2(b.0 - a.0))
}

pub(crate) fn place(
    row: &Row,
    cell: &Cell,
    p: &Params,
    map: &opendrive::OpenDrive,
) -> Result<Scenario, String> {
    let speeds = Speeds {
        geometry_kmh: cell.vut_kmh,
        solve_kmh: cell.vut_kmh,
        target_lead_s: 3.0,
    };
    place_as(row, row.family, cell, p, map, speeds).map(|(sc, _)| sc)
}

/// The VUT speeds a placement uses: for the protocol's turn geometry, and at the conflict
/// point (where the footprints meet at the asked impact location).
#[derive(Debug, Clone, Copy)]
pub(super) struct Speeds {
    pub geometry_kmh: f64,
    pub solve_kmh: f64,
    /// A car or motorcycle target's path starts this long (at its speed) before the junction.
    pub target_lead_s: f64,
}

/// [`place`] as `family` (a turn across path or a straight crossing), with the VUT's speeds
/// given; also returns the pose (x, y, yaw) where the VUT's approach lane meets the junction.
pub(super) fn place_as(
    row: &Row,
    family: Family,
    cell: &Cell,
    p: &Params,
    map: &opendrive::OpenDrive,
    speeds: Speeds,
) -> Result<(Scenario, (f64, f64, f64)), String> {
    let arms = arms(map)?;
    let vut_arm = &arms[0];
    let (ex, ey, h) = end_pose(&vut_arm.inbound);
    let mut vut = p.vut.clone();
    vut.speed_kmh = Some(cell.vut_kmh);
    if vut.control_point_to_front_m.is_none() {
        // The protocol's control point is the front-axle centre.
        vut.control_point_to_front_m = Some(0.9);
    }
    let kind = row.target.unwrap_or(TargetKind::Vehicle);
    let v_t = cell.target_kmh / 3.6;
    let mut validity = ValiditySpec::default();
    // The VUT's path: segments when it turns (the protocol's curve itself), else a polyline.
    let (vpath, tpts, accel): (PathSpec, Vec<Point>, f64) = match family {
        Family::TurnAcross => {
            let turn = cell.turn.unwrap_or(Turn::Farside);
            let g = TurnGeometry::protocol(turn, speeds.geometry_kmh);
            let exit = match turn {
                Turn::Farside => arm_at(&arms, h, std::f64::consts::FRAC_PI_2, "left")?,
                Turn::Nearside => arm_at(&arms, h, -std::f64::consts::FRAC_PI_2, "right")?,
            };
            let (xx, xy, xh) = start_pose(&exit.outbound);
            let (ue, _, _) = curve_end(&g, turn).map_err(|e| format!("{}: {e}", row.id))?;
            // Start of the curve on the approach lane so that the curve ends on the exit lane.
            let d = (xx - ex) * h.cos() + (xy - ey) * h.sin() - ue;
            let q = (ex + d * h.cos(), ey + d * h.sin(), h);
            let vp = turning_segments(&g, turn, q, STRAIGHT_IN_M, STRAIGHT_OUT_M);
            // T0 at T_steer − 1 s: T_steer where the curve begins, the end of the first
            // segment.
            validity.t0 = T0Rule::Steer;
            validity.steer_at_path_s = Some(STRAIGHT_IN_M);
            let dir = cell.direction.unwrap_or(Direction::Same);
            let (tpts, accel) = match kind {
                TargetKind::Pedestrian => {
                    // Crossing the exit road 4 m into it, walking in (same) or against
                    // (opposite) the VUT's approach direction, from 6 m beside the VUT's path.
                    let (cx, cy) = (xx + 4.0 * xh.cos(), xy + 4.0 * xh.sin());
                    let (walk, side) = match dir {
                        Direction::Same => (h, -1.0),
                        Direction::Opposite => (h + std::f64::consts::PI, 1.0),
                    };
                    let _ = side;
                    let pts = line(cx, cy, walk, 6.0, 8.0);
                    (pts, if cell.target_kmh > 6.0 { 1.5 } else { 1.0 })
                }
                TargetKind::Cyclist => {
                    // Along the approach road: 5.0 m right of its centre line (nearside turn)
                    // or 2.75 m left of it (farside turn), through the mouth of the exit arm.
                    let lat = match turn {
                        Turn::Nearside => -5.0 + 1.75,
                        Turn::Farside => 2.75 + 1.75,
                    };
                    let (bx, by) = (ex - lat * h.sin(), ey + lat * h.cos());
                    let (yaw, back, ahead) = match dir {
                        Direction::Same => (h, (4.0 * v_t).max(25.0) + 30.0, 60.0),
                        Direction::Opposite => (
                            h + std::f64::consts::PI,
                            (4.0 * v_t).max(25.0) + 30.0 - 40.0,
                            100.0,
                        ),
                    };
                    let (ox, oy) = if dir == Direction::Opposite {
                        (bx + 40.0 * h.cos(), by + 40.0 * h.sin())
                    } else {
                        (bx, by)
                    };
                    (line(ox, oy, yaw, back, ahead), 0.0)
                }
                _ => {
                    // Oncoming car or motorcycle: the opposite arm's inbound lane, straight on.
                    let opp = arm_at(&arms, h, 0.0, "opposite")?;
                    let (ox, oy, oh) = end_pose(&opp.inbound);
                    let back = (speeds.target_lead_s * v_t + 20.0).max(40.0);
                    (line(ox, oy, oh, back, 60.0), 0.0)
                }
            };
            (PathSpec::Segments(vp), tpts, accel)
        }
        Family::StraightCrossing => {
            let opp = arm_at(&arms, h, 0.0, "opposite")?;
            let (ox, oy, _) = start_pose(&opp.outbound);
            let len = (ox - ex) * h.cos() + (oy - ey) * h.sin();
            let vp = line(ex, ey, h, 250.0, len + 60.0);
            let from = match cell.approach {
                Some(super::Approach::Farside) => {
                    arm_at(&arms, h, std::f64::consts::FRAC_PI_2, "left")?
                }
                _ => arm_at(&arms, h, -std::f64::consts::FRAC_PI_2, "right")?,
            };
            let (tx, ty, th) = end_pose(&from.inbound);
            let back = (speeds.target_lead_s * v_t + 20.0).max(40.0);
            validity.t0 = T0Rule::TargetAccelEnd;
            // Target and VUT arrive at the conflict point within ±0.1 s of each other.
            validity.conflict_arrival_s = Some(0.1);
            (
                PathSpec::Points(PointsPath { points: vp }),
                line(tx, ty, th, back, 60.0),
                0.0,
            )
        }
        _ => return Err(format!("{}: not a junction row", row.id)),
    };
    let vline = vpath
        .geometry()
        .map_err(|e| format!("{}: VUT path: {e}", row.id))?;
    let mut tpts = tpts;
    if super::robust::geometric(&p.robustness) {
        // Robustness: the target's path rotated about / shifted from where the paths meet.
        let tline = Polyline::new(&tpts).ok_or("target path")?;
        let (_, q) = meeting_point(&vline, &tline);
        let (px, py, _) = tline.pose(q);
        super::robust::transform(
            &mut tpts,
            (px, py),
            p.robustness.heading_deg,
            p.robustness.path_offset_m,
        );
    }
    let tline = Polyline::new(&tpts).ok_or("target path")?;
    let mut t = TargetSpec::new(
        match kind {
            TargetKind::Pedestrian => "pedestrian",
            TargetKind::Cyclist => "cyclist",
            TargetKind::Motorcycle => "motorcycle",
            TargetKind::Vehicle => "gvt",
        },
        kind,
        tpts[0],
        0.0,
    );
    t.carrier = p.carrier.clone();
    t.speed_kmh = cell.target_kmh;
    t.accel_distance_m = accel;
    t.activation = Activation::Conflict;
    t.overlap = cell.impact.clamp(0.0, 1.0);
    if kind == TargetKind::Cyclist
        && family == Family::TurnAcross
        && cell.direction.unwrap_or(Direction::Same) == Direction::Same
    {
        // The cyclist overtakes the turning VUT: first contact is always at the VUT's front
        // corner on the cyclist's side, so the location is taken along the cyclist.
        t.impact_on = ImpactOn::TargetSide;
    }
    if kind == TargetKind::Motorcycle && family == Family::StraightCrossing {
        // The motorcycle strikes the VUT's side: the location is along the VUT's length.
        t.impact_on = ImpactOn::VutSide;
    }
    let setup = Setup {
        vut: &vut,
        vpath: &vline,
        tpath: &tline,
        footprint: t.footprint(),
        v_vut: speeds.solve_kmh / 3.6,
        v_target: v_t,
        on: t.impact_on,
    };
    let (s_ref, q_ref) = meeting_point(&vline, &tline);
    let (vs, ts) = setup
        .solve(cell.impact, s_ref, q_ref)
        .map_err(|e| format!("{}: {e}", row.id))?;
    if ts <= accel {
        return Err(format!(
            "{}: the target's path is too short before the conflict point",
            row.id
        ));
    }
    // Robustness: the target starts that fraction of its way to the conflict point closer (its
    // path cut at the start; where its acceleration no longer fits, it shrinks in proportion).
    let (tline, tpts, ts) = if p.robustness.start_fraction != 0.0 {
        let cut = ts * p.robustness.start_fraction;
        let len = tline.length() - cut;
        let n = (len / 0.25).ceil().max(1.0) as usize;
        let pts: Vec<Point> = (0..=n)
            .map(|k| {
                let (x, y, _) = tline.pose(cut + len * k as f64 / n as f64);
                Point {
                    x: round6(x),
                    y: round6(y),
                }
            })
            .collect();
        let ts = ts - cut;
        if ts <= t.accel_distance_m + 0.5 {
            t.accel_distance_m = round6(t.accel_distance_m * (1.0 - p.robustness.start_fraction));
        }
        if ts <= t.accel_distance_m {
            return Err(format!(
                "{}: starting {:.0} % closer leaves {ts:.2} m, not enough to reach the target's speed",
                row.id,
                100.0 * p.robustness.start_fraction
            ));
        }
        (Polyline::new(&pts).ok_or("target path")?, pts, ts)
    } else {
        (tline, tpts, ts)
    };
    t.conflict = Some(ConflictSpec {
        vut_s: round6(vs),
        target_s: round6(ts),
    });
    let (sx, sy, syaw) = tline.pose(0.0);
    t.start = Point { x: sx, y: sy };
    t.heading_deg = round6(yaw_to_heading(syaw));
    t.path = Some(PathSpec::Points(PointsPath { points: tpts }));
    vut.path = Some(vpath);
    let sc = Scenario {
        name: String::new(),
        map: None,
        vut,
        targets: vec![t],
        sync: true,
        validity: Some(validity),
        catalogue_id: None,
    };
    Ok((sc, (ex, ey, h)))
}
