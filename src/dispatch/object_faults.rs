//! Faults the object simulator ([`super::object`], `scil carrier-sim --fault`) can be told to
//! show, each from a moment of its run: its reported position drifting sideways, driving
//! faster than its TRAJ, a position jump, its MONR stopping, its connection dropped. They
//! exercise the control centre's safety rules against a real ISO 22133 link.

use serde::{Deserialize, Serialize};

/// What goes wrong.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum FaultKind {
    /// The reported position drifts to the right of the object's heading at `mps`.
    Drift { mps: f64 },
    /// The object runs its TRAJ `factor` times as fast (and reports that speed).
    Overspeed { factor: f64 },
    /// The reported position jumps `m` to the right of the object's heading, and stays there.
    Jump { m: f64 },
    /// No more MONR (the connection stays open).
    MonrStop,
    /// The TCP connection is dropped (once), as a crashed object's would be.
    Disconnect,
}

/// From which moment a fault's delay counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultFrom {
    /// The object's last change to ARMED.
    Armed,
    /// Its STRT instant (it runs).
    Start,
}

/// One fault: what, from when, after how long.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Fault {
    pub what: FaultKind,
    pub from: FaultFrom,
    pub after_s: f64,
}

impl Fault {
    /// Parses `KIND[=VALUE]@FROM+SECONDS`: `drift=3@start+2` (3 m/s sideways 2 s after the
    /// start), `overspeed=1.5@start+1`, `jump=4@start+2`, `monr-stop@armed+1`,
    /// `disconnect@armed+0.5`.
    pub fn parse(spec: &str) -> Result<Fault, String> {
        let bad = |why: &str| {
            format!("fault {spec:?}: {why} (expected KIND[=VALUE]@armed|start+SECONDS, e.g. drift=3@start+2)")
        };
        let (what, when) = spec.split_once('@').ok_or_else(|| bad("no @"))?;
        let (from, after) = when.split_once('+').ok_or_else(|| bad("no +SECONDS"))?;
        let from = match from {
            "armed" => FaultFrom::Armed,
            "start" => FaultFrom::Start,
            _ => return Err(bad("from must be armed or start")),
        };
        let after_s: f64 = after.parse().map_err(|_| bad("bad seconds"))?;
        if !(after_s >= 0.0 && after_s.is_finite()) {
            return Err(bad("seconds must be 0 or more"));
        }
        let (kind, value) = match what.split_once('=') {
            Some((k, v)) => (k, Some(v.parse::<f64>().map_err(|_| bad("bad value"))?)),
            None => (what, None),
        };
        let value = |name: &str| -> Result<f64, String> {
            match value {
                Some(v) if v.is_finite() => Ok(v),
                _ => Err(bad(&format!("{name} needs a finite =VALUE"))),
            }
        };
        let what = match kind {
            "drift" => FaultKind::Drift {
                mps: value("drift")?,
            },
            "overspeed" => FaultKind::Overspeed {
                factor: value("overspeed")?,
            },
            "jump" => FaultKind::Jump { m: value("jump")? },
            "monr-stop" => FaultKind::MonrStop,
            "disconnect" => FaultKind::Disconnect,
            _ => {
                return Err(bad(
                    "kind must be drift, overspeed, jump, monr-stop or disconnect",
                ))
            }
        };
        if let FaultKind::Overspeed { factor } = what {
            if factor <= 0.0 {
                return Err(bad("overspeed factor must be positive"));
            }
        }
        Ok(Fault {
            what,
            from,
            after_s,
        })
    }

    /// How long the fault has been on at `now`, given when the object was last armed and
    /// started (local seconds); `None` before it is on.
    pub fn on_for(&self, now: f64, armed_at: Option<f64>, start_at: Option<f64>) -> Option<f64> {
        let t0 = match self.from {
            FaultFrom::Armed => armed_at,
            FaultFrom::Start => start_at,
        }?;
        let dt = now - t0 - self.after_s;
        (dt >= 0.0).then_some(dt)
    }
}

/// The position offset to the right of the heading the faults add at `now`, m.
pub fn sideways_m(faults: &[Fault], now: f64, armed_at: Option<f64>, start_at: Option<f64>) -> f64 {
    faults
        .iter()
        .filter_map(|f| {
            let on = f.on_for(now, armed_at, start_at)?;
            match f.what {
                FaultKind::Drift { mps } => Some(mps * on),
                FaultKind::Jump { m } => Some(m),
                _ => None,
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_refuses() {
        assert_eq!(
            Fault::parse("drift=3@start+2"),
            Ok(Fault {
                what: FaultKind::Drift { mps: 3.0 },
                from: FaultFrom::Start,
                after_s: 2.0
            })
        );
        assert_eq!(
            Fault::parse("disconnect@armed+0.5").map(|f| f.what),
            Ok(FaultKind::Disconnect)
        );
        for bad in [
            "drift@start+1",
            "drift=3",
            "x@start+1",
            "jump=1@later+1",
            "monr-stop@start+-1",
        ] {
            assert!(Fault::parse(bad).is_err(), "{bad}");
        }
        let f = Fault::parse("drift=2@start+1").expect("parses");
        assert_eq!(f.on_for(5.0, Some(0.0), None), None);
        assert_eq!(f.on_for(5.0, Some(0.0), Some(3.0)), Some(1.0));
        assert_eq!(sideways_m(&[f], 5.0, None, Some(3.0)), 2.0);
    }
}
