//! The dummy's motion profile: constant acceleration from rest over s_acc to v_target, then
//! constant speed, along its heading from the start point.

use super::TargetSpec;
use crate::frame::heading_to_yaw;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Profile {
    pub v: f64,
    pub s_acc: f64,
    /// Acceleration phase duration, 2·s_acc/v.
    pub t_acc: f64,
    pub start_x: f64,
    pub start_y: f64,
    pub yaw: f64,
}

impl Profile {
    pub fn of(t: &TargetSpec) -> Profile {
        Profile::new(
            t.start.x,
            t.start.y,
            heading_to_yaw(t.heading_deg),
            t.accel_distance_m,
            t.speed_kmh / 3.6,
        )
    }

    /// From a start point, a map yaw (radians, counter-clockwise from +x), s_acc (m) and
    /// v_target (m/s). Negative inputs are taken as 0; v = 0 is a dummy that never moves.
    pub fn new(start_x: f64, start_y: f64, yaw: f64, s_acc: f64, v: f64) -> Profile {
        let v = v.max(0.0);
        // A dummy that never moves has no acceleration phase either.
        let s_acc = if v > 0.0 { s_acc.max(0.0) } else { 0.0 };
        Profile {
            v,
            s_acc,
            t_acc: if v > 0.0 { 2.0 * s_acc / v } else { 0.0 },
            start_x,
            start_y,
            yaw,
        }
    }

    /// Time after the start at which the travel reaches `s` (inverse of [`Self::travel`];
    /// `None` if it never does, i.e. v = 0 and s > 0).
    pub fn time_to_travel(&self, s: f64) -> Option<f64> {
        if s <= 0.0 {
            return Some(0.0);
        }
        if self.v <= 0.0 {
            return None;
        }
        if s < self.s_acc {
            // s = ½ (v / t_acc) τ²
            Some((2.0 * s * self.t_acc / self.v).sqrt())
        } else {
            Some(self.t_acc + (s - self.s_acc) / self.v)
        }
    }

    /// Distance travelled `tau` seconds after the start (0 before it).
    pub fn travel(&self, tau: f64) -> f64 {
        if tau <= 0.0 {
            0.0
        } else if tau < self.t_acc {
            0.5 * (self.v / self.t_acc) * tau * tau
        } else {
            self.s_acc + self.v * (tau - self.t_acc)
        }
    }

    pub fn speed(&self, tau: f64) -> f64 {
        if tau <= 0.0 {
            0.0
        } else if tau < self.t_acc {
            self.v * tau / self.t_acc
        } else {
            self.v
        }
    }

    pub fn accel(&self, tau: f64) -> f64 {
        if tau > 0.0 && tau < self.t_acc {
            self.v / self.t_acc
        } else {
            0.0
        }
    }

    /// Map position `tau` seconds after the start.
    pub fn position(&self, tau: f64) -> (f64, f64) {
        let s = self.travel(tau);
        (
            self.start_x + s * self.yaw.cos(),
            self.start_y + s * self.yaw.sin(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn travel_is_continuous_and_reaches_nominal_at_ttc_dummy() {
        let p = Profile {
            v: 5.0 / 3.6,
            s_acc: 1.0,
            t_acc: 2.0 / (5.0 / 3.6),
            start_x: 0.0,
            start_y: 0.0,
            yaw: 0.0,
        };
        assert!((p.travel(p.t_acc) - 1.0).abs() < 1e-12);
        assert!((p.travel(p.t_acc - 1e-9) - 1.0).abs() < 1e-8);
        assert!((p.travel(3.933_9) - 4.463_75).abs() < 1e-5);
        assert_eq!(p.travel(-1.0), 0.0);
        for tau in [0.0, 0.3, p.t_acc, 2.0, 3.933_9] {
            let back = p.time_to_travel(p.travel(tau)).expect("moves");
            assert!((back - tau).abs() < 1e-9, "{tau} -> {back}");
        }
        let q = Profile::new(0.0, 0.0, 0.0, 1.0, 0.0);
        assert_eq!(q.travel(5.0), 0.0);
        assert!(q.time_to_travel(1.0).is_none());
    }
}
