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
    /// Braking (CCRb): constant deceleration `.1` (m/s², positive) from `.0` s after the start.
    pub brake: Option<(f64, f64)>,
    /// Speed the braking ends at (m/s), then held; 0: standstill.
    pub brake_final: f64,
    /// Closed-loop synchronisation: from `from_tau` on, the target moves at `v` (m/s).
    pub adjust: Option<Adjust>,
    /// (yaw, cos, sin) worked out once: [`Profile::position`] runs every sample for every
    /// simulated dummy, and `yaw` is a public field, so it is used only while `yaw` matches.
    dir: (f64, f64, f64),
}

/// A speed correction of the remaining profile (closed-loop synchronisation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Adjust {
    pub from_tau: f64,
    pub from_s: f64,
    pub v: f64,
}

impl Profile {
    pub fn of(t: &TargetSpec) -> Profile {
        let mut p = Profile::new(
            t.start.x,
            t.start.y,
            heading_to_yaw(t.heading_deg),
            t.accel_distance_m,
            t.speed_kmh / 3.6,
        );
        if t.activation == super::Activation::Static {
            p = Profile::new(
                t.start.x,
                t.start.y,
                heading_to_yaw(t.heading_deg),
                0.0,
                0.0,
            );
        }
        p.brake = t.brake.map(|b| (b.after_s, b.decel_mps2));
        p.brake_final = t.brake.map_or(0.0, |b| (b.final_kmh / 3.6).max(0.0));
        p
    }

    /// Travel of the nominal profile (acceleration, hold), without brake or adjustment.
    fn base_travel(&self, tau: f64) -> f64 {
        if tau <= 0.0 {
            0.0
        } else if tau < self.t_acc {
            0.5 * (self.v / self.t_acc) * tau * tau
        } else {
            self.s_acc + self.v * (tau - self.t_acc)
        }
    }

    fn base_speed(&self, tau: f64) -> f64 {
        if tau < 0.0 || (tau == 0.0 && self.t_acc > 0.0) {
            0.0
        } else if tau < self.t_acc {
            self.v * tau / self.t_acc
        } else {
            // Without an acceleration phase the target is at speed from its start on.
            self.v
        }
    }

    /// Sets the speed of the remaining profile from `from_tau` on (closed-loop sync); travel
    /// stays continuous.
    pub fn set_speed_from(&mut self, from_tau: f64, v: f64) {
        let from_s = self.travel(from_tau);
        self.adjust = Some(Adjust {
            from_tau,
            from_s,
            v: v.max(0.0),
        });
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
            brake: None,
            brake_final: 0.0,
            adjust: None,
            dir: (yaw, yaw.cos(), yaw.sin()),
        }
    }

    /// Time after the start at which the travel reaches `s` (inverse of [`Self::travel`];
    /// `None` if it never does, e.g. v = 0 and s > 0). Ignores braking.
    pub fn time_to_travel(&self, s: f64) -> Option<f64> {
        if s <= 0.0 {
            return Some(0.0);
        }
        if let Some(a) = self.adjust {
            if s >= a.from_s {
                if a.v <= 0.0 {
                    return (s == a.from_s).then_some(a.from_tau);
                }
                return Some(a.from_tau + (s - a.from_s) / a.v);
            }
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
        if let Some((tb, dec)) = self.brake {
            if tau > tb && dec > 0.0 {
                let (sb, vb) = (self.unbraked_travel(tb), self.unbraked_speed(tb));
                let vf = self.brake_final.min(vb);
                let dt = (tau - tb).min((vb - vf) / dec);
                // Down to the final speed, then on at it.
                let held = (tau - tb - dt).max(0.0);
                return sb + vb * dt - 0.5 * dec * dt * dt + vf * held;
            }
        }
        self.unbraked_travel(tau)
    }

    fn unbraked_travel(&self, tau: f64) -> f64 {
        match self.adjust {
            Some(a) if tau >= a.from_tau => a.from_s + a.v * (tau - a.from_tau),
            _ => self.base_travel(tau),
        }
    }

    fn unbraked_speed(&self, tau: f64) -> f64 {
        match self.adjust {
            Some(a) if tau >= a.from_tau => a.v,
            _ => self.base_speed(tau),
        }
    }

    pub fn speed(&self, tau: f64) -> f64 {
        if let Some((tb, dec)) = self.brake {
            if tau > tb && dec > 0.0 {
                let vb = self.unbraked_speed(tb);
                return (vb - dec * (tau - tb))
                    .max(self.brake_final.min(vb))
                    .max(0.0);
            }
        }
        self.unbraked_speed(tau)
    }

    pub fn accel(&self, tau: f64) -> f64 {
        if let Some((tb, dec)) = self.brake {
            if tau > tb && dec > 0.0 {
                let vf = self.brake_final.min(self.unbraked_speed(tb));
                return if self.speed(tau) > vf { -dec } else { 0.0 };
            }
        }
        if self.adjust.is_some_and(|a| tau >= a.from_tau) {
            return 0.0;
        }
        if tau > 0.0 && tau < self.t_acc {
            self.v / self.t_acc
        } else {
            0.0
        }
    }

    /// Map position `tau` seconds after the start.
    pub fn position(&self, tau: f64) -> (f64, f64) {
        let s = self.travel(tau);
        let (c, sn) = match self.dir {
            (y, c, sn) if y == self.yaw => (c, sn),
            _ => (self.yaw.cos(), self.yaw.sin()),
        };
        (self.start_x + s * c, self.start_y + s * sn)
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
            brake: None,
            brake_final: 0.0,
            adjust: None,
            dir: (0.0, 1.0, 0.0),
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

    #[test]
    fn braking_and_speed_adjustment_keep_travel_continuous() {
        // CCRb: 50 km/h lead vehicle braking at 6 m/s² two seconds after its start.
        let mut p = Profile::new(0.0, 0.0, 0.0, 0.0, 50.0 / 3.6);
        p.brake = Some((2.0, 6.0));
        let v = 50.0 / 3.6;
        assert!((p.travel(2.0) - 2.0 * v).abs() < 1e-9);
        assert!((p.speed(3.0) - (v - 6.0)).abs() < 1e-9);
        let stop = 2.0 + v / 6.0;
        let s_stop = 2.0 * v + v * v / 12.0;
        assert!((p.travel(stop + 5.0) - s_stop).abs() < 1e-9);
        assert_eq!(p.speed(stop + 1.0), 0.0);
        assert_eq!(p.accel(2.5), -6.0);
        // Sync: from τ = 3 s the dummy walks at 5.1 km/h instead of 5.
        let mut d = Profile::new(0.0, 0.0, 0.0, 1.0, 5.0 / 3.6);
        let s3 = d.travel(3.0);
        d.set_speed_from(3.0, 5.1 / 3.6);
        assert!((d.travel(3.0) - s3).abs() < 1e-12);
        assert!((d.travel(4.0) - s3 - 5.1 / 3.6).abs() < 1e-12);
        assert!((d.time_to_travel(d.travel(4.0)).unwrap() - 4.0).abs() < 1e-9);
        assert!(
            (d.time_to_travel(0.5).unwrap()
                - Profile::new(0.0, 0.0, 0.0, 1.0, 5.0 / 3.6)
                    .time_to_travel(0.5)
                    .unwrap())
            .abs()
                < 1e-12
        );
    }
}
