//! A door opened on a distance rule (`vut.door`, Euro NCAP's CBDA dooring test). The VUT
//! stands; its door's rear edge is a point of the body frame. At every VUT sample the engine
//! locates that point on the target's path and schedules the opening for the instant the
//! target's front (its nominal profile) is `open_at_m` from it, between samples like a
//! trigger. The cue is a trigger record of target `door` (and [`Command::Start`] to a door
//! robot's carrier when one is named):
//! `d_long_m` the target's distance, `ttc_s` its time to the door's rear edge at its speed then.

use super::*;
use crate::scenario::DoorSpec;

#[derive(Debug, Clone)]
pub(super) struct Door {
    pub(super) spec: DoorSpec,
    /// Scheduled opening and the target's travel at which it is due.
    pub(super) at_s: Option<(f64, f64)>,
    pub(super) opened_s: Option<f64>,
}

impl Door {
    pub(super) fn of(vut: &VutSpec) -> Option<Door> {
        vut.door.clone().map(|spec| Door {
            spec,
            at_s: None,
            opened_s: None,
        })
    }
}

impl Engine {
    /// When the door was cued to open (sample time).
    pub fn door_opened_s(&self) -> Option<f64> {
        self.door.as_ref().and_then(|d| d.opened_s)
    }

    pub(super) fn door_due(&self) -> Option<f64> {
        self.door
            .as_ref()
            .filter(|d| d.opened_s.is_none())
            .and_then(|d| d.at_s.map(|a| a.0))
    }

    /// At a VUT sample: where the door's rear edge is on the target's path, and when the
    /// target's front comes within `open_at_m` of it.
    pub(super) fn plan_door(&mut self, s: &Sample) {
        let Some(d) = &self.door else { return };
        if d.opened_s.is_some() || !matches!(self.state, RunState::Armed | RunState::Running) {
            return;
        }
        let Some(t) = self.tracks.iter().find(|t| t.spec.id == d.spec.target) else {
            return;
        };
        let Some(origin) = t.origin() else { return };
        let (c, sn) = (s.yaw_rad.cos(), s.yaw_rad.sin());
        let (f, l) = (d.spec.rear_edge_forward_m, d.spec.rear_edge_left_m);
        let (ex, ey) = (s.x + f * c - l * sn, s.y + f * sn + l * c);
        let q_edge = match &t.path {
            Some(line) => line.project(ex, ey),
            None => {
                let p = &t.profile;
                (ex - p.start_x) * p.yaw.cos() + (ey - p.start_y) * p.yaw.sin()
            }
        };
        let half = 0.5 * t.spec.footprint().0;
        let travel = q_edge - half - d.spec.open_at_m;
        let Some(tau) = t.profile.time_to_travel(travel) else {
            return;
        };
        let at = origin + tau;
        if at <= s.time_s {
            self.open_door(s.time_s);
        } else if let Some(d) = self.door.as_mut() {
            d.at_s = Some((at, q_edge));
        }
    }

    pub(super) fn door_timeout(&mut self, now_s: f64) {
        if let Some(at) = self.door_due().filter(|at| *at <= now_s) {
            self.open_door(at);
        }
    }

    fn open_door(&mut self, at_s: f64) {
        let Some(d) = self.door.as_mut() else { return };
        d.opened_s = Some(at_s);
        let q_edge = d.at_s.map(|a| a.1);
        d.at_s = None;
        let (target, carrier) = (d.spec.target.clone(), d.spec.carrier.clone());
        let Some(t) = self.tracks.iter().find(|t| t.spec.id == target) else {
            return;
        };
        let tau = t.origin().map_or(0.0, |o| at_s - o);
        let v = t.profile.speed(tau);
        let front = t.profile.travel(tau) + 0.5 * t.spec.footprint().0;
        let dist = q_edge.map_or(f64::NAN, |q| q - front);
        let rec = TriggerRecord {
            target: DoorSpec::ID.to_string(),
            time_s: at_s,
            fired_at_s: at_s,
            method: self.cfg.method,
            threshold_s: f64::NAN,
            ttc_s: if v > 0.0 { dist / v } else { f64::NAN },
            d_long_m: dist,
            vut_speed_mps: 0.0,
            fire_error_ms: None,
            retimed: false,
        };
        // A command only for a door robot; without one the trigger event is the cue.
        if carrier.is_some() {
            self.out.push_back(Output::Command(Command::Start {
                target: DoorSpec::ID.to_string(),
                carrier,
                at_s,
            }));
        }
        self.event(Event::Triggered(rec));
    }
}
