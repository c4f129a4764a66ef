//! Sans-IO motion supervision of one object against its own TRAJ and the site's geofence: the
//! safety supervisor ([`super::safety`]) feeds it every MONR position of an armed or running
//! object and aborts the run on the first rule it breaks.
//!
//! Rules (limits in [`MotionLimits`]):
//! * **lateral deviation**: once started, the distance from the nearest point of its path
//!   (segments of its TRAJ), signed left/right of the path's direction;
//! * **speed above plan**: once started, its MONR speed above the TRAJ speed where it is, by
//!   more than the limit plus the catch-up its own plan implies: an object behind its
//!   schedule by `lag` metres (measured from its MONR against the TRAJ's timing since its
//!   STRT) may drive `√(2·a·lag)` faster, the speed a position controller limited to the
//!   acceleration `a` reaches while it closes that gap, at most `max_catchup_mps`. The first
//!   [`LAG_TOLERANCE_M`] of lag count as on schedule (positioning and timing alone explain
//!   that much, and `√` is steep near 0: 2 mm would already allow 0.06 m/s). An object on or
//!   ahead of its schedule gets none, so a real overspeed (which puts it ahead) is aborted as
//!   before;
//! * **motion before its start**: while it should stand (armed, not started yet), its distance
//!   from where it stood when armed;
//! * **position jump**: between two MONR, a distance its speed cannot explain (a positioning
//!   fault);
//! * **geofence**: its position outside the permitted area or inside a forbidden zone.
//!
//! The path is looked up near the last match (a window of points ahead), over the whole path
//! only when that window's answer is beyond the limit: one MONR costs a few hundred segment
//! distances at most.

use super::events::AbortReason;
use super::iso22133::Traj;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Lag behind schedule that earns no catch-up allowance, m: what an RTK position (the
/// protocols ask for 0.03 m) and a report's timing explain without any real lag.
pub const LAG_TOLERANCE_M: f64 = 0.05;

/// Limits of the motion rules (per site; the lateral one per object too).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MotionLimits {
    /// Largest distance from the object's own path once started, m.
    pub lateral_m: f64,
    /// Largest MONR speed above the TRAJ speed where the object is, m/s.
    pub overspeed_mps: f64,
    /// Largest distance an object may move while it should stand (armed, not started), m.
    pub stand_m: f64,
    /// Largest distance between two MONR beyond what the object's speed explains, m.
    pub jump_m: f64,
    /// After an object first reports ARMED, how long its pose may still settle (the MONR that
    /// first says ARMED may carry the pose from before), s.
    pub settle_s: f64,
    /// Acceleration an object behind its schedule catches up with (the speed rule's
    /// allowance), m/s².
    pub catchup_accel_mps2: f64,
    /// Largest catch-up allowance above the planned speed (besides `overspeed_mps`), m/s.
    pub max_catchup_mps: f64,
}

impl Default for MotionLimits {
    fn default() -> Self {
        Self {
            lateral_m: 1.0,
            overspeed_mps: 1.0,
            stand_m: 0.5,
            jump_m: 1.0,
            settle_s: 1.0,
            catchup_accel_mps2: 1.0,
            max_catchup_mps: 2.0,
        }
    }
}

impl MotionLimits {
    pub fn validate(&self) -> Result<(), String> {
        for (name, v) in [
            ("lateral_m", self.lateral_m),
            ("overspeed_mps", self.overspeed_mps),
            ("stand_m", self.stand_m),
            ("jump_m", self.jump_m),
            ("catchup_accel_mps2", self.catchup_accel_mps2),
        ] {
            if !(v > 0.0 && v.is_finite()) {
                return Err(format!("motion limit {name} must be positive, got {v}"));
            }
        }
        if !(self.max_catchup_mps >= 0.0 && self.max_catchup_mps.is_finite()) {
            return Err("motion limit max_catchup_mps must be 0 or more".into());
        }
        if !(self.settle_s >= 0.0 && self.settle_s.is_finite()) {
            return Err("motion limit settle_s must be 0 or more".into());
        }
        Ok(())
    }
}

/// A site's geofence in the map's metres: the area objects must stay in (empty: anywhere) and
/// the zones they must not enter (where people stand).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Geofence {
    #[serde(default)]
    pub permitted: Vec<[f64; 2]>,
    #[serde(default)]
    pub forbidden: Vec<Vec<[f64; 2]>>,
}

/// Where a point breaks a geofence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breach {
    /// Outside the permitted area.
    Outside,
    /// Inside forbidden zone `n` (0-based, in the order given).
    Forbidden(usize),
}

impl Breach {
    /// "outside the permitted area", "inside forbidden zone 2" (1-based for people).
    pub fn words(&self) -> String {
        match self {
            Breach::Outside => "outside the permitted area".into(),
            Breach::Forbidden(n) => format!("inside forbidden zone {}", n + 1),
        }
    }
}

impl Geofence {
    /// Polygons of at least 3 finite points.
    pub fn validate(&self) -> Result<(), String> {
        let check = |what: String, p: &[[f64; 2]]| -> Result<(), String> {
            if p.len() < 3 {
                return Err(format!("{what}: a polygon needs at least 3 points"));
            }
            if let Some(i) = p
                .iter()
                .position(|q| !(q[0].is_finite() && q[1].is_finite()))
            {
                return Err(format!("{what}: point {i} is not a finite [x, y]"));
            }
            Ok(())
        };
        if !self.permitted.is_empty() {
            check("permitted".into(), &self.permitted)?;
        }
        for (i, f) in self.forbidden.iter().enumerate() {
            check(format!("forbidden[{i}]"), f)?;
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.permitted.is_empty() && self.forbidden.is_empty()
    }

    /// Whether `(x, y)` breaks the geofence, and how.
    pub fn breach(&self, x: f64, y: f64) -> Option<Breach> {
        if !self.permitted.is_empty() && !inside(&self.permitted, x, y) {
            return Some(Breach::Outside);
        }
        self.forbidden
            .iter()
            .position(|f| inside(f, x, y))
            .map(Breach::Forbidden)
    }
}

/// Even-odd point-in-polygon test (the polygon closes itself).
pub fn inside(poly: &[[f64; 2]], x: f64, y: f64) -> bool {
    let mut c = false;
    let n = poly.len();
    let mut j = n.wrapping_sub(1);
    for i in 0..n {
        let (a, b) = (poly[i], poly[j]);
        if (a[1] > y) != (b[1] > y) && x < (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1]) + a[0] {
            c = !c;
        }
        j = i;
    }
    c
}

/// A path point: position, planned speed magnitude, planned time from the TRAJ's start and
/// distance along the path.
#[derive(Debug, Clone, Copy)]
struct PathPoint {
    x: f64,
    y: f64,
    speed: f64,
    t: f64,
    s: f64,
}

/// Segments looked at ahead of the last match (TRAJ points are 50 ms apart by default: 20 s).
const AHEAD: usize = 400;

/// One object's path from its TRAJ (see the module doc).
#[derive(Debug, Clone)]
pub struct PathWatch {
    pts: Vec<PathPoint>,
    cursor: usize,
}

/// Where an object is against its path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Located {
    /// Distance from the path, positive left of its direction, m.
    pub lateral_m: f64,
    /// Planned speed there (the larger of the segment's ends), m/s.
    pub planned_mps: f64,
    /// Distance along the path of the nearest place on it, m.
    pub along_m: f64,
}

impl PathWatch {
    /// `None` for a TRAJ without points.
    pub fn of_traj(t: &Traj) -> Option<PathWatch> {
        let mut pts: Vec<PathPoint> = Vec::with_capacity(t.points.len());
        for p in &t.points {
            let (x, y) = (p.x_mm as f64 / 1000.0, p.y_mm as f64 / 1000.0);
            let s = pts
                .last()
                .map_or(0.0, |l: &PathPoint| l.s + (x - l.x).hypot(y - l.y));
            let q = PathPoint {
                x,
                y,
                speed: (p.speed_lon_cm_s as f64 / 100.0).abs(),
                t: p.rel_time_ms as f64 / 1000.0,
                s,
            };
            // Points held at one place add nothing but their speed.
            match pts.last_mut() {
                Some(l) if (l.x - q.x).hypot(l.y - q.y) < 1e-6 => l.speed = l.speed.max(q.speed),
                _ => pts.push(q),
            }
        }
        (!pts.is_empty()).then_some(PathWatch { pts, cursor: 0 })
    }

    /// The path's first point.
    pub fn start(&self) -> (f64, f64) {
        (self.pts[0].x, self.pts[0].y)
    }

    /// Where `(x, y)` is against the path: near the last match first, over the whole path
    /// when that is farther than `limit_m`.
    pub fn locate(&mut self, x: f64, y: f64, limit_m: f64) -> Located {
        let n = self.pts.len();
        if n == 1 {
            let p = self.pts[0];
            return Located {
                lateral_m: (x - p.x).hypot(y - p.y),
                planned_mps: p.speed,
                along_m: 0.0,
            };
        }
        let lo = self.cursor.saturating_sub(2);
        let hi = (self.cursor + AHEAD).min(n - 1);
        let mut best = self.nearest(x, y, lo, hi);
        if best.1.abs() > limit_m {
            best = self.nearest(x, y, 0, n - 1);
        }
        self.cursor = best.0;
        let (a, b) = (self.pts[best.0], self.pts[best.0 + 1]);
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        let len2 = dx * dx + dy * dy;
        let u = if len2 > 0.0 {
            (((x - a.x) * dx + (y - a.y) * dy) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        Located {
            lateral_m: best.1,
            planned_mps: a.speed.max(b.speed),
            along_m: a.s + u * (b.s - a.s),
        }
    }

    /// The planned speed `t` s after the start, m/s (held at the ends).
    pub fn planned_speed(&self, t: f64) -> f64 {
        let t = t + self.pts[0].t;
        let i = self.pts.partition_point(|p| p.t <= t);
        match (i.checked_sub(1).map(|j| self.pts[j]), self.pts.get(i)) {
            (None, _) => 0.0,
            (Some(a), None) => a.speed,
            (Some(a), Some(b)) if b.t > a.t => {
                a.speed + (t - a.t) / (b.t - a.t) * (b.speed - a.speed)
            }
            (Some(a), Some(_)) => a.speed,
        }
    }

    /// Where the plan is `t` seconds after the start: distance along the path, m (held at the
    /// ends).
    pub fn planned_along(&self, t: f64) -> f64 {
        let t = t + self.pts[0].t;
        let i = self.pts.partition_point(|p| p.t <= t);
        match (i.checked_sub(1).map(|j| self.pts[j]), self.pts.get(i)) {
            (None, _) => 0.0,
            (Some(a), None) => a.s,
            (Some(a), Some(b)) if b.t > a.t => a.s + (t - a.t) / (b.t - a.t) * (b.s - a.s),
            (Some(a), Some(_)) => a.s,
        }
    }

    /// Nearest segment in `lo..hi` and the signed distance to it.
    fn nearest(&self, x: f64, y: f64, lo: usize, hi: usize) -> (usize, f64) {
        let mut best = (lo, f64::INFINITY);
        for k in lo..hi {
            let (a, b) = (self.pts[k], self.pts[k + 1]);
            let (dx, dy) = (b.x - a.x, b.y - a.y);
            let len2 = dx * dx + dy * dy;
            let u = if len2 > 0.0 {
                (((x - a.x) * dx + (y - a.y) * dy) / len2).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let (px, py) = (a.x + u * dx, a.y + u * dy);
            let d = (x - px).hypot(y - py);
            // A later segment only when clearly nearer: a path that passes the same place again
            // (a loop) keeps its match on the pass the object is on.
            if d + 1e-3 < best.1.abs() {
                let left = dx * (y - a.y) - dy * (x - a.x) >= 0.0;
                best = (k, if left { d } else { -d });
            }
        }
        best
    }
}

/// What one object's watch knows between two MONR.
#[derive(Debug, Clone, Default)]
pub struct ObjectWatch {
    pub path: Option<PathWatch>,
    /// This object's lateral limit when it has its own.
    pub lateral_m: Option<f64>,
    /// First ARMED MONR of this supervision (control-centre seconds).
    armed_at: Option<f64>,
    /// Where it stood when armed (followed until `settle_s` after `armed_at`).
    anchor: Option<(f64, f64)>,
    /// The previous MONR: (arrival t, its own stamp, x, y, |speed|).
    prev: Option<(f64, f64, f64, f64, f64)>,
    /// Its latest lag behind its plan, once started.
    pub lag: Option<Lag>,
    /// Its plan cruises where it should be now: the planned speed is the same over the next
    /// [`AT_SPEED_AHEAD_S`] (its launch is over, no braking ahead).
    pub at_speed: bool,
    /// This object's catch-up acceleration when it has its own (its capability), m/s².
    pub catchup_accel_mps2: Option<f64>,
}

/// The most by which two MONR's own stamps may be further apart than their arrivals for the
/// position-jump rule, s.
pub const MAX_STAMP_GAP_S: f64 = 0.5;

/// How far ahead [`ObjectWatch::at_speed`] looks at the plan, s.
pub const AT_SPEED_AHEAD_S: f64 = 1.0;

/// How far an object is behind its plan (negative: ahead).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Lag {
    /// Planned distance along its path now less the distance it has driven, m.
    pub m: f64,
    /// The same in time: `m` at the planned speed where it is (0 where the plan stands), s.
    pub s: f64,
}

/// One MONR of an armed or running object, as the rules need it.
#[derive(Debug, Clone, Copy)]
pub struct MonrPos {
    pub t_s: f64,
    pub x: f64,
    pub y: f64,
    pub speed_mps: f64,
    /// The object reports ARMED (it stands, or should).
    pub armed: bool,
    /// Its STRT instant has passed: it may move along its path.
    pub started: bool,
    /// Its STRT instant (the same clock as `t_s`), when it was given one.
    pub start_s: Option<f64>,
    /// The MONR's own time stamp on the same clock (`t_s` less its latency): the lag behind
    /// the plan is measured on it, so that the link's delay is not taken for lag.
    pub stamp_s: f64,
}

impl ObjectWatch {
    /// A new supervision (an arm request): the stand anchor and the previous MONR forgotten.
    pub fn reset(&mut self) {
        self.armed_at = None;
        self.anchor = None;
        self.prev = None;
        self.lag = None;
        self.at_speed = false;
        if let Some(p) = &mut self.path {
            p.cursor = 0;
        }
    }

    /// Checks one MONR against the rules; the first one broken, as an abort reason.
    pub fn check(
        &mut self,
        name: &str,
        m: MonrPos,
        limits: &MotionLimits,
        fence: Option<&Arc<Geofence>>,
    ) -> Option<AbortReason> {
        let carrier = || name.to_string();
        let speed = m.speed_mps.abs();
        let settled = match (self.armed_at, m.armed || m.started) {
            (None, true) => {
                self.armed_at = Some(m.t_s);
                limits.settle_s <= 0.0
            }
            (Some(t), _) => m.t_s - t >= limits.settle_s,
            (None, false) => false,
        };
        let prev = self.prev.replace((m.t_s, m.stamp_s, m.x, m.y, speed));
        if let Some(b) = fence.and_then(|f| f.breach(m.x, m.y)) {
            return Some(AbortReason::Geofence {
                carrier: carrier(),
                x: m.x,
                y: m.y,
                zone: b.words(),
            });
        }
        if !settled {
            self.anchor = Some((m.x, m.y));
            return None;
        }
        if let Some((t0, stamp0, x0, y0, v0)) = prev {
            let jump = (m.x - x0).hypot(m.y - y0);
            // The time between the two positions is the object's own: MONR that arrive
            // bunched (a radio link's jitter, or a control centre that was not scheduled for a
            // moment) are as far apart as the object says, not as their arrivals. A stamp
            // gap is believed up to MAX_STAMP_GAP_S beyond the arrival gap (a longer silence
            // ends the run by the MONR rules first).
            let dt_arrival = (m.t_s - t0).max(0.0);
            let dt = (m.stamp_s - stamp0).clamp(dt_arrival, dt_arrival + MAX_STAMP_GAP_S);
            let explained = v0.max(speed) * dt * 1.5 + limits.jump_m;
            if jump > explained {
                return Some(AbortReason::PositionJump {
                    carrier: carrier(),
                    jump_m: jump,
                    limit_m: explained,
                });
            }
        }
        if !m.started {
            let (ax, ay) = *self.anchor.get_or_insert((m.x, m.y));
            let moved = (m.x - ax).hypot(m.y - ay);
            if moved > limits.stand_m {
                return Some(AbortReason::MovedBeforeStart {
                    carrier: carrier(),
                    moved_m: moved,
                    limit_m: limits.stand_m,
                });
            }
            return None;
        }
        let lateral_limit = self.lateral_m.unwrap_or(limits.lateral_m);
        let path = self.path.as_mut()?;
        let at = path.locate(m.x, m.y, lateral_limit);
        if at.lateral_m.abs() > lateral_limit {
            return Some(AbortReason::PathDeviation {
                carrier: carrier(),
                lateral_m: at.lateral_m,
                limit_m: lateral_limit,
            });
        }
        let lag = m.start_s.map(|t0| {
            let behind = path.planned_along(m.stamp_s - t0) - at.along_m;
            Lag {
                m: behind,
                s: if at.planned_mps > 0.1 {
                    behind / at.planned_mps
                } else {
                    0.0
                },
            }
        });
        self.lag = lag;
        self.at_speed = m.start_s.is_some_and(|t0| {
            let (v, ahead) = (
                path.planned_speed(m.stamp_s - t0),
                path.planned_speed(m.stamp_s - t0 + AT_SPEED_AHEAD_S),
            );
            v > 0.1 && (ahead - v).abs() < 0.05
        });
        // The catch-up the object's plan implies while it is behind (see the module doc).
        let accel = self.catchup_accel_mps2.unwrap_or(limits.catchup_accel_mps2);
        let catchup = lag.map_or(0.0, |l| {
            (2.0 * accel * (l.m - LAG_TOLERANCE_M).max(0.0))
                .sqrt()
                .min(limits.max_catchup_mps)
        });
        let limit = limits.overspeed_mps + catchup;
        if speed > at.planned_mps + limit {
            return Some(AbortReason::Overspeed {
                carrier: carrier(),
                speed_mps: speed,
                planned_mps: at.planned_mps,
                limit_mps: limit,
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::iso22133::TrajPoint;

    /// A straight path along +x at `v` m/s, points every 0.05 s for `secs`.
    fn straight(v: f64, secs: f64) -> PathWatch {
        let n = (secs / 0.05) as u32;
        let points = (0..=n)
            .map(|k| {
                let t = k as f64 * 0.05;
                TrajPoint {
                    rel_time_ms: (t * 1000.0) as u32,
                    x_mm: (v * t * 1000.0) as i32,
                    speed_lon_cm_s: (v * 100.0) as i16,
                    ..Default::default()
                }
            })
            .collect();
        PathWatch::of_traj(&Traj {
            points,
            ..Default::default()
        })
        .expect("points")
    }

    fn watch(v: f64) -> ObjectWatch {
        ObjectWatch {
            path: Some(straight(v, 10.0)),
            ..Default::default()
        }
    }

    fn pos(t: f64, x: f64, y: f64, speed: f64, started: bool) -> MonrPos {
        MonrPos {
            t_s: t,
            x,
            y,
            speed_mps: speed,
            armed: !started,
            started,
            start_s: started.then_some(1.5),
            stamp_s: t,
        }
    }

    /// Runs the object along x at `v` with `y(t)` sideways from t = 0, MONR at 100 Hz.
    fn drive(
        w: &mut ObjectWatch,
        v: f64,
        speed_seen: impl Fn(f64) -> f64,
        y: impl Fn(f64) -> f64,
    ) -> Option<(f64, AbortReason)> {
        let l = MotionLimits::default();
        // armed and settled at the start
        for k in 0..=150 {
            let t = k as f64 * 0.01;
            if let Some(r) = w.check("ptw", pos(t, 0.0, 0.0, 0.0, false), &l, None) {
                return Some((t, r));
            }
        }
        for k in 1..=800 {
            let t = k as f64 * 0.01;
            let m = pos(1.5 + t, v * t, y(t), speed_seen(t), true);
            if let Some(r) = w.check("ptw", m, &l, None) {
                return Some((t, r));
            }
        }
        None
    }

    #[test]
    fn on_its_path_nothing_happens() {
        let mut w = watch(5.0);
        assert_eq!(drive(&mut w, 5.0, |_| 5.0, |_| 0.02), None);
    }

    #[test]
    fn a_sideways_drift_aborts_naming_the_side() {
        // 3 m/s to the right from 2 s on: 1.0 m after a third of a second.
        let mut w = watch(5.0);
        let (t, r) = drive(&mut w, 5.0, |_| 5.0, |t| -3.0 * (t - 2.0).max(0.0)).expect("abort");
        assert!((2.33..2.36).contains(&t), "aborted at {t}");
        match r {
            AbortReason::PathDeviation {
                lateral_m, limit_m, ..
            } => {
                assert!(lateral_m < -1.0 && lateral_m > -1.05, "{lateral_m}");
                assert_eq!(limit_m, 1.0);
            }
            other => panic!("{other:?}"),
        }
        let text = AbortReason::PathDeviation {
            carrier: "ptw".into(),
            lateral_m: -1.3,
            limit_m: 1.0,
        }
        .info()
        .text;
        assert_eq!(text, "ptw is 1.30 m right of its path (limit 1.0 m)");
    }

    #[test]
    fn per_object_lateral_limit_wins() {
        let mut w = watch(5.0);
        w.lateral_m = Some(0.3);
        let (_, r) = drive(&mut w, 5.0, |_| 5.0, |_| 0.4).expect("abort");
        assert!(matches!(r, AbortReason::PathDeviation { limit_m, .. } if limit_m == 0.3));
    }

    #[test]
    fn speed_above_plan_aborts() {
        let mut w = watch(5.0);
        let (t, r) =
            drive(&mut w, 5.0, |t| if t > 3.0 { 6.5 } else { 5.0 }, |_| 0.0).expect("abort");
        assert!((3.0..3.02).contains(&t), "{t}");
        assert!(matches!(r, AbortReason::Overspeed { speed_mps, .. } if speed_mps == 6.5));
    }

    /// Drives `x(t)` along the path at MONR speed `speed`, started at 1.5 s: the abort, if any.
    fn drive_at(
        w: &mut ObjectWatch,
        x: impl Fn(f64) -> f64,
        speed: impl Fn(f64) -> f64,
    ) -> Option<AbortReason> {
        let l = MotionLimits::default();
        for k in 0..=150 {
            let t = k as f64 * 0.01;
            if let Some(r) = w.check("robot", pos(t, 0.0, 0.0, 0.0, false), &l, None) {
                return Some(r);
            }
        }
        (1..=300).find_map(|k| {
            let t = k as f64 * 0.01;
            w.check(
                "robot",
                pos(1.5 + t, x(t).max(0.0), 0.0, speed(t), true),
                &l,
                None,
            )
        })
    }

    #[test]
    fn catching_up_its_lag_is_allowed_and_overspeed_ahead_is_not() {
        // Standing for 0.8 s after its start, then 4 m behind its 5 m/s plan and driving
        // 1.2 m/s above it: the catch-up √(2·1·3.95) m/s (at most 2 m/s) is allowed.
        let mut w = watch(5.0);
        let late = |t: f64| if t < 0.8 { 0.0 } else { 6.2 };
        assert_eq!(drive_at(&mut w, |t| 5.0 * t - 4.0, late), None);
        let lag = w.lag.expect("lag measured");
        assert!((lag.m - 4.0).abs() < 0.05, "{lag:?}");
        assert!((lag.s - 0.8).abs() < 0.01, "{lag:?}");
        // 0.3 m behind (0.25 m beyond the tolerance): √0.5 = 0.71 m/s more, so +2.0 m/s (from
        // 1 s on) is still overspeed.
        let mut w = watch(5.0);
        let fast_after_1s = |v: f64| move |t: f64| if t > 1.0 { v } else { 5.0 };
        let r = drive_at(&mut w, |t| 5.0 * t - 0.3, fast_after_1s(7.0)).expect("abort");
        assert!(
            matches!(r, AbortReason::Overspeed { limit_mps, .. } if (limit_mps - 1.0 - 0.5f64.sqrt()).abs() < 0.02),
            "{r:?}"
        );
        // Ahead of its plan: no allowance, +1.2 m/s is overspeed.
        let mut w = watch(5.0);
        let r = drive_at(&mut w, |t| 5.0 * t + 1.0, fast_after_1s(6.2)).expect("abort");
        assert!(
            matches!(r, AbortReason::Overspeed { limit_mps, .. } if limit_mps == 1.0),
            "{r:?}"
        );
    }

    #[test]
    fn a_position_jump_aborts() {
        let mut w = watch(5.0);
        let (t, r) =
            drive(&mut w, 5.0, |_| 5.0, |t| if t > 4.0 { 2.0 } else { 0.0 }).expect("abort");
        // 2 m between two MONR 10 ms apart at 5 m/s: a positioning fault (named before the
        // path deviation it also is).
        assert!((4.0..4.02).contains(&t), "{t}");
        assert!(matches!(r, AbortReason::PositionJump { .. }), "{r:?}");
    }

    /// Two MONR that arrive 1 ms apart after a silence of the link (or of the control centre)
    /// are as far apart as their own stamps say: 2.4 m in 96 ms at 25 m/s is no jump. The same
    /// 2.4 m between stamps 10 ms apart is one, and so is a stamp gap beyond what the rule
    /// believes.
    #[test]
    fn a_position_jump_is_judged_on_the_objects_own_stamps() {
        let l = MotionLimits::default();
        let run = |gap_stamp: f64, gap_arrival: f64, jump: f64| {
            let mut w = watch(25.0);
            let started = |t: f64, stamp: f64, x: f64| MonrPos {
                stamp_s: stamp,
                ..pos(t, x, 0.0, 25.0, true)
            };
            assert!(w
                .check("a", pos(0.0, 0.0, 0.0, 0.0, false), &l, None)
                .is_none());
            assert!(w
                .check("a", pos(1.0, 0.0, 0.0, 0.0, false), &l, None)
                .is_none());
            w.check("a", started(2.0, 1.97, 12.5), &l, None);
            w.check(
                "a",
                started(2.0 + gap_arrival, 1.97 + gap_stamp, 12.5 + jump),
                &l,
                None,
            )
        };
        assert_eq!(run(0.096, 0.001, 2.4), None);
        let r = run(0.010, 0.010, 2.4).expect("abort");
        assert!(matches!(r, AbortReason::PositionJump { .. }), "{r:?}");
        let r = run(5.0, 0.001, 30.0).expect("abort");
        assert!(matches!(r, AbortReason::PositionJump { .. }), "{r:?}");
    }

    #[test]
    fn motion_before_the_start_aborts_after_the_settling() {
        let l = MotionLimits::default();
        let mut w = watch(5.0);
        // The first ARMED MONR may carry the pose from before: followed for settle_s.
        assert!(w
            .check("a", pos(0.0, 9.0, 9.0, 0.0, false), &l, None)
            .is_none());
        assert!(w
            .check("a", pos(0.1, 0.0, 0.0, 0.0, false), &l, None)
            .is_none());
        let mut t = 0.1;
        let mut x = 0.0;
        let r = loop {
            t += 0.01;
            if t > 2.0 {
                x += 0.01; // creeping at 1 m/s
            }
            if let Some(r) = w.check("a", pos(t, x, 0.0, 1.0, false), &l, None) {
                break r;
            }
            assert!(t < 5.0, "never aborted");
        };
        assert!(
            matches!(r, AbortReason::MovedBeforeStart { moved_m, .. } if moved_m > 0.5 && moved_m < 0.52)
        );
    }

    #[test]
    fn geofence_outside_and_forbidden() {
        let fence = Arc::new(Geofence {
            permitted: vec![[-10.0, -10.0], [100.0, -10.0], [100.0, 10.0], [-10.0, 10.0]],
            forbidden: vec![vec![[20.0, -1.0], [22.0, -1.0], [22.0, 1.0], [20.0, 1.0]]],
        });
        assert!(fence.validate().is_ok());
        assert_eq!(fence.breach(0.0, 0.0), None);
        assert_eq!(fence.breach(0.0, 11.0), Some(Breach::Outside));
        assert_eq!(fence.breach(21.0, 0.0), Some(Breach::Forbidden(0)));
        let l = MotionLimits::default();
        let mut w = watch(5.0);
        let r = w.check("a", pos(0.0, 21.0, 0.5, 0.0, false), &l, Some(&fence));
        assert!(
            matches!(r, Some(AbortReason::Geofence { ref zone, .. }) if zone == "inside forbidden zone 1")
        );
        assert!(Geofence {
            permitted: vec![[0.0, 0.0], [1.0, 1.0]],
            forbidden: vec![],
        }
        .validate()
        .is_err());
    }

    #[test]
    fn a_curved_path_is_followed_past_the_window() {
        // Most of a circle of R = 20 m at 8 m/s: far more points than the window ahead.
        let pts: Vec<TrajPoint> = (0..1200)
            .map(|k| {
                let a = k as f64 * 0.005;
                TrajPoint {
                    x_mm: (20.0 * a.sin() * 1000.0) as i32,
                    y_mm: ((20.0 - 20.0 * a.cos()) * 1000.0) as i32,
                    speed_lon_cm_s: 800,
                    ..Default::default()
                }
            })
            .collect();
        let mut p = PathWatch::of_traj(&Traj {
            points: pts,
            ..Default::default()
        })
        .expect("points");
        for k in 0..2390 {
            let a = k as f64 * 0.0025;
            // 0.3 m inside the circle: left of a counter-clockwise path.
            let r = 19.7;
            let at = p.locate(r * a.sin(), 20.0 - r * a.cos(), 1.0);
            assert!((at.lateral_m - 0.3).abs() < 0.01, "{k}: {at:?}");
        }
    }
}
