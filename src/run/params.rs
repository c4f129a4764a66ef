//! Live parameters of a running run: `ttc_offset_s` (the engine fires at TTC_dummy + offset)
//! and the injection settings of its feed (`noise.pos`, `noise.speed`, `noise.heading`,
//! `dropout`, `latency_ms`). Set from anywhere (the service's `PATCH …/parameters`, a YaCoP
//! peer's `#,param.<name>,<value>`); the driver applies a new offset before the next sample,
//! the feed's injection takes a new setting with its next sample. Every change is recorded
//! with the sample time it took effect after, and listed in the report (`parameter_changes`).

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::source::inject::InjectionHandle;

/// One change of a live parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParameterChange {
    pub name: String,
    pub value: f64,
    /// Sample time of the last sample applied before the change (None: before the first).
    pub after_sample_s: Option<f64>,
    /// Who changed it (`operator`, `yacop`, …).
    pub by: String,
}

#[derive(Default)]
struct State {
    ttc_offset_s: f64,
    pending_offset: Option<f64>,
    last_t: Option<f64>,
    injection: Option<InjectionHandle>,
    changes: Vec<ParameterChange>,
}

/// The live parameters of one run (cloneable handle).
#[derive(Clone, Default)]
pub struct LiveParams(Arc<Mutex<State>>);

impl std::fmt::Debug for LiveParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LiveParams")
    }
}

/// The parameter names [`LiveParams::set`] knows.
pub const NAMES: &[&str] = &[
    "ttc_offset_s",
    "noise.pos",
    "noise.speed",
    "noise.heading",
    "dropout",
    "latency_ms",
];

impl LiveParams {
    pub fn new() -> LiveParams {
        LiveParams::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The feed's injection handle (noise parameters need one).
    pub fn attach_injection(&self, h: InjectionHandle) {
        self.lock().injection = Some(h);
    }

    /// Changes one parameter (see [`NAMES`]); an unknown name or a bad value is an error and
    /// changes nothing.
    pub fn set(&self, name: &str, value: f64, by: &str) -> Result<(), String> {
        let mut g = self.lock();
        match name {
            "ttc_offset_s" => {
                if !(value.is_finite() && (-10.0..=10.0).contains(&value)) {
                    return Err(format!(
                        "ttc_offset_s must be within -10..10 s, got {value}"
                    ));
                }
                g.ttc_offset_s = value;
                g.pending_offset = Some(value);
            }
            _ => {
                let key = name.strip_prefix("noise.").unwrap_or(name);
                if !matches!(key, "pos" | "speed" | "heading" | "dropout" | "latency_ms") {
                    return Err(format!(
                        "unknown parameter '{name}' (known: {})",
                        NAMES.join(", ")
                    ));
                }
                let Some(h) = g.injection.clone() else {
                    return Err(format!("{name}: this run's source takes no injection"));
                };
                let mut inj = h.get();
                inj.set(key, value)?;
                h.set(inj)?;
            }
        }
        let after = g.last_t;
        g.changes.push(ParameterChange {
            name: name.to_string(),
            value,
            after_sample_s: after,
            by: by.to_string(),
        });
        Ok(())
    }

    /// Changes several parameters at once, all or none: every name and value is checked
    /// first (the first bad one is the error, naming it). Returns the changes made.
    pub fn set_all(
        &self,
        changes: &[(String, f64)],
        by: &str,
    ) -> Result<Vec<ParameterChange>, String> {
        {
            let g = self.lock();
            let mut inj = g.injection.as_ref().map(|h| h.get());
            for (name, value) in changes {
                if name == "ttc_offset_s" {
                    if !(value.is_finite() && (-10.0..=10.0).contains(value)) {
                        return Err(format!(
                            "ttc_offset_s must be within -10..10 s, got {value}"
                        ));
                    }
                    continue;
                }
                let key = name.strip_prefix("noise.").unwrap_or(name);
                if !NAMES.contains(&name.as_str()) {
                    return Err(format!(
                        "unknown parameter '{name}' (known: {})",
                        NAMES.join(", ")
                    ));
                }
                let Some(inj) = inj.as_mut() else {
                    return Err(format!("{name}: this run's source takes no injection"));
                };
                inj.set(key, *value).map_err(|e| format!("{name}: {e}"))?;
            }
        }
        let n0 = self.lock().changes.len();
        for (name, value) in changes {
            self.set(name, *value, by)
                .map_err(|e| format!("{name}: {e}"))?;
        }
        Ok(self
            .lock()
            .changes
            .get(n0..)
            .map(<[_]>::to_vec)
            .unwrap_or_default())
    }

    pub fn ttc_offset_s(&self) -> f64 {
        self.lock().ttc_offset_s
    }

    /// The driver, before applying a sample at `t`: a new offset to apply, if one was set.
    pub fn before_sample(&self, t: f64) -> Option<f64> {
        let mut g = self.lock();
        let p = g.pending_offset.take();
        g.last_t = Some(t);
        p
    }

    pub fn changes(&self) -> Vec<ParameterChange> {
        self.lock().changes.clone()
    }

    /// Current values (for the API).
    pub fn values(&self) -> serde_json::Value {
        let g = self.lock();
        let inj = g.injection.as_ref().map(|h| h.get());
        serde_json::json!({
            "ttc_offset_s": g.ttc_offset_s,
            "noise": inj,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::source::inject::{Injection, Injector};

    #[test]
    fn set_all_is_all_or_none_and_names_the_bad_one() {
        let p = LiveParams::new();
        let e = p
            .set_all(
                &[("ttc_offset_s".into(), 0.5), ("noise.pos".into(), 0.1)],
                "operator",
            )
            .expect_err("no injection attached");
        assert!(e.contains("noise.pos"), "{e}");
        assert!(
            p.changes().is_empty() && p.ttc_offset_s() == 0.0,
            "nothing changed"
        );
        let (_inj, h) = Injector::new(Injection::default());
        p.attach_injection(h.clone());
        let e = p
            .set_all(
                &[("ttc_offset_s".into(), 0.5), ("noise.pos".into(), -1.0)],
                "operator",
            )
            .expect_err("negative noise");
        assert!(e.starts_with("noise.pos"), "{e}");
        let e = p
            .set_all(&[("bogus".into(), 1.0)], "operator")
            .expect_err("unknown");
        assert!(e.contains("'bogus'"), "{e}");
        assert!(
            p.changes().is_empty() && p.ttc_offset_s() == 0.0,
            "nothing changed"
        );
        let done = p
            .set_all(
                &[("ttc_offset_s".into(), 0.5), ("noise.pos".into(), 0.1)],
                "operator",
            )
            .expect("valid");
        assert_eq!(done.len(), 2);
        assert_eq!(p.before_sample(1.0), Some(0.5));
        assert_eq!(h.get().pos, 0.1);
        assert_eq!(p.changes().len(), 2);
    }
}
