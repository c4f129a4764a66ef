//! Glue between a paced replay (or live telemetry) and the control centre.
//!
//! * [`carriers_from_scenario`]: scenario targets + `--carrier NAME=HOST[:PORT]` → carrier
//!   configurations with the dummy's TRAJ profile.
//! * [`origin_from_georeference`]: OSEM origin from the map's `geoReference` (`+lat_0`, `+lon_0`).
//! * [`LiveDispatch`]: maps sample time (the engine's time base) to wall time through the
//!   pacing anchor, feeds the stale-telemetry rule, and turns engine commands into
//!   `start_carrier_at` (per target's carrier), `retime` (MTSP) and `abort` on the control
//!   centre.
//! * [`carrier_reports`]: the per-carrier JSON result (states seen, STRT time and latency,
//!   dummy travel at impact).

use super::control_centre::{CarrierConfig, CarrierMode, ControlCentreHandle, GeoOrigin, Snapshot};
use super::events::Phase;
use super::iso22133::ObjectState;
use super::profile::DummyProfile;
use crate::scenario::profile::Profile;
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Duration;
use tokio::time::Instant;

/// Dispatch-relevant facts of a scenario file.
#[derive(Debug, Clone)]
pub struct ScenarioDispatch {
    /// Map path resolved relative to the scenario file.
    pub map: Option<std::path::PathBuf>,
    /// (target id, carrier name, profile, mode)
    pub targets: Vec<(String, String, DummyProfile, CarrierMode)>,
}

/// Reads the dispatch-relevant facts through the one scenario parser ([`Scenario`]).
pub fn read_scenario(path: &Path) -> anyhow::Result<ScenarioDispatch> {
    let sc = Scenario::from_path(path)?;
    Ok(ScenarioDispatch {
        map: sc.map_path(path),
        ..ScenarioDispatch::of(&sc)
    })
}

impl ScenarioDispatch {
    /// Dispatch facts of an already parsed scenario (no map path).
    pub fn of(sc: &Scenario) -> ScenarioDispatch {
        ScenarioDispatch {
            map: None,
            targets: dispatch_targets(sc),
        }
    }
}

fn dispatch_targets(sc: &Scenario) -> Vec<(String, String, DummyProfile, CarrierMode)> {
    sc.targets
        .iter()
        .map(|t| {
            let carrier = t.carrier.clone().unwrap_or_else(|| t.id.clone());
            // The engine's own profile of the target: one kinematics for both.
            let p = DummyProfile::new(Profile::of(t));
            (t.id.clone(), carrier, p, t.carrier_mode.unwrap_or_default())
        })
        .collect()
}

/// Ends the carriers' part of a run: NORMAL_STOP when they run, DISARM when armed but never
/// started (nothing after an abort, which already went out), then waits up to `timeout` for
/// every carrier to leave RUNNING and returns the final snapshot, after the last MONR had time
/// to land. One ending for `scil replay --carrier` and for service runs.
pub async fn stop_carriers(h: &ControlCentreHandle, aborted: bool, timeout: Duration) -> Snapshot {
    if !aborted {
        match h.snapshot().phase {
            Phase::Running => h.finish(),
            Phase::Armed | Phase::Arming => h.disarm(),
            _ => {}
        }
    }
    let _ = h
        .wait_for(timeout, |s| {
            s.carriers
                .iter()
                .all(|c| c.state != Some(ObjectState::Running))
        })
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    h.snapshot()
}

/// Carrier configurations for `specs` (`NAME=HOST[:PORT]`); each name must be a carrier of the
/// scenario, and every carrier of the scenario must be given.
pub fn carriers_from_scenario(
    scenario: &ScenarioDispatch,
    specs: &[String],
) -> anyhow::Result<Vec<CarrierConfig>> {
    let mut out = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let mut c = CarrierConfig::parse_spec(spec, i as u32 + 1).map_err(anyhow::Error::msg)?;
        let Some((_, _, profile, mode)) = scenario.targets.iter().find(|t| t.1 == c.name) else {
            anyhow::bail!(
                "carrier {} is not used by any target of the scenario",
                c.name
            );
        };
        c.profile = Some(*profile);
        c.mode = *mode;
        out.push(c);
    }
    for t in &scenario.targets {
        if !out.iter().any(|c| c.name == t.1) {
            anyhow::bail!(
                "target {} needs carrier {}: pass --carrier {}=HOST[:PORT]",
                t.0,
                t.1,
                t.1
            );
        }
    }
    Ok(out)
}

/// OSEM origin from a PROJ-style geoReference (`+lat_0=… +lon_0=…`); the map frame is then
/// taken as the local east/north frame at that origin.
pub fn origin_from_georeference(geo: &str) -> Option<GeoOrigin> {
    let get = |key: &str| {
        geo.split_whitespace()
            .find_map(|tok| tok.strip_prefix(key))
            .and_then(|v| v.parse::<f64>().ok())
    };
    Some(GeoOrigin {
        lat_deg: get("+lat_0=")?,
        lon_deg: get("+lon_0=")?,
        alt_m: 0.0,
        rotation_deg: 0.0,
    })
}

/// geoReference of an OpenDRIVE file (text between the tags, CDATA stripped).
pub fn georeference_of_map(xodr: &Path) -> Option<String> {
    let text = std::fs::read_to_string(xodr).ok()?;
    let start = text.find("<geoReference>")? + "<geoReference>".len();
    let end = start + text[start..].find("</geoReference>")?;
    Some(
        text[start..end]
            .replace("<![CDATA[", "")
            .replace("]]>", "")
            .trim()
            .to_string(),
    )
}

/// Sample time ↔ wall time for a paced replay, plus the control-centre calls.
pub struct LiveDispatch {
    pub handle: ControlCentreHandle,
    anchor: Option<(f64, Instant)>,
    speed: f64,
    /// Decision instants (wall) of start commands, for the report.
    pub start_decisions: Vec<(Instant, f64)>,
}

impl LiveDispatch {
    pub fn new(handle: ControlCentreHandle, speed: f64) -> Self {
        Self {
            handle,
            anchor: None,
            speed: if speed > 0.0 { speed } else { 1.0 },
            start_decisions: Vec::new(),
        }
    }

    /// Anchor sample time `t_s` to the wall instant `at` (first sample of a paced replay).
    pub fn anchor(&mut self, t_s: f64, at: Instant) {
        self.anchor = Some((t_s, at));
    }

    /// A sample with time `t_s` was delivered now.
    pub fn on_sample(&mut self, t_s: f64) {
        if self.anchor.is_none() {
            self.anchor = Some((t_s, Instant::now()));
        }
        self.handle.telemetry();
    }

    /// Wall instant for sample time `t_s`.
    pub fn wall(&self, t_s: f64) -> Instant {
        match self.anchor {
            Some((t0, w0)) => {
                let d = (t_s - t0) / self.speed;
                if d >= 0.0 {
                    w0 + Duration::from_secs_f64(d)
                } else {
                    w0.checked_sub(Duration::from_secs_f64(-d)).unwrap_or(w0)
                }
            }
            None => Instant::now(),
        }
    }

    /// Sample time for a wall instant.
    pub fn sample_time(&self, at: Instant) -> Option<f64> {
        let (t0, w0) = self.anchor?;
        let d = if at >= w0 {
            at.duration_since(w0).as_secs_f64()
        } else {
            -w0.duration_since(at).as_secs_f64()
        };
        Some(t0 + d * self.speed)
    }

    /// Engine said: start at sample time `at_s` (STRT leaves at the mapped wall instant).
    pub fn start(&mut self, at_s: f64) {
        let at = self.wall(at_s);
        self.start_decisions.push((Instant::now(), at_s));
        self.handle.start_at(at);
    }

    /// Engine said: start this carrier (one target's) at sample time `at_s`.
    pub fn start_carrier(&mut self, carrier: &str, at_s: f64) {
        let at = self.wall(at_s);
        self.start_decisions.push((Instant::now(), at_s));
        self.handle.start_carrier_at(carrier, at);
    }

    /// Engine said: the target's profile origin is sample time `origin_s` → MTSP to its
    /// carrier with the mapped wall instant. Returns false when there is no pacing anchor yet
    /// (nothing can have started, nothing is sent).
    pub fn retime(&mut self, carrier: &str, origin_s: f64) -> bool {
        if self.anchor.is_none() {
            return false;
        }
        self.handle.retime(carrier, self.wall(origin_s));
        true
    }

    pub fn abort(&self, reason: &str) {
        self.handle.abort(reason);
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StateSeen {
    /// Sample time base (when a pacing anchor exists), else seconds since the control centre's epoch.
    pub t_s: f64,
    pub state: ObjectState,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CarrierReport {
    pub carrier: String,
    pub states_seen: Vec<StateSeen>,
    /// STRT written to the socket (sample time base).
    pub strt_sent_s: Option<f64>,
    /// STRT's scheduled instant (sample time base).
    pub strt_scheduled_s: Option<f64>,
    /// Scheduled/decision instant → STRT written, µs.
    pub strt_latency_us: Option<f64>,
    pub strt_timer_late_us: Option<f64>,
    /// Dummy travel from its start position at the impact instant, from MONR.
    pub travel_at_impact_m: Option<f64>,
    pub final_position: (f64, f64),
    pub monr_count: u64,
    pub malformed_frames: u64,
}

/// Per-carrier result. `to_sample_time` maps control-centre seconds to the sample time base
/// (identity when `None`); `impact_s` is the impact instant in the sample time base.
pub fn carrier_reports(
    snap: &Snapshot,
    live: Option<&LiveDispatch>,
    impact_s: Option<f64>,
) -> Vec<CarrierReport> {
    type Map<'a> = Box<dyn Fn(f64) -> f64 + 'a>;
    let (epoch_map, inverse): (Map, Map) = match live {
        Some(l) if l.anchor.is_some() => {
            let epoch = l.handle.epoch();
            let f = move |t: f64| {
                l.sample_time(epoch + Duration::from_secs_f64(t.max(0.0)))
                    .unwrap_or(t)
            };
            let g = move |s: f64| l.wall(s).saturating_duration_since(epoch).as_secs_f64();
            (Box::new(f), Box::new(g))
        }
        _ => (Box::new(|t| t), Box::new(|t| t)),
    };
    snap.carriers
        .iter()
        .map(|c| CarrierReport {
            carrier: c.name.clone(),
            states_seen: c
                .states_seen
                .iter()
                .map(|(t, s)| StateSeen {
                    t_s: epoch_map(*t),
                    state: *s,
                })
                .collect(),
            strt_sent_s: c.strt_written_s.map(&epoch_map),
            strt_scheduled_s: c.strt_scheduled_s.map(&epoch_map),
            strt_latency_us: c.strt_latency_us,
            strt_timer_late_us: c.strt_timer_late_us,
            travel_at_impact_m: impact_s.and_then(|s| c.travel_at(inverse(s))),
            final_position: (c.x, c.y),
            monr_count: c.monr_count,
            malformed_frames: c.malformed_frames,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_and_georeference() {
        let p = Path::new("/work/shared/scenarios/cpna75_30kmh.toml");
        if !p.exists() {
            return;
        }
        let s = read_scenario(p).expect("reads");
        assert_eq!(s.targets.len(), 1);
        assert_eq!(s.targets[0].1, "carrier-1");
        let c = carriers_from_scenario(&s, &["carrier-1=127.0.0.1:7001".to_string()])
            .expect("carriers");
        assert_eq!(c[0].tcp_port, 7001);
        assert!(carriers_from_scenario(&s, &[]).is_err());
        assert!(carriers_from_scenario(&s, &["other=x".to_string()]).is_err());
        let geo = georeference_of_map(s.map.as_deref().expect("map")).expect("geoReference");
        let o = origin_from_georeference(&geo).expect("origin");
        assert!((o.lat_deg - 46.8931).abs() < 1e-9 && (o.lon_deg - 16.8397).abs() < 1e-9);
    }
}
