//! ASAM OpenDRIVE 1.4–1.8 road network: parsing, reference-line and lane evaluation,
//! map matching and geo-referencing.
//!
//! # Conventions and choices
//! - **Frame**: all x/y are the map's inertial frame; the header `<offset>` is *not* applied to
//!   geometry. It is applied only when converting to projected/geodetic coordinates
//!   ([`geo::GeoFrame`]): projected = rotate(map, offset.hdg) + (offset.x, offset.y), as in
//!   ASAM OpenDRIVE 1.8 §8.5.
//! - **Spirals** are integrated numerically (10-point Gauss–Legendre on sub-intervals with
//!   ≤ 0.25 rad heading change), exact to ~1e-10 m; `curvStart == curvEnd` degenerates to an arc.
//! - **paramPoly3 and poly3** are evaluated at *true arc length* along the curve, scaled so
//!   the whole curve maps onto `@length` (esmini's convention): a per-geometry arc-length table
//!   is built at load time and inverted with safeguarded Newton. For `poly3` the local `u`
//!   range ends where the arc length reaches `@length`.
//! - **Lane borders**: `<width>` records are cumulative outward from the centre lane, plus
//!   laneOffset. A lane that only has `<border>` records uses laneOffset + border(ds) as its
//!   outer border (border measured from the centre lane). Road marks, objects and signals are
//!   skipped.
//! - **Malformed numbers** (`nan`, `inf`, `4.00000000000000000+0`) are rejected with an
//!   [`Error::InvalidAttribute`] naming element, attribute, value and line. They are not
//!   repaired: a guessed value would silently move geometry.
//! - **Map matching** returns `None` for points outside every lane: being off the map is a
//!   state, not an error.

pub mod error;
pub mod geo;
pub mod geojson;
pub mod place;
pub mod survey;

pub use matching::MatchHint;
mod boxgrid;
pub mod geometry;
mod matching;
pub mod model;
mod parse;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

pub use error::Error;
pub use geometry::{Geometry, GeometryKind, PRange};
pub use model::{
    Connection, Header, Junction, Lane, LaneSection, Offset, Poly3, Road, RoadLink, TrafficRule,
};

/// Position and heading in the map frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    /// x (m).
    pub x: f64,
    /// y (m).
    pub y: f64,
    /// Heading (rad, counter-clockwise from +x).
    pub hdg: f64,
}

/// Result of map matching a point.
#[derive(Debug, Clone, PartialEq)]
pub struct LanePosition {
    /// Road id (shared with the map's road: cloning it does not allocate).
    pub road_id: std::sync::Arc<str>,
    /// Lane id (never 0).
    pub lane_id: i32,
    /// s along the road reference line.
    pub s: f64,
    /// t from the reference line (left positive; laneOffset not subtracted).
    pub t: f64,
    /// Query yaw minus the heading of the lane centre line in the direction of increasing s
    /// (wrapped to (-π, π]); 0 when no yaw was given.
    pub heading_rel: f64,
}

/// Summary of a loaded map.
#[derive(Debug, Clone, PartialEq)]
pub struct MapInfo {
    /// Number of roads.
    pub roads: usize,
    /// Number of junctions.
    pub junctions: usize,
    /// Sum of road lengths (m).
    pub total_length: f64,
    /// Geometry count per kind (`line`, `arc`, `spiral`, `poly3`, `paramPoly3`).
    pub geometry_counts: BTreeMap<String, usize>,
    /// Number of lane sections.
    pub lane_sections: usize,
    /// The geoReference PROJ string, if any.
    pub geo_reference: Option<String>,
    /// OpenDRIVE revision (major, minor).
    pub revision: (u32, u32),
}

/// Time spent in the stages of a load: XML parse (into the model), then road lookup table and
/// spatial index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadTimes {
    pub parse: std::time::Duration,
    pub index: std::time::Duration,
}

/// A loaded OpenDRIVE map with lookup tables and a spatial index.
#[derive(Debug)]
pub struct OpenDrive {
    /// Header.
    pub header: Header,
    /// Roads in file order.
    pub roads: Vec<Road>,
    /// Junctions in file order.
    pub junctions: Vec<Junction>,
    road_index: HashMap<String, usize>,
    index: matching::Index,
}

impl OpenDrive {
    /// Reads and prepares a map from a file.
    pub fn from_path(path: impl AsRef<Path>) -> Result<OpenDrive, Error> {
        let p = path.as_ref();
        let bytes = std::fs::read(p).map_err(|source| Error::Io {
            path: p.display().to_string(),
            source,
        })?;
        // Valid UTF-8 (the norm) is used in place; anything else is repaired as before.
        let text = String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        Self::from_str(&text)
    }

    /// Parses and prepares a map from XML text.
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(xml: &str) -> Result<OpenDrive, Error> {
        Self::from_str_timed(xml).map(|(od, _)| od)
    }

    /// [`OpenDrive::from_str`], also telling how long the XML parse and the spatial index took
    /// (for `scil bench map`).
    pub fn from_str_timed(xml: &str) -> Result<(OpenDrive, LoadTimes), Error> {
        let t0 = std::time::Instant::now();
        let parsed = parse::parse(xml)?;
        let t1 = std::time::Instant::now();
        let mut road_index = HashMap::with_capacity(parsed.roads.len());
        for (i, r) in parsed.roads.iter().enumerate() {
            if road_index.insert(r.id.clone(), i).is_some() {
                return Err(Error::Structure(format!("duplicate road id \"{}\"", r.id)));
            }
        }
        let index = matching::Index::build(&parsed.roads);
        let times = LoadTimes {
            parse: t1 - t0,
            index: t1.elapsed(),
        };
        let od = OpenDrive {
            header: parsed.header,
            roads: parsed.roads,
            junctions: parsed.junctions,
            road_index,
            index,
        };
        Ok((od, times))
    }

    /// Road by id (O(1)).
    pub fn road(&self, road_id: &str) -> Option<&Road> {
        self.road_index
            .get(road_id)
            .and_then(|&i| self.roads.get(i))
    }

    /// Reference line pose at `s` (no laneOffset). `None` for an unknown road or s outside
    /// [0, length] (a tolerance of 1 µm is allowed at the ends).
    pub fn reference_pose(&self, road_id: &str, s: f64) -> Option<Pose> {
        let r = self.road(road_id)?;
        let s = clamp_s(r, s)?;
        let (x, y, hdg) = r.reference(s);
        Some(Pose { x, y, hdg })
    }

    /// Outer border of lane `lane_id` at `s` (laneOffset included); lane 0 is the reference
    /// line *without* laneOffset. The heading is the reference-line heading.
    pub fn lane_border(&self, road_id: &str, lane_id: i32, s: f64) -> Option<Pose> {
        let r = self.road(road_id)?;
        let s = clamp_s(r, s)?;
        let (_, _, hdg) = r.reference(s);
        let t = if lane_id == 0 {
            0.0
        } else {
            r.border_t(lane_id, s)?
        };
        let (x, y) = r.st_to_xy(s, t);
        Some(Pose { x, y, hdg })
    }

    /// Centre line point of a lane at `s` (midway between its borders).
    pub fn lane_center(&self, road_id: &str, lane_id: i32, s: f64) -> Option<Pose> {
        let r = self.road(road_id)?;
        let s = clamp_s(r, s)?;
        let (a, b) = r.lane_span(lane_id, s)?;
        let (_, _, hdg) = r.reference(s);
        let (x, y) = r.st_to_xy(s, 0.5 * (a + b));
        Some(Pose { x, y, hdg })
    }

    /// (x, y) of road coordinate (s, t); t measured from the reference line.
    pub fn st_to_xy(&self, road_id: &str, s: f64, t: f64) -> Option<(f64, f64)> {
        let r = self.road(road_id)?;
        let s = clamp_s(r, s)?;
        Some(r.st_to_xy(s, t))
    }

    /// Map matching: the lane containing (x, y), or `None` when the point is off every lane.
    /// With `yaw` (rad, map frame) lanes whose driving direction agrees are preferred on overlaps.
    pub fn locate(&self, x: f64, y: f64, yaw: Option<f64>) -> Option<LanePosition> {
        matching::locate(self, x, y, yaw, false)
    }

    /// [`OpenDrive::locate`] for a moving vehicle: `hint` carries the previous match, and when
    /// that stretch of road is unambiguous (its boxes touch no other road) the candidates are
    /// taken from it without the spatial index. The answer is the same as `locate`'s.
    pub fn locate_hinted(
        &self,
        x: f64,
        y: f64,
        yaw: Option<f64>,
        hint: &mut MatchHint,
    ) -> Option<LanePosition> {
        matching::locate_hinted(self, x, y, yaw, false, hint)
    }

    /// Same answer as [`OpenDrive::locate`] but without the spatial index or bounding boxes:
    /// the foot point is sought in every window of every road. Exists as a correctness check of
    /// the index (a box too small would make the answers differ) and as the benchmark baseline.
    pub fn locate_brute_force(&self, x: f64, y: f64, yaw: Option<f64>) -> Option<LanePosition> {
        matching::locate(self, x, y, yaw, true)
    }

    /// Summary numbers.
    pub fn info(&self) -> MapInfo {
        let mut geometry_counts = BTreeMap::new();
        for r in &self.roads {
            for g in &r.plan_view {
                *geometry_counts
                    .entry(g.kind.name().to_string())
                    .or_insert(0) += 1;
            }
        }
        MapInfo {
            roads: self.roads.len(),
            junctions: self.junctions.len(),
            total_length: self.roads.iter().map(|r| r.length).sum(),
            geometry_counts,
            lane_sections: self.roads.iter().map(|r| r.lane_sections.len()).sum(),
            geo_reference: self.header.geo_reference.clone(),
            revision: (self.header.rev_major, self.header.rev_minor),
        }
    }

    /// Polyline of the outer border of `lane_id` (0 = reference line with laneOffset, i.e. the
    /// centre lane) sampled every ≤ `step` m and at lane-section ends, for drawing.
    pub fn lane_border_polyline(&self, road_id: &str, lane_id: i32, step: f64) -> Vec<(f64, f64)> {
        self.lane_polyline(road_id, lane_id, step, |r, s| {
            if lane_id == 0 {
                Some(r.lane_offset(s))
            } else {
                r.border_t(lane_id, s)
            }
        })
    }

    /// Polyline of a lane's centre line (see [`OpenDrive::lane_border_polyline`]).
    pub fn lane_center_polyline(&self, road_id: &str, lane_id: i32, step: f64) -> Vec<(f64, f64)> {
        self.lane_polyline(road_id, lane_id, step, |r, s| {
            r.lane_span(lane_id, s).map(|(a, b)| 0.5 * (a + b))
        })
    }

    /// Closed polygon of a lane in one lane section (inner border forward, outer border back).
    pub fn lane_polygon(
        &self,
        road_id: &str,
        section: usize,
        lane_id: i32,
        step: f64,
    ) -> Vec<(f64, f64)> {
        let Some(r) = self.road(road_id) else {
            return vec![];
        };
        let Some((s0, s1)) = section_range(r, section) else {
            return vec![];
        };
        let ss = sample_s(s0, s1, step);
        let mut inner = Vec::new();
        let mut outer = Vec::new();
        for &s in &ss {
            if let Some((a, b)) = r.lane_span(lane_id, s) {
                inner.push(r.st_to_xy(s, a));
                outer.push(r.st_to_xy(s, b));
            }
        }
        outer.reverse();
        inner.extend(outer);
        if let Some(&f) = inner.first() {
            inner.push(f);
        }
        inner
    }

    fn lane_polyline<F: Fn(&Road, f64) -> Option<f64>>(
        &self,
        road_id: &str,
        lane_id: i32,
        step: f64,
        t_at: F,
    ) -> Vec<(f64, f64)> {
        let Some(r) = self.road(road_id) else {
            return vec![];
        };
        let mut pts = Vec::new();
        for sec in 0..r.lane_sections.len() {
            if lane_id != 0 && r.lane_sections[sec].lane(lane_id).is_none() {
                continue;
            }
            let Some((s0, s1)) = section_range(r, sec) else {
                continue;
            };
            for s in sample_s(s0, s1, step) {
                // Evaluate just inside the section so the last point belongs to it.
                let se = if s >= s1 { (s1 - 1e-9).max(s0) } else { s };
                if let Some(t) = t_at(r, se) {
                    pts.push(r.st_to_xy(se, t));
                }
            }
        }
        pts
    }
}

/// [start, end) of lane section `i`.
pub(crate) fn section_range(r: &Road, i: usize) -> Option<(f64, f64)> {
    let s0 = r.lane_sections.get(i)?.s.max(0.0);
    let s1 = r
        .lane_sections
        .get(i + 1)
        .map(|n| n.s)
        .unwrap_or(r.length)
        .min(r.length);
    if s1 < s0 {
        return None;
    }
    Some((s0, s1))
}

/// Samples [s0, s1] with spacing ≤ step, including both ends.
pub(crate) fn sample_s(s0: f64, s1: f64, step: f64) -> Vec<f64> {
    let step = if step.is_finite() && step > 0.0 {
        step
    } else {
        1.0
    };
    let n = (((s1 - s0) / step).ceil().max(1.0) as usize).min(1_000_000);
    (0..=n)
        .map(|i| s0 + (s1 - s0) * i as f64 / n as f64)
        .collect()
}

fn clamp_s(r: &Road, s: f64) -> Option<f64> {
    if !s.is_finite() || s < -1e-6 || s > r.length + 1e-6 {
        return None;
    }
    Some(s.clamp(0.0, r.length))
}

/// Every `*.xodr` file under `dir`, recursively, sorted (unreadable directories are skipped):
/// how the map benchmark and the tests walk a directory of maps.
pub fn xodr_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "xodr") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Wraps an angle to (-π, π].
pub fn wrap_angle(a: f64) -> f64 {
    let mut r = rem_tau(a);
    if r > std::f64::consts::PI {
        r -= std::f64::consts::TAU;
    }
    r
}

/// `a.rem_euclid(TAU)`, bit for bit, without the `fmod` call for |a| < TAU (map matching wraps
/// an angle or two per sample, and these nearly always are).
#[inline]
pub fn rem_tau(a: f64) -> f64 {
    use std::f64::consts::TAU;
    if a.abs() < TAU {
        // fmod(a, TAU) is exactly `a` here; rem_euclid then adds TAU to a negative remainder.
        if a < 0.0 {
            a + TAU
        } else {
            a
        }
    } else {
        a.rem_euclid(TAU)
    }
}
