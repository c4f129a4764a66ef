//! Replay: drive the scenario engine from a recorded file, paced like the recording, ×N, or as
//! fast as possible, and collect the run's results.
//!
//! The engine takes its time from the samples only, so the results do not depend on the pace.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::frame::Interface;
use crate::ingest::csv::{BadRowPolicy, ColumnSpec, CsvError, CsvSource};
use crate::map::Map;
use crate::sample::InsSample;
use crate::scenario::engine::{Engine, EngineConfig, Event, ImpactRecord, Output, TriggerRecord};
use crate::scenario::Scenario;
use crate::twin::Twin;

/// Replay pace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Speed {
    /// As fast as possible.
    Max,
    /// Real time × factor.
    Factor(f64),
}

impl FromStr for Speed {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("max") {
            return Ok(Speed::Max);
        }
        let f: f64 = s
            .trim_end_matches(['x', 'X'])
            .parse()
            .map_err(|_| format!("speed must be 'max' or a positive factor, got '{s}'"))?;
        if f.is_finite() && f > 0.0 {
            Ok(Speed::Factor(f))
        } else {
            Err(format!("speed factor must be positive, got {f}"))
        }
    }
}

/// Maps sample time to wall time and sleeps until a sample is due.
pub struct Pacer {
    speed: Speed,
    origin: Option<(Instant, f64)>,
}

impl Pacer {
    pub fn new(speed: Speed) -> Pacer {
        Pacer {
            speed,
            origin: None,
        }
    }

    /// Wall-clock instant at which sample time `t` is due (anchored at the first call).
    pub fn due(&mut self, t: f64) -> Option<Instant> {
        let Speed::Factor(f) = self.speed else {
            return None;
        };
        let (wall0, t0) = *self.origin.get_or_insert((Instant::now(), t));
        let dt = ((t - t0) / f).max(0.0);
        Some(wall0 + Duration::from_secs_f64(dt))
    }

    /// Blocks until sample time `t` is due.
    pub fn wait_until(&mut self, t: f64) {
        if let Some(due) = self.due(t) {
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
            }
        }
    }
}

/// Per-target trigger result (the CLI contract's fields first).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TriggerResult {
    pub target: String,
    /// Trigger instant in the CSV time base.
    pub time_s: f64,
    pub ttc_s: f64,
    pub d_long_m: f64,
    pub vut_speed_kmh: f64,
    pub threshold_s: f64,
    pub fired_at_s: f64,
    pub fire_error_ms: Option<f64>,
    pub method: crate::scenario::engine::TriggerMethod,
    pub retimed: bool,
}

impl From<&TriggerRecord> for TriggerResult {
    fn from(r: &TriggerRecord) -> Self {
        TriggerResult {
            target: r.target.clone(),
            time_s: r.time_s,
            ttc_s: r.ttc_s,
            d_long_m: r.d_long_m,
            vut_speed_kmh: r.vut_speed_mps * 3.6,
            threshold_s: r.threshold_s,
            fired_at_s: r.fired_at_s,
            fire_error_ms: r.fire_error_ms,
            method: r.method,
            retimed: r.retimed,
        }
    }
}

/// The result of one run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunResult {
    pub samples: u64,
    pub skipped_rows: u64,
    pub triggers: Vec<TriggerResult>,
    pub impacts: Vec<ImpactRecord>,
    pub aborted: Option<String>,
    /// First skipped-row errors (file:line: reason), so skipped rows are never silent.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
}

/// Collects engine outputs into results and an event log.
#[derive(Debug, Default)]
pub struct Recorder {
    pub events: Vec<Event>,
    pub commands: Vec<crate::scenario::engine::Command>,
}

impl Recorder {
    pub fn record(&mut self, out: Output) {
        match out {
            Output::Event(e) => self.events.push(e),
            Output::Command(c) => self.commands.push(c),
        }
    }

    /// Builds the run result. Trigger records are taken last-wins per target, after applying
    /// retime events, so the reported instant is the final profile origin.
    pub fn result(&self, samples: u64, skipped_rows: u64) -> RunResult {
        let mut triggers: Vec<TriggerResult> = Vec::new();
        let mut impacts: Vec<ImpactRecord> = Vec::new();
        let mut aborted = None;
        for e in &self.events {
            match e {
                Event::Triggered(r) => triggers.push(r.into()),
                Event::TriggerAssessed(r) => {
                    if let Some(t) = triggers.iter_mut().rev().find(|t| t.target == r.target) {
                        *t = r.into();
                    }
                }
                Event::Impact(r) => impacts.push(r.clone()),
                Event::Aborted { reason, .. } => aborted = Some(reason.clone()),
                _ => {}
            }
        }
        RunResult {
            samples,
            skipped_rows,
            triggers,
            impacts,
            aborted,
            skipped: Vec::new(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("{0}")]
    Csv(#[from] CsvError),
    #[error("{0}")]
    Other(#[from] anyhow::Error),
}

/// Everything a replay needs.
pub struct ReplaySetup {
    pub scenario: Scenario,
    pub map: Option<Map>,
    pub interface: Interface,
    pub engine: EngineConfig,
}

impl ReplaySetup {
    /// Loads the scenario and its map (`map_override` or the scenario's `map`, relative to the
    /// scenario file).
    pub fn load(
        scenario_path: &Path,
        map_override: Option<&Path>,
        engine: EngineConfig,
    ) -> anyhow::Result<Self> {
        let scenario = Scenario::from_path(scenario_path)?;
        let map_path: Option<PathBuf> = map_override
            .map(Path::to_path_buf)
            .or_else(|| scenario.map_path(scenario_path));
        let map = match map_path {
            Some(p) => Some(Map::load(&p)?),
            None => None,
        };
        let mut interface = Interface::default();
        if let Some(r) = scenario.vut.steering_ratio {
            interface.steering_ratio = r;
        }
        if let Some(m) = &map {
            interface.geo = m.geo.clone().map(|g| g as Arc<dyn crate::frame::GeoToMap>);
        }
        Ok(ReplaySetup {
            scenario,
            map,
            interface,
            engine,
        })
    }

    /// A fresh engine on this setup (twin map-matched when a map is loaded).
    pub fn engine(&self) -> Engine {
        let twin = Twin::new(self.map.as_ref().map(|m| m.matcher()));
        Engine::new(&self.scenario, self.engine.clone(), twin)
    }
}

/// Drives `engine` with `samples`, honouring engine timers between samples. Returns the number
/// of samples applied. `on_output` sees every command and event as it is produced.
pub fn drive<E: Into<ReplayError>>(
    samples: impl Iterator<Item = Result<InsSample, E>>,
    interface: &Interface,
    engine: &mut Engine,
    pacer: &mut Pacer,
    on_output: &mut dyn FnMut(Output),
) -> Result<u64, ReplayError> {
    let mut n = 0;
    let mut last_t = None;
    for item in samples {
        let ins = item.map_err(Into::into)?;
        let s = interface
            .to_map(&ins)
            .map_err(|e| ReplayError::Other(anyhow::anyhow!("{e}")))?;
        if n == 0 {
            engine.arm(s.time_s);
        }
        // Timers due before this sample fire first, at their own instants.
        while let Some(t) = engine.poll_timeout() {
            if t > s.time_s {
                break;
            }
            pacer.wait_until(t);
            engine.handle_timeout(t);
            while let Some(o) = engine.poll_output() {
                on_output(o);
            }
        }
        pacer.wait_until(s.time_s);
        engine.handle_sample(&s);
        while let Some(o) = engine.poll_output() {
            on_output(o);
        }
        last_t = Some(s.time_s);
        n += 1;
    }
    engine.finish(last_t.unwrap_or(0.0));
    while let Some(o) = engine.poll_output() {
        on_output(o);
    }
    Ok(n)
}

/// Options of a CSV replay.
#[derive(Debug, Clone)]
pub struct CsvReplay {
    pub csv: PathBuf,
    pub columns: Vec<ColumnSpec>,
    pub on_bad_row: BadRowPolicy,
    pub speed: Speed,
}

/// Replays a CSV file through a fresh engine; returns the result and the recorder.
/// With `progress`, a progress bar (by bytes read) is drawn on stderr for files over 1 MB.
pub fn replay_csv(
    setup: &ReplaySetup,
    opts: &CsvReplay,
    progress: bool,
    on_output: &mut dyn FnMut(&Output),
) -> Result<(RunResult, Recorder), ReplayError> {
    let mut src = CsvSource::open(&opts.csv, &opts.columns, opts.on_bad_row)?;
    let size = std::fs::metadata(&opts.csv).map(|m| m.len()).unwrap_or(0);
    let bar = progress && size > 1_000_000;
    let mut engine = setup.engine();
    let mut pacer = Pacer::new(opts.speed);
    let mut rec = Recorder::default();
    let mut last_pct = u64::MAX;
    let samples = std::iter::from_fn(|| {
        let item = src.next_sample();
        if bar {
            let pct = src.byte_offset() * 100 / size.max(1);
            if pct != last_pct {
                last_pct = pct;
                let filled = (pct / 2) as usize;
                eprint!(
                    "\r[{}{}] {pct:>3} %",
                    "#".repeat(filled),
                    " ".repeat(50 - filled.min(50))
                );
            }
        }
        item
    });
    let n = drive(
        samples,
        &setup.interface,
        &mut engine,
        &mut pacer,
        &mut |o| {
            on_output(&o);
            rec.record(o);
        },
    )?;
    if bar {
        eprintln!();
    }
    let mut result = rec.result(n, src.skipped);
    result.skipped = src.skipped_errors.iter().map(|e| e.to_string()).collect();
    Ok((result, rec))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speed_parses() {
        assert_eq!("max".parse::<Speed>(), Ok(Speed::Max));
        assert_eq!("4".parse::<Speed>(), Ok(Speed::Factor(4.0)));
        assert_eq!("4x".parse::<Speed>(), Ok(Speed::Factor(4.0)));
        assert!("0".parse::<Speed>().is_err());
        assert!("fast".parse::<Speed>().is_err());
    }
}
