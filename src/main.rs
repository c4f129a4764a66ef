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

// Parsed once per process and matched at once: the size of its largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Replay a recorded CSV through the twin and the scenario engine.
    Replay(cli::replay::ReplayArgs),
    /// Many headless runs in parallel over a grid of varied keys: results.csv + report.html;
    /// `--shard K/N` for batch schedulers, `scil sweep merge` to combine the shards.
    Sweep(cli::sweep::SweepCommand),
    /// The Euro NCAP scenario catalogue; `instantiate` writes a scenario file from it.
    Catalogue(cli::catalogue::CatalogueArgs),
    /// Scenarios: `import` turns an OpenSCENARIO .xosc scenario or variation file into scil
    /// scenarios; `place` turns one written for an unplaced layout with its placed map.
    Scenario(cli::scenario::ScenarioArgs),
    /// Euro NCAP test-series report (HTML + CSV) from run result JSON files.
    Report(cli::report::ReportArgs),
    /// Euro NCAP's rating-tool workbook: plan, rehearse on the simulated VUT, fill values.
    #[command(subcommand)]
    Ncap(cli::ncap::NcapCommand),
    /// OpenDRIVE map tools.
    #[command(subcommand)]
    Map(cli::map::MapCommand),
    /// ISO 22133 test-object simulator (a dummy target carrier).
    CarrierSim(scil::cli::dispatch::CarrierSimArgs),
    /// A real platform's motion in front of another ISO 22133 object (the stock isoObject):
    /// relays its control session and heartbeat, and its MONR with a simulated platform's
    /// motion.
    CarrierProxy(scil::cli::dispatch::CarrierProxyArgs),
    /// Objects on the ground: `characterise` measures one object's dynamics.
    #[command(subcommand)]
    Ground(cli::ground::GroundCommand),
    /// The proving-ground service: REST API, live WebSocket, persistence (SQLite/PostgreSQL).
    Serve(scil::serve::ServeArgs),
    /// Simulated INS: send a replay CSV as OxTS NCOM over UDP.
    Feed(scil::cli::ingest::FeedArgs),
    /// OxTS NCOM tools.
    #[command(subcommand)]
    Ncom(scil::cli::ingest::NcomCommand),
    /// CAN tools (DBC decoding, live sources).
    #[command(subcommand)]
    Can(scil::cli::ingest::CanCommand),
    /// Print live telemetry (NCOM/JSON sources) as JSON lines.
    Listen(scil::cli::ingest::ListenArgs),
    /// Export a stored run: Parquet (telemetry, events) and/or MCAP.
    Export(cli::export::ExportArgs),
    /// Convert a recording (CSV, MDF4, VBOX, MCAP) to scil's CSV.
    Convert(cli::convert::ConvertArgs),
    /// The built-in simulated VUT (speed controller, path following, AEB) through a session
    /// at full speed; `scil sim beamng|yacop …`: co-simulation peers for tests and demos.
    Sim(cli::sim::SimArgs),
    /// Co-simulation: scil as the peer of BeamNG.tech (UDP coupling) or a YaCoP tool (TCP).
    #[command(subcommand)]
    Cosim(cli::cosim::CosimCommand),
    /// Check an exported run record (`GET /runs/{id}/record.json`) offline: its hash chain,
    /// the seal of its results and telemetry. Exit 0 intact, 1 not intact, 2 unreadable.
    Verify(cli::verify::VerifyArgs),
    /// Benchmarks (print figures; not tests).
    #[command(subcommand)]
    Bench(cli::bench::BenchCommand),
    /// The database's upkeep: compact stored telemetry, drop old runs' telemetry.
    #[command(subcommand)]
    Db(cli::db::DbCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if !matches!(cli.command, Some(Command::Serve(_)) | None) {
        cli::default_sigpipe();
    }
    let result = match cli.command {
        Some(Command::Replay(a)) => cli::replay::run(a),
        Some(Command::Sweep(a)) => cli::sweep::command(a),
        Some(Command::Catalogue(a)) => cli::catalogue::run(a),
        Some(Command::Scenario(a)) => cli::scenario::run(a),
        Some(Command::Report(a)) => cli::report::run(a),
        Some(Command::Map(c)) => cli::map::run(c),
        Some(Command::Verify(a)) => cli::verify::run(a),
        Some(Command::Sim(a)) => cli::sim::run(a),
        Some(Command::Ncap(a)) => cli::ncap::run(a),
        Some(Command::Cosim(c)) => cli::cosim::run(c),
        Some(Command::Bench(c)) => cli::bench::run(c),
        Some(Command::Db(c)) => cli::db::run(c),
        Some(Command::Ground(c)) => cli::ground::run(c),
        Some(Command::Export(a)) => cli::export::run(a),
        Some(Command::Convert(a)) => cli::convert::run(a),
        Some(Command::Serve(a)) => scil::serve::run(a),
        Some(Command::Feed(a)) => scil::cli::ingest::run_feed(a),
        Some(Command::Ncom(c)) => scil::cli::ingest::run_ncom(c),
        Some(Command::Can(c)) => scil::cli::ingest::run_can(c),
        Some(Command::Listen(a)) => scil::cli::ingest::run_listen(a),
        Some(Command::CarrierSim(a)) => {
            scil::cli::dispatch::block_on(scil::cli::dispatch::run_carrier_sim(a))
                .map(|_| ExitCode::SUCCESS)
        }
        Some(Command::CarrierProxy(a)) => {
            scil::cli::dispatch::block_on(scil::cli::dispatch::run_carrier_proxy(a))
                .map(|_| ExitCode::SUCCESS)
        }
        None => cli::default_run(),
    };
    match result {
        Ok(code) => code,
        Err(e) if cli::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("scil: error: {}", cli::error_message(&e));
            ExitCode::from(2)
        }
    }
}
