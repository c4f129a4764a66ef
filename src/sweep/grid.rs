//! The sweep grid: varied keys, their values, the Cartesian product × N seeds, and every check
//! that must pass before anything runs (unknown key, empty list, bad value, too many runs).
//!
//! Run `index` = `cell · repeat + r`; cells enumerate the axes in the order given, the last axis
//! fastest; run `r` of every cell uses seed `seed + r` (common random numbers: the same noise
//! stream in every cell, so cells differ only by what was varied).

use std::fmt;

use serde::Serialize;

use crate::run::source::inject::Injection;
use crate::scenario::engine::TriggerMethod;

/// The default limit on runs in one sweep (`--max-runs`).
pub const DEFAULT_MAX_RUNS: usize = 100_000;

/// Why a sweep cannot start.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SweepError {
    #[error("unknown sweep key '{key}' (known: {known})")]
    UnknownKey { key: String, known: String },
    #[error("--vary {0}: the value list is empty")]
    EmptyValues(String),
    #[error("--vary {key}: bad value '{value}': {reason}")]
    BadValue {
        key: String,
        value: String,
        reason: String,
    },
    #[error("key '{0}' is varied twice")]
    DuplicateKey(String),
    #[error("the grid has {runs} runs, above the limit of {limit} (--max-runs)")]
    TooManyRuns { runs: String, limit: usize },
    #[error("{0}: not available in this build")]
    NotAvailable(String),
    #[error("{0}")]
    Invalid(String),
}

/// A key a sweep can vary (see the module doc of [`super`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// The recorded run (one value per `--replay`).
    Replay,
    NoisePos,
    NoiseSpeed,
    NoiseHeading,
    Dropout,
    LatencyMs,
    Method,
    TtcOffsetS,
    Sync,
    /// Simulated VUT (the backend): speed, km/h.
    VutSpeed,
    AebTtc,
    AebDecel,
    /// The combination of an OpenSCENARIO variation file (`name=value …`): the cell's own
    /// concrete scenario (see [`super::variation`]).
    Parameters,
}

impl Key {
    pub const ALL: [Key; 13] = [
        Key::Replay,
        Key::NoisePos,
        Key::NoiseSpeed,
        Key::NoiseHeading,
        Key::Dropout,
        Key::LatencyMs,
        Key::Method,
        Key::TtcOffsetS,
        Key::Sync,
        Key::VutSpeed,
        Key::AebTtc,
        Key::AebDecel,
        Key::Parameters,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Key::Replay => "replay",
            Key::NoisePos => "noise.pos",
            Key::NoiseSpeed => "noise.speed",
            Key::NoiseHeading => "noise.heading",
            Key::Dropout => "dropout",
            Key::LatencyMs => "latency_ms",
            Key::Method => "method",
            Key::TtcOffsetS => "ttc_offset_s",
            Key::Sync => "sync",
            Key::VutSpeed => "vut_speed",
            Key::AebTtc => "aeb.ttc",
            Key::AebDecel => "aeb.decel",
            Key::Parameters => "parameters",
        }
    }

    pub fn parse(s: &str) -> Result<Key, SweepError> {
        let s = s.trim();
        Key::ALL
            .iter()
            .copied()
            .find(|k| k.name() == s)
            .ok_or_else(|| SweepError::UnknownKey {
                key: s.to_string(),
                known: Key::ALL.map(Key::name).join(", "),
            })
    }

    /// Keys only the simulated VUT understands.
    pub fn is_sim(self) -> bool {
        matches!(self, Key::VutSpeed | Key::AebTtc | Key::AebDecel)
    }

    /// The source axis (which recording or which simulated speed): Table 2 groups by it.
    pub fn is_source(self) -> bool {
        matches!(self, Key::Parameters | Key::Replay | Key::VutSpeed)
    }

    fn is_text(self) -> bool {
        matches!(
            self,
            Key::Replay | Key::Method | Key::Sync | Key::Parameters
        )
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One value of a varied key.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Value {
    Num(f64),
    Text(String),
}

impl Value {
    pub fn num(&self) -> Option<f64> {
        match self {
            Value::Num(v) => Some(*v),
            Value::Text(_) => None,
        }
    }

    pub fn text(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            Value::Num(_) => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Num(v) => write!(f, "{v}"),
            Value::Text(s) => f.write_str(s),
        }
    }
}

/// Parses and checks one value of `key`.
pub fn parse_value(key: Key, raw: &str) -> Result<Value, SweepError> {
    let raw = raw.trim();
    let bad = |reason: String| SweepError::BadValue {
        key: key.name().into(),
        value: raw.into(),
        reason,
    };
    if raw.is_empty() {
        return Err(bad("empty value".into()));
    }
    if key.is_text() {
        return Ok(Value::Text(match key {
            Key::Method => match raw.parse::<TriggerMethod>().map_err(bad)? {
                TriggerMethod::Predicted => "predicted".into(),
                TriggerMethod::AtSample => "at_sample".into(),
            },
            Key::Sync => match raw {
                "on" | "true" | "1" => "on".into(),
                "off" | "false" | "0" => "off".into(),
                _ => return Err(bad("sync is 'on' or 'off'".into())),
            },
            _ => raw.to_string(),
        }));
    }
    let v: f64 = raw.parse().map_err(|_| bad("not a number".into()))?;
    if !v.is_finite() {
        return Err(bad("not a finite number".into()));
    }
    let inj_key = match key {
        Key::NoisePos => Some("pos"),
        Key::NoiseSpeed => Some("speed"),
        Key::NoiseHeading => Some("heading"),
        Key::Dropout => Some("dropout"),
        Key::LatencyMs => Some("latency_ms"),
        _ => None,
    };
    if let Some(k) = inj_key {
        Injection::default().set(k, v).map_err(bad)?;
    }
    let in_range = |lo: f64, hi: f64, what: &str| {
        if (lo..=hi).contains(&v) {
            Ok(())
        } else {
            Err(bad(format!("{what} must be between {lo} and {hi}")))
        }
    };
    match key {
        Key::TtcOffsetS => in_range(-10.0, 10.0, "ttc_offset_s (s)")?,
        Key::VutSpeed => in_range(0.1, 250.0, "vut_speed (km/h)")?,
        Key::AebTtc => in_range(0.0, 10.0, "aeb.ttc (s)")?,
        Key::AebDecel => in_range(0.0, 15.0, "aeb.decel (m/s²)")?,
        _ => {}
    }
    Ok(Value::Num(v))
}

/// One varied key and its values.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub key: Key,
    pub values: Vec<Value>,
}

impl Axis {
    /// `KEY=V1,V2,…` (the CLI's `--vary`).
    pub fn parse(spec: &str) -> Result<Axis, SweepError> {
        let (k, vs) = spec.split_once('=').ok_or_else(|| {
            SweepError::Invalid(format!("--vary expects KEY=V1,V2,…, got '{spec}'"))
        })?;
        let key = Key::parse(k)?;
        Axis::from_strs(key, vs.split(',').filter(|v| !v.trim().is_empty()))
    }

    pub fn from_strs<'a>(
        key: Key,
        values: impl IntoIterator<Item = &'a str>,
    ) -> Result<Axis, SweepError> {
        let values = values
            .into_iter()
            .map(|v| parse_value(key, v))
            .collect::<Result<Vec<_>, _>>()?;
        if values.is_empty() {
            return Err(SweepError::EmptyValues(key.name().into()));
        }
        Ok(Axis { key, values })
    }
}

/// One grid cell: a value for every varied key.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub index: usize,
    pub values: Vec<(Key, Value)>,
}

impl Cell {
    pub fn get(&self, key: Key) -> Option<&Value> {
        self.values.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    pub fn num(&self, key: Key) -> Option<f64> {
        self.get(key).and_then(Value::num)
    }

    /// `key=value …` (plot labels); `all` for the single cell of a grid without axes.
    pub fn label(&self) -> String {
        if self.values.is_empty() {
            return "all".into();
        }
        self.values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// One run of the grid.
#[derive(Debug, Clone, PartialEq)]
pub struct RunPoint {
    pub index: usize,
    pub repeat: u32,
    pub seed: u64,
    pub cell: Cell,
}

/// The checked grid (see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub axes: Vec<Axis>,
    pub repeat: u32,
    pub seed: u64,
}

impl Grid {
    /// Checks everything: no duplicate key, no empty list, `repeat ≥ 1`, at most `max_runs`.
    pub fn new(
        axes: Vec<Axis>,
        repeat: u32,
        seed: u64,
        max_runs: usize,
    ) -> Result<Grid, SweepError> {
        for (i, a) in axes.iter().enumerate() {
            if a.values.is_empty() {
                return Err(SweepError::EmptyValues(a.key.name().into()));
            }
            if axes[..i].iter().any(|b| b.key == a.key) {
                return Err(SweepError::DuplicateKey(a.key.name().into()));
            }
        }
        if repeat == 0 {
            return Err(SweepError::Invalid("--repeat must be at least 1".into()));
        }
        let runs = axes
            .iter()
            .try_fold(repeat as usize, |n, a| n.checked_mul(a.values.len()));
        match runs {
            Some(n) if n <= max_runs => {}
            Some(n) => {
                return Err(SweepError::TooManyRuns {
                    runs: n.to_string(),
                    limit: max_runs,
                })
            }
            None => {
                return Err(SweepError::TooManyRuns {
                    runs: "more than usize::MAX".into(),
                    limit: max_runs,
                })
            }
        }
        Ok(Grid { axes, repeat, seed })
    }

    pub fn keys(&self) -> Vec<Key> {
        self.axes.iter().map(|a| a.key).collect()
    }

    pub fn axis(&self, key: Key) -> Option<&Axis> {
        self.axes.iter().find(|a| a.key == key)
    }

    pub fn cells(&self) -> usize {
        self.axes.iter().map(|a| a.values.len()).product()
    }

    pub fn runs(&self) -> usize {
        self.cells() * self.repeat as usize
    }

    /// Cell `i` (mixed radix, last axis fastest).
    pub fn cell(&self, i: usize) -> Cell {
        let mut rest = i;
        let mut values = vec![(Key::Replay, Value::Num(0.0)); self.axes.len()];
        for (slot, a) in values.iter_mut().zip(&self.axes).rev() {
            let n = a.values.len();
            *slot = (a.key, a.values[rest % n].clone());
            rest /= n;
        }
        Cell { index: i, values }
    }

    /// Run `index` (`< runs()`).
    pub fn point(&self, index: usize) -> RunPoint {
        let r = (index % self.repeat as usize) as u32;
        RunPoint {
            index,
            repeat: r,
            seed: self.seed.wrapping_add(r as u64),
            cell: self.cell(index / self.repeat as usize),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_in_order_with_seeds() {
        let g = Grid::new(
            vec![
                Axis::parse("method=predicted,at-sample").expect("axis"),
                Axis::parse("noise.pos=0,0.1,0.2").expect("axis"),
            ],
            2,
            7,
            100,
        )
        .expect("grid");
        assert_eq!((g.cells(), g.runs()), (6, 12));
        let p = g.point(5);
        assert_eq!((p.repeat, p.seed, p.cell.index), (1, 8, 2));
        assert_eq!(p.cell.label(), "method=predicted noise.pos=0.2");
        assert_eq!(
            g.point(6).cell.get(Key::Method),
            Some(&Value::Text("at_sample".into()))
        );
    }

    #[test]
    fn rejects_bad_input() {
        assert!(matches!(
            Axis::parse("nois.pos=1"),
            Err(SweepError::UnknownKey { .. })
        ));
        assert!(matches!(
            Axis::parse("dropout="),
            Err(SweepError::EmptyValues(_))
        ));
        assert!(matches!(
            Axis::parse("dropout=2"),
            Err(SweepError::BadValue { .. })
        ));
        assert!(matches!(
            Axis::parse("method=late"),
            Err(SweepError::BadValue { .. })
        ));
        assert!(Axis::parse("noise.pos").is_err());
        let a = Axis::parse("noise.pos=0,1,2,3,4,5,6,7,8,9").expect("axis");
        assert!(matches!(
            Grid::new(
                vec![a.clone(), Axis::parse("dropout=0,0.1").expect("axis")],
                10,
                0,
                100
            ),
            Err(SweepError::TooManyRuns { .. })
        ));
        assert!(matches!(
            Grid::new(vec![a.clone(), a], 1, 0, 100),
            Err(SweepError::DuplicateKey(_))
        ));
    }
}
