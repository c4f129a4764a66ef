//! A planned track: timed poses with speed and acceleration, what an object is sent as TRAJ and
//! what its MONR track is measured against. Made from the engine's own kinematics: a target's
//! [`DummyProfile`], the VUT's rehearsal ([`super::plan`]), or a drive back to the start
//! ([`super::route`]).

use serde::{Deserialize, Serialize};

use crate::dispatch::iso22133::{Traj, TrajPoint};
use crate::dispatch::profile::{cdeg_to_yaw, yaw_to_cdeg, DummyProfile};
use crate::frame::wrap_pi;

/// A pose in the map frame (x east, y north, metres; yaw counter-clockwise from +x, radians).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    pub x: f64,
    pub y: f64,
    pub yaw: f64,
}

impl Pose {
    pub fn new(x: f64, y: f64, yaw: f64) -> Pose {
        Pose { x, y, yaw }
    }

    /// Distance and absolute heading difference (degrees) to `o`.
    pub fn offset_to(&self, o: &Pose) -> (f64, f64) {
        (
            (self.x - o.x).hypot(self.y - o.y),
            wrap_pi(self.yaw - o.yaw).abs().to_degrees(),
        )
    }
}

/// One point of a track. `v` is signed: negative while reversing (the yaw stays the vehicle's).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TrackPoint {
    pub t: f64,
    pub x: f64,
    pub y: f64,
    pub yaw: f64,
    pub v: f64,
    pub a: f64,
    pub curvature: f64,
}

/// Timed points, sorted by time, at least one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedTrack {
    pub points: Vec<TrackPoint>,
}

impl PlannedTrack {
    /// A track from points (sorted by time; `None` when empty or not finite).
    pub fn new(mut points: Vec<TrackPoint>) -> Option<PlannedTrack> {
        if points.is_empty()
            || points
                .iter()
                .any(|p| !(p.t.is_finite() && p.x.is_finite() && p.y.is_finite()))
        {
            return None;
        }
        points.sort_by(|a, b| a.t.total_cmp(&b.t));
        Some(PlannedTrack { points })
    }

    /// A target's profile, as the TRAJ its carrier is sent.
    pub fn of_profile(p: &DummyProfile, dt_s: f64) -> PlannedTrack {
        Self::of_traj(&p.to_traj(0, "", dt_s)).unwrap_or_else(|| {
            let m = p.at(0.0);
            PlannedTrack {
                points: vec![TrackPoint {
                    t: 0.0,
                    x: m.x,
                    y: m.y,
                    yaw: m.yaw_rad,
                    v: 0.0,
                    a: 0.0,
                    curvature: 0.0,
                }],
            }
        })
    }

    /// The track of a TRAJ (wire units back to SI).
    pub fn of_traj(t: &Traj) -> Option<PlannedTrack> {
        Self::new(
            t.points
                .iter()
                .map(|q| TrackPoint {
                    t: q.rel_time_ms as f64 / 1000.0,
                    x: q.x_mm as f64 / 1000.0,
                    y: q.y_mm as f64 / 1000.0,
                    yaw: cdeg_to_yaw(q.yaw_cdeg),
                    v: q.speed_lon_cm_s as f64 / 100.0,
                    a: q.acc_lon_mm_s2 as f64 / 1000.0,
                    curvature: q.curvature as f64,
                })
                .collect(),
        )
    }

    /// The TRAJ of this track (wire units; speeds and accelerations saturate at the field's
    /// range).
    pub fn to_traj(&self, id: u16, name: &str) -> Traj {
        let sat16 = |v: f64| v.round().clamp(i16::MIN as f64, i16::MAX as f64) as i16;
        Traj {
            id,
            info: 2,
            name: name.chars().take(64).collect(),
            points: self
                .points
                .iter()
                .map(|p| TrajPoint {
                    rel_time_ms: (p.t.max(0.0) * 1000.0).round() as u32,
                    x_mm: (p.x * 1000.0).round() as i32,
                    y_mm: (p.y * 1000.0).round() as i32,
                    z_mm: 0,
                    yaw_cdeg: yaw_to_cdeg(p.yaw),
                    speed_lon_cm_s: sat16(p.v * 100.0),
                    speed_lat_cm_s: 0,
                    acc_lon_mm_s2: sat16(p.a * 1000.0),
                    acc_lat_mm_s2: 0,
                    curvature: p.curvature as f32,
                })
                .collect(),
        }
    }

    /// This track standing still at its first pose for `lead_s` before it moves (every
    /// point `lead_s` later, a standing point at the old start time).
    pub fn standing_first(mut self, lead_s: f64) -> PlannedTrack {
        if lead_s <= 0.0 {
            return self;
        }
        let first = self.points[0];
        for p in self.points.iter_mut() {
            p.t += lead_s;
        }
        self.points.insert(
            0,
            TrackPoint {
                v: 0.0,
                a: 0.0,
                ..first
            },
        );
        self
    }

    pub fn duration_s(&self) -> f64 {
        self.points[self.points.len() - 1].t - self.points[0].t
    }

    pub fn start(&self) -> Pose {
        let p = &self.points[0];
        Pose::new(p.x, p.y, p.yaw)
    }

    pub fn end(&self) -> Pose {
        let p = &self.points[self.points.len() - 1];
        Pose::new(p.x, p.y, p.yaw)
    }

    /// Length driven (sum of the chords).
    pub fn length_m(&self) -> f64 {
        self.points
            .windows(2)
            .map(|w| (w[1].x - w[0].x).hypot(w[1].y - w[0].y))
            .sum()
    }

    /// Distance from (x, y) to the track's polyline (its nearest segment).
    pub fn lateral_m(&self, x: f64, y: f64) -> f64 {
        if self.points.len() == 1 {
            let p = &self.points[0];
            return (x - p.x).hypot(y - p.y);
        }
        self.points
            .windows(2)
            .map(|w| seg_distance(x, y, (w[0].x, w[0].y), (w[1].x, w[1].y)))
            .fold(f64::INFINITY, f64::min)
    }

    /// The largest distance of `pts` (positions that move along the track) from its
    /// polyline: each point's nearest segment is looked for within 200 points either side of
    /// the previous point's, and over the whole polyline when that is more than 1 mm away, so
    /// the answer is exact whenever it exceeds 1 mm. `None` without points.
    pub fn max_lateral_m(&self, pts: impl Iterator<Item = (f64, f64)>) -> Option<f64> {
        const NEAR: usize = 200;
        let n = self.points.len();
        let mut hint = 0usize;
        let mut out: Option<f64> = None;
        for (x, y) in pts {
            let d = if n == 1 {
                self.lateral_m(x, y)
            } else {
                let (lo, hi) = (hint.saturating_sub(NEAR), (hint + NEAR).min(n - 1));
                let (mut best, mut at) = (f64::INFINITY, hint);
                for k in lo..hi {
                    let (a, b) = (&self.points[k], &self.points[k + 1]);
                    let d = seg_distance(x, y, (a.x, a.y), (b.x, b.y));
                    if d < best {
                        best = d;
                        at = k;
                    }
                }
                hint = at;
                if best > 1e-3 {
                    self.lateral_m(x, y)
                } else {
                    best
                }
            };
            out = Some(out.map_or(d, |m: f64| m.max(d)));
        }
        out
    }

    /// Pose at time `t` from the first point (linear between points, held beyond the ends).
    pub fn pose_at(&self, t: f64) -> Pose {
        let t = t + self.points[0].t;
        let i = self.points.partition_point(|p| p.t <= t);
        if i == 0 {
            return self.start();
        }
        if i >= self.points.len() {
            return self.end();
        }
        let (a, b) = (&self.points[i - 1], &self.points[i]);
        let f = if b.t > a.t {
            (t - a.t) / (b.t - a.t)
        } else {
            0.0
        };
        Pose::new(
            a.x + f * (b.x - a.x),
            a.y + f * (b.y - a.y),
            a.yaw + f * wrap_pi(b.yaw - a.yaw),
        )
    }
}

impl PlannedTrack {
    /// How far behind its schedule an object was: for each `(t, x, y)` of its MONR while
    /// moving (times from its start), its time minus the planned time of the same place (the
    /// nearest track point, searched forwards as an object does not drive back along its
    /// path, refined on the segment either side of it); places where the plan stands still
    /// say nothing about time and are skipped. Returns `(t, lag)` per judged sample, seconds
    /// (positive = late), ending where the object stands at its path end.
    pub fn schedule_lags(&self, monr: &[(f64, f64, f64)]) -> Vec<(f64, f64)> {
        let t0 = self.points[0].t;
        let mut i = 0;
        let mut out = Vec::new();
        for &(t, x, y) in monr {
            // Nearest point within the next stretch of the track.
            let end = (i + 2000).min(self.points.len());
            let (mut best, mut bi) = (f64::INFINITY, i);
            for (k, p) in self.points[i..end].iter().enumerate() {
                let d = (p.x - x).hypot(p.y - y);
                if d < best {
                    best = d;
                    bi = i + k;
                }
            }
            i = bi;
            // Standing at the end of its path (its TRAJ may hold the end pose a while).
            if bi + 1 == self.points.len() && !out.is_empty() {
                break;
            }
            let p = &self.points[bi];
            if p.v.abs() < 0.5 || best > 0.5 {
                continue;
            }
            let planned = self.planned_time_near(bi, x, y);
            out.push((t, t - (planned - t0)));
        }
        out
    }

    /// The planned time of (x, y) on the segment before or after point `k`, whichever is
    /// nearer (time linear along a segment).
    fn planned_time_near(&self, k: usize, x: f64, y: f64) -> f64 {
        let on = |a: &TrackPoint, b: &TrackPoint| {
            let (dx, dy) = (b.x - a.x, b.y - a.y);
            let l2 = dx * dx + dy * dy;
            let f = if l2 > 0.0 {
                (((x - a.x) * dx + (y - a.y) * dy) / l2).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let d = (x - a.x - f * dx).hypot(y - a.y - f * dy);
            (d, a.t + f * (b.t - a.t))
        };
        let p = &self.points[k];
        let before = k
            .checked_sub(1)
            .and_then(|j| self.points.get(j))
            .map(|a| on(a, p));
        let after = self.points.get(k + 1).map(|b| on(p, b));
        match (before, after) {
            (Some(a), Some(b)) => {
                if a.0 <= b.0 {
                    a.1
                } else {
                    b.1
                }
            }
            (Some(a), None) | (None, Some(a)) => a.1,
            (None, None) => p.t,
        }
    }
}

/// Distance from a point to a segment.
fn seg_distance(x: f64, y: f64, a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let l2 = dx * dx + dy * dy;
    let f = if l2 > 0.0 {
        (((x - a.0) * dx + (y - a.1) * dy) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (x - a.0 - f * dx).hypot(y - a.1 - f * dy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traj_round_trip_and_lateral() {
        let p = DummyProfile::from_scenario(10.0, 5.0, 0.0, 1.0, 5.0);
        let t = PlannedTrack::of_profile(&p, 0.05);
        assert!((t.start().x - 10.0).abs() < 1e-3 && (t.start().y - 5.0).abs() < 1e-3);
        assert!((t.duration_s() - p.duration_s()).abs() < 2e-3);
        let back = PlannedTrack::of_traj(&t.to_traj(1, "x")).expect("points");
        assert_eq!(back.points.len(), t.points.len());
        // north along x = 10: a point 0.3 m east of the line is 0.3 m off
        assert!((t.lateral_m(10.3, 8.0) - 0.3).abs() < 1e-3);
        let mid = t.pose_at(t.duration_s() / 2.0);
        assert!(t.lateral_m(mid.x, mid.y) < 1e-9);
        // Along the track, with one point 0.2 m off: the same maximum as a full scan.
        let pts: Vec<(f64, f64)> = (0..200)
            .map(|k| {
                let q = t.pose_at(k as f64 * 0.02);
                (q.x + if k == 120 { 0.2 } else { 0.0 }, q.y)
            })
            .collect();
        let full = pts
            .iter()
            .map(|&(x, y)| t.lateral_m(x, y))
            .fold(0.0f64, f64::max);
        let got = t.max_lateral_m(pts.iter().copied()).expect("points");
        assert!(
            (got - full).abs() < 1e-12 && (got - 0.2).abs() < 1e-3,
            "{got} {full}"
        );
        assert_eq!(t.max_lateral_m(std::iter::empty()), None);
    }

    #[test]
    fn schedule_lags_of_a_slow_object() {
        // An object 1 % slow on its track, sampled every 10 ms off the track's own points:
        // its lag grows as 1 % of its time, to well under a millisecond.
        let p = DummyProfile::from_scenario(0.0, 0.0, 0.0, 2.0, 8.0);
        let t = PlannedTrack::of_profile(&p, 0.05);
        let monr: Vec<(f64, f64, f64)> = (0..400)
            .map(|k| {
                let at = k as f64 * 0.01 + 0.003;
                let q = t.pose_at(at / 1.01);
                (at, q.x, q.y)
            })
            .collect();
        let lags = t.schedule_lags(&monr);
        assert!(lags.len() > 300, "{}", lags.len());
        for &(at, lag) in &lags {
            assert!((lag - (at - at / 1.01)).abs() < 5e-4, "at {at}: lag {lag}");
        }
    }
}
