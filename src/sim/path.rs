//! The path the simulated VUT follows: the centre line of the scenario's lane when a map is
//! loaded (the lane the VUT's line through the first target crosses), else a straight line
//! through the scenario geometry. Arc-length parameterised, extended straight beyond its ends.

use crate::frame::{heading_to_yaw, wrap_pi};
use crate::run::RunSetup;

/// A polyline with cumulative arc length.
#[derive(Debug, Clone)]
pub struct Path {
    pts: Vec<(f64, f64)>,
    cum: Vec<f64>,
    /// Where it came from (`road 0 lane -1`, `straight line`).
    pub origin: String,
    /// Half window of the curvature estimate (m): 2 m on lane centre lines, a few decimetres
    /// on a planned path (so that the steering starts where the path's curve does).
    pub curvature_window_m: f64,
    /// Estimate the curvature from the path behind `s` only.
    pub curvature_causal: bool,
}

impl Path {
    /// A polyline (consecutive duplicates removed); `None` with fewer than two points.
    pub fn from_points(points: &[(f64, f64)], origin: impl Into<String>) -> Option<Path> {
        let mut pts: Vec<(f64, f64)> = Vec::with_capacity(points.len());
        for &p in points {
            if !(p.0.is_finite() && p.1.is_finite()) {
                continue;
            }
            if pts
                .last()
                .is_none_or(|q| (p.0 - q.0).hypot(p.1 - q.1) > 1e-6)
            {
                pts.push(p);
            }
        }
        if pts.len() < 2 {
            return None;
        }
        let mut cum = vec![0.0];
        for w in pts.windows(2) {
            let l = cum[cum.len() - 1] + (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1);
            cum.push(l);
        }
        Some(Path {
            pts,
            cum,
            origin: origin.into(),
            curvature_window_m: 2.0,
            curvature_causal: false,
        })
    }

    /// A straight line through (x, y) heading `yaw`, `back` metres behind to `ahead` in front.
    pub fn straight(x: f64, y: f64, yaw: f64, back: f64, ahead: f64) -> Path {
        let (c, s) = (yaw.cos(), yaw.sin());
        Path::from_points(
            &[(x - back * c, y - back * s), (x + ahead * c, y + ahead * s)],
            "straight line",
        )
        .unwrap_or_else(|| Path {
            pts: vec![(0.0, 0.0), (1.0, 0.0)],
            cum: vec![0.0, 1.0],
            origin: "straight line".into(),
            curvature_window_m: 2.0,
            curvature_causal: false,
        })
    }

    pub fn length(&self) -> f64 {
        self.cum[self.cum.len() - 1]
    }

    fn segment(&self, s: f64) -> usize {
        match self.cum.binary_search_by(|c| c.total_cmp(&s)) {
            Ok(i) => i.min(self.pts.len() - 2),
            Err(i) => i.saturating_sub(1).min(self.pts.len() - 2),
        }
    }

    /// Position and yaw at arc length `s` (straight extension beyond the ends).
    pub fn pose(&self, s: f64) -> (f64, f64, f64) {
        let i = self.segment(s);
        let (a, b) = (self.pts[i], self.pts[i + 1]);
        let len = self.cum[i + 1] - self.cum[i];
        let yaw = (b.1 - a.1).atan2(b.0 - a.0);
        let u = s - self.cum[i];
        let w = if len > 0.0 { u / len } else { 0.0 };
        (a.0 + w * (b.0 - a.0), a.1 + w * (b.1 - a.1), yaw)
    }

    /// Curvature at `s` (yaw change over ±`curvature_window_m`, 1/m, counter-clockwise
    /// positive).
    pub fn curvature(&self, s: f64) -> f64 {
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

    /// Arc length of the point of the path nearest to (x, y).
    pub fn project(&self, x: f64, y: f64) -> f64 {
        let mut best = (f64::INFINITY, 0.0);
        for i in 0..self.pts.len() - 1 {
            let (a, b) = (self.pts[i], self.pts[i + 1]);
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            let l2 = dx * dx + dy * dy;
            let w = if l2 > 0.0 {
                (((x - a.0) * dx + (y - a.1) * dy) / l2).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let (px, py) = (a.0 + w * dx, a.1 + w * dy);
            let d = (x - px).hypot(y - py);
            if d < best.0 {
                best = (d, self.cum[i] + w * l2.sqrt());
            }
        }
        best.1
    }

    /// The scenario's planned VUT path (`vut.path`, resolved at setup) and where on it the VUT
    /// meets its first target: the earliest conflict point, or the VUT's line through the first
    /// crossing target as in [`Path::for_scenario`].
    fn planned(setup: &RunSetup) -> Option<(Path, f64)> {
        let sc = &setup.scenario;
        let driven = sc.vut.driven_points()?;
        let pts: Vec<(f64, f64)> = driven.iter().map(|q| (q.x, q.y)).collect();
        let mut path = Path::from_points(&pts, "planned path")?;
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
}
