//! Noise, dropout and latency injection on any source: the degraded telemetry a sensitivity
//! study needs (GNSS noise, lost packets, a late link), seeded so that the same seed gives the
//! same run, byte for byte. With every setting zero a sample passes untouched and no random
//! number is drawn: zero noise is exactly the plain run.
//!
//! * `pos` — Gaussian σ (m) on each horizontal position axis (converted to degrees for a
//!   WGS84 position).
//! * `speed` — Gaussian σ (m/s) on the speed (clamped at 0).
//! * `heading` — Gaussian σ (deg) on the INS heading.
//! * `dropout` — probability that a sample is lost.
//! * `latency_ms` — the data arrives this late: a sample measured at `t` reaches the engine
//!   stamped `t + latency` (the engine sees where the VUT was, not where it is).
//!
//! The settings can change while a run goes on ([`InjectionHandle`], the service's live
//! parameters); the random stream does not restart.

use std::str::FromStr;
use std::sync::{Arc, Mutex};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Normal};
use serde::{Deserialize, Serialize};

use crate::sample::{InsPosition, InsSample};

/// Injection settings (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Injection {
    /// Position noise σ, m.
    pub pos: f64,
    /// Speed noise σ, m/s.
    pub speed: f64,
    /// Heading noise σ, degrees.
    pub heading: f64,
    /// Probability that a sample is dropped, 0..1.
    pub dropout: f64,
    /// Link latency, ms.
    pub latency_ms: f64,
    /// Random seed.
    pub seed: u64,
}

impl Injection {
    /// True when nothing is injected.
    pub fn is_zero(&self) -> bool {
        self.pos == 0.0
            && self.speed == 0.0
            && self.heading == 0.0
            && self.dropout == 0.0
            && self.latency_ms == 0.0
    }

    /// Every value finite and in range.
    pub fn validate(&self) -> Result<(), String> {
        let check = |name: &str, v: f64, max: f64| {
            if v.is_finite() && (0.0..=max).contains(&v) {
                Ok(())
            } else {
                Err(format!("{name} must be between 0 and {max}, got {v}"))
            }
        };
        check("noise pos (m)", self.pos, 100.0)?;
        check("noise speed (m/s)", self.speed, 50.0)?;
        check("noise heading (deg)", self.heading, 180.0)?;
        check("dropout", self.dropout, 1.0)?;
        check("latency_ms", self.latency_ms, 10_000.0)?;
        Ok(())
    }

    /// Sets one key (`pos`, `speed`, `heading`, `dropout`, `latency_ms`, `seed`; also with a
    /// `noise.` prefix).
    pub fn set(&mut self, key: &str, value: f64) -> Result<(), String> {
        match key.strip_prefix("noise.").unwrap_or(key) {
            "pos" => self.pos = value,
            "speed" => self.speed = value,
            "heading" => self.heading = value,
            "dropout" => self.dropout = value,
            "latency_ms" => self.latency_ms = value,
            "seed" if value >= 0.0 && value.fract() == 0.0 => self.seed = value as u64,
            "seed" => return Err(format!("seed must be a non-negative integer, got {value}")),
            other => return Err(format!("unknown injection key '{other}'")),
        }
        self.validate()
    }
}

/// `pos=0.02,speed=0.05,heading=0.1` (the CLI's `--noise`).
impl FromStr for Injection {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut inj = Injection::default();
        for (k, v) in key_values(s)? {
            inj.set(k, v)?;
        }
        Ok(inj)
    }
}

/// Changes the injection of a running source.
#[derive(Clone, Debug)]
pub struct InjectionHandle(Arc<Mutex<Injection>>);

impl InjectionHandle {
    pub fn get(&self) -> Injection {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Replaces the settings (validated); the seed of a running stream is kept.
    pub fn set(&self, new: Injection) -> Result<(), String> {
        new.validate()?;
        let mut g = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let seed = g.seed;
        *g = Injection { seed, ..new };
        Ok(())
    }
}

/// The injector a feed applies to each sample.
pub struct Injector {
    settings: Arc<Mutex<Injection>>,
    rng: StdRng,
    /// Samples dropped so far.
    pub dropped: u64,
}

impl Injector {
    pub fn new(inj: Injection) -> (Injector, InjectionHandle) {
        let settings = Arc::new(Mutex::new(inj));
        (
            Injector {
                rng: StdRng::seed_from_u64(inj.seed),
                settings: settings.clone(),
                dropped: 0,
            },
            InjectionHandle(settings),
        )
    }

    /// The sample as the degraded link delivers it, or None when it is lost.
    pub fn apply(&mut self, mut s: InsSample) -> Option<InsSample> {
        let inj = *self.settings.lock().unwrap_or_else(|p| p.into_inner());
        if inj.is_zero() {
            return Some(s);
        }
        if inj.dropout > 0.0 && self.rng.gen::<f64>() < inj.dropout {
            self.dropped += 1;
            return None;
        }
        let mut gauss = |sigma: f64| -> f64 {
            if sigma > 0.0 {
                Normal::new(0.0, sigma).map_or(0.0, |n| n.sample(&mut self.rng))
            } else {
                0.0
            }
        };
        if inj.pos > 0.0 {
            let (dx, dy) = (gauss(inj.pos), gauss(inj.pos));
            match &mut s.position {
                InsPosition::Local { x, y } => {
                    *x += dx;
                    *y += dy;
                }
                InsPosition::Wgs84 {
                    lat_deg, lon_deg, ..
                } => {
                    // Metres to degrees on the WGS84 sphere of mean radius (noise scale only).
                    const M_PER_DEG: f64 = 111_195.0;
                    *lat_deg += dy / M_PER_DEG;
                    *lon_deg += dx / (M_PER_DEG * lat_deg.to_radians().cos().max(1e-6));
                }
            }
        }
        if inj.speed > 0.0 {
            s.speed_mps = (s.speed_mps + gauss(inj.speed)).max(0.0);
        }
        if inj.heading > 0.0 {
            s.heading_deg = (s.heading_deg + gauss(inj.heading)).rem_euclid(360.0);
        }
        if inj.latency_ms > 0.0 {
            s.time_s += inj.latency_ms / 1000.0;
        }
        Some(s)
    }
}

/// `KEY=NUMBER,KEY=NUMBER` (the CLI's `--noise`, `--aeb`): the pairs in order, keys trimmed;
/// an error names the bad pair.
pub fn key_values(s: &str) -> Result<Vec<(&str, f64)>, String> {
    s.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|kv| {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("expected KEY=VALUE, got '{kv}'"))?;
            let x: f64 = v
                .trim()
                .parse()
                .map_err(|_| format!("{}: not a number: '{v}'", k.trim()))?;
            Ok((k.trim(), x))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(t: f64) -> InsSample {
        InsSample {
            time_s: t,
            vehicle: "vut".into(),
            position: InsPosition::Local { x: 10.0, y: -1.75 },
            heading_deg: 90.0,
            speed_mps: 8.0,
            steering_wheel_deg: None,
            brake_light: None,
            accel_mps2: None,
            yaw_rate_rps: None,
            wheel_speed_mps: None,
            fcw: None,
        }
    }

    #[test]
    fn zero_is_identity_and_seeds_repeat() {
        let (mut z, _) = Injector::new(Injection::default());
        assert_eq!(z.apply(sample(1.0)), Some(sample(1.0)));
        let inj: Injection = "pos=0.5,speed=0.1,heading=1,dropout=0.2,latency_ms=30,seed=7"
            .parse()
            .expect("parses");
        let run = || {
            let (mut i, _) = Injector::new(inj);
            (0..200)
                .map(|k| i.apply(sample(k as f64 * 0.04)))
                .collect::<Vec<_>>()
        };
        let (a, b) = (run(), run());
        assert_eq!(a, b, "same seed, same stream");
        let kept: Vec<_> = a.iter().flatten().collect();
        assert!(kept.len() > 120 && kept.len() < 190, "{} kept", kept.len());
        assert!(kept
            .iter()
            .all(|s| ((s.time_s * 1000.0).round() as i64 - 30) % 40 == 0));
        assert!(kept.iter().any(|s| s.position != sample(0.0).position));
        assert!("pos=x".parse::<Injection>().is_err());
        assert!("dropout=2".parse::<Injection>().is_err());
        assert!("foo=1".parse::<Injection>().is_err());
    }

    #[test]
    fn live_change_keeps_the_stream() {
        let (mut i, h) = Injector::new(Injection {
            seed: 3,
            ..Default::default()
        });
        assert_eq!(i.apply(sample(0.0)), Some(sample(0.0)));
        h.set(Injection {
            dropout: 1.0,
            seed: 99,
            ..Default::default()
        })
        .expect("valid");
        assert_eq!(i.apply(sample(0.04)), None);
        assert_eq!(h.get().seed, 3, "the running stream keeps its seed");
        assert!(h
            .set(Injection {
                pos: f64::NAN,
                ..Default::default()
            })
            .is_err());
    }
}
