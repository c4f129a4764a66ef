//! One row per run (`results.csv`, the service's JSON) and the small statistics the report
//! needs (median and quartiles).

use std::io::Write;
use std::path::Path;

use serde_json::{json, Map, Value as Json};

use super::grid::{Grid, Key, RunPoint, Value};
use crate::run::RunReport;

/// The measured columns after the varied keys, in CSV order.
pub const COLUMNS: [&str; 14] = [
    "trigger_time_s",
    "ttc_s",
    "d_long_m",
    "vut_speed_kmh",
    "fire_error_ms",
    "method",
    "dummy_travel_m",
    "nominal_travel_m",
    "travel_error_m",
    "impact_time_s",
    "stopped_short_m",
    "samples",
    "validity",
    "error",
];

/// One run's row (the first target of the scenario).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub index: usize,
    pub cell: usize,
    pub seed: u64,
    /// The cell's value of every varied key, in grid order.
    pub values: Vec<(Key, Value)>,
    pub trigger_time_s: Option<f64>,
    pub ttc_s: Option<f64>,
    pub d_long_m: Option<f64>,
    pub vut_speed_kmh: Option<f64>,
    pub fire_error_ms: Option<f64>,
    pub method: String,
    pub dummy_travel_m: Option<f64>,
    pub nominal_travel_m: Option<f64>,
    /// Dummy travel at the impact minus the nominal travel to the impact point.
    pub travel_error_m: Option<f64>,
    pub impact_time_s: Option<f64>,
    pub stopped_short_m: Option<f64>,
    pub samples: u64,
    pub validity: Option<String>,
    pub error: Option<String>,
}

fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

impl Row {
    /// The row of run `p` from its report (or its error); `method` is the cell's (or the base
    /// configuration's) when the run did not trigger.
    pub fn new(
        p: &RunPoint,
        report: Result<&RunReport, &str>,
        method: &str,
        validity: Option<String>,
    ) -> Row {
        let mut row = Row {
            index: p.index,
            cell: p.cell.index,
            seed: p.seed,
            values: p.cell.values.clone(),
            trigger_time_s: None,
            ttc_s: None,
            d_long_m: None,
            vut_speed_kmh: None,
            fire_error_ms: None,
            method: method.to_string(),
            dummy_travel_m: None,
            nominal_travel_m: None,
            travel_error_m: None,
            impact_time_s: None,
            stopped_short_m: None,
            samples: 0,
            validity,
            error: None,
        };
        let r = match report {
            Ok(r) => r,
            Err(e) => {
                row.error = Some(e.to_string());
                return row;
            }
        };
        row.samples = r.samples;
        row.error = r.error.clone().or_else(|| r.aborted.clone());
        let target = r
            .triggers
            .first()
            .map(|t| t.target.clone())
            .or_else(|| r.impacts.first().map(|i| i.target.clone()));
        if let Some(t) = r
            .triggers
            .iter()
            .find(|t| Some(&t.target) == target.as_ref())
        {
            row.trigger_time_s = finite(t.time_s);
            row.ttc_s = finite(t.ttc_s);
            row.d_long_m = finite(t.d_long_m);
            row.vut_speed_kmh = finite(t.vut_speed_kmh);
            row.fire_error_ms = t.fire_error_ms.and_then(finite);
            row.method = match t.method {
                crate::scenario::engine::TriggerMethod::Predicted => "predicted".into(),
                crate::scenario::engine::TriggerMethod::AtSample => "at_sample".into(),
            };
        }
        if let Some(i) = r
            .impacts
            .iter()
            .find(|i| Some(&i.target) == target.as_ref())
        {
            row.dummy_travel_m = i.dummy_travel_m.and_then(finite);
            row.nominal_travel_m = finite(i.nominal_travel_m);
            row.travel_error_m = row
                .dummy_travel_m
                .zip(row.nominal_travel_m)
                .map(|(a, b)| a - b);
            row.impact_time_s = i.time_s.and_then(finite);
            row.stopped_short_m = i.stopped_short_m.and_then(finite);
        }
        row
    }

    /// A measured column by name ([`COLUMNS`]) as a number.
    pub fn metric(&self, name: &str) -> Option<f64> {
        match name {
            "trigger_time_s" => self.trigger_time_s,
            "ttc_s" => self.ttc_s,
            "d_long_m" => self.d_long_m,
            "vut_speed_kmh" => self.vut_speed_kmh,
            "fire_error_ms" => self.fire_error_ms,
            "dummy_travel_m" => self.dummy_travel_m,
            "nominal_travel_m" => self.nominal_travel_m,
            "travel_error_m" => self.travel_error_m,
            "impact_time_s" => self.impact_time_s,
            "stopped_short_m" => self.stopped_short_m,
            _ => None,
        }
    }

    pub fn value(&self, key: Key) -> Option<&Value> {
        self.values.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    fn fields(&self) -> Vec<String> {
        let n = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
        let mut f = vec![self.index.to_string(), self.seed.to_string()];
        f.extend(
            self.values
                .iter()
                .filter(|(k, _)| *k != Key::Method)
                .map(|(_, v)| v.to_string()),
        );
        f.extend([
            n(self.trigger_time_s),
            n(self.ttc_s),
            n(self.d_long_m),
            n(self.vut_speed_kmh),
            n(self.fire_error_ms),
            self.method.clone(),
            n(self.dummy_travel_m),
            n(self.nominal_travel_m),
            n(self.travel_error_m),
            n(self.impact_time_s),
            n(self.stopped_short_m),
            self.samples.to_string(),
            self.validity.clone().unwrap_or_default(),
            self.error.clone().unwrap_or_default(),
        ]);
        f
    }

    /// The row as a JSON object (keys as in the CSV header).
    pub fn to_json(&self) -> Json {
        let mut m = Map::new();
        m.insert("index".into(), json!(self.index));
        m.insert("cell".into(), json!(self.cell));
        m.insert("seed".into(), json!(self.seed));
        for (k, v) in self.values.iter().filter(|(k, _)| *k != Key::Method) {
            m.insert(k.name().into(), json!(v));
        }
        for c in COLUMNS {
            let v = match c {
                "method" => json!(self.method),
                "samples" => json!(self.samples),
                "validity" => json!(self.validity),
                "error" => json!(self.error),
                _ => json!(self.metric(c)),
            };
            m.insert(c.into(), v);
        }
        Json::Object(m)
    }
}

/// The CSV header for `grid`: index, seed, the varied keys (a varied `method` is the measured
/// `method` column), the measured columns.
pub fn header(grid: &Grid) -> Vec<String> {
    let mut h = vec!["index".to_string(), "seed".to_string()];
    h.extend(
        grid.keys()
            .iter()
            .filter(|k| **k != Key::Method)
            .map(|k| k.name().to_string()),
    );
    h.extend(COLUMNS.iter().map(|c| c.to_string()));
    h
}

/// Writes `results.csv` (rows in index order).
pub fn write_csv(path: &Path, grid: &Grid, rows: &[Row]) -> std::io::Result<()> {
    let f = std::fs::File::create(path)?;
    let mut w = csv::Writer::from_writer(std::io::BufWriter::new(f));
    let io = |e: csv::Error| std::io::Error::other(e);
    w.write_record(header(grid)).map_err(io)?;
    for r in rows {
        w.write_record(r.fields()).map_err(io)?;
    }
    let mut inner = w.into_inner().map_err(|e| io(e.into_error().into()))?;
    inner.flush()
}

/// Five-number summary (linear interpolation between order statistics).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Summary {
    pub n: usize,
    pub min: f64,
    pub q1: f64,
    pub median: f64,
    pub q3: f64,
    pub max: f64,
}

/// The summary of the finite values of `xs`; `None` when there are none.
pub fn summary(xs: impl IntoIterator<Item = f64>) -> Option<Summary> {
    let mut v: Vec<f64> = xs.into_iter().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let q = |p: f64| {
        let h = p * (v.len() - 1) as f64;
        let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
        v[lo] + (h - lo as f64) * (v[hi] - v[lo])
    };
    Some(Summary {
        n: v.len(),
        min: v[0],
        q1: q(0.25),
        median: q(0.5),
        q3: q(0.75),
        max: v[v.len() - 1],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quartiles() {
        let s = summary([4.0, 1.0, f64::NAN, 3.0, 2.0, 5.0]).expect("values");
        assert_eq!(
            (s.n, s.min, s.q1, s.median, s.q3, s.max),
            (5, 1.0, 2.0, 3.0, 4.0, 5.0)
        );
        assert_eq!(summary([f64::NAN]), None);
        assert_eq!(summary([1.0, 2.0]).map(|s| s.median), Some(1.5));
    }
}
