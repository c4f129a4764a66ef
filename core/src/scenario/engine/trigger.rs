//! The trigger: when the VUT's TTC to a target's conflict point crosses the threshold, between
//! samples. At each sample the crossing is predicted from the VUT state extrapolated with its
//! speed trend (or, on noisy telemetry, the smoothed state of [`super::predict`]) and the START
//! scheduled at the predicted instant; once the first sample past the threshold is in, the
//! crossing is located on the interpolated state and the start is retimed to it.

use super::*;

impl Engine {
    pub(super) fn step_trigger(&mut self, i: usize, snap: &Snap) {
        let (phase, threshold) = (self.tracks[i].phase, self.tracks[i].threshold);
        let Some(ttc_raw) = snap.ttc else {
            return; // standing still or past the target
        };
        // On noisy telemetry the state at this sample is the smoothed one (predict.rs).
        let (x, y, yaw, v) = match &self.smooth {
            Some(sm) => sm.at(0.0),
            None => (snap.x, snap.y, snap.yaw, snap.v),
        };
        let ttc_now = match &self.smooth {
            Some(_) => self
                .geo()
                .ttc(&self.tracks[i].spec, x, y, yaw, v)
                .unwrap_or(ttc_raw),
            None => ttc_raw,
        };
        match phase {
            Phase::Waiting | Phase::Scheduled { .. } => {
                if ttc_now <= threshold {
                    // Crossed without a timer firing first (at-sample method, a late arm, or a
                    // prediction overtaken by a speed change): fire at this sample.
                    let d = self.geo().d_long(&self.tracks[i].spec, x, y, yaw);
                    self.fire(i, snap.t, ttc_now, d.unwrap_or(f64::NAN), v);
                    self.assess(i, snap);
                    return;
                }
                if self.cfg.method == TriggerMethod::AtSample {
                    return;
                }
                // Predicted far enough ahead for the start command's lead and the samples'
                // delay on their way here.
                let horizon = self.cfg.horizon_intervals * self.dt_est.unwrap_or(0.04)
                    + self.cfg.start_lead_s(&self.tracks[i].spec.id)
                    + self.cfg.telemetry_latency_s.max(0.0);
                match self.predict_crossing(i, snap, horizon) {
                    Some(tau) => {
                        let at_s = snap.t + tau;
                        self.tracks[i].phase = Phase::Scheduled { at_s };
                        self.event(Event::TriggerScheduled {
                            target: self.tracks[i].spec.id.clone(),
                            at_s,
                            from_sample_s: snap.t,
                        });
                    }
                    None => {
                        if let Phase::Scheduled { .. } = phase {
                            self.tracks[i].phase = Phase::Waiting;
                            self.event(Event::TriggerUnscheduled {
                                target: self.tracks[i].spec.id.clone(),
                                time_s: snap.t,
                            });
                        }
                    }
                }
            }
            Phase::Fired => {
                if ttc_raw <= threshold {
                    self.assess(i, snap);
                }
            }
        }
    }

    /// Once the first sample at or past the threshold is in, locate the crossing between it
    /// and the last sample above, report the start command's error and (optionally) retime.
    pub(super) fn assess(&mut self, i: usize, snap: &Snap) {
        let geo = conflict::Geo {
            vut: &self.vut,
            path: self.vut_path.as_ref(),
        };
        let t = &mut self.tracks[i];
        if t.assessed {
            return;
        }
        t.assessed = true;
        let Some(above) = t.last_above else {
            return; // armed with the VUT already inside the threshold: nothing to bracket
        };
        let spec = t.spec.clone();
        let g = |w: f64| {
            let (x, y, yaw, v) = Snap::lerp(&above, snap, w);
            geo.ttc(&spec, x, y, yaw, v).map(|c| c - t.threshold)
        };
        // g(0) > 0 ≥ g(1); bisection on the interpolated state (TTC is not linear in it).
        let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            match g(mid) {
                Some(v) if v > 0.0 => lo = mid,
                _ => hi = mid,
            }
        }
        let w = 0.5 * (lo + hi);
        let crossing = above.t + w * (snap.t - above.t);
        let (x, y, yaw, v) = Snap::lerp(&above, snap, w);
        let Some(rec) = t.trigger.as_mut() else {
            return;
        };
        let error_ms = (rec.fired_at_s - crossing) * 1000.0;
        rec.fire_error_ms = Some(error_ms);
        let retime = self.cfg.retime && self.cfg.method == TriggerMethod::Predicted;
        if retime {
            rec.time_s = crossing;
            rec.retimed = true;
            rec.ttc_s = geo.ttc(&spec, x, y, yaw, v).unwrap_or(f64::NAN);
            rec.d_long_m = geo.d_long(&spec, x, y, yaw).unwrap_or(f64::NAN);
            rec.vut_speed_mps = v;
        }
        let fired_at_s = rec.fired_at_s;
        let updated = rec.clone();
        let carrier = spec.carrier.clone();
        if retime {
            self.out.push_back(Output::Command(Command::Retime {
                target: spec.id.clone(),
                carrier,
                origin_s: crossing,
                correction_s: crossing - fired_at_s,
            }));
        }
        self.event(Event::TriggerAssessed(updated));
    }

    pub(super) fn fire(&mut self, i: usize, at_s: f64, ttc_s: f64, d_long_m: f64, v: f64) {
        let t = &mut self.tracks[i];
        t.phase = Phase::Fired;
        let rec = TriggerRecord {
            target: t.spec.id.clone(),
            time_s: at_s,
            fired_at_s: at_s,
            method: self.cfg.method,
            threshold_s: t.threshold,
            ttc_s,
            d_long_m,
            vut_speed_mps: v,
            fire_error_ms: None,
            retimed: false,
        };
        t.trigger = Some(rec.clone());
        self.out.push_back(Output::Command(Command::Start {
            target: t.spec.id.clone(),
            carrier: t.spec.carrier.clone(),
            at_s,
        }));
        self.state = RunState::Running;
        self.event(Event::Triggered(rec));
    }

    /// Least-squares slope of speed over the trend window (m/s²).
    pub(super) fn trend_accel(&self) -> f64 {
        let n = self.trend.len();
        if n < 3 {
            return 0.0;
        }
        let mt = self.trend.iter().map(|p| p.0).sum::<f64>() / n as f64;
        let mv = self.trend.iter().map(|p| p.1).sum::<f64>() / n as f64;
        let (mut sxy, mut sxx) = (0.0, 0.0);
        for (t, v) in &self.trend {
            sxy += (t - mt) * (v - mv);
            sxx += (t - mt) * (t - mt);
        }
        if sxx > 0.0 {
            sxy / sxx
        } else {
            0.0
        }
    }

    /// VUT state extrapolated from the last sample to `at_s`.
    pub(super) fn predict_state(&self, at_s: f64) -> (f64, f64, f64, f64) {
        if let Some(sm) = &self.smooth {
            return sm.at(at_s - sm.time_s());
        }
        let Some(v) = self.twin.get(&self.cfg.vut_id) else {
            return (f64::NAN, f64::NAN, f64::NAN, f64::NAN);
        };
        extrapolate(v, self.trend_accel(), at_s - v.time_s)
    }

    /// Smallest τ in [0, horizon] with TTC(τ) = threshold, by bisection on the kinematic
    /// extrapolation; `None` if the TTC stays above the threshold over the horizon.
    pub(super) fn predict_crossing(&self, i: usize, snap: &Snap, horizon: f64) -> Option<f64> {
        let t = &self.tracks[i];
        let v = self.twin.get(&self.cfg.vut_id)?;
        let a = self.trend_accel();
        let smooth = self.smooth;
        let geo = self.geo();
        let f = |tau: f64| {
            let (x, y, yaw, sp) = match &smooth {
                Some(sm) => sm.at(tau),
                None => extrapolate(v, a, tau),
            };
            geo.ttc(&t.spec, x, y, yaw, sp).map(|c| c - t.threshold)
        };
        debug_assert!((v.time_s - snap.t).abs() < 1e-12);
        match f(horizon) {
            Some(g) if g <= 0.0 => {}
            _ => return None,
        }
        let (mut lo, mut hi) = (0.0_f64, horizon);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            match f(mid) {
                Some(g) if g > 0.0 => lo = mid,
                _ => hi = mid,
            }
        }
        Some(0.5 * (lo + hi))
    }
}

/// Constant-acceleration, constant-yaw-rate extrapolation of a vehicle state by `tau` seconds.
pub(super) fn extrapolate(v: &VehicleState, accel: f64, tau: f64) -> (f64, f64, f64, f64) {
    // Do not extrapolate through a standstill.
    let tau_move = if accel < 0.0 && v.speed_mps + accel * tau < 0.0 {
        -v.speed_mps / accel
    } else {
        tau
    };
    let dist = v.speed_mps * tau_move + 0.5 * accel * tau_move * tau_move;
    let mid = v.yaw_rad + 0.5 * v.yaw_rate_rps * tau_move;
    (
        v.x + dist * mid.cos(),
        v.y + dist * mid.sin(),
        v.yaw_rad + v.yaw_rate_rps * tau_move,
        (v.speed_mps + accel * tau_move).max(0.0),
    )
}
