//! Target and VUT paths: a target moves along a path instead of straight from its start along
//! its heading; the VUT's planned path is what its driver (robot) follows.
//!
//! ```toml
//! [[targets]]
//! id = "lead"
//! # the centre of a lane of the map over an s range
//! path = { road = "1", lane = -1, s_from = 150.0, s_to = 260.0, t_offset = 0.0 }
//! # or segments from a start pose (line, arc, clothoid; curvature 1/m, positive to the left)
//! path = { start = { x = 0.0, y = 0.0 }, heading_deg = 90.0, segments = [
//!     { line = 20.0 }, { clothoid = 5.0, curvature_start = 0.0, curvature_end = 0.1 },
//!     { arc = 10.0, curvature = 0.1 } ] }
//! # or a map-frame polyline (OpenSCENARIO Polyline, a recorded path)
//! path = { points = [{ x = 0.0, y = 0.0 }, { x = 10.0, y = 1.0 }] }
//! ```
//!
//! All three become one [`Path`] (the geometry engine of [`super::geom`]): a lane path is
//! resolved once, against the run's map ([`Scenario::resolve_paths`]), into its lane centre
//! every [`LANE_STEP_M`] of s plus the exact ends, evaluated by the `opendrive` crate (a lane
//! centre is an offset of the reference line, not itself a line, arc or clothoid); segments are
//! evaluated exactly. The target's speed profile ([`super::profile::Profile`]) gives its travel
//! s(τ); [`Path::pose`] maps that arc length to a map position and heading. The direction of
//! travel of a lane path is from `s_from` to `s_to` (s_to < s_from drives against s).

use serde::{Deserialize, Serialize};

use super::{Point, Scenario};
use crate::frame::{heading_to_yaw, yaw_to_heading};

pub use super::geom::{Path, Piece, Polyline};

/// Resolution of a resolved lane path (m of reference-line s).
pub const LANE_STEP_M: f64 = 0.5;

/// How far from a straight a point of a polyline may lie and still be dropped as on it by
/// [`PathSpec::compacted`] (m): above the 1e-6 m rounding of written coordinates.
pub const COLLINEAR_M: f64 = 2e-6;

/// `path` of a target or of the VUT.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PathSpec {
    /// Centre of lane `lane` of road `road` from `s_from` to `s_to`, shifted by `t_offset`
    /// (m, positive to the left of the reference line's direction, as OpenDRIVE t).
    Lane(LanePath),
    /// Map-frame polyline (at least two distinct points).
    Points(PointsPath),
    /// Line, arc and clothoid segments from a start pose.
    Segments(SegmentsPath),
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

/// Segments placed one after the other from `start`, heading `heading_deg` (INS convention:
/// 0 = north, clockwise, as a target's `heading_deg`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SegmentsPath {
    pub start: Point,
    pub heading_deg: f64,
    pub segments: Vec<SegmentSpec>,
}

/// One segment: `{ line = L }`, `{ arc = L, curvature = K }` or
/// `{ clothoid = L, curvature_start = K0, curvature_end = K1 }` (L in m, K in 1/m, positive
/// turning left; a clothoid's curvature changes linearly along it).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SegmentSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arc: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clothoid: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curvature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curvature_start: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curvature_end: Option<f64>,
}

impl SegmentSpec {
    pub fn line(length: f64) -> SegmentSpec {
        SegmentSpec {
            line: Some(length),
            ..SegmentSpec::default()
        }
    }

    pub fn arc(length: f64, curvature: f64) -> SegmentSpec {
        SegmentSpec {
            arc: Some(length),
            curvature: Some(curvature),
            ..SegmentSpec::default()
        }
    }

    pub fn clothoid(length: f64, curvature_start: f64, curvature_end: f64) -> SegmentSpec {
        SegmentSpec {
            clothoid: Some(length),
            curvature_start: Some(curvature_start),
            curvature_end: Some(curvature_end),
            ..SegmentSpec::default()
        }
    }

    /// The segment, or why it is not one (`k`: its 1-based number).
    pub fn piece(&self, k: usize) -> Result<Piece, String> {
        let c = (self.curvature, self.curvature_start, self.curvature_end);
        match (self.line, self.arc, self.clothoid, c) {
            (Some(length), None, None, (None, None, None)) => Ok(Piece::Line { length }),
            (None, Some(length), None, (Some(curvature), None, None)) => {
                Ok(Piece::Arc { length, curvature })
            }
            (None, None, Some(length), (None, Some(a), Some(b))) => Ok(Piece::Clothoid {
                length,
                curvature_start: a,
                curvature_end: b,
            }),
            _ => Err(format!(
                "segments[{k}]: one of {{ line = L }}, {{ arc = L, curvature = K }}, \
                 {{ clothoid = L, curvature_start = K0, curvature_end = K1 }}"
            )),
        }
    }
}

impl SegmentsPath {
    /// Drops the first `s0` metres: the path then starts at that point, with its heading
    /// there (rounded to 1e-6 m and 1e-6°), and its first segment is what remained of the one
    /// it was on.
    pub fn cut_start(&mut self, s0: f64) -> Result<(), String> {
        let geo = self.geometry()?;
        if !(s0.is_finite() && s0 >= 0.0 && s0 < geo.length()) {
            return Err(format!(
                "cannot cut {s0} m from a path {:.3} m long",
                geo.length()
            ));
        }
        let (x, y, yaw) = geo.pose(s0);
        let mut along = 0.0;
        let mut out = Vec::new();
        for (k, seg) in self.segments.iter().enumerate() {
            let piece = seg.piece(k + 1)?;
            let len = match piece {
                Piece::Line { length }
                | Piece::Arc { length, .. }
                | Piece::Clothoid { length, .. } => length,
            };
            let cut = s0 - along;
            along += len;
            if cut <= 0.0 {
                out.push(*seg);
            } else if cut < len {
                let rest = len - cut;
                out.push(match piece {
                    Piece::Line { .. } => SegmentSpec::line(rest),
                    Piece::Arc { curvature, .. } => SegmentSpec::arc(rest, curvature),
                    Piece::Clothoid {
                        curvature_start: a,
                        curvature_end: b,
                        ..
                    } => SegmentSpec::clothoid(rest, a + (b - a) * cut / len, b),
                });
            }
        }
        let r6 = |v: f64| (v * 1e6).round() / 1e6;
        self.start = Point { x: r6(x), y: r6(y) };
        self.heading_deg = r6(yaw_to_heading(yaw));
        self.segments = out;
        Ok(())
    }

    pub fn geometry(&self) -> Result<Path, String> {
        let pieces = self
            .segments
            .iter()
            .enumerate()
            .map(|(k, s)| s.piece(k + 1))
            .collect::<Result<Vec<_>, _>>()?;
        Path::from_pieces(
            self.start.x,
            self.start.y,
            heading_to_yaw(self.heading_deg),
            &pieces,
        )
    }
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

    /// The same path with fewer points: a polyline keeps only the points where it bends (a
    /// point within [`COLLINEAR_M`] of the straight line through its neighbours kept is
    /// dropped), so a straight is its two ends. Other paths are returned as they are.
    pub fn compacted(self) -> PathSpec {
        let PathSpec::Points(p) = self else {
            return self;
        };
        let pts = &p.points;
        if pts.len() < 3 {
            return PathSpec::Points(p);
        }
        let mut out = vec![pts[0]];
        let mut a = 0;
        let mut j = 1;
        while j < pts.len() {
            // Extend the run a..=j+1 while every point strictly inside stays on the chord.
            let next = j + 1;
            let straight = next < pts.len() && {
                let (pa, pb) = (pts[a], pts[next]);
                let (dx, dy) = (pb.x - pa.x, pb.y - pa.y);
                let l = dx.hypot(dy);
                l > 0.0
                    && pts[a + 1..next].iter().all(|q| {
                        let along = (q.x - pa.x) * dx + (q.y - pa.y) * dy;
                        along > 0.0
                            && along < l * l
                            && (dx * (q.y - pa.y) - dy * (q.x - pa.x)).abs() / l <= COLLINEAR_M
                    })
            };
            if straight {
                j = next;
            } else {
                out.push(pts[j]);
                a = j;
                j += 1;
            }
        }
        PathSpec::Points(PointsPath { points: out })
    }

    /// The path's geometry; a lane path must be resolved first ([`Scenario::resolve_paths`]).
    pub fn geometry(&self) -> Result<Path, String> {
        match self {
            PathSpec::Points(p) => {
                Path::new(&p.points).ok_or_else(|| "a path needs two distinct finite points".into())
            }
            PathSpec::Segments(g) => g.geometry(),
            PathSpec::Lane(l) => Err(format!(
                "the path on road '{}' lane {} is not resolved against a map",
                l.road, l.lane
            )),
        }
    }

    /// Points along the path: a polyline's own, or segments every `step` metres on curves
    /// (lines by their ends); `None` for an unresolved lane path or a bad path.
    pub fn points(&self, step: f64) -> Option<Vec<Point>> {
        match self {
            PathSpec::Points(p) => Some(p.points.clone()),
            PathSpec::Segments(_) => Some(
                self.geometry()
                    .ok()?
                    .sampled(step)
                    .into_iter()
                    .map(|(x, y)| Point { x, y })
                    .collect(),
            ),
            PathSpec::Lane(_) => None,
        }
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
    /// fills a path target's `start` and `heading_deg` from its path's start. Segment and
    /// polyline paths stay as they are. Idempotent. Errors name the target and the road/lane/s
    /// that does not exist, or that there is no map.
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
        if let Some(p) = &self.vut.path {
            p.geometry().map_err(|e| format!("vut.path: {e}"))?;
        }
        for t in &mut self.targets {
            let Some(path) = &t.path else { continue };
            let resolved = match path {
                PathSpec::Lane(lp) => {
                    let od = map.ok_or_else(|| {
                        format!(
                            "target '{}': path on road '{}' lane {} needs a map (scenario `map` or --map)",
                            t.id, lp.road, lp.lane
                        )
                    })?;
                    let points =
                        lane_polyline(od, lp).map_err(|e| format!("target '{}': {e}", t.id))?;
                    PathSpec::Points(PointsPath { points })
                }
                other => other.clone(),
            };
            let line = resolved
                .geometry()
                .map_err(|e| format!("target '{}': path: {e}", t.id))?;
            let (x, y, yaw) = line.pose(0.0);
            t.start = Point { x, y };
            t.heading_deg = yaw_to_heading(yaw);
            t.path = Some(resolved);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_paths_read_write_and_cut() {
        let text = r#"path = { start = { x = 1.0, y = 2.0 }, heading_deg = 90.0, segments = [
            { line = 10.0 }, { clothoid = 5.0, curvature_start = 0.0, curvature_end = 0.2 },
            { arc = 3.0, curvature = 0.2 } ] }"#;
        #[derive(Deserialize, Serialize)]
        struct T {
            path: PathSpec,
        }
        let t: T = toml::from_str(text).expect("parses");
        let PathSpec::Segments(g) = &t.path else {
            panic!("segments: {:?}", t.path)
        };
        let back: T = toml::from_str(&toml::to_string(&t).expect("writes")).expect("reads");
        assert_eq!(back.path, t.path);
        let geo = t.path.geometry().expect("geometry");
        assert!((geo.length() - 18.0).abs() < 1e-12);
        let (x, y, yaw) = geo.pose(4.0);
        assert!((x - 5.0).abs() < 1e-12 && (y - 2.0).abs() < 1e-12 && yaw.abs() < 1e-12);
        // Cut 12 m: 2 m into the clothoid, whose rest starts at curvature 0.08.
        let mut cut = g.clone();
        cut.cut_start(12.0).expect("cut");
        assert_eq!(cut.segments.len(), 2);
        assert_eq!(cut.segments[0].clothoid, Some(3.0));
        assert!((cut.segments[0].curvature_start.unwrap_or(0.0) - 0.08).abs() < 1e-12);
        let rest = cut.geometry().expect("geometry");
        let (ex, ey, _) = geo.pose(18.0);
        let (rx, ry, _) = rest.pose(6.0);
        assert!((ex - rx).hypot(ey - ry) < 2e-6, "the same end");
        // A segment with the wrong keys says which and what is expected.
        let bad: T = toml::from_str(
            "path = { start = { x = 0.0, y = 0.0 }, heading_deg = 0.0, segments = [{ arc = 1.0 }] }",
        )
        .expect("parses");
        let e = bad.path.geometry().unwrap_err();
        assert!(e.contains("segments[1]") && e.contains("curvature"), "{e}");
    }

    #[test]
    fn compacted_polylines_keep_their_bends() {
        let mut pts: Vec<Point> = (0..=100)
            .map(|k| Point {
                x: (k as f64 * 0.5 * 1e6).round() / 1e6,
                y: 1.75,
            })
            .collect();
        pts.extend((1..=10).map(|k| Point {
            x: 50.0,
            y: 1.75 + k as f64,
        }));
        let c = PathSpec::Points(PointsPath {
            points: pts.clone(),
        })
        .compacted();
        let PathSpec::Points(c) = c else {
            panic!("points")
        };
        assert_eq!(
            c.points,
            vec![pts[0], pts[100], pts[110]],
            "a straight by its ends, the corner kept"
        );
        let (a, b) = (
            Polyline::new(&pts).expect("line"),
            Polyline::new(&c.points).expect("line"),
        );
        assert_eq!(a.length(), b.length());
    }

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
