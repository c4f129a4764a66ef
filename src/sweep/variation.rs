//! An OpenSCENARIO variation file (`ParameterValueDistribution`) as a sweep grid: every
//! combination of its distributions is one concrete scenario ([`crate::xosc::import`]), and
//! the `parameters` axis has one value per combination, named by its parameter values
//! (`Ego_speed_kph=20 Overlap=50 …`). Each run is that cell's scenario on the simulated VUT at
//! the scenario's own VUT speed (or at the cell's `vut_speed` when one is varied on top).
//!
//! `scil sweep --scenario VARIATION.xosc --out DIR [--vary aeb.ttc=…] …`

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::backend::{engine_config, injection, run_sim_seam, RunFn, SimParams};
use super::grid::{Axis, Cell, Grid, Key, SweepError, Value};
use super::Plan;
use crate::map::Map;
use crate::run::{RunReport, RunSetup};
use crate::scenario::engine::EngineConfig;
use crate::scenario::Scenario;

/// One combination of a variation file: its parameter values and its concrete scenario.
#[derive(Clone)]
pub struct ScenarioCell {
    /// `name=value` of every parameter the variation file assigns, space-separated.
    pub label: String,
    pub parameters: BTreeMap<String, String>,
    pub scenario: Scenario,
    pub map: Option<Arc<Map>>,
}

/// A variation file read for a sweep: its cells in combination order, and the files whose
/// bytes identify it (the variation file, the scenario file it varies, the road networks).
pub struct Loaded {
    pub name: String,
    pub cells: Vec<ScenarioCell>,
    pub inputs: Vec<(&'static str, PathBuf)>,
}

/// The label of one combination: `name=value …` in parameter-name order.
pub fn label(combo: &BTreeMap<String, String>) -> String {
    combo
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reads the variation file at `path`, imports every combination and loads each road network
/// once (`map` overrides the scenarios' own). Every error comes here, before anything runs.
pub fn load(path: &Path, map: Option<&Path>) -> anyhow::Result<Loaded> {
    let v = openscenario::read_variation(path)?;
    let all = crate::xosc::import(path, &BTreeMap::new())?;
    if all.len() != v.combinations.len() {
        anyhow::bail!(
            "{}: {} combinations but {} scenarios imported",
            path.display(),
            v.combinations.len(),
            all.len()
        );
    }
    let mut maps: HashMap<PathBuf, Arc<Map>> = HashMap::new();
    let mut inputs: Vec<(&'static str, PathBuf)> = vec![
        ("scenario", path.to_path_buf()),
        ("scenario", v.scenario_file.clone()),
    ];
    let mut cells = Vec::with_capacity(all.len());
    for (combo, imp) in v.combinations.iter().zip(all) {
        let map_path = match map {
            Some(m) => Some(m.to_path_buf()),
            None => imp.scenario.map_path(&v.scenario_file),
        };
        let map = match map_path {
            Some(p) => Some(match maps.get(&p) {
                Some(m) => m.clone(),
                None => {
                    let m = Arc::new(Map::load(&p)?);
                    inputs.push(("map", p.clone()));
                    maps.insert(p, m.clone());
                    m
                }
            }),
            None => None,
        };
        cells.push(ScenarioCell {
            label: label(combo),
            parameters: combo.clone(),
            scenario: imp.scenario,
            map,
        });
    }
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "variation".into());
    Ok(Loaded {
        name,
        cells,
        inputs,
    })
}

/// The checked sweep of `cells`: the `parameters` axis first (one value per cell), then
/// `vary` (keys of the simulated VUT and of the engine; `replay` is refused).
pub fn plan(
    name: String,
    cells: Vec<ScenarioCell>,
    base: EngineConfig,
    vary: Vec<Axis>,
    repeat: u32,
    seed: u64,
    max_runs: usize,
) -> Result<Plan, SweepError> {
    if cells.is_empty() {
        return Err(SweepError::Invalid(
            "the variation file has no combination".into(),
        ));
    }
    if let Some(a) = vary
        .iter()
        .find(|a| matches!(a.key, Key::Replay | Key::Parameters))
    {
        return Err(SweepError::Invalid(format!(
            "key {} cannot be varied in the sweep of a variation file",
            a.key
        )));
    }
    let axis = Axis {
        key: Key::Parameters,
        values: cells.iter().map(|c| Value::Text(c.label.clone())).collect(),
    };
    let mut axes = vec![axis];
    axes.extend(vary);
    let grid = Grid::new(axes, repeat, seed, max_runs)?;
    super::backend::check_available(&grid, true)?;
    let backend = ScenariosBackend::new(cells, base.clone())?;
    Ok(Plan {
        grid,
        backend: Arc::new(backend),
        base_method: base.method,
        scenario_name: name,
    })
}

/// Runs each cell's own scenario on the simulated VUT.
pub struct ScenariosBackend {
    cells: HashMap<String, Arc<RunSetup>>,
    base: EngineConfig,
}

impl ScenariosBackend {
    /// Resolves every cell's paths against its map (an error names the cell); labels must be
    /// distinct (two identical combinations are one cell).
    pub fn new(cells: Vec<ScenarioCell>, base: EngineConfig) -> Result<Self, SweepError> {
        let mut out = HashMap::with_capacity(cells.len());
        for c in cells {
            let setup = RunSetup::try_new(c.scenario, c.map, base.clone())
                .map_err(|e| SweepError::Invalid(format!("{}: {e:#}", c.label)))?;
            if out.insert(c.label.clone(), Arc::new(setup)).is_some() {
                return Err(SweepError::Invalid(format!(
                    "the combination {} occurs twice",
                    c.label
                )));
            }
        }
        Ok(ScenariosBackend { cells: out, base })
    }
}

impl RunFn for ScenariosBackend {
    fn run(&self, cell: &Cell, seed: u64) -> Result<RunReport, String> {
        let label = cell
            .get(Key::Parameters)
            .and_then(Value::text)
            .ok_or("no parameters in this cell")?;
        let setup = self
            .cells
            .get(label)
            .ok_or_else(|| format!("unknown combination {label}"))?;
        let cfg = engine_config(&self.base, cell)?;
        let vut_speed_kmh = match cell.num(Key::VutSpeed) {
            Some(v) => v,
            None => setup.scenario.vut.speed_kmh.ok_or_else(|| {
                format!("{label}: the scenario sets no VUT speed (vary vut_speed)")
            })?,
        };
        let params = SimParams {
            vut_speed_kmh,
            aeb_ttc_s: cell.num(Key::AebTtc),
            aeb_decel_mps2: cell.num(Key::AebDecel),
            engine: cfg.clone(),
            injection: injection(cell, seed)?,
        };
        let setup = Arc::new(RunSetup::new(
            setup.scenario.clone(),
            setup.map.clone(),
            cfg,
        ));
        run_sim_seam(setup, &params)
    }
}
