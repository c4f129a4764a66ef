//! The path the simulated VUT follows: the centre line of the scenario's lane when a map is
//! loaded (the lane the VUT's line through the first target crosses), else a straight line
//! through the scenario geometry. Arc-length parameterised, extended straight beyond its ends.

use crate::frame::{heading_to_yaw, wrap_pi};
use crate::run::RunSetup;

/// The scenario geometry engine's path ([`crate::scenario::path::Path`]) with how the
/// simulated driver reads its curvature.
#[derive(Debug, Clone)]
pub struct Path {
    geo: crate::scenario::path::Path,
    /// Where it came from (`road 0 lane -1`, `straight line`).
    pub origin: String,
    /// Half window of the curvature estimate (m): 2 m on lane centre lines, a few decimetres
    /// on a planned path (so that the steering starts where the path's curve does).
    pub curvature_window_m: f64,
    /// Estimate the curvature from the path behind `s` only.
    pub curvature_causal: bool,
    /// The path is segments (lines, arcs, clothoids): its curvature is theirs, not an estimate.
    pub curvature_exact: bool,
}

impl Path {
    /// A polyline (non-finite points and consecutive duplicates removed); `None` with fewer
    /// than two points.
    pub fn from_points(points: &[(f64, f64)], origin: impl Into<String>) -> Option<Path> {
        let finite = points
            .iter()
            .copied()
            .filter(|p| p.0.is_finite() && p.1.is_finite());
        Some(Path::of(
            crate::scenario::path::Path::from_xy(finite, 1e-6)?,
            origin,
        ))
    }

    fn of(geo: crate::scenario::path::Path, origin: impl Into<String>) -> Path {
        Path {
            geo,
            origin: origin.into(),
            curvature_window_m: 2.0,
            curvature_causal: false,
            curvature_exact: false,
        }
    }

    /// A straight line through (x, y) heading `yaw`, `back` metres behind to `ahead` in front.
    pub fn straight(x: f64, y: f64, yaw: f64, back: f64, ahead: f64) -> Path {
        let (c, s) = (yaw.cos(), yaw.sin());
        Path::from_points(
            &[(x - back * c, y - back * s), (x + ahead * c, y + ahead * s)],
            "straight line",
        )
        .or_else(|| Path::from_points(&[(0.0, 0.0), (1.0, 0.0)], "straight line"))
        .expect("two distinct finite points make a path")
    }

    pub fn length(&self) -> f64 {
        self.geo.length()
    }

    /// Position and yaw at arc length `s` (straight extension beyond the ends).
    pub fn pose(&self, s: f64) -> (f64, f64, f64) {
        self.geo.pose(s)
    }

    /// Curvature at `s` (1/m, counter-clockwise positive): the segments' own, or the yaw change
    /// over ±`curvature_window_m` of a polyline.
    pub fn curvature(&self, s: f64) -> f64 {
        if self.curvature_exact {
            return self.geo.curvature(s);
        }
        let h = self.curvature_window_m;
        // On a planned path the estimate looks back only: the steering starts where the
        // path's curve does, never before it.
        let (a, b) = if self.curvature_causal {
            (s - 2.0 * h, s)
        } else {
            (s - h, s + h)
        };
        let (_, _, y0) = self.pose(a);
        let (_, _, y1) = self.pose(b);
        wrap_pi(y1 - y0) / (2.0 * h)
    }

    /// Arc length of the point of the path nearest to (x, y) (within the path: 0 before its
    /// start, its length past its end).
    pub fn project(&self, x: f64, y: f64) -> f64 {
        self.geo.project_clamped(x, y)
    }

    /// The scenario's planned VUT path (`vut.path`, resolved at setup) and where on it the VUT
    /// meets its first target: the earliest conflict point, or the VUT's line through the first
    /// crossing target as in [`Path::for_scenario`].
    fn planned(setup: &RunSetup) -> Option<(Path, f64)> {
        let sc = &setup.scenario;
        let mut path = match &sc.vut.path {
            // Segments are the geometry itself.
            Some(crate::scenario::PathSpec::Segments(_)) if sc.vut.drift.is_none() => {
                let mut p = Path::of(sc.vut.driven_path()?, "planned path");
                p.curvature_exact = true;
                p
            }
            _ => {
                let driven = sc.vut.driven_points()?;
                let pts: Vec<(f64, f64)> = driven.iter().map(|q| (q.x, q.y)).collect();
                Path::from_points(&pts, "planned path")?
            }
        };
        path.curvature_window_m = 0.25;
        path.curvature_causal = true;
        let conflict = sc
            .targets
            .iter()
            .filter_map(|t| t.conflict.map(|c| c.vut_s))
            .fold(None, |m: Option<f64>, s| Some(m.map_or(s, |m| m.min(s))));
        let s_line = match (conflict, sc.targets.first()) {
            (Some(s), _) => s,
            (None, Some(t)) => {
                let walk = heading_to_yaw(t.heading_deg);
                path.project(
                    t.start.x + t.lateral_start_m * walk.cos(),
                    t.start.y + t.lateral_start_m * walk.sin(),
                )
            }
            // A lane-departure test without a target: the VUT 0.3 m beyond a 1.75 m half
            // lane (the run ends 30 m further).
            (None, None) => match (&sc.vut.drift, sc.vut.speed_kmh) {
                (Some(d), Some(v)) => d
                    .s_at_offset(d.lateral_mps.signum() * 2.05, v / 3.6)
                    .unwrap_or(0.5 * path.length()),
                _ => 0.5 * path.length(),
            },
        };
        Some((path, s_line))
    }

    /// The VUT's path in a scenario: the point P on the VUT's line (the first target's start
    /// moved `lateral_start_m` along its walking direction) and the VUT heading (the target
    /// comes from the VUT's right: heading = walking direction − 90°). With a map, the centre
    /// line of the lane at P, in the lane's driving direction; else a straight line through P.
    /// Returns the path and the arc length of P on it.
    pub fn for_scenario(setup: &RunSetup) -> (Path, f64) {
        if let Some(found) = Self::planned(setup) {
            return found;
        }
        let Some(t) = setup.scenario.targets.first() else {
            let p = Path::straight(0.0, 0.0, 0.0, 0.0, 1000.0);
            return (p, 500.0);
        };
        let walk = heading_to_yaw(t.heading_deg);
        let (px, py) = (
            t.start.x + t.lateral_start_m * walk.cos(),
            t.start.y + t.lateral_start_m * walk.sin(),
        );
        let yaw = wrap_pi(walk - std::f64::consts::FRAC_PI_2);
        if let Some(map) = &setup.map {
            let od = &map.road_network;
            if let Some(lp) = od.locate(px, py, Some(yaw)) {
                let mut pts = od.lane_center_polyline(&lp.road_id, lp.lane_id, 0.5);
                let origin = format!("road {} lane {}", lp.road_id, lp.lane_id);
                if let Some(mut path) = Path::from_points(&pts, origin.clone()) {
                    let s = path.project(px, py);
                    let (_, _, ly) = path.pose(s);
                    if wrap_pi(ly - yaw).abs() > std::f64::consts::FRAC_PI_2 {
                        pts.reverse();
                        if let Some(p) = Path::from_points(&pts, origin) {
                            path = p;
                        }
                    }
                    let s = path.project(px, py);
                    return (path, s);
                }
            }
        }
        let back = 1000.0;
        (Path::straight(px, py, yaw, back, 1000.0), back)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pose_and_projection() {
        let p = Path::from_points(&[(0.0, 0.0), (10.0, 0.0), (10.0, 10.0)], "t").expect("path");
        assert_eq!(p.length(), 20.0);
        let (x, y, yaw) = p.pose(15.0);
        assert!((x - 10.0).abs() < 1e-12 && (y - 5.0).abs() < 1e-12);
        assert!((yaw - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
        assert!((p.project(4.0, 1.0) - 4.0).abs() < 1e-12);
        let (x, _, _) = p.pose(-5.0);
        assert!((x + 5.0).abs() < 1e-12, "extends straight before the start");
        assert!(Path::from_points(&[(1.0, 1.0), (1.0, 1.0)], "t").is_none());
    }

    #[test]
    fn segments_steer_by_their_own_curvature() {
        use crate::scenario::path::Piece;
        let geo = crate::scenario::path::Path::from_pieces(
            0.0,
            0.0,
            0.0,
            &[
                Piece::Line { length: 10.0 },
                Piece::Clothoid {
                    length: 5.0,
                    curvature_start: 0.0,
                    curvature_end: 0.1,
                },
                Piece::Arc {
                    length: 5.0,
                    curvature: 0.1,
                },
            ],
        )
        .expect("path");
        let mut p = Path::of(geo, "t");
        p.curvature_window_m = 0.25;
        p.curvature_causal = true;
        p.curvature_exact = true;
        assert_eq!(p.curvature(9.99), 0.0);
        assert!((p.curvature(12.5) - 0.05).abs() < 1e-12);
        assert!((p.curvature(17.0) - 0.1).abs() < 1e-12);
        assert_eq!(p.curvature(25.0), 0.0, "straight past the end");
        // The estimate from the yaw looks back and lags the clothoid's curvature.
        p.curvature_exact = false;
        assert!(p.curvature(12.5) < 0.05 - 1e-3);
    }
}
