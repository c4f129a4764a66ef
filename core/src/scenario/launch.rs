//! Launches from standstill that a platform can drive, and the run-up a target needs for one.
//!
//! A scenario's target accelerates at a constant rate over `accel_distance_m` (s_acc), or is
//! at its speed from its first metre when s_acc is 0 (a turn-across car "at 45 km/h from its
//! start"). A real platform launches with a limited acceleration and jerk. A jerk-limited
//! launch that lasts as long as the constant-acceleration one also covers the same distance
//! (both average half the speed), so from the end of the launch on the two are the same
//! motion: the object's TRAJ can ramp its acceleration while the engine keeps its profile.
//! When the scenario's s_acc is too short for the platform, [`fit_run_up`] lengthens it, and
//! for a target that is timed to its conflict (TTC or conflict start) moves its start back by
//! the extra length, so it is at its speed from the same place and time as before.

use super::{Activation, PathSpec, Point, TargetSpec};
use crate::frame::heading_to_yaw;

/// A launch from standstill: a jerk-limited ramp (acceleration rising at `jerk_mps3` to at
/// most `accel_mps2`, held, and falling at `jerk_mps3` to zero as the speed is reached).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Launch {
    pub accel_mps2: f64,
    pub jerk_mps3: f64,
}

/// How fast a launch's acceleration builds up and falls off, m/s³ (a driving robot's and a
/// target platform's planned launches alike).
pub const LAUNCH_JERK_MPS3: f64 = 4.0;

/// Share of an object's largest acceleration its launches are planned at: the rest is its
/// controller's room to make up a little lag without running late.
pub const PLANNED_SHARE: f64 = 0.9;

impl Launch {
    /// The launch planned for an object that accelerates at most `max_accel_mps2`
    /// ([`PLANNED_SHARE`] of it, with the planned jerk).
    pub fn planned_for(max_accel_mps2: f64) -> Launch {
        Launch::within(PLANNED_SHARE * max_accel_mps2)
    }

    /// None: an object already at its speed (a path that starts moving).
    pub const NONE: Launch = Launch {
        accel_mps2: f64::INFINITY,
        jerk_mps3: f64::INFINITY,
    };

    /// At most `accel_mps2`, with the planned jerk.
    pub fn within(accel_mps2: f64) -> Launch {
        Launch {
            accel_mps2,
            jerk_mps3: LAUNCH_JERK_MPS3,
        }
    }

    /// The gentlest launch at jerk `jerk_mps3` that reaches `v` in exactly `t` seconds (peak
    /// acceleration `a` with a/j + v/a = t); `None` when none is that quick (t < 2·√(v/j)).
    pub fn of_duration(v: f64, t: f64, jerk_mps3: f64) -> Option<Launch> {
        let j = jerk_mps3;
        if !(v > 0.0 && t > 0.0 && j > 0.0 && j.is_finite()) {
            return None;
        }
        let disc = t * t * j * j - 4.0 * v * j;
        if disc < -1e-9 {
            return None;
        }
        let a = 0.5 * (t * j - disc.max(0.0).sqrt());
        (a > 0.0).then_some(Launch {
            accel_mps2: a,
            jerk_mps3: j,
        })
    }

    /// Peak acceleration and the time spent at it, to reach `v`.
    fn phases(&self, v: f64) -> (f64, f64) {
        let (a, j) = (self.accel_mps2, self.jerk_mps3);
        if !(a.is_finite() && j.is_finite()) || v <= 0.0 {
            return (a, 0.0);
        }
        if v >= a * a / j {
            (a, (v - a * a / j) / a)
        } else {
            ((v * j).sqrt(), 0.0)
        }
    }

    /// How long reaching `v` from standstill takes, s.
    pub fn duration_s(&self, v: f64) -> f64 {
        if v <= 0.05 || !self.accel_mps2.is_finite() {
            return 0.0;
        }
        let (ap, hold) = self.phases(v);
        if !self.jerk_mps3.is_finite() {
            return v / ap;
        }
        2.0 * ap / self.jerk_mps3 + hold
    }

    /// Distance driven `t` seconds into the launch to `v`, m.
    pub fn distance_m(&self, v: f64, t: f64) -> f64 {
        let total = self.duration_s(v);
        let t = t.clamp(0.0, total);
        let (ap, hold) = self.phases(v);
        let j = self.jerk_mps3;
        if total <= 0.0 {
            return 0.0;
        }
        if !j.is_finite() {
            return 0.5 * ap * t * t;
        }
        let tr = ap / j;
        let ramp_s = j * tr * tr * tr / 6.0;
        let v1 = 0.5 * ap * tr;
        let end_hold_s = ramp_s + v1 * hold + 0.5 * ap * hold * hold;
        if t < tr {
            j * t * t * t / 6.0
        } else if t < tr + hold {
            let u = t - tr;
            ramp_s + v1 * u + 0.5 * ap * u * u
        } else {
            // The last ramp mirrors the first: what is left to drive for the time left.
            let full = end_hold_s + v * tr - ramp_s;
            let left = total - t;
            full - (v * left - j * left * left * left / 6.0)
        }
    }

    /// (speed, acceleration) `t` seconds into the launch to `v`.
    pub fn at(&self, v: f64, t: f64) -> (f64, f64) {
        let total = self.duration_s(v);
        if total <= 0.0 || t >= total {
            return (v, 0.0);
        }
        let (ap, hold) = self.phases(v);
        let j = self.jerk_mps3;
        if !j.is_finite() {
            return (ap * t, ap);
        }
        let tr = ap / j;
        if t < tr {
            (0.5 * j * t * t, j * t)
        } else if t < tr + hold {
            (0.5 * ap * tr + ap * (t - tr), ap)
        } else {
            let left = total - t;
            (v - 0.5 * j * left * left, j * left)
        }
    }

    /// The shortest run-up (s_acc) in which this launch reaches `v`: the distance it covers.
    pub fn run_up_m(&self, v: f64) -> f64 {
        self.distance_m(v, self.duration_s(v))
    }
}

/// How long a lengthened run-up holds the target's speed before the place where the
/// scenario has it at speed, s.
pub const SETTLE_S: f64 = 0.5;

/// What [`fit_run_up`] changed of a target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunUp {
    /// The scenario's acceleration distance, m.
    pub was_m: f64,
    /// The one the platform drives, m.
    pub accel_distance_m: f64,
    /// How far the start moved back along the target's direction, m (0 when it stays).
    pub moved_back_m: f64,
    /// The platform's acceleration the run-up is planned for, m/s².
    pub accel_mps2: f64,
}

/// Lengthens target `t`'s acceleration distance to what a platform launching with `launch`
/// needs to reach the target's speed; `None` when it already has that (or does not move).
///
/// A target timed to its conflict (TTC or conflict start) gets its start moved back by the
/// extra length and [`SETTLE_S`] at its speed — along its path, which gains a straight
/// lead-in — so it is at its speed before the place where the scenario has it at speed, and
/// on the same schedule from there on (its trigger fires earlier by the longer launch). A
/// target started at the run's beginning or by headway keeps its start.
pub fn fit_run_up(t: &mut TargetSpec, launch: Launch) -> Result<Option<RunUp>, String> {
    let v = t.speed_kmh / 3.6;
    if t.activation == Activation::Static || v <= 0.05 {
        return Ok(None);
    }
    let need = launch.run_up_m(v);
    let was = t.accel_distance_m;
    if !need.is_finite() || need <= was + 1e-6 {
        return Ok(None);
    }
    // Rounded up to the millimetre: a refit of the fitted target changes nothing.
    let need = (need * 1000.0).ceil() / 1000.0;
    let timed = matches!(t.activation, Activation::Ttc | Activation::Conflict);
    // Moved back by the extra length and a little more, so that the platform is at its speed
    // `SETTLE_S` before the place where the scenario has it at speed.
    let back = if timed {
        ((need - was + v * SETTLE_S) * 1000.0).ceil() / 1000.0
    } else {
        0.0
    };
    if back > 0.0 {
        let yaw = match &t.path {
            Some(p) => {
                p.geometry()
                    .map_err(|e| format!("target {}: {e}", t.id))?
                    .pose(0.0)
                    .2
            }
            None => heading_to_yaw(t.heading_deg),
        };
        let (dx, dy) = (-back * yaw.cos(), -back * yaw.sin());
        t.start = Point {
            x: t.start.x + dx,
            y: t.start.y + dy,
        };
        match &mut t.path {
            None => {}
            Some(PathSpec::Points(p)) => {
                if let Some(first) = p.points.first().copied() {
                    p.points.insert(
                        0,
                        Point {
                            x: first.x + dx,
                            y: first.y + dy,
                        },
                    );
                }
            }
            Some(PathSpec::Segments(g)) => {
                g.start = Point {
                    x: g.start.x + dx,
                    y: g.start.y + dy,
                };
                g.segments.insert(
                    0,
                    super::path::SegmentSpec {
                        line: Some(back),
                        ..Default::default()
                    },
                );
            }
            Some(PathSpec::Lane(l)) => {
                return Err(format!(
                    "target {}: its path on road '{}' lane {} is not resolved against a map",
                    t.id, l.road, l.lane
                ))
            }
        }
        t.lateral_start_m += back;
        if let Some(c) = &mut t.conflict {
            c.target_s += back;
        }
    }
    t.accel_distance_m = need;
    Ok(Some(RunUp {
        was_m: was,
        accel_distance_m: need,
        moved_back_m: back,
        accel_mps2: launch.accel_mps2,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_of_a_given_duration_covers_what_constant_acceleration_covers() {
        for (v, t_acc) in [(12.5, 6.0), (2.22, 1.7), (4.17, 3.0)] {
            let l = Launch::of_duration(v, t_acc, LAUNCH_JERK_MPS3).expect("possible");
            assert!((l.duration_s(v) - t_acc).abs() < 1e-9, "{l:?}");
            // Constant acceleration over the same time covers v·t/2.
            assert!((l.run_up_m(v) - v * t_acc / 2.0).abs() < 1e-9);
            // The gentlest such launch is gentler than the constant acceleration's peak? No:
            // it peaks above the mean acceleration, but never above what its duration allows.
            assert!(l.accel_mps2 >= v / t_acc - 1e-9);
        }
        // Too quick for the jerk.
        assert!(Launch::of_duration(12.5, 2.0, LAUNCH_JERK_MPS3).is_none());
    }

    #[test]
    fn a_run_up_too_short_for_the_platform_moves_a_timed_target_back() {
        // Heading 90° (east), at 45 km/h from its first metre, 20 m before its conflict.
        let mut t = TargetSpec::new(
            "car",
            super::super::TargetKind::Vehicle,
            Point { x: 0.0, y: 0.0 },
            90.0,
        );
        t.speed_kmh = 45.0;
        t.accel_distance_m = 0.0;
        t.activation = Activation::Conflict;
        t.conflict = Some(super::super::ConflictSpec {
            vut_s: 50.0,
            target_s: 20.0,
        });
        let fit = fit_run_up(&mut t, Launch::within(3.0))
            .expect("fits")
            .expect("changed");
        let v = 12.5;
        let need = Launch::within(3.0).run_up_m(v);
        assert!((fit.accel_distance_m - need).abs() < 1e-3, "{fit:?}");
        let back = need + v * SETTLE_S;
        assert!((fit.moved_back_m - back).abs() < 2e-3, "{fit:?}");
        assert!((t.start.x + back).abs() < 2e-3, "{:?}", t.start);
        assert!((t.conflict.expect("conflict").target_s - 20.0 - back).abs() < 2e-3);
        // Fitted once is fitted.
        assert_eq!(fit_run_up(&mut t, Launch::within(3.0)), Ok(None));
        // A gentler platform needs more.
        let more = fit_run_up(&mut t, Launch::within(1.5)).expect("fits");
        assert!(more.is_some_and(|r| r.accel_distance_m > need));
    }
}
