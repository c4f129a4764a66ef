//! Latency benchmark: trigger decision → STRT written to the socket, on loopback against the
//! carrier simulator, with baselines measured in the same run (encode only; a bare tokio
//! `write_all` of a pre-encoded STRT). Not a timed test: run it with `scil bench-dispatch` or
//! `cargo bench --bench dispatch_latency`.

use crate::dispatch::carrier_sim::{self, SimConfig};
use crate::dispatch::control_centre::{
    CarrierConfig, CarrierMode, ControlCentre, ControlCentreConfig,
};
use crate::dispatch::events::{EventKind, Phase};
use crate::dispatch::iso22133::{encode_frame_into, Header, Message, ObjectState, Strt};
use serde::Serialize;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::Instant;

#[derive(Debug, Clone, Serialize)]
pub struct Percentiles {
    pub n: usize,
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
    pub mean_us: f64,
}

impl Percentiles {
    pub fn of(mut v: Vec<f64>) -> Self {
        v.sort_by(|a, b| a.total_cmp(b));
        let n = v.len();
        let q = |p: f64| {
            if n == 0 {
                f64::NAN
            } else {
                v[((p * (n - 1) as f64).round() as usize).min(n - 1)]
            }
        };
        Self {
            n,
            p50_us: q(0.5),
            p99_us: q(0.99),
            max_us: v.last().copied().unwrap_or(f64::NAN),
            mean_us: if n == 0 {
                f64::NAN
            } else {
                v.iter().sum::<f64>() / n as f64
            },
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    /// Decision (`start_now`) → STRT written, through the control centre.
    pub decision_to_strt: Percentiles,
    /// Scheduled instant → STRT written, for STRT scheduled 20 ms ahead (timer path).
    pub scheduled_to_strt: Percentiles,
    /// Baseline 1: encoding one STRT frame (mean over many).
    pub encode_only_us: f64,
    /// Baseline 2: bare `write_all` of a pre-encoded STRT on a loopback TCP socket.
    pub raw_write: Percentiles,
    pub ratio_p50_vs_encode: f64,
    pub ratio_p50_vs_raw_write: f64,
    /// Decision → STRT written with the object on a start-only link (no motion to supervise).
    pub unsupervised_decision_to_strt: Percentiles,
    pub unsupervised_scheduled_to_strt: Percentiles,
    /// p99 of decision → STRT with motion supervision over p99 without.
    pub ratio_p99_supervised: f64,
    /// Decision → STRT written with motion supervision while the same process serves a live
    /// OSI stream at 100 Hz (a SensorView encoded and sent to a connected client every 10 ms).
    pub osi_decision_to_strt: Percentiles,
    /// Its p99 over the supervised p99 without the OSI stream.
    pub ratio_p99_osi: f64,
}

/// Run `iterations` arm → STRT cycles (half immediate, half scheduled).
pub async fn run(iterations: usize) -> anyhow::Result<BenchReport> {
    let iterations = iterations.max(2);
    // Baseline 1: encode only.
    let mut buf = Vec::with_capacity(64);
    let msg = Message::Strt(Strt {
        start_qms_of_week: 123_456,
        gps_week: Some(2300),
    });
    let n_enc = 100_000;
    let t = std::time::Instant::now();
    for i in 0..n_enc {
        buf.clear();
        let h = Header {
            message_counter: i as u8,
            ..Default::default()
        };
        encode_frame_into(&h, std::hint::black_box(&msg), &mut buf);
        std::hint::black_box(&buf);
    }
    let encode_only_us = t.elapsed().as_secs_f64() * 1e6 / n_enc as f64;

    // Baseline 2: raw write on loopback.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let sink = tokio::spawn(async move {
        if let Ok((mut s, _)) = listener.accept().await {
            let mut b = [0u8; 4096];
            while let Ok(n) = s.read(&mut b).await {
                if n == 0 {
                    break;
                }
            }
        }
    });
    let mut s = tokio::net::TcpStream::connect(addr).await?;
    s.set_nodelay(true)?;
    let mut raw = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let t = Instant::now();
        s.write_all(&buf).await?;
        raw.push(t.elapsed().as_secs_f64() * 1e6);
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    drop(s);
    let _ = sink.await;

    // The real path: control centre + carrier simulator, in two configurations taken in
    // turns (so that a shared machine's drift hits both alike): the object on a start-only
    // link (its MONR checked for the link and the object state only), and the object
    // following a TRAJ inside a geofence, every MONR also checked against its path, its
    // planned speed and the fence (the motion supervision of a ground run).
    let (mut immediate, mut scheduled) = (Vec::new(), Vec::new());
    let (mut immediate_plain, mut scheduled_plain) = (Vec::new(), Vec::new());
    let mut immediate_osi = Vec::new();
    let rounds = 4;
    let per = iterations.div_ceil(rounds).max(2);
    for _ in 0..rounds {
        let (i, s) = control_centre_path(per, false).await?;
        immediate_plain.extend(i);
        scheduled_plain.extend(s);
        let (i, s) = control_centre_path(per, true).await?;
        immediate.extend(i);
        scheduled.extend(s);
        let load = osi_load().await?;
        let (i, _) = control_centre_path(per, true).await?;
        load.stop().await;
        immediate_osi.extend(i);
    }
    let osi = Percentiles::of(immediate_osi);
    let decision_to_strt = Percentiles::of(immediate);
    let unsupervised = Percentiles::of(immediate_plain);
    let raw_write = Percentiles::of(raw);
    Ok(BenchReport {
        ratio_p99_osi: osi.p99_us / decision_to_strt.p99_us,
        osi_decision_to_strt: osi,
        ratio_p99_supervised: decision_to_strt.p99_us / unsupervised.p99_us,
        unsupervised_decision_to_strt: unsupervised,
        unsupervised_scheduled_to_strt: Percentiles::of(scheduled_plain),
        ratio_p50_vs_encode: decision_to_strt.p50_us / encode_only_us,
        ratio_p50_vs_raw_write: decision_to_strt.p50_us / raw_write.p50_us,
        decision_to_strt,
        scheduled_to_strt: Percentiles::of(scheduled),
        encode_only_us,
        raw_write,
    })
}

/// `iterations` arm → STRT cycles through a control centre and the carrier simulator, half
/// immediate and half scheduled 20 ms ahead; the latencies (µs) of each. `supervised`: the
/// object follows a TRAJ inside a geofence, so that every MONR (200 Hz) passes the motion
/// rules; otherwise it is a start-only object.
async fn control_centre_path(
    iterations: usize,
    supervised: bool,
) -> anyhow::Result<(Vec<f64>, Vec<f64>)> {
    use crate::dispatch::motion_watch::Geofence;
    use crate::dispatch::profile::DummyProfile;
    let sim = carrier_sim::spawn(SimConfig {
        tcp_port: 0,
        udp_port: 0,
        ..Default::default()
    })
    .await?;
    let (mode, profile, geofence) = if supervised {
        // Walking pace, north from the origin: the bench stops it within milliseconds of
        // each start, so it stays near its start pose from one arm to the next.
        let mut p = DummyProfile::from_scenario(0.0, 0.0, 0.0, 2.0, 5.0);
        p.max_travel_m = 60.0;
        let fence = Geofence {
            permitted: vec![
                [-100.0, -100.0],
                [100.0, -100.0],
                [100.0, 100.0],
                [-100.0, 100.0],
            ],
            forbidden: vec![vec![[50.0, 50.0], [60.0, 50.0], [60.0, 60.0], [50.0, 60.0]]],
        };
        (
            CarrierMode::Trajectory,
            Some(p),
            Some(std::sync::Arc::new(fence)),
        )
    } else {
        (CarrierMode::StartOnly, None, None)
    };
    let cfg = ControlCentreConfig {
        carriers: vec![CarrierConfig {
            name: "bench".into(),
            object_id: 1,
            host: "127.0.0.1".into(),
            tcp_port: sim.tcp_addr.port(),
            udp_port: sim.udp_addr.port(),
            mode,
            profile,
        }],
        monr_rate_hz: 200,
        geofence,
        // What is measured is the path from a decision to STRT on the wire, not the link: the
        // in-process object shares the machine with the bench and misses some of its 200 Hz
        // MONR on a loaded machine, which the default limits (25 % loss) would refuse at arm.
        link_limits: Some(crate::dispatch::link_health::LinkLimits {
            max_monr_loss: 0.9,
            min_rate_share: 0.1,
            max_latency_s: 0.5,
            warn_monr_loss: 0.5,
            warn_latency_s: 0.25,
        }),
        ..Default::default()
    };
    cfg.safety.validate().map_err(anyhow::Error::msg)?;
    let h = ControlCentre::spawn(cfg)?;
    let t = Duration::from_secs(5);
    // Connected, and its link measured well enough to arm.
    if !h.wait_armable(t).await {
        anyhow::bail!("carrier simulator did not connect");
    }
    let feeder = {
        let h = h.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(10));
            loop {
                tick.tick().await;
                h.telemetry();
            }
        })
    };
    let mut immediate = Vec::new();
    let mut scheduled = Vec::new();
    for i in 0..iterations {
        h.arm(t).await?;
        let mut ev = h.events();
        if i % 2 == 0 {
            h.start_now();
        } else {
            h.start_at(Instant::now() + Duration::from_millis(20));
        }
        let lat = tokio::time::timeout(t, async {
            loop {
                if let Ok(e) = ev.recv().await {
                    if let EventKind::StrtSent { latency_us, .. } = e.kind {
                        return latency_us;
                    }
                }
            }
        })
        .await?;
        if i % 2 == 0 {
            immediate.push(lat);
        } else {
            scheduled.push(lat);
        }
        if !h.wait_carrier_state("bench", ObjectState::Running, t).await {
            anyhow::bail!("carrier did not start: {:?}", h.snapshot().events.last());
        }
        h.finish();
        if !h.wait_carrier_state("bench", ObjectState::Postrun, t).await {
            anyhow::bail!("carrier did not stop: {:?}", h.snapshot().events.last());
        }
        h.disarm();
        if !(h.wait_phase(Phase::Idle, t).await
            && h.wait_carrier_state("bench", ObjectState::Disarmed, t)
                .await)
        {
            anyhow::bail!("carrier did not disarm");
        }
    }
    feeder.abort();
    h.shutdown().await;
    sim.shutdown().await;
    Ok((immediate, scheduled))
}

/// A live OSI stream at 100 Hz in this process: the pedestrian crossing on the bundled proving
/// ground, a SensorView encoded every 10 ms and sent to one connected client that reads it all.
struct OsiLoad {
    server: std::sync::Arc<crate::serve::osi_stream::OsiServer>,
    ticker: tokio::task::JoinHandle<u64>,
    reader: tokio::task::JoinHandle<u64>,
}

impl OsiLoad {
    async fn stop(self) {
        self.ticker.abort();
        let _ = self.ticker.await;
        self.server.close();
        let _ = self.reader.await;
    }
}

async fn osi_load() -> anyhow::Result<OsiLoad> {
    use crate::osi::{Frame, ObjectState, OsiEncoder};
    use crate::serve::osi_stream::{OsiServer, OsiSpec};
    let map = crate::map::Map::load(&crate::data_dir().join("opendrive/proving_ground.xodr"))?;
    let cat = crate::scenario::ncap2026::Catalogue::bundled();
    let (row, _) = cat
        .find("CPNA")
        .ok_or_else(|| anyhow::anyhow!("no CPNA row"))?;
    let mut p = crate::scenario::ncap2026::Params::new(30.0);
    p.impact = Some(0.5);
    let sc = row
        .instantiate(&p, &map.road_network)
        .map_err(anyhow::Error::msg)?;
    let mut enc = OsiEncoder::new(&sc, Some(&map), &[]);
    let server = std::sync::Arc::new(
        OsiServer::bind(&OsiSpec {
            tcp: "127.0.0.1:0".into(),
        })
        .map_err(anyhow::Error::msg)?,
    );
    let mut client = tokio::net::TcpStream::connect(server.local_addr()).await?;
    let reader = tokio::spawn(async move {
        let mut b = vec![0u8; 1 << 16];
        let mut total = 0u64;
        while let Ok(n) = client.read(&mut b).await {
            if n == 0 {
                break;
            }
            total += n as u64;
        }
        total
    });
    // The server has taken the client once it is listed.
    for _ in 0..100 {
        if server.counts().0 > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut feed = server.feed();
    let targets = enc.target_ids();
    let ticker = tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_millis(10));
        let mut k = 0u64;
        loop {
            tick.tick().await;
            k += 1;
            let t = k as f64 * 0.01;
            let frame = Frame {
                time_s: t,
                vut: ObjectState {
                    x: 8.3 * t,
                    y: 0.0,
                    yaw_rad: 0.0,
                    speed_mps: 8.3,
                },
                targets: targets
                    .iter()
                    .map(|id| {
                        (
                            id.clone(),
                            ObjectState {
                                x: 40.0,
                                y: -4.0 + 1.4 * t,
                                yaw_rad: std::f64::consts::FRAC_PI_2,
                                speed_mps: 1.4,
                            },
                        )
                    })
                    .collect(),
            };
            let view = enc.sensor_view(&frame);
            feed.message(&enc, &view);
        }
    });
    Ok(OsiLoad {
        server,
        ticker,
        reader,
    })
}
