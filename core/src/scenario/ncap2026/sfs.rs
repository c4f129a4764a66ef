//! Starts from standstill at a junction (`CCCscp SfS`, `CMCscp SfS`, `CCFtap SfS`,
//! `CMFtap SfS`): the VUT stands, the target approaches at its test speed, and the VUT is
//! launched (`vut.launch`) so that both meet at the asked impact location.
//!
//! * Straight crossing: the VUT's front stands 2.9 m before the impact point, facing across
//!   the target's path.
//! * Turn across path: the VUT stands with its front at the lane marking where its approach
//!   lane meets the junction, and turns farside on the protocol's tightest path (radius 9 m)
//!   across the oncoming target's lane.
//!
//! The placement is the moving row's ([`super::junction`]), solved at the VUT's speed at the
//! conflict point under the launch model (two passes: that speed depends on the distance to
//! the conflict point), with the VUT's path cut where it stands.

use super::junction::{place_as, Speeds};
use super::{round6, Cell, Family, Params, Row};
use crate::scenario::path::{PointsPath, Polyline};
use crate::scenario::validity::T0Rule;
use crate::scenario::{LaunchSpec, PathSpec, Point, Scenario};

/// From the VUT's front to the impact point at standstill, straight crossing, m.
pub(crate) const FRONT_TO_IMPACT_M: f64 = 2.9;
/// Turning speed for the turn geometry of a start from standstill (the tightest farside
/// path), km/h.
const TURN_GEOMETRY_KMH: f64 = 10.0;

pub(crate) fn place(
    row: &Row,
    cell: &Cell,
    p: &Params,
    map: &opendrive::OpenDrive,
) -> Result<Scenario, String> {
    let family = match row.family {
        Family::SfsStraightCrossing => Family::StraightCrossing,
        Family::SfsTurnAcross => Family::TurnAcross,
        _ => return Err(format!("{}: not a junction start from standstill", row.id)),
    };
    // Default launch: 2 m/s² up to 20 km/h straight on, up to the turn geometry's 10 km/h
    // when turning.
    let launch = p.vut.launch.clone().unwrap_or(LaunchSpec {
        accel_mps2: LaunchSpec::DEFAULT_ACCEL_MPS2,
        speed_kmh: match family {
            Family::TurnAcross => TURN_GEOMETRY_KMH,
            _ => LaunchSpec::DEFAULT_SPEED_KMH,
        },
        carrier: None,
        jerk_mps3: None,
    });
    let front = p.vut.control_point_to_front_m.unwrap_or(0.9);
    // Speed at the conflict point: first guess from the straight crossing's 2.9 m, then from
    // the distance the first placement gives.
    let mut solve_kmh = launch.speed(launch.time_to(FRONT_TO_IMPACT_M, 0.0)) * 3.6;
    let mut placed = None;
    for _ in 0..3 {
        // The target is under way before the VUT is launched: its path starts the launch's
        // time to the conflict point (a generous estimate) and 1.5 s more before the junction.
        let reach = match family {
            Family::TurnAcross => 12.0,
            _ => FRONT_TO_IMPACT_M,
        };
        let speeds = Speeds {
            geometry_kmh: TURN_GEOMETRY_KMH,
            solve_kmh: solve_kmh.max(1.0),
            target_lead_s: (launch.time_to(reach, 0.0) + 1.5).max(3.0),
        };
        let (sc, (ex, ey, h)) = place_as(row, family, cell, p, map, speeds)?;
        let line = vut_line(&sc)?;
        let vs = conflict_s(&sc)?;
        let s0 = match family {
            Family::StraightCrossing => vs - FRONT_TO_IMPACT_M,
            // Front at the marking: the control point `front` behind the approach lane's end.
            _ => line.project(ex - front * h.cos(), ey - front * h.sin()),
        };
        if s0 <= 0.0 || s0 >= vs {
            return Err(format!(
                "{}: the VUT's standing point is not before the conflict point",
                row.id
            ));
        }
        let next = launch.speed(launch.time_to(vs - s0, 0.0)) * 3.6;
        let done = (next - solve_kmh).abs() < 0.01;
        solve_kmh = next;
        placed = Some((sc, line, s0));
        if done {
            break;
        }
    }
    let (mut sc, line, s0) = placed.ok_or("no placement")?;
    // The VUT's path from where it stands: that point, then the placed path's own vertices
    // (not resampled, so that its curve starts exactly where it did); segments are cut.
    match &sc.vut.path {
        Some(PathSpec::Points(pp)) => {
            let (x0, y0, _) = line.pose(s0);
            let mut pts = vec![Point {
                x: round6(x0),
                y: round6(y0),
            }];
            let mut along = 0.0;
            for w in pp.points.windows(2) {
                along += (w[1].x - w[0].x).hypot(w[1].y - w[0].y);
                if along > s0 + 0.01 {
                    pts.push(w[1]);
                }
            }
            sc.vut.path = Some(PathSpec::Points(PointsPath { points: pts }));
        }
        Some(PathSpec::Segments(g)) => {
            let mut g = g.clone();
            g.cut_start(s0)?;
            sc.vut.path = Some(PathSpec::Segments(g));
        }
        _ => return Err("VUT path".into()),
    }
    sc.vut.speed_kmh = None;
    sc.vut.launch = Some(launch);
    for t in &mut sc.targets {
        if let Some(c) = t.conflict.as_mut() {
            c.vut_s = round6(c.vut_s - s0);
        }
    }
    if let Some(v) = sc.validity.as_mut() {
        // From standstill the VUT steers within the first metres: T0 is the crossing rows'
        // rule (0.5 s after the target's acceleration), for both layouts.
        v.t0 = T0Rule::TargetAccelEnd;
        // Yaw and steering-wheel rates are judged up to T_steer: where the curve begins, or
        // as soon as the VUT moves when it stands in the curve already.
        v.steer_at_path_s = v.steer_at_path_s.map(|s| round6((s - s0).max(0.05)));
        v.conflict_arrival_s = Some(0.1);
    }
    Ok(sc)
}

fn vut_line(sc: &Scenario) -> Result<Polyline, String> {
    match &sc.vut.path {
        Some(p) if !p.is_lane() => p.geometry(),
        _ => Err("VUT path".into()),
    }
}

fn conflict_s(sc: &Scenario) -> Result<f64, String> {
    sc.targets
        .iter()
        .find_map(|t| t.conflict.map(|c| c.vut_s))
        .ok_or_else(|| "no conflict point".into())
}
