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
    #[command(flatten)]
    pub dynamics: DynamicsArgs,
}

/// How the simulated object differs from a perfect follower of its TRAJ. Without any of these
/// it follows its TRAJ exactly, reports it without noise and sends each MONR at once.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DynamicsArgs {
    /// A real platform of this kind (`vut_robot`, `pedestrian_platform`, `vehicle_platform`):
    /// its kind's default dead time, acceleration, deceleration and top speed, a position
    /// controller catching up at up to 10 km/h above plan, 1.5 cm lateral wander, RTK error
    /// 1 cm (30 s correlation; 95 % within 2 cm) plus 5 mm white noise, MONR 20–40 ms late. The options below
    /// change single figures.
    #[arg(long, value_name = "KIND")]
    pub realistic: Option<String>,
    /// From the start time to the first motion, ms.
    #[arg(long)]
    pub dead_time_ms: Option<f64>,
    /// Largest acceleration, m/s².
    #[arg(long)]
    pub max_accel: Option<f64>,
    /// Largest deceleration, m/s² (positive).
    #[arg(long)]
    pub max_decel: Option<f64>,
    /// Top speed, km/h.
    #[arg(long)]
    pub max_speed_kmh: Option<f64>,
    /// Largest speed above plan while catching up, km/h.
    #[arg(long)]
    pub catchup_kmh: Option<f64>,
    /// Lateral wander across its path (standard deviation), m.
    #[arg(long)]
    pub wander_m: Option<f64>,
    /// Slowly varying RTK position error per axis (standard deviation), m.
    #[arg(long)]
    pub rtk_error_m: Option<f64>,
    /// Its correlation time, s.
    #[arg(long)]
    pub rtk_tau_s: Option<f64>,
    /// White noise on the reported position per axis (standard deviation), m.
    #[arg(long)]
    pub rtk_noise_m: Option<f64>,
    /// MONR latency, ms: `30` or a range `20-40` (each MONR uniformly within it).
    #[arg(long, value_name = "MS[-MS]")]
    pub monr_latency_ms: Option<String>,
    /// Seed of the random processes (wander, RTK error, latency).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Ignore MTSP (like the stock isoObject): the trajectory is never retimed.
    #[arg(long)]
    pub no_mtsp: bool,
}

impl DynamicsArgs {
    /// The dynamics these options describe (checked).
    pub fn dynamics(&self) -> anyhow::Result<crate::dispatch::object_dynamics::Dynamics> {
        use crate::capabilities::ObjectKind;
        use crate::dispatch::object_dynamics::Dynamics;
        let mut d = match &self.realistic {
            Some(k) => Dynamics::realistic(ObjectKind::parse(k).ok_or_else(|| {
                anyhow::anyhow!(
                    "--realistic {k}: not a kind of object (vut_robot, pedestrian_platform, vehicle_platform)"
                )
            })?),
            None => Dynamics::default(),
        };
        let set = |v: Option<f64>, f: &mut f64, scale: f64| {
            if let Some(v) = v {
                *f = v * scale;
            }
        };
        set(self.dead_time_ms, &mut d.dead_time_s, 1e-3);
        set(self.max_accel, &mut d.max_accel_mps2, 1.0);
        set(self.max_decel, &mut d.max_decel_mps2, 1.0);
        set(self.max_speed_kmh, &mut d.max_speed_mps, 1.0 / 3.6);
        set(self.catchup_kmh, &mut d.catchup_mps, 1.0 / 3.6);
        set(self.wander_m, &mut d.wander_m, 1.0);
        set(self.rtk_error_m, &mut d.rtk_bias_m, 1.0);
        set(self.rtk_tau_s, &mut d.rtk_tau_s, 1.0);
        set(self.rtk_noise_m, &mut d.rtk_noise_m, 1.0);
        if let Some(l) = &self.monr_latency_ms {
            let ms = |x: &str| {
                x.trim().parse::<f64>().map_err(|_| {
                    anyhow::anyhow!("--monr-latency-ms {l}: expected MS or MS-MS (e.g. 20-40)")
                })
            };
            d.monr_latency_s = match l.split_once('-') {
                Some((a, b)) => (ms(a)? * 1e-3, ms(b)? * 1e-3),
                None => (ms(l)? * 1e-3, ms(l)? * 1e-3),
            };
        }
        if let Some(s) = self.seed {
            d.seed = s;
        }
        d.validate()
            .map_err(|e| anyhow::anyhow!("carrier-sim: {e}"))?;
        Ok(d)
    }
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
            honour_mtsp: !args.dynamics.no_mtsp,
            dynamics: args.dynamics.dynamics()?,
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

/// `scil carrier-proxy`: a real platform's motion in front of another ISO 22133 object.
#[derive(Debug, Clone, clap::Args)]
pub struct CarrierProxyArgs {
    /// Address the control centre connects to (ISO 22133's ports on it).
    #[arg(long)]
    pub listen: IpAddr,
    /// Address of the object behind the proxy (ISO 22133's default ports).
    #[arg(long)]
    pub object: IpAddr,
    /// Where the platform stands at first, `X,Y,HEADING_DEG` (map frame, m; heading 0 =
    /// north, clockwise); default: where the object first reports.
    #[arg(long, value_name = "X,Y,HEADING_DEG", allow_hyphen_values = true)]
    pub start: Option<String>,
    #[command(flatten)]
    pub dynamics: DynamicsArgs,
}

pub async fn run_carrier_proxy(args: CarrierProxyArgs) -> anyhow::Result<()> {
    use crate::dispatch::platform_proxy::{self, ProxyConfig};
    let start = match &args.start {
        None => None,
        Some(s) => {
            let v: Vec<f64> = s
                .split(',')
                .map(|x| x.trim().parse::<f64>())
                .collect::<Result<_, _>>()
                .map_err(|_| anyhow::anyhow!("--start {s}: expected X,Y,HEADING_DEG"))?;
            let [x, y, h] = v[..] else {
                anyhow::bail!("--start {s}: expected X,Y,HEADING_DEG");
            };
            Some((x, y, crate::frame::heading_to_yaw(h)))
        }
    };
    let proxy = platform_proxy::spawn(ProxyConfig {
        listen: args.listen,
        object: args.object,
        tcp_port: crate::dispatch::iso22133::DEFAULT_TCP_PORT,
        udp_port: crate::dispatch::iso22133::DEFAULT_UDP_PORT,
        dynamics: args.dynamics.dynamics()?,
        start,
    })
    .await
    .map_err(|e| anyhow::anyhow!("carrier-proxy on {}: {e}", args.listen))?;
    eprintln!(
        "carrier-proxy: {} (tcp {}, udp {}) in front of the object on {}",
        args.listen, proxy.tcp_addr, proxy.udp_addr, args.object
    );
    proxy.wait().await;
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
        p(
            "  same, beside a 100 Hz OSI stream",
            &r.osi_decision_to_strt,
        );
        println!(
            "live OSI stream at 100 Hz in the same process: decision -> STRT p99 {:.2}x without it",
            r.ratio_p99_osi
        );
    }
    Ok(())
}

/// Build a multi-threaded tokio runtime and run `f` on it (for a synchronous `main`).
pub fn block_on<F: std::future::Future<Output = anyhow::Result<()>>>(f: F) -> anyhow::Result<()> {
    crate::run::runtime()?.block_on(f)
}
