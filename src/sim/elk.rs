//! The simulated VUT's emergency lane keeping (`tlc=0.3,lat_accel=3,delay_ms=100`): for a VUT
//! that drifts out of its lane (`vut.drift`), each step it measures the distance from the outer
//! front corner to the lane's edge on the map (the engine's [`LaneGauge`], the same measure the
//! run's `lane_departure` reports) and the lateral speed towards it. When the time to line
//! crossing (distance / lateral speed) reaches `tlc_s`, it steers back `delay_ms` later: a
//! lateral acceleration of `lat_accel_mps2` away from the edge until the VUT no longer moves
//! towards it, then straight on, parallel to the lane.

use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::scenario::engine::LaneGauge;
use crate::scenario::DriftSpec;
use crate::twin::MapMatcher;

/// The ELK model's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ElkParams {
    /// Intervene when the time to line crossing reaches this, s.
    pub tlc_s: f64,
    /// Lateral acceleration of the correction, m/s².
    pub lat_accel_mps2: f64,
    /// From the decision to the correction, ms.
    pub delay_ms: f64,
}

impl Default for ElkParams {
    fn default() -> Self {
        ElkParams {
            tlc_s: 0.3,
            lat_accel_mps2: 3.0,
            delay_ms: 100.0,
        }
    }
}

impl ElkParams {
    pub fn validate(&self) -> Result<(), String> {
        let ok = |n: &str, v: f64, lo: f64, hi: f64| {
            if v.is_finite() && (lo..=hi).contains(&v) {
                Ok(())
            } else {
                Err(format!("elk {n} must be within {lo}..{hi}, got {v}"))
            }
        };
        ok("tlc", self.tlc_s, 0.0, 10.0)?;
        ok("lat_accel", self.lat_accel_mps2, 0.1, 10.0)?;
        ok("delay_ms", self.delay_ms, 0.0, 5000.0)
    }
}

impl FromStr for ElkParams {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut e = ElkParams::default();
        for (k, v) in crate::run::source::inject::key_values(s).map_err(|e| format!("elk {e}"))? {
            match k {
                "tlc" | "tlc_s" => e.tlc_s = v,
                "lat_accel" | "lat_accel_mps2" => e.lat_accel_mps2 = v,
                "delay_ms" | "delay" => e.delay_ms = v,
                other => {
                    return Err(format!(
                        "unknown elk key '{other}' (tlc, lat_accel, delay_ms)"
                    ))
                }
            }
        }
        e.validate()?;
        Ok(e)
    }
}

/// The model's state on one simulated VUT.
#[derive(Clone)]
pub struct SimElk {
    pub params: ElkParams,
    gauge: LaneGauge,
    matcher: Arc<dyn MapMatcher>,
    drift: DriftSpec,
    /// The VUT's nominal speed, at which the drift is laid out, m/s.
    v_nom: f64,
    /// +1: the drift goes left, −1: right.
    side: f64,
    /// Sideways correction of the VUT from its drifting path (left positive), m; its rate, m/s,
    /// and the rate's last change, m/s².
    pub offset_m: f64,
    pub rate_mps: f64,
    pub accel_mps2: f64,
    /// When it decided to intervene, s.
    pub decided_s: Option<f64>,
    /// The correction is done: the VUT drives parallel to the lane.
    holding: bool,
}

impl std::fmt::Debug for SimElk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimElk")
            .field("params", &self.params)
            .field("offset_m", &self.offset_m)
            .field("decided_s", &self.decided_s)
            .finish()
    }
}

impl SimElk {
    /// For a VUT with a drift whose lane the map knows; `None` otherwise.
    pub fn new(
        params: ElkParams,
        vut: &crate::scenario::VutSpec,
        matcher: Arc<dyn MapMatcher>,
    ) -> Option<SimElk> {
        let drift = vut.drift?;
        let gauge = LaneGauge::of(vut, Some(&*matcher))?;
        Some(SimElk {
            params,
            gauge,
            matcher,
            drift,
            v_nom: vut.speed_kmh? / 3.6,
            side: if drift.lateral_mps >= 0.0 { 1.0 } else { -1.0 },
            offset_m: 0.0,
            rate_mps: 0.0,
            accel_mps2: 0.0,
            decided_s: None,
            holding: false,
        })
    }

    /// The drifting path's own lateral speed at arc length `s` and speed `v` (left positive).
    fn path_rate(&self, s: f64, v: f64) -> f64 {
        let h = 0.05;
        let slope = (self.drift.offset_at(s + h, self.v_nom)
            - self.drift.offset_at(s - h, self.v_nom))
            / (2.0 * h);
        v * slope
    }

    /// One step of `dt` at time `t`: the VUT at arc length `s`, speed `v`, its INS reference
    /// point (with the correction so far) at `reference`.
    pub fn step(&mut self, t: f64, dt: f64, s: f64, v: f64, reference: (f64, f64, f64)) {
        let path_rate = self.path_rate(s, v);
        if self.decided_s.is_none() {
            let out = self.side * (path_rate + self.rate_mps);
            let (x, y, yaw) = reference;
            if let Some(d) = self.gauge.dtle_at(&*self.matcher, x, y, yaw) {
                if out > 0.01 && d <= out * self.params.tlc_s {
                    self.decided_s = Some(t);
                }
            }
        }
        let acting = self
            .decided_s
            .is_some_and(|d| t >= d + self.params.delay_ms / 1000.0 - 1e-9);
        let before = self.rate_mps;
        if self.holding {
            self.rate_mps = -path_rate;
        } else if acting {
            self.rate_mps -= self.side * self.params.lat_accel_mps2 * dt;
            if self.side * (path_rate + self.rate_mps) <= 0.0 {
                self.rate_mps = -path_rate;
                self.holding = true;
            }
        }
        self.accel_mps2 = (self.rate_mps - before) / dt.max(1e-9);
        self.offset_m += self.rate_mps * dt;
    }
}
