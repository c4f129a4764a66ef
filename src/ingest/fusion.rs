//! Merge of one vehicle's INS stream with its CAN stream, by source timestamp (sans-IO).
//!
//! CAN values fill the INS sample's `steering_wheel_deg` and `brake_light` when the INS source did
//! not provide them (an NCOM INS never does). The steering angle is either held (last CAN value at
//! or before the INS time) or linearly interpolated between the CAN values around the INS time;
//! the brake light and the FCW, booleans, are always held.
//!
//! In interpolation mode an INS sample is released only once a CAN steering value at or after its
//! time has arrived, or once INS time has moved `max_wait_s` past it (then the held value is used),
//! so the added latency is bounded. Hold mode never delays.
//!
//! Both streams must share a time base (the candump log of the shared data uses GPS seconds of
//! week like the replays).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::can::CanUpdate;
use crate::sample::InsSample;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FusionMode {
    /// Last value at or before the INS time.
    #[default]
    Hold,
    /// Linear interpolation of the steering angle.
    Interpolate,
}

/// Fusion state for one vehicle.
#[derive(Debug, Clone)]
pub struct Fusion {
    pub mode: FusionMode,
    /// Longest INS-time delay tolerated in interpolation mode, s.
    pub max_wait_s: f64,
    steering: VecDeque<(f64, f64)>,
    brake: VecDeque<(f64, bool)>,
    fcw: VecDeque<(f64, bool)>,
    wheel: VecDeque<(f64, f64)>,
    pending: VecDeque<InsSample>,
}

fn prune<T>(series: &mut VecDeque<(f64, T)>, t_min: f64) {
    // Keep the last value at or before t_min, and everything after.
    while series.len() >= 2 && series[1].0 <= t_min {
        series.pop_front();
    }
}

fn held<T: Copy>(series: &VecDeque<(f64, T)>, t: f64) -> Option<T> {
    series
        .iter()
        .take_while(|(ts, _)| *ts <= t)
        .last()
        .map(|(_, v)| *v)
}

impl Fusion {
    pub fn new(mode: FusionMode) -> Self {
        Self {
            mode,
            max_wait_s: 0.1,
            steering: VecDeque::new(),
            brake: VecDeque::new(),
            fcw: VecDeque::new(),
            wheel: VecDeque::new(),
            pending: VecDeque::new(),
        }
    }

    /// Adds a CAN update (out-of-order updates are dropped).
    pub fn push_can(&mut self, u: &CanUpdate) {
        if let Some(v) = u.steering_wheel_deg {
            if self.steering.back().is_none_or(|(t, _)| u.time_s > *t) {
                self.steering.push_back((u.time_s, v));
            }
        }
        if let Some(v) = u.brake_light {
            if self.brake.back().is_none_or(|(t, _)| u.time_s > *t) {
                self.brake.push_back((u.time_s, v));
            }
        }
        if let Some(v) = u.fcw {
            if self.fcw.back().is_none_or(|(t, _)| u.time_s > *t) {
                self.fcw.push_back((u.time_s, v));
            }
        }
        if let Some(v) = u.wheel_speed_mps {
            if self.wheel.back().is_none_or(|(t, _)| u.time_s > *t) {
                self.wheel.push_back((u.time_s, v));
            }
        }
    }

    /// Adds an INS sample; take fused samples with [`Fusion::poll`].
    pub fn push_ins(&mut self, s: InsSample) {
        self.pending.push_back(s);
    }

    fn steering_at(&self, t: f64, allow_hold: bool) -> Option<Option<f64>> {
        match self.mode {
            FusionMode::Hold => Some(held(&self.steering, t)),
            FusionMode::Interpolate => {
                let after = self.steering.iter().position(|(ts, _)| *ts >= t);
                match after {
                    Some(0) => Some(Some(self.steering[0].1)),
                    Some(i) => {
                        let (t0, v0) = self.steering[i - 1];
                        let (t1, v1) = self.steering[i];
                        let w = if t1 > t0 { (t - t0) / (t1 - t0) } else { 1.0 };
                        Some(Some(v0 + w * (v1 - v0)))
                    }
                    None if allow_hold => Some(held(&self.steering, t)),
                    None => None, // wait for a later CAN value
                }
            }
        }
    }

    /// Next fused sample, if one can be released.
    pub fn poll(&mut self) -> Option<InsSample> {
        let newest = self.pending.back().map(|s| s.time_s)?;
        let front_t = self.pending.front().map(|s| s.time_s)?;
        let allow_hold = newest - front_t >= self.max_wait_s;
        let steering = self.steering_at(front_t, allow_hold)?;
        let mut s = self.pending.pop_front()?;
        if s.steering_wheel_deg.is_none() {
            s.steering_wheel_deg = steering;
        }
        if s.brake_light.is_none() {
            s.brake_light = held(&self.brake, s.time_s);
        }
        if s.wheel_speed_mps.is_none() {
            s.wheel_speed_mps = held(&self.wheel, s.time_s);
        }
        if s.fcw.is_none() {
            s.fcw = held(&self.fcw, s.time_s);
        }
        prune(&mut self.steering, s.time_s);
        prune(&mut self.brake, s.time_s);
        prune(&mut self.fcw, s.time_s);
        prune(&mut self.wheel, s.time_s);
        Some(s)
    }

    /// Releases everything pending (end of stream), holding where no later CAN value exists.
    pub fn flush(&mut self) -> Vec<InsSample> {
        let wait = self.max_wait_s;
        self.max_wait_s = f64::NEG_INFINITY;
        let mut out = Vec::new();
        while let Some(s) = self.poll() {
            out.push(s);
        }
        self.max_wait_s = wait;
        out
    }
}

/// Async driver: merges an INS channel and a CAN-update channel into fused samples. Ends when the
/// INS channel closes (pending samples are flushed) or the output is dropped.
pub async fn fuse_task(
    mut fusion: Fusion,
    mut ins: tokio::sync::mpsc::Receiver<InsSample>,
    mut can: tokio::sync::mpsc::Receiver<CanUpdate>,
    tx: tokio::sync::mpsc::Sender<InsSample>,
) {
    let mut can_open = true;
    loop {
        tokio::select! {
            u = can.recv(), if can_open => match u {
                Some(u) => fusion.push_can(&u),
                None => can_open = false,
            },
            s = ins.recv() => match s {
                Some(s) => fusion.push_ins(s),
                None => break,
            },
        }
        while let Some(s) = fusion.poll() {
            if tx.send(s).await.is_err() {
                return;
            }
        }
    }
    for s in fusion.flush() {
        if tx.send(s).await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::InsPosition;

    fn ins(t: f64) -> InsSample {
        InsSample {
            time_s: t,
            vehicle: "vut".into(),
            position: InsPosition::Local { x: 0.0, y: 0.0 },
            heading_deg: 0.0,
            speed_mps: 0.0,
            steering_wheel_deg: None,
            brake_light: None,
            accel_mps2: None,
            yaw_rate_rps: None,
            wheel_speed_mps: None,
            fcw: None,
        }
    }

    fn can(t: f64, steer: f64, brake: Option<bool>) -> CanUpdate {
        CanUpdate {
            time_s: t,
            steering_wheel_deg: Some(steer),
            brake_light: brake,
            wheel_speed_mps: None,
            fcw: None,
        }
    }

    #[test]
    fn hold_and_interpolate() {
        for (mode, expect) in [(FusionMode::Hold, 1.0), (FusionMode::Interpolate, 1.5)] {
            let mut f = Fusion::new(mode);
            f.push_can(&can(0.0, 1.0, Some(true)));
            f.push_ins(ins(0.005));
            if mode == FusionMode::Interpolate {
                assert!(f.poll().is_none(), "waits for a later CAN value");
            }
            f.push_can(&can(0.01, 2.0, None));
            let s = f.poll().unwrap();
            assert!((s.steering_wheel_deg.unwrap() - expect).abs() < 1e-12);
            assert_eq!(s.brake_light, Some(true));
        }
    }

    #[test]
    fn bounded_wait() {
        let mut f = Fusion::new(FusionMode::Interpolate);
        f.push_can(&can(0.0, 1.0, None));
        f.push_ins(ins(0.01));
        f.push_ins(ins(0.2));
        let s = f.poll().unwrap();
        assert_eq!(s.steering_wheel_deg, Some(1.0));
        assert_eq!(f.flush().len(), 1);
    }
}
