//! `[ground]`: how runs with objects on the ground (the VUT's robot and the carriers) are
//! supervised, where they may drive, and what the site's objects can drive.

use serde::{Deserialize, Serialize};

/// Runs with objects on the ground (`[ground]`: the VUT's robot and the carriers): how closely
/// they are supervised.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct GroundConfig {
    /// Consecutive missing MONR of an object that abort (and make it "not armed").
    pub monr_miss_limit: u32,
    /// Heartbeat rate, Hz (an object stops after 10 missing periods).
    pub heab_rate_hz: u16,
    /// Wall time without VUT telemetry that aborts a started run, s.
    pub telemetry_stale_s: f64,
    /// Largest MONR loss of an object's link that still arms (0..1).
    pub max_monr_loss: f64,
    /// How long arming waits for every object to connect and report it can arm, s (a
    /// characterisation waits at most 5 s of it).
    pub connect_timeout_s: f64,
    /// Largest distance of an object from its own path once started, m (an object's
    /// `max_lateral_m` in the run's carriers overrides it).
    pub max_lateral_m: f64,
    /// Largest MONR speed above the object's planned speed where it is, km/h.
    pub max_overspeed_kmh: f64,
    /// Largest distance an armed object may move before its start, m.
    pub max_stand_m: f64,
    /// Largest distance between two MONR beyond what the object's speed explains, m.
    pub max_jump_m: f64,
    /// Geofences by map id (`[ground.geofence.<map>]`: `permitted = [[x, y], …]`,
    /// `forbidden = [[[x, y], …], …]`, the map's metres); `PUT /maps/{id}/geofence` overrides.
    pub geofence: std::collections::BTreeMap<String, crate::dispatch::motion_watch::Geofence>,
    /// What objects can drive (`[ground.capabilities.<key>]`, key a kind — `vut_robot`,
    /// `pedestrian_platform`, `vehicle_platform` — or an object's name; `max_accel_mps2`,
    /// `max_decel_mps2`, `max_speed_mps`, `dead_time_s`, `min_turn_radius_m`,
    /// `honours_mtsp`, `may_reverse`): over the kind's defaults, a name over its kind.
    pub capabilities: std::collections::BTreeMap<String, crate::capabilities::CapabilitiesPatch>,
}

impl GroundConfig {
    /// The site's capability layers for an object named `name`: by kind, then by its name.
    pub fn capability_layers(&self, name: &str) -> Vec<crate::capabilities::CapabilityLayer> {
        use crate::capabilities::{CapabilityLayer, ObjectKind, Source};
        let by_kind = self.capabilities.iter().filter_map(|(k, p)| {
            ObjectKind::parse(k).map(|kind| CapabilityLayer {
                kind: Some(kind),
                source: Source::Configured {
                    by: format!("[ground.capabilities.{k}]"),
                },
                patch: p.clone(),
            })
        });
        let by_name = self.capabilities.get(name).map(|p| CapabilityLayer {
            kind: None,
            source: Source::Configured {
                by: format!("[ground.capabilities.{name}]"),
            },
            patch: p.clone(),
        });
        by_kind.chain(by_name).collect()
    }

    /// The limits of the control centre's motion rules.
    pub fn motion_limits(&self) -> crate::dispatch::motion_watch::MotionLimits {
        crate::dispatch::motion_watch::MotionLimits {
            lateral_m: self.max_lateral_m,
            overspeed_mps: self.max_overspeed_kmh / 3.6,
            stand_m: self.max_stand_m,
            jump_m: self.max_jump_m,
            ..Default::default()
        }
    }
}

impl Default for GroundConfig {
    fn default() -> Self {
        GroundConfig {
            monr_miss_limit: 10,
            heab_rate_hz: 100,
            telemetry_stale_s: 0.2,
            max_monr_loss: 0.25,
            connect_timeout_s: 10.0,
            max_lateral_m: 1.0,
            max_overspeed_kmh: 3.6,
            max_stand_m: 0.5,
            max_jump_m: 1.0,
            geofence: Default::default(),
            capabilities: Default::default(),
        }
    }
}
