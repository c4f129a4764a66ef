//! A characterisation run: one object driven straight ahead from where it stands —
//! accelerate to a speed, hold it, stop — and what its MONR show of it: its dead time,
//! acceleration and deceleration, how closely it holds its planned speed and its path, and
//! how late its MONR arrive. Sans-IO: the plan and the analysis; the service drives the motion.
//!
//! The plan asks for more than the object is expected to drive (by default 1.5 times its
//! kind's acceleration and deceleration), so that what is measured is the object's own
//! limit; a gentler plan measures the plan. Not much more: an object that falls far behind
//! its plan catches up faster than planned, and the speed rule stops that as in any run.
//!
//! * Dead time: the speed rising through 20–80 % of the planned speed is fitted with a line;
//!   where it crosses zero, less the start time of the STRT, is the dead time (the MONR's own
//!   time stamps, so the MONR latency does not enter).
//! * Acceleration, deceleration: the slopes of that fit and of the same fit on the stop
//!   (80 % down to 20 %).
//! * Speed-tracking error: RMS of MONR speed − planned speed over the second half of the hold.
//! * Lateral-tracking error: RMS distance of the MONR positions from the straight path while
//!   it moves faster than 20 % of the planned speed.

use serde::{Deserialize, Serialize};

use super::track::{PlannedTrack, Pose, TrackPoint};
use crate::capabilities::CapabilitiesPatch;
use crate::dispatch::control_centre::MonrSample;

/// What to drive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Request {
    /// The speed to hold, km/h.
    pub speed_kmh: f64,
    /// How long to hold it, s.
    pub hold_s: f64,
    /// The planned launch, m/s².
    pub accel_mps2: f64,
    /// The planned stop, m/s² (positive).
    pub decel_mps2: f64,
}

impl Default for Request {
    fn default() -> Self {
        Request {
            speed_kmh: 10.0,
            hold_s: 6.0,
            accel_mps2: 4.0,
            decel_mps2: 8.0,
        }
    }
}

impl Request {
    /// The default motion for an object of `kind`: 10 km/h held 6 s, planned at 1.5 times
    /// the kind's default acceleration and deceleration (at most 10 and 12 m/s²).
    pub fn for_kind(kind: crate::capabilities::ObjectKind) -> Self {
        let c = crate::capabilities::ObjectCapabilities::default_for(kind);
        Request {
            accel_mps2: (1.5 * c.max_accel_mps2).min(10.0),
            decel_mps2: (1.5 * c.max_decel_mps2).min(12.0),
            ..Request::default()
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        let ok = |v: f64, lo: f64, hi: f64| v.is_finite() && v >= lo && v <= hi;
        if !ok(self.speed_kmh, 2.0, 60.0) {
            return Err(format!("speed_kmh must be 2..60, got {}", self.speed_kmh));
        }
        if !ok(self.hold_s, 2.0, 30.0) {
            return Err(format!("hold_s must be 2..30, got {}", self.hold_s));
        }
        if !ok(self.accel_mps2, 0.2, 10.0) || !ok(self.decel_mps2, 0.2, 12.0) {
            return Err(format!(
                "accel_mps2 must be 0.2..10 and decel_mps2 0.2..12, got {} and {}",
                self.accel_mps2, self.decel_mps2
            ));
        }
        Ok(())
    }

    pub fn speed_mps(&self) -> f64 {
        self.speed_kmh / 3.6
    }

    /// Times of the plan: end of the launch, end of the hold, end (s).
    fn phases(&self) -> (f64, f64, f64) {
        let v = self.speed_mps();
        let ta = v / self.accel_mps2;
        let th = ta + self.hold_s;
        (ta, th, th + v / self.decel_mps2)
    }

    /// The planned track straight ahead of `from`, a point every `dt_s`.
    pub fn track(&self, from: Pose, dt_s: f64) -> PlannedTrack {
        let v = self.speed_mps();
        let (a, d) = (self.accel_mps2, self.decel_mps2);
        let (ta, th, te) = self.phases();
        let sa = 0.5 * v * ta;
        let sh = sa + v * self.hold_s;
        let at = |t: f64| -> (f64, f64, f64) {
            if t <= ta {
                (0.5 * a * t * t, a * t, a)
            } else if t <= th {
                (sa + v * (t - ta), v, 0.0)
            } else {
                let u = (t - th).min(te - th);
                (sh + v * u - 0.5 * d * u * u, (v - d * u).max(0.0), -d)
            }
        };
        let dt = if dt_s > 0.0 { dt_s } else { 0.01 };
        let n = (te / dt).ceil() as usize;
        let points = (0..=n)
            .map(|k| {
                let t = (k as f64 * dt).min(te);
                let (s, sv, sa_) = at(t);
                TrackPoint {
                    t,
                    x: from.x + s * from.yaw.cos(),
                    y: from.y + s * from.yaw.sin(),
                    yaw: from.yaw,
                    v: if k == n { 0.0 } else { sv },
                    a: if k == n { 0.0 } else { sa_ },
                    curvature: 0.0,
                }
            })
            .collect();
        PlannedTrack { points }
    }

    /// Length of the planned motion, m.
    pub fn length_m(&self) -> f64 {
        let v = self.speed_mps();
        0.5 * v * v / self.accel_mps2 + v * self.hold_s + 0.5 * v * v / self.decel_mps2
    }
}

/// What the MONR showed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub dead_time_s: f64,
    pub accel_mps2: f64,
    pub decel_mps2: f64,
    pub speed_error_mps: f64,
    pub lateral_error_m: f64,
    /// From the link's figures (arrival − the MONR's own time stamp), when known.
    pub monr_latency_s: Option<f64>,
    /// MONR used.
    pub samples: usize,
}

impl Measured {
    /// As measured capabilities.
    pub fn patch(&self) -> CapabilitiesPatch {
        CapabilitiesPatch {
            max_accel_mps2: Some(self.accel_mps2),
            max_decel_mps2: Some(self.decel_mps2),
            dead_time_s: Some(self.dead_time_s),
            speed_error_mps: Some(self.speed_error_mps),
            lateral_error_m: Some(self.lateral_error_m),
            monr_latency_s: self.monr_latency_s,
            ..Default::default()
        }
    }
}

/// Least-squares line through (t, v): slope and the time where it crosses v = 0.
fn fit(pts: &[(f64, f64)]) -> Option<(f64, f64)> {
    if pts.len() < 5 {
        return None;
    }
    let n = pts.len() as f64;
    let mt = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let mv = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (t, v) in pts {
        sxy += (t - mt) * (v - mv);
        sxx += (t - mt) * (t - mt);
    }
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    if slope == 0.0 {
        return None;
    }
    Some((slope, mt - mv / slope))
}

fn rms(v: impl Iterator<Item = f64>) -> f64 {
    let (mut s, mut n) = (0.0, 0usize);
    for x in v {
        s += x * x;
        n += 1;
    }
    if n == 0 {
        0.0
    } else {
        (s / n as f64).sqrt()
    }
}

/// The figures of one characterisation: `req` as planned in `track`, started at `start_s`
/// (control-centre seconds, the STRT's start time), `monr` the object's MONR (its own time
/// stamps, control-centre seconds), `latency_s` its link's latency when known. Errors say
/// what was not seen.
pub fn analyse(
    req: &Request,
    track: &PlannedTrack,
    start_s: f64,
    monr: &[MonrSample],
    latency_s: Option<f64>,
) -> Result<Measured, String> {
    let v = req.speed_mps();
    let (lo, hi) = (0.2 * v, 0.8 * v);
    let after: Vec<&MonrSample> = monr.iter().filter(|m| m.t_s >= start_s).collect();
    // The launch: from the last standing sample before it first reaches 80 %.
    let top = after
        .iter()
        .position(|m| m.speed_mps >= hi)
        .ok_or_else(|| format!("the object never reached 80 % of {:.1} km/h", req.speed_kmh))?;
    let rise: Vec<(f64, f64)> = after[..=top]
        .iter()
        .filter(|m| m.speed_mps >= lo && m.speed_mps <= hi)
        .map(|m| (m.t_s, m.speed_mps))
        .collect();
    let (accel, t_move) =
        fit(&rise).ok_or("too few MONR on the launch (20–80 % of the speed) to measure it")?;
    // The stop: after the last sample at 80 % or more, down to 20 %.
    let last_high = after.iter().rposition(|m| m.speed_mps >= hi).unwrap_or(top);
    let fall: Vec<(f64, f64)> = after[last_high..]
        .iter()
        .take_while(|m| m.speed_mps >= lo)
        .filter(|m| m.speed_mps <= hi)
        .map(|m| (m.t_s, m.speed_mps))
        .collect();
    let (slope_down, _) =
        fit(&fall).ok_or("too few MONR on the stop (80–20 % of the speed) to measure it")?;
    // Speed held: the second half of the planned hold.
    let (ta, th, _) = req.phases();
    let (h0, h1) = (start_s + 0.5 * (ta + th), start_s + th);
    let speed_error = rms(after
        .iter()
        .filter(|m| m.t_s >= h0 && m.t_s <= h1)
        .map(|m| m.speed_mps - v));
    let lateral_error = rms(after
        .iter()
        .filter(|m| m.speed_mps >= lo)
        .map(|m| track.lateral_m(m.x, m.y)));
    Ok(Measured {
        dead_time_s: (t_move - start_s).max(0.0),
        accel_mps2: accel,
        decel_mps2: -slope_down,
        speed_error_mps: speed_error,
        lateral_error_m: lateral_error,
        monr_latency_s: latency_s,
        samples: after.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::object_dynamics::{Dynamics, Plant, Reference};
    use crate::dispatch::profile::MotionState;

    /// The plant of a known platform driven through the plan, its MONR sampled at 100 Hz:
    /// the analysis finds its dead time and acceleration again.
    #[test]
    fn a_known_platform_is_recovered() {
        let req = Request::default();
        let from = Pose::new(10.0, -5.0, 0.7);
        let track = req.track(from, 0.01);
        let states: Vec<(f64, MotionState)> = track
            .points
            .iter()
            .map(|p| {
                let travel = (p.x - from.x).hypot(p.y - from.y);
                (
                    p.t,
                    MotionState {
                        x: p.x,
                        y: p.y,
                        yaw_rad: p.yaw,
                        speed_mps: p.v,
                        accel_mps2: p.a,
                        travel_m: travel,
                    },
                )
            })
            .collect();
        for (dead, acc, dec) in [(0.2, 2.0, 5.0), (0.15, 1.5, 4.0), (0.3, 3.0, 7.0)] {
            let d = Dynamics {
                dead_time_s: dead,
                max_accel_mps2: acc,
                max_decel_mps2: dec,
                wander_m: 0.03,
                rtk_bias_m: 0.02,
                rtk_noise_m: 0.005,
                catchup_mps: 10.0 / 3.6,
                ..Dynamics::default()
            };
            let mut p = Plant::new(d, Reference::from_states(&states).expect("ref"), 0.0);
            let start = 0.5;
            p.start(0.0, start);
            let mut monr = Vec::new();
            let mut t = 0.0;
            while t < start + track.duration_s() + 6.0 {
                t += 0.01;
                p.advance(t);
                let m = p.state();
                let (ex, ey) = p.rtk_error();
                monr.push(MonrSample {
                    carrier: 0,
                    t_s: t,
                    x: m.x + ex,
                    y: m.y + ey,
                    yaw_deg: m.yaw_rad.to_degrees(),
                    speed_mps: m.speed_mps,
                    state: crate::dispatch::iso22133::ObjectState::Running,
                });
            }
            let r = analyse(&req, &track, start, &monr, Some(0.03)).expect("measured");
            eprintln!("known dead {dead} acc {acc} dec {dec}: measured {r:?}");
            assert!((r.dead_time_s - dead).abs() < 0.02, "{r:?}");
            assert!((r.accel_mps2 - acc).abs() < 0.1 * acc, "{r:?}");
            assert!((r.decel_mps2 - dec).abs() < 0.1 * dec, "{r:?}");
            assert!(
                r.lateral_error_m > 0.005 && r.lateral_error_m < 0.15,
                "{r:?}"
            );
            assert!(r.speed_error_mps < 0.5, "{r:?}");
        }
        assert!(analyse(&req, &track, 0.5, &[], None).is_err());
    }
}
