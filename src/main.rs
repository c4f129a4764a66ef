//! The `scil` command line (ingest branch stub: the replay core's main.rs supersedes it on merge).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use scil::ingest::cli as ingest_cli;

#[derive(Parser)]
#[command(name = "scil", version, about = "Scenario-in-the-Loop proving-ground control")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulated INS: send a replay CSV as OxTS NCOM over UDP.
    Feed(ingest_cli::FeedArgs),
    /// OxTS NCOM tools.
    #[command(subcommand)]
    Ncom(ingest_cli::NcomCommand),
    /// CAN tools (DBC decoding, live sources).
    #[command(subcommand)]
    Can(ingest_cli::CanCommand),
    /// Print live telemetry (NCOM/JSON sources) as JSON lines.
    Listen(ingest_cli::ListenArgs),
    /// Live-ingest latency benchmark.
    BenchIngest {
        #[arg(long, default_value_t = 5000)]
        packets: usize,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Feed(a) => ingest_cli::run_feed(a),
        Command::Ncom(c) => ingest_cli::run_ncom(c),
        Command::Can(c) => ingest_cli::run_can(c),
        Command::Listen(a) => ingest_cli::run_listen(a),
        Command::BenchIngest { packets } => ingest_cli::run_bench(packets),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("scil: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
