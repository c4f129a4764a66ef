//! The geometric robustness layers of Euro NCAP's verification tests, applied to a placed test:
//!
//! * **Heading** (`heading_deg`, crossing rows): the target's path rotated about its nominal
//!   impact point (positive: clockwise seen from above, as headings count).
//! * **Initial position** (`start_fraction`, crossing, turning and junction rows): the target
//!   starts that fraction of
//!   its distance to the impact point closer (the −25 % layer: 0.25). Where the shorter travel
//!   leaves no room for the target's acceleration distance, that distance shrinks by the same
//!   fraction (the target accelerates harder, reaching its speed at the same fraction of its
//!   travel).
//! * **Path offset** (`path_offset_m`, turning and junction rows): the target's path shifted
//!   sideways, positive to the target's left; applied before the conflict point is solved (see
//!   the junction placement).
//! * **Lateral offset** (`lateral_away_m`, lane-departure rows with a target): the target's
//!   path moved away from the VUT (negative: closer); **impact location** (`impact_change`):
//!   added to the contact's location along the target.
//!
//! A rotated or shortened crossing is no longer the perpendicular crossing the TTC start rule
//! assumes, so the target becomes a conflict target on its straight path through the impact
//! point: started and synchronised so that it meets the VUT at the cell's impact location, the
//! distance and TTC measured along both paths. The speed layers are offsets of the cell's speeds
//! ([`super::Row::cell`]); a layer a row's geometry has no place for is an error that names it.

use super::conflict::{meeting_point, Setup};
use super::{round6, Cell, Family, Robustness, Row};
use crate::frame::{heading_to_yaw, yaw_to_heading};
use crate::scenario::path::{lane_polyline, PointsPath, Polyline};
use crate::scenario::{ttc, Activation, ConflictSpec, ImpactOn, PathSpec, Point, Scenario};

/// Whether any geometric layer is set.
pub(crate) fn geometric(r: &Robustness) -> bool {
    r.heading_deg != 0.0 || r.start_fraction != 0.0 || r.path_offset_m != 0.0
}

/// Refuses a geometric layer the row's family has no place for.
pub(crate) fn check(row: &Row, r: &Robustness) -> Result<(), String> {
    let crossing = matches!(
        row.family,
        Family::CrossingNearside | Family::CrossingFarside
    );
    let junction = matches!(row.family, Family::TurnAcross | Family::StraightCrossing);
    let bad = |what: &str| {
        Err(format!(
            "{}: the {what} robustness layer is not applied yet on this row's layout",
            row.id
        ))
    };
    if r.heading_deg != 0.0 && !(crossing || junction) {
        return bad("heading");
    }
    if r.start_fraction != 0.0 {
        if !(crossing || junction) {
            return bad("initial position");
        }
        if !(r.start_fraction > -1.0 && r.start_fraction < 1.0) {
            return Err(format!(
                "{}: start fraction {} must lie between -1 and 1",
                row.id, r.start_fraction
            ));
        }
    }
    if r.path_offset_m != 0.0 && !junction {
        return bad("path offset");
    }
    if (r.decel_mps2 != 0.0 || r.headway_s != 0.0) && row.family != Family::RearBraking {
        return bad("deceleration or headway");
    }
    if (r.lateral_away_m != 0.0 || r.impact_change != 0.0) && row.family != Family::ElkTarget {
        return bad("lateral offset or impact-location");
    }
    Ok(())
}

/// Rotates `pts` about `pivot` by `heading_deg` (clockwise positive) and shifts them
/// `offset_m` to the left of their direction of travel.
pub(crate) fn transform(pts: &mut [Point], pivot: (f64, f64), heading_deg: f64, offset_m: f64) {
    if heading_deg != 0.0 {
        let a = -heading_deg.to_radians();
        let (c, s) = (a.cos(), a.sin());
        for p in pts.iter_mut() {
            let (dx, dy) = (p.x - pivot.0, p.y - pivot.1);
            p.x = round6(pivot.0 + dx * c - dy * s);
            p.y = round6(pivot.1 + dx * s + dy * c);
        }
    }
    if offset_m != 0.0 && pts.len() >= 2 {
        let n = pts.len();
        // Per point: the left normal of the local direction.
        let normals: Vec<(f64, f64)> = (0..n)
            .map(|k| {
                let (p, q) = if k + 1 < n {
                    (pts[k], pts[k + 1])
                } else {
                    (pts[k - 1], pts[k])
                };
                let l = (q.x - p.x).hypot(q.y - p.y).max(1e-12);
                (-(q.y - p.y) / l, (q.x - p.x) / l)
            })
            .collect();
        for (p, (nx, ny)) in pts.iter_mut().zip(normals) {
            p.x = round6(p.x + offset_m * nx);
            p.y = round6(p.y + offset_m * ny);
        }
    }
}

/// Applies the heading and initial-position layers to a placed crossing test.
pub(crate) fn crossing(
    sc: &mut Scenario,
    row: &Row,
    cell: &Cell,
    r: &Robustness,
    map: &opendrive::OpenDrive,
) -> Result<(), String> {
    if r.heading_deg == 0.0 && r.start_fraction == 0.0 {
        return Ok(());
    }
    let vline = match &sc.vut.path {
        Some(PathSpec::Lane(l)) => {
            Polyline::new(&lane_polyline(map, l)?).ok_or("the VUT's path is too short")?
        }
        Some(other) => other.geometry()?,
        None => return Err(format!("{}: the VUT has no planned path", row.id)),
    };
    let vut = sc.vut.clone();
    let i = sc
        .targets
        .iter()
        .position(|t| t.activation == Activation::Ttc)
        .ok_or_else(|| format!("{}: no crossing target", row.id))?;
    let t = &mut sc.targets[i];
    let d = ttc::nominal_travel_m(t, &vut);
    let yaw = heading_to_yaw(t.heading_deg);
    let impact = (t.start.x + d * yaw.cos(), t.start.y + d * yaw.sin());
    let d_new = d * (1.0 - r.start_fraction);
    if d_new <= t.accel_distance_m + 0.5 {
        // The whole approach shrinks in proportion: the target reaches its speed over the
        // same fraction of its (shorter) travel, i.e. with a harder acceleration.
        t.accel_distance_m = round6(t.accel_distance_m * (1.0 - r.start_fraction));
    }
    if d_new <= t.accel_distance_m {
        return Err(format!(
            "{}: starting {:.0} % closer leaves {d_new:.2} m, not enough to reach the target's speed",
            row.id,
            100.0 * r.start_fraction
        ));
    }
    // The straight path through the impact point, rotated about it, on to 15 m beyond.
    let n = ((d_new + 15.0) / 0.25).ceil() as usize;
    let mut pts: Vec<Point> = (0..=n)
        .map(|k| {
            let along = -d_new + (d_new + 15.0) * k as f64 / n as f64;
            Point {
                x: impact.0 + along * yaw.cos(),
                y: impact.1 + along * yaw.sin(),
            }
        })
        .collect();
    transform(&mut pts, impact, r.heading_deg, 0.0);
    let tline = Polyline::new(&pts).ok_or("target path")?;
    let setup = Setup {
        vut: &vut,
        vpath: &vline,
        tpath: &tline,
        footprint: t.footprint(),
        v_vut: cell.vut_kmh / 3.6,
        v_target: cell.target_kmh / 3.6,
        on: ImpactOn::VutFront,
    };
    let (s_ref, q_ref) = meeting_point(&vline, &tline);
    let (vs, ts) = setup
        .solve(cell.impact, s_ref, q_ref)
        .map_err(|e| format!("{}: {e}", row.id))?;
    if ts <= t.accel_distance_m {
        return Err(format!(
            "{}: the target's path is too short before the conflict point",
            row.id
        ));
    }
    let (sx, sy, syaw) = tline.pose(0.0);
    t.start = Point {
        x: round6(sx),
        y: round6(sy),
    };
    t.heading_deg = round6(yaw_to_heading(syaw));
    t.lateral_start_m = round6(d_new);
    t.activation = Activation::Conflict;
    t.conflict = Some(ConflictSpec {
        vut_s: round6(vs),
        target_s: round6(ts),
    });
    t.path = Some(PathSpec::Points(PointsPath { points: pts }));
    Ok(())
}
