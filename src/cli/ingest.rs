//! Command-line front ends of the live-ingest subcommands (`feed`, `ncom dump`, `can decode`,
//! `can listen`, `listen`). `main.rs` only holds the enum variants that point here.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};

use crate::ingest::can::log::CanLog;
use crate::ingest::can::{cannelloni, socketcan, CanMapping, CanState, DbcDecoder};
use crate::ingest::health::SourceHealth;
use crate::ingest::ncom::{NcomDecoder, NcomStreamDecoder};
use crate::ingest::{json, udp};
use crate::run::{CanSpec, InsSpec, JsonTransport, OpenCtx, SourceSpec};
use crate::sample::{InsPosition, InsSample};
use crate::sim::ins::{self as feed, FeedOptions};

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(crate::run::runtime()?)
}

/// `scil feed`: simulated INS sending NCOM over UDP.
#[derive(Debug, Args)]
pub struct FeedArgs {
    /// Replay CSV (local PosX/PosY columns need --map; WGS84 exports are sent as they are).
    pub csv: PathBuf,
    /// Destination HOST:PORT of the NCOM stream (OxTS default port 3000).
    #[arg(long, conflicts_with = "adma")]
    pub ncom: Option<String>,
    /// Send GeneSys ADMAnet (v3.3.3) instead of NCOM: destination HOST:PORT (GeneSys default
    /// port 1040); with --save the capture holds ADMAnet packets.
    #[arg(long)]
    pub adma: Option<String>,
    /// Also (or only) write the raw packets to a capture file.
    #[arg(long)]
    pub save: Option<PathBuf>,
    /// Playback speed factor (1 = recorded pace, 0 = as fast as possible).
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// OpenDRIVE map whose geoReference converts local x/y to WGS84 (default for local CSVs: the
    /// bundled proving_ground.xodr).
    #[arg(long)]
    pub map: Option<PathBuf>,
    /// Output rate, Hz.
    #[arg(long, default_value_t = 100.0)]
    pub rate: f64,
    /// GPS week of the CSV's seconds-of-week times.
    #[arg(long, default_value_t = 2400)]
    pub gps_week: i64,
    /// candump log of the same run (same time base as the CSV), sent in step with the NCOM
    /// stream as cannelloni over UDP to --cannelloni.
    #[arg(long, requires = "cannelloni")]
    pub can_log: Option<PathBuf>,
    /// Destination HOST:PORT of the cannelloni stream (default port 20000).
    #[arg(long, requires = "can_log")]
    pub cannelloni: Option<String>,
}

pub fn run_feed(a: FeedArgs) -> anyhow::Result<ExitCode> {
    let samples = feed::read_replay_csv(&a.csv)?;
    let local = samples
        .iter()
        .any(|s| matches!(s.position, InsPosition::Local { .. }));
    // Local x/y need the map's geoReference: default to the bundled proving ground.
    let default_map = crate::data_dir().join("opendrive/proving_ground.xodr");
    let map = a.map.clone().or_else(|| local.then_some(default_map));
    let geo = feed::map_geo(map.as_deref())?;
    let opts = FeedOptions {
        rate_hz: a.rate,
        gps_week: a.gps_week,
        ..Default::default()
    };
    if a.adma.is_some() {
        return feed_adma(&a, &samples, geo.as_deref(), &opts);
    }
    let packets = feed::ncom_stream(&samples, geo.as_deref(), &opts)?;
    if let Some(p) = &a.save {
        let mut f = std::io::BufWriter::new(std::fs::File::create(p)?);
        for pk in &packets {
            f.write_all(&pk.bytes)?;
        }
        f.flush()?;
        eprintln!("wrote {} NCOM packets to {}", packets.len(), p.display());
    }
    if let Some(target) = &a.ncom {
        let addr: SocketAddr = std::net::ToSocketAddrs::to_socket_addrs(target.as_str())
            .with_context(|| format!("bad --ncom address {target}"))?
            .next()
            .context("--ncom resolves to nothing")?;
        let rt = runtime()?;
        match (&a.can_log, &a.cannelloni) {
            (Some(log), Some(can_to)) => {
                let frames = feed::read_candump(log)?;
                let can_addr: SocketAddr =
                    std::net::ToSocketAddrs::to_socket_addrs(can_to.as_str())
                        .with_context(|| format!("bad --cannelloni address {can_to}"))?
                        .next()
                        .context("--cannelloni resolves to nothing")?;
                let (n, c) = rt.block_on(feed::send_udp_with_can(
                    &packets, addr, &frames, can_addr, a.speed,
                ))?;
                eprintln!(
                    "sent {n} NCOM packets to {addr} and {c} CAN frames (cannelloni) to {can_addr}"
                );
            }
            _ => {
                let n = rt.block_on(feed::send_udp(&packets, addr, a.speed))?;
                eprintln!("sent {n} NCOM packets to {addr}");
            }
        }
    } else if a.save.is_none() {
        anyhow::bail!("give --ncom HOST:PORT and/or --save FILE");
    }
    Ok(ExitCode::SUCCESS)
}

/// `scil feed --adma`: the replay as GeneSys ADMAnet packets.
fn feed_adma(
    a: &FeedArgs,
    samples: &[InsSample],
    geo: Option<&dyn feed::MapToGeo>,
    opts: &FeedOptions,
) -> anyhow::Result<ExitCode> {
    if a.can_log.is_some() {
        anyhow::bail!("--can-log is sent with NCOM only (give --ncom)");
    }
    let packets = feed::adma_stream(samples, geo, opts)?;
    if let Some(p) = &a.save {
        let mut f = std::io::BufWriter::new(std::fs::File::create(p)?);
        for (_, pk) in &packets {
            f.write_all(pk)?;
        }
        f.flush()?;
        eprintln!("wrote {} ADMAnet packets to {}", packets.len(), p.display());
    }
    if let Some(target) = &a.adma {
        let addr: SocketAddr = std::net::ToSocketAddrs::to_socket_addrs(target.as_str())
            .with_context(|| format!("bad --adma address {target}"))?
            .next()
            .context("--adma resolves to nothing")?;
        let n = runtime()?.block_on(feed::send_udp_datagrams(&packets, addr, a.speed))?;
        eprintln!("sent {n} ADMAnet packets to {addr}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `scil ncom …`
#[derive(Debug, Subcommand)]
pub enum NcomCommand {
    /// Decode a capture file (concatenated raw packets; garbage is skipped) to CSV on stdout.
    Dump { file: PathBuf },
}

pub fn run_ncom(c: NcomCommand) -> anyhow::Result<ExitCode> {
    match c {
        NcomCommand::Dump { file } => {
            let bytes =
                std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            match ncom_dump(&bytes, &mut out) {
                Err(e) if is_broken_pipe(&e) => Ok(ExitCode::SUCCESS),
                r => r.map(|_| ExitCode::SUCCESS),
            }
        }
    }
}

/// Writes the dump CSV. `gps_time_s` is GPS seconds of week (the replays' time base), empty until status channel 0 gave the minute; rows only
/// for packets with a valid batch B. Returns (rows, skipped bytes).
pub fn ncom_dump(bytes: &[u8], out: &mut dyn Write) -> anyhow::Result<(u64, u64)> {
    writeln!(out, "gps_time_s,lat_deg,lon_deg,alt_m,vel_n,vel_e,vel_d,heading_deg,pitch_deg,roll_deg,nav_status")?;
    let mut s = NcomStreamDecoder::new();
    let mut d = NcomDecoder::new("vut");
    s.push(bytes);
    let mut rows = 0;
    let opt =
        |v: Option<f64>, scale: f64| v.map(|x| format!("{:.6}", x * scale)).unwrap_or_default();
    while let Some(p) = s.next_packet() {
        let _ = d.handle_packet(&p);
        let Some(n) = p.nav else { continue };
        let time = d
            .minutes()
            .map(|m| {
                let tow = (i64::from(m) * 60).rem_euclid(crate::ingest::ncom::SECONDS_PER_WEEK);
                format!("{:.3}", tow as f64 + p.ms as f64 / 1000.0)
            })
            .unwrap_or_default();
        writeln!(
            out,
            "{time},{:.9},{:.9},{:.3},{},{},{},{},{},{},{}",
            n.lat_rad.to_degrees(),
            n.lon_rad.to_degrees(),
            n.alt_m,
            opt(n.vel_ned_mps[0], 1.0),
            opt(n.vel_ned_mps[1], 1.0),
            opt(n.vel_ned_mps[2], 1.0),
            opt(n.heading_rad, 1f64.to_degrees()),
            opt(n.pitch_rad, 1f64.to_degrees()),
            opt(n.roll_rad, 1f64.to_degrees()),
            p.nav_status
        )?;
        rows += 1;
    }
    out.flush()?;
    if s.skipped_bytes > 0 || s.pending() > 0 {
        eprintln!(
            "ncom dump: {rows} packets, {} bytes skipped while resynchronising, {} trailing bytes",
            s.skipped_bytes,
            s.pending()
        );
    }
    Ok((rows, s.skipped_bytes))
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

/// `scil can …`
#[derive(Debug, Subcommand)]
pub enum CanCommand {
    /// Decode a CAN log (candump, Vector ASC or BLF, MDF4 bus logging; told by content) with a
    /// DBC: `time,frame_id,message,signal,value` on stdout.
    Decode { dbc: PathBuf, log: PathBuf },
    /// Print the mapped twin fields (steering, brake light, wheel speed) of a live CAN source.
    Listen(CanListenArgs),
}

#[derive(Debug, Args)]
pub struct CanListenArgs {
    #[arg(long)]
    pub dbc: PathBuf,
    /// cannelloni UDP address to bind (default port 20000), e.g. 0.0.0.0:20000.
    #[arg(long, conflicts_with = "socketcan")]
    pub cannelloni: Option<String>,
    /// SocketCAN interface, e.g. can0 (Linux with AF_CAN only).
    #[arg(long)]
    pub socketcan: Option<String>,
    /// Stop after this many frames.
    #[arg(long)]
    pub count: Option<u64>,
}

pub fn run_can(c: CanCommand) -> anyhow::Result<ExitCode> {
    match c {
        CanCommand::Decode { dbc, log } => {
            let dec = DbcDecoder::from_file(&dbc)?;
            let frames = CanLog::open(&log).map_err(anyhow::Error::msg)?;
            let kind = frames.kind;
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            writeln!(out, "time,frame_id,message,signal,value")?;
            let (mut unknown, mut malformed, mut decoded) = (0u64, 0u64, 0u64);
            for r in frames {
                let f = match r {
                    Ok(f) => f,
                    Err(e) => {
                        malformed += 1;
                        if malformed <= 20 {
                            match e.line {
                                Some(n) => eprintln!("{}:{n}: {}", log.display(), e.reason),
                                None => eprintln!("{}: {}", log.display(), e.reason),
                            }
                        }
                        continue;
                    }
                };
                let Ok(m) = dec.decode(&f) else {
                    unknown += 1;
                    continue;
                };
                decoded += 1;
                for (name, v) in &m.signals {
                    writeln!(
                        out,
                        "{:.6},{},{},{},{:?}",
                        f.time_s.unwrap_or(0.0),
                        m.id,
                        m.name,
                        name,
                        v
                    )?;
                }
            }
            out.flush()?;
            eprintln!(
                "can decode ({}): {decoded} frames decoded, {unknown} with ids not in the DBC, {malformed} malformed",
                kind.name()
            );
            if decoded == 0 {
                anyhow::bail!(
                    "{}: no frame decoded ({unknown} with ids not in the DBC, {malformed} malformed)",
                    log.display()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        CanCommand::Listen(a) => {
            let dec = DbcDecoder::from_file(&a.dbc)?;
            let mapping = CanMapping::default();
            let rt = runtime()?;
            rt.block_on(async move {
                let (tx, mut rx) = tokio::sync::mpsc::channel(4096);
                let health;
                if let Some(iface) = &a.socketcan {
                    health = SourceHealth::new(format!("socketcan:{iface}"));
                    let src = socketcan::SocketCanSource::open(iface, health.clone())?;
                    src.spawn(tx);
                } else {
                    let addr = a
                        .cannelloni
                        .clone()
                        .unwrap_or_else(|| format!("0.0.0.0:{}", cannelloni::DEFAULT_PORT));
                    health = SourceHealth::new(format!("cannelloni:{addr}"));
                    let src =
                        cannelloni::CannelloniSource::bind(addr.as_str(), health.clone()).await?;
                    eprintln!("listening for cannelloni on {}", src.local_addr()?);
                    tokio::spawn(src.run(tx));
                }
                let mut state = CanState::default();
                let mut n = 0;
                while let Some(f) = rx.recv().await {
                    match dec.decode(&f) {
                        Ok(m) => {
                            let u = mapping.apply(f.time_s.unwrap_or(0.0), &m);
                            if !u.is_empty() {
                                state.update(&u);
                                println!("{}", serde_json::to_string(&u)?);
                            }
                        }
                        Err(_) => health.unknown_id(),
                    }
                    n += 1;
                    if a.count.is_some_and(|c| n >= c) {
                        break;
                    }
                }
                eprintln!("{}", serde_json::to_string(&health.snapshot())?);
                anyhow::Ok(())
            })?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `scil listen`: print live samples as JSON lines (and health on exit). Every source is
/// opened through the run layer's source factory, as a run would open it.
#[derive(Debug, Args)]
pub struct ListenArgs {
    /// NCOM over UDP: address to bind (OxTS default 0.0.0.0:3000).
    #[arg(long)]
    pub ncom: Option<String>,
    /// GeneSys ADMA (ADMAnet 3.3.3–3.3.5) over UDP: address to bind (GeneSys default
    /// 0.0.0.0:1040).
    #[arg(long)]
    pub adma: Option<String>,
    /// JSON lines over UDP: address to bind.
    #[arg(long)]
    pub json_udp: Option<String>,
    /// JSON lines over TCP: address to listen on.
    #[arg(long)]
    pub json_tcp: Option<String>,
    /// JSON lines over WebSocket: address to listen on.
    #[arg(long)]
    pub json_ws: Option<String>,
    /// JSON lines from a WebSocket server (ws://host:port/path).
    #[arg(long)]
    pub json_ws_url: Option<String>,
    /// CAN over cannelloni (address to bind), fused into the first INS source (needs --dbc).
    #[arg(long, requires = "dbc", conflicts_with = "socketcan")]
    pub cannelloni: Option<String>,
    /// CAN from a SocketCAN interface, fused into the first INS source (needs --dbc).
    #[arg(long, requires = "dbc")]
    pub socketcan: Option<String>,
    /// DBC decoding the CAN source.
    #[arg(long)]
    pub dbc: Option<PathBuf>,
    /// Vehicle id for NCOM samples.
    #[arg(long, default_value = "vut")]
    pub vehicle: String,
    /// Stop after this many samples.
    #[arg(long)]
    pub count: Option<u64>,
}

impl ListenArgs {
    /// One source spec per given source; CAN fuses into the first.
    pub fn specs(&self) -> Vec<SourceSpec> {
        let mut v = Vec::new();
        if let Some(b) = &self.ncom {
            v.push(SourceSpec::ins(InsSpec::Ncom { bind: b.clone() }));
        }
        if let Some(b) = &self.adma {
            v.push(SourceSpec::ins(InsSpec::Adma { bind: b.clone() }));
        }
        for (t, b) in [
            (JsonTransport::Udp, &self.json_udp),
            (JsonTransport::Tcp, &self.json_tcp),
            (JsonTransport::Ws, &self.json_ws),
        ] {
            if let Some(b) = b {
                v.push(SourceSpec::ins(InsSpec::Json {
                    transport: t,
                    bind: b.clone(),
                }));
            }
        }
        if let Some(u) = &self.json_ws_url {
            v.push(SourceSpec::ins(InsSpec::JsonWsClient { url: u.clone() }));
        }
        let dbc = self
            .dbc
            .as_ref()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        let can = match (&self.cannelloni, &self.socketcan) {
            (Some(b), _) => Some(CanSpec::Cannelloni {
                bind: b.clone(),
                dbc,
            }),
            (None, Some(i)) => Some(CanSpec::Socketcan {
                iface: i.clone(),
                dbc,
            }),
            _ => None,
        };
        if let Some(first) = v.first_mut() {
            first.can = can;
        }
        v
    }
}

pub fn run_listen(a: ListenArgs) -> anyhow::Result<ExitCode> {
    let specs = a.specs();
    if specs.is_empty() {
        anyhow::bail!(
            "give at least one source: --ncom 0.0.0.0:{}, --adma 0.0.0.0:{}, --json-udp, --json-tcp, --json-ws, --json-ws-url",
            udp::NCOM_DEFAULT_PORT,
            crate::ingest::adma::DEFAULT_PORT
        );
    }
    let rt = runtime()?;
    rt.block_on(async move {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<InsSample>(4096);
        let mut health = Vec::new();
        let ctx = OpenCtx {
            vut_id: &a.vehicle,
            dbc: &crate::run::source::dbc_from_path,
        };
        let mut tasks = Vec::new();
        for spec in &specs {
            let mut feed = crate::run::source::open(spec, &ctx).await?;
            let addrs: Vec<String> = feed.local_addrs().iter().map(|a| a.to_string()).collect();
            eprintln!("listening: {} {}", feed.name, addrs.join(" "));
            health.extend(feed.health());
            feed.start();
            let tx = tx.clone();
            tasks.push(tokio::spawn(async move {
                while let Some(Ok(s)) = feed.next().await {
                    if tx.send(s).await.is_err() {
                        break;
                    }
                }
            }));
        }
        drop(tx);
        let mut n = 0u64;
        let stdout = std::io::stdout();
        while let Some(s) = rx.recv().await {
            if writeln!(stdout.lock(), "{}", json::to_line(&s)).is_err() {
                break; // stdout closed (`| head`): stop quietly
            }
            n += 1;
            if a.count.is_some_and(|c| n >= c) {
                break;
            }
        }
        for t in tasks {
            t.abort();
        }
        let snaps: Vec<_> = health.iter().map(|h| h.snapshot()).collect();
        eprintln!("{}", serde_json::to_string(&snaps)?);
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// `scil bench ingest`.
#[derive(Debug, Args)]
pub struct BenchIngestArgs {
    /// Measured packets.
    #[arg(long, default_value_t = 5000)]
    pub packets: usize,
    /// Scenario (with its map): every decoded sample also goes through the interface block and
    /// the scenario engine before the clock stops.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
}

pub fn run_bench_args(a: BenchIngestArgs) -> anyhow::Result<ExitCode> {
    let r = match &a.scenario {
        None => crate::bench::ingest::run(a.packets, "decode only", |_| {})?,
        Some(sc) => {
            let setup = crate::run::RunSetup::load(
                sc,
                None,
                crate::scenario::engine::EngineConfig {
                    stale_limit_s: None,
                    ..Default::default()
                },
            )?;
            let mut engine = setup.engine();
            let mut armed = false;
            crate::bench::ingest::run(a.packets, "interface + engine", |s| {
                if let Ok(m) = setup.interface.to_map(s) {
                    if !armed {
                        engine.arm(m.time_s);
                        armed = true;
                    }
                    engine.handle_sample(&m);
                    while engine.poll_output().is_some() {}
                }
            })?
        }
    };
    println!("{r}");
    println!("{}", serde_json::to_string(&r)?);
    Ok(ExitCode::SUCCESS)
}

/// `cargo bench --bench ingest_latency`: decode-only figures.
pub fn run_bench(packets: usize) -> anyhow::Result<ExitCode> {
    run_bench_args(BenchIngestArgs {
        packets,
        scenario: None,
    })
}
