//! The whole Euro NCAP 2026 prediction grid as one sweep: every placeable row of the catalogue ×
//! every cell of its matrix (VUT speed × target speed × impact location × turn × direction ×
//! approach × lateral speed × gap), instantiated on a straight map or a junction map and run on the simulated VUT.
//! Day and night cells are the same simulation and are run once.
//!
//! `scil catalogue grid --straight-map M --junction-map J [--aeb …] [--jobs N] [--out CSV]`

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::map::Map;
use crate::run::RunSetup;
use crate::scenario::engine::EngineConfig;
use crate::scenario::ncap2026::{Catalogue, Family, Params, Row};
use crate::sim::{AebParams, SimOptions};

/// One cell of the grid.
#[derive(Debug, Clone)]
pub struct Cell {
    pub row: usize,
    pub params: Params,
}

/// Every cell of every placeable row (rear and longitudinal rows: moving targets slower than
/// the VUT).
pub fn cells(cat: &Catalogue) -> Vec<Cell> {
    let mut out = Vec::new();
    for (i, row) in cat.row.iter().enumerate() {
        if row.unsupported().is_some() {
            continue;
        }
        let turns: Vec<_> = opt_list(&row.turns);
        let dirs: Vec<_> = opt_list(&row.directions);
        let apps: Vec<_> = opt_list(&row.approaches);
        let laterals: Vec<_> = opt_list(&row.lateral_speeds_mps);
        let gaps: Vec<_> = opt_list(&row.gaps_m);
        let targets: Vec<Option<f64>> = if row.target_speeds_kmh.is_empty() {
            vec![None]
        } else {
            row.target_speeds_kmh.iter().map(|v| Some(*v)).collect()
        };
        let impacts: Vec<Option<f64>> = if row.impacts.is_empty() {
            vec![None]
        } else {
            row.impacts.iter().map(|v| Some(*v)).collect()
        };
        for turn in &turns {
            let mut speeds = match turn {
                Some(crate::scenario::turn::Turn::Nearside)
                    if !row.nearside_speeds_kmh.is_empty() =>
                {
                    row.nearside_speeds_kmh.clone()
                }
                _ => row.vut_speeds_kmh.clone(),
            };
            for f in &row.fcw_speeds_kmh {
                if !speeds.contains(f) {
                    speeds.push(*f);
                }
            }
            for v in &speeds {
                for t in &targets {
                    // A target ahead in the VUT's lane at the VUT's speed or faster is never
                    // reached: not a cell of the matrix.
                    if matches!(row.family, Family::Rear | Family::Longitudinal)
                        && t.is_some_and(|t| t > 0.0 && t >= *v)
                    {
                        continue;
                    }
                    for imp in &impacts {
                        for d in &dirs {
                            for a in &apps {
                                for (l, g) in laterals
                                    .iter()
                                    .flat_map(|l| gaps.iter().map(move |g| (*l, *g)))
                                {
                                    let mut p = Params::new(*v);
                                    p.turn = *turn;
                                    p.direction = *d;
                                    p.approach = *a;
                                    p.target_speed_kmh = *t;
                                    p.impact = *imp;
                                    p.lateral_mps = l;
                                    p.gap_m = g;
                                    out.push(Cell { row: i, params: p });
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

fn opt_list<T: Copy>(v: &[T]) -> Vec<Option<T>> {
    if v.is_empty() {
        vec![None]
    } else {
        v.iter().map(|x| Some(*x)).collect()
    }
}

/// The result of one cell.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CellResult {
    pub row: String,
    pub vut_speed_kmh: f64,
    pub target_speed_kmh: Option<f64>,
    pub impact: Option<f64>,
    pub turn: Option<String>,
    pub direction: Option<String>,
    pub approach: Option<String>,
    pub lateral_mps: Option<f64>,
    pub gap_m: Option<f64>,
    pub impacted: bool,
    pub location: Option<f64>,
    pub impact_speed_kmh: Option<f64>,
    pub relative_speed_kmh: Option<f64>,
    pub arrival_error_s: Option<f64>,
    pub valid: Option<bool>,
    pub error: Option<String>,
    /// Simulated steps (VUT samples) of the run.
    #[serde(skip)]
    pub steps: u64,
    /// Thread time of the cell: placing, setting up and running it (s).
    #[serde(skip)]
    pub cpu_s: f64,
}

/// Outcome of the grid: results in cell order and the wall time.
pub struct GridOutcome {
    pub results: Vec<CellResult>,
    pub elapsed_s: f64,
}

fn run_cell(row: &Row, p: &Params, map: &Arc<Map>, aeb: Option<AebParams>) -> CellResult {
    let t0 = Instant::now();
    let mut r = run_cell_inner(row, p, map, aeb);
    r.cpu_s = t0.elapsed().as_secs_f64();
    r
}

/// The cell's result before it runs: its parameters, no outcome.
fn blank(row: &Row, p: &Params) -> CellResult {
    CellResult {
        row: row.id.clone(),
        vut_speed_kmh: p.vut_speed_kmh,
        target_speed_kmh: p.target_speed_kmh,
        impact: p.impact,
        turn: p.turn.map(|t| format!("{t:?}").to_lowercase()),
        direction: p.direction.map(|t| format!("{t:?}").to_lowercase()),
        approach: p.approach.map(|t| format!("{t:?}").to_lowercase()),
        lateral_mps: p.lateral_mps,
        gap_m: p.gap_m,
        impacted: false,
        location: None,
        impact_speed_kmh: None,
        relative_speed_kmh: None,
        arrival_error_s: None,
        valid: None,
        error: None,
        steps: 0,
        cpu_s: 0.0,
    }
}

fn run_cell_inner(row: &Row, p: &Params, map: &Arc<Map>, aeb: Option<AebParams>) -> CellResult {
    let mut r = blank(row, p);
    let sc = match row.instantiate(p, &map.road_network) {
        Ok(sc) => sc,
        Err(e) => {
            r.error = Some(e);
            return r;
        }
    };
    let setup = match RunSetup::try_new(sc, Some(map.clone()), EngineConfig::default()) {
        Ok(s) => Arc::new(s),
        Err(e) => {
            r.error = Some(e.to_string());
            return r;
        }
    };
    let opts = SimOptions {
        vut_speed_kmh: p.vut_speed_kmh,
        aeb,
        max_duration_s: 300.0,
        ..SimOptions::default()
    };
    let rep = crate::sim::run_sim(setup, &opts);
    r.error = rep.error.clone();
    r.steps = rep.samples;
    if let Some(i) = rep.impacts.iter().find(|i| i.time_s.is_some()) {
        r.impacted = true;
        r.location = i.location;
        r.impact_speed_kmh = i.impact_speed_kmh;
        r.relative_speed_kmh = i.relative_speed_kmh.or(i.impact_speed_kmh);
        r.arrival_error_s = i.arrival_error_s;
    }
    r.valid = rep.validity.as_ref().map(|v| v.valid);
    r
}

/// The maps a grid runs on: the straight rows' and the junction rows'. A map that none of the
/// selected cells uses may be left out (not loaded): a run of one row costs what its row costs.
#[derive(Clone, Default)]
pub struct Maps {
    pub straight: Option<Arc<Map>>,
    pub junction: Option<Arc<Map>>,
}

impl Maps {
    /// Which maps `cells` use: (straight, junction).
    pub fn needed(cat: &Catalogue, cells: &[Cell]) -> (bool, bool) {
        let junction = |c: &Cell| cat.row[c.row].family.needs_junction();
        (
            cells.iter().any(|c| !junction(c)),
            cells.iter().any(junction),
        )
    }

    fn for_row(&self, row: &Row) -> Result<&Arc<Map>, String> {
        let (map, what) = if row.family.needs_junction() {
            (&self.junction, "junction")
        } else {
            (&self.straight, "straight")
        };
        map.as_ref()
            .ok_or_else(|| format!("{}: no {what} map was loaded for this row", row.id))
    }
}

/// Runs every cell on `jobs` threads; `progress` is called after each cell.
pub fn run(
    cat: &Catalogue,
    cells: &[Cell],
    maps: &Maps,
    aeb: Option<AebParams>,
    jobs: usize,
    progress: &(dyn Fn(usize) + Sync),
) -> GridOutcome {
    let t0 = Instant::now();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<CellResult>>> = Mutex::new(vec![None; cells.len()]);
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(c) = cells.get(k) else { break };
                let row = &cat.row[c.row];
                let r = match maps.for_row(row) {
                    Ok(map) => run_cell(row, &c.params, map, aeb),
                    Err(e) => {
                        let mut r = blank(row, &c.params);
                        r.error = Some(e);
                        r
                    }
                };
                if let Ok(mut v) = results.lock() {
                    v[k] = Some(r);
                }
                progress(done.fetch_add(1, Ordering::Relaxed) + 1);
            });
        }
    });
    let results = results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect();
    GridOutcome {
        results,
        elapsed_s: t0.elapsed().as_secs_f64(),
    }
}

/// The bare simulated-VUT step rate of this machine (steps/s): the vehicle model alone on a
/// straight path, no engine, no session — the baseline a grid step's cost is printed against.
pub fn bare_step_rate(steps: u64) -> f64 {
    use crate::sim::{Path, SimVut, VutParams};
    let p = VutParams {
        set_speed_mps: 10.0,
        kp: 1.0,
        max_accel: 2.0,
        max_ctrl_decel: 3.0,
        width_m: 1.855,
        reference_to_front_m: 2.3,
        wheelbase_m: 2.8,
        steering_ratio: 16.0,
        control_ahead_m: 0.0,
    };
    let mut car = SimVut::new(
        Path::straight(0.0, 0.0, 0.0, 10.0, 1.0e6),
        p,
        None,
        10.0,
        10.0,
    );
    let t0 = Instant::now();
    let mut acc = 0.0;
    for k in 0..steps {
        car.step(0.01, &[]);
        acc += car.sample(k as f64 * 0.01, "vut").speed_mps;
    }
    std::hint::black_box(acc);
    steps as f64 / t0.elapsed().as_secs_f64().max(1e-9)
}

/// CSV of the results.
pub fn csv(results: &[CellResult]) -> String {
    let f = |v: Option<f64>| v.map(|x| format!("{x:.6}")).unwrap_or_default();
    let s = |v: &Option<String>| v.clone().unwrap_or_default();
    let mut out = String::from(
        "row,vut_speed_kmh,target_speed_kmh,impact,turn,direction,approach,lateral_mps,gap_m,impacted,location,impact_speed_kmh,relative_speed_kmh,arrival_error_s,valid,error\n",
    );
    for r in results {
        out.push_str(&format!(
            "\"{}\",{},{},{},{},{},{},{},{},{},{},{},{},{},{},\"{}\"\n",
            r.row,
            r.vut_speed_kmh,
            f(r.target_speed_kmh),
            f(r.impact),
            s(&r.turn),
            s(&r.direction),
            s(&r.approach),
            f(r.lateral_mps),
            f(r.gap_m),
            r.impacted,
            f(r.location),
            f(r.impact_speed_kmh),
            f(r.relative_speed_kmh),
            f(r.arrival_error_s),
            r.valid.map(|v| v.to_string()).unwrap_or_default(),
            s(&r.error).replace('"', "'"),
        ));
    }
    out
}
