//! The ground runs of this instance (their benches, kept after the run for the drive back)
//! and what is known of every object across runs: its last pose and state, the `objects` each
//! run last published, and the faults its session reported when it ended.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::dispatch::control_centre::ControlCentreHandle;
use crate::dispatch::ground::Prepared as GroundPrepared;
use crate::dispatch::ground::{Ground, Motion, Pose};
use crate::dispatch::iso22133::ObjectState;
use crate::serve::supervisor::run::lock;

/// A run's objects: the bench, its plans, and the armed motion until the start.
pub struct GroundRun {
    pub ground: Ground,
    pub prepared: GroundPrepared,
    pub motion: Option<Motion>,
    /// The VUT robot's MONR is the run's telemetry.
    pub monr_source: bool,
}

/// An object's last known pose and state.
pub type Known = (Option<Pose>, Option<ObjectState>);

/// Most ended ground runs kept for their drive back.
const KEEP_RUNS: usize = 32;

/// A ground run by its run id.
type RunEntry = (String, Arc<tokio::sync::Mutex<GroundRun>>);

/// The ground runs of this instance and the objects' last known poses and states.
#[derive(Default)]
pub struct Board {
    runs: Mutex<Vec<RunEntry>>,
    last: Mutex<HashMap<String, Known>>,
    /// Drives back under way, by run (their control centres, for ABORT).
    pub returning: Mutex<HashMap<String, ControlCentreHandle>>,
    /// Each run's `"objects"` as last published (read without waiting for a drive back).
    shown: Mutex<HashMap<String, Value>>,
    /// Control centres of runs armed or running, by run (their objects' live MONR poses).
    pub live: Mutex<HashMap<String, ControlCentreHandle>>,
    /// Each ended run's faults in words, by object (what the session said when it ended).
    faults: Mutex<HashMap<String, HashMap<String, String>>>,
    /// Each object's measured capabilities (its latest characterisation), by name.
    measured: Mutex<HashMap<String, crate::capabilities::CapabilityLayer>>,
}

impl Board {
    /// The object's measured capabilities, when it was characterised.
    pub fn measured(&self, name: &str) -> Option<crate::capabilities::CapabilityLayer> {
        lock(&self.measured).get(name).cloned()
    }

    /// Keeps an object's latest measured capabilities.
    pub fn set_measured(&self, name: &str, layer: crate::capabilities::CapabilityLayer) {
        lock(&self.measured).insert(name.to_string(), layer);
    }

    pub fn insert(&self, run_id: &str, g: GroundRun) -> Arc<tokio::sync::Mutex<GroundRun>> {
        let g = Arc::new(tokio::sync::Mutex::new(g));
        let mut runs = lock(&self.runs);
        runs.retain(|(id, _)| id != run_id);
        runs.push((run_id.to_string(), g.clone()));
        if runs.len() > KEEP_RUNS {
            runs.remove(0);
        }
        g
    }

    /// Publishes the run's objects for `GET /runs/{id}`.
    pub fn publish(&self, run_id: &str, g: &GroundRun) {
        self.publish_status(run_id, &g.ground);
    }

    /// Publishes what a bench knows of the run's objects (also one whose arming was refused:
    /// its start poses and how far each object stands from its own).
    pub fn publish_status(&self, run_id: &str, g: &Ground) {
        let mut shown = lock(&self.shown);
        if shown.len() > KEEP_RUNS * 2 {
            shown.clear();
        }
        shown.insert(run_id.to_string(), status_json(g));
    }

    /// The control centre of the run's objects while a motion of the run uses it.
    pub fn handle(&self, run_id: &str) -> Option<ControlCentreHandle> {
        let returning = lock(&self.returning).get(run_id).cloned();
        returning.or_else(|| lock(&self.live).get(run_id).cloned())
    }

    /// The last known pose and state of every object, by name.
    pub fn known(&self) -> HashMap<String, Known> {
        lock(&self.last).clone()
    }

    /// The faults an ended run's session reported, by object.
    pub fn faults(&self, run_id: &str) -> HashMap<String, String> {
        lock(&self.faults).get(run_id).cloned().unwrap_or_default()
    }

    /// The run's objects as last published, with the live MONR pose and state of each while
    /// its control centre runs (`state` reads `returning` during a drive back).
    pub fn shown(&self, run_id: &str) -> Option<Value> {
        let mut v = lock(&self.shown).get(run_id).cloned()?;
        let returning = lock(&self.returning).get(run_id).cloned();
        let live = returning
            .clone()
            .or_else(|| lock(&self.live).get(run_id).cloned());
        if let (Some(h), Some(a)) = (live, v.as_array_mut()) {
            let snap = h.snapshot();
            for o in a {
                let Some(c) = snap.carriers.iter().find(|c| o["name"] == c.name.as_str()) else {
                    continue;
                };
                if c.last_monr_s.is_some() {
                    o["pose"] = json!({"x": c.x, "y": c.y,
                        "heading_deg": crate::frame::yaw_to_heading(c.yaw_deg.to_radians())});
                }
                o["state"] = match (&returning, c.state) {
                    (Some(_), _) => json!("returning"),
                    (None, Some(st)) => json!(format!("{st:?}").to_lowercase()),
                    (None, None) => json!("disconnected"),
                };
            }
        }
        Some(v)
    }

    pub fn get(&self, run_id: &str) -> Option<Arc<tokio::sync::Mutex<GroundRun>>> {
        lock(&self.runs)
            .iter()
            .find(|(id, _)| id == run_id)
            .map(|(_, g)| g.clone())
    }

    /// Remembers where each object of `g` is now.
    pub fn remember(&self, g: &Ground) {
        let mut last = lock(&self.last);
        for s in g.status() {
            last.insert(s.name.clone(), (s.pose, s.state));
        }
    }

    /// A run ended: its objects' poses remembered, its `objects` published, its control centre
    /// no longer live. Runs without objects pass.
    pub async fn settled(&self, run_id: &str) {
        let Some(g) = self.get(run_id) else {
            return;
        };
        let g = g.lock().await;
        self.remember(&g.ground);
        self.publish(run_id, &g);
        if let Some(h) = lock(&self.live).remove(run_id) {
            let snap = h.snapshot();
            let found: HashMap<String, String> = snap
                .carriers
                .iter()
                .filter_map(|c| {
                    crate::dispatch::ground::motion::fault_of(&snap, &c.name)
                        .map(|f| (c.name.clone(), f))
                })
                .collect();
            let mut faults = lock(&self.faults);
            if faults.len() > KEEP_RUNS * 2 {
                faults.clear();
            }
            faults.insert(run_id.to_string(), found);
        }
    }

    /// The last known pose of each named object (for a new bench).
    pub fn seed(&self, g: &mut Ground) {
        let last = lock(&self.last);
        let known: Vec<(String, Option<Pose>, Option<ObjectState>)> = g
            .status()
            .iter()
            .filter_map(|s| last.get(&s.name).map(|(p, st)| (s.name.clone(), *p, *st)))
            .collect();
        for (name, pose, state) in known {
            g.set_known(&name, pose, state);
        }
    }
}

/// What a bench knows of each object: name, drives, state, pose, start pose, at_start.
pub(super) fn status_json(g: &Ground) -> Value {
    let returning = false;
    Value::Array(
        g.status()
            .iter()
            .map(|s| {
                let pose = |p: Option<Pose>| {
                    p.map(|p| {
                        json!({"x": p.x, "y": p.y,
                               "heading_deg": crate::frame::yaw_to_heading(p.yaw)})
                    })
                };
                json!({
                    "name": s.name,
                    "drives": s.drives,
                    "state": if returning { json!("returning") } else {
                        s.state.map_or(Value::Null, |st| json!(format!("{st:?}").to_lowercase()))
                    },
                    "pose": pose(s.pose),
                    "start": pose(s.start),
                    "at_start": s.at_start,
                    "capabilities": s.capabilities,
                })
            })
            .collect(),
    )
}
