//! Co-simulation: a peer (BeamNG, a YaCoP tool, the built-in simulated VUT) is a source that
//! also receives the session's outputs every step.
//!
//! ```text
//! peer task ── Link::step(sample) ──▶ Feed::from_steps ──▶ driver ──▶ engine
//!     ▲                                                      │
//!     └──── StepOutputs (targets, VUT TTC) ◀── OutputsSink ◀─┘ (Sink::sample, after the step)
//! ```
//!
//! Lock-step: [`Link::step`] pushes the step's sample and waits until the driver is done with
//! it (applied, its outputs flushed, every sink called — or dropped by the injection); it then
//! returns the outputs the [`OutputsSink`] recorded after the last applied sample. So the answer
//! for step k always reflects step k's sample, whatever the wall clock does. The feed is not
//! live: engine timers fire in the peer's time only (a trigger predicted between two steps
//! fires when the next step shows it is due), so a co-simulation is deterministic.
//!
//! Protocol adapters: [`beamng`] (UDP, vehicleSystemsCoupling), [`yacop`] (TCP lines).

pub mod beamng;
pub mod session;
pub mod yacop;

use std::sync::{Arc, Mutex};

use serde::Serialize;
use tokio::sync::{mpsc, oneshot};

use super::setup::RunSetup;
use super::sink::{Sink, SinkCtx};
use super::source::stepped::Step;
use super::source::Feed;
use crate::sample::{InsSample, Sample};
use crate::scenario::engine::Engine;
use crate::scenario::profile::Profile;

/// One target as the peer sees it after a step (map frame).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetOut {
    pub id: String,
    /// The trigger has fired (the dummy moves).
    pub active: bool,
    pub x: f64,
    pub y: f64,
    pub yaw_rad: f64,
    pub speed_mps: f64,
    /// The VUT's TTC to this target (scenario method), when defined.
    pub ttc_s: Option<f64>,
}

/// What the session answers to a step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepOutputs {
    /// Sample time of the last applied sample (`None` before the first one).
    pub t: Option<f64>,
    pub targets: Vec<TargetOut>,
    /// The smallest VUT TTC over the targets.
    pub vut_ttc_s: Option<f64>,
    /// A VUT starting from standstill: when its launch was cued (sample time).
    pub vut_launch_s: Option<f64>,
    /// A dooring test: when the door was cued to open (sample time).
    pub door_opened_s: Option<f64>,
}

impl StepOutputs {
    /// Before any sample: every target inactive at its start point.
    pub fn initial(setup: &RunSetup) -> StepOutputs {
        StepOutputs {
            t: None,
            targets: setup
                .scenario
                .targets
                .iter()
                .map(|t| {
                    let p = Profile::of(t);
                    TargetOut {
                        id: t.id.clone(),
                        active: false,
                        x: p.start_x,
                        y: p.start_y,
                        yaw_rad: p.yaw,
                        speed_mps: 0.0,
                        ttc_s: None,
                    }
                })
                .collect(),
            vut_ttc_s: None,
            vut_launch_s: None,
            door_opened_s: None,
        }
    }

    /// Becomes a copy of `o`, reusing its own allocations.
    pub fn copy_from(&mut self, o: &StepOutputs) {
        if self.targets.len() == o.targets.len() {
            for (a, b) in self.targets.iter_mut().zip(&o.targets) {
                a.id.clone_from(&b.id);
                a.active = b.active;
                a.x = b.x;
                a.y = b.y;
                a.yaw_rad = b.yaw_rad;
                a.speed_mps = b.speed_mps;
                a.ttc_s = b.ttc_s;
            }
        } else {
            self.targets = o.targets.clone();
        }
        self.t = o.t;
        self.vut_ttc_s = o.vut_ttc_s;
        self.vut_launch_s = o.vut_launch_s;
        self.door_opened_s = o.door_opened_s;
    }

    /// The engine's state after a sample, in place (no allocation: this runs after every
    /// sample).
    pub fn update(&mut self, engine: &Engine, t: f64) {
        let twin = engine.twin();
        for o in self.targets.iter_mut() {
            let st = engine.target_states().find(|s| s.0 == o.id);
            if let Some(v) = twin.get(&o.id) {
                o.x = v.x;
                o.y = v.y;
                o.yaw_rad = v.yaw_rad;
                o.speed_mps = v.speed_mps;
            }
            o.active = st.is_some_and(|s| s.1);
            o.ttc_s = st.and_then(|s| s.2);
        }
        self.vut_ttc_s = self
            .targets
            .iter()
            .filter_map(|t| t.ttc_s)
            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.min(v))));
        self.t = Some(t);
        self.vut_launch_s = engine.vut_launch_s();
        self.door_opened_s = engine.door_opened_s();
    }
}

/// The sink that records the outputs after every applied sample.
pub struct OutputsSink {
    slot: Arc<Mutex<StepOutputs>>,
}

impl Sink for OutputsSink {
    fn name(&self) -> &'static str {
        "cosim"
    }

    fn sample(&mut self, _ctx: &SinkCtx<'_>, engine: &Engine, s: &Sample) {
        let mut g = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        g.update(engine, s.time_s);
    }
}

/// The peer side of the seam (see the module doc).
pub struct Link {
    tx: Option<mpsc::Sender<Step>>,
    slot: Arc<Mutex<StepOutputs>>,
}

/// The answer to one step.
#[derive(Debug, Clone)]
pub struct StepReply {
    pub outputs: StepOutputs,
    /// The session has ended (aborted, stopped): this was the last answer it gives.
    pub ended: bool,
}

impl Link {
    /// Pushes one step and waits until the session is done with it (see the module doc).
    pub async fn step(&mut self, sample: InsSample) -> StepReply {
        let mut outputs = self.outputs();
        let ended = self.step_into(sample, &mut outputs).await;
        StepReply { outputs, ended }
    }

    /// The outputs after the last applied sample.
    pub fn outputs(&self) -> StepOutputs {
        self.slot.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// [`Link::step`] answering into `out` (its allocations reused: a peer that steps every
    /// few milliseconds of sample time need not allocate per step); true once the session
    /// has ended.
    pub async fn step_into(&mut self, sample: InsSample, out: &mut StepOutputs) -> bool {
        let mut ended = true;
        if let Some(tx) = &self.tx {
            let (done, rx) = oneshot::channel();
            if tx.send(Step { sample, done }).await.is_ok() {
                ended = rx.await.is_err();
            }
        }
        if ended {
            self.tx = None;
        }
        out.copy_from(&self.slot.lock().unwrap_or_else(|p| p.into_inner()));
        ended
    }

    /// Ends the source: the session finishes after the last step.
    pub fn close(&mut self) {
        self.tx = None;
    }

    pub fn is_open(&self) -> bool {
        self.tx.is_some()
    }
}

/// The three parts of a co-simulation: the feed to run the session on, the sink to add to it
/// and the link the peer task steps through.
pub fn link(setup: &RunSetup, name: impl Into<String>) -> (Feed, OutputsSink, Link) {
    let (tx, rx) = mpsc::channel(1);
    let slot = Arc::new(Mutex::new(StepOutputs::initial(setup)));
    (
        Feed::from_steps(name, rx),
        OutputsSink { slot: slot.clone() },
        Link { tx: Some(tx), slot },
    )
}

pub use super::report::CosimReport;

impl CosimReport {
    pub fn note(&mut self, s: String) {
        if self.notes.len() < 10 {
            self.notes.push(s);
        }
    }
}

/// Answer latencies (wall clock, µs): p50/p99 of the adapter's message → answer time.
#[derive(Debug, Default, Clone)]
pub struct Latencies(pub Vec<f64>);

impl Latencies {
    pub fn push(&mut self, us: f64) {
        self.0.push(us);
    }

    pub fn percentile(&self, p: f64) -> Option<f64> {
        if self.0.is_empty() {
            return None;
        }
        let mut v = self.0.clone();
        v.sort_by(f64::total_cmp);
        let i = ((p / 100.0) * (v.len() - 1) as f64).round() as usize;
        v.get(i.min(v.len() - 1)).copied()
    }

    pub fn summary(&self) -> String {
        match (self.percentile(50.0), self.percentile(99.0)) {
            (Some(a), Some(b)) => format!(
                "answer latency p50 {a:.0} µs, p99 {b:.0} µs ({} answers)",
                self.0.len()
            ),
            _ => "no answers".into(),
        }
    }
}
