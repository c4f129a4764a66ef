//! `scil cosim beamng|yacop --scenario S …`: scil as a co-simulation peer
//! ([`crate::run::cosim`]); and the peers of `scil sim beamng|yacop` ([`crate::sim::peers`]).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Subcommand};
use tokio::net::{TcpListener, TcpStream, UdpSocket};

use super::inject::InjectArgs;
use super::sim_vut::SimVutArgs;
use crate::run::cosim::beamng::{BeamngOptions, OutputMap};
use crate::run::cosim::session::{run_beamng, run_yacop, YacopEnd};
use crate::run::{RunReport, RunSetup};
use crate::scenario::engine::EngineConfig;

#[derive(Subcommand, Debug, Clone)]
pub enum CosimCommand {
    /// BeamNG.tech vehicleSystemsCoupling (scil is the Simulink side; UDP).
    Beamng(CosimBeamngArgs),
    /// YaCoP over TCP (`#,<name>,<value>` lines).
    Yacop(CosimYacopArgs),
}

#[derive(Args, Debug, Clone)]
pub struct CommonArgs {
    /// Scenario TOML.
    #[arg(long)]
    pub scenario: PathBuf,
    /// OpenDRIVE map (default: the scenario's `map`).
    #[arg(long)]
    pub map: Option<PathBuf>,
    /// Print the run report (replay JSON plus `cosim`) as one JSON object.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub inject: InjectArgs,
}

#[derive(Args, Debug, Clone)]
pub struct CosimBeamngArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Where BeamNG sends (scil listens).
    #[arg(long, default_value = "127.0.0.1:64890")]
    pub listen: String,
    /// Where BeamNG listens (scil answers).
    #[arg(long, default_value = "127.0.0.1:64891")]
    pub send: SocketAddr,
    /// BeamNG's send period, ms (sim time = message id × step).
    #[arg(long, default_value_t = 10.0)]
    pub step_ms: f64,
    /// Target whose state goes to custom1–4 (default: the first).
    #[arg(long)]
    pub target: Option<String>,
}

#[derive(Args, Debug, Clone)]
pub struct CosimYacopArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Serve one peer on this address.
    #[arg(long, default_value = "127.0.0.1:12345", conflicts_with = "connect")]
    pub listen: String,
    /// Connect to a YaCoP server instead.
    #[arg(long)]
    pub connect: Option<String>,
}

/// Resolves on SIGINT or SIGTERM.
async fn signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

fn setup(c: &CommonArgs) -> anyhow::Result<Arc<RunSetup>> {
    Ok(Arc::new(RunSetup::load(
        &c.scenario,
        c.map.as_deref(),
        EngineConfig::default(),
    )?))
}

fn finish(report: &RunReport, json: bool, latency: String) -> anyhow::Result<ExitCode> {
    eprintln!("cosim: {latency}");
    if json {
        println!("{}", serde_json::to_string(report)?);
    } else {
        println!("{}", serde_json::to_string_pretty(report)?);
    }
    Ok(if report.error.is_some() {
        ExitCode::from(2)
    } else if report.is_aborted() {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}

pub fn run(c: CosimCommand) -> anyhow::Result<ExitCode> {
    let rt = crate::run::runtime()?;
    match c {
        CosimCommand::Beamng(a) => {
            let setup = setup(&a.common)?;
            let inj = a.common.inject.injection()?;
            if !(a.step_ms.is_finite() && a.step_ms > 0.0) {
                anyhow::bail!("--step-ms must be positive");
            }
            let opts = BeamngOptions {
                send: a.send,
                step_s: a.step_ms / 1000.0,
                idle_end: Duration::from_secs(2),
                outputs: OutputMap {
                    target: a.target.clone(),
                    ..OutputMap::default()
                },
                vut_id: setup.vut_id().to_string(),
            };
            let (report, lat) = rt.block_on(async {
                let sock = UdpSocket::bind(&a.listen)
                    .await
                    .map_err(|e| anyhow::anyhow!("bind {}: {e}", a.listen))?;
                eprintln!("cosim: BeamNG coupling on {} → {}", a.listen, a.send);
                anyhow::Ok(run_beamng(setup, sock, opts, inj, Vec::new(), signal()).await)
            })?;
            finish(&report, a.common.json, lat.summary())
        }
        CosimCommand::Yacop(a) => {
            let setup = setup(&a.common)?;
            let inj = a.common.inject.injection()?;
            let (report, lat) = rt.block_on(async {
                let end = match &a.connect {
                    Some(addr) => YacopEnd::Connect(addr.clone()),
                    None => {
                        let l = TcpListener::bind(&a.listen)
                            .await
                            .map_err(|e| anyhow::anyhow!("bind {}: {e}", a.listen))?;
                        eprintln!("cosim: YaCoP server on {}", a.listen);
                        YacopEnd::Listen(l)
                    }
                };
                run_yacop(setup, end, inj, Vec::new(), signal()).await
            })?;
            finish(&report, a.common.json, lat.summary())
        }
    }
}

#[derive(Args, Debug, Clone)]
pub struct SimBeamngArgs {
    #[command(flatten)]
    pub vut: SimVutArgs,
    /// Where scil listens.
    #[arg(long, default_value = "127.0.0.1:64890")]
    pub scil: SocketAddr,
    /// Where this simulator listens for answers.
    #[arg(long, default_value = "127.0.0.1:64891")]
    pub bind: String,
    /// Give up waiting for an answer after this long, ms.
    #[arg(long, default_value_t = 2000)]
    pub timeout_ms: u64,
}

#[derive(Args, Debug, Clone)]
pub struct SimYacopArgs {
    #[command(flatten)]
    pub vut: SimVutArgs,
    /// scil's YaCoP server.
    #[arg(long, default_value = "127.0.0.1:12345")]
    pub connect: String,
    /// Send `#,param.NAME,VALUE` before step STEP: STEP:NAME=VALUE. Repeatable.
    #[arg(long = "param", value_name = "STEP:NAME=VALUE")]
    pub params: Vec<String>,
    #[arg(long, default_value_t = 2000)]
    pub timeout_ms: u64,
}

fn parse_param(s: &str) -> anyhow::Result<(u64, String, f64)> {
    let (k, rest) = s
        .split_once(':')
        .ok_or_else(|| anyhow::anyhow!("--param STEP:NAME=VALUE, got '{s}'"))?;
    let (n, v) = rest
        .split_once('=')
        .ok_or_else(|| anyhow::anyhow!("--param STEP:NAME=VALUE, got '{s}'"))?;
    Ok((k.parse()?, n.to_string(), v.parse()?))
}

fn sim_setup(v: &SimVutArgs) -> anyhow::Result<Arc<RunSetup>> {
    let Some(sc) = &v.scenario else {
        anyhow::bail!("--scenario FILE is required");
    };
    Ok(Arc::new(RunSetup::load(
        sc,
        v.map.as_deref(),
        EngineConfig::default(),
    )?))
}

pub fn run_sim_beamng(a: SimBeamngArgs) -> anyhow::Result<ExitCode> {
    let setup = sim_setup(&a.vut)?;
    let opts = a.vut.options()?;
    let rt = crate::run::runtime()?;
    let st = rt.block_on(async {
        let sock = UdpSocket::bind(&a.bind)
            .await
            .map_err(|e| anyhow::anyhow!("bind {}: {e}", a.bind))?;
        anyhow::Ok(
            crate::sim::peers::beamng_peer(
                &setup,
                &opts,
                sock,
                a.scil,
                Duration::from_millis(a.timeout_ms),
            )
            .await,
        )
    })?;
    println!("{}", serde_json::to_string(&st)?);
    Ok(ExitCode::SUCCESS)
}

pub fn run_sim_yacop(a: SimYacopArgs) -> anyhow::Result<ExitCode> {
    let setup = sim_setup(&a.vut)?;
    let opts = a.vut.options()?;
    let params = a
        .params
        .iter()
        .map(|p| parse_param(p))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let rt = crate::run::runtime()?;
    let st = rt.block_on(async {
        let s = TcpStream::connect(&a.connect)
            .await
            .map_err(|e| anyhow::anyhow!("connect {}: {e}", a.connect))?;
        anyhow::Ok(
            crate::sim::peers::yacop_peer(
                &setup,
                &opts,
                s,
                &params,
                Duration::from_millis(a.timeout_ms),
            )
            .await,
        )
    })?;
    println!("{}", serde_json::to_string(&st)?);
    Ok(ExitCode::SUCCESS)
}
