//! AEB onset from the VUT's longitudinal acceleration, processed as the protocols process it
//! (Euro NCAP, ISO 22733-1): acceleration through the 12-pole phaseless Butterworth low-pass
//! at 10 Hz (a 6th-order design run forwards and backwards), and the onset the first instant
//! the filtered deceleration reaches the threshold. A raw difference of two consecutive speeds
//! is not an acceleration: at 100 Hz a 0.01 m/s step of a position-derived speed reads
//! −1 m/s², and would close the window on noise.
//!
//! The final verdict ([`onset`]) filters the whole record. The live check ([`LiveOnset`])
//! filters a sliding history and decides about each sample [`LOOKAHEAD_S`] after it: a
//! phaseless filter needs samples after the one it smooths. At 10 Hz the 6th-order
//! Butterworth's impulse response has decayed to under 1 % after about 0.1 s, so 0.1 s of
//! look-ahead puts the live onset within a sample or two of the final one; the live lamps of
//! the other channels are judged with the same delay (see [`super::Live`]'s caller), so that a
//! sample after the onset is never judged inside the window.

use std::collections::VecDeque;

use super::filter::Butterworth;
use super::{FILTER_CUTOFF_HZ, FILTER_ORDER};

/// How long after a sample the live check decides about it (s).
pub const LOOKAHEAD_S: f64 = 0.1;
/// History the live check filters over, before the sample it decides about (s).
const HISTORY_S: f64 = 1.0;

fn median_dt(t: &[f64]) -> Option<f64> {
    let mut d: Vec<f64> = t
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|d| *d > 0.0)
        .collect();
    if d.is_empty() {
        return None;
    }
    d.sort_by(f64::total_cmp);
    Some(d[d.len() / 2])
}

/// The accelerations filtered as the protocols filter them (unfiltered when the rate is too
/// low for the 10 Hz cut-off).
pub fn filtered(times: &[f64], accel: &[f64]) -> Vec<f64> {
    match median_dt(times)
        .and_then(|dt| Butterworth::lowpass(FILTER_ORDER, FILTER_CUTOFF_HZ, 1.0 / dt))
    {
        Some(f) => f.filtfilt(accel),
        None => accel.to_vec(),
    }
}

/// The first crossing of `-decel` at or after `from_s` among `(t, filtered a)` samples whose
/// time is in `(after_s, upto_s]`, interpolated between samples.
fn crossing(
    times: &[f64],
    f: &[f64],
    from_s: f64,
    decel: f64,
    after_s: f64,
    upto_s: f64,
) -> Option<f64> {
    let thr = -decel;
    for i in 0..times.len() {
        let t = times[i];
        if t < from_s - 1e-9 || t <= after_s || t > upto_s + 1e-9 {
            continue;
        }
        if f[i] > thr {
            continue;
        }
        // Interpolated between the previous sample and this one, never before T0.
        return Some(match i.checked_sub(1) {
            Some(j) if f[j] > thr && times[j] >= from_s - 1e-9 => {
                times[j] + (f[j] - thr) / (f[j] - f[i]) * (t - times[j])
            }
            _ => t,
        });
    }
    None
}

/// AEB onset over a whole record: the first instant at or after `from_s` the filtered
/// acceleration reaches `-decel_mps2`.
pub fn onset(times: &[f64], accel: &[f64], from_s: f64, decel_mps2: f64) -> Option<f64> {
    let f = filtered(times, accel);
    crossing(
        times,
        &f,
        from_s,
        decel_mps2,
        f64::NEG_INFINITY,
        f64::INFINITY,
    )
}

/// The live AEB onset (see the module doc).
#[derive(Debug, Clone)]
pub struct LiveOnset {
    decel_mps2: f64,
    hist: VecDeque<(f64, f64)>,
    /// Samples up to this time have been decided about.
    decided_to: f64,
}

impl LiveOnset {
    pub fn new(decel_mps2: f64) -> LiveOnset {
        LiveOnset {
            decel_mps2,
            hist: VecDeque::new(),
            decided_to: f64::NEG_INFINITY,
        }
    }

    /// Adds the sample at `t_s`; with the window open since `from_s`, returns the onset when
    /// one is found among the samples now [`LOOKAHEAD_S`] old.
    pub fn push(&mut self, t_s: f64, accel_mps2: f64, from_s: Option<f64>) -> Option<f64> {
        self.hist.push_back((t_s, accel_mps2));
        while self
            .hist
            .front()
            .is_some_and(|h| h.0 < t_s - HISTORY_S - LOOKAHEAD_S)
        {
            self.hist.pop_front();
        }
        let from = from_s?;
        let upto = t_s - LOOKAHEAD_S;
        if upto < from - 1e-9 || upto <= self.decided_to {
            return None;
        }
        let (times, a): (Vec<f64>, Vec<f64>) = self.hist.iter().copied().unzip();
        let f = filtered(&times, &a);
        let found = crossing(&times, &f, from, self.decel_mps2, self.decided_to, upto);
        self.decided_to = upto;
        found
    }

    /// Samples up to this time have been decided about.
    pub fn decided_to(&self) -> f64 {
        self.decided_to
    }

    /// At the end of the record: the samples still inside the look-ahead.
    pub fn finish(&mut self, from_s: Option<f64>) -> Option<f64> {
        let from = from_s?;
        let (times, a): (Vec<f64>, Vec<f64>) = self.hist.iter().copied().unzip();
        let f = filtered(&times, &a);
        let found = crossing(
            &times,
            &f,
            from,
            self.decel_mps2,
            self.decided_to,
            f64::INFINITY,
        );
        self.decided_to = f64::INFINITY;
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 100 Hz speed with 1.2 cm/s steps (a MONR-derived speed whose raw difference jumps by
    /// ±1.2 m/s²), then a real braking at `brake_s`: a jerk-limited
    /// ramp to −6 m/s² in 0.2 s.
    fn record(brake_s: Option<f64>) -> (Vec<f64>, Vec<f64>) {
        let (mut t, mut a) = (Vec::new(), Vec::new());
        let (mut v_true, mut v_prev) = (10.0, 10.0);
        for k in 0..600 {
            let tk = k as f64 * 0.01;
            let true_a = match brake_s {
                Some(b) if tk >= b => -(30.0 * (tk - b)).min(6.0),
                _ => 0.0,
            };
            v_true += true_a * 0.01;
            // Every third sample reads 0.012 m/s low (a raw −1.2 m/s² step).
            let v = v_true - if k % 3 == 0 { 0.012 } else { 0.0 };
            a.push((v - v_prev) / 0.01);
            v_prev = v;
            t.push(tk);
        }
        (t, a)
    }

    #[test]
    fn a_speed_step_does_not_close_the_window_and_a_braking_does() {
        let (t, a) = record(None);
        assert!(a.iter().any(|x| *x <= -1.0), "the raw rule would close");
        assert_eq!(onset(&t, &a, 1.0, 1.0), None);
        let mut live = LiveOnset::new(1.0);
        assert!(t
            .iter()
            .zip(&a)
            .all(|(t, a)| live.push(*t, *a, Some(1.0)).is_none()));
        assert_eq!(live.finish(Some(1.0)), None);
        // Braking at 3 s: the filtered deceleration reaches 1 m/s² close to the true instant
        // (the ramp reaches it at 3.033 s), the live onset within 10 ms of the final one.
        let (t, a) = record(Some(3.0));
        let fin = onset(&t, &a, 1.0, 1.0).expect("onset");
        assert!((fin - 3.033).abs() < 0.02, "{fin}");
        let mut live = LiveOnset::new(1.0);
        let mut seen = None;
        for (tk, ak) in t.iter().zip(&a) {
            if let Some(o) = live.push(*tk, *ak, Some(1.0)) {
                seen.get_or_insert((o, *tk));
            }
        }
        let (o, at) = seen.expect("live onset");
        assert!((o - fin).abs() < 0.01, "{o} vs {fin}");
        assert!(at - o <= LOOKAHEAD_S + 0.011, "decided at {at} for {o}");
    }

    #[test]
    fn an_onset_before_t0_is_not_taken() {
        let (t, a) = record(Some(0.5));
        // Decelerating already at T0: the window closes at T0.
        let o = onset(&t, &a, 1.0, 1.0).expect("onset");
        assert!((o - 1.0).abs() < 1e-9, "{o}");
    }
}
