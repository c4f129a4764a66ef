//! The VUT's robot against the VUT's INS, where a run has both: at each INS sample of the VUT
//! that the run applies while the robot drives, the robot's latest MONR position is compared
//! with the INS position (both map frame, both the VUT's reference point). The difference is
//! split along and across the INS heading: across is where the robot believes the car is
//! beside where the INS measures it (mounting, survey or frame error); along also holds the
//! distance driven in the difference of the two links' latencies (speed × Δt).

use serde::Serialize;
use tokio::sync::broadcast;

use crate::dispatch::control_centre::MonrSample;
use crate::dispatch::iso22133::ObjectState;
use crate::run::{Sink, SinkCtx};
use crate::sample::Sample;
use crate::scenario::engine::Engine;

/// MONR-to-INS position difference of the VUT over a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct InsMonrDiff {
    /// The object that drives the VUT.
    pub object: String,
    /// INS samples compared (each with the robot's latest MONR while it drove).
    pub samples: u64,
    /// Horizontal distance, m.
    pub max_m: f64,
    pub rms_m: f64,
    /// Across the INS heading (positive: the robot's position to the left), m.
    pub mean_cross_m: f64,
    pub max_abs_cross_m: f64,
    /// Along the INS heading (positive: the robot's position ahead), m.
    pub mean_along_m: f64,
    pub max_abs_along_m: f64,
    /// The control centre's time less the run's sample time (the INS's), as the run applied
    /// its samples: puts the objects' MONR on the run's time base.
    #[serde(skip)]
    pub cc_minus_sample_s: Option<f64>,
}

impl InsMonrDiff {
    pub fn new(object: &str) -> InsMonrDiff {
        InsMonrDiff {
            object: object.to_string(),
            ..InsMonrDiff::default()
        }
    }

    /// Adds one pair: the INS position and heading (map yaw, rad) and the robot's position.
    pub fn add(&mut self, ins: (f64, f64, f64), monr: (f64, f64)) {
        let (dx, dy) = (monr.0 - ins.0, monr.1 - ins.1);
        let (s, c) = ins.2.sin_cos();
        let along = dx * c + dy * s;
        let cross = -dx * s + dy * c;
        let d = dx.hypot(dy);
        let n = self.samples as f64;
        self.rms_m = ((self.rms_m * self.rms_m * n + d * d) / (n + 1.0)).sqrt();
        self.mean_cross_m = (self.mean_cross_m * n + cross) / (n + 1.0);
        self.mean_along_m = (self.mean_along_m * n + along) / (n + 1.0);
        self.max_m = self.max_m.max(d);
        self.max_abs_cross_m = self.max_abs_cross_m.max(cross.abs());
        self.max_abs_along_m = self.max_abs_along_m.max(along.abs());
        self.samples += 1;
    }
}

/// The session sink that pairs the VUT's INS samples with its robot's MONR.
pub struct InsMonrSink {
    vut_id: String,
    /// The robot's index among the control centre's objects.
    idx: usize,
    monr: broadcast::Receiver<MonrSample>,
    last: Option<MonrSample>,
    diff: std::sync::Arc<std::sync::Mutex<InsMonrDiff>>,
    /// The control centre's epoch (its time 0).
    epoch: tokio::time::Instant,
}

impl InsMonrSink {
    /// `monr` is the control centre's MONR stream; the result is read from `diff` after the run.
    pub fn new(
        vut_id: &str,
        object: &str,
        idx: usize,
        monr: broadcast::Receiver<MonrSample>,
        epoch: tokio::time::Instant,
    ) -> (InsMonrSink, std::sync::Arc<std::sync::Mutex<InsMonrDiff>>) {
        let diff = std::sync::Arc::new(std::sync::Mutex::new(InsMonrDiff::new(object)));
        let sink = InsMonrSink {
            vut_id: vut_id.to_string(),
            idx,
            monr,
            last: None,
            diff: diff.clone(),
            epoch,
        };
        (sink, diff)
    }
}

impl Sink for InsMonrSink {
    fn name(&self) -> &'static str {
        "ins-monr"
    }

    fn sample(&mut self, ctx: &SinkCtx<'_>, _engine: &Engine, s: &Sample) {
        if *s.vehicle != *self.vut_id {
            return;
        }
        if let Some(w) = ctx.clock.wall(s.time_s) {
            let cc = w.saturating_duration_since(self.epoch).as_secs_f64()
                - self.epoch.saturating_duration_since(w).as_secs_f64();
            if let Ok(mut d) = self.diff.lock() {
                d.cc_minus_sample_s = Some(cc - s.time_s);
            }
        }
        loop {
            match self.monr.try_recv() {
                Ok(m) if m.carrier == self.idx => self.last = Some(m),
                Ok(_) | Err(broadcast::error::TryRecvError::Lagged(_)) => {}
                Err(_) => break,
            }
        }
        let Some(m) = &self.last else { return };
        if m.state != ObjectState::Running {
            return;
        }
        if let Ok(mut d) = self.diff.lock() {
            d.add((s.x, s.y, s.yaw_rad), (m.x, m.y));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_difference_is_split_along_and_across_the_heading() {
        let mut d = InsMonrDiff::new("robot");
        // Heading north (map yaw π/2): 0.2 m to the left is −x, 1 m ahead is +y.
        let yaw = std::f64::consts::FRAC_PI_2;
        d.add((10.0, 20.0, yaw), (9.8, 21.0));
        d.add((10.0, 30.0, yaw), (9.8, 30.0));
        assert_eq!(d.samples, 2);
        assert!((d.mean_cross_m - 0.2).abs() < 1e-12, "{d:?}");
        assert!((d.mean_along_m - 0.5).abs() < 1e-12, "{d:?}");
        assert!((d.max_abs_along_m - 1.0).abs() < 1e-12, "{d:?}");
        assert!((d.max_m - 1.04f64.sqrt()).abs() < 1e-12, "{d:?}");
        let rms = ((1.04 + 0.04) / 2.0f64).sqrt();
        assert!((d.rms_m - rms).abs() < 1e-12, "{d:?}");
    }
}
