//! Lane departure: how close the VUT comes to the edge of its lane, measured on the map.
//!
//! A scenario whose VUT drifts out of its lane (`vut.drift`, the lane-departure tests) has a
//! lane to leave: the OpenDRIVE lane under its planned path where the drift begins, and a side
//! to leave it by (the drift's). Every VUT sample matched to that lane's road gives the
//! distance from the VUT's outer front corner (the reference point moved to the front bumper
//! and out by half the width, on the drift's side) to that lane's edge, measured across the
//! road (in t) at the sample's s: positive while inside the lane, negative beyond its edge.
//! Samples after the VUT has passed the end of its planned path are not measured (the test
//! ends there).
//!
//! The distance at the end of the test (the rating tool's `dtle_t_end`) is the one at the end
//! of the excursion: the smallest distance of the run, where the VUT stops moving towards the
//! edge (an intervention steered it back), or the last one when it never turned back.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::scenario::VutSpec;
use crate::twin::{LaneMatch, MapMatcher, RoadState, VehicleState};

/// The lane departure of a run (the result's `lane_departure`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaneDeparture {
    /// The road and lane the VUT departs, and by which side of its own (`left`/`right`).
    pub road: String,
    pub lane: i32,
    pub side: String,
    /// Distance from the VUT's outer front corner to the lane's edge at the end of the
    /// excursion (the smallest of the run), m: negative when the VUT was beyond the edge.
    pub dtle_m: f64,
    /// Sample time of that distance, s.
    pub time_s: f64,
    /// Distance at the last measured sample, m.
    pub dtle_last_m: f64,
    /// Whether the outer corner crossed the edge.
    pub crossed: bool,
    /// VUT samples measured (matched to the lane's road).
    pub samples: u64,
    /// VUT samples not matched to that road (off the map, or on another road).
    pub unmatched: u64,
}

/// The lane a drifting VUT departs, the side it departs by and its body: measures the distance
/// from its outer front corner to the lane's edge (see the module doc).
#[derive(Debug, Clone)]
pub struct LaneGauge {
    road: Arc<str>,
    lane: i32,
    /// +1: the VUT leaves by its left side, −1: by its right.
    side: f64,
    front_m: f64,
    half_width_m: f64,
}

impl LaneGauge {
    /// For a drifting VUT whose planned path (resolved to points), where the drift begins,
    /// lies on a lane of the map; `None` otherwise (no drift, no path or no map).
    pub fn of(vut: &VutSpec, matcher: Option<&dyn MapMatcher>) -> Option<LaneGauge> {
        let drift = vut.drift?;
        let matcher = matcher?;
        let path = vut.path.as_ref()?;
        if path.is_lane() {
            return None;
        }
        let line = path.geometry().ok()?;
        let (x, y, yaw) = line.pose(drift.from_s.clamp(0.0, line.length()));
        let m = matcher.locate(x, y, yaw)?;
        Some(LaneGauge {
            road: m.road_id,
            lane: m.lane_id,
            side: if drift.lateral_mps >= 0.0 { 1.0 } else { -1.0 },
            front_m: vut.reference_to_front_m,
            half_width_m: 0.5 * vut.width_m,
        })
    }

    /// The distance for a reference point matched at `m` (`None` on another road, or where the
    /// lane does not exist at the match's s).
    pub fn dtle(&self, m: &LaneMatch, matcher: &dyn MapMatcher) -> Option<f64> {
        if *m.road_id != *self.road {
            return None;
        }
        let (a, b) = matcher.lane_span(&self.road, self.lane, m.s)?;
        let phi = m.heading_rel_rad;
        // The outer front corner across the road: forward `front_m`, sideways half the width
        // (t is left positive; `phi` is the body's yaw relative to increasing s).
        let lat = self.side * self.half_width_m;
        let t_corner = m.t + self.front_m * phi.sin() + lat * phi.cos();
        // The edge on the VUT's side: left of the body is +t when it faces increasing s.
        Some(if self.side * phi.cos() >= 0.0 {
            a.max(b) - t_corner
        } else {
            t_corner - a.min(b)
        })
    }

    /// The distance for the reference point at (x, y) with yaw `yaw` (map frame).
    pub fn dtle_at(&self, matcher: &dyn MapMatcher, x: f64, y: f64, yaw: f64) -> Option<f64> {
        self.dtle(&matcher.locate(x, y, yaw)?, matcher)
    }
}

/// The tracker (one per run, when the VUT drifts and the map knows its lane).
#[derive(Debug, Clone)]
pub(super) struct LaneEdge {
    gauge: LaneGauge,
    best: Option<(f64, f64)>,
    last: Option<f64>,
    samples: u64,
    unmatched: u64,
}

impl LaneEdge {
    pub(super) fn of(vut: &VutSpec, matcher: Option<&dyn MapMatcher>) -> Option<LaneEdge> {
        Some(LaneEdge {
            gauge: LaneGauge::of(vut, matcher)?,
            best: None,
            last: None,
            samples: 0,
            unmatched: 0,
        })
    }

    /// One VUT sample (its state in the twin, after the update).
    pub(super) fn step(&mut self, v: &VehicleState, matcher: Option<&dyn MapMatcher>) {
        let d = match (&v.road, matcher) {
            (RoadState::OnLane(m), Some(mm)) => self.gauge.dtle(m, mm),
            _ => None,
        };
        let Some(d) = d else {
            self.unmatched += 1;
            return;
        };
        self.samples += 1;
        self.last = Some(d);
        if self.best.is_none_or(|(b, _)| d < b) {
            self.best = Some((d, v.time_s));
        }
    }

    /// The record, once a sample was measured.
    pub(super) fn record(&self) -> Option<LaneDeparture> {
        let (dtle_m, time_s) = self.best?;
        let g = &self.gauge;
        Some(LaneDeparture {
            road: g.road.to_string(),
            lane: g.lane,
            side: if g.side > 0.0 { "left" } else { "right" }.into(),
            dtle_m,
            time_s,
            dtle_last_m: self.last.unwrap_or(dtle_m),
            crossed: dtle_m < 0.0,
            samples: self.samples,
            unmatched: self.unmatched,
        })
    }
}
