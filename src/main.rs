use clap::{Parser, Subcommand};

/// scil — Scenario-in-the-Loop proving-ground control.
#[derive(Debug, Parser)]
#[command(name = "scil", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// ISO 22133 test-object simulator (a dummy target carrier).
    CarrierSim(scil::dispatch::cli::CarrierSimArgs),
    /// Latency benchmark: trigger decision → STRT written to the socket (loopback).
    BenchDispatch(scil::dispatch::cli::BenchArgs),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::CarrierSim(a) => scil::dispatch::cli::block_on(scil::dispatch::cli::run_carrier_sim(a)),
        Command::BenchDispatch(a) => scil::dispatch::cli::block_on(scil::dispatch::cli::run_bench(a)),
    }
}
