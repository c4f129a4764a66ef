//! Starts from standstill (`vut.launch`, Euro NCAP's SfS tests). The VUT stands at the start of
//! its planned path; its moving conflict targets start when the run is armed and drive their
//! nominal profiles. At every VUT sample until the cue, the engine computes the instant from
//! which the nominal launch (constant acceleration from rest up to the launch speed) brings the
//! VUT's control point to its conflict point when the first target reaches its own, and
//! schedules the cue for it: a `target_started` event for the VUT at that instant, between
//! samples like a trigger, and [`Command::Start`] to its driver robot's carrier when one is
//! named. After the launch, synchronisation
//! predicts the VUT's arrival with the same launch model (see [`Engine::time_to_cover`]).

use super::*;
use crate::scenario::{Activation, LaunchSpec};

#[derive(Debug, Clone)]
pub(super) struct Launch {
    pub(super) spec: LaunchSpec,
    /// Instant the cue is scheduled for, until it is given.
    pub(super) at_s: Option<f64>,
    /// Instant the cue was given.
    pub(super) cued_s: Option<f64>,
}

impl Launch {
    pub(super) fn of(sc: &Scenario) -> Option<Launch> {
        sc.vut.launch.clone().map(|spec| Launch {
            spec,
            at_s: None,
            cued_s: None,
        })
    }
}

impl Engine {
    /// When the VUT's launch was cued (sample time), for a start from standstill.
    pub fn vut_launch_s(&self) -> Option<f64> {
        self.launch.as_ref().and_then(|l| l.cued_s)
    }

    /// The launch's timer, while the cue is scheduled.
    pub(super) fn launch_due(&self) -> Option<f64> {
        self.launch
            .as_ref()
            .filter(|l| l.cued_s.is_none())
            .and_then(|l| l.at_s)
    }

    /// Targets that start when the run is armed because the VUT is launched to meet them.
    pub(super) fn starts_at_arm(&self, t: &TargetSpec) -> bool {
        self.launch.is_some() && t.activation == Activation::Conflict && t.speed_kmh > 0.0
    }

    /// At a VUT sample before the cue: (re)schedules it, or gives it now when it is due.
    pub(super) fn plan_launch(&mut self, now_s: f64) {
        let Some(l) = &self.launch else { return };
        if l.cued_s.is_some() || !matches!(self.state, RunState::Armed | RunState::Running) {
            return;
        }
        let Some(s_now) = self.vut_path.as_ref().and_then(|p| p.s) else {
            return;
        };
        let go = self
            .tracks
            .iter()
            .filter(|t| t.spec.speed_kmh > 0.0)
            .filter_map(|t| {
                let (c, o) = (t.spec.conflict?, t.origin()?);
                let arrive = o + t.profile.time_to_travel(c.target_s)?;
                Some(arrive - l.spec.time_to(c.vut_s - s_now, 0.0))
            })
            .fold(None, |m: Option<f64>, g| Some(m.map_or(g, |m| m.min(g))));
        // Only static targets: the launch (a misapplied pedal) is cued at once.
        let go =
            go.or_else(|| (!self.tracks.iter().any(|t| t.spec.speed_kmh > 0.0)).then_some(now_s));
        let Some(go) = go else { return };
        if go <= now_s {
            // Already due (a target's run-up shorter than the launch): cue at this sample;
            // synchronisation absorbs the difference.
            self.cue_launch(now_s);
        } else if let Some(l) = self.launch.as_mut() {
            l.at_s = Some(go);
        }
    }

    /// The timer reached `now_s`: the cue at its scheduled instant.
    pub(super) fn launch_timeout(&mut self, now_s: f64) {
        if let Some(at) = self.launch_due().filter(|at| *at <= now_s) {
            self.cue_launch(at);
        }
    }

    fn cue_launch(&mut self, at_s: f64) {
        let Some(l) = self.launch.as_mut() else {
            return;
        };
        l.cued_s = Some(at_s);
        l.at_s = None;
        let carrier = l.spec.carrier.clone();
        let target = self.cfg.vut_id.clone();
        // A command only for a driver robot that takes one; without it the event is the cue
        // (the dashboard shows it to the driver).
        if carrier.is_some() {
            self.out.push_back(Output::Command(Command::Start {
                target: target.clone(),
                carrier: carrier.clone(),
                at_s,
            }));
        }
        self.event(Event::TargetStarted {
            target,
            carrier,
            at_s,
        });
        self.state = RunState::Running;
    }

    /// Predicted time for the VUT, now at `v` m/s, to cover `gap` metres: at constant speed,
    /// or after a cued launch along the launch model (accelerating up to its speed).
    pub(super) fn time_to_cover(&self, gap: f64, v: f64) -> f64 {
        match &self.launch {
            Some(l) if l.cued_s.is_some() && v < l.spec.speed_kmh / 3.6 - 1e-6 => {
                l.spec.time_to(gap, v)
            }
            _ => gap / v,
        }
    }
}
