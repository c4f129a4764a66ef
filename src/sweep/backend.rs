//! What one sweep run is: a [`RunFn`] turns a grid cell and a seed into a [`RunReport`].
//!
//! * [`ReplayBackend`] (works now): each `--replay` is read once through the run layer's
//!   source factory ([`crate::run::source::open`]); every run replays it as a
//!   [`Feed`] with the cell's seeded injection through a [`crate::run::Session`]
//!   ([`crate::run::run_feed_blocking`]: its own current-thread runtime, maximum speed).
//! * The simulated VUT and the `sync` key plug in at the **seams** below
//!   ([`SIM_AVAILABLE`], [`run_sim_seam`], [`SYNC_AVAILABLE`], [`apply_sync_seam`]); the
//!   validity column at [`validity_seam`]. Until then they are a clear "not available in this
//!   build" error before anything runs (or an empty column).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::grid::{Cell, Grid, Key, SweepError, Value};
use crate::map::Map;
use crate::run::source::inject::Injection;
use crate::run::{Feed, OpenCtx, RunReport, RunSetup, SourceSpec};
use crate::sample::InsSample;
use crate::scenario::engine::{EngineConfig, TriggerMethod};
use crate::scenario::Scenario;

/// One run of a sweep. Must be deterministic: the same cell and seed give the same report.
pub trait RunFn: Send + Sync {
    fn run(&self, cell: &Cell, seed: u64) -> Result<RunReport, String>;
}

// ------------------------------------------------------------------------------------ seams

/// The simulated VUT is available: sweeps can vary `vut_speed` and `aeb.*`.
pub const SIM_AVAILABLE: bool = true;

/// The simulated VUT's parameters of one run (keys `vut_speed`, `aeb.ttc`, `aeb.decel`), with
/// the engine configuration and injection every backend gets.
#[derive(Debug, Clone)]
pub struct SimParams {
    pub vut_speed_kmh: f64,
    /// AEB TTC threshold, s (`None`: the simulator's default).
    pub aeb_ttc_s: Option<f64>,
    /// AEB deceleration, m/s² (`None`: the simulator's default).
    pub aeb_decel_mps2: Option<f64>,
    pub engine: EngineConfig,
    pub injection: Injection,
}

/// One deterministic simulated run ([`crate::sim::run_sim`]); the engine configuration is
/// already in `setup.engine`. The VUT has its AEB when the grid names an `aeb.*` key (the
/// other AEB values are the simulator's defaults); without one it drives through, which is
/// what a trigger-timing sweep wants.
pub fn run_sim_seam(setup: Arc<RunSetup>, params: &SimParams) -> Result<RunReport, String> {
    let aeb = (params.aeb_ttc_s.is_some() || params.aeb_decel_mps2.is_some()).then(|| {
        let d = crate::sim::AebParams::default();
        crate::sim::AebParams {
            ttc_s: params.aeb_ttc_s.unwrap_or(d.ttc_s),
            decel_mps2: params.aeb_decel_mps2.unwrap_or(d.decel_mps2),
            ..d
        }
    });
    let opts = crate::sim::SimOptions {
        vut_speed_kmh: params.vut_speed_kmh,
        aeb,
        injection: params.injection,
        ..crate::sim::SimOptions::default()
    };
    opts.validate()?;
    let report = crate::sim::run_sim(setup, &opts);
    match &report.error {
        Some(e) => Err(e.clone()),
        None => Ok(report),
    }
}

/// Closed-loop synchronisation is available: the `sync` key.
pub const SYNC_AVAILABLE: bool = true;

/// Switches the engine's closed-loop synchronisation on or off for one run.
pub fn apply_sync_seam(cfg: &mut EngineConfig, on: bool) -> Result<(), String> {
    cfg.sync = on;
    Ok(())
}

/// The run's Euro NCAP verdict for the `validity` column: `valid`, or `invalid: <first broken
/// channel>` (with the 100 Hz warning appended when the data is slower); empty when the
/// scenario asks for no verdict.
pub fn validity_seam(report: &RunReport) -> Option<String> {
    let v = report.validity.as_ref()?;
    let mut s = if v.valid {
        "valid".to_string()
    } else {
        match v.first_broken() {
            Some(c) => format!(
                "invalid: {}",
                serde_json::to_value(c).ok()?.as_str().unwrap_or("?")
            ),
            None => "invalid".to_string(),
        }
    };
    if v.warnings.iter().any(|w| w.contains("Hz")) {
        s.push_str(" (below 100 Hz)");
    }
    Some(s)
}

// --------------------------------------------------------------------- the cell's settings

/// The engine configuration of a cell (`method`, `ttc_offset_s`, `sync`) on top of `base`.
pub fn engine_config(base: &EngineConfig, cell: &Cell) -> Result<EngineConfig, String> {
    let mut cfg = base.clone();
    if let Some(m) = cell.get(Key::Method).and_then(Value::text) {
        cfg.method = m.parse::<TriggerMethod>()?;
    }
    if let Some(o) = cell.num(Key::TtcOffsetS) {
        cfg.ttc_offset_s = o;
    }
    if let Some(s) = cell.get(Key::Sync).and_then(Value::text) {
        apply_sync_seam(&mut cfg, s == "on")?;
    }
    Ok(cfg)
}

/// The seeded injection of a cell (`noise.*`, `dropout`, `latency_ms`).
pub fn injection(cell: &Cell, seed: u64) -> Result<Injection, String> {
    let mut inj = Injection {
        seed,
        ..Injection::default()
    };
    for (k, v) in &cell.values {
        let name = match k {
            Key::NoisePos => "pos",
            Key::NoiseSpeed => "speed",
            Key::NoiseHeading => "heading",
            Key::Dropout => "dropout",
            Key::LatencyMs => "latency_ms",
            _ => continue,
        };
        if let Some(x) = v.num() {
            inj.set(name, x)?;
        }
    }
    Ok(inj)
}

/// Checks that every key of `grid` is available in this build for the chosen backend.
pub fn check_available(grid: &Grid, sim: bool) -> Result<(), SweepError> {
    for k in grid.keys() {
        if k.is_sim() && !SIM_AVAILABLE {
            return Err(SweepError::NotAvailable(format!(
                "the simulated VUT (--sim-vut-speed, key {k})"
            )));
        }
        if k.is_sim() && !sim {
            return Err(SweepError::Invalid(format!(
                "key {k} needs the simulated VUT (--sim-vut-speed), not --replay"
            )));
        }
        if k == Key::Replay && sim {
            return Err(SweepError::Invalid(
                "--replay and --sim-vut-speed cannot be combined".into(),
            ));
        }
        if k == Key::Sync && !SYNC_AVAILABLE {
            return Err(SweepError::NotAvailable("the sync key".into()));
        }
    }
    Ok(())
}

// ------------------------------------------------------------------------- replay backend

/// Replays recorded runs (the `replay` axis: label → samples read once).
pub struct ReplayBackend {
    scenario: Scenario,
    map: Option<Arc<Map>>,
    base: EngineConfig,
    replays: BTreeMap<String, Arc<Vec<InsSample>>>,
}

impl ReplayBackend {
    /// Reads every replay once through the run layer's source factory (a file that cannot be
    /// read is an error before any run). `replays` are (label, file) pairs.
    pub fn new(
        scenario: Scenario,
        map: Option<Arc<Map>>,
        base: EngineConfig,
        replays: &[(String, PathBuf)],
    ) -> Result<ReplayBackend, SweepError> {
        let mut out = BTreeMap::new();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| SweepError::Invalid(format!("runtime: {e}")))?;
        for (label, path) in replays {
            if out.contains_key(label) {
                return Err(SweepError::Invalid(format!("replay '{label}' given twice")));
            }
            let samples = rt
                .block_on(load(&base.vut_id, path))
                .map_err(|e| SweepError::Invalid(format!("replay {}: {e}", path.display())))?;
            out.insert(label.clone(), Arc::new(samples));
        }
        Ok(ReplayBackend {
            scenario,
            map,
            base,
            replays: out,
        })
    }

    /// The CLI's form: the scenario file (its map, or `map`) and replay files labelled by
    /// their file stem.
    pub fn load(
        scenario: &Path,
        map: Option<&Path>,
        base: EngineConfig,
        replays: &[PathBuf],
    ) -> Result<ReplayBackend, SweepError> {
        let setup = RunSetup::load(scenario, map, base.clone())
            .map_err(|e| SweepError::Invalid(format!("{}: {e:#}", scenario.display())))?;
        let labelled: Vec<(String, PathBuf)> = replays
            .iter()
            .map(|p| {
                let stem = p
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| p.display().to_string());
                (stem, p.clone())
            })
            .collect();
        ReplayBackend::new(setup.scenario, setup.map, base, &labelled)
    }

    /// The replay axis of this backend's recordings (labels in the order given).
    pub fn labels(&self) -> Vec<String> {
        self.replays.keys().cloned().collect()
    }
}

/// All samples of a recorded source, in order (the first bad row is the error, as in
/// `scil replay`).
async fn load(vut_id: &str, path: &Path) -> Result<Vec<InsSample>, String> {
    let spec = SourceSpec::csv(path);
    let ctx = OpenCtx {
        vut_id,
        dbc: &crate::run::source::dbc_from_path,
    };
    let mut feed = crate::run::source::open(&spec, &ctx)
        .await
        .map_err(|e| e.to_string())?;
    let mut v = Vec::new();
    while let Some(s) = feed.next().await {
        v.push(s.map_err(|e| e.to_string())?);
    }
    if v.is_empty() {
        return Err("no samples".into());
    }
    Ok(v)
}

impl RunFn for ReplayBackend {
    fn run(&self, cell: &Cell, seed: u64) -> Result<RunReport, String> {
        let label = match cell.get(Key::Replay).and_then(Value::text) {
            Some(l) => l.to_string(),
            None if self.replays.len() == 1 => self.labels().remove(0),
            None => return Err("no replay in this cell".into()),
        };
        let samples = self
            .replays
            .get(&label)
            .cloned()
            .ok_or_else(|| format!("unknown replay '{label}'"))?;
        let cfg = engine_config(&self.base, cell)?;
        let setup = Arc::new(RunSetup::new(self.scenario.clone(), self.map.clone(), cfg));
        let n = samples.len();
        let mut feed = Feed::from_iter(
            format!("replay:{label}"),
            (0..n).map(move |i| Ok(samples[i].clone())),
        );
        let inj = injection(cell, seed)?;
        if !inj.is_zero() {
            feed.inject(inj)?;
        }
        crate::run::run_feed_blocking(setup, feed, Vec::new()).map_err(|e| e.to_string())
    }
}

// ---------------------------------------------------------------------------- sim backend

/// The simulated VUT through [`run_sim_seam`]: one run per cell and seed.
pub struct SimBackend {
    scenario: Scenario,
    map: Option<Arc<Map>>,
    base: EngineConfig,
}

impl SimBackend {
    pub fn new(
        scenario: Scenario,
        map: Option<Arc<Map>>,
        base: EngineConfig,
    ) -> Result<SimBackend, SweepError> {
        if !SIM_AVAILABLE {
            return Err(SweepError::NotAvailable(
                "the simulated VUT (--sim-vut-speed)".into(),
            ));
        }
        Ok(SimBackend {
            scenario,
            map,
            base,
        })
    }
}

impl RunFn for SimBackend {
    fn run(&self, cell: &Cell, seed: u64) -> Result<RunReport, String> {
        let cfg = engine_config(&self.base, cell)?;
        let params = SimParams {
            vut_speed_kmh: cell
                .num(Key::VutSpeed)
                .ok_or("a simulated run needs vut_speed")?,
            aeb_ttc_s: cell.num(Key::AebTtc),
            aeb_decel_mps2: cell.num(Key::AebDecel),
            engine: cfg.clone(),
            injection: injection(cell, seed)?,
        };
        let setup = Arc::new(RunSetup::new(self.scenario.clone(), self.map.clone(), cfg));
        run_sim_seam(setup, &params)
    }
}
