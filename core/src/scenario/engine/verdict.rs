//! Validity verdicts inside the engine: the window, the per-sample frames, the live
//! causal check and the final verdict (see [`crate::scenario::validity`]).
//!
//! * T0 ([`T0Rule`]): the primary target's VUT TTC reaches `t0_ttc_s` (4 s), interpolated
//!   between samples; for a braking lead vehicle (CCRb) its deceleration onset − 1 s; for
//!   turning scenarios T_steer − 1 s (`t_steer_s` after arm); for car/PTW crossing 0.5 s after
//!   the target's acceleration phase. `auto` (default) is the braking rule when the target
//!   brakes, else TTC.
//! * End: the first of impact, FCW on (`Sample::fcw`), brake light on, or deceleration beyond
//!   `aeb_decel_mps2` (AEB onset, from the acceleration through the phaseless 10 Hz filter:
//!   [`validity::aeb`]); the verdict's `closed_by` names it. Live, each sample is judged
//!   [`aeb::LOOKAHEAD_S`] after it arrived, once the filter knows whether the onset came
//!   before it; the final verdict filters the whole record.
//! * VUT lateral deviation: from the lane-parallel line through the VUT's lane position at T0
//!   (map-matched `t`); without a map, from the straight line through its T0 pose.

use super::{Engine, Event, Output};
use crate::sample::Sample;
use crate::scenario::validity::{
    self, aeb, Frame, Limits, Live, T0Rule, ValiditySpec, Window, WindowEnd,
};
use crate::scenario::{Activation, Scenario};
use crate::twin::RoadState;

pub(crate) struct Tracker {
    spec: ValiditySpec,
    limits: Limits,
    live: Live,
    frames: Vec<Frame>,
    /// Index of the primary target (first that moves).
    target: Option<usize>,
    from_s: Option<f64>,
    to_s: Option<f64>,
    prev_ttc: Option<(f64, f64)>,
    /// Lateral reference: lane t at T0, or the T0 pose.
    lat_ref: Option<LatRef>,
    warnings: Vec<String>,
    /// The T0 rule in effect (`auto` resolved).
    rule: T0Rule,
    closed_by: Option<WindowEnd>,
    /// Arm instant (sample time): T_steer is relative to it.
    armed_s: Option<f64>,
    /// The VUT's control point on its planned path at the previous frame (time, s).
    prev_path_s: Option<(f64, f64)>,
    /// T_steer found on the path (`steer_at_path_s`), as a sample time.
    steer_at_s: Option<f64>,
    /// The live AEB onset (filtered deceleration, with look-ahead).
    onset: aeb::LiveOnset,
    /// The first window end other than the deceleration onset (impact, FCW, brake light).
    other_end: Option<(f64, WindowEnd)>,
    /// Frames not yet judged live (newer than the look-ahead).
    pending: std::collections::VecDeque<Frame>,
}

#[derive(Clone, Copy)]
enum LatRef {
    Lane { road_t: f64 },
    Line { x: f64, y: f64, yaw: f64 },
}

impl Tracker {
    pub(crate) fn new(sc: &Scenario) -> Option<Tracker> {
        let spec = sc.validity.clone()?;
        let target = sc
            .targets
            .iter()
            .position(|t| t.activation != Activation::Static)
            .or(if sc.targets.is_empty() { None } else { Some(0) });
        let t = target.map(|i| &sc.targets[i]);
        let mut warnings = Vec::new();
        if sc.vut.speed_kmh.is_none() && sc.vut.launch.is_none() {
            warnings.push("scenario has no vut.speed_kmh: VUT speed checked against 0".into());
        }
        let limits = Limits {
            vut_nominal_kmh: match &sc.vut.launch {
                // From standstill: no VUT speed tolerance (the low-speed protocol).
                Some(_) => None,
                None => Some(sc.vut.speed_kmh.unwrap_or(0.0)),
            },
            target_nominal_kmh: t.filter(|t| t.speed_kmh > 0.0).map(|t| t.speed_kmh),
            target_kind: t.map(|t| t.kind),
            longitudinal: t.is_some_and(|t| {
                matches!(
                    t.activation,
                    Activation::Begin | Activation::Static | Activation::Headway
                )
            }),
            steer_until_s: None,
        };
        let rule = spec.t0.resolved(t.is_some_and(|t| t.brake.is_some()));
        if rule == T0Rule::Steer && spec.t_steer_s.is_none() && spec.steer_at_path_s.is_none() {
            warnings.push("t0 = \"steer\" without t_steer_s: the window cannot open".into());
        }
        if rule == T0Rule::TargetBrake && t.is_some_and(|t| t.brake.is_none()) {
            warnings.push("t0 = \"target_brake\" but the target does not brake".into());
        }
        Some(Tracker {
            live: Live::new(limits.clone()),
            limits,
            frames: Vec::new(),
            target,
            from_s: None,
            to_s: None,
            prev_ttc: None,
            lat_ref: None,
            warnings,
            rule,
            closed_by: None,
            armed_s: None,
            prev_path_s: None,
            steer_at_s: None,
            onset: aeb::LiveOnset::new(spec.aeb_decel_mps2),
            other_end: None,
            pending: Default::default(),
            spec,
        })
    }
}

impl Tracker {
    /// The run is armed at `now_s`: T_steer (relative to it) becomes a sample time.
    pub(super) fn armed(&mut self, now_s: f64) {
        if self.armed_s.is_some() {
            return;
        }
        self.armed_s = Some(now_s);
        let steer = self.spec.t_steer_s.map(|t| now_s + t);
        self.limits.steer_until_s = steer;
        self.live.set_steer_until(steer);
    }

    /// T0 as a sample time for the rules that know it in advance (`None` for TTC, or while
    /// what it depends on is not known yet).
    fn t0_instant(&self, track: Option<&super::Track>) -> Option<f64> {
        match self.rule {
            T0Rule::Ttc | T0Rule::Auto => None,
            T0Rule::Steer => match self.spec.steer_at_path_s {
                Some(_) => Some(self.steer_at_s? - 1.0),
                None => Some(self.armed_s? + self.spec.t_steer_s? - 1.0),
            },
            T0Rule::TargetBrake => {
                let t = track?;
                Some(t.origin()? + t.spec.brake?.after_s - 1.0)
            }
            T0Rule::TargetAccelEnd => {
                let t = track?;
                Some(t.origin()? + t.profile.t_acc + 0.5)
            }
        }
    }
}

impl Engine {
    /// Builds this VUT sample's validity frame, moves the window, runs the live check.
    pub(super) fn validity_step(&mut self, s: &Sample) {
        let Some(mut tr) = self.proto.validity.take() else {
            return;
        };
        let breaks = self.validity_frame(&mut tr, s);
        let abort = tr.spec.abort_on_invalid && !breaks.is_empty();
        let reason = breaks
            .iter()
            .map(|b| format!("{:?} outside {} ({:+.3})", b.channel, b.limit, b.value))
            .collect::<Vec<_>>()
            .join("; ");
        for b in breaks {
            self.out.push_back(Output::Event(Event::Validity(b)));
        }
        self.proto.validity = Some(tr);
        if abort {
            self.abort(s.time_s, &format!("run invalid: {reason}"));
        }
    }

    fn validity_frame(&self, tr: &mut Tracker, s: &Sample) -> Vec<validity::Break> {
        let Some(v) = self.twin.get(&self.cfg.vut_id) else {
            return Vec::new();
        };
        let now = s.time_s;
        let track = tr.target.and_then(|i| self.tracks.get(i));
        // T_steer as a place on the planned path: the instant the control point passes it.
        if let (Some(at), Some(p)) = (tr.spec.steer_at_path_s, self.vut_path.as_ref()) {
            if tr.steer_at_s.is_none() {
                let s_now = p.s.unwrap_or(f64::NAN);
                if let Some((t0, s0)) = tr.prev_path_s {
                    if s0 < at && s_now >= at && s_now > s0 {
                        let ts = t0 + (at - s0) / (s_now - s0) * (now - t0);
                        tr.steer_at_s = Some(ts);
                        tr.limits.steer_until_s = Some(ts);
                        tr.live.set_steer_until(Some(ts));
                    }
                }
                tr.prev_path_s = Some((now, s_now));
            }
        }
        // Window start.
        if tr.from_s.is_none() {
            match tr.t0_instant(track) {
                Some(t0) if now >= t0 => tr.from_s = Some(t0),
                Some(_) => {}
                None if tr.rule == T0Rule::Ttc => {
                    if let Some(ttc) = track.and_then(|t| t.ttc) {
                        if ttc <= tr.spec.t0_ttc_s {
                            let from = match tr.prev_ttc {
                                Some((t0, c0)) if c0 > tr.spec.t0_ttc_s && c0 != ttc => {
                                    t0 + (c0 - tr.spec.t0_ttc_s) / (c0 - ttc) * (now - t0)
                                }
                                _ => now,
                            };
                            tr.from_s = Some(from);
                        }
                        tr.prev_ttc = Some((now, ttc));
                    }
                }
                None => {}
            }
            if tr.from_s.is_some() {
                tr.lat_ref = Some(match &v.road {
                    RoadState::OnLane(m) => LatRef::Lane { road_t: m.t },
                    _ => LatRef::Line {
                        x: v.x,
                        y: v.y,
                        yaw: v.yaw_rad,
                    },
                });
            }
        }
        // Window end: impact, FCW, brake light (seen at once), deceleration onset (found
        // a look-ahead later, dated back to the onset).
        if tr.from_s.is_some() && tr.other_end.is_none() {
            tr.other_end = if let Some(t) = self.proto.first_impact_s {
                Some((t.min(now), WindowEnd::Impact))
            } else if s.fcw == Some(true) {
                Some((now, WindowEnd::Fcw))
            } else if v.brake_light == Some(true) {
                Some((now, WindowEnd::BrakeLight))
            } else {
                None
            };
        }
        // Once the window has closed, only an onset before its end still matters.
        let open = tr.to_s.is_none_or(|e| tr.onset.decided_to() < e);
        let decel = tr.onset.push(now, v.accel_mps2, tr.from_s.filter(|_| open));
        for (t, by) in tr
            .other_end
            .into_iter()
            .chain(decel.map(|t| (t, WindowEnd::Deceleration)))
        {
            if tr.to_s.is_none_or(|e| t < e) {
                tr.to_s = Some(t);
                tr.closed_by = Some(by);
            }
        }
        let path_lateral = self.vut_path.as_ref().map(|p| {
            let ahead = p.ahead;
            p.line
                .lateral(v.x + ahead * v.yaw_rad.cos(), v.y + ahead * v.yaw_rad.sin())
        });
        let lateral = match tr.lat_ref {
            _ if path_lateral.is_some() && tr.from_s.is_some() => path_lateral,
            Some(LatRef::Lane { road_t }) => match &v.road {
                RoadState::OnLane(m) => Some(m.t - road_t),
                _ => None,
            },
            Some(LatRef::Line { x, y, yaw }) => {
                Some(-(v.x - x) * yaw.sin() + (v.y - y) * yaw.cos())
            }
            None => None,
        };
        let (target_speed, target_lateral) = match track.and_then(|t| Some((t, t.origin()?))) {
            Some((t, o)) => {
                let tau = now - o;
                let past_acc = tau >= t.profile.t_acc;
                let braking = t.spec.brake.is_some_and(|b| tau >= b.after_s);
                let obj = self.twin.get(&t.spec.id);
                let speed = obj.map(|o| o.speed_mps * 3.6);
                let lat = obj.map(|o| match &t.path {
                    Some(line) => line.lateral(o.x, o.y),
                    None => {
                        let (c, sn) = (t.profile.yaw.cos(), t.profile.yaw.sin());
                        -(o.x - t.profile.start_x) * sn + (o.y - t.profile.start_y) * c
                    }
                });
                (speed.filter(|_| past_acc && !braking), lat)
            }
            None => (None, None),
        };
        let frame = Frame {
            time_s: now,
            vut_speed_kmh: v.speed_mps * 3.6,
            vut_lateral_m: lateral,
            yaw_rate_dps: v.yaw_rate_rps.to_degrees(),
            steering_wheel_deg: v.steering_wheel_deg,
            vut_accel_mps2: v.accel_mps2,
            target_speed_kmh: target_speed,
            target_lateral_m: target_lateral,
        };
        tr.frames.push(frame);
        tr.pending.push_back(frame);
        tr.judge_pending(now - aeb::LOOKAHEAD_S)
    }

    /// The final verdict at finish.
    pub(super) fn finish_verdict(&mut self) {
        if let Some(mut tr) = self.proto.validity.take() {
            // The frames still inside the look-ahead are judged live now; the window's end from
            // the whole record's filtered acceleration.
            if let Some(t) = tr.onset.finish(tr.from_s) {
                if tr.to_s.is_none_or(|e| t < e) {
                    tr.to_s = Some(t);
                    tr.closed_by = Some(WindowEnd::Deceleration);
                }
            }
            for b in tr.judge_pending(f64::INFINITY) {
                self.out.push_back(Output::Event(Event::Validity(b)));
            }
            if let Some(from) = tr.from_s {
                let (times, accel): (Vec<f64>, Vec<f64>) = tr
                    .frames
                    .iter()
                    .map(|f| (f.time_s, f.vut_accel_mps2))
                    .unzip();
                let decel = aeb::onset(&times, &accel, from, tr.spec.aeb_decel_mps2);
                let (to, by) = match (tr.other_end, decel) {
                    (Some((t, by)), Some(d)) if t <= d => (Some(t), Some(by)),
                    (_, Some(d)) => (Some(d), Some(WindowEnd::Deceleration)),
                    (Some((t, by)), None) => (Some(t), Some(by)),
                    (None, None) => (None, None),
                };
                tr.to_s = to;
                tr.closed_by = by;
            }
            self.proto.validity = Some(tr);
        }
        self.trace_finish();
        let Some(tr) = self.proto.validity.take() else {
            return;
        };
        let last = tr.frames.last().map(|f| f.time_s);
        let window = match (tr.from_s, tr.to_s.or(last)) {
            (Some(from_s), Some(to_s)) => Some(Window { from_s, to_s }),
            _ => None,
        };
        let mut verdict = validity::assess(&tr.frames, &tr.limits, window);
        if verdict.window.is_some() {
            verdict.closed_by = Some(tr.closed_by.unwrap_or(WindowEnd::EndOfRun));
        }
        // Arrival at the conflict point, when the VUT got there before any intervention.
        if let (Some(tol), Some(i), Some(_)) =
            (tr.spec.conflict_arrival_s, tr.target, verdict.window)
        {
            let unhindered = matches!(
                verdict.closed_by,
                None | Some(WindowEnd::Impact) | Some(WindowEnd::EndOfRun)
            );
            match self.tracks.get(i).and_then(|t| t.arrival_error_s) {
                Some(err) if unhindered => {
                    let ok = err.abs() <= tol;
                    verdict.checks.push(validity::Check {
                        channel: validity::Channel::ConflictArrival,
                        ok,
                        limit: format!("±{tol} s"),
                        worst: err,
                        first_violation_s: None,
                    });
                    verdict.valid &= ok;
                }
                None if unhindered => verdict.warnings.push(
                    "the VUT never reached its conflict point: the target's arrival was not judged"
                        .into(),
                ),
                _ => {}
            }
        }
        // A lead vehicle's headway from T0 until it brakes.
        if let Some(t) = tr.target.and_then(|i| self.tracks.get(i)) {
            if let (Some(h), Some(_)) = (t.spec.headway, verdict.window) {
                match t.headway_seen {
                    Some((lo, hi)) => {
                        let (min, max) = (
                            h.time_s - super::headway::BELOW_ALLOWANCE_S,
                            h.time_s + h.band_s,
                        );
                        let ok = lo >= min - 1e-9 && hi <= max + 1e-9;
                        let worst = if min - lo > hi - max { lo } else { hi };
                        verdict.checks.push(validity::Check {
                            channel: validity::Channel::Headway,
                            ok,
                            limit: format!("{} s [+{}]", h.time_s, h.band_s),
                            worst,
                            first_violation_s: None,
                        });
                        verdict.valid &= ok;
                    }
                    None => verdict.warnings.push(
                        "the lead vehicle's headway before its braking was not seen: not judged"
                            .into(),
                    ),
                }
            }
        }
        if tr.rule != T0Rule::Ttc {
            verdict.t0_rule = Some(tr.rule);
        }
        let mut w = tr.warnings.clone();
        w.append(&mut verdict.warnings);
        verdict.warnings = w;
        self.out.push_back(Output::Event(Event::Verdict(verdict)));
    }
}

impl Tracker {
    /// Judges live the pending frames up to `upto_s` (their place in the window is known).
    fn judge_pending(&mut self, upto_s: f64) -> Vec<validity::Break> {
        let mut out = Vec::new();
        while let Some(f) = self.pending.front().copied() {
            if f.time_s > upto_s + 1e-9 {
                break;
            }
            self.pending.pop_front();
            let in_window = self.from_s.is_some_and(|from| f.time_s >= from)
                && self.to_s.is_none_or(|e| f.time_s <= e);
            out.extend(self.live.step(&f, in_window));
        }
        out
    }
}

/// What the traces ([`super::trace`]) read from the tracker.
impl Tracker {
    pub(super) fn last_frame(&self) -> Option<&Frame> {
        self.frames.last()
    }

    pub(super) fn limits(&self) -> &Limits {
        &self.limits
    }

    pub(super) fn primary(&self) -> Option<usize> {
        self.target
    }

    pub(super) fn t0_ttc_s(&self) -> f64 {
        self.spec.t0_ttc_s
    }

    /// The window's start and end as known so far.
    pub(super) fn bounds(&self) -> (Option<f64>, Option<f64>) {
        (self.from_s, self.to_s)
    }

    /// The window as the final verdict takes it (open end: the last sample).
    pub(super) fn window(&self) -> Option<Window> {
        let last = self.frames.last().map(|f| f.time_s);
        match (self.from_s, self.to_s.or(last)) {
            (Some(from_s), Some(to_s)) => Some(Window { from_s, to_s }),
            _ => None,
        }
    }
}
