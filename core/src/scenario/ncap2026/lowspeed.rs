//! Low-speed rows on a straight lane where the VUT starts from standstill (`vut.launch`) and a
//! crossing target is synchronised with its launch: CPMRCm (a child walking behind a VUT that
//! reverses, rear gap 1.0/1.5/2.0 m) and CBNAO SfS (a cyclist crossing from behind parked cars
//! in front of a VUT pulling away, its front 2.9 m before the cyclist's path).
//!
//! CPMFC (forward creep, pedal misapplication): the VUT stands with its front bumper the gap
//! (the rating tool's distance d1 = 1.5 m, d2 = 2.0 m) before a child standing across its
//! path at the asked location; the misapplied pedal is the launch (4 m/s² up to 20 km/h by
//! default), cued as soon as the run is armed.
//!
//! The VUT stands on the lane's centre, its leading bumper `gap_m` before the target's path;
//! the target crosses from the right of the direction of travel. The conflict point is solved
//! at the VUT's speed there under its launch (three passes: that speed depends on the distance
//! to the conflict point).

use super::conflict::{meeting_point, Setup};
use super::straight::station;
use super::{line, round6, Cell, Params, Row};
use crate::frame::yaw_to_heading;
use crate::scenario::catalogue::lane_station_at_x;
use crate::scenario::path::{PointsPath, Polyline};
use crate::scenario::validity::{T0Rule, ValiditySpec};
use crate::scenario::{
    Activation, ConflictSpec, ImpactOn, LaunchSpec, PathSpec, Point, Scenario, TargetKind,
    TargetSpec,
};

/// How the VUT starts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Launched {
    pub reverse: bool,
    /// Leading bumper to the target's path at standstill, m.
    pub gap_m: f64,
    /// The launch's speed, km/h.
    pub launch_kmh: f64,
    /// Parked cars on the target's side hide it (CBNAO).
    pub obstructed: bool,
}

/// The scenario (see the module doc).
pub(crate) fn place(
    row: &Row,
    cell: &Cell,
    p: &Params,
    map: &opendrive::OpenDrive,
    o: Launched,
) -> Result<Scenario, String> {
    let gap = o.gap_m;
    let (x, lane, st) = station(p, map)?;
    let here = lane_station_at_x(map, Some(&st.road), lane, x)?;
    let mut vut = p.vut.clone();
    vut.reverse = o.reverse;
    vut.speed_kmh = None;
    let launch = LaunchSpec {
        accel_mps2: p
            .vut
            .launch
            .as_ref()
            .map_or(LaunchSpec::DEFAULT_ACCEL_MPS2, |l| l.accel_mps2),
        speed_kmh: o.launch_kmh,
        carrier: p.vut.launch.as_ref().and_then(|l| l.carrier.clone()),
        jerk_mps3: p.vut.launch.as_ref().and_then(|l| l.jerk_mps3),
    };
    // Travel along the lane (rear first); the child crosses from the right of that direction.
    let h = here.hdg;
    let vpts = line(here.x, here.y, h, 40.0, 30.0);
    let walk = h + std::f64::consts::FRAC_PI_2;
    let kind = row.target.unwrap_or(TargetKind::Pedestrian);
    let v_t = cell.target_kmh / 3.6;
    let accel = if kind == TargetKind::Cyclist {
        4.0
    } else {
        1.0
    };
    // Under way before the VUT moves: its acceleration, then the launch's time to the path
    // and 1.5 s more at its speed (at least 6 m).
    let back = (accel + v_t * (launch.time_to(gap + 1.0, 0.0) + 1.5)).max(6.0);
    let tpts = line(here.x, here.y, walk, back, 6.0);
    let vline = Polyline::new(&vpts).ok_or("VUT path")?;
    let tline = Polyline::new(&tpts).ok_or("target path")?;
    let id = match kind {
        TargetKind::Cyclist => "cyclist",
        _ if o.reverse => "child",
        _ => "pedestrian",
    };
    let mut t = TargetSpec::new(id, kind, tpts[0], round6(yaw_to_heading(walk)));
    t.carrier = p.carrier.clone();
    t.speed_kmh = cell.target_kmh;
    t.accel_distance_m = accel;
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
    let mut targets = vec![t];
    if o.obstructed {
        // Two parked cars (4.0 × 1.8 m, 1.0 m apart) on the target's side, 1.0 m clear of
        // the VUT, the nearer one's front 0.5 m before the target's path.
        let lateral = -(0.5 * vt.width_m + 1.0 + 0.9);
        for k in 0..2 {
            let along = s_ref - 40.0 - 0.5 - 4.0 - k as f64 * 5.0;
            let (c, s) = (h.cos(), h.sin());
            let start = Point {
                x: round6(here.x + along * c - lateral * s),
                y: round6(here.y + along * s + lateral * c),
            };
            let mut ob = TargetSpec::new(
                &format!("obstruction-{}", k + 1),
                TargetKind::Vehicle,
                start,
                round6(yaw_to_heading(h)),
            );
            ob.activation = Activation::Static;
            ob.length_m = Some(4.0);
            targets.push(ob);
        }
    }
    Ok(Scenario {
        name: String::new(),
        map: None,
        vut,
        targets,
        sync: true,
        validity: Some(ValiditySpec {
            t0: T0Rule::TargetAccelEnd,
            ..ValiditySpec::default()
        }),
        catalogue_id: None,
    })
}

/// The acceleration of a misapplied pedal (CPMFC), m/s².
pub(crate) const PEDAL_MISAPPLICATION_MPS2: f64 = 4.0;

/// CPMFC (see the module doc).
pub(crate) fn creep(
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
    let h = here.hdg;
    let mut vut = p.vut.clone();
    vut.speed_kmh = None;
    vut.launch = Some(p.vut.launch.clone().unwrap_or(LaunchSpec {
        accel_mps2: PEDAL_MISAPPLICATION_MPS2,
        speed_kmh: LaunchSpec::DEFAULT_SPEED_KMH,
        carrier: None,
        jerk_mps3: None,
    }));
    let kind = row.target.unwrap_or(TargetKind::Pedestrian);
    let mut t = TargetSpec::new("child", kind, Point { x: 0.0, y: 0.0 }, 0.0);
    let (depth, _) = t.footprint();
    // The child's centre: its near side `gap` ahead of the front bumper, across the front at
    // the asked location (from the right edge).
    let left = (cell.impact - 0.5) * vut.width_m;
    let (c, s) = (h.cos(), h.sin());
    t.start = Point {
        x: round6(here.x - left * s),
        y: round6(here.y + left * c),
    };
    t.heading_deg = round6(yaw_to_heading(h - std::f64::consts::FRAC_PI_2));
    t.carrier = p.carrier.clone();
    t.activation = Activation::Static;
    t.overlap = cell.impact;
    let front = vut.reference_to_front_m - vut.control_ahead_m();
    let back = gap + 0.5 * depth + front;
    vut.path = Some(PathSpec::Points(PointsPath {
        points: line(here.x - back * c, here.y - back * s, h, 0.0, back + 30.0),
    }));
    Ok(Scenario {
        name: String::new(),
        map: None,
        vut,
        targets: vec![t],
        sync: false,
        validity: Some(ValiditySpec::default()),
        catalogue_id: None,
    })
}
