//! Reversing rows on a straight lane: the VUT reverses along the lane's centre (`vut.reverse`;
//! its planned path is that of its control point in the direction of travel) towards a
//! stationary child target standing in its path.
//!
//! The engine measures a reversing VUT facing its direction of travel (the rear bumper leads),
//! so the impact location is a position across the rear bumper, as a fraction of the width from
//! the VUT's left side (the right as seen looking backwards).
//!
//! With a moving child (CPMRCm) the VUT starts from standstill (`vut.launch`, up to the cell's
//! VUT speed) with its rear bumper the cell's gap before the child's path; the child walks
//! across behind it from the right (as seen looking backwards) and the launch is cued so that
//! they meet at the asked location.

use super::conflict::{meeting_point, Setup};
use super::straight::station;
use super::{round6, Cell, Params, Row};
use crate::frame::yaw_to_heading;
use crate::scenario::catalogue::lane_station_at_x;
use crate::scenario::path::{LanePath, PointsPath, Polyline};
use crate::scenario::validity::{T0Rule, ValiditySpec};
use crate::scenario::{
    Activation, ConflictSpec, ImpactOn, LaunchSpec, PathSpec, Point, Scenario, TargetKind,
    TargetSpec,
};

pub(crate) fn place(
    row: &Row,
    cell: &Cell,
    p: &Params,
    map: &opendrive::OpenDrive,
) -> Result<Scenario, String> {
    if cell.target_kmh != 0.0 {
        return moving(row, cell, p, map);
    }
    let (x, lane, st) = station(p, map)?;
    let here = lane_station_at_x(map, Some(&st.road), lane, x)?;
    let mut vut = p.vut.clone();
    vut.speed_kmh = Some(cell.vut_kmh);
    vut.reverse = true;
    vut.path = Some(PathSpec::Lane(LanePath {
        road: st.road.clone(),
        lane,
        s_from: round6(st.s_from),
        s_to: round6(st.s_to),
        t_offset: 0.0,
    }));
    // Across the leading (rear) bumper, from its right edge in the direction of travel.
    let left = (cell.impact - 0.5) * vut.width_m;
    let (c, s) = (here.hdg.cos(), here.hdg.sin());
    let start = Point {
        x: round6(here.x - left * s),
        y: round6(here.y + left * c),
    };
    let kind = row.target.unwrap_or(TargetKind::Pedestrian);
    // Facing across the VUT's path (a child standing sideways to it).
    let mut t = TargetSpec::new(
        "child",
        kind,
        start,
        round6(yaw_to_heading(here.hdg - std::f64::consts::FRAC_PI_2)),
    );
    t.carrier = p.carrier.clone();
    t.speed_kmh = 0.0;
    t.activation = Activation::Static;
    t.overlap = cell.impact;
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

/// Points every 0.25 m from (x, y) along `yaw`, `back` behind to `ahead` in front.
fn line(x: f64, y: f64, yaw: f64, back: f64, ahead: f64) -> Vec<Point> {
    let n = ((back + ahead) / 0.25).ceil() as usize;
    (0..=n)
        .map(|k| {
            let d = -back + (back + ahead) * k as f64 / n as f64;
            Point {
                x: round6(x + d * yaw.cos()),
                y: round6(y + d * yaw.sin()),
            }
        })
        .collect()
}

/// CPMRCm: a child walking across behind a VUT that reverses from standstill.
fn moving(
    row: &Row,
    cell: &Cell,
    p: &Params,
    map: &opendrive::OpenDrive,
) -> Result<Scenario, String> {
    let gap = cell
        .gap_m
        .ok_or_else(|| format!("{}: the row needs a gap (m)", row.id))?;
    let (x, lane, st) = station(p, map)?;
    let here = lane_station_at_x(map, Some(&st.road), lane, x)?;
    let mut vut = p.vut.clone();
    vut.reverse = true;
    vut.speed_kmh = None;
    let launch = LaunchSpec {
        accel_mps2: p
            .vut
            .launch
            .as_ref()
            .map_or(LaunchSpec::DEFAULT_ACCEL_MPS2, |l| l.accel_mps2),
        speed_kmh: cell.vut_kmh,
        carrier: p.vut.launch.as_ref().and_then(|l| l.carrier.clone()),
    };
    // Travel along the lane (rear first); the child crosses from the right of that direction.
    let h = here.hdg;
    let vpts = line(here.x, here.y, h, 40.0, 30.0);
    let walk = h + std::f64::consts::FRAC_PI_2;
    let (back, ahead) = (6.0, 6.0);
    let tpts = line(here.x, here.y, walk, back, ahead);
    let vline = Polyline::new(&vpts).ok_or("VUT path")?;
    let tline = Polyline::new(&tpts).ok_or("target path")?;
    let kind = row.target.unwrap_or(TargetKind::Pedestrian);
    let mut t = TargetSpec::new("child", kind, tpts[0], round6(yaw_to_heading(walk)));
    t.carrier = p.carrier.clone();
    t.speed_kmh = cell.target_kmh;
    t.accel_distance_m = 1.0;
    t.activation = Activation::Conflict;
    t.overlap = cell.impact.clamp(0.0, 1.0);
    let vt = vut.in_travel_direction();
    let front = vt.reference_to_front_m - vt.control_ahead_m();
    let (s_ref, q_ref) = meeting_point(&vline, &tline);
    // Standing: the rear bumper `gap` before the child's path.
    let s0 = s_ref - gap - front;
    // Solved at the VUT's speed where they meet (two passes: it depends on the distance).
    let mut v_meet = launch.speed(launch.time_to(gap, 0.0));
    let mut solved = (0.0, 0.0);
    for _ in 0..3 {
        let setup = Setup {
            vut: &vt,
            vpath: &vline,
            tpath: &tline,
            footprint: t.footprint(),
            v_vut: v_meet.max(0.1),
            v_target: cell.target_kmh / 3.6,
            on: ImpactOn::VutFront,
        };
        solved = setup
            .solve(cell.impact, s_ref, q_ref)
            .map_err(|e| format!("{}: {e}", row.id))?;
        v_meet = launch.speed(launch.time_to(solved.0 - s0, 0.0));
    }
    let (vs, ts) = solved;
    if vs <= s0 || ts <= t.accel_distance_m {
        return Err(format!(
            "{}: a gap of {gap} m leaves no room to meet the child",
            row.id
        ));
    }
    // The VUT's path from where it stands.
    let vpts = line(
        here.x + s0.mul_add(h.cos(), -40.0 * h.cos()),
        here.y + s0.mul_add(h.sin(), -40.0 * h.sin()),
        h,
        0.0,
        vline.length() - s0,
    );
    t.conflict = Some(ConflictSpec {
        vut_s: round6(vs - s0),
        target_s: round6(ts),
    });
    t.path = Some(PathSpec::Points(PointsPath { points: tpts }));
    vut.path = Some(PathSpec::Points(PointsPath { points: vpts }));
    vut.launch = Some(launch);
    Ok(Scenario {
        name: String::new(),
        map: None,
        vut,
        targets: vec![t],
        sync: true,
        validity: Some(ValiditySpec {
            t0: T0Rule::TargetAccelEnd,
            ..ValiditySpec::default()
        }),
        catalogue_id: None,
    })
}
