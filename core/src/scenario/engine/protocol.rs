//! Euro NCAP protocol additions to the engine: targets started at scenario begin,
//! static targets, longitudinal/rear impacts, and closed-loop synchronisation of crossing
//! targets.
//!
//! These produce [`ProtocolEvent`]s on their own queue ([`Engine::poll_protocol`]) so that the
//! existing [`super::Event`] stream stays as it is; commands go through the ordinary queue
//! (`Command::Start` for a begin-activated target, `Command::Retime` for synchronisation, which
//! dispatch maps to ISO 22133 MTSP exactly like the trigger's retime).
//!
//! # Synchronisation
//! After a crossing target's start, at every VUT sample the engine predicts when the VUT front
//! reaches the target's path line (`gap / v`), and sets the target's remaining speed so that
//! it covers exactly its remaining nominal travel by then (for a conflict target, moved by
//! where the VUT's path line actually crosses its own: see [`Engine::crossing_shift`]),
//! clamped to the Euro NCAP speed
//! tolerance (pedestrian ±0.2, cyclist ±0.5, car ±1.0 km/h). During the acceleration phase,
//! where the protocol has no speed tolerance, the profile origin is shifted instead. The
//! equivalent profile origin (the instant at which the nominal profile would be at the
//! adjusted travel now) is sent as `Command::Retime`, i.e. an MTSP time shift. Within
//! [`SYNC_HORIZON_S`] of the predicted contact the speed is left as it is.

use super::{path_gap, Command, Engine, Event, ImpactRecord, Output, Snap};
use crate::scenario::{Activation, Point, Scenario, TargetKind};

/// No synchronisation this close to the predicted contact (s): a speed asked for over a
/// shorter time would divide the rounding of the remaining distances by almost nothing (a
/// contact that falls just after a sample would set the target's speed at random within its
/// tolerance), and no carrier changes its speed that fast.
pub const SYNC_HORIZON_S: f64 = 0.01;

/// The most a conflict target's meeting point is moved for the VUT's offset from its path, m
/// (a VUT further off its path fails its own lateral check anyway).
pub const MAX_CROSSING_SHIFT_M: f64 = 0.3;

pub(super) struct State {
    pub(super) sync: bool,
    pub(super) first_impact_s: Option<f64>,
    pub(super) validity: Option<super::verdict::Tracker>,
    /// Per-sample traces, when asked for.
    pub(super) traces: Option<super::trace::Recorder>,
}

impl State {
    pub(super) fn new(sc: &Scenario, cfg_sync: bool) -> State {
        State {
            sync: cfg_sync || sc.sync,
            first_impact_s: None,
            validity: super::verdict::Tracker::new(sc),
            traces: None,
        }
    }

    pub(super) fn impact_at(&mut self, t: f64) {
        if self.first_impact_s.is_none_or(|f| t < f) {
            self.first_impact_s = Some(t);
        }
    }
}

fn half_width(kind: TargetKind) -> f64 {
    match kind {
        TargetKind::Pedestrian => 0.25,
        TargetKind::Cyclist => 0.35,
        TargetKind::Vehicle => 0.9,
        TargetKind::Motorcycle => 0.4,
    }
}

impl Engine {
    /// Whether closed-loop synchronisation is on for this run.
    pub fn sync_enabled(&self) -> bool {
        self.proto.sync
    }

    pub(super) fn start_begin_targets(&mut self, now_s: f64) {
        let at_arm: Vec<bool> = self
            .tracks
            .iter()
            .map(|t| self.starts_at_arm(&t.spec))
            .collect();
        for (t, at_arm) in self.tracks.iter_mut().zip(at_arm) {
            if (t.spec.activation == Activation::Begin || at_arm) && t.started_s.is_none() {
                // Its start command goes out now; with a lead its motion begins that much
                // later (its trajectory stands first), and so does its profile here.
                let at_s = now_s + self.cfg.start_lead_s(&t.spec.id);
                t.started_s = Some(at_s);
                self.out.push_back(Output::Command(Command::Start {
                    target: t.spec.id.clone(),
                    carrier: t.spec.carrier.clone(),
                    at_s,
                }));
                self.out.push_back(Output::Event(Event::TargetStarted {
                    target: t.spec.id.clone(),
                    carrier: t.spec.carrier.clone(),
                    at_s,
                }));
            }
        }
        if self.tracks.iter().any(|t| t.started_s.is_some()) {
            self.state = super::RunState::Running;
        }
    }

    /// Gap (along the VUT heading, front bumper to the target's rear) and lateral offset
    /// (target left of the VUT centreline positive) at snapshot `s`.
    pub(super) fn longitudinal_gap(&self, i: usize, s: &Snap) -> (f64, f64, (f64, f64), f64) {
        let t = &self.tracks[i];
        let tau = t.origin().map_or(0.0, |o| s.t - o);
        let (px, py, pyaw) = t.pose(tau);
        let (c, sn) = (s.yaw.cos(), s.yaw.sin());
        let fx = s.x + self.vut.reference_to_front_m * c;
        let fy = s.y + self.vut.reference_to_front_m * sn;
        let (dx, dy) = (px - fx, py - fy);
        let closing = s.v - t.profile.speed(tau) * (pyaw - s.yaw).cos();
        (dx * c + dy * sn, -dx * sn + dy * c, (px, py), closing)
    }

    /// Impact with a target moving along (or standing on) the VUT's path.
    pub(super) fn check_longitudinal_impact(&mut self, i: usize, snap: &Snap) {
        let (g1, lat1, p1, closing) = self.longitudinal_gap(i, snap);
        self.tracks[i].ttc = (g1 > 0.0 && closing > 0.05).then(|| g1 / closing);
        if self.tracks[i].impact.is_some() {
            return;
        }
        let Some(prev) = self.tracks[i].prev else {
            return;
        };
        let (g0, _, _, closing0) = self.longitudinal_gap(i, &prev);
        let t = &self.tracks[i];
        let reach = 0.5 * self.vut.width_m + half_width(t.spec.kind);
        if !(g0 > 0.0 && g1 <= 0.0 && lat1.abs() <= reach) {
            return;
        }
        let w = g0 / (g0 - g1);
        let time = prev.t + w * (snap.t - prev.t);
        let v = prev.v + w * (snap.v - prev.v);
        let closing = closing0 + w * (closing - closing0);
        let tau = t.origin().map(|o| time - o);
        let width = self.vut.width_m;
        let rec = ImpactRecord {
            target: t.spec.id.clone(),
            time_s: Some(time),
            dummy_travel_m: Some(tau.map_or(0.0, |tau| t.profile.travel(tau))),
            nominal_travel_m: 0.0,
            // From the VUT's right side (lat1 is positive to the left).
            overlap: Some(((0.5 * width + lat1) / width).clamp(0.0, 1.0)),
            stopped_short_m: None,
            note: None,
            impact_point: Some(Point { x: p1.0, y: p1.1 }),
            impact_speed_kmh: Some(v * 3.6),
            relative_speed_kmh: Some(closing * 3.6),
            speed_reduction_kmh: self.vut.speed_kmh.map(|n| n - v * 3.6),
            location: Some((0.5 * width + lat1) / width),
            vut_speed_kmh: Some(v * 3.6),
            arrival_error_s: None,
            closest_approach_m: None,
        };
        self.tracks[i].impact = Some(rec.clone());
        self.proto.impact_at(time);
        self.event(super::Event::Impact(rec));
    }

    /// How far along its path a conflict target's meeting point moves because the VUT drives
    /// off its planned path: the VUT's control point `lat` to the left of its path crosses the
    /// target's path `lat / sin(θ)` further along it (θ from the VUT's heading to the target's
    /// at the conflict), and the impact location is on the VUT where it is, not where it was
    /// planned. Within a millimetre, or where the paths cross at less than 30° (the shift is
    /// ill-conditioned there), none; at most [`MAX_CROSSING_SHIFT_M`].
    pub(super) fn crossing_shift(&self, i: usize, v: &crate::twin::VehicleState) -> f64 {
        let t = &self.tracks[i];
        let (Some(c), Some(p)) = (&t.spec.conflict, &self.vut_path) else {
            return 0.0;
        };
        let s = p.s_at(v.x, v.y, v.yaw_rad);
        let (cx, cy) = (
            v.x + p.ahead * v.yaw_rad.cos(),
            v.y + p.ahead * v.yaw_rad.sin(),
        );
        let (px, py, ph) = p.line.pose(s);
        let lat = -(cx - px) * ph.sin() + (cy - py) * ph.cos();
        if lat.abs() < 1e-3 {
            return 0.0;
        }
        let vut_heading = p.line.pose(c.vut_s).2;
        let target_heading = t
            .path
            .as_ref()
            .map_or(t.profile.yaw, |tp| tp.pose(c.target_s).2);
        let sin = (target_heading - vut_heading).sin();
        if sin.abs() < 0.5 {
            return 0.0;
        }
        (lat / sin).clamp(-MAX_CROSSING_SHIFT_M, MAX_CROSSING_SHIFT_M)
    }

    /// Closed-loop synchronisation of every started crossing target (see the module docs).
    pub(super) fn sync_step(&mut self, now_s: f64) {
        if !self.proto.sync {
            return;
        }
        let Some(v) = self.twin.get(&self.cfg.vut_id).cloned() else {
            return;
        };
        if v.speed_mps < 0.3 {
            return;
        }
        let d_front = self.vut.reference_to_front_m;
        let width = self.vut.width_m;
        for i in 0..self.tracks.len() {
            let t = &self.tracks[i];
            if !t.crossing() || t.impact.is_some() {
                continue;
            }
            let Some(origin) = t.origin() else { continue };
            let gap = if t.is_conflict() {
                self.geo().d_long(&t.spec, v.x, v.y, v.yaw_rad)
            } else {
                path_gap(v.x, v.y, v.yaw_rad, &t.profile, d_front)
            };
            let Some(gap) = gap else {
                continue;
            };
            if gap <= 0.0 {
                continue;
            }
            let t_hit = now_s + self.time_to_cover(gap, v.speed_mps);
            if t_hit - now_s < SYNC_HORIZON_S {
                continue;
            }
            let nominal = if t.is_conflict() {
                crate::scenario::ttc::nominal_travel_m(&t.spec, &self.vut)
                    + self.crossing_shift(i, &v)
            } else {
                super::ttc_nominal(&t.spec, width)
            };
            let tau = now_s - origin;
            let mut base = t.profile;
            base.adjust = None;
            let (new_origin_shift, adjust_speed) = if tau < t.profile.t_acc {
                // Acceleration phase: shift the whole profile in time.
                let Some(tau_nom) = base.time_to_travel(nominal) else {
                    continue;
                };
                let shift = (t_hit - tau_nom) - t.trigger.as_ref().map_or(origin, |r| r.time_s);
                // Never move the origin past now (the target cannot un-start); a start
                // commanded ahead of its instant may keep that instant until it comes.
                let max_shift = (now_s - t.trigger.as_ref().map_or(origin, |r| r.time_s)).max(0.0);
                (Some(shift.min(max_shift)), None)
            } else {
                let remaining = nominal - t.profile.travel(tau);
                // 5 % inside the tolerance: a correction at the limit must not read as a
                // violation after rounding.
                let tol = 0.95 * t.spec.kind.speed_tolerance_mps();
                let want = (remaining / (t_hit - now_s)).clamp(base.v - tol, base.v + tol);
                (None, Some(want.max(0.0)))
            };
            let t = &mut self.tracks[i];
            if let Some(shift) = new_origin_shift {
                t.shift_s = shift;
            }
            if let Some(speed) = adjust_speed {
                let tau = now_s - t.origin().unwrap_or(now_s);
                t.profile.set_speed_from(tau, speed);
            }
            // Equivalent origin of the nominal profile: MTSP time shift for the carrier.
            // Before its (commanded-ahead) start it has not moved: its origin is the one.
            let tau = now_s - t.origin().unwrap_or(now_s);
            let s_now = t.profile.travel(tau);
            let origin_eq = if tau <= 0.0 {
                t.origin().unwrap_or(now_s)
            } else {
                let Some(tau_eq) = base.time_to_travel(s_now) else {
                    continue;
                };
                now_s - tau_eq
            };
            // Against the origin last sent: a speed correction at speed moves the equivalent
            // origin by less than the dead-band at each sample, and must still reach the
            // carrier once it adds up (not only in the last samples before the contact).
            let correction = origin_eq - t.sync_origin_s.unwrap_or(origin);
            if correction.abs() > 1e-4 {
                t.sync_origin_s = Some(origin_eq);
            }
            let (id, carrier, speed) = (
                t.spec.id.clone(),
                t.spec.carrier.clone(),
                t.profile.speed(tau),
            );
            if correction.abs() > 1e-4 {
                self.out.push_back(Output::Command(Command::Retime {
                    target: id.clone(),
                    carrier,
                    origin_s: origin_eq,
                    correction_s: correction,
                }));
                self.out.push_back(Output::Event(Event::Synced {
                    target: id,
                    time_s: now_s,
                    speed_mps: speed,
                    origin_s: origin_eq,
                    predicted_impact_s: t_hit,
                }));
            }
        }
    }
}
