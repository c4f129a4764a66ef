//! `scil bench …`: measured figures, printed (never asserted in tests).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

use crate::run::RunSetup;
use crate::scenario::engine::EngineConfig;

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Replay throughput (samples/s at --speed max) against a plain CSV parse of the same file.
    Replay {
        csv: PathBuf,
        #[arg(long)]
        scenario: PathBuf,
        /// Repeat the file this many times into a temporary file first (time-shifted, every
        /// second copy driven back the same way, so the long file stays physically plausible).
        #[arg(long, default_value_t = 200)]
        repeat: usize,
        /// Interleaved rounds of (plain parse, byte-record parse, replay); medians are printed.
        #[arg(long, default_value_t = 5)]
        rounds: usize,
        /// Keep the long file here (for a whole-process comparison on the same input).
        #[arg(long)]
        keep: Option<PathBuf>,
    },
    /// The whole loop on loopback: NCOM datagram in → engine fires → STRT read by the carrier,
    /// against the bare network path (receive → write) on the same sockets.
    Loop {
        /// Scenario with a georeferenced map (the trigger fires on every loop).
        #[arg(long)]
        scenario: PathBuf,
        /// Measured loops of each path.
        #[arg(long, default_value_t = 10_000)]
        loops: usize,
        /// Also measure a live run's own path through the run layer (source task → forwarder →
        /// driver → sink).
        #[arg(long, alias = "tokio")]
        run_layer: bool,
    },
    /// OpenDRIVE load (read, parse, index) and map matching (locate) per file.
    Map {
        /// xodr files; none: every `*.xodr` under --dir.
        files: Vec<PathBuf>,
        #[arg(long, default_value = "../shared/opendrive")]
        dir: PathBuf,
        /// Loads per file at least (more while they take under half a second).
        #[arg(long, default_value_t = 5)]
        loads: usize,
    },
    /// Euro NCAP 2026 rows with a moving target driven as on the ground, on simulated objects
    /// with a real platform's dynamics, in real time: the share valid at the first attempt
    /// and the worst impact error from the objects' MONR.
    GroundSeries(crate::bench::ground_series::GroundSeriesArgs),
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
    /// A late WebSocket client joining a long service run (10 minutes at 100 Hz): time until
    /// the whole history is delivered, against a bare loopback WebSocket sending the same bytes.
    Join(crate::bench::join::JoinBenchArgs),
    /// Run list and Parquet export latency through the API with 10^5 stored runs against
    /// 10^2 (the ratio), on SQLite and (with $SCIL_TEST_POSTGRES_URL) PostgreSQL.
    Archive(crate::bench::archive::ArchiveBenchArgs),
    /// BeamNG coupling in lock-step over loopback UDP (the `scil sim beamng` peer in process):
    /// messages/s and answer latency p50/p99, against a bare UDP echo.
    Cosim(crate::bench::cosim::CosimBenchArgs),
}

pub fn run(cmd: BenchCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        BenchCommand::Replay {
            csv,
            scenario,
            repeat,
            rounds,
            keep,
        } => {
            print!(
                "{}",
                crate::bench::replay::run(&csv, &scenario, repeat, rounds, keep.as_deref())?
            );
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Loop {
            scenario,
            loops,
            run_layer,
        } => {
            let setup = std::sync::Arc::new(RunSetup::load(
                &scenario,
                None,
                EngineConfig {
                    stale_limit_s: None,
                    ..EngineConfig::default()
                },
            )?);
            print!(
                "{}",
                crate::bench::loop_latency::run(setup, loops, run_layer)?
            );
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Map { files, dir, loads } => {
            let files = if files.is_empty() {
                crate::bench::map::xodr_files(&dir)
            } else {
                files
            };
            if files.is_empty() {
                anyhow::bail!("no xodr files (give FILE… or --dir)");
            }
            for f in &files {
                match crate::bench::map::measure(f, loads) {
                    Ok(m) => print!("{m}"),
                    Err(e) => println!("{}: not loaded: {e}", f.display()),
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Ingest(a) => crate::cli::ingest::run_bench_args(a),
        BenchCommand::Dispatch(a) => {
            crate::cli::dispatch::block_on(crate::cli::dispatch::run_bench(a))?;
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Store(a) => crate::bench::store::run(a),
        BenchCommand::GroundSeries(a) => crate::bench::ground_series::run(a),
        BenchCommand::Archive(a) => crate::bench::archive::run(a),
        BenchCommand::Cosim(a) => crate::bench::cosim::run(a),
        BenchCommand::Join(a) => {
            let rt = crate::run::runtime()?;
            print!("{}", rt.block_on(crate::bench::join::run(a))?);
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Sweep { sweep, bench_jobs } => crate::cli::sweep::bench(sweep, &bench_jobs),
    }
}
