//! `scil sim --scenario S --vut-speed 40 [--aeb ttc=1.2,decel=8,delay_ms=150] [--json]`: the
//! built-in simulated VUT through a session at full speed ([`crate::sim`]); and
//! `scil sim beamng …`: a BeamNG-side simulator for the co-simulation coupling.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Subcommand};

use super::inject::InjectArgs;
use crate::run::RunSetup;
use crate::scenario::engine::EngineConfig;
use crate::sim::{AebParams, SimOptions};

#[derive(Args, Debug, Clone)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SimArgs {
    #[command(subcommand)]
    pub peer: Option<SimPeer>,
    #[command(flatten)]
    pub vut: SimVutArgs,
}

#[derive(Subcommand, Debug, Clone)]
pub enum SimPeer {
    /// BeamNG side of vehicleSystemsCoupling: the simulated VUT, its AEB fed from scil's answers.
    Beamng(crate::cli::cosim::SimBeamngArgs),
    /// A YaCoP peer (the Unity/YAKINDU side): the simulated VUT over YaCoP lines.
    Yacop(crate::cli::cosim::SimYacopArgs),
}

#[derive(Args, Debug, Clone, Default)]
pub struct SimVutArgs {
    /// Scenario TOML.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// OpenDRIVE map (default: the scenario's `map`).
    #[arg(long)]
    pub map: Option<PathBuf>,
    /// VUT set speed, km/h.
    #[arg(long, default_value_t = 40.0)]
    pub vut_speed: f64,
    /// AEB model: ttc=S,decel=MPS2,delay_ms=MS[,margin=M] (absent: no AEB).
    #[arg(long, value_name = "ttc=S,decel=MPS2,delay_ms=MS")]
    pub aeb: Option<AebParams>,
    /// Simulation step, ms.
    #[arg(long, default_value_t = 10.0)]
    pub step_ms: f64,
    /// Start this far before the target's line, m (default max(100, 8 s × speed)).
    #[arg(long)]
    pub run_up_m: Option<f64>,
    /// One JSON object (the run report) on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub inject: InjectArgs,
}

impl SimVutArgs {
    pub fn options(&self) -> anyhow::Result<SimOptions> {
        let o = SimOptions {
            vut_speed_kmh: self.vut_speed,
            aeb: self.aeb,
            step_ms: self.step_ms,
            run_up_m: self.run_up_m,
            injection: self.inject.injection()?,
            ..SimOptions::default()
        };
        o.validate().map_err(anyhow::Error::msg)?;
        Ok(o)
    }
}

pub fn run(a: SimArgs) -> anyhow::Result<ExitCode> {
    match a.peer {
        Some(SimPeer::Beamng(b)) => return crate::cli::cosim::run_sim_beamng(b),
        Some(SimPeer::Yacop(y)) => return crate::cli::cosim::run_sim_yacop(y),
        None => {}
    }
    let a = a.vut;
    let Some(scenario) = &a.scenario else {
        anyhow::bail!("--scenario FILE is required");
    };
    let setup = Arc::new(RunSetup::load(
        scenario,
        a.map.as_deref(),
        EngineConfig::default(),
    )?);
    let opts = a.options()?;
    let report = crate::sim::run_sim(setup, &opts);
    if let Some(e) = &report.error {
        anyhow::bail!("{e}");
    }
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "sim      VUT {:.1} km/h{}",
            a.vut_speed,
            a.aeb
                .map(|x| format!(
                    ", AEB ttc {} s, {} m/s², delay {} ms",
                    x.ttc_s, x.decel_mps2, x.delay_ms
                ))
                .unwrap_or_else(|| ", no AEB".into())
        );
        let ra = crate::cli::replay::ReplayArgs::bundled(std::path::Path::new("."));
        let text = crate::cli::replay::report(&report, &ra);
        // The replay header names a CSV; a simulated run has none.
        for l in text
            .lines()
            .filter(|l| !l.starts_with("replay ") && !l.starts_with("scenario "))
        {
            println!("{l}");
        }
    }
    Ok(if report.is_aborted() {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}
