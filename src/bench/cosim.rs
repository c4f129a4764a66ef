//! `scil bench cosim`: BeamNG `vehicleSystemsCoupling` framing in lock-step over loopback UDP.
//! The BeamNG side is the `scil sim beamng` peer ([`crate::sim::peers::beamng_peer`]: the
//! simulated VUT, one 111-double message per step, waits for the 64-double answer), in process.
//! It is run twice against two scil sides on the same runtime:
//!
//! 1. **echo** — a bare UDP echo that answers each message with a 64-double datagram (id + 1,
//!    the rest NaN) and nothing else: the floor set by the sockets, the runtime and the peer;
//! 2. **cosim** — the real thing ([`crate::run::cosim::session::run_beamng`]): each message is
//!    a lock-step step of a session (engine, trigger, twin, outputs) and is answered with the
//!    dummies' state after it.
//!
//! Printed: messages/s sustained, the answer latency (datagram received → answer sent, on the
//! scil side) and the peer's round trip, p50/p99, and cosim/echo ratios. Figures only.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use serde::Serialize;
use tokio::net::UdpSocket;
use tokio::time::Instant;

use crate::run::cosim::beamng::{self, BeamngOptions, OutputMap, IN_LEN, OUT_LEN};
use crate::run::cosim::session::run_beamng;
use crate::run::cosim::Latencies;
use crate::run::source::inject::Injection;
use crate::run::RunSetup;
use crate::scenario::engine::EngineConfig;
use crate::sim::peers::{beamng_peer, PeerStats};
use crate::sim::SimOptions;

#[derive(Args, Debug, Clone)]
pub struct CosimBenchArgs {
    /// Scenario (its first target is the one answered).
    #[arg(long)]
    pub scenario: PathBuf,
    #[arg(long)]
    pub map: Option<PathBuf>,
    /// Messages (lock-step steps) per measurement.
    #[arg(long, default_value_t = 20_000)]
    pub messages: u64,
    /// BeamNG's step (sim time per message), ms.
    #[arg(long, default_value_t = 10.0)]
    pub step_ms: f64,
    /// Simulated VUT speed, km/h (placed so that the trigger fires near the end of the run).
    #[arg(long, default_value_t = 40.0)]
    pub vut_speed: f64,
    /// Print the figures as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// One side's figures.
#[derive(Debug, Clone, Serialize)]
pub struct SideFigures {
    pub messages: u64,
    pub answered: u64,
    pub timeouts: u64,
    pub elapsed_s: f64,
    pub messages_per_s: f64,
    /// scil side: datagram received → answer sent, µs.
    pub answer_p50_us: Option<f64>,
    pub answer_p99_us: Option<f64>,
    /// Peer side: message sent → its answer received, µs.
    pub rtt_p50_us: Option<f64>,
    pub rtt_p99_us: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CosimBench {
    pub echo: SideFigures,
    pub cosim: SideFigures,
    /// cosim messages/s ÷ echo messages/s.
    pub throughput_ratio: f64,
    /// cosim RTT p50 ÷ echo RTT p50.
    pub rtt_p50_ratio: Option<f64>,
    /// The cosim run's trigger fired and the peer saw the target active.
    pub trigger_fired: bool,
    pub late_answers: u64,
}

pub fn run(a: CosimBenchArgs) -> anyhow::Result<ExitCode> {
    if a.messages < 10 {
        anyhow::bail!("--messages must be at least 10");
    }
    if !(a.step_ms.is_finite() && a.step_ms > 0.0) {
        anyhow::bail!("--step-ms must be positive");
    }
    let setup = Arc::new(RunSetup::load(
        &a.scenario,
        a.map.as_deref(),
        EngineConfig::default(),
    )?);
    let rt = crate::run::runtime()?;
    let b = rt.block_on(bench(setup, &a))?;
    if a.json {
        println!("{}", serde_json::to_string(&b)?);
    } else {
        print(&b, &a);
    }
    Ok(ExitCode::SUCCESS)
}

/// The peer's vehicle: `messages` steps, placed so that it reaches the first target's line
/// (trigger, moving dummy) only in the last few seconds; no AEB, so it never stops early.
fn peer_options(a: &CosimBenchArgs) -> SimOptions {
    let dt = a.step_ms / 1000.0;
    let v = a.vut_speed / 3.6;
    let n = a.messages as f64;
    SimOptions {
        vut_speed_kmh: a.vut_speed,
        aeb: None,
        fcw: None,
        elk: None,
        step_ms: a.step_ms,
        run_up_m: Some(v * n * dt + 10.0),
        // Steps 0..=max_steps: `messages` in all.
        max_duration_s: (n - 1.0) * dt,
        injection: Injection::default(),
    }
}

async fn bench(setup: Arc<RunSetup>, a: &CosimBenchArgs) -> anyhow::Result<CosimBench> {
    let opts = peer_options(a);
    let timeout = Duration::from_secs(2);
    let echo = echo_side(&setup, &opts, timeout).await?;
    let (cosim, fired, late) = cosim_side(setup, &opts, a.step_ms, timeout).await?;
    Ok(CosimBench {
        throughput_ratio: cosim.messages_per_s / echo.messages_per_s.max(1e-9),
        rtt_p50_ratio: cosim
            .rtt_p50_us
            .zip(echo.rtt_p50_us)
            .map(|(c, e)| c / e.max(1e-9)),
        echo,
        cosim,
        trigger_fired: fired,
        late_answers: late,
    })
}

fn figures(st: &PeerStats, lat: &Latencies) -> SideFigures {
    SideFigures {
        messages: st.steps,
        answered: st.answered,
        timeouts: st.timeouts,
        elapsed_s: st.elapsed_s,
        messages_per_s: st.steps_per_s,
        answer_p50_us: lat.percentile(50.0),
        answer_p99_us: lat.percentile(99.0),
        rtt_p50_us: st.rtt_p50_us,
        rtt_p99_us: st.rtt_p99_us,
    }
}

/// The baseline: answer every 111-double message with a 64-double datagram, nothing else.
async fn echo_side(
    setup: &RunSetup,
    opts: &SimOptions,
    timeout: Duration,
) -> anyhow::Result<SideFigures> {
    let server = UdpSocket::bind("127.0.0.1:0").await?;
    let peer = UdpSocket::bind("127.0.0.1:0").await?;
    let server_addr = server.local_addr()?;
    let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
    let echo = tokio::spawn(async move {
        let mut lat = Latencies::default();
        let mut buf = vec![0u8; 2048];
        let mut answer = [f64::NAN; OUT_LEN];
        loop {
            let (n, from) = tokio::select! {
                biased;
                _ = &mut stop_rx => break,
                r = server.recv_from(&mut buf) => match r {
                    Ok(x) => x,
                    Err(_) => continue,
                },
            };
            let t_rx = Instant::now();
            if n != IN_LEN * 8 {
                continue;
            }
            let mut id = [0u8; 8];
            id.copy_from_slice(&buf[..8]);
            answer[0] = f64::from_le_bytes(id) + 1.0;
            if server.send_to(&beamng::encode(&answer), from).await.is_ok() {
                lat.push(t_rx.elapsed().as_secs_f64() * 1e6);
            }
        }
        lat
    });
    let st = beamng_peer(setup, opts, peer, server_addr, timeout).await;
    let _ = stop_tx.send(());
    let lat = echo.await.unwrap_or_default();
    Ok(figures(&st, &lat))
}

/// The real scil side: a lock-step session per message.
async fn cosim_side(
    setup: Arc<RunSetup>,
    opts: &SimOptions,
    step_ms: f64,
    timeout: Duration,
) -> anyhow::Result<(SideFigures, bool, u64)> {
    let server = UdpSocket::bind("127.0.0.1:0").await?;
    let peer = UdpSocket::bind("127.0.0.1:0").await?;
    let (server_addr, peer_addr) = (server.local_addr()?, peer.local_addr()?);
    let bopts = BeamngOptions {
        send: peer_addr,
        step_s: step_ms / 1000.0,
        idle_end: Duration::from_secs(2),
        outputs: OutputMap::default(),
        vut_id: setup.vut_id().to_string(),
    };
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let shutdown = async move {
        let _ = stop_rx.await;
    };
    let peer_setup = setup.clone();
    let peer_task = async move {
        let st = beamng_peer(&peer_setup, opts, peer, server_addr, timeout).await;
        let _ = stop_tx.send(());
        st
    };
    let ((report, lat), st) = tokio::join!(
        run_beamng(
            setup,
            server,
            bopts,
            Injection::default(),
            Vec::new(),
            shutdown
        ),
        peer_task
    );
    if let Some(e) = &report.error {
        anyhow::bail!("cosim session failed: {e}");
    }
    let fired = !report.triggers.is_empty() && st.target_active_seen;
    let late = report.cosim.as_ref().map_or(0, |c| c.late);
    Ok((figures(&st, &lat), fired, late))
}

fn fmt_us(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |x| format!("{x:.0} µs"))
}

fn print(b: &CosimBench, a: &CosimBenchArgs) {
    println!(
        "cosim bench: BeamNG framing ({IN_LEN} → {OUT_LEN} doubles), lock-step over loopback UDP, {} messages, step {} ms, peer = `scil sim beamng` in process (2 worker threads)",
        a.messages, a.step_ms
    );
    for (name, f) in [("echo ", &b.echo), ("cosim", &b.cosim)] {
        println!(
            "{name}  {:>9.0} msg/s  ({} sent, {} answered, {} timeouts, {:.2} s)  answer (rx → tx) p50 {} p99 {}  peer RTT p50 {} p99 {}",
            f.messages_per_s,
            f.messages,
            f.answered,
            f.timeouts,
            f.elapsed_s,
            fmt_us(f.answer_p50_us),
            fmt_us(f.answer_p99_us),
            fmt_us(f.rtt_p50_us),
            fmt_us(f.rtt_p99_us),
        );
    }
    println!(
        "ratio  cosim/echo throughput {:.2}, RTT p50 ×{}; trigger fired: {}; answers later than one step: {}",
        b.throughput_ratio,
        b.rtt_p50_ratio.map_or_else(|| "-".into(), |r| format!("{r:.2}")),
        b.trigger_fired,
        b.late_answers
    );
}
