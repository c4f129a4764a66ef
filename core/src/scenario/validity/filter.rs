//! Butterworth low-pass as a cascade of biquads (bilinear transform with pre-warping), applied
//! forward-backward for the phaseless ("12-pole phaseless" = 6th order, both directions) filter
//! the Euro NCAP protocol prescribes for yaw rate, acceleration and steering-wheel velocity.

/// One second-order section, direct form II transposed.
#[derive(Debug, Clone, Copy)]
struct Biquad {
    b0: f64,
    b1: f64,
    b2: f64,
    a1: f64,
    a2: f64,
}

/// A designed low-pass filter (order `2·sections.len()`).
#[derive(Debug, Clone)]
pub struct Butterworth {
    sections: Vec<Biquad>,
}

impl Butterworth {
    /// Low-pass of even `order` with cut-off `fc` at sample rate `fs`; `None` when the cut-off
    /// is not below the Nyquist frequency (the signal is then used unfiltered).
    pub fn lowpass(order: usize, fc: f64, fs: f64) -> Option<Butterworth> {
        if !(fc > 0.0 && fs > 0.0 && fc < 0.5 * fs) || order < 2 || !order.is_multiple_of(2) {
            return None;
        }
        let k = (std::f64::consts::PI * fc / fs).tan();
        let n = order as f64;
        let sections = (0..order / 2)
            .map(|i| {
                // Analog section s² + a·s + 1 of the normalised Butterworth polynomial.
                let a = 2.0 * (std::f64::consts::PI * (2.0 * i as f64 + 1.0) / (2.0 * n)).sin();
                let norm = 1.0 + a * k + k * k;
                let b0 = k * k / norm;
                Biquad {
                    b0,
                    b1: 2.0 * b0,
                    b2: b0,
                    a1: 2.0 * (k * k - 1.0) / norm,
                    a2: (1.0 - a * k + k * k) / norm,
                }
            })
            .collect();
        Some(Butterworth { sections })
    }

    /// Causal state started at steady state on `x0`.
    pub fn causal(&self, x0: f64) -> Causal {
        Causal {
            sections: self.sections.clone(),
            state: self
                .sections
                .iter()
                .map(|q| {
                    let z2 = (q.b2 - q.a2) * x0;
                    ((q.b1 - q.a1) * x0 + z2, z2)
                })
                .collect(),
        }
    }

    /// One pass over `x`, started at steady state on its first value.
    pub fn forward(&self, x: &[f64]) -> Vec<f64> {
        let Some(&first) = x.first() else {
            return Vec::new();
        };
        let mut c = self.causal(first);
        x.iter().map(|&v| c.step(v)).collect()
    }

    /// Zero-phase forward-backward filtering with odd-reflection padding at both ends
    /// (as `scipy.signal.filtfilt`).
    pub fn filtfilt(&self, x: &[f64]) -> Vec<f64> {
        let n = x.len();
        if n < 2 {
            return x.to_vec();
        }
        let pad = (6 * self.sections.len() + 1).min(n - 1);
        let mut ext = Vec::with_capacity(n + 2 * pad);
        for i in (1..=pad).rev() {
            ext.push(2.0 * x[0] - x[i]);
        }
        ext.extend_from_slice(x);
        for i in 1..=pad {
            ext.push(2.0 * x[n - 1] - x[n - 1 - i]);
        }
        let mut y = self.forward(&ext);
        y.reverse();
        let mut y = self.forward(&y);
        y.reverse();
        y[pad..pad + n].to_vec()
    }
}

/// Running causal filter (live checks).
#[derive(Debug, Clone)]
pub struct Causal {
    sections: Vec<Biquad>,
    state: Vec<(f64, f64)>,
}

impl Causal {
    pub fn step(&mut self, x: f64) -> f64 {
        let mut v = x;
        for (q, z) in self.sections.iter().zip(self.state.iter_mut()) {
            let y = q.b0 * v + z.0;
            z.0 = q.b1 * v - q.a1 * y + z.1;
            z.1 = q.b2 * v - q.a2 * y;
            v = y;
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sine_gain(f: &Butterworth, freq: f64, fs: f64, phaseless: bool) -> f64 {
        let n = (fs * 20.0) as usize;
        let x: Vec<f64> = (0..n)
            .map(|i| (2.0 * std::f64::consts::PI * freq * i as f64 / fs).sin())
            .collect();
        let y = if phaseless {
            f.filtfilt(&x)
        } else {
            f.forward(&x)
        };
        // Amplitude from the RMS over the middle half (no edge effects; sample peaks would
        // miss the crest).
        let mid = &y[n / 4..3 * n / 4];
        (2.0 * mid.iter().map(|v| v * v).sum::<f64>() / mid.len() as f64).sqrt()
    }

    #[test]
    fn butterworth_magnitude_matches_the_analog_prototype() {
        // |H(f)|² = 1 / (1 + (tan(πf/fs)/tan(πfc/fs))^(2N)) for the bilinear design.
        let fs = 100.0;
        let f = Butterworth::lowpass(6, 10.0, fs).expect("design");
        for freq in [1.0, 5.0, 10.0, 15.0, 25.0] {
            let r =
                (std::f64::consts::PI * freq / fs).tan() / (std::f64::consts::PI * 10.0 / fs).tan();
            let expect = 1.0 / (1.0 + r.powi(12)).sqrt();
            let got = sine_gain(&f, freq, fs, false);
            assert!((got - expect).abs() < 0.01, "{freq} Hz: {got} vs {expect}");
            // Forward-backward squares the magnitude.
            let got2 = sine_gain(&f, freq, fs, true);
            assert!(
                (got2 - expect * expect).abs() < 0.01,
                "{freq} Hz ff: {got2}"
            );
        }
        assert!(Butterworth::lowpass(6, 10.0, 20.0).is_none());
        assert!(Butterworth::lowpass(6, 10.0, 25.0).is_some());
    }

    #[test]
    fn filtfilt_is_phaseless_and_keeps_constants() {
        let fs = 100.0;
        let f = Butterworth::lowpass(6, 10.0, fs).expect("design");
        let c = f.filtfilt(&[3.0; 50]);
        assert!(c.iter().all(|v| (v - 3.0).abs() < 1e-9));
        // A slow ramp passes without lag.
        let x: Vec<f64> = (0..400).map(|i| i as f64 * 0.01).collect();
        let y = f.filtfilt(&x);
        for i in 50..350 {
            assert!((y[i] - x[i]).abs() < 1e-6, "{i}: {} vs {}", y[i], x[i]);
        }
    }
}
