//! `scil sweep`: many headless runs in parallel over a grid of varied keys (see
//! [`crate::sweep`]); writes `DIR/results.csv` and `DIR/report.html`. A progress bar on a
//! terminal; Ctrl-C stops starting runs, keeps what finished and writes the report.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use clap::Args;

use crate::scenario::engine::EngineConfig;
use crate::sweep::{self, Axis, Source};

#[derive(Args, Debug, Clone)]
pub struct SweepArgs {
    /// Scenario file (TOML).
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
    /// Output directory (results.csv, report.html).
    #[arg(long)]
    pub out: PathBuf,
    /// Refuse grids with more runs than this.
    #[arg(long, default_value_t = sweep::DEFAULT_MAX_RUNS)]
    pub max_runs: usize,
    /// No progress bar even on a terminal.
    #[arg(long)]
    pub quiet: bool,
}

/// Parses the arguments into a checked plan (every input error before anything runs).
pub fn plan(a: &SweepArgs) -> anyhow::Result<sweep::Plan> {
    let vary = a
        .vary
        .iter()
        .map(|v| Axis::parse(v))
        .collect::<Result<Vec<_>, _>>()?;
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
    let total = plan.grid.runs();
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
    let out = sweep::execute(&plan, a.jobs, &cancel, &mut |row, done| {
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
        "wrote {} and {}",
        a.out.join("results.csv").display(),
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
