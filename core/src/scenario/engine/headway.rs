//! Lead vehicles started by their time headway (`activation = "headway"`: CCRb, CMRb).
//!
//! * Start: the lead waits at its start point (its rear end) until the VUT's front bumper is
//!   `headway · v_VUT` (plus the lead's own run-up distance, if it has one) behind it; the
//!   instant is interpolated between the two samples that bracket it. The lead then drives at
//!   the VUT's speed at that instant (clamped to the target speed tolerance about its nominal
//!   speed), so the headway is established at its nominal value.
//! * Keeping: until it brakes, at every VUT sample the lead's speed is set to the VUT's plus
//!   a correction of the headway error (gain [`GAIN_PER_S`]), within 95 % of the target speed
//!   tolerance; a change is sent as a retime (the equivalent origin of its nominal profile),
//!   as closed-loop synchronisation does.
//! * Judging: the headway (gap / VUT speed) is recorded from T0 (the deceleration onset − 1 s)
//!   to the deceleration onset; the verdict checks it against `time_s` … `time_s + band_s`
//!   (Euro NCAP: 1.0 s [+0.1]) with [`BELOW_ALLOWANCE_S`] below for the measurement.

use super::{Command, Engine, Event, Output, Snap};
use crate::scenario::Activation;

/// Gain of the headway correction: a gap error of 1 m changes the lead's speed by 0.5 m/s.
const GAIN_PER_S: f64 = 0.5;
/// Allowance below the nominal headway (s): the protocol's measurement accuracy (0.03 m,
/// 0.1 km/h) amounts to a few milliseconds of headway; 10 ms covers it at every test speed.
pub(crate) const BELOW_ALLOWANCE_S: f64 = 0.01;

impl Engine {
    /// The start rule and the headway keeping of lead vehicle `i` at VUT snapshot `snap`.
    pub(super) fn step_headway(&mut self, i: usize, snap: &Snap, active: bool) {
        let t = &self.tracks[i];
        let Some(h) = t.spec.headway else { return };
        if t.spec.activation != Activation::Headway {
            return;
        }
        let s_acc = t.profile.s_acc;
        if t.origin().is_none() {
            let Some(prev) = t.prev else { return };
            if !active || snap.v < 0.3 {
                return;
            }
            let f = |e: &Engine, s: &Snap| e.longitudinal_gap(i, s).0 - h.time_s * s.v - s_acc;
            let (f0, f1) = (f(self, &prev), f(self, snap));
            if f1 > 0.0 {
                return;
            }
            let w = if f0 > 0.0 { f0 / (f0 - f1) } else { 1.0 };
            let at = prev.t + w * (snap.t - prev.t);
            let v_at = prev.v + w * (snap.v - prev.v);
            let t = &mut self.tracks[i];
            t.started_s = Some(at);
            if s_acc <= 0.0 {
                let tol = 0.95 * t.spec.kind.speed_tolerance_mps();
                let base = t.profile.v;
                t.profile
                    .set_speed_from(0.0, v_at.clamp(base - tol, base + tol));
            }
            let (target, carrier) = (t.spec.id.clone(), t.spec.carrier.clone());
            self.out.push_back(Output::Command(Command::Start {
                target: target.clone(),
                carrier: carrier.clone(),
                at_s: at,
            }));
            self.out.push_back(Output::Event(Event::TargetStarted {
                target,
                carrier,
                at_s: at,
            }));
            self.state = super::RunState::Running;
            return;
        }
        let Some(origin) = t.origin() else { return };
        let tau = snap.t - origin;
        let brake_at = t.spec.brake.map_or(f64::INFINITY, |b| b.after_s);
        if tau < t.profile.t_acc || tau >= brake_at || snap.v < 0.3 || t.impact.is_some() {
            return;
        }
        let gap = self.longitudinal_gap(i, snap).0;
        let t = &mut self.tracks[i];
        if tau >= brake_at - 1.0 {
            let hw = gap / snap.v;
            t.headway_seen = Some(match t.headway_seen {
                Some((lo, hi)) => (lo.min(hw), hi.max(hw)),
                None => (hw, hw),
            });
        }
        let tol = 0.95 * t.spec.kind.speed_tolerance_mps();
        let base = t.profile.v;
        let want = (snap.v + GAIN_PER_S * (gap - h.time_s * snap.v)).clamp(base - tol, base + tol);
        if (want - t.profile.speed(tau)).abs() < 1e-4 {
            return;
        }
        t.profile.set_speed_from(tau, want);
        // The equivalent origin of the nominal profile, sent as a retime.
        let mut nominal = t.profile;
        nominal.adjust = None;
        let Some(tau_eq) = nominal.time_to_travel(t.profile.travel(tau)) else {
            return;
        };
        let origin_eq = snap.t - tau_eq;
        // Against the origin last sent (see `sync_step`).
        let correction = origin_eq - t.sync_origin_s.unwrap_or(origin);
        if correction.abs() > 1e-4 {
            t.sync_origin_s = Some(origin_eq);
            self.out.push_back(Output::Command(Command::Retime {
                target: t.spec.id.clone(),
                carrier: t.spec.carrier.clone(),
                origin_s: origin_eq,
                correction_s: correction,
            }));
        }
    }
}
