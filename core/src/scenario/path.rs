//! Target paths: a target moves along a map-frame polyline, or along the
//! centre of an OpenDRIVE lane over an s range, instead of straight from its start along its
//! heading.
//!
//! ```toml
//! [[targets]]
//! id = "lead"
//! path = { road = "1", lane = -1, s_from = 150.0, s_to = 260.0, t_offset = 0.0 }
//! # or: path = { points = [{ x = 0.0, y = 0.0 }, { x = 10.0, y = 1.0 }] }
//! ```
//!
//! A lane path is resolved once, against the run's map ([`Scenario::resolve_paths`]), into a
//! dense polyline (lane centre every [`LANE_STEP_M`] plus the exact ends) evaluated by the
//! `opendrive` crate. The target's speed profile ([`super::profile::Profile`]) gives its travel
//! s(τ) as before; [`Polyline::pose`] maps that arc length to a map position and heading.
//! The direction of travel is from `s_from` to `s_to` (s_to < s_from drives against s).

use serde::{Deserialize, Serialize};

use super::{Point, Scenario};
use crate::frame::yaw_to_heading;

/// Resolution of a resolved lane path (m of reference-line s).
pub const LANE_STEP_M: f64 = 0.5;

/// `path` of a target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PathSpec {
    /// Centre of lane `lane` of road `road` from `s_from` to `s_to`, shifted by `t_offset`
    /// (m, positive to the left of the reference line's direction, as OpenDRIVE t).
    Lane(LanePath),
    /// Map-frame polyline (at least two distinct points).
    Points(PointsPath),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LanePath {
    pub road: String,
    pub lane: i32,
    pub s_from: f64,
    pub s_to: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub t_offset: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointsPath {
    pub points: Vec<Point>,
}

/// Default of `start`/`heading_deg` when a target leaves them out (allowed only with a path,
/// which fills them at resolution; [`super::validate`] rejects it otherwise).
pub(crate) fn unset() -> f64 {
    f64::NAN
}

pub(crate) fn unset_point() -> Point {
    Point {
        x: f64::NAN,
        y: f64::NAN,
    }
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

impl PathSpec {
    pub fn is_lane(&self) -> bool {
        matches!(self, PathSpec::Lane(_))
    }
}

/// A polyline with cumulative arc lengths.
#[derive(Debug, Clone, PartialEq)]
pub struct Polyline {
    pts: Vec<(f64, f64)>,
    /// Arc length at each point.
    cum: Vec<f64>,
}

impl Polyline {
    /// Drops repeated points; `None` with fewer than two distinct points or a non-finite one.
    pub fn new(points: &[Point]) -> Option<Polyline> {
        let mut pts: Vec<(f64, f64)> = Vec::with_capacity(points.len());
        let mut cum = Vec::with_capacity(points.len());
        for p in points {
            if !(p.x.is_finite() && p.y.is_finite()) {
                return None;
            }
            match pts.last() {
                None => {
                    pts.push((p.x, p.y));
                    cum.push(0.0);
                }
                Some(&(x, y)) => {
                    let d = (p.x - x).hypot(p.y - y);
                    if d > 1e-9 {
                        pts.push((p.x, p.y));
                        cum.push(cum.last().copied().unwrap_or(0.0) + d);
                    }
                }
            }
        }
        (pts.len() >= 2).then_some(Polyline { pts, cum })
    }

    pub fn length(&self) -> f64 {
        self.cum.last().copied().unwrap_or(0.0)
    }

    /// Arc length of the point of the polyline nearest to (x, y), searching only the segments
    /// that overlap `[s_lo, s_hi]` (a path that crosses itself is disambiguated by where the
    /// vehicle was); the ends are extended straight, so a point before the start or past the
    /// end gets an s below 0 or beyond the length.
    pub fn project_within(&self, x: f64, y: f64, s_lo: f64, s_hi: f64) -> f64 {
        let n = self.pts.len();
        let (i0, i1) = (self.segment(s_lo), self.segment(s_hi));
        let mut best = (f64::INFINITY, 0.0);
        for i in i0..=i1.min(n - 2) {
            let (a, b) = (self.pts[i], self.pts[i + 1]);
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            let l2 = dx * dx + dy * dy;
            let mut w = ((x - a.0) * dx + (y - a.1) * dy) / l2;
            // Only the first and last segments extend beyond their ends.
            let lo = if i == 0 { f64::NEG_INFINITY } else { 0.0 };
            let hi = if i == n - 2 { f64::INFINITY } else { 1.0 };
            w = w.clamp(lo, hi);
            let (px, py) = (a.0 + w * dx, a.1 + w * dy);
            let d = (x - px).hypot(y - py);
            if d < best.0 {
                best = (d, self.cum[i] + w * l2.sqrt());
            }
        }
        best.1
    }

    /// [`Polyline::project_within`] over the whole polyline.
    pub fn project(&self, x: f64, y: f64) -> f64 {
        self.project_within(x, y, f64::NEG_INFINITY, f64::INFINITY)
    }

    pub fn points(&self) -> &[(f64, f64)] {
        &self.pts
    }

    /// Segment index containing arc length `s` (clamped to the first/last segment).
    fn segment(&self, s: f64) -> usize {
        let n = self.pts.len();
        match self.cum.binary_search_by(|c| c.total_cmp(&s)) {
            Ok(i) => i.min(n - 2),
            Err(i) => i.saturating_sub(1).min(n - 2),
        }
    }

    /// Position and yaw (rad, map frame) at arc length `s`; before the start and past the end
    /// the first/last segment is extended straight.
    pub fn pose(&self, s: f64) -> (f64, f64, f64) {
        let i = self.segment(s);
        let (a, b) = (self.pts[i], self.pts[i + 1]);
        let len = self.cum[i + 1] - self.cum[i];
        let w = (s - self.cum[i]) / len;
        let yaw = (b.1 - a.1).atan2(b.0 - a.0);
        (a.0 + w * (b.0 - a.0), a.1 + w * (b.1 - a.1), yaw)
    }

    /// Signed lateral offset of (x, y) from the polyline (left of its direction positive): the
    /// nearest segment's perpendicular distance.
    pub fn lateral(&self, x: f64, y: f64) -> f64 {
        let mut best = (f64::INFINITY, 0.0);
        let n = self.pts.len();
        for i in 0..n - 1 {
            let (a, b) = (self.pts[i], self.pts[i + 1]);
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            let l2 = dx * dx + dy * dy;
            // The first and last segments extend straight beyond the ends (as `pose` does).
            let lo = if i == 0 { f64::NEG_INFINITY } else { 0.0 };
            let hi = if i == n - 2 { f64::INFINITY } else { 1.0 };
            let w = (((x - a.0) * dx + (y - a.1) * dy) / l2).clamp(lo, hi);
            let (px, py) = (a.0 + w * dx, a.1 + w * dy);
            let d = (x - px).hypot(y - py);
            if d < best.0 {
                let side = dx * (y - a.1) - dy * (x - a.0);
                best = (d, if side < 0.0 { -d } else { d });
            }
        }
        best.1
    }
}

/// Lane centre points of `lp` on `od`, every [`LANE_STEP_M`] of s plus the exact ends. The
/// error names the road, lane and s that do not exist.
pub fn lane_polyline(od: &opendrive::OpenDrive, lp: &LanePath) -> Result<Vec<Point>, String> {
    let name = format!(
        "road '{}' lane {} s {}..{}",
        lp.road, lp.lane, lp.s_from, lp.s_to
    );
    let road = od
        .road(&lp.road)
        .ok_or_else(|| format!("{name}: the map has no road '{}'", lp.road))?;
    for s in [lp.s_from, lp.s_to] {
        if !(s.is_finite() && (-1e-6..=road.length + 1e-6).contains(&s)) {
            return Err(format!(
                "{name}: s = {s} is outside road '{}' (length {:.3} m)",
                lp.road, road.length
            ));
        }
    }
    if lp.lane == 0 {
        return Err(format!("{name}: lane 0 is the reference line, not a lane"));
    }
    if (lp.s_to - lp.s_from).abs() < 0.1 {
        return Err(format!("{name}: the s range is shorter than 0.1 m"));
    }
    if !lp.t_offset.is_finite() || lp.t_offset.abs() > 20.0 {
        return Err(format!("{name}: t_offset must be finite and within ±20 m"));
    }
    let n = ((lp.s_to - lp.s_from).abs() / LANE_STEP_M).ceil() as usize;
    let mut out = Vec::with_capacity(n + 1);
    for k in 0..=n {
        let s = if k == n {
            lp.s_to
        } else {
            lp.s_from + (lp.s_to - lp.s_from) * k as f64 / n as f64
        };
        let s = s.clamp(0.0, road.length);
        let (a, b) = road.lane_span(lp.lane, s).ok_or_else(|| {
            format!(
                "{name}: road '{}' has no lane {} at s = {s:.3}",
                lp.road, lp.lane
            )
        })?;
        let (x, y) = road.st_to_xy(s, 0.5 * (a + b) + lp.t_offset);
        out.push(Point { x, y });
    }
    Ok(out)
}

impl Scenario {
    /// Resolves every lane path against `map` into a map-frame polyline (once, at setup), and
    /// fills a path target's `start` and `heading_deg` from its path's start. Idempotent.
    /// Errors name the target and the road/lane/s that does not exist, or that there is no map.
    pub fn resolve_paths(&mut self, map: Option<&opendrive::OpenDrive>) -> Result<(), String> {
        if let Some(PathSpec::Lane(lp)) = &self.vut.path {
            let od = map.ok_or_else(|| {
                format!(
                    "vut.path on road '{}' lane {} needs a map (scenario `map` or --map)",
                    lp.road, lp.lane
                )
            })?;
            let points = lane_polyline(od, lp).map_err(|e| format!("vut.path: {e}"))?;
            self.vut.path = Some(PathSpec::Points(PointsPath { points }));
        }
        for t in &mut self.targets {
            let Some(path) = &t.path else { continue };
            let points = match path {
                PathSpec::Lane(lp) => {
                    let od = map.ok_or_else(|| {
                        format!(
                            "target '{}': path on road '{}' lane {} needs a map (scenario `map` or --map)",
                            t.id, lp.road, lp.lane
                        )
                    })?;
                    lane_polyline(od, lp).map_err(|e| format!("target '{}': {e}", t.id))?
                }
                PathSpec::Points(p) => p.points.clone(),
            };
            let line = Polyline::new(&points).ok_or_else(|| {
                format!("target '{}': path needs two distinct finite points", t.id)
            })?;
            let (x, y, yaw) = line.pose(0.0);
            t.start = Point { x, y };
            t.heading_deg = yaw_to_heading(yaw);
            t.path = Some(PathSpec::Points(PointsPath { points }));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polyline_pose_and_lateral() {
        let pl = Polyline::new(&[
            Point { x: 0.0, y: 0.0 },
            Point { x: 10.0, y: 0.0 },
            Point { x: 10.0, y: 0.0 },
            Point { x: 10.0, y: 10.0 },
        ])
        .expect("line");
        assert_eq!(pl.length(), 20.0);
        let (x, y, yaw) = pl.pose(15.0);
        assert!((x - 10.0).abs() < 1e-12 && (y - 5.0).abs() < 1e-12);
        assert!((yaw - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
        let (x, _, _) = pl.pose(-2.0);
        assert!((x + 2.0).abs() < 1e-12);
        let (_, y, _) = pl.pose(22.0);
        assert!((y - 12.0).abs() < 1e-12);
        assert!((pl.lateral(5.0, 0.3) - 0.3).abs() < 1e-12);
        assert!((pl.lateral(10.4, 5.0) + 0.4).abs() < 1e-12);
        assert!(Polyline::new(&[Point { x: 1.0, y: 1.0 }]).is_none());
    }
}
