//! The dummy's motion on the carrier: the scenario's motion profile
//! ([`crate::scenario::profile::Profile`], constant acceleration over `s_acc` to `v_target`,
//! then constant speed, along a straight line from the start point — the one implementation
//! of the kinematics, shared with the engine's simulated dummy), plus what only dispatch
//! needs: the end of the run (`max_travel_m`), the TRAJ upload (control centre), the
//! simulator's built-in motion when no TRAJ was uploaded, TRAJ following and the wire yaw.

use super::iso22133::{Traj, TrajPoint};
use crate::scenario::path::Polyline;
use crate::scenario::profile::Profile;
use crate::scenario::{Point, TargetSpec};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Largest chord error (m) of linear interpolation between TRAJ points on a path target.
pub const TRAJ_CHORD_ERROR_M: f64 = 0.001;
/// Most TRAJ points sent (the codec's 1 MiB payload holds ~30 800 points of 34 bytes).
pub const MAX_TRAJ_POINTS: usize = 30_000;

/// Speed profile in the map frame, ending after `max_travel_m`: straight from the start along
/// the yaw, or along `path` (a target's resolved path) when it has one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "ProfileSpec", into = "ProfileSpec")]
pub struct DummyProfile {
    /// Kinematics (start point, map yaw, s_acc, v_target).
    pub motion: Profile,
    /// Total travel after which the dummy stops (end of the trajectory), metres.
    pub max_travel_m: f64,
    /// The target's path (map frame); `None` = straight.
    pub path: Option<Arc<Polyline>>,
    /// A jerk-limited launch in place of the profile's constant acceleration, as long as it
    /// (so the same distance and, from then on, the same motion); `None`: the profile's own.
    pub launch: Option<crate::scenario::launch::Launch>,
}

/// Serialised form of [`DummyProfile`] (field names of the former self-contained struct).
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// Path points (map frame), absent for a straight profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    path: Option<Vec<Point>>,
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
            path: s.path.as_deref().and_then(Polyline::new).map(Arc::new),
            launch: None,
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
            path: p
                .path
                .as_ref()
                .map(|l| l.points().iter().map(|&(x, y)| Point { x, y }).collect()),
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
            path: None,
            launch: None,
        }
    }

    /// The profile of a scenario target (resolved paths, [`crate::run::setup::RunSetup`]):
    /// along its path to the path's end when it has one, else straight on across the VUT's
    /// path and [`Self::DEFAULT_MAX_TRAVEL_M`] beyond it (a crossing dummy whose run-up was
    /// lengthened starts further away than that from the VUT's path).
    pub fn of_target(t: &TargetSpec) -> Self {
        let mut p = Self::new(Profile::of(t));
        p.max_travel_m += t.lateral_start_m.max(0.0);
        if let Some(line) = t.path.as_ref().and_then(|pp| pp.geometry().ok()) {
            p.max_travel_m = line.length();
            p.path = Some(Arc::new(line));
        }
        p
    }

    /// Pose at travel `s`: on the path (yaw = its tangent) or straight along the yaw.
    fn pose_at_travel(&self, s: f64, tau: f64) -> (f64, f64, f64) {
        match &self.path {
            Some(line) => {
                let (x, y, yaw, _) = smooth_pose(line, s);
                (x, y, yaw)
            }
            None if self.in_launch(tau) => {
                let (c, sn) = (self.motion.yaw.cos(), self.motion.yaw.sin());
                (
                    self.motion.start_x + s * c,
                    self.motion.start_y + s * sn,
                    self.motion.yaw,
                )
            }
            None => {
                let (x, y) = self.motion.position(tau);
                (x, y, self.motion.yaw)
            }
        }
    }

    /// `tau` falls in the jerk-limited launch that replaces the profile's acceleration.
    fn in_launch(&self, tau: f64) -> bool {
        self.launch.is_some() && tau > 0.0 && tau < self.motion.t_acc
    }

    /// Travel `tau` seconds after the start (the launch's where it has one).
    fn travel(&self, tau: f64) -> f64 {
        match self.launch {
            Some(l) if self.in_launch(tau) => l.distance_m(self.motion.v, tau),
            _ => self.motion.travel(tau),
        }
    }

    /// (speed, acceleration) `tau` seconds after the start.
    fn speed_accel(&self, tau: f64) -> (f64, f64) {
        match self.launch {
            Some(l) if self.in_launch(tau) => l.at(self.motion.v, tau),
            _ => (self.motion.speed(tau), self.motion.accel(tau)),
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
        if self.path.is_some() {
            if let Some((tb, dec)) = self.motion.brake {
                // A braking target ends where it comes to rest if that is before the end.
                let vb = self.motion.speed(tb);
                if dec > 0.0 && tb >= 0.0 {
                    // Braking ends at the final speed (then held) or at rest.
                    let vf = self.motion.brake_final.min(vb);
                    let stop = tb + (vb - vf) / dec;
                    let s_stop = self.motion.travel(stop);
                    if s_stop <= self.max_travel_m {
                        return if vf > 0.0 {
                            stop + (self.max_travel_m - s_stop) / vf
                        } else {
                            stop
                        };
                    }
                    let sb = self.motion.travel(tb);
                    if sb < self.max_travel_m {
                        let disc = (vb * vb - 2.0 * dec * (self.max_travel_m - sb)).max(0.0);
                        return tb + (vb - disc.sqrt()) / dec;
                    }
                }
            }
        }
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
        let travel_m = self.travel(tau).min(self.max_travel_m);
        let (x, y, yaw_rad) = self.pose_at_travel(travel_m, tau);
        let (speed, accel) = self.speed_accel(tau);
        MotionState {
            x,
            y,
            yaw_rad,
            speed_mps: if moving { speed } else { 0.0 },
            accel_mps2: if moving { accel } else { 0.0 },
            travel_m,
        }
    }

    /// Sampled TRAJ (wire units), one point every `dt_s`, ending exactly at the end.
    pub fn to_traj(&self, id: u16, name: &str, dt_s: f64) -> Traj {
        let dt = if dt_s > 0.0 { dt_s } else { 0.1 };
        let end = self.duration_s();
        let times: Vec<f64> = match &self.path {
            Some(line) => self.path_times(line, dt, end),
            None => {
                let n = (end / dt).ceil().max(0.0) as usize;
                (0..=n).map(|i| (i as f64 * dt).min(end)).collect()
            }
        };
        let mut points = Vec::with_capacity(times.len());
        for &t in &times {
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
                curvature: match &self.path {
                    Some(line) => smooth_pose(line, m.travel_m).3 as f32,
                    None => 0.0,
                },
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

impl DummyProfile {
    /// TRAJ times of a path target: every `dt`, but closer where the path bends so that the
    /// chord between consecutive points stays within [`TRAJ_CHORD_ERROR_M`] of the path
    /// (rule: Δs ≤ √(8·e/κ), κ the largest vertex curvature over the step), plus a point at
    /// every path vertex passed in the step when the path bends there (so linear
    /// interpolation between TRAJ points never cuts a corner of the resolved path); ends
    /// exactly at the end. At most [`MAX_TRAJ_POINTS`] (uniformly thinned beyond).
    fn path_times(&self, line: &Polyline, dt: f64, end: f64) -> Vec<f64> {
        let mut out = vec![0.0];
        let mut t = 0.0;
        let min_step = 0.001;
        while t < end - 1e-9 {
            let s0 = self.travel(t);
            let mut h = dt.min(end - t);
            for _ in 0..40 {
                let s1 = self.travel(t + h).min(self.max_travel_m);
                let k = max_curvature(line, s0, s1);
                let ds_max = if k > 0.0 {
                    (8.0 * TRAJ_CHORD_ERROR_M / k).sqrt()
                } else {
                    f64::INFINITY
                };
                if s1 - s0 <= ds_max || h <= min_step {
                    break;
                }
                h = (h * 0.9 * ds_max / (s1 - s0)).max(min_step);
            }
            t = (t + h).min(end);
            out.push(t);
        }
        if out.len() > MAX_TRAJ_POINTS {
            let n = out.len() - 1;
            let step = n as f64 / (MAX_TRAJ_POINTS - 1) as f64;
            out = (0..MAX_TRAJ_POINTS)
                .map(|i| out[((i as f64 * step).round() as usize).min(n)])
                .collect();
        }
        out
    }
}

/// Curvature (1/m, signed, left positive) of the polyline at its vertex `i` (circle through
/// the vertex and its neighbours; 0 at the ends).
fn vertex_curvature(pts: &[(f64, f64)], i: usize) -> f64 {
    if i == 0 || i + 1 >= pts.len() {
        return 0.0;
    }
    let (a, b, c) = (pts[i - 1], pts[i], pts[i + 1]);
    let cross = (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0);
    let (ab, bc, ca) = (
        (b.0 - a.0).hypot(b.1 - a.1),
        (c.0 - b.0).hypot(c.1 - b.1),
        (a.0 - c.0).hypot(a.1 - c.1),
    );
    let d = ab * bc * ca;
    if d > 0.0 {
        2.0 * cross / d
    } else {
        0.0
    }
}

/// Cumulative arc length at each vertex.
fn cumulative(pts: &[(f64, f64)]) -> Vec<f64> {
    let mut cum = Vec::with_capacity(pts.len());
    let mut acc = 0.0;
    for (i, p) in pts.iter().enumerate() {
        if i > 0 {
            acc += (p.0 - pts[i - 1].0).hypot(p.1 - pts[i - 1].1);
        }
        cum.push(acc);
    }
    cum
}

/// Largest |curvature| of the vertices within travel [s0, s1] (and the two around it).
fn max_curvature(line: &Polyline, s0: f64, s1: f64) -> f64 {
    let pts = line.points();
    let cum = cumulative(pts);
    let lo = cum.partition_point(|&c| c < s0).saturating_sub(1);
    let hi = (cum.partition_point(|&c| c <= s1) + 1).min(pts.len());
    (lo..hi)
        .map(|i| vertex_curvature(pts, i).abs())
        .fold(0.0, f64::max)
}

/// Longest polyline segment (m) taken as a sampled curve (a resolved lane path's points are
/// [`crate::scenario::path::LANE_STEP_M`] apart); longer segments are straight legs.
pub const SMOOTH_SEGMENT_M: f64 = 1.0;

/// Pose (x, y, yaw, curvature) at travel `s` on a sampled curve: the polyline point at `s`
/// (the engine's pose) moved onto the circular arc through the segment with the curvature
/// interpolated between its vertices (sagitta κ·w(1−w)·L²/2 outwards), and yaw the arc's
/// tangent there (chord yaw + (w − ½)·L·κ) — so pose and tangent follow the lane centre, not
/// its chords. Straight legs (longer than [`SMOOTH_SEGMENT_M`]) and the path ends are as
/// [`Polyline::pose`].
fn smooth_pose(line: &Polyline, s: f64) -> (f64, f64, f64, f64) {
    let (x, y, d) = line.pose(s);
    let pts = line.points();
    let cum = cumulative(pts);
    let i = cum.partition_point(|&c| c <= s).clamp(1, pts.len() - 1);
    let (c0, c1) = (cum[i - 1], cum[i]);
    let len = c1 - c0;
    if !(len > 0.0 && len <= SMOOTH_SEGMENT_M) || s < 0.0 || s > cum[cum.len() - 1] {
        return (x, y, d, 0.0);
    }
    let w = ((s - c0) / len).clamp(0.0, 1.0);
    let curv = |j: usize| {
        let near = |a: usize, b: usize| {
            (pts[b].0 - pts[a].0).hypot(pts[b].1 - pts[a].1) <= SMOOTH_SEGMENT_M
        };
        if j == 0 || j + 1 >= pts.len() || !(near(j - 1, j) && near(j, j + 1)) {
            None
        } else {
            Some(vertex_curvature(pts, j))
        }
    };
    // End vertices take their neighbour's curvature (the circle through the first/last three).
    let k0 = curv(i - 1).or_else(|| curv(i)).unwrap_or(0.0);
    let k1 = curv(i).or_else(|| curv(i - 1)).unwrap_or(0.0);
    let k = k0 * (1.0 - w) + k1 * w;
    let bulge = k * w * (1.0 - w) * len * len / 2.0;
    (
        x + bulge * d.sin(),
        y - bulge * d.cos(),
        d + (w - 0.5) * len * k,
        k,
    )
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
    /// Distance along the points up to each point (travel on a curved path).
    cum: Vec<f64>,
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
            let xy: Vec<(f64, f64)> = pts.iter().map(|p| (p[1], p[2])).collect();
            let cum = cumulative(&xy);
            Some(Self { pts, cum })
        }
    }

    pub fn duration_s(&self) -> f64 {
        self.pts.last().map(|p| p[0]).unwrap_or(0.0)
    }

    /// Each point as (time, state), its speed and acceleration as the TRAJ says (also at the
    /// ends) and its travel along the points.
    pub fn states(&self) -> Vec<(f64, MotionState)> {
        self.pts
            .iter()
            .zip(&self.cum)
            .map(|(p, &travel_m)| {
                (
                    p[0],
                    MotionState {
                        x: p[1],
                        y: p[2],
                        yaw_rad: p[3],
                        speed_mps: p[4],
                        accel_mps2: p[5],
                        travel_m,
                    },
                )
            })
            .collect()
    }

    pub fn at(&self, t: f64) -> MotionState {
        let n = self.pts.len() - 1;
        let first = self.pts[0];
        let last = self.pts[n];
        let mk = |p: [f64; 6], moving: bool, travel_m: f64| MotionState {
            x: p[1],
            y: p[2],
            yaw_rad: p[3],
            speed_mps: if moving { p[4] } else { 0.0 },
            accel_mps2: if moving { p[5] } else { 0.0 },
            travel_m,
        };
        if t <= first[0] {
            return mk(first, false, 0.0);
        }
        if t >= last[0] {
            return mk(last, false, self.cum[n]);
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
        // yaw along the shorter way round (equal yaws stay exact)
        let dyaw = (b[3] - a[3] + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU)
            - std::f64::consts::PI;
        p[3] = if dyaw == 0.0 { a[3] } else { a[3] + f * dyaw };
        let travel = self.cum[i - 1] + (p[1] - a[1]).hypot(p[2] - a[2]);
        mk(p, true, travel)
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
        let json = serde_json::to_value(&p).expect("json");
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

    /// A lane-path target through the proving ground's spiral–arc–spiral section
    /// (lane -1, R ≈ 51.75 m): TRAJ points on the map's lane centre (the opendrive crate's
    /// own lane evaluation, every 1 cm of s, as the reference), yaw on its tangent, travel as
    /// the profile's, and linear interpolation between points (what TrajFollower and a real
    /// carrier do) within the stated chord error.
    #[test]
    fn lane_path_traj_follows_the_lane_centre() {
        use crate::scenario::path::{lane_polyline, LanePath};
        let map = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/opendrive/proving_ground.xodr"
        );
        let od = opendrive::OpenDrive::from_path(std::path::Path::new(map)).expect("map");
        let lp = LanePath {
            road: "1".into(),
            lane: -1,
            s_from: 280.0,
            s_to: 470.0,
            t_offset: 0.0,
        };
        let line = Polyline::new(&lane_polyline(&od, &lp).expect("lane")).expect("line");
        // reference: the lane centre every 1 cm of s
        let road = od.road("1").expect("road");
        let n = ((lp.s_to - lp.s_from) / 0.01).round() as usize;
        let refpts: Vec<Point> = (0..=n)
            .map(|k| {
                let s = lp.s_from + 0.01 * k as f64;
                let (a, b) = road.lane_span(-1, s).expect("span");
                let (x, y) = road.st_to_xy(s, 0.5 * (a + b));
                Point { x, y }
            })
            .collect();
        let reference = Polyline::new(&refpts).expect("ref");
        let (x0, y0, yaw0) = line.pose(0.0);
        let v = 50.0 / 3.6;
        let p = DummyProfile {
            motion: Profile::new(x0, y0, yaw0, 5.0, v),
            max_travel_m: line.length(),
            path: Some(Arc::new(line.clone())),
            launch: None,
        };
        let traj = p.to_traj(1, "lead", 0.05);
        let ref_yaw = |x: f64, y: f64| {
            // tangent of the reference at its nearest point
            let (mut best, mut yaw) = (f64::INFINITY, 0.0);
            for w in refpts.windows(2) {
                let d = (w[0].x - x).hypot(w[0].y - y);
                if d < best {
                    best = d;
                    yaw = (w[1].y - w[0].y).atan2(w[1].x - w[0].x);
                }
            }
            yaw
        };
        let (mut worst_pos, mut worst_yaw, mut worst_mid, mut worst_travel) =
            (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for (i, q) in traj.points.iter().enumerate() {
            let (x, y) = (q.x_mm as f64 / 1000.0, q.y_mm as f64 / 1000.0);
            worst_pos = worst_pos.max(reference.lateral(x, y).abs());
            let dy = (cdeg_to_yaw(q.yaw_cdeg) - ref_yaw(x, y) + std::f64::consts::PI)
                .rem_euclid(std::f64::consts::TAU)
                - std::f64::consts::PI;
            worst_yaw = worst_yaw.max(dy.abs().to_degrees());
            if i > 0 {
                let r = &traj.points[i - 1];
                let (xa, ya) = (r.x_mm as f64 / 1000.0, r.y_mm as f64 / 1000.0);
                let mid = reference.lateral(0.5 * (x + xa), 0.5 * (y + ya)).abs();
                worst_mid = worst_mid.max(mid);
                let chord = (x - xa).hypot(y - ya);
                let dtravel = p.motion.travel(q.rel_time_ms as f64 / 1000.0)
                    - p.motion.travel(r.rel_time_ms as f64 / 1000.0);
                worst_travel = worst_travel.max((chord - dtravel).abs());
            }
        }
        eprintln!(
            "lane path TRAJ: {} points, worst |lateral| {:.3} mm, midpoint {:.3} mm, yaw {:.4} deg, travel {:.3} mm",
            traj.points.len(),
            worst_pos * 1e3,
            worst_mid * 1e3,
            worst_yaw,
            worst_travel * 1e3
        );
        assert!(
            worst_pos <= 0.001,
            "TRAJ point {:.3} mm off the lane centre",
            worst_pos * 1e3
        );
        assert!(worst_yaw <= 0.1, "yaw {worst_yaw:.4} deg off the tangent");
        // interpolation: chord error (1 mm rule) + wire rounding
        assert!(
            worst_mid <= 0.0015,
            "midpoint {:.3} mm off",
            worst_mid * 1e3
        );
        // wire times are whole ms: ±0.5 ms at each end of a step at 13.9 m/s
        assert!(
            worst_travel <= 0.003 + v * 0.001,
            "travel between points off by {:.3} mm",
            worst_travel * 1e3
        );
        // curvature on the arc ≈ 1/51.75, ends at the path's end, not 10 m
        let last = traj.points.last().expect("points");
        let (xe, ye, _) = line.pose(line.length());
        assert!((last.x_mm as f64 / 1000.0 - xe).hypot(last.y_mm as f64 / 1000.0 - ye) < 0.002);
        let on_arc = traj
            .points
            .iter()
            .filter(|q| (q.curvature - 1.0 / 51.75).abs() < 2e-4)
            .count();
        assert!(on_arc > 20, "{on_arc} points with the arc's curvature");
        // the follower (linear in time) stays on the lane centre between the points
        let f = TrajFollower::new(&traj).expect("follower");
        let mut worst_f = 0.0f64;
        let mut t = 0.0;
        while t < f.duration_s() {
            let m = f.at(t);
            worst_f = worst_f.max(reference.lateral(m.x, m.y).abs());
            assert!(
                (m.travel_m - p.at(t).travel_m).abs() < 0.01,
                "travel at {t}"
            );
            t += 0.013;
        }
        eprintln!("follower worst |lateral| {:.3} mm", worst_f * 1e3);
        assert!(worst_f <= 0.0015);
        // serde round trip keeps the path, and the JSON of a straight profile has no `path`
        let back: DummyProfile =
            serde_json::from_value(serde_json::to_value(&p).expect("json")).expect("back");
        assert_eq!(
            back.path.as_deref().map(|l| l.points().len()),
            Some(line.points().len())
        );
        let straight = DummyProfile::from_scenario(0.0, 0.0, 0.0, 1.0, 5.0);
        assert!(serde_json::to_value(&straight)
            .expect("json")
            .get("path")
            .is_none());
    }
}
