//! The dummy's motion on the carrier: the scenario's motion profile
//! ([`crate::scenario::profile::Profile`], constant acceleration over `s_acc` to `v_target`,
//! then constant speed, along a straight line from the start point — the one implementation
//! of the kinematics, shared with the engine's simulated dummy), plus what only dispatch
//! needs: the end of the run (`max_travel_m`), the TRAJ upload (control centre), the
//! simulator's built-in motion when no TRAJ was uploaded, TRAJ following and the wire yaw.

use super::iso22133::{Traj, TrajPoint};
use crate::scenario::profile::Profile;
use serde::{Deserialize, Serialize};

/// Straight-line speed profile in the map frame, ending after `max_travel_m`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(from = "ProfileSpec", into = "ProfileSpec")]
pub struct DummyProfile {
    /// Kinematics (start point, map yaw, s_acc, v_target).
    pub motion: Profile,
    /// Total travel after which the dummy stops (end of the trajectory), metres.
    pub max_travel_m: f64,
}

/// Serialised form of [`DummyProfile`] (field names of the former self-contained struct).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct ProfileSpec {
    /// Start point, map frame (x east, y north), metres.
    start_x: f64,
    start_y: f64,
    /// Direction of travel, map yaw (0 = +x, counter-clockwise), radians.
    yaw_rad: f64,
    /// Distance over which the dummy accelerates from rest (s_acc), metres.
    accel_distance_m: f64,
    /// Target speed (v_target), m/s.
    speed_mps: f64,
    max_travel_m: f64,
}

impl From<ProfileSpec> for DummyProfile {
    fn from(s: ProfileSpec) -> Self {
        DummyProfile {
            motion: Profile::new(
                s.start_x,
                s.start_y,
                s.yaw_rad,
                s.accel_distance_m,
                s.speed_mps,
            ),
            max_travel_m: s.max_travel_m.max(0.0),
        }
    }
}

impl From<DummyProfile> for ProfileSpec {
    fn from(p: DummyProfile) -> Self {
        ProfileSpec {
            start_x: p.motion.start_x,
            start_y: p.motion.start_y,
            yaw_rad: p.motion.yaw,
            accel_distance_m: p.motion.s_acc,
            speed_mps: p.motion.v,
            max_travel_m: p.max_travel_m,
        }
    }
}

/// Pose and motion at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct MotionState {
    pub x: f64,
    pub y: f64,
    pub yaw_rad: f64,
    pub speed_mps: f64,
    pub accel_mps2: f64,
    /// Distance travelled from the start point.
    pub travel_m: f64,
}

impl DummyProfile {
    /// Default end of the run: 10 m of travel.
    pub const DEFAULT_MAX_TRAVEL_M: f64 = 10.0;

    /// The scenario's profile, ending after [`Self::DEFAULT_MAX_TRAVEL_M`].
    pub fn new(motion: Profile) -> Self {
        Self {
            motion,
            max_travel_m: Self::DEFAULT_MAX_TRAVEL_M,
        }
    }

    /// From a scenario target's fields: INS heading (0 = north, clockwise, degrees) and km/h.
    pub fn from_scenario(
        start_x: f64,
        start_y: f64,
        heading_deg: f64,
        accel_distance_m: f64,
        speed_kmh: f64,
    ) -> Self {
        Self::new(Profile::new(
            start_x,
            start_y,
            crate::frame::heading_to_yaw(heading_deg),
            accel_distance_m,
            speed_kmh / 3.6,
        ))
    }

    /// Acceleration phase duration t_acc = 2·s_acc / v.
    pub fn accel_time_s(&self) -> f64 {
        self.motion.t_acc
    }

    /// Time to reach `max_travel_m` (0 for a dummy that never moves).
    pub fn duration_s(&self) -> f64 {
        self.motion.time_to_travel(self.max_travel_m).unwrap_or(0.0)
    }

    /// Motion `t` seconds after the start (at rest before it; stopped at the end).
    pub fn at(&self, t: f64) -> MotionState {
        let end = self.duration_s();
        let (tau, moving) = if t >= end {
            (end, false)
        } else {
            (t.max(0.0), t > 0.0)
        };
        let (x, y) = self.motion.position(tau);
        MotionState {
            x,
            y,
            yaw_rad: self.motion.yaw,
            speed_mps: if moving { self.motion.speed(tau) } else { 0.0 },
            accel_mps2: if moving { self.motion.accel(tau) } else { 0.0 },
            travel_m: self.motion.travel(tau).min(self.max_travel_m),
        }
    }

    /// Sampled TRAJ (wire units), one point every `dt_s`, ending exactly at the end.
    pub fn to_traj(&self, id: u16, name: &str, dt_s: f64) -> Traj {
        let dt = if dt_s > 0.0 { dt_s } else { 0.1 };
        let end = self.duration_s();
        let n = (end / dt).ceil().max(0.0) as usize;
        let mut points = Vec::with_capacity(n + 1);
        for i in 0..=n {
            let t = (i as f64 * dt).min(end);
            let m = self.at(t);
            let (v, a) = (m.speed_mps, m.accel_mps2);
            points.push(TrajPoint {
                rel_time_ms: (t * 1000.0).round() as u32,
                x_mm: (m.x * 1000.0).round() as i32,
                y_mm: (m.y * 1000.0).round() as i32,
                z_mm: 0,
                yaw_cdeg: yaw_to_cdeg(m.yaw_rad),
                speed_lon_cm_s: (v * 100.0).round() as i16,
                speed_lat_cm_s: 0,
                acc_lon_mm_s2: (a * 1000.0).round() as i16,
                acc_lat_mm_s2: 0,
                curvature: 0.0,
            });
        }
        Traj {
            id,
            info: 2,
            name: name.chars().take(64).collect(),
            points,
        }
    }
}

/// Map yaw (radians, CCW from +x) to wire 0.01° in [0, 36000).
pub fn yaw_to_cdeg(yaw_rad: f64) -> u16 {
    ((yaw_rad.to_degrees().rem_euclid(360.0) * 100.0).round() as u32 % 36000) as u16
}

/// Wire 0.01° to map yaw radians.
pub fn cdeg_to_yaw(cdeg: u16) -> f64 {
    (cdeg as f64 / 100.0).to_radians()
}

/// Follows an uploaded TRAJ by linear interpolation in time.
#[derive(Debug, Clone)]
pub struct TrajFollower {
    /// (t_s, x, y, yaw, v, a)
    pts: Vec<[f64; 6]>,
}

impl TrajFollower {
    pub fn new(traj: &Traj) -> Option<Self> {
        let mut pts: Vec<[f64; 6]> = traj
            .points
            .iter()
            .map(|p| {
                [
                    p.rel_time_ms as f64 / 1000.0,
                    p.x_mm as f64 / 1000.0,
                    p.y_mm as f64 / 1000.0,
                    cdeg_to_yaw(p.yaw_cdeg),
                    p.speed_lon_cm_s as f64 / 100.0,
                    p.acc_lon_mm_s2 as f64 / 1000.0,
                ]
            })
            .collect();
        pts.sort_by(|a, b| a[0].total_cmp(&b[0]));
        if pts.is_empty() {
            None
        } else {
            Some(Self { pts })
        }
    }

    pub fn duration_s(&self) -> f64 {
        self.pts.last().map(|p| p[0]).unwrap_or(0.0)
    }

    pub fn at(&self, t: f64) -> MotionState {
        let first = self.pts[0];
        let last = self.pts[self.pts.len() - 1];
        let travel = |p: &[f64; 6]| ((p[1] - first[1]).powi(2) + (p[2] - first[2]).powi(2)).sqrt();
        let mk = |p: [f64; 6], moving: bool| MotionState {
            x: p[1],
            y: p[2],
            yaw_rad: p[3],
            speed_mps: if moving { p[4] } else { 0.0 },
            accel_mps2: if moving { p[5] } else { 0.0 },
            travel_m: travel(&p),
        };
        if t <= first[0] {
            return mk(first, false);
        }
        if t >= last[0] {
            return mk(last, false);
        }
        let i = self.pts.partition_point(|p| p[0] <= t);
        let (a, b) = (self.pts[i - 1], self.pts[i]);
        let f = if b[0] > a[0] {
            (t - a[0]) / (b[0] - a[0])
        } else {
            0.0
        };
        let mut p = [0.0; 6];
        for k in 0..6 {
            p[k] = a[k] + f * (b[k] - a[k]);
        }
        p[3] = a[3]; // do not interpolate through the 0/360 wrap
        mk(p, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpna_profile() {
        // 5 km/h, s_acc 1 m, walking north
        let p = DummyProfile::from_scenario(200.0, -5.75, 0.0, 1.0, 5.0);
        assert!((p.motion.yaw - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
        let v = 5.0 / 3.6;
        assert!((p.accel_time_s() - 2.0 / v).abs() < 1e-12);
        let m = p.at(p.accel_time_s());
        assert!((m.travel_m - 1.0).abs() < 1e-9);
        assert!((m.speed_mps - v).abs() < 1e-9);
        let m = p.at(p.accel_time_s() + 1.0);
        assert!((m.y - (-5.75 + 1.0 + v)).abs() < 1e-9);
        assert!((m.x - 200.0).abs() < 1e-9);
        // the TRAJ sampled from it follows the same path
        let traj = p.to_traj(1, "dummy", 0.05);
        let f = TrajFollower::new(&traj).expect("points");
        assert!((f.duration_s() - p.duration_s()).abs() < 1e-3);
        let a = f.at(2.5);
        let b = p.at(2.5);
        assert!((a.x - b.x).abs() < 0.002 && (a.y - b.y).abs() < 0.002);
    }

    #[test]
    fn same_kinematics_as_the_engine_and_serde_keeps_the_field_names() {
        let p = DummyProfile::from_scenario(200.0, -5.75, 0.0, 1.0, 5.0);
        for t in [0.0, 0.5, 1.2, 1.44, 2.0, 3.9339, 6.0] {
            let m = p.at(t);
            assert_eq!(m.travel_m, p.motion.travel(t));
            assert_eq!((m.x, m.y), p.motion.position(t));
        }
        // stops at the end of the run
        let end = p.duration_s();
        assert!((p.at(end + 5.0).travel_m - p.max_travel_m).abs() < 1e-9);
        assert_eq!(p.at(end + 5.0).speed_mps, 0.0);
        let json = serde_json::to_value(p).expect("json");
        for k in [
            "start_x",
            "start_y",
            "yaw_rad",
            "accel_distance_m",
            "speed_mps",
            "max_travel_m",
        ] {
            assert!(json.get(k).is_some(), "{k} missing in {json}");
        }
        let back: DummyProfile = serde_json::from_value(json).expect("back");
        assert_eq!(back, p);
    }
}
