//! `scil bench …`: measured figures, printed (never asserted in tests).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Subcommand;

use crate::run::sink::events::FnSink;
use crate::run::{replay_blocking, RunSetup, SourceSpec};
use crate::scenario::engine::EngineConfig;

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Replay throughput (samples/s at --speed max) against a plain CSV parse of the same file.
    Replay {
        csv: PathBuf,
        #[arg(long)]
        scenario: PathBuf,
        /// Repeat the file this many times (time-shifted) into a temporary file first.
        #[arg(long, default_value_t = 200)]
        repeat: usize,
    },
    /// Trigger decision → ISO 22133 STRT written to the socket, on loopback.
    Dispatch(crate::cli::dispatch::BenchArgs),
    /// NCOM datagram sent → decoded sample → engine updated, on loopback.
    Ingest(crate::cli::ingest::BenchIngestArgs),
    /// Sweep throughput: the same sweep at each --bench-jobs value, side by side (runs/s).
    Sweep {
        #[command(flatten)]
        sweep: crate::cli::sweep::SweepArgs,
        /// Worker counts to compare, in order (the first is the reference).
        #[arg(long, value_delimiter = ',', default_value = "1,2")]
        bench_jobs: Vec<usize>,
    },
    /// Sustained telemetry insert rate through the batching writer (SQLite and/or PostgreSQL).
    Store(crate::bench::store::StoreBenchArgs),
}

pub fn run(cmd: BenchCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        BenchCommand::Replay {
            csv,
            scenario,
            repeat,
        } => bench_replay(&csv, &scenario, repeat),
        BenchCommand::Ingest(a) => crate::cli::ingest::run_bench_args(a),
        BenchCommand::Dispatch(a) => {
            crate::cli::dispatch::block_on(crate::cli::dispatch::run_bench(a))?;
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Store(a) => crate::bench::store::run(a),
        BenchCommand::Sweep { sweep, bench_jobs } => crate::cli::sweep::bench(sweep, &bench_jobs),
    }
}

/// Writes `repeat` copies of the CSV, each shifted in time, so the file is large enough to time.
fn blow_up(csv: &std::path::Path, repeat: usize) -> anyhow::Result<tempfile_path::TempPath> {
    use std::io::Write;
    let text = std::fs::read_to_string(csv)?;
    let mut lines = text.lines();
    let header = lines
        .next()
        .ok_or_else(|| anyhow::anyhow!("{}: empty", csv.display()))?;
    let rows: Vec<&str> = lines.filter(|l| !l.trim().is_empty()).collect();
    let t = |r: &str| {
        r.split(',')
            .next()
            .and_then(|c| c.trim().parse::<f64>().ok())
    };
    let (t0, t1) = match (
        rows.first().and_then(|r| t(r)),
        rows.last().and_then(|r| t(r)),
    ) {
        (Some(a), Some(b)) => (a, b),
        _ => anyhow::bail!("{}: no numeric time column first", csv.display()),
    };
    let span = t1 - t0 + 0.04;
    let path = tempfile_path::TempPath::new("scil-bench", "csv");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path.0)?);
    writeln!(f, "{header}")?;
    for k in 0..repeat {
        for r in &rows {
            let (tc, rest) = r.split_once(',').unwrap_or((r, ""));
            let tv: f64 = tc.trim().parse().unwrap_or(0.0);
            writeln!(f, "{:.3},{rest}", tv + k as f64 * span)?;
        }
    }
    f.flush()?;
    Ok(path)
}

fn bench_replay(
    csv: &std::path::Path,
    scenario: &std::path::Path,
    repeat: usize,
) -> anyhow::Result<ExitCode> {
    let big = blow_up(csv, repeat)?;
    let setup = std::sync::Arc::new(RunSetup::load(
        scenario,
        None,
        EngineConfig {
            stale_limit_s: None,
            ..EngineConfig::default()
        },
    )?);
    // Baseline: the csv crate reading every record and parsing every cell as f64.
    let t = Instant::now();
    let mut rdr = csv::Reader::from_path(&big.0)?;
    let mut rec = csv::StringRecord::new();
    let mut n_plain = 0u64;
    let mut acc = 0.0;
    while rdr.read_record(&mut rec)? {
        for c in rec.iter() {
            acc += c.trim().parse::<f64>().unwrap_or(0.0);
        }
        n_plain += 1;
    }
    let plain = t.elapsed().as_secs_f64();
    // Full path: the run layer's session (CSV source → interface block → twin, map-matched →
    // engine → report), as `scil replay --speed max` runs it.
    let t = Instant::now();
    let has_map = setup.map.is_some();
    let report = replay_blocking(
        setup,
        &SourceSpec::csv(&big.0),
        vec![Box::new(FnSink(|_: &_| {}))],
    )?;
    let n = report.samples;
    let full = t.elapsed().as_secs_f64();
    println!(
        "file: {} × {repeat} = {n} samples (checksum {acc:.1})",
        csv.display()
    );
    println!(
        "plain CSV parse : {:>12.0} rows/s ({plain:.3} s)",
        n_plain as f64 / plain
    );
    println!(
        "scil replay max : {:>12.0} samples/s ({full:.3} s, map matching {})",
        n as f64 / full,
        if has_map { "on" } else { "off" }
    );
    println!(
        "ratio replay/plain throughput: {:.2}",
        (n as f64 / full) / (n_plain as f64 / plain)
    );
    Ok(ExitCode::SUCCESS)
}

/// A temporary file removed on drop (no extra dependency for one file).
mod tempfile_path {
    pub struct TempPath(pub std::path::PathBuf);
    impl TempPath {
        pub fn new(prefix: &str, ext: &str) -> TempPath {
            let p = std::env::temp_dir().join(format!("{prefix}-{}.{ext}", std::process::id()));
            TempPath(p)
        }
    }
    impl Drop for TempPath {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}
