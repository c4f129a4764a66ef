//! Command-line entry points of the dispatch module (`scil carrier-sim`, `scil bench-dispatch`).

use crate::dispatch::carrier_sim::{self, SimConfig};
use crate::dispatch::object::ObjectConfig;
use crate::dispatch::profile::DummyProfile;
use std::net::IpAddr;

/// `scil carrier-sim`: an ISO 22133 test object (dummy target carrier) simulator.
#[derive(Debug, Clone, clap::Args)]
pub struct CarrierSimArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub listen: IpAddr,
    /// Object (transmitter) id until OSEM assigns one.
    #[arg(long, default_value_t = 1)]
    pub id: u32,
    #[arg(long, default_value_t = crate::dispatch::iso22133::DEFAULT_TCP_PORT)]
    pub tcp_port: u16,
    #[arg(long, default_value_t = crate::dispatch::iso22133::DEFAULT_UDP_PORT)]
    pub udp_port: u16,
    /// Built-in profile (used when no TRAJ is uploaded): target speed, km/h.
    #[arg(long, default_value_t = 5.0)]
    pub speed_kmh: f64,
    /// Built-in profile: acceleration distance s_acc, m.
    #[arg(long, default_value_t = 1.0)]
    pub accel_m: f64,
    /// Built-in profile: start point (map frame), m.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub start_x: f64,
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub start_y: f64,
    /// Built-in profile: heading, INS convention (0 = north, clockwise), degrees.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub heading_deg: f64,
    /// Built-in profile: distance after which the dummy stops, m.
    #[arg(long, default_value_t = 10.0)]
    pub max_travel_m: f64,
    /// Built-in profile from a JSON file (the serialised `DummyProfile`: start_x, start_y,
    /// yaw_rad, accel_distance_m, speed_mps, max_travel_m and optionally `path`
    /// `[{"x":..,"y":..}, ...]` to follow a curved path); overrides the options above.
    #[arg(long)]
    pub profile_json: Option<std::path::PathBuf>,
    /// Report not-ready-to-arm (to exercise the control centre's arming rule).
    #[arg(long)]
    pub not_ready: bool,
    /// Report readyToArm like the stock RI-SE isoObject demo: 2 (unavailable) in Disarmed,
    /// 0 elsewhere.
    #[arg(long)]
    pub isoobject_readiness: bool,
    /// A fault to show (repeatable), `KIND[=VALUE]@armed|start+SECONDS`: `drift=3@start+2`
    /// (reported position drifts right at 3 m/s from 2 s after the start), `overspeed=1.5@start+1`
    /// (runs its TRAJ 1.5 times as fast), `jump=4@start+2` (position jumps 4 m right),
    /// `monr-stop@armed+1`, `disconnect@armed+0.5`.
    #[arg(long = "fault", value_parser = crate::dispatch::object_faults::Fault::parse)]
    pub faults: Vec<crate::dispatch::object_faults::Fault>,
    /// No state-change log on stderr.
    #[arg(long)]
    pub quiet: bool,
}

pub async fn run_carrier_sim(args: CarrierSimArgs) -> anyhow::Result<()> {
    let mut profile = DummyProfile::from_scenario(
        args.start_x,
        args.start_y,
        args.heading_deg,
        args.accel_m,
        args.speed_kmh,
    );
    profile.max_travel_m = args.max_travel_m;
    if let Some(p) = &args.profile_json {
        let text =
            std::fs::read_to_string(p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
        profile = serde_json::from_str(&text)
            .map_err(|e| anyhow::anyhow!("{}: not a carrier profile: {e}", p.display()))?;
    }
    let cfg = SimConfig {
        listen: args.listen,
        tcp_port: args.tcp_port,
        udp_port: args.udp_port,
        object: ObjectConfig {
            id: args.id,
            profile,
            ready_to_arm: !args.not_ready,
            isoobject_readiness: args.isoobject_readiness,
            faults: args.faults,
            ..Default::default()
        },
        verbose: !args.quiet,
    };
    let sim = carrier_sim::spawn(cfg).await?;
    eprintln!(
        "carrier-sim: object {} listening on tcp {} udp {}",
        args.id, sim.tcp_addr, sim.udp_addr
    );
    sim.wait().await;
    Ok(())
}

/// `scil bench-dispatch`: decision → STRT-on-the-wire latency on loopback.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// Arm → STRT cycles (half immediate, half scheduled 20 ms ahead).
    #[arg(long, default_value_t = 200)]
    pub iterations: usize,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

pub async fn run_bench(args: BenchArgs) -> anyhow::Result<()> {
    let r = crate::bench::dispatch::run(args.iterations).await?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        let p = |name: &str, x: &crate::bench::dispatch::Percentiles| {
            println!(
                "{name:<34} n={:<4} p50 {:>8.1} us  p99 {:>8.1} us  max {:>8.1} us",
                x.n, x.p50_us, x.p99_us, x.max_us
            )
        };
        p("decision -> STRT written", &r.decision_to_strt);
        p(
            "  same, start-only object",
            &r.unsupervised_decision_to_strt,
        );
        p("scheduled instant -> STRT written", &r.scheduled_to_strt);
        p(
            "  same, start-only object",
            &r.unsupervised_scheduled_to_strt,
        );
        p("baseline: raw write_all (loopback)", &r.raw_write);
        println!(
            "{:<34} {:>8.3} us",
            "baseline: encode STRT only", r.encode_only_us
        );
        println!(
            "ratio p50 / encode-only: {:.0}x, p50 / raw write: {:.1}x",
            r.ratio_p50_vs_encode, r.ratio_p50_vs_raw_write
        );
        println!(
            "motion supervision (TRAJ, path, speed and geofence rules on every MONR at 200 Hz): decision -> STRT p99 {:.2}x the start-only object's",
            r.ratio_p99_supervised
        );
    }
    Ok(())
}

/// Build a multi-threaded tokio runtime and run `f` on it (for a synchronous `main`).
pub fn block_on<F: std::future::Future<Output = anyhow::Result<()>>>(f: F) -> anyhow::Result<()> {
    crate::run::runtime()?.block_on(f)
}
