//! The `scil` command line. Subcommand implementations live in `scil::cli::*`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use scil::cli;

#[derive(Parser)]
#[command(
    name = "scil",
    version,
    about = "Scenario-in-the-Loop proving-ground control"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Replay a recorded CSV through the twin and the scenario engine.
    Replay(cli::replay::ReplayArgs),
    /// OpenDRIVE map tools.
    #[command(subcommand)]
    Map(cli::map::MapCommand),
    /// ISO 22133 test-object simulator (a dummy target carrier).
    CarrierSim(scil::dispatch::cli::CarrierSimArgs),
    /// The proving-ground service: REST API, live WebSocket, persistence (SQLite/PostgreSQL).
    Serve(scil::serve::ServeArgs),
    /// Simulated INS: send a replay CSV as OxTS NCOM over UDP.
    Feed(scil::ingest::cli::FeedArgs),
    /// OxTS NCOM tools.
    #[command(subcommand)]
    Ncom(scil::ingest::cli::NcomCommand),
    /// CAN tools (DBC decoding, live sources).
    #[command(subcommand)]
    Can(scil::ingest::cli::CanCommand),
    /// Print live telemetry (NCOM/JSON sources) as JSON lines.
    Listen(scil::ingest::cli::ListenArgs),
    /// Benchmarks (print figures; not tests).
    #[command(subcommand)]
    Bench(cli::bench::BenchCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Replay(a)) => cli::replay::run(a),
        Some(Command::Map(c)) => cli::map::run(c),
        Some(Command::Bench(c)) => cli::bench::run(c),
        Some(Command::Serve(a)) => scil::serve::run(a),
        Some(Command::Feed(a)) => scil::ingest::cli::run_feed(a),
        Some(Command::Ncom(c)) => scil::ingest::cli::run_ncom(c),
        Some(Command::Can(c)) => scil::ingest::cli::run_can(c),
        Some(Command::Listen(a)) => scil::ingest::cli::run_listen(a),
        Some(Command::CarrierSim(a)) => {
            scil::dispatch::cli::block_on(scil::dispatch::cli::run_carrier_sim(a))
                .map(|_| ExitCode::SUCCESS)
        }
        None => cli::default_run(),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("scil: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
