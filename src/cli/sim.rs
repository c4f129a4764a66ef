//! `scil sim --scenario S --vut-speed 40 [--aeb ttc=1.2,decel=8,delay_ms=150] [--json]`: the
//! built-in simulated VUT through a session at full speed ([`crate::sim`]); and
//! `scil sim beamng …`: a BeamNG-side simulator for the co-simulation coupling.

use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Subcommand};

use super::sim_vut::SimVutArgs;
use crate::run::RunSetup;
use crate::scenario::engine::EngineConfig;

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
    let report = match &a.osi {
        None => crate::sim::run_sim(setup, &opts),
        Some(path) => {
            let sink = crate::run::sink::osi::OsiSink::new(Some(path.clone()), Vec::new());
            crate::sim::run_sim_with(setup, &opts, vec![Box::new(sink)])
        }
    };
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
        if let Some(f) = a.fcw {
            match report.warning {
                Some(w) => println!(
                    "fcw      warned at {:.2} s, TTC {:.2} s (threshold {} s; brake robot 4 m/s² 1.2 s later)",
                    w.time_s, w.ttc_s, f.ttc_s
                ),
                None => println!("fcw      no warning (threshold {} s)", f.ttc_s),
            }
        }
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
