//! Physical plausibility of telemetry: one row with `Velocity` = 1e6 started the dummy
//! 5 s early, `PosX` = 1e308 hid a trigger, a single `Time` far in the future made every later row
//! "time does not increase". A [`Plausibility`] filter checks each sample against fixed limits
//! (speed, coordinates) and against the last *accepted* sample (time jump, acceleration, position
//! jump versus speed × Δt), so one outlier is rejected and the samples after it are judged against
//! the good one before it.
//!
//! Used inside [`super::csv::CsvSource`] (a rejected row is a bad row with its line and reason)
//! and, per sample, by live sources: [`Plausibility::admit`] returns the reason, the caller drops
//! the sample and the filter counts it ([`Plausibility::dropped`]).

use serde::{Deserialize, Serialize};

use crate::sample::{InsPosition, InsSample};

/// Limits; the defaults fit road vehicles and VRU carriers with margin.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlausibilityLimits {
    /// Largest speed over ground, m/s (default 100 = 360 km/h).
    pub max_speed_mps: f64,
    /// Largest speed change between two samples divided by Δt, m/s² (default 30, about 3 g).
    pub max_accel_mps2: f64,
    /// Largest time step between two samples, s (default 10).
    pub max_time_step_s: f64,
    /// Position step allowed beyond `max(speed) × Δt × position_factor`, m (default 2).
    pub position_slack_m: f64,
    /// Factor on `max(speed) × Δt` for the allowed position step (default 2).
    pub position_factor: f64,
    /// Largest absolute local coordinate, m (default 1e7, beyond any UTM northing).
    pub max_abs_coord_m: f64,
    /// After this many consecutive rejections the filter starts afresh from the next sample
    /// (a real discontinuity — a restarted recorder — is not rejected forever; default 25).
    pub restart_after: u32,
}

impl Default for PlausibilityLimits {
    fn default() -> Self {
        PlausibilityLimits {
            max_speed_mps: 100.0,
            max_accel_mps2: 30.0,
            max_time_step_s: 10.0,
            position_slack_m: 2.0,
            position_factor: 2.0,
            max_abs_coord_m: 1.0e7,
            restart_after: 25,
        }
    }
}

impl PlausibilityLimits {
    pub fn validate(&self) -> Result<(), String> {
        for (name, v) in [
            ("max_speed_mps", self.max_speed_mps),
            ("max_accel_mps2", self.max_accel_mps2),
            ("max_time_step_s", self.max_time_step_s),
            ("position_factor", self.position_factor),
            ("max_abs_coord_m", self.max_abs_coord_m),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!(
                    "plausibility.{name} must be a positive number, got {v}"
                ));
            }
        }
        if !(self.position_slack_m.is_finite() && self.position_slack_m >= 0.0) {
            return Err("plausibility.position_slack_m must be ≥ 0".into());
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy)]
struct Accepted {
    time_s: f64,
    /// Local metres (WGS84 projected on a sphere around the first sample).
    x: f64,
    y: f64,
    speed_mps: f64,
}

/// The per-source filter state.
#[derive(Debug, Clone)]
pub struct Plausibility {
    limits: PlausibilityLimits,
    last: Option<Accepted>,
    /// Reference latitude for projecting WGS84 positions.
    lat0: Option<f64>,
    consecutive: u32,
    /// Samples rejected so far.
    pub dropped: u64,
    /// The most recent rejection reason.
    pub last_reason: Option<String>,
}

const EARTH_R_M: f64 = 6_371_008.8;

impl Plausibility {
    pub fn new(limits: PlausibilityLimits) -> Self {
        Plausibility {
            limits,
            last: None,
            lat0: None,
            consecutive: 0,
            dropped: 0,
            last_reason: None,
        }
    }

    pub fn limits(&self) -> &PlausibilityLimits {
        &self.limits
    }

    fn local(&mut self, p: &InsPosition) -> Result<(f64, f64), String> {
        match *p {
            InsPosition::Local { x, y } => {
                let lim = self.limits.max_abs_coord_m;
                if !(x.abs() <= lim && y.abs() <= lim) {
                    return Err(format!("position {x}, {y} m beyond ±{lim} m"));
                }
                Ok((x, y))
            }
            InsPosition::Wgs84 {
                lat_deg, lon_deg, ..
            } => {
                if !((-90.0..=90.0).contains(&lat_deg) && (-180.0..=360.0).contains(&lon_deg)) {
                    return Err(format!(
                        "latitude/longitude {lat_deg}, {lon_deg} out of range"
                    ));
                }
                let lat0 = *self.lat0.get_or_insert(lat_deg);
                let y = lat_deg.to_radians() * EARTH_R_M;
                let x = lon_deg.to_radians() * EARTH_R_M * lat0.to_radians().cos();
                Ok((x, y))
            }
        }
    }

    /// Checks `s`; `Ok` accepts it (it becomes the reference for the next one), `Err` gives the
    /// reason and counts it as dropped.
    pub fn admit(&mut self, s: &InsSample) -> Result<(), String> {
        match self.judge(s) {
            Ok(acc) => {
                self.last = Some(acc);
                self.consecutive = 0;
                Ok(())
            }
            Err(reason) => {
                self.dropped += 1;
                self.consecutive += 1;
                if self.limits.restart_after > 0 && self.consecutive >= self.limits.restart_after {
                    self.last = None;
                    self.consecutive = 0;
                }
                self.last_reason = Some(reason.clone());
                Err(reason)
            }
        }
    }

    fn judge(&mut self, s: &InsSample) -> Result<Accepted, String> {
        let l = self.limits;
        if !s.time_s.is_finite() || !s.speed_mps.is_finite() || !s.heading_deg.is_finite() {
            return Err("time, speed and heading must be finite".into());
        }
        if s.speed_mps.abs() > l.max_speed_mps {
            return Err(format!(
                "implausible speed {:.1} m/s (limit {} m/s)",
                s.speed_mps, l.max_speed_mps
            ));
        }
        let (x, y) = self.local(&s.position)?;
        let now = Accepted {
            time_s: s.time_s,
            x,
            y,
            speed_mps: s.speed_mps,
        };
        let Some(prev) = self.last else {
            return Ok(now);
        };
        let dt = s.time_s - prev.time_s;
        if dt > l.max_time_step_s {
            return Err(format!(
                "time jumps {dt:.3} s after the previous sample (limit {} s)",
                l.max_time_step_s
            ));
        }
        if dt <= 0.0 {
            // Ordering is the source's own rule (CSV: "time does not increase").
            return Ok(now);
        }
        let accel = (s.speed_mps - prev.speed_mps) / dt;
        if accel.abs() > l.max_accel_mps2 {
            return Err(format!(
                "implausible acceleration {accel:.1} m/s² (speed {:.2} → {:.2} m/s in {dt:.3} s; limit {} m/s²)",
                prev.speed_mps, s.speed_mps, l.max_accel_mps2
            ));
        }
        let step = ((x - prev.x).powi(2) + (y - prev.y).powi(2)).sqrt();
        let allowed = s.speed_mps.abs().max(prev.speed_mps.abs()) * dt * l.position_factor
            + l.position_slack_m;
        if step > allowed {
            return Err(format!(
                "position jumps {step:.2} m in {dt:.3} s (at most {allowed:.2} m at this speed)"
            ));
        }
        Ok(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: f64, x: f64, v: f64) -> InsSample {
        InsSample {
            time_s: t,
            vehicle: "vut".into(),
            position: InsPosition::Local { x, y: 0.0 },
            heading_deg: 90.0,
            speed_mps: v,
            steering_wheel_deg: None,
            brake_light: None,
            accel_mps2: None,
            yaw_rate_rps: None,
            wheel_speed_mps: None,
            fcw: None,
        }
    }

    #[test]
    fn outliers_are_dropped_and_the_next_sample_judged_against_the_last_good_one() {
        let mut p = Plausibility::new(PlausibilityLimits::default());
        assert!(p.admit(&s(0.0, 0.0, 8.0)).is_ok());
        assert!(p.admit(&s(0.04, 0.32, 8.0)).is_ok());
        let e = p.admit(&s(0.08, 0.64, 2.8e5)).unwrap_err();
        assert!(e.contains("speed"), "{e}");
        let e = p.admit(&s(0.08, 1e308, 8.0)).unwrap_err();
        assert!(e.contains("position"), "{e}");
        let e = p.admit(&s(0.08, 5.0, 8.0)).unwrap_err();
        assert!(e.contains("jumps"), "{e}");
        let e = p.admit(&s(1e6, 0.64, 8.0)).unwrap_err();
        assert!(e.contains("time jumps"), "{e}");
        let e = p.admit(&s(0.08, 0.64, 12.0)).unwrap_err();
        assert!(e.contains("acceleration"), "{e}");
        assert!(p.admit(&s(0.08, 0.64, 8.05)).is_ok());
        assert_eq!(p.dropped, 5);
    }

    #[test]
    fn a_sustained_discontinuity_restarts_the_filter() {
        let limits = PlausibilityLimits {
            restart_after: 3,
            ..Default::default()
        };
        let mut p = Plausibility::new(limits);
        assert!(p.admit(&s(0.0, 0.0, 1.0)).is_ok());
        for i in 0..3 {
            assert!(p.admit(&s(100.0 + i as f64 * 0.1, 0.0, 1.0)).is_err());
        }
        assert!(p.admit(&s(100.3, 0.0, 1.0)).is_ok(), "restarted");
    }
}
