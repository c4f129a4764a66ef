//! The simulated vehicle under test: pure, deterministic, stepped with a fixed `dt`.
//!
//! * Longitudinal: a proportional speed controller (acceleration limited to
//!   `max_accel`/`max_ctrl_decel`) drives the speed towards the set speed.
//! * Lateral: the VUT follows its [`Path`] exactly (arc-length parameterised: position and
//!   yaw from the path); the steering-wheel angle is derived from the path curvature through
//!   the wheelbase and the steering ratio, the yaw rate as v·κ.
//! * AEB: each step the nearest target ahead whose predicted lateral position at the TTC lies in
//!   the VUT's corridor (half width + `margin_m`) gives the TTC (front bumper to target, closing
//!   speed along the VUT's heading; while the VUT accelerates, at its acceleration). When it is
//!   at or below `ttc_s`, braking at `decel_mps2`
//!   starts `delay_ms` later and holds to standstill (the speed controller is overridden).

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::path::Path;
use crate::frame::yaw_to_heading;
use crate::sample::{InsPosition, InsSample};

/// The AEB model (`ttc=1.2,decel=8,delay_ms=150`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AebParams {
    /// Brake when the TTC to the nearest target in the corridor reaches this, s.
    pub ttc_s: f64,
    /// Braking deceleration, m/s².
    pub decel_mps2: f64,
    /// From the decision to full braking, ms.
    pub delay_ms: f64,
    /// Corridor margin beyond the half width, m.
    pub margin_m: f64,
}

impl Default for AebParams {
    fn default() -> Self {
        AebParams {
            ttc_s: 1.2,
            decel_mps2: 8.0,
            delay_ms: 150.0,
            margin_m: 0.2,
        }
    }
}

impl AebParams {
    pub fn validate(&self) -> Result<(), String> {
        let ok = |n: &str, v: f64, lo: f64, hi: f64| {
            if v.is_finite() && (lo..=hi).contains(&v) {
                Ok(())
            } else {
                Err(format!("aeb {n} must be within {lo}..{hi}, got {v}"))
            }
        };
        ok("ttc", self.ttc_s, 0.0, 10.0)?;
        ok("decel", self.decel_mps2, 0.1, 15.0)?;
        ok("delay_ms", self.delay_ms, 0.0, 5000.0)?;
        ok("margin", self.margin_m, 0.0, 5.0)
    }
}

impl FromStr for AebParams {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut a = AebParams::default();
        for (k, v) in crate::run::source::inject::key_values(s).map_err(|e| format!("aeb {e}"))? {
            match k {
                "ttc" | "ttc_s" => a.ttc_s = v,
                "decel" | "decel_mps2" => a.decel_mps2 = v,
                "delay_ms" | "delay" => a.delay_ms = v,
                "margin" | "margin_m" => a.margin_m = v,
                other => {
                    return Err(format!(
                        "unknown aeb key '{other}' (ttc, decel, delay_ms, margin)"
                    ))
                }
            }
        }
        a.validate()?;
        Ok(a)
    }
}

/// The forward collision warning (`ttc=2.0`): it warns when the TTC to the nearest target in
/// the corridor reaches `ttc_s`; the protocol's brake robot then brakes at
/// [`FcwParams::ROBOT_DECEL_MPS2`] from [`FcwParams::ROBOT_DELAY_S`] after the warning.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FcwParams {
    /// Warn when the TTC reaches this, s.
    pub ttc_s: f64,
}

impl Default for FcwParams {
    fn default() -> Self {
        FcwParams { ttc_s: 2.0 }
    }
}

impl FcwParams {
    /// The brake robot of an FCW test: this long after the warning, s …
    pub const ROBOT_DELAY_S: f64 = 1.2;
    /// … it brakes at this deceleration, m/s².
    pub const ROBOT_DECEL_MPS2: f64 = 4.0;

    pub fn validate(&self) -> Result<(), String> {
        if self.ttc_s.is_finite() && (0.0..=10.0).contains(&self.ttc_s) {
            Ok(())
        } else {
            Err(format!("fcw ttc must be within 0..10, got {}", self.ttc_s))
        }
    }
}

impl FromStr for FcwParams {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut f = FcwParams::default();
        for (k, v) in crate::run::source::inject::key_values(s).map_err(|e| format!("fcw {e}"))? {
            match k {
                "ttc" | "ttc_s" => f.ttc_s = v,
                other => return Err(format!("unknown fcw key '{other}' (ttc)")),
            }
        }
        f.validate()?;
        Ok(f)
    }
}

/// The vehicle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VutParams {
    pub set_speed_mps: f64,
    pub kp: f64,
    pub max_accel: f64,
    pub max_ctrl_decel: f64,
    pub width_m: f64,
    pub reference_to_front_m: f64,
    pub wheelbase_m: f64,
    pub steering_ratio: f64,
    /// The path's point (control point) lies this far ahead of the INS reference point, m.
    pub control_ahead_m: f64,
}

/// What the VUT sees of a target (map frame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TargetView {
    pub x: f64,
    pub y: f64,
    pub yaw_rad: f64,
    pub speed_mps: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum AebState {
    Idle,
    /// Decided at `t`; full braking from `t + delay`.
    Decided {
        t: f64,
        ttc_s: f64,
    },
    Braking {
        since: f64,
    },
}

/// The simulated VUT (see the module doc).
#[derive(Debug, Clone)]
pub struct SimVut {
    pub path: Path,
    pub p: VutParams,
    pub aeb: Option<AebParams>,
    /// Time since the start, s.
    pub t: f64,
    /// Arc length on the path, m.
    pub s: f64,
    pub v: f64,
    pub a: f64,
    pub aeb_state: AebState,
    /// When the AEB decided and when braking started, s.
    pub aeb_decided_at: Option<f64>,
    /// The forward collision warning with the brake robot (FCW tests).
    pub fcw: Option<FcwParams>,
    /// When the FCW warned and the TTC then: (t, ttc), s.
    pub fcw_warned: Option<(f64, f64)>,
    /// The VUT reverses along its path: `p` describes it facing its direction of travel (see
    /// `VutSpec::in_travel_direction`); its samples report the body's heading (turned round),
    /// a negative forward speed and the body's longitudinal acceleration.
    pub reverse: bool,
    /// A start from standstill: the VUT stands until its launch is cued, then follows the
    /// launch model exactly (unless the AEB brakes).
    pub launch: Option<SimLaunch>,
    /// Emergency lane keeping (a drifting VUT): steers it back from its lane's edge.
    pub elk: Option<super::elk::SimElk>,
}

/// The launch of a VUT starting from standstill (see [`crate::scenario::LaunchSpec`]).
#[derive(Debug, Clone)]
pub struct SimLaunch {
    pub spec: crate::scenario::LaunchSpec,
    /// Where it stands (arc length).
    pub s0: f64,
    /// When the launch was cued (sample time), once it was.
    pub go_s: Option<f64>,
}

impl SimVut {
    pub fn new(path: Path, p: VutParams, aeb: Option<AebParams>, s0: f64, v0: f64) -> SimVut {
        SimVut {
            path,
            p,
            aeb,
            t: 0.0,
            s: s0,
            v: v0.max(0.0),
            a: 0.0,
            aeb_state: AebState::Idle,
            aeb_decided_at: None,
            fcw: None,
            fcw_warned: None,
            reverse: false,
            launch: None,
            elk: None,
        }
    }

    /// The same vehicle with a forward collision warning and the protocol's brake robot.
    pub fn with_fcw(mut self, fcw: Option<FcwParams>) -> SimVut {
        self.fcw = fcw;
        self
    }

    /// The control point on the path (moved sideways by the lane keeping's correction) and
    /// the heading.
    pub fn pose(&self) -> (f64, f64, f64) {
        let (x, y, yaw) = self.path.pose(self.s);
        match &self.elk {
            Some(e) if e.offset_m != 0.0 || e.rate_mps != 0.0 => {
                let o = e.offset_m;
                let turn = (e.rate_mps / self.v.max(0.1)).atan();
                (x - o * yaw.sin(), y + o * yaw.cos(), yaw + turn)
            }
            _ => (x, y, yaw),
        }
    }

    /// The INS reference point and the heading (the control point moved back along the body).
    pub fn reference_pose(&self) -> (f64, f64, f64) {
        let (x, y, yaw) = self.pose();
        let a = self.p.control_ahead_m;
        (x - a * yaw.cos(), y - a * yaw.sin(), yaw)
    }

    /// The AEB's TTC to the nearest target in the corridor, if any.
    pub fn aeb_ttc(&self, targets: &[TargetView]) -> Option<f64> {
        let margin = self.aeb.map_or(0.2, |a| a.margin_m);
        let (x, y, yaw) = self.reference_pose();
        let (c, s) = (yaw.cos(), yaw.sin());
        let half = 0.5 * self.p.width_m + margin;
        let mut best: Option<f64> = None;
        for t in targets {
            let (dx, dy) = (t.x - x, t.y - y);
            let lon = dx * c + dy * s - self.p.reference_to_front_m;
            let lat = -dx * s + dy * c;
            let (tvx, tvy) = (t.speed_mps * t.yaw_rad.cos(), t.speed_mps * t.yaw_rad.sin());
            let v_lon = tvx * c + tvy * s;
            let v_lat = -tvx * s + tvy * c;
            let closing = self.v - v_lon;
            if lon < 0.0 || closing <= 0.05 {
                continue;
            }
            // Accelerating (a start from standstill): the time to close `lon` at the current
            // acceleration, so that a crossing target is judged where the VUT will really be.
            let ttc = if self.a > 0.05 {
                ((closing * closing + 2.0 * self.a * lon).sqrt() - closing) / self.a
            } else {
                lon / closing
            };
            let lat_then = lat + v_lat * ttc;
            if lat_then.abs() <= half || lat.abs() <= half {
                best = Some(best.map_or(ttc, |b: f64| b.min(ttc)));
            }
        }
        best
    }

    /// Whether the VUT waits for its launch cue (a start from standstill not yet cued).
    pub fn waiting_for_launch(&self) -> bool {
        self.launch.as_ref().is_some_and(|l| l.go_s.is_none())
    }

    /// Advances by `dt` seeing `targets` (their state after the previous step).
    pub fn step(&mut self, dt: f64, targets: &[TargetView]) {
        if let Some(l) = &self.launch {
            if l.go_s.is_none_or(|go| go >= self.t + dt) {
                // Standing until the cue.
                self.t += dt;
                self.a = 0.0;
                return;
            }
        }
        if let Some(aeb) = self.aeb {
            if self.aeb_state == AebState::Idle && self.v > 0.0 {
                if let Some(ttc) = self.aeb_ttc(targets) {
                    if ttc <= aeb.ttc_s {
                        self.aeb_state = AebState::Decided {
                            t: self.t,
                            ttc_s: ttc,
                        };
                        self.aeb_decided_at = Some(self.t);
                    }
                }
            }
            if let AebState::Decided { t, .. } = self.aeb_state {
                if self.t >= t + aeb.delay_ms / 1000.0 - 1e-9 {
                    self.aeb_state = AebState::Braking { since: self.t };
                }
            }
        }
        if let (Some(fcw), None) = (self.fcw, self.fcw_warned) {
            if self.v > 0.0 {
                if let Some(ttc) = self.aeb_ttc(targets) {
                    if ttc <= fcw.ttc_s {
                        self.fcw_warned = Some((self.t, ttc));
                    }
                }
            }
        }
        let mut a = match (self.aeb_state, self.aeb) {
            (AebState::Braking { .. }, Some(aeb)) => -aeb.decel_mps2,
            _ => (self.p.kp * (self.p.set_speed_mps - self.v))
                .clamp(-self.p.max_ctrl_decel, self.p.max_accel),
        };
        if let Some((tw, _)) = self.fcw_warned {
            if self.t >= tw + FcwParams::ROBOT_DELAY_S - 1e-9 {
                a = a.min(-FcwParams::ROBOT_DECEL_MPS2);
            }
        }
        if let Some(l) = &self.launch {
            let go = l.go_s.unwrap_or(self.t);
            let tau = self.t + dt - go;
            if !self.brake_commanded() && l.spec.speed(tau) > self.v - 1e-9 {
                // The launch model, exactly (whatever the step and where the cue fell in it).
                self.s = l.s0 + l.spec.travel(tau);
                (self.v, self.a) = l.spec.speed_accel(tau);
                self.t += dt;
                return;
            }
        }
        let v1 = self.v + a * dt;
        let ds = if v1 < 0.0 {
            // Stops within the step.
            if a < 0.0 {
                self.v * self.v / (-2.0 * a)
            } else {
                0.0
            }
        } else {
            0.5 * (self.v + v1) * dt
        };
        let reference = self.reference_pose();
        if let Some(e) = self.elk.as_mut() {
            e.step(self.t, dt, self.s, self.v, reference);
        }
        self.s += ds;
        self.v = v1.max(0.0);
        self.a = if self.v > 0.0 { a } else { 0.0 };
        self.t += dt;
    }

    /// The VUT as an INS would report it at sample time `time_s` (positions are map metres:
    /// the run's interface block is the identity for local positions unless configured).
    pub fn sample(&self, time_s: f64, vehicle: &str) -> InsSample {
        let (x, y, yaw) = self.reference_pose();
        // The lane keeping's correction turns the VUT too (its lateral acceleration / v²).
        let k = self.path.curvature(self.s)
            + self
                .elk
                .as_ref()
                .map_or(0.0, |e| e.accel_mps2 / self.v.max(0.1).powi(2));
        // Reversing: the road wheels steer the other way for the same curvature of travel.
        let dir = if self.reverse { -1.0 } else { 1.0 };
        let road_wheel = dir * (self.p.wheelbase_m * k).atan();
        let body_yaw = if self.reverse {
            yaw + std::f64::consts::PI
        } else {
            yaw
        };
        InsSample {
            time_s,
            vehicle: vehicle.into(),
            position: InsPosition::Local { x, y },
            heading_deg: yaw_to_heading(body_yaw),
            speed_mps: dir * self.v,
            steering_wheel_deg: Some(road_wheel.to_degrees() * self.p.steering_ratio),
            brake_light: Some(self.a < -0.5 || self.brake_commanded()),
            accel_mps2: Some(dir * self.a),
            yaw_rate_rps: Some(self.v * k),
            wheel_speed_mps: None,
            fcw: self.fcw.map(|_| self.fcw_warned.is_some()),
        }
    }

    /// The AEB or the FCW test's brake robot brakes from now on: the brake light is on from
    /// the sample at which braking begins, before the speed has dropped (the validity window
    /// closes there, not one step into the braking).
    pub fn brake_commanded(&self) -> bool {
        let aeb = match (self.aeb_state, self.aeb) {
            (AebState::Braking { .. }, _) => true,
            (AebState::Decided { t, .. }, Some(aeb)) => self.t >= t + aeb.delay_ms / 1000.0 - 1e-9,
            _ => false,
        };
        let robot = self
            .fcw_warned
            .is_some_and(|(tw, _)| self.t >= tw + FcwParams::ROBOT_DELAY_S - 1e-9);
        aeb || robot
    }

    pub fn is_braking(&self) -> bool {
        matches!(self.aeb_state, AebState::Braking { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vut(aeb: Option<AebParams>) -> SimVut {
        let p = VutParams {
            set_speed_mps: 10.0,
            kp: 1.0,
            max_accel: 2.0,
            max_ctrl_decel: 3.0,
            width_m: 1.855,
            reference_to_front_m: 2.3,
            wheelbase_m: 2.8,
            steering_ratio: 16.0,
            control_ahead_m: 0.0,
        };
        SimVut::new(
            Path::straight(0.0, 0.0, 0.0, 10.0, 1000.0),
            p,
            aeb,
            10.0,
            0.0,
        )
    }

    #[test]
    fn speed_controller_reaches_set_speed() {
        let mut v = vut(None);
        for _ in 0..2000 {
            v.step(0.01, &[]);
        }
        assert!((v.v - 10.0).abs() < 1e-3, "{}", v.v);
        assert!(v.s > 150.0);
    }

    #[test]
    fn aeb_brakes_for_a_target_in_the_corridor_only() {
        let mut v = vut(Some("ttc=1.5,decel=8,delay_ms=100".parse().expect("aeb")));
        v.v = 10.0;
        // A target beside the path (4 m right, standing) is ignored.
        let beside = TargetView {
            x: 40.0,
            y: -4.0,
            yaw_rad: 0.0,
            speed_mps: 0.0,
        };
        for _ in 0..100 {
            v.step(0.01, &[beside]);
        }
        assert_eq!(v.aeb_state, AebState::Idle);
        let ahead = TargetView {
            x: 40.0,
            y: 0.0,
            yaw_rad: 0.0,
            speed_mps: 0.0,
        };
        let mut n = 0;
        while v.v > 0.0 && n < 1000 {
            v.step(0.01, &[ahead]);
            n += 1;
        }
        let (x, _, _) = v.pose();
        assert!(x + 2.3 < 40.0, "stopped short: front at {}", x + 2.3);
        assert!("ttc=x".parse::<AebParams>().is_err());
        assert!("foo=1".parse::<AebParams>().is_err());
    }
}
