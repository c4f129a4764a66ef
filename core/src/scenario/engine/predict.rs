//! The VUT state the trigger predictor extrapolates from, on clean and on noisy telemetry.
//!
//! On a clean INS (the shared runs) the speed channel is a random walk: its increments are
//! nearly uncorrelated (lag-1 autocorrelation +0.12…+0.15, an AR(8) model explains < 4 % of
//! their variance, position and steering explain nothing more), so the last sample is the best
//! estimate of the next one and any smoothing makes the prediction worse (offline analysis:
//! `tools/trigger_predictors.py`). The engine then keeps its raw-anchored extrapolation.
//!
//! With white measurement noise on position and speed (per-sample jitter), the last sample is a
//! poor estimate of the VUT's state: 0.02 m of position noise is 7 ms of TTC at 10 km/h,
//! 0.05 km/h of speed noise 20 ms. The history below estimates both noise levels from the data
//! itself — position from the spread of the trapezoid residual `Δs − ½(v₀+v₁)Δt`, speed from
//! the negative lag-1 autocovariance of its increments (white noise makes it −σ², a random walk
//! leaves it ≥ 0) — and when they are above a clean INS's, fits a cubic s(τ) jointly to the
//! along-track positions and (through s′) to the speeds of the last second, each weighted by its
//! noise, plus a straight line through the lateral offsets. Deterministic, sample time only, and
//! no allocation per sample (a ring of fixed capacity, sums on the stack).

use std::collections::VecDeque;

/// Samples kept (noise statistics use all of them; the fit uses the last `FIT_S`).
pub(super) const CAPACITY: usize = 128;
/// Fit window (s of sample time).
const FIT_S: f64 = 1.0;
/// Position noise (1σ, m) above which the telemetry counts as noisy.
const POS_NOISE_M: f64 = 0.002;
/// Speed noise (1σ, m/s) above which the telemetry counts as noisy (0.005 km/h)…
const SPEED_NOISE_MPS: f64 = 0.005 / 3.6;
/// …when its increments are also clearly anti-correlated (white noise: −0.5; the shared clean
/// runs: +0.12…+0.15).
const SPEED_AC1: f64 = -0.25;
/// Fewest samples for the noise statistics and the fit.
const MIN_SAMPLES: usize = 16;

#[derive(Debug, Clone, Copy)]
pub(super) struct Obs {
    pub t: f64,
    pub x: f64,
    pub y: f64,
    pub yaw: f64,
    pub v: f64,
}

/// The smoothed VUT state at the last sample time and its local kinematics.
#[derive(Debug, Clone, Copy)]
pub(super) struct Smoothed {
    t0: f64,
    x0: f64,
    y0: f64,
    yaw: f64,
    yaw_rate: f64,
    /// s(τ) = c0 + c1 τ + c2 τ² + c3 τ³ along the heading at the last sample.
    c: [f64; 4],
    /// lateral offset l(τ) = l0 + l1 τ.
    l: [f64; 2],
}

impl Smoothed {
    /// State (x, y, yaw, speed) `tau` seconds after the last sample.
    pub fn at(&self, tau: f64) -> (f64, f64, f64, f64) {
        let c = &self.c;
        let s = c[0] + tau * (c[1] + tau * (c[2] + tau * c[3]));
        let v = c[1] + tau * (2.0 * c[2] + tau * 3.0 * c[3]);
        let l = self.l[0] + self.l[1] * tau;
        let (sn, cs) = self.yaw.sin_cos();
        (
            self.x0 + s * cs - l * sn,
            self.y0 + s * sn + l * cs,
            self.yaw + self.yaw_rate * tau,
            v.max(0.0),
        )
    }

    /// Sample time the state refers to.
    pub fn time_s(&self) -> f64 {
        self.t0
    }
}

/// Noise levels estimated from the history (1σ).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoiseEstimate {
    pub position_m: f64,
    pub speed_mps: f64,
    /// Lag-1 autocorrelation of the speed increments.
    pub speed_ac1: f64,
}

impl NoiseEstimate {
    pub fn noisy(&self) -> bool {
        self.position_m > POS_NOISE_M
            || (self.speed_mps > SPEED_NOISE_MPS && self.speed_ac1 < SPEED_AC1)
    }
}

#[derive(Debug, Clone)]
pub(super) struct History {
    buf: VecDeque<Obs>,
}

impl History {
    pub fn new() -> History {
        History {
            buf: VecDeque::with_capacity(CAPACITY),
        }
    }

    pub fn push(&mut self, o: Obs) {
        if self.buf.back().is_some_and(|b| o.t <= b.t) {
            return; // out of order or repeated: ignore for the statistics
        }
        if self.buf.len() == CAPACITY {
            self.buf.pop_front();
        }
        self.buf.push_back(o);
    }

    pub fn noise(&self) -> Option<NoiseEstimate> {
        let n = self.buf.len();
        if n < MIN_SAMPLES {
            return None;
        }
        let last = self.buf[n - 1];
        let (sn, cs) = last.yaw.sin_cos();
        let along = |o: &Obs| (o.x - last.x) * cs + (o.y - last.y) * sn;
        // Trapezoid residuals and speed increments, as running sums.
        let (mut r1, mut r2, mut m) = (0.0, 0.0, 0.0);
        let (mut d1, mut d2, mut c01, mut dn, mut prev_dv) = (0.0, 0.0, 0.0, 0.0, None::<f64>);
        let (mut dm0, mut dm1) = (0.0, 0.0);
        for k in 1..n {
            let (a, b) = (&self.buf[k - 1], &self.buf[k]);
            let r = along(b) - along(a) - 0.5 * (a.v + b.v) * (b.t - a.t);
            r1 += r;
            r2 += r * r;
            m += 1.0;
            let dv = b.v - a.v;
            d1 += dv;
            d2 += dv * dv;
            if let Some(p) = prev_dv {
                c01 += p * dv;
                dm0 += p;
                dm1 += dv;
                dn += 1.0;
            }
            prev_dv = Some(dv);
        }
        let var_r = (r2 / m - (r1 / m) * (r1 / m)).max(0.0);
        let md = d1 / m;
        let var_d = (d2 / m - md * md).max(0.0);
        let cov1 = if dn > 0.0 {
            c01 / dn - (dm0 / dn) * (dm1 / dn)
        } else {
            0.0
        };
        Some(NoiseEstimate {
            position_m: (0.5 * var_r).sqrt(),
            speed_mps: (-cov1).max(0.0).sqrt(),
            speed_ac1: if var_d > 0.0 { cov1 / var_d } else { 0.0 },
        })
    }

    /// The smoothed state when the telemetry is noisy; `None` on clean telemetry (or too
    /// little history), where the raw last sample is the better anchor.
    pub fn smoothed(&self, yaw_rate: f64) -> Option<Smoothed> {
        let noise = self.noise()?;
        if !noise.noisy() {
            return None;
        }
        let n = self.buf.len();
        let last = self.buf[n - 1];
        let (sn, cs) = last.yaw.sin_cos();
        // Weights: 1/σ² with floors so that a clean channel does not make the system singular.
        let ws = 1.0 / noise.position_m.max(POS_NOISE_M).powi(2);
        let wv = 1.0 / noise.speed_mps.max(SPEED_NOISE_MPS).powi(2);
        let mut a = [[0.0_f64; 4]; 4];
        let mut rhs = [0.0_f64; 4];
        let (mut lw, mut lt, mut ltt, mut ll, mut llt) = (0.0, 0.0, 0.0, 0.0, 0.0);
        let mut used = 0;
        for o in self.buf.iter().rev() {
            let tau = o.t - last.t;
            if tau < -FIT_S {
                break;
            }
            used += 1;
            let (dx, dy) = (o.x - last.x, o.y - last.y);
            let s = dx * cs + dy * sn;
            let l = -dx * sn + dy * cs;
            // Position row: [1, τ, τ², τ³]·c = s.
            let ps = [1.0, tau, tau * tau, tau * tau * tau];
            // Speed row: [0, 1, 2τ, 3τ²]·c = v.
            let pv = [0.0, 1.0, 2.0 * tau, 3.0 * tau * tau];
            for i in 0..4 {
                for j in 0..4 {
                    a[i][j] += ws * ps[i] * ps[j] + wv * pv[i] * pv[j];
                }
                rhs[i] += ws * ps[i] * s + wv * pv[i] * o.v;
            }
            lw += 1.0;
            lt += tau;
            ltt += tau * tau;
            ll += l;
            llt += l * tau;
        }
        if used < MIN_SAMPLES {
            return None;
        }
        let c = solve4(a, rhs)?;
        let det = lw * ltt - lt * lt;
        let l = if det.abs() > 1e-12 {
            let l1 = (lw * llt - lt * ll) / det;
            [(ll - l1 * lt) / lw, l1]
        } else {
            [ll / lw, 0.0]
        };
        Some(Smoothed {
            t0: last.t,
            x0: last.x,
            y0: last.y,
            yaw: last.yaw,
            yaw_rate,
            c,
            l,
        })
    }
}

/// Gaussian elimination with partial pivoting on a 4×4 system.
fn solve4(mut a: [[f64; 4]; 4], mut b: [f64; 4]) -> Option<[f64; 4]> {
    for col in 0..4 {
        let p = (col..4).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[p][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, p);
        b.swap(col, p);
        for r in col + 1..4 {
            let f = a[r][col] / a[col][col];
            let pivot = a[col];
            for (v, p) in a[r].iter_mut().zip(pivot).skip(col) {
                *v -= f * p;
            }
            b[r] -= f * b[col];
        }
    }
    let mut x = [0.0; 4];
    for r in (0..4).rev() {
        let s: f64 = (r + 1..4).map(|k| a[r][k] * x[k]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solve4_recovers_a_known_solution() {
        let a = [
            [4.0, 1.0, 0.0, 2.0],
            [1.0, 3.0, 1.0, 0.0],
            [0.0, 1.0, 5.0, 1.0],
            [2.0, 0.0, 1.0, 6.0],
        ];
        let x = [1.0, -2.0, 0.5, 3.0];
        let b: [f64; 4] = std::array::from_fn(|i| (0..4).map(|j| a[i][j] * x[j]).sum());
        let got = solve4(a, b).unwrap();
        for i in 0..4 {
            assert!((got[i] - x[i]).abs() < 1e-12, "{got:?}");
        }
    }

    #[test]
    fn clean_constant_speed_is_not_noisy_and_white_noise_is() {
        let mut h = History::new();
        for k in 0..100 {
            let t = k as f64 * 0.04;
            h.push(Obs {
                t,
                x: 2.8 * t,
                y: 0.0,
                yaw: 0.0,
                v: 2.8,
            });
        }
        assert!(!h.noise().unwrap().noisy());
        assert!(h.smoothed(0.0).is_none());
        // Alternating ±2 cm on position: trapezoid residual ±4 cm.
        let mut h = History::new();
        for k in 0..100 {
            let t = k as f64 * 0.04;
            let e = if k % 2 == 0 { 0.02 } else { -0.02 };
            h.push(Obs {
                t,
                x: 2.8 * t + e,
                y: 0.0,
                yaw: 0.0,
                v: 2.8,
            });
        }
        let n = h.noise().unwrap();
        assert!(n.noisy() && n.position_m > 0.015, "{n:?}");
        let s = h.smoothed(0.0).unwrap();
        let (x, _, _, v) = s.at(0.0);
        assert!((x - 2.8 * 99.0 * 0.04).abs() < 0.01 && (v - 2.8).abs() < 1e-3);
    }
}
