//! A run's objects on the ground as `GET /runs/{id}` shows them (`"objects"`), for the
//! operator's Objects panel: in every state of the run — created (names and roles, their last
//! known pose and state), driving to their starts, armed, running, ended — each object's
//! state, pose, start pose and how far it stands from it, its link figures (MONR rate, loss and
//! latency, live while the objects' session is open, with a warning in words once a figure
//! passes its warning level) and its last fault in words.

use serde_json::{json, Value};

use super::Supervisor;
use crate::dispatch::control_centre::{CarrierConfig, ControlCentreHandle};
use crate::dispatch::ground::motion::fault_of;
use crate::dispatch::ground::{links, Pose};
use crate::dispatch::iso22133::ObjectState;
use crate::dispatch::link_health::{LinkLimits, MIN_JUDGED_SPAN_S};

/// The run's `"objects"`, or none when it has no objects on the ground.
pub fn view(st: &Supervisor, id: &str) -> Option<Value> {
    let mut v = match st.ground.shown(id) {
        Some(v) => v,
        None => created(st, id)?,
    };
    let handle = st
        .ground
        .handle(id)
        .or_else(|| links::open_for(&endpoints(&addresses(st, id))));
    let snap = handle.as_ref().map(ControlCentreHandle::snapshot);
    let opts = super::ground::options(&st.config.ground);
    let limits = opts.link_limits.unwrap_or_default();
    let faults = st.ground.faults(id);
    for o in v.as_array_mut()? {
        let name = o["name"].as_str().unwrap_or_default().to_string();
        if let (Some(p), Some(s)) = (pose_of(&o["pose"]), pose_of(&o["start"])) {
            let (d, h) = p.offset_to(&s);
            o["from_start"] = json!({"distance_m": d, "heading_deg": h});
        }
        let c = snap
            .as_ref()
            .and_then(|s| s.carriers.iter().find(|c| c.name == name));
        if let (Some(s), Some(c)) = (snap.as_ref(), c) {
            o["connected"] = json!(c.connected);
            if c.link_since_s.is_some() {
                o["link"] = json!({"rate_hz": c.link.rate_hz, "monr_loss": c.link.monr_loss,
                                   "latency_ms": c.link.latency_ms, "span_s": c.link.span_s});
                if let Some(w) = link_warning(c.link, &limits) {
                    o["link_warning"] = json!(w);
                }
            }
            if let (Some(l), Some(ObjectState::Running)) = (c.lag, c.state) {
                o["lag"] = json!({"m": l.m, "s": l.s});
            }
            if let Some(f) = fault_of(s, &name) {
                o["fault"] = json!(f);
            }
        }
        if o.get("fault").is_none() {
            if let Some(f) = faults.get(&name) {
                o["fault"] = json!(f);
            }
        }
    }
    Some(v)
}

/// A created run whose objects were neither positioned nor armed yet: names and roles, and
/// what is known of each object from before (its last pose and state).
fn created(st: &Supervisor, id: &str) -> Option<Value> {
    let run = st.active(id)?;
    if !super::ground::is_ground(&run.carriers).ok()? {
        return None;
    }
    let known = st.ground.known();
    Some(Value::Array(
        run.carriers
            .iter()
            .map(|c| {
                let (pose, state) = known.get(&c.name).copied().unwrap_or((None, None));
                json!({
                    "name": c.name,
                    "drives": c.drives,
                    "state": state.map(|s| format!("{s:?}").to_lowercase()),
                    "pose": pose.map(crate::dispatch::ground::PoseOut::from),
                    "start": null,
                    "at_start": null,
                })
            })
            .collect(),
    ))
}

/// The addresses of the run's objects (an active run's carriers, else its bench's).
fn addresses(st: &Supervisor, id: &str) -> Vec<String> {
    if let Some(run) = st.active(id) {
        return run.carriers.iter().map(|c| c.address.clone()).collect();
    }
    st.ground
        .get(id)
        .and_then(|g| {
            g.try_lock()
                .ok()
                .map(|g| g.ground.objects.iter().map(|o| o.address.clone()).collect())
        })
        .unwrap_or_default()
}

/// `host:tcp` of each address, as the links name their sessions' objects.
fn endpoints(addresses: &[String]) -> Vec<String> {
    addresses
        .iter()
        .filter_map(|a| CarrierConfig::parse_spec(&format!("o={a}"), 1).ok())
        .map(|c| format!("{}:{}", c.host, c.tcp_port))
        .collect()
}

fn pose_of(v: &Value) -> Option<Pose> {
    let (x, y, h) = (
        v["x"].as_f64()?,
        v["y"].as_f64()?,
        v["heading_deg"].as_f64()?,
    );
    Some(Pose::new(x, y, crate::frame::heading_to_yaw(h)))
}

/// A link figure past its warning level, in words (none over too short a stretch of MONR).
pub fn link_warning(
    l: crate::dispatch::link_health::LinkHealth,
    limits: &LinkLimits,
) -> Option<String> {
    if l.span_s < MIN_JUDGED_SPAN_S {
        return None;
    }
    let mut w = Vec::new();
    if l.monr_loss > limits.warn_monr_loss {
        w.push(format!(
            "MONR loss {:.0} % (warning above {:.0} %, arming refused above {:.0} %)",
            l.monr_loss * 100.0,
            limits.warn_monr_loss * 100.0,
            limits.max_monr_loss * 100.0
        ));
    }
    if l.latency_ms > limits.warn_latency_s * 1000.0 {
        w.push(format!(
            "latency {:.0} ms (warning above {:.0} ms)",
            l.latency_ms,
            limits.warn_latency_s * 1000.0
        ));
    }
    (!w.is_empty()).then(|| w.join(", "))
}
