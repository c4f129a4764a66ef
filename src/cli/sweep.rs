//! `scil sweep`: many headless runs in parallel over a grid of varied keys (see
//! [`crate::sweep`]); writes `DIR/results.csv`, `DIR/results.parquet` and `DIR/report.html`. A
//! progress bar on a terminal; Ctrl-C stops starting runs, keeps what finished and writes the
//! report. `--shard K/N` runs one slice (batch schedulers); `scil sweep merge` combines slices.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use clap::{Args, Subcommand};

use crate::scenario::engine::EngineConfig;
use crate::sweep::{self, Axis, Shard, Source};

/// `scil sweep [ARGS]` or `scil sweep merge …`.
#[derive(Args, Debug, Clone)]
#[command(args_conflicts_with_subcommands = true, flatten_help = true)]
pub struct SweepCommand {
    #[command(subcommand)]
    pub command: Option<SweepSub>,
    #[command(flatten)]
    pub run: Option<SweepArgs>,
}

#[derive(Subcommand, Debug, Clone)]
pub enum SweepSub {
    /// Combine the shards of one sweep (`--shard K/N` directories) into results.csv,
    /// results.parquet and report.html, as one unsharded run writes them.
    Merge(MergeArgs),
}

#[derive(Args, Debug, Clone)]
pub struct MergeArgs {
    /// Shard output directories (every shard of the sweep, each once).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Output directory.
    #[arg(long)]
    pub out: PathBuf,
}

#[derive(Args, Debug, Clone)]
pub struct SweepArgs {
    /// Scenario file (TOML or OpenSCENARIO). An OpenSCENARIO variation file is the grid
    /// itself: one cell per combination of its distributions (the `parameters` column), each
    /// its own scenario on the simulated VUT at the scenario's VUT speed.
    #[arg(long)]
    pub scenario: PathBuf,
    /// Map override (default: the scenario's map).
    #[arg(long)]
    pub map: Option<PathBuf>,
    /// A recorded run (CSV); several form the `replay` axis.
    #[arg(long, conflicts_with = "sim_vut_speed")]
    pub replay: Vec<PathBuf>,
    /// The simulated VUT at these speeds, km/h (e.g. 10,30,50): the `vut_speed` axis.
    #[arg(long, value_delimiter = ',')]
    pub sim_vut_speed: Vec<f64>,
    /// KEY=V1,V2,… (repeatable). Keys: noise.pos, noise.speed, noise.heading, dropout,
    /// latency_ms, method, ttc_offset_s, sync, vut_speed, aeb.ttc, aeb.decel.
    #[arg(long)]
    pub vary: Vec<String>,
    /// Runs per grid cell (seeds seed, seed+1, …).
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// First seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: every core).
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// Output directory (results.csv, results.parquet, report.html).
    #[arg(long)]
    pub out: PathBuf,
    /// Refuse grids with more runs than this.
    #[arg(long, default_value_t = sweep::DEFAULT_MAX_RUNS)]
    pub max_runs: usize,
    /// No progress bar even on a terminal.
    #[arg(long)]
    pub quiet: bool,
    /// Run only the K-th (0-based) of N disjoint slices of the grid and write shard.json
    /// beside the rows (combine with `scil sweep merge`). `auto`: K from
    /// $JOB_COMPLETION_INDEX (Kubernetes Indexed Job; give N: `auto/N`) or
    /// $SLURM_ARRAY_TASK_ID (N from $SLURM_ARRAY_TASK_COUNT unless `auto/N`).
    #[arg(long, value_name = "K/N|auto|auto/N")]
    pub shard: Option<String>,
}

/// `scil sweep …` or `scil sweep merge …`.
pub fn command(c: SweepCommand) -> anyhow::Result<ExitCode> {
    match (c.command, c.run) {
        (Some(SweepSub::Merge(m)), _) => merge(m),
        (None, Some(a)) => run(a),
        (None, None) => anyhow::bail!(
            "scil sweep: give --scenario FILE --out DIR and a source (--replay or --sim-vut-speed), or `scil sweep merge DIR… --out DIR` (see --help)"
        ),
    }
}

/// True when `--scenario` is an OpenSCENARIO variation file.
fn is_variation(a: &SweepArgs) -> anyhow::Result<bool> {
    Ok(crate::xosc::is_xosc(&a.scenario) && openscenario::variation::is_variation(&a.scenario)?)
}

/// The input files whose bytes identify the sweep (scenario, map, replays).
fn inputs(a: &SweepArgs) -> anyhow::Result<Vec<(&'static str, PathBuf)>> {
    if is_variation(a)? {
        return Ok(sweep::variation::load(&a.scenario, a.map.as_deref())?.inputs);
    }
    let mut v = vec![("scenario", a.scenario.clone())];
    let map = match &a.map {
        Some(m) => Some(m.clone()),
        None => crate::xosc::load_scenario_file(&a.scenario)?.map_path(&a.scenario),
    };
    v.extend(map.map(|m| ("map", m)));
    v.extend(a.replay.iter().map(|r| ("replay", r.clone())));
    Ok(v)
}

/// `scil sweep merge`.
pub fn merge(m: MergeArgs) -> anyhow::Result<ExitCode> {
    let merged = sweep::merge::merge(&m.dirs)?;
    sweep::write_results(&m.out, &merged.grid, &merged.scenario_name, &merged.outcome)
        .map_err(|e| anyhow::anyhow!("{}: {e}", m.out.display()))?;
    let failed = merged
        .outcome
        .rows
        .iter()
        .filter(|r| r.error.is_some())
        .count();
    println!(
        "scil sweep merge: sweep {}: {} shards, {} runs, {} failed",
        merged.sweep_id,
        merged.shards,
        merged.outcome.rows.len(),
        failed
    );
    println!(
        "wrote {}, {} and {}",
        m.out.join("results.csv").display(),
        m.out.join("results.parquet").display(),
        m.out.join("report.html").display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Parses the arguments into a checked plan (every input error before anything runs).
pub fn plan(a: &SweepArgs) -> anyhow::Result<sweep::Plan> {
    let mut vary = a
        .vary
        .iter()
        .map(|v| Axis::parse(v))
        .collect::<Result<Vec<_>, _>>()?;
    if is_variation(a)? {
        if !a.replay.is_empty() {
            anyhow::bail!(
                "{}: a variation file runs on the simulated VUT; --replay does not apply",
                a.scenario.display()
            );
        }
        let loaded = sweep::variation::load(&a.scenario, a.map.as_deref())?;
        if !a.sim_vut_speed.is_empty() {
            let s: Vec<String> = a.sim_vut_speed.iter().map(|x| x.to_string()).collect();
            vary.push(Axis::from_strs(
                sweep::Key::VutSpeed,
                s.iter().map(String::as_str),
            )?);
        }
        return Ok(sweep::variation::plan(
            loaded.name,
            loaded.cells,
            EngineConfig::default(),
            vary,
            a.repeat,
            a.seed,
            a.max_runs,
        )?);
    }
    let setup = crate::run::RunSetup::load(&a.scenario, a.map.as_deref(), EngineConfig::default())?;
    let source = if !a.sim_vut_speed.is_empty() {
        Source::Sim(a.sim_vut_speed.clone())
    } else {
        let mut labelled = Vec::new();
        for p in &a.replay {
            let stem = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| p.display().to_string());
            labelled.push((stem, p.clone()));
        }
        Source::Replays(labelled)
    };
    Ok(sweep::plan(
        setup.scenario,
        setup.map,
        EngineConfig::default(),
        source,
        vary,
        a.repeat,
        a.seed,
        a.max_runs,
    )?)
}

/// `scil sweep`.
pub fn run(a: SweepArgs) -> anyhow::Result<ExitCode> {
    let plan = plan(&a)?;
    let shard = match &a.shard {
        Some(spec) => {
            Some(Shard::parse(spec, &|k| std::env::var(k).ok()).map_err(anyhow::Error::msg)?)
        }
        None => None,
    };
    let range = shard.map_or(0..plan.grid.runs(), |s| s.range(plan.grid.runs()));
    let sweep_id = match shard {
        Some(_) => {
            let files = inputs(&a)?;
            let refs: Vec<(&str, &std::path::Path)> =
                files.iter().map(|(r, p)| (*r, p.as_path())).collect();
            Some(sweep::shard::sweep_id(&plan.grid, &refs)?)
        }
        None => None,
    };
    let total = range.len();
    let cancel = Arc::new(AtomicBool::new(false));
    {
        let c = cancel.clone();
        let first = std::sync::Mutex::new(None::<std::time::Instant>);
        // A second Ctrl-C (half a second or more after the first: one signal delivered to the
        // process and its group is one press) ends the process without the report.
        let _ = ctrlc::set_handler(move || {
            let mut f = first.lock().unwrap_or_else(|p| p.into_inner());
            match *f {
                Some(t) if t.elapsed() >= std::time::Duration::from_millis(500) => {
                    std::process::exit(130)
                }
                Some(_) => {}
                None => {
                    *f = Some(std::time::Instant::now());
                    c.store(true, Ordering::SeqCst);
                    eprintln!("\nscil sweep: interrupted: finishing the runs in progress, then writing the report (Ctrl-C again to quit without it)");
                }
            }
        });
    }
    let bar = if !a.quiet && std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(total as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} runs  {per_sec}  eta {eta}  {msg}",
        ) {
            b.set_style(style);
        }
        Some(b)
    } else {
        None
    };
    let mut failed = 0usize;
    let out = sweep::execute_range(&plan, range.clone(), a.jobs, &cancel, &mut |row, done| {
        if row.error.is_some() {
            failed += 1;
        }
        if let Some(b) = &bar {
            b.set_position(done as u64);
            if failed > 0 {
                b.set_message(format!("{failed} failed"));
            }
        }
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    sweep::write_outputs(&a.out, &plan, &out)
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.out.display()))?;
    if let (Some(shard), Some(sweep_id)) = (shard, sweep_id) {
        let m = sweep::shard::Manifest {
            format: sweep::shard::MANIFEST_FORMAT.into(),
            sweep_id,
            scenario_name: plan.scenario_name.clone(),
            axes: sweep::shard::axis_specs(&plan.grid),
            repeat: plan.grid.repeat,
            seed: plan.grid.seed,
            total: plan.grid.runs(),
            shard,
            range: [range.start, range.end],
            rows: out.rows.len(),
            cancelled: out.cancelled,
            elapsed_s: out.elapsed_s,
            jobs: out.jobs,
        };
        let p = a.out.join("shard.json");
        std::fs::write(&p, serde_json::to_string_pretty(&m)?)
            .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
        println!(
            "scil sweep: shard {}/{} of sweep {}: runs {}..{} of {}",
            shard.index, shard.count, m.sweep_id, range.start, range.end, m.total
        );
    }
    println!(
        "scil sweep: {} of {} runs in {:.2} s ({:.1} runs/s, {} jobs), {} failed{}",
        out.rows.len(),
        out.total,
        out.elapsed_s,
        out.runs_per_s(),
        out.jobs,
        failed,
        if out.cancelled { ", interrupted" } else { "" }
    );
    println!("source / method: runs, median fire error [ms], median TTC at trigger [s], median travel error [m]");
    for t in sweep::report::table2(&plan.grid, &out.rows) {
        let m = |v: Option<f64>, d: usize| v.map_or("-".into(), |x| format!("{x:.d$}"));
        println!(
            "  {} / {}: {}, {}, {}, {}",
            t.source,
            t.method,
            t.runs,
            m(t.fire_error_ms.map(|s| s.median), 3),
            m(t.ttc_s, 4),
            m(t.travel_error_m, 4)
        );
    }
    println!(
        "wrote {}, {} and {}",
        a.out.join("results.csv").display(),
        a.out.join("results.parquet").display(),
        a.out.join("report.html").display()
    );
    Ok(if out.cancelled {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}

/// `scil bench sweep`: the same sweep at each `--jobs` value, side by side in one process
/// (runs/s and the speed-up over the first), printed, never asserted.
pub fn bench(a: SweepArgs, jobs: &[usize]) -> anyhow::Result<ExitCode> {
    let plan = plan(&a)?;
    let never = AtomicBool::new(false);
    let mut first: Option<f64> = None;
    println!("sweep bench: {} runs per measurement", plan.grid.runs());
    for &j in jobs {
        let out = sweep::execute(&plan, j, &never, &mut |_, _| {});
        let rps = out.runs_per_s();
        let base = *first.get_or_insert(rps);
        println!(
            "  --jobs {:>2}: {:>8.1} runs/s  ({:.2} s, ×{:.2} vs --jobs {})",
            out.jobs,
            rps,
            out.elapsed_s,
            rps / base,
            jobs.first().copied().unwrap_or(1)
        );
    }
    Ok(ExitCode::SUCCESS)
}
