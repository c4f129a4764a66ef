//! The run's setup, built once: the scenario, its map (parsed once, with its one geo frame),
//! the interface block and the engine configuration. Every front end builds a [`RunSetup`],
//! from files (`scil replay`) or from stored parts (service runs), and everything downstream —
//! the engine, the carriers' OSEM origin and TRAJ profiles — is derived from it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::dispatch::control_centre::{CarrierConfig, CarrierMode, GeoOrigin};
use crate::dispatch::profile::DummyProfile;
use crate::frame::{GeoToMap, Interface};
use crate::map::Map;
use crate::scenario::engine::{Engine, EngineConfig};
use crate::scenario::Scenario;
use crate::twin::Twin;

/// Everything a run needs besides its source and sinks (see the module doc).
pub struct RunSetup {
    pub scenario: Scenario,
    pub map: Option<Arc<Map>>,
    pub interface: Interface,
    pub engine: EngineConfig,
}

impl RunSetup {
    /// Loads the scenario and its map (`map_override`, else the scenario's `map` relative to
    /// the scenario file). The xodr is read once.
    pub fn load(
        scenario_path: &Path,
        map_override: Option<&Path>,
        engine: EngineConfig,
    ) -> anyhow::Result<RunSetup> {
        let scenario = crate::xosc::load_scenario_file(scenario_path)?;
        let map_path: Option<PathBuf> = map_override
            .map(Path::to_path_buf)
            .or_else(|| scenario.map_path(scenario_path));
        let map = match map_path {
            Some(p) => Some(Arc::new(Map::load(&p)?)),
            None => None,
        };
        RunSetup::try_new(scenario, map, engine)
    }

    /// [`RunSetup::new`], with the scenario's lane paths resolved against the map first; an
    /// error names the target and the road/lane/s that does not exist, or the missing map.
    pub fn try_new(
        mut scenario: Scenario,
        map: Option<Arc<Map>>,
        engine: EngineConfig,
    ) -> anyhow::Result<RunSetup> {
        scenario
            .resolve_paths(map.as_ref().map(|m| &*m.road_network))
            .map_err(anyhow::Error::msg)?;
        Ok(RunSetup::new(scenario, map, engine))
    }

    /// A setup from already loaded parts (the service keeps maps parsed). Lane paths are
    /// resolved when they can be; use [`RunSetup::try_new`] to get the error when not.
    pub fn new(mut scenario: Scenario, map: Option<Arc<Map>>, engine: EngineConfig) -> RunSetup {
        let _ = scenario.resolve_paths(map.as_ref().map(|m| &*m.road_network));
        let mut interface = Interface::default();
        if let Some(r) = scenario.vut.steering_ratio {
            interface.steering_ratio = r;
        }
        if let Some(m) = &map {
            interface.geo = m.geo.clone().map(|g| g as Arc<dyn GeoToMap>);
        }
        RunSetup {
            scenario,
            map,
            interface,
            engine,
        }
    }

    /// A fresh engine on this setup (the twin map-matched when a map is loaded).
    pub fn engine(&self) -> Engine {
        let twin = Twin::new(self.map.as_ref().map(|m| m.matcher()));
        Engine::new(&self.scenario, self.engine.clone(), twin)
    }

    /// The VUT's vehicle id (NCOM samples are named with it).
    pub fn vut_id(&self) -> &str {
        &self.engine.vut_id
    }

    /// Target ids of the scenario, in order.
    pub fn target_ids(&self) -> Vec<String> {
        self.scenario.targets.iter().map(|t| t.id.clone()).collect()
    }

    /// (target, carrier) pairs: a target without a `carrier` key is moved by a carrier of its
    /// own name.
    pub fn target_carriers(&self) -> Vec<(String, String)> {
        self.scenario
            .targets
            .iter()
            .map(|t| {
                (
                    t.id.clone(),
                    t.carrier.clone().unwrap_or_else(|| t.id.clone()),
                )
            })
            .collect()
    }

    /// The ISO 22133 OSEM origin: the WGS84 position of the map frame's origin through the
    /// map's one geo frame (the same transform the twin uses for WGS84 samples), so that
    /// carrier positions (TRAJ, MONR) are map-frame metres. `None` without a geo frame.
    pub fn osem_origin(&self) -> Option<GeoOrigin> {
        let geo = self.map.as_ref()?.geo.as_ref()?;
        let (lat_deg, lon_deg) = geo.to_wgs84(0.0, 0.0);
        (lat_deg.is_finite() && lon_deg.is_finite()).then_some(GeoOrigin {
            lat_deg,
            lon_deg,
            alt_m: 0.0,
            rotation_deg: 0.0,
        })
    }

    /// Carrier configurations for `specs` (`NAME=HOST[:PORT]`), each with the TRAJ profile of
    /// its target (the engine's own profile: one kinematics for both). Every carrier of the
    /// scenario must be given, and only those.
    pub fn carrier_configs(&self, specs: &[String]) -> anyhow::Result<Vec<CarrierConfig>> {
        self.carrier_configs_except(specs, &[])
    }

    /// [`Self::carrier_configs`] where the targets `virtual_targets` exist only in the twin:
    /// they need no carrier.
    pub fn carrier_configs_except(
        &self,
        specs: &[String],
        virtual_targets: &[String],
    ) -> anyhow::Result<Vec<CarrierConfig>> {
        let targets: Vec<(String, String, DummyProfile, CarrierMode)> = self
            .scenario
            .targets
            .iter()
            .filter(|t| !virtual_targets.contains(&t.id))
            .map(|t| {
                let carrier = t.carrier.clone().unwrap_or_else(|| t.id.clone());
                (
                    t.id.clone(),
                    carrier,
                    DummyProfile::of_target(t),
                    t.carrier_mode.unwrap_or_default(),
                )
            })
            .collect();
        let mut out: Vec<CarrierConfig> = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let mut c =
                CarrierConfig::parse_spec(spec, i as u32 + 1).map_err(anyhow::Error::msg)?;
            let Some((_, _, profile, mode)) = targets.iter().find(|t| t.1 == c.name) else {
                anyhow::bail!(
                    "carrier {} is not used by any target of the scenario",
                    c.name
                );
            };
            if out.iter().any(|o| o.name == c.name) {
                anyhow::bail!("carrier {} given twice", c.name);
            }
            c.profile = Some(profile.clone());
            c.mode = *mode;
            out.push(c);
        }
        for (target, carrier, ..) in &targets {
            if !out.iter().any(|c| &c.name == carrier) {
                anyhow::bail!(
                    "target {target} needs carrier {carrier}: pass --carrier {carrier}=HOST[:PORT]"
                );
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared")
            .join(rel)
    }

    #[test]
    fn carriers_and_origin_from_one_setup() {
        let p = shared("scenarios/cpna75_30kmh.toml");
        if !p.exists() {
            return;
        }
        let s = RunSetup::load(&p, None, EngineConfig::default()).expect("loads");
        let c = s
            .carrier_configs(&["carrier-1=127.0.0.1:7001".to_string()])
            .expect("carriers");
        assert_eq!(c[0].tcp_port, 7001);
        assert!(c[0].profile.is_some());
        assert!(s.carrier_configs(&[]).is_err());
        assert!(s.carrier_configs(&["other=x".to_string()]).is_err());
        // tmerc map: the frame origin is +lat_0/+lon_0.
        let o = s.osem_origin().expect("origin");
        assert!((o.lat_deg - 46.8931).abs() < 1e-9 && (o.lon_deg - 16.8397).abs() < 1e-9);
    }

    /// A UTM map (no +lat_0/+lon_0): the carriers' OSEM origin comes from the same geo frame
    /// as the twin's, not 0/0 — and it maps back to the map frame's origin.
    #[test]
    fn osem_origin_of_a_utm_map() {
        let sc = shared("scenarios/cpna75_30kmh.toml");
        let map = shared("opendrive/synthetic/poly3_road.xodr");
        if !sc.exists() || !map.exists() {
            return;
        }
        let s = RunSetup::load(&sc, Some(&map), EngineConfig::default()).expect("loads");
        let geo = s
            .map
            .as_ref()
            .and_then(|m| m.geo.clone())
            .expect("UTM geo frame");
        let o = s.osem_origin().expect("origin");
        assert!(o.lat_deg.abs() > 1.0 && o.lon_deg.abs() > 1.0, "{o:?}");
        let (x, y) = geo.to_map(o.lat_deg, o.lon_deg);
        assert!(x.hypot(y) < 1e-3, "origin maps to ({x}, {y})");
        let cc = crate::run::sink::carriers::control_centre_config(
            &s,
            &crate::run::sink::carriers::CarrierOptions {
                carriers: vec!["carrier-1=127.0.0.1:7001".into()],
                ..Default::default()
            },
        )
        .expect("config");
        assert_eq!(
            (cc.origin.lat_deg, cc.origin.lon_deg),
            (o.lat_deg, o.lon_deg)
        );
    }
}
