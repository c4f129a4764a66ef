//! A real platform's motion for the carrier simulator: what separates a robot or target
//! carrier from a perfect follower of its TRAJ.
//!
//! * **Dead time**: it starts moving this long after its start time.
//! * **Acceleration, deceleration and speed limits**.
//! * **A position controller** along its path, with the plan's acceleration fed forward:
//!   commanded speed = planned speed + gain × (planned travel − own travel), at most the
//!   planned speed plus a catch-up margin and its top speed, never so fast that it cannot
//!   stop at the next stop of its path; an object behind its plan catches up, one ahead
//!   waits.
//! * **Lateral wander**: a slowly varying offset across its path (first-order Gauss–Markov in
//!   travelled distance).
//! * **RTK position error**: a first-order Gauss–Markov process in time per axis (slowly
//!   varying bias) plus white noise. The platform steers by its receiver, so the bias moves
//!   where it truly is and its report follows the path; the white noise is on the report.
//! * **MONR latency**: each MONR is sent this long after the instant it reports (uniform
//!   between two bounds), in order.
//!
//! Deterministic given the seed: the state advances on a fixed grid of [`STEP_S`] and every
//! random number is drawn per grid step from one seeded generator, so the same commands at the
//! same times give the same MONR. [`Dynamics::default`] is the perfect follower (no plant).

use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

use super::profile::MotionState;

/// Integration step of the plant, s.
pub const STEP_S: f64 = 0.002;

/// Half the window over which the plan's speed and acceleration are taken from its timed
/// positions for the feed-forward, s.
pub const FEED_FORWARD_WINDOW_S: f64 = 0.05;

/// An object that stands off the start of a new TRAJ joins its path over this distance
/// driven (the offset decays as exp(−travel / this)), m.
pub const CONVERGE_M: f64 = 5.0;

/// How a simulated object differs from a perfect follower (see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct Dynamics {
    /// From the start time to the first motion, s.
    pub dead_time_s: f64,
    /// m/s² (∞: none).
    pub max_accel_mps2: f64,
    /// m/s², positive (∞: none).
    pub max_decel_mps2: f64,
    /// m/s (∞: none).
    pub max_speed_mps: f64,
    /// Largest speed above the planned one while catching up, m/s.
    pub catchup_mps: f64,
    /// Position controller gain, 1/s.
    pub position_gain: f64,
    /// Speed controller gain (how fast it reaches the commanded speed within its limits), 1/s.
    pub speed_gain: f64,
    /// Standard deviation of the lateral wander, m.
    pub wander_m: f64,
    /// Its correlation length along the path, m.
    pub wander_length_m: f64,
    /// Standard deviation of the slowly varying RTK error per axis, m.
    pub rtk_bias_m: f64,
    /// Its correlation time, s.
    pub rtk_tau_s: f64,
    /// White noise of the reported position per axis, m.
    pub rtk_noise_m: f64,
    /// MONR latency bounds, s (each MONR uniformly between them).
    pub monr_latency_s: (f64, f64),
    pub seed: u64,
}

impl Default for Dynamics {
    fn default() -> Self {
        Dynamics {
            dead_time_s: 0.0,
            max_accel_mps2: f64::INFINITY,
            max_decel_mps2: f64::INFINITY,
            max_speed_mps: f64::INFINITY,
            catchup_mps: f64::INFINITY,
            position_gain: 1.0,
            speed_gain: 10.0,
            wander_m: 0.0,
            wander_length_m: 10.0,
            rtk_bias_m: 0.0,
            rtk_tau_s: 30.0,
            rtk_noise_m: 0.0,
            monr_latency_s: (0.0, 0.0),
            seed: 1,
        }
    }
}

impl Dynamics {
    /// A real platform of `kind` with its default capabilities
    /// ([`crate::capabilities::ObjectCapabilities::default_for`]): their dead time,
    /// acceleration, deceleration and top speed, a position controller of gain 0.5/s (it
    /// makes up half a metre of lag per second per metre) with the plan's acceleration fed
    /// forward, catching up at up to 10 km/h above plan, wandering across its path (1.5 cm
    /// standard deviation for a target platform, 1 cm for a driving robot: peaks of a few
    /// cm), RTK error of 1 cm standard deviation varying
    /// over 30 s (95 % within 2 cm) plus 1 mm white noise (the INS blends its GNSS fixes
    /// with its inertial sensors: its error drifts, it hardly jumps from one output to the
    /// next), MONR 20–40 ms late.
    pub fn realistic(kind: crate::capabilities::ObjectKind) -> Self {
        let c = crate::capabilities::ObjectCapabilities::default_for(kind);
        Dynamics {
            dead_time_s: c.dead_time_s,
            max_accel_mps2: c.max_accel_mps2,
            max_decel_mps2: c.max_decel_mps2,
            max_speed_mps: c.max_speed_mps,
            catchup_mps: 10.0 / 3.6,
            position_gain: 0.5,
            speed_gain: 10.0,
            // Driving robots publish a path-following accuracy of ±2 cm; target platforms
            // wander a little more.
            wander_m: if kind == crate::capabilities::ObjectKind::VutRobot {
                0.010
            } else {
                0.015
            },
            wander_length_m: 10.0,
            rtk_bias_m: 0.01,
            rtk_tau_s: 30.0,
            rtk_noise_m: 0.001,
            monr_latency_s: (0.020, 0.040),
            seed: 1,
        }
    }

    /// Its motion is the perfect follower's (no dead time, limits or wander): the exact
    /// TRAJ interpolation is used, not the plant.
    pub fn motion_is_perfect(&self) -> bool {
        self.dead_time_s == 0.0
            && self.max_accel_mps2.is_infinite()
            && self.max_decel_mps2.is_infinite()
            && self.max_speed_mps.is_infinite()
            && self.wander_m == 0.0
    }

    pub fn validate(&self) -> Result<(), String> {
        let pos = |v: f64| v > 0.0 && !v.is_nan();
        let nonneg = |v: f64| v.is_finite() && v >= 0.0;
        if !(nonneg(self.dead_time_s)
            && pos(self.max_accel_mps2)
            && pos(self.max_decel_mps2)
            && pos(self.max_speed_mps)
            && pos(self.catchup_mps)
            && pos(self.position_gain)
            && pos(self.speed_gain)
            && nonneg(self.wander_m)
            && pos(self.wander_length_m)
            && nonneg(self.rtk_bias_m)
            && pos(self.rtk_tau_s)
            && nonneg(self.rtk_noise_m)
            && nonneg(self.monr_latency_s.0)
            && self.monr_latency_s.1 >= self.monr_latency_s.0
            && self.monr_latency_s.1 < 5.0)
        {
            return Err(format!("dynamics out of range: {self:?}"));
        }
        Ok(())
    }
}

/// The path and schedule an object tracks, sampled: time from its start, travel along the
/// path, pose, signed planned speed.
#[derive(Debug, Clone)]
pub struct Reference {
    t: Vec<f64>,
    s: Vec<f64>,
    x: Vec<f64>,
    y: Vec<f64>,
    yaw: Vec<f64>,
    v: Vec<f64>,
    /// Travel at each place where the plan stands or turns its direction round.
    stops: Vec<f64>,
}

impl Reference {
    /// From states sampled in time (non-decreasing times, travel non-decreasing).
    pub fn from_states(samples: &[(f64, MotionState)]) -> Option<Self> {
        if samples.is_empty() {
            return None;
        }
        let mut r = Reference {
            t: Vec::with_capacity(samples.len()),
            s: Vec::with_capacity(samples.len()),
            x: Vec::with_capacity(samples.len()),
            y: Vec::with_capacity(samples.len()),
            yaw: Vec::with_capacity(samples.len()),
            v: Vec::with_capacity(samples.len()),
            stops: Vec::new(),
        };
        let mut s_max = 0.0f64;
        for (t, m) in samples {
            s_max = s_max.max(m.travel_m);
            r.t.push(*t);
            r.s.push(s_max);
            r.x.push(m.x);
            r.y.push(m.y);
            r.yaw.push(m.yaw_rad);
            r.v.push(m.speed_mps);
        }
        // Stops: the plan's speed reaches zero or changes sign after it has moved.
        for i in 1..r.v.len() {
            let (a, b) = (r.v[i - 1], r.v[i]);
            if (a != 0.0 && b == 0.0) || a * b < 0.0 {
                let s = r.s[i];
                if r.stops.last().is_none_or(|&l| s > l + 1e-6) {
                    r.stops.push(s);
                }
            }
        }
        let end = *r.s.last().unwrap_or(&0.0);
        if r.stops.last().is_none_or(|&l| end > l + 1e-6) {
            r.stops.push(end);
        }
        Some(r)
    }

    pub fn duration_s(&self) -> f64 {
        *self.t.last().unwrap_or(&0.0)
    }

    pub fn length_m(&self) -> f64 {
        *self.s.last().unwrap_or(&0.0)
    }

    /// Planned travel and speed (|v|) at `tau` s after the start.
    fn planned(&self, tau: f64) -> (f64, f64) {
        let n = self.t.len();
        if tau <= self.t[0] {
            return (self.s[0], 0.0);
        }
        if tau >= self.t[n - 1] {
            return (self.s[n - 1], 0.0);
        }
        let i = self.t.partition_point(|&t| t <= tau);
        let (a, b) = (i - 1, i);
        let f = if self.t[b] > self.t[a] {
            (tau - self.t[a]) / (self.t[b] - self.t[a])
        } else {
            0.0
        };
        (
            self.s[a] + f * (self.s[b] - self.s[a]),
            (self.v[a] + f * (self.v[b] - self.v[a])).abs(),
        )
    }

    /// Pose at travel `s` and the direction of motion there (+1 forwards, −1 reversing).
    fn pose(&self, s: f64) -> (f64, f64, f64, f64) {
        let n = self.s.len();
        let i = self.s.partition_point(|&q| q <= s).clamp(1, n.max(2) - 1);
        if n == 1 {
            return (self.x[0], self.y[0], self.yaw[0], 1.0);
        }
        let (a, b) = (i - 1, i);
        let ds = self.s[b] - self.s[a];
        let f = if ds > 0.0 {
            ((s - self.s[a]) / ds).clamp(0.0, 1.0)
        } else {
            1.0
        };
        let dyaw = crate::frame::wrap_pi(self.yaw[b] - self.yaw[a]);
        // The direction of the piece: the sign of the planned speed there (or of the
        // displacement against the heading when the plan stands).
        let v = if self.v[b] != 0.0 {
            self.v[b]
        } else {
            self.v[a]
        };
        let dir = if v < 0.0 { -1.0 } else { 1.0 };
        (
            self.x[a] + f * (self.x[b] - self.x[a]),
            self.y[a] + f * (self.y[b] - self.y[a]),
            self.yaw[a] + f * dyaw,
            dir,
        )
    }

    /// The next place the plan stops at or after `s`.
    fn next_stop(&self, s: f64) -> f64 {
        let i = self.stops.partition_point(|&q| q < s - 1e-6);
        self.stops
            .get(i)
            .copied()
            .unwrap_or_else(|| self.length_m())
    }
}

/// What the plant does now.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    /// Standing (before its start, or after its stop).
    Stand,
    /// Tracking its reference, which started at this time.
    Track { t0: f64 },
    /// Braking to a stop at its deceleration (abort, stop).
    Brake,
}

/// The simulated platform: its state along its reference and the random processes.
#[derive(Debug, Clone)]
pub struct Plant {
    pub dynamics: Dynamics,
    reference: Reference,
    mode: Mode,
    /// Time of the state, s (on the grid of [`STEP_S`] once advanced).
    t: f64,
    s: f64,
    v: f64,
    a: f64,
    lateral: f64,
    /// Where it stood against the start of its reference when that was given (x, y, yaw):
    /// it steers onto its path over the first metres it drives ([`CONVERGE_M`]).
    offset: (f64, f64, f64),
    rtk: (f64, f64),
    rng: StdRng,
}

impl Plant {
    pub fn new(dynamics: Dynamics, reference: Reference, now: f64) -> Self {
        let mut rng = StdRng::seed_from_u64(dynamics.seed);
        let n = |rng: &mut StdRng| -> f64 { StandardNormal.sample(rng) };
        let rtk = (
            dynamics.rtk_bias_m * n(&mut rng),
            dynamics.rtk_bias_m * n(&mut rng),
        );
        let lateral = dynamics.wander_m * n(&mut rng);
        Plant {
            dynamics,
            reference,
            mode: Mode::Stand,
            t: now,
            s: 0.0,
            v: 0.0,
            a: 0.0,
            lateral,
            offset: (0.0, 0.0, 0.0),
            rtk,
            rng,
        }
    }

    /// A new reference (a TRAJ upload): the object stands at its start; the random state is
    /// kept.
    pub fn set_reference(&mut self, reference: Reference, now: f64) {
        self.advance(now);
        // It stays where it stands: a reference that starts elsewhere is joined as it drives.
        // Its wander and RTK error stay on top of its pose as before (they are not part of
        // the offset, which would count them twice).
        let (hx, hy, hyaw) = self.base_pose(self.s);
        let (x0, y0, yaw0, _) = reference.pose(0.0);
        self.offset = (hx - x0, hy - y0, crate::frame::wrap_pi(hyaw - yaw0));
        self.reference = reference;
        self.mode = Mode::Stand;
        self.s = 0.0;
        self.v = 0.0;
        self.a = 0.0;
    }

    /// Starts tracking the reference from trajectory time 0 at `t0` (a STRT; also a retime).
    pub fn start(&mut self, now: f64, t0: f64) {
        self.advance(now);
        self.mode = Mode::Track { t0 };
    }

    /// Brakes to a stop at its deceleration from now on.
    pub fn brake(&mut self, now: f64) {
        self.advance(now);
        if self.mode != Mode::Stand {
            self.mode = Mode::Brake;
        }
    }

    /// Tracking and done: the plan is over and the object stands at its end (or has given
    /// up 10 s after the plan's end).
    pub fn finished(&self) -> bool {
        match self.mode {
            Mode::Track { t0 } => {
                let over = self.t - t0 - self.reference.duration_s();
                over >= 0.0
                    && ((self.v < 0.05 && self.reference.length_m() - self.s < 0.02) || over > 10.0)
            }
            _ => false,
        }
    }

    /// Advances the state on the step grid up to `now`.
    pub fn advance(&mut self, now: f64) {
        // Standing through a long gap (no heartbeat, between runs): the RTK process in one
        // exact step, not step by step.
        let steps = ((now + 1e-12 - self.t) / STEP_S).floor();
        if self.mode == Mode::Stand && self.v == 0.0 && steps > 100.0 {
            let gap = steps * STEP_S;
            let d = &self.dynamics;
            if d.rtk_bias_m > 0.0 {
                let rho = (-gap / d.rtk_tau_s).exp();
                let k = d.rtk_bias_m * (1.0 - rho * rho).sqrt();
                let (wx, wy) = (self.normal(), self.normal());
                self.rtk = (rho * self.rtk.0 + k * wx, rho * self.rtk.1 + k * wy);
            }
            self.a = 0.0;
            self.t += gap;
        }
        while self.t + STEP_S <= now + 1e-12 {
            self.step(STEP_S);
        }
    }

    fn normal(&mut self) -> f64 {
        StandardNormal.sample(&mut self.rng)
    }

    fn step(&mut self, dt: f64) {
        let d = self.dynamics.clone();
        let mut tracking = false;
        // The plan's own acceleration, fed forward as a trajectory controller does: without it
        // the speed loop trails an accelerating plan by a_plan / speed_gain.
        let mut a_plan = 0.0;
        let v_cmd = match self.mode {
            Mode::Stand | Mode::Brake => 0.0,
            Mode::Track { t0 } => {
                let tau = self.t + dt - t0;
                if tau < d.dead_time_s {
                    0.0
                } else {
                    tracking = true;
                    // The position error at the state's own time (the step's start): against
                    // the plan at the step's end it reads a step's travel behind and holds the
                    // object that far ahead.
                    let s_ref = self.reference.planned(tau - dt).0;
                    // The planned speed and acceleration from the planned positions over a
                    // window around the step, as a trajectory controller takes them. A TRAJ's
                    // speeds come in whole cm/s: their step-to-step slope swings between about
                    // 1 and 2 m/s² on a 1.35 m/s² launch, which an acceleration limit just
                    // above the plan's clips into a lasting deficit (a robot 3 cm, 10 ms,
                    // behind its launch).
                    let w = FEED_FORWARD_WINDOW_S;
                    let s_at = |t: f64| self.reference.planned(t).0;
                    let v_ref = ((s_at(tau + w) - s_at(tau - w)) / (2.0 * w)).max(0.0);
                    a_plan = (s_at(tau + 2.0 * w) - 2.0 * s_at(tau) + s_at(tau - 2.0 * w))
                        / (4.0 * w * w);
                    let want = v_ref + d.position_gain * (s_ref - self.s);
                    want.min(v_ref + d.catchup_mps)
                        .min(d.max_speed_mps)
                        .max(0.0)
                }
            }
        };
        let perfect_speed = d.max_accel_mps2.is_infinite() && d.max_decel_mps2.is_infinite();
        let a = if perfect_speed {
            (v_cmd - self.v) / dt
        } else if self.mode == Mode::Brake {
            -d.max_decel_mps2.min(self.v / dt)
        } else {
            let a_track = (a_plan + d.speed_gain * (v_cmd - self.v))
                .clamp(-d.max_decel_mps2, d.max_accel_mps2);
            // Never past the plan's next stop: once stopping there takes nearly all of its
            // deceleration, it brakes for it (at a constant rate that ends there).
            let to_stop = self.reference.next_stop(self.s) - self.s;
            let a_stop = if to_stop > 1e-4 {
                -self.v * self.v / (2.0 * to_stop)
            } else if self.v > 0.0 {
                f64::NEG_INFINITY
            } else {
                0.0
            };
            if tracking && -a_stop >= 0.98 * d.max_decel_mps2 {
                a_track.min(a_stop.max(-d.max_decel_mps2))
            } else {
                a_track
            }
        };
        let v = (self.v + a * dt).max(0.0);
        let ds = 0.5 * (self.v + v) * dt;
        self.s = (self.s + ds).min(self.reference.length_m());
        self.a = if v == 0.0 && self.v == 0.0 { 0.0 } else { a };
        self.v = v;
        if self.mode == Mode::Brake && self.v == 0.0 {
            self.mode = Mode::Stand;
        }
        // Wander evolves with the distance driven, the RTK error with time.
        if ds > 0.0 && d.wander_m > 0.0 {
            let rho = (-ds / d.wander_length_m).exp();
            let w = self.normal();
            self.lateral = rho * self.lateral + d.wander_m * (1.0 - rho * rho).sqrt() * w;
        }
        if d.rtk_bias_m > 0.0 {
            let rho = (-dt / d.rtk_tau_s).exp();
            let k = d.rtk_bias_m * (1.0 - rho * rho).sqrt();
            let (wx, wy) = (self.normal(), self.normal());
            self.rtk = (rho * self.rtk.0 + k * wx, rho * self.rtk.1 + k * wy);
        }
        self.t += dt;
    }

    /// Where it truly is: pose on its path plus its wander, less the slow part of its RTK
    /// error (it steers by what its receiver measures, so that part moves the platform, not
    /// its report), speed signed by the direction of motion. What it reports is this plus
    /// [`Plant::rtk_error`]: its path and wander plus the receiver's white noise.
    pub fn state(&self) -> MotionState {
        let dir = self.reference.pose(self.s).3;
        let (x, y, yaw) = self.base_pose(self.s);
        let (xl, yl) = (
            x - self.lateral * yaw.sin() - self.rtk.0,
            y + self.lateral * yaw.cos() - self.rtk.1,
        );
        MotionState {
            x: xl,
            y: yl,
            yaw_rad: crate::frame::wrap_pi(yaw),
            speed_mps: dir * self.v,
            accel_mps2: dir * self.a,
            travel_m: self.s,
        }
    }

    /// Its pose at travel `s` without its wander and RTK error: on its reference, plus what is
    /// left of the offset it started from.
    fn base_pose(&self, s: f64) -> (f64, f64, f64) {
        let (x, y, yaw, _) = self.reference.pose(s);
        let k = (-s / CONVERGE_M).exp();
        (
            x + k * self.offset.0,
            y + k * self.offset.1,
            yaw + k * self.offset.2,
        )
    }

    /// The RTK error of the position it reports now (slow process plus a fresh white-noise
    /// draw), m.
    pub fn rtk_error(&mut self) -> (f64, f64) {
        let sd = self.dynamics.rtk_noise_m;
        if sd == 0.0 {
            return self.rtk;
        }
        let (wx, wy) = (self.normal(), self.normal());
        (self.rtk.0 + sd * wx, self.rtk.1 + sd * wy)
    }

    /// A MONR latency drawn from its bounds, s.
    pub fn latency(&mut self) -> f64 {
        let (lo, hi) = self.dynamics.monr_latency_s;
        if hi <= lo {
            return lo;
        }
        let u: f64 = rand::Rng::gen(&mut self.rng);
        lo + u * (hi - lo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A straight plan: rest, 2 m/s² to 10 m/s, hold to 175 m.
    fn straight() -> Reference {
        let mut v = Vec::new();
        let mut t = 0.0;
        while t <= 20.0 {
            let (s, sp) = if t < 5.0 {
                (t * t, 2.0 * t)
            } else {
                (25.0 + 10.0 * (t - 5.0), 10.0)
            };
            v.push((
                t,
                MotionState {
                    x: s,
                    y: 0.0,
                    yaw_rad: 0.0,
                    speed_mps: sp,
                    accel_mps2: 0.0,
                    travel_m: s,
                },
            ));
            t += 0.01;
        }
        Reference::from_states(&v).expect("reference")
    }

    #[test]
    fn a_late_slow_object_falls_behind_then_catches_up_within_its_limits() {
        let d = Dynamics {
            dead_time_s: 0.2,
            max_accel_mps2: 1.5,
            max_decel_mps2: 4.0,
            catchup_mps: 2.0,
            ..Dynamics::default()
        };
        let mut p = Plant::new(d, straight(), 0.0);
        p.start(0.0, 0.0);
        let (mut worst_lag, mut first_move, mut top) = (0.0f64, None, 0.0f64);
        let mut t = 0.0;
        while t < 16.0 {
            t += 0.01;
            p.advance(t);
            let m = p.state();
            if first_move.is_none() && m.speed_mps > 0.0 {
                first_move = Some(t);
            }
            let (s_ref, _) = p.reference.planned(t);
            worst_lag = worst_lag.max(s_ref - m.travel_m);
            top = top.max(m.speed_mps);
            assert!(m.accel_mps2 <= 1.5 + 1e-9, "{}", m.accel_mps2);
        }
        let first = first_move.expect("moves");
        assert!((first - 0.2).abs() < 0.015, "first motion at {first}");
        assert!(
            worst_lag > 3.0,
            "a 1.5 m/s² object falls behind: {worst_lag}"
        );
        assert!(top <= 12.0 + 1e-9 && top > 10.5, "catch-up speed {top}");
        // 10 m behind once at speed, 2 m/s faster than planned: caught up about 6 s later.
        let (s_ref, _) = p.reference.planned(16.0);
        let left = s_ref - p.state().travel_m;
        assert!(
            left.abs() < 0.1,
            "16 s after the start still {left} m behind"
        );
    }

    /// How far (m) an object of `kind` without noise strays from a launch at `a` m/s² to `vm`
    /// m/s and on at it, sent as a TRAJ (speeds in whole cm/s, positions in mm, a heading off
    /// the axes), seen from its reports every 50 ms as the control centre measures lag.
    fn worst_off_a_traj_launch(kind: crate::capabilities::ObjectKind, a: f64, vm: f64) -> f64 {
        let d = Dynamics {
            wander_m: 0.0,
            rtk_bias_m: 0.0,
            rtk_noise_m: 0.0,
            ..Dynamics::realistic(kind)
        };
        let (t_go, yaw, t_acc) = (2.0, 0.65f64, vm / a);
        let pts: Vec<_> = (0..2000)
            .map(|k| {
                let t = k as f64 * 0.01;
                let tau = (t - t_go).max(0.0);
                let (s, v) = if tau < t_acc {
                    (0.5 * a * tau * tau, a * tau)
                } else {
                    (0.5 * a * t_acc * t_acc + vm * (tau - t_acc), vm)
                };
                crate::dispatch::ground::TrackPoint {
                    t,
                    x: 100.0 + s * yaw.cos(),
                    y: -50.0 + s * yaw.sin(),
                    yaw,
                    v,
                    a: if tau > 0.0 && tau < t_acc { a } else { 0.0 },
                    curvature: 0.0,
                }
            })
            .collect();
        let track = crate::dispatch::ground::PlannedTrack::new(pts).expect("track");
        let follower = crate::dispatch::profile::TrajFollower::new(&track.to_traj(1, "object"))
            .expect("follower");
        let r = Reference::from_states(&follower.states()).expect("reference");
        let mut p = Plant::new(d, r, 0.0);
        p.start(0.0, 0.0);
        let mut worst = 0.0f64;
        // Reports at instants off the plant's step grid, as a real MONR timer's are.
        for k in 1..=370 {
            let t = k as f64 * 0.05 + 0.0007;
            p.advance(t);
            let m = p.state();
            if let Some((_, lag_s)) = track.schedule_lags(&[(t, m.x, m.y)]).first() {
                worst = worst.max((lag_s * m.speed_mps).abs());
            }
        }
        worst
    }

    /// Launches planned within their objects' acceleration are kept to within about a cm,
    /// through the launch and at speed. (Differentiating the whole-cm/s speeds step by step,
    /// a robot fell 3 cm, 10 ms, behind its launch and a car target behind its own.)
    #[test]
    fn objects_keep_to_a_traj_launch_planned_within_their_acceleration() {
        use crate::capabilities::ObjectKind;
        let robot = worst_off_a_traj_launch(ObjectKind::VutRobot, 0.9 * 1.5, 20.0 / 3.6);
        assert!(robot < 0.012, "robot {robot} m off its plan");
        let car = worst_off_a_traj_launch(ObjectKind::VehiclePlatform, 2.32, 40.0 / 3.6);
        assert!(car < 0.012, "car target {car} m off its plan");
    }

    /// A new TRAJ from where the object stands: what it reports does not move (its wander and
    /// RTK error are on top of its pose, not part of the offset it joins its path from).
    #[test]
    fn a_new_reference_from_where_it_stands_does_not_move_its_report() {
        let d = Dynamics {
            wander_m: 0.015,
            rtk_bias_m: 0.01,
            rtk_noise_m: 0.0,
            ..Dynamics::realistic(crate::capabilities::ObjectKind::VehiclePlatform)
        };
        for seed in 1..20 {
            let mut p = Plant::new(Dynamics { seed, ..d.clone() }, straight(), 0.0);
            p.advance(1.0);
            let before = p.state();
            p.set_reference(straight(), 1.0);
            let after = p.state();
            let moved = (after.x - before.x).hypot(after.y - before.y);
            assert!(moved < 1e-9, "seed {seed}: the report moved {moved} m");
        }
    }

    #[test]
    fn same_seed_same_noise_and_the_defaults_are_perfect() {
        let d = Dynamics {
            wander_m: 0.03,
            rtk_bias_m: 0.02,
            rtk_noise_m: 0.005,
            ..Dynamics::default()
        };
        let run = |seed: u64| {
            let mut p = Plant::new(Dynamics { seed, ..d.clone() }, straight(), 0.0);
            p.start(0.0, 0.0);
            (1..500)
                .map(|k| {
                    p.advance(k as f64 * 0.02);
                    let e = p.rtk_error();
                    let m = p.state();
                    (m.y, e)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        let worst = run(7).iter().map(|(y, _)| y.abs()).fold(0.0, f64::max);
        assert!(worst > 0.005 && worst < 0.15, "wander {worst}");
        assert!(Dynamics::default().motion_is_perfect());
        // The perfect plant tracks the plan exactly.
        let mut p = Plant::new(Dynamics::default(), straight(), 0.0);
        p.start(0.0, 0.0);
        p.advance(7.0);
        assert!(
            (p.state().travel_m - 45.0).abs() < 0.05,
            "{}",
            p.state().travel_m
        );
    }

    #[test]
    fn it_brakes_at_its_deceleration() {
        let d = Dynamics {
            max_accel_mps2: 3.0,
            max_decel_mps2: 5.0,
            ..Dynamics::default()
        };
        let mut p = Plant::new(d, straight(), 0.0);
        p.start(0.0, 0.0);
        p.advance(6.0);
        let v0 = p.state().speed_mps;
        p.brake(6.0);
        p.advance(6.5);
        let v1 = p.state().speed_mps;
        assert!(((v0 - v1) / 0.5 - 5.0).abs() < 0.1, "{v0} -> {v1}");
        p.advance(10.0);
        assert_eq!(p.state().speed_mps, 0.0);
    }
}
