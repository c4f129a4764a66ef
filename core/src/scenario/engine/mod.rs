//! The scenario engine: pure, synchronous, sans-IO (in the manner of quinn-proto).
//!
//! It is fed samples with their timestamps and asked about timers; it answers with commands
//! (with the instant they are due) and events. It owns no clock and no socket, so live runs,
//! replays and tests drive the identical code:
//!
//! ```text
//! loop {
//!     while engine.poll_timeout() <= next sample time { engine.handle_timeout(t) }
//!     engine.handle_sample(sample)
//!     while let Some(out) = engine.poll_output() { dispatch / record }
//! }
//! ```
//!
//! # Trigger timing
//! The seed paper's simulated trigger fired at the first 25 Hz sample past the threshold and was
//! 13–18 ms late. Here, at every VUT sample the engine predicts when the VUT TTC will reach
//! TTC_dummy (speed trend from a least-squares fit over recent samples, current yaw rate) and, if
//! that instant falls within the prediction horizon, schedules the start for it: the caller's
//! timer fires [`Engine::handle_timeout`] at that instant, between samples, and the engine emits
//! [`Command::Start`]. Every newer sample re-predicts and re-schedules.
//!
//! No causal predictor can know the next sample: the speed channel carries per-sample noise
//! (±0.03 km/h on the shared runs, i.e. ±11 ms of TTC at 10 km/h). So when the first sample past
//! the crossing arrives, the engine locates the crossing exactly between the two bracketing
//! samples and — unless `retime` is off — emits [`Command::Retime`]: the dummy's profile origin is
//! moved to that instant (ISO 22133 MTSP on a real carrier; a ~10 ms shift is absorbed in the
//! dummy's acceleration phase). The reported trigger instant is that profile origin; the instant
//! the start command went out and its error are reported beside it.

pub(crate) mod conflict;
mod door;
mod dummies;
mod headway;
mod lane_edge;
mod launch;
mod output;
mod predict;
mod protocol;
mod trace;
mod trigger;
mod verdict;

pub use conflict::Rect;
pub use lane_edge::{LaneDeparture, LaneGauge};
pub use output::{Command, Event, ImpactRecord, Output, TriggerRecord};
pub use predict::NoiseEstimate;

use std::collections::VecDeque;

use serde::Serialize;

use super::profile::Profile;
use super::ttc;
use super::{Scenario, TargetSpec, VutSpec};
use crate::sample::{Sample, VUT};
use crate::twin::{Twin, VehicleState};
use dummies::{path_gap, path_gap_dir, ttc_nominal};

/// How the trigger instant is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TriggerMethod {
    /// Predict the crossing between samples and fire at the predicted instant (scil default).
    Predicted,
    /// Fire at the first sample whose TTC is at or below the threshold (the seed paper).
    AtSample,
}

impl std::str::FromStr for TriggerMethod {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "predicted" => Ok(TriggerMethod::Predicted),
            "at_sample" | "at-sample" => Ok(TriggerMethod::AtSample),
            _ => Err(format!(
                "trigger method must be 'predicted' or 'at_sample', got '{s}'"
            )),
        }
    }
}

#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub method: TriggerMethod,
    /// Move the dummy's profile origin to the exact crossing once the bracketing sample is in.
    pub retime: bool,
    /// Abort an armed run when no VUT sample arrived for this long (sample-time seconds; a live
    /// driver advances time by the wall clock between samples).
    pub stale_limit_s: Option<f64>,
    /// Prediction horizon in expected sample intervals.
    pub horizon_intervals: f64,
    /// Samples in the speed-trend fit.
    pub trend_window: usize,
    pub vut_id: String,
    /// Closed-loop synchronisation of started targets (also on when the scenario says
    /// `sync = true`).
    pub sync: bool,
    /// Fire when the VUT's TTC reaches the scenario's threshold plus this offset (seconds;
    /// positive = earlier). 0 = the scenario's own threshold (sensitivity sweeps vary it).
    pub ttc_offset_s: f64,
    /// Per target id: how long before its predicted start instant the start command goes out
    /// (the dead time of the object that carries it, which its trajectory stands out first),
    /// s. The command still names the predicted instant, so it arrives ahead of it. A target
    /// started at the run's beginning (or at the arm) gets its command at once and its motion
    /// this much later. None: at the instant.
    pub start_leads_s: std::collections::BTreeMap<String, f64>,
    /// How long after the instant it describes a VUT sample reaches the engine at most (a
    /// radio link's delay, such as a driving robot's MONR), s. A start is predicted this much
    /// further ahead, so that its command is still ahead of its instant (less its lead) when
    /// the sample that decides it arrives; without it, a target whose object takes no time
    /// shift started up to this much late. 0: samples arrive as they are taken.
    pub telemetry_latency_s: f64,
}

impl EngineConfig {
    /// How long before its start instant target `id`'s start command goes out, s.
    pub fn start_lead_s(&self, id: &str) -> f64 {
        self.start_leads_s
            .get(id)
            .copied()
            .filter(|l| l.is_finite() && *l > 0.0)
            .unwrap_or(0.0)
    }
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            method: TriggerMethod::Predicted,
            retime: true,
            stale_limit_s: Some(0.2),
            horizon_intervals: 2.0,
            trend_window: 10,
            vut_id: VUT.to_string(),
            sync: false,
            ttc_offset_s: 0.0,
            start_leads_s: Default::default(),
            telemetry_latency_s: 0.0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    Idle,
    Armed,
    Running,
    Finished,
    Aborted,
}

/// How far above its threshold a crossing target's TTC must have come before the trigger
/// uses the smoothed VUT state (s): far more than the TTC noise of any INS (tens of ms).
const SMOOTH_LEAD_S: f64 = 1.0;

/// A VUT snapshot relative to one target.
#[derive(Debug, Clone, Copy)]
struct Snap {
    t: f64,
    x: f64,
    y: f64,
    yaw: f64,
    v: f64,
    ttc: Option<f64>,
}

impl Snap {
    fn lerp(a: &Snap, b: &Snap, w: f64) -> (f64, f64, f64, f64) {
        let dyaw = crate::frame::wrap_pi(b.yaw - a.yaw);
        (
            a.x + w * (b.x - a.x),
            a.y + w * (b.y - a.y),
            a.yaw + w * dyaw,
            a.v + w * (b.v - a.v),
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    Waiting,
    Scheduled { at_s: f64 },
    Fired,
}

#[derive(Debug, Clone)]
struct Track {
    spec: TargetSpec,
    profile: Profile,
    threshold: f64,
    phase: Phase,
    prev: Option<Snap>,
    /// `path_gap` at the sample of time `.0` (the impact check needs it again one sample later).
    gap: Option<(f64, Option<f64>)>,
    /// (yaw, cos, sin) of the target path's yaw for `path_gap`, kept while the yaw is unchanged.
    dir: Option<(f64, f64, f64)>,
    last_above: Option<Snap>,
    trigger: Option<TriggerRecord>,
    assessed: bool,
    impact: Option<ImpactRecord>,
    ttc: Option<f64>,
    /// Start instant of a target not started by the TTC trigger (activation `begin`).
    started_s: Option<f64>,
    /// Synchronisation's time shift of the profile origin (acceleration phase).
    shift_s: f64,
    /// Last equivalent origin sent by synchronisation.
    sync_origin_s: Option<f64>,
    /// Samples of this target's own telemetry arrive (a real carrier): the twin keeps them
    /// instead of the simulated profile, and validity checks them.
    measured: bool,
    /// The target's path when it does not move straight (resolved `path`).
    path: Option<crate::scenario::path::Polyline>,
    /// Its slot in the twin once the simulated dummy was first set there.
    twin_slot: Option<usize>,
    /// Conflict targets: smallest footprint distance so far (no contact yet).
    closest: Option<f64>,
    /// Conflict targets: target arrival at its conflict point minus the VUT's (s).
    arrival_error_s: Option<f64>,
    /// Lead vehicles (headway rule): smallest and largest headway from T0 to braking (s).
    headway_seen: Option<(f64, f64)>,
}

impl Track {
    /// Map position and yaw `tau` seconds after the start: along the path when there is one,
    /// else straight along the heading.
    fn pose(&self, tau: f64) -> (f64, f64, f64) {
        match &self.path {
            Some(line) => line.pose(self.profile.travel(tau)),
            None => {
                let (x, y) = self.profile.position(tau);
                (x, y, self.profile.yaw)
            }
        }
    }

    /// Profile origin (sample time), once the target has started.
    fn origin(&self) -> Option<f64> {
        self.trigger
            .as_ref()
            .map(|t| t.time_s)
            .or(self.started_s)
            .map(|o| o + self.shift_s)
    }

    /// Started by a trigger on the VUT's TTC (the seed paper's crossing start, or a conflict
    /// rule along the paths).
    fn crossing(&self) -> bool {
        matches!(
            self.spec.activation,
            super::Activation::Ttc | super::Activation::Conflict
        )
    }

    fn is_conflict(&self) -> bool {
        self.spec.activation == super::Activation::Conflict
    }
}

/// Live view of one target for dashboards.
#[derive(Debug, Clone, Serialize)]
pub struct TargetStatus {
    pub target: String,
    pub threshold_s: f64,
    pub ttc_s: Option<f64>,
    pub triggered: bool,
    pub scheduled_at_s: Option<f64>,
}

/// The sans-IO scenario engine.
pub struct Engine {
    vut: VutSpec,
    /// The VUT reverses: its samples are turned round to face the direction of travel.
    reverse: bool,
    cfg: EngineConfig,
    tracks: Vec<Track>,
    twin: Twin,
    state: RunState,
    out: VecDeque<Output>,
    last_vut: Option<f64>,
    dt_est: Option<f64>,
    trend: VecDeque<(f64, f64)>,
    /// Recent VUT samples for the noise estimate and the smoothed state (predict.rs).
    hist: predict::History,
    /// Smoothed VUT state at the last sample when the telemetry is noisy.
    smooth: Option<predict::Smoothed>,
    samples: u64,
    proto: protocol::State,
    /// Live parameter: triggers fire at threshold + this (s).
    ttc_offset_s: f64,
    /// The VUT's slot in the twin once its first sample was applied: telling the VUT's
    /// samples from others' by slot, not by comparing ids, every sample.
    vut_slot: Option<usize>,
    /// The VUT's planned path (`vut.path`, resolved), when the scenario has one.
    vut_path: Option<conflict::VutPath>,
    /// A start from standstill: the VUT's launch cue.
    launch: Option<launch::Launch>,
    /// A door opened on a distance rule.
    door: Option<door::Door>,
    /// A drifting VUT's distance to its lane's edge.
    lane_edge: Option<lane_edge::LaneEdge>,
}

impl Engine {
    pub fn new(scenario: &Scenario, cfg: EngineConfig, twin: Twin) -> Engine {
        // A reversing VUT is measured facing its direction of travel (see
        // `VutSpec::in_travel_direction`); its samples are turned round as they arrive.
        let reverse = scenario.vut.reverse;
        let travel;
        let scenario = if reverse {
            travel = Scenario {
                vut: scenario.vut.in_travel_direction(),
                ..scenario.clone()
            };
            &travel
        } else {
            scenario
        };
        let tracks = scenario
            .targets
            .iter()
            .map(|t| Track {
                spec: t.clone(),
                profile: Profile::of(t),
                threshold: ttc::ttc_dummy(t, &scenario.vut) + cfg.ttc_offset_s,
                phase: Phase::Waiting,
                prev: None,
                gap: None,
                dir: None,
                last_above: None,
                trigger: None,
                assessed: false,
                impact: None,
                ttc: None,
                started_s: None,
                shift_s: 0.0,
                sync_origin_s: None,
                measured: false,
                twin_slot: None,
                closest: None,
                arrival_error_s: None,
                headway_seen: None,
                path: t.path.as_ref().and_then(|p| p.geometry().ok()),
            })
            .collect();
        let proto = protocol::State::new(scenario, cfg.sync);
        let vut_path = scenario.vut.driven_path().map(|line| conflict::VutPath {
            line,
            ahead: scenario.vut.control_ahead_m(),
            s: None,
            last: std::cell::Cell::new(None),
        });
        Engine {
            vut: scenario.vut.clone(),
            reverse,
            cfg,
            tracks,
            state: RunState::Idle,
            out: VecDeque::new(),
            last_vut: None,
            dt_est: None,
            trend: VecDeque::new(),
            hist: predict::History::new(),
            smooth: None,
            samples: 0,
            proto,
            ttc_offset_s: 0.0,
            vut_slot: None,
            vut_path,
            launch: launch::Launch::of(scenario),
            door: door::Door::of(&scenario.vut),
            lane_edge: lane_edge::LaneEdge::of(&scenario.vut, twin.matcher()),
            twin,
        }
    }

    /// The trigger's measure (straight-line or along the planned path).
    fn geo(&self) -> conflict::Geo<'_> {
        conflict::Geo {
            vut: &self.vut,
            path: self.vut_path.as_ref(),
        }
    }

    /// Live parameter: targets that have not fired yet fire when the VUT TTC reaches their
    /// TTC_dummy + `offset_s` (a fired target keeps its trigger). Takes effect with the next
    /// sample (a scheduled trigger is re-predicted then).
    pub fn set_ttc_offset(&mut self, offset_s: f64) {
        if !offset_s.is_finite() {
            return;
        }
        self.ttc_offset_s = offset_s;
        for t in &mut self.tracks {
            if t.trigger.is_none() {
                t.threshold = ttc::ttc_dummy(&t.spec, &self.vut) + offset_s;
            }
        }
    }

    pub fn ttc_offset(&self) -> f64 {
        self.ttc_offset_s
    }

    pub fn state(&self) -> RunState {
        self.state
    }

    pub fn twin(&self) -> &Twin {
        &self.twin
    }

    pub fn config(&self) -> &EngineConfig {
        &self.cfg
    }

    /// Noise levels of the VUT telemetry as the trigger predictor sees them (predict.rs).
    pub fn vut_noise(&self) -> Option<NoiseEstimate> {
        self.hist.noise()
    }

    /// VUT samples applied so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Per target, without allocating: its id, whether its trigger fired, and the VUT's TTC
    /// to it (what a co-simulation peer is told after each step).
    pub fn target_states(&self) -> impl Iterator<Item = (&str, bool, Option<f64>)> + '_ {
        self.tracks
            .iter()
            .map(|t| (t.spec.id.as_str(), t.trigger.is_some(), t.ttc))
    }

    pub fn targets(&self) -> Vec<TargetStatus> {
        self.tracks
            .iter()
            .map(|t| TargetStatus {
                target: t.spec.id.clone(),
                threshold_s: t.threshold,
                ttc_s: t.ttc,
                triggered: t.trigger.is_some(),
                scheduled_at_s: match t.phase {
                    Phase::Scheduled { at_s } => Some(at_s),
                    _ => None,
                },
            })
            .collect()
    }

    /// Arms the run: triggers are evaluated from now on.
    pub fn arm(&mut self, now_s: f64) {
        if self.state == RunState::Idle {
            self.state = RunState::Armed;
            self.event(Event::Armed { time_s: now_s });
            if let Some(v) = self.proto.validity.as_mut() {
                v.armed(now_s);
            }
            self.start_begin_targets(now_s);
        }
    }

    /// Operator e-stop or an external safety rule.
    pub fn abort(&mut self, now_s: f64, reason: &str) {
        if matches!(self.state, RunState::Finished | RunState::Aborted) {
            return;
        }
        self.state = RunState::Aborted;
        for t in &mut self.tracks {
            if let Phase::Scheduled { .. } = t.phase {
                t.phase = Phase::Waiting;
            }
        }
        self.out.push_back(Output::Command(Command::Abort {
            reason: reason.to_string(),
        }));
        self.event(Event::Aborted {
            time_s: now_s,
            reason: reason.to_string(),
        });
        self.settle_lane_edge();
        self.finish_verdict();
    }

    /// Ends the run (end of replay or operator stop) and settles the results.
    pub fn finish(&mut self, now_s: f64) {
        if matches!(self.state, RunState::Finished | RunState::Aborted) {
            return;
        }
        let last = self.twin.get(&self.cfg.vut_id).cloned();
        let vut = self.vut.clone();
        // Targets along the VUT path: the gap to their rear end.
        let along: Vec<Option<f64>> = (0..self.tracks.len())
            .map(|i| {
                let v = last.as_ref()?;
                let snap = Snap {
                    t: v.time_s,
                    x: v.x,
                    y: v.y,
                    yaw: v.yaw_rad,
                    v: v.speed_mps,
                    ttc: None,
                };
                if self.tracks[i].is_conflict() {
                    return self.geo().d_long(&self.tracks[i].spec, v.x, v.y, v.yaw_rad);
                }
                (!self.tracks[i].crossing()).then(|| self.longitudinal_gap(i, &snap).0)
            })
            .collect();
        let mut events = Vec::new();
        for (t, along) in self.tracks.iter_mut().zip(along) {
            if t.impact.is_some() {
                continue;
            }
            let nominal = ttc::nominal_travel_m(&t.spec, &vut);
            let rec = match &last {
                Some(v) => {
                    let gap = along.or_else(|| {
                        path_gap(v.x, v.y, v.yaw_rad, &t.profile, vut.reference_to_front_m)
                    });
                    let stopped = v.speed_mps < 0.3;
                    ImpactRecord {
                        target: t.spec.id.clone(),
                        time_s: None,
                        dummy_travel_m: None,
                        nominal_travel_m: nominal,
                        overlap: None,
                        stopped_short_m: if stopped {
                            gap.filter(|g| *g > 0.0)
                        } else {
                            None
                        },
                        note: Some(if stopped {
                            "VUT stopped before the dummy's path line".into()
                        } else {
                            "run ended before the VUT reached the dummy's path line".into()
                        }),
                        impact_point: None,
                        impact_speed_kmh: None,
                        relative_speed_kmh: None,
                        speed_reduction_kmh: None,
                        location: None,
                        vut_speed_kmh: Some(v.speed_mps * 3.6),
                        arrival_error_s: t.arrival_error_s,
                        closest_approach_m: t.closest,
                    }
                }
                None => ImpactRecord {
                    target: t.spec.id.clone(),
                    time_s: None,
                    dummy_travel_m: None,
                    nominal_travel_m: nominal,
                    overlap: None,
                    stopped_short_m: None,
                    note: Some("no VUT telemetry".into()),
                    impact_point: None,
                    impact_speed_kmh: None,
                    relative_speed_kmh: None,
                    speed_reduction_kmh: None,
                    location: None,
                    vut_speed_kmh: None,
                    arrival_error_s: None,
                    closest_approach_m: None,
                },
            };
            let mut rec = rec;
            if let (Some(nominal), Some(v)) = (vut.speed_kmh, &last) {
                if v.speed_mps < 0.3 && rec.stopped_short_m.is_some() {
                    rec.speed_reduction_kmh = Some(nominal);
                }
            }
            t.impact = Some(rec.clone());
            events.push(Event::Impact(rec));
        }
        for e in events {
            self.event(e);
        }
        self.settle_lane_edge();
        self.finish_verdict();
        self.state = RunState::Finished;
        self.event(Event::Finished { time_s: now_s });
    }

    /// The lane departure's record, once (at finish or abort).
    fn settle_lane_edge(&mut self) {
        if let Some(d) = self.lane_edge.take().and_then(|le| le.record()) {
            self.event(Event::LaneDeparture(d));
        }
    }

    /// Next instant (sample time) at which [`Engine::handle_timeout`] must be called.
    pub fn poll_timeout(&self) -> Option<f64> {
        if !matches!(self.state, RunState::Armed | RunState::Running) {
            return None;
        }
        let sched = self
            .tracks
            .iter()
            .filter_map(|t| match t.phase {
                Phase::Scheduled { at_s } => Some(at_s - self.cfg.start_lead_s(&t.spec.id)),
                _ => None,
            })
            .chain(self.launch_due())
            .chain(self.door_due())
            .fold(None, |m: Option<f64>, a| Some(m.map_or(a, |m| m.min(a))));
        let stale = match (self.cfg.stale_limit_s, self.last_vut) {
            (Some(lim), Some(last)) => Some(last + lim),
            _ => None,
        };
        match (sched, stale) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Time has advanced to `now_s` without a new sample.
    pub fn handle_timeout(&mut self, now_s: f64) {
        if !matches!(self.state, RunState::Armed | RunState::Running) {
            return;
        }
        for i in 0..self.tracks.len() {
            if let Phase::Scheduled { at_s } = self.tracks[i].phase {
                if at_s - self.cfg.start_lead_s(&self.tracks[i].spec.id) <= now_s {
                    // The instant is the scheduled one, not `now_s`: a late timer does not move
                    // the trigger in the record (its lateness is the caller's latency figure).
                    let (x, y, yaw, v) = self.predict_state(at_s);
                    let geo = self.geo();
                    let ttc = geo.ttc(&self.tracks[i].spec, x, y, yaw, v);
                    let d = geo.d_long(&self.tracks[i].spec, x, y, yaw);
                    self.fire(i, at_s, ttc.unwrap_or(f64::NAN), d.unwrap_or(f64::NAN), v);
                }
            }
        }
        self.launch_timeout(now_s);
        self.door_timeout(now_s);
        if let (Some(lim), Some(last)) = (self.cfg.stale_limit_s, self.last_vut) {
            if now_s >= last + lim {
                let reason = format!(
                    "VUT telemetry stale: no sample for {:.0} ms (limit {:.0} ms)",
                    (now_s - last) * 1000.0,
                    lim * 1000.0
                );
                self.abort(now_s, &reason);
            }
        }
    }

    pub fn poll_output(&mut self) -> Option<Output> {
        self.out.pop_front()
    }

    /// Applies one sample (any vehicle; triggers look at the VUT).
    pub fn handle_sample(&mut self, s: &Sample) {
        let turned;
        let s = if self.reverse && *s.vehicle == *self.cfg.vut_id {
            // Facing the direction of travel: heading turned round, speed as a magnitude,
            // longitudinal acceleration in the direction of travel.
            turned = Sample {
                yaw_rad: crate::frame::wrap_pi(s.yaw_rad + std::f64::consts::PI),
                speed_mps: s.speed_mps.abs(),
                accel_mps2: s.accel_mps2.map(|a| -a),
                ..s.clone()
            };
            &turned
        } else {
            s
        };
        let slot = match self.twin.update_slot(s) {
            Ok(i) => i,
            Err(e) => {
                self.event(Event::SampleRejected {
                    time_s: s.time_s,
                    vehicle: s.vehicle.to_string(),
                    reason: e.to_string(),
                });
                return;
            }
        };
        let is_vut = match self.vut_slot {
            Some(v) => v == slot,
            None => {
                let is = *s.vehicle == *self.cfg.vut_id;
                if is {
                    self.vut_slot = Some(slot);
                }
                is
            }
        };
        if !is_vut {
            if let Some(t) = self.tracks.iter_mut().find(|t| *t.spec.id == *s.vehicle) {
                t.measured = true;
            }
            return;
        }
        self.samples += 1;
        self.update_vut_path(s);
        // The lane departure is measured along the planned path, not beyond its end.
        let on_plan = self
            .vut_path
            .as_ref()
            .is_none_or(|p| p.s.is_none_or(|at| at <= p.line.length()));
        if let (true, Some(le), Some(v)) = (on_plan, &mut self.lane_edge, self.twin.state_at(slot))
        {
            le.step(v, self.twin.matcher());
        }
        self.plan_launch(s.time_s);
        self.plan_door(s);
        if let Some(last) = self.last_vut {
            let dt = s.time_s - last;
            // Expected interval: a slow-moving estimate that ignores single dropouts.
            self.dt_est = Some(match self.dt_est {
                None => dt,
                Some(e) if dt > 3.0 * e => e,
                Some(e) => 0.8 * e + 0.2 * dt,
            });
        }
        self.last_vut = Some(s.time_s);
        self.trend.push_back((s.time_s, s.speed_mps));
        while self.trend.len() > self.cfg.trend_window.max(2) {
            self.trend.pop_front();
        }
        let active = matches!(self.state, RunState::Armed | RunState::Running);
        self.hist.push(predict::Obs {
            t: s.time_s,
            x: s.x,
            y: s.y,
            yaw: s.yaw_rad,
            v: s.speed_mps,
        });
        // The smoothed state costs a pass over the history (noise estimate and fit), so it is
        // computed only while a crossing trigger is near (previous sample's TTC within
        // SMOOTH_LEAD_S of its threshold) or fired and not yet assessed — the only samples that
        // use it. It depends on the history alone, so when it is computed does not change it.
        let near = self.tracks.iter().any(|t| {
            t.crossing()
                && match t.phase {
                    Phase::Waiting | Phase::Scheduled { .. } => {
                        t.ttc.is_some_and(|c| c <= t.threshold + SMOOTH_LEAD_S)
                    }
                    Phase::Fired => !t.assessed,
                }
        });
        self.smooth = match (active && near, self.cfg.method) {
            (true, TriggerMethod::Predicted) => {
                let yaw_rate = self
                    .twin
                    .get(&self.cfg.vut_id)
                    .map_or(0.0, |v| v.yaw_rate_rps);
                self.hist.smoothed(yaw_rate)
            }
            _ => None,
        };
        for i in 0..self.tracks.len() {
            let snap = {
                let t = &self.tracks[i];
                Snap {
                    t: s.time_s,
                    x: s.x,
                    y: s.y,
                    yaw: s.yaw_rad,
                    v: s.speed_mps,
                    ttc: self.geo().ttc(&t.spec, s.x, s.y, s.yaw_rad, s.speed_mps),
                }
            };
            self.tracks[i].ttc = snap.ttc;
            // The trigger's view of this sample: on noisy telemetry the smoothed state, so the
            // prediction, the crossing located afterwards (fire error) and the retime all refer
            // to the same estimate of the VUT (predict.rs); on clean telemetry the sample.
            let tsnap = match &self.smooth {
                Some(sm) => {
                    let (x, y, yaw, v) = sm.at(0.0);
                    let spec = &self.tracks[i].spec;
                    Snap {
                        t: s.time_s,
                        x,
                        y,
                        yaw,
                        v,
                        ttc: self.geo().ttc(spec, x, y, yaw, v).or(snap.ttc),
                    }
                }
                None => snap,
            };
            if self.tracks[i].is_conflict() {
                self.check_conflict_impact(i, &snap);
                if active && self.tracks[i].started_s.is_none() {
                    self.step_trigger(i, &tsnap);
                }
            } else if self.tracks[i].crossing() {
                self.check_impact(i, &snap);
                if active {
                    self.step_trigger(i, &tsnap);
                }
            } else {
                self.step_headway(i, &snap, active);
                self.check_longitudinal_impact(i, &snap);
            }
            let t = &mut self.tracks[i];
            if tsnap.ttc.is_some_and(|v| v > t.threshold) {
                t.last_above = Some(tsnap);
            }
            t.prev = Some(snap);
        }
        if active {
            self.sync_step(s.time_s);
        }
        self.update_dummies(s.time_s);
        self.validity_step(s);
        self.trace_step(s);
    }

    fn check_impact(&mut self, i: usize, snap: &Snap) {
        let d_front = self.vut.reference_to_front_m;
        let width = self.vut.width_m;
        let t = &self.tracks[i];
        if t.impact.is_some() {
            return;
        }
        let Some(prev) = t.prev else { return };
        let yaw = t.profile.yaw;
        let dir = match t.dir {
            Some((y, c, s)) if y == yaw => (c, s),
            _ => (yaw.cos(), yaw.sin()),
        };
        let g0 = match t.gap {
            Some((at, g)) if at == prev.t => g,
            _ => path_gap_dir(prev.x, prev.y, prev.yaw, &t.profile, d_front, dir),
        };
        let g1 = path_gap_dir(snap.x, snap.y, snap.yaw, &t.profile, d_front, dir);
        self.tracks[i].gap = Some((snap.t, g1));
        self.tracks[i].dir = Some((yaw, dir.0, dir.1));
        let t = &self.tracks[i];
        let (Some(g0), Some(g1)) = (g0, g1) else {
            return;
        };
        if !(g0 > 0.0 && g1 <= 0.0) {
            return;
        }
        let w = g0 / (g0 - g1);
        let time = prev.t + w * (snap.t - prev.t);
        let (x, y, yaw, _) = Snap::lerp(&prev, snap, w);
        let from_right = {
            let (c, s) = (yaw.cos(), yaw.sin());
            (c * (t.profile.start_y - y) - s * (t.profile.start_x - x)) < 0.0
        };
        let (travel, overlap, point) = match t.origin() {
            Some(origin) => {
                let travel = t.profile.travel(time - origin);
                let (dx, dy) = t.profile.position(time - origin);
                // Side the dummy comes from, relative to the VUT heading.
                let (c, s) = (yaw.cos(), yaw.sin());
                let side = (c * (t.profile.start_y - y) - s * (t.profile.start_x - x)).signum();
                let lateral = side * (c * (dy - y) - s * (dx - x));
                (
                    Some(travel),
                    Some((0.5 * width - lateral) / width),
                    Some(super::Point { x: dx, y: dy }),
                )
            }
            None => (None, None, None),
        };
        let v_imp = prev.v + w * (snap.v - prev.v);
        let nominal_kmh = self.vut.speed_kmh;
        let rec = ImpactRecord {
            target: t.spec.id.clone(),
            time_s: Some(time),
            dummy_travel_m: travel,
            nominal_travel_m: ttc_nominal(&t.spec, width),
            overlap,
            stopped_short_m: None,
            note: if travel.is_none() {
                Some("the trigger had not fired: the dummy did not move".into())
            } else {
                None
            },
            impact_point: nominal_kmh.and(point),
            impact_speed_kmh: nominal_kmh.map(|_| v_imp * 3.6),
            relative_speed_kmh: None,
            speed_reduction_kmh: nominal_kmh.map(|n| n - v_imp * 3.6),
            // From the VUT's right (nearside) edge: the dummy's side decides.
            location: overlap.map(|o| if from_right { o } else { 1.0 - o }),
            vut_speed_kmh: Some(v_imp * 3.6),
            arrival_error_s: None,
            closest_approach_m: None,
        };
        self.tracks[i].impact = Some(rec.clone());
        self.proto.impact_at(time);
        self.event(Event::Impact(rec));
    }

    fn event(&mut self, e: Event) {
        self.out.push_back(Output::Event(e));
    }
}
