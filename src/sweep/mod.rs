//! Sweeps: many headless runs in parallel, one row each, statistics and plots.
//!
//! ```text
//! Source (--replay … | --sim-vut-speed …) + --vary KEY=V1,V2 … + --repeat N     grid.rs
//!   → Grid: Cartesian product × N seeds, checked before anything runs
//!   → execute: J worker threads take run indices; each run is one RunFn call   backend.rs
//!     (replay: the run layer's Session on its own current-thread runtime, max speed)
//!   → Row per run, in index order (same seed, same row)                         results.rs
//!   → DIR/results.csv + DIR/report.html (inline SVG box plots, Table 2)         report.rs
//!     + DIR/results.parquet (the same rows, typed columns)                      parquet.rs
//! --shard K/N: only the K-th of N contiguous slices of the indices, + shard.json shard.rs
//! `scil sweep merge`: checked shards → the unsharded run's outputs             merge.rs
//! an OpenSCENARIO variation file: one cell per combination (`parameters` axis)  variation.rs
//! ```
//!
//! Keys: `replay` (the `--replay` files), `noise.pos`, `noise.speed`, `noise.heading`,
//! `dropout`, `latency_ms` (seeded injection on the feed), `method` (`predicted`,
//! `at_sample`), `ttc_offset_s` (fire at threshold + offset), `sync` (on/off),
//! `vut_speed`, `aeb.ttc`, `aeb.decel` (simulated VUT); `parameters` (the combination of a
//! variation file: set by the file, not by `--vary`).

pub mod backend;
pub mod catalogue_grid;
pub mod grid;
pub mod merge;
pub mod parquet;
pub mod report;
pub mod results;
pub mod shard;
pub mod variation;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

pub use backend::{ReplayBackend, RunFn, SimBackend};
pub use grid::{Axis, Cell, Grid, Key, RunPoint, SweepError, Value, DEFAULT_MAX_RUNS};
pub use results::{Row, Summary};
pub use shard::Shard;

use crate::map::Map;
use crate::scenario::engine::{EngineConfig, TriggerMethod};
use crate::scenario::Scenario;

/// Where a sweep's VUT comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// Recorded runs: (label, file); they form the `replay` axis.
    Replays(Vec<(String, PathBuf)>),
    /// The simulated VUT at these speeds (km/h): the `vut_speed` axis.
    Sim(Vec<f64>),
}

/// A checked sweep, ready to run.
pub struct Plan {
    pub grid: Grid,
    pub backend: Arc<dyn RunFn>,
    /// The method of runs whose cell does not vary it.
    pub base_method: TriggerMethod,
    pub scenario_name: String,
}

/// Checks the grid, the keys' availability and the sources (replays are read once here):
/// every error comes before anything runs.
// Each argument is its own part of a sweep request (scenario, grid, sources, options); a struct
// holding them would only rename them.
#[allow(clippy::too_many_arguments)]
pub fn plan(
    scenario: Scenario,
    map: Option<Arc<Map>>,
    base: EngineConfig,
    source: Source,
    vary: Vec<Axis>,
    repeat: u32,
    seed: u64,
    max_runs: usize,
) -> Result<Plan, SweepError> {
    let (axis, sim) = match &source {
        Source::Replays(r) if r.is_empty() => {
            return Err(SweepError::Invalid(
                "a sweep needs --replay FILE (one or more) or --sim-vut-speed".into(),
            ))
        }
        Source::Replays(r) => (
            Axis::from_strs(Key::Replay, r.iter().map(|(l, _)| l.as_str()))?,
            false,
        ),
        Source::Sim(v) => {
            let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            (
                Axis::from_strs(Key::VutSpeed, s.iter().map(String::as_str))?,
                true,
            )
        }
    };
    if vary.iter().any(|a| a.key == Key::Parameters) {
        return Err(SweepError::Invalid(
            "key parameters comes from a variation file (--scenario VARIATION.xosc)".into(),
        ));
    }
    let mut axes = vec![axis];
    axes.extend(vary);
    let grid = Grid::new(axes, repeat, seed, max_runs)?;
    backend::check_available(&grid, sim)?;
    let base_method = base.method;
    let scenario_name = scenario.name.clone();
    let backend: Arc<dyn RunFn> = match source {
        Source::Replays(r) => Arc::new(ReplayBackend::new(scenario, map, base, &r)?),
        Source::Sim(_) => Arc::new(SimBackend::new(scenario, map, base)?),
    };
    Ok(Plan {
        grid,
        backend,
        base_method,
        scenario_name,
    })
}

/// What a sweep produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Finished runs, in index order.
    pub rows: Vec<Row>,
    pub total: usize,
    /// Stopped early (Ctrl-C, cancel): `rows` holds what finished.
    pub cancelled: bool,
    pub elapsed_s: f64,
    pub jobs: usize,
}

impl Outcome {
    pub fn runs_per_s(&self) -> f64 {
        self.rows.len() as f64 / self.elapsed_s.max(1e-9)
    }
}

/// Worker threads by default: every core.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn method_name(m: TriggerMethod) -> &'static str {
    match m {
        TriggerMethod::Predicted => "predicted",
        TriggerMethod::AtSample => "at_sample",
    }
}

/// One run: its row (a panic in the backend is that row's error, not the sweep's end).
pub fn run_one(plan: &Plan, p: &RunPoint) -> Row {
    let method = p
        .cell
        .get(Key::Method)
        .and_then(Value::text)
        .map(str::to_string)
        .unwrap_or_else(|| method_name(plan.base_method).to_string());
    let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        plan.backend.run(&p.cell, p.seed)
    }))
    .unwrap_or_else(|_| Err("the run panicked".into()));
    match &res {
        Ok(r) => Row::new(p, Ok(r), &method, backend::validity_seam(r)),
        Err(e) => Row::new(p, Err(e), &method, None),
    }
}

/// Runs the plan on `jobs` threads (0 = every core) until done or `cancel` is set (runs in
/// progress finish; no new one starts). `on_row` sees each row as it finishes, with the count
/// done so far.
pub fn execute(
    plan: &Plan,
    jobs: usize,
    cancel: &AtomicBool,
    on_row: &mut dyn FnMut(&Row, usize),
) -> Outcome {
    execute_range(plan, 0..plan.grid.runs(), jobs, cancel, on_row)
}

/// [`execute`] for the runs whose index is in `range` (one shard of the grid, [`Shard`]):
/// `total` is the slice's size.
pub fn execute_range(
    plan: &Plan,
    range: std::ops::Range<usize>,
    jobs: usize,
    cancel: &AtomicBool,
    on_row: &mut dyn FnMut(&Row, usize),
) -> Outcome {
    let first = range.start;
    let total = range.end.min(plan.grid.runs()).saturating_sub(first);
    let jobs = if jobs == 0 { default_jobs() } else { jobs }.clamp(1, total.max(1));
    let t0 = Instant::now();
    let next = AtomicUsize::new(0);
    let mut rows: Vec<Row> = Vec::with_capacity(total);
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel::<Row>();
        for _ in 0..jobs {
            let tx = tx.clone();
            let next = &next;
            s.spawn(move || loop {
                if cancel.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    break;
                }
                if tx.send(run_one(plan, &plan.grid.point(first + i))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for row in rx {
            rows.push(row);
            on_row(&rows[rows.len() - 1], rows.len());
        }
    });
    rows.sort_by_key(|r| r.index);
    Outcome {
        cancelled: rows.len() < total,
        total,
        rows,
        elapsed_s: t0.elapsed().as_secs_f64(),
        jobs,
    }
}

/// Writes `DIR/results.csv`, `DIR/results.parquet` (the same rows, typed columns) and
/// `DIR/report.html` (the directory is created).
pub fn write_outputs(dir: &Path, plan: &Plan, out: &Outcome) -> std::io::Result<()> {
    write_results(dir, &plan.grid, &plan.scenario_name, out)
}

/// [`write_outputs`] from the grid and the scenario's name (what a merge of shards has).
pub fn write_results(
    dir: &Path,
    grid: &Grid,
    scenario_name: &str,
    out: &Outcome,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    results::write_csv(&dir.join("results.csv"), grid, &out.rows)?;
    parquet::write_rows(&dir.join("results.parquet"), grid, &out.rows)?;
    let html = report::html(grid, scenario_name, out);
    std::fs::write(dir.join("report.html"), html)
}
