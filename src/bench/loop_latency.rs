//! The whole control loop on loopback (prints figures; not a test): an NCOM datagram sent on UDP
//! → decoded (the crate's NCOM decoder and health counters) → interface block → scenario engine,
//! whose trigger fires on that sample → ISO 22133 STRT encoded (the crate's codec) and written
//! on a connected carrier's TCP socket → the carrier has read and decoded the STRT frame.
//!
//! Paths measured in the same run, interleaved loop by loop so that drift of a shared machine
//! hits them alike (bare and dedicated thread on the same sockets; the run layer on sockets of
//! its own, the same kind):
//! * **bare**: the hot-path thread receives the datagram and writes a pre-encoded STRT, nothing
//!   else (the network path with no scil work);
//! * **scil, dedicated thread**: the hot path as a live run should have it: one thread owns the
//!   UDP socket, the decoder, the engine and the carrier's TCP stream (TCP_NODELAY), no hop
//!   between receive and write;
//! * **scil, live run layer** (`--run-layer`): the path a live run takes today, through the run
//!   layer's own code (see [`run_layer`]). Its receive instant is stamped on the socket and the
//!   live clock anchors there, so the hops after it delay only an overdue STRT (this case), not
//!   one predicted ahead of its instant.
//!
//! Every datagram carries status channel 0 (GPS time), so each path's decoder knows the time
//! whichever loops it saw. Every loop starts from a freshly armed engine that has already seen one sample above the
//! trigger threshold, so the timed datagram is the one that crosses it: the engine fires (and
//! brackets the crossing) on every loop.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::sync::mpsc as smpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::bench::dispatch::Percentiles;
use crate::dispatch::iso22133::{encode_frame_into, Header, Message, StreamFramer, Strt, STRT_NOW};
use crate::ingest::health::SourceHealth;
use crate::ingest::ncom::{encode_packet, NcomDecoder, NcomState};
use crate::ingest::udp::handle_datagram;
use crate::run::RunSetup;
use crate::scenario::engine::{Command, Engine, Output};

mod run_layer;

/// VUT speed of the synthetic approach (30 km/h).
const SPEED_MPS: f64 = 30.0 / 3.6;
/// Sample interval of the approach (25 Hz).
const DT_MS: i64 = 40;
const GPS_BASE_MS: i64 = 2400 * 604_800_000 + 387_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Bare,
    Thread,
    RunLayer,
}

/// What the hot-path thread is told before each loop.
enum Prep {
    /// Bare path: write the pre-encoded STRT on the next datagram.
    Bare,
    /// Scil path: a fresh engine armed at the pre-sample (already decoded and applied).
    Scil(Box<Engine>),
    Quit,
}

pub struct Figures {
    pub loops: usize,
    pub bare: Percentiles,
    pub thread: Percentiles,
    pub run_layer: Option<Percentiles>,
    pub crossing_x_m: f64,
}

/// The approach: map-frame points on the VUT's lane, converted to WGS84 through the map's geo
/// frame, encoded as NCOM.
struct Approach {
    setup: Arc<RunSetup>,
    y: f64,
    heading_deg: f64,
}

impl Approach {
    fn packet(&self, x: f64, gps_ms: i64, channel: u8) -> anyhow::Result<[u8; 72]> {
        let geo = self
            .setup
            .map
            .as_ref()
            .and_then(|m| m.geo.as_ref())
            .ok_or_else(|| anyhow::anyhow!("the scenario's map has no geoReference"))?;
        let (lat_deg, lon_deg) = geo.to_wgs84(x, self.y);
        let st = NcomState {
            gps_time_ms: gps_ms,
            lat_deg,
            lon_deg,
            alt_m: 0.0,
            heading_deg: self.heading_deg,
            speed_mps: SPEED_MPS,
            accel_mps2: Some(0.0),
            yaw_rate_rps: Some(0.0),
            nav_status: 4,
        };
        Ok(encode_packet(&st.packet(channel)))
    }

    /// Decodes `bytes` and applies the sample to `engine`; the engine's outputs are returned.
    fn apply(
        &self,
        dec: &mut NcomDecoder,
        health: &SourceHealth,
        engine: &mut Engine,
        bytes: &[u8],
    ) -> anyhow::Result<Vec<Output>> {
        let fix = handle_datagram(dec, health, bytes)
            .ok_or_else(|| anyhow::anyhow!("NCOM packet gave no fix"))?;
        let s = self.setup.interface.to_map(&fix.sample)?;
        engine.handle_sample(&s);
        Ok(std::iter::from_fn(|| engine.poll_output()).collect())
    }

    /// A fresh engine armed at `x_pre` (time `gps_ms`), having seen that one sample.
    fn armed(
        &self,
        dec: &mut NcomDecoder,
        health: &SourceHealth,
        x_pre: f64,
        gps_ms: i64,
    ) -> anyhow::Result<Engine> {
        let mut e = self.setup.engine();
        let p = self.packet(x_pre, gps_ms, 0)?;
        e.arm((gps_ms % 604_800_000) as f64 / 1000.0);
        while e.poll_output().is_some() {}
        let out = self.apply(dec, health, &mut e, &p)?;
        if out.iter().any(is_start) {
            anyhow::bail!("the pre-sample at x = {x_pre:.2} m already fires the trigger");
        }
        Ok(e)
    }
}

fn is_start(o: &Output) -> bool {
    matches!(o, Output::Command(Command::Start { .. }))
}

/// Finds the first x on the lane (5 cm steps towards the target) at which the trigger fires.
fn find_crossing(ap: &Approach) -> anyhow::Result<f64> {
    let start = ap
        .setup
        .scenario
        .targets
        .first()
        .ok_or_else(|| anyhow::anyhow!("scenario has no target"))?
        .start;
    let health = SourceHealth::new("bench-scan");
    let mut x = start.x - 80.0;
    let mut k = 0i64;
    while x < start.x {
        let mut dec = NcomDecoder::new(ap.setup.vut_id());
        let t = GPS_BASE_MS + k * 1000;
        let mut e = ap.setup.engine();
        e.arm((t % 604_800_000) as f64 / 1000.0);
        let out = ap.apply(&mut dec, &health, &mut e, &ap.packet(x, t, 0)?)?;
        if out.iter().any(is_start) {
            return Ok(x);
        }
        x += 0.05;
        k += 1;
    }
    anyhow::bail!("the trigger never fires on the approach to the target")
}

/// Runs `loops` measured loops of each path (plus warm-up).
pub fn run(setup: Arc<RunSetup>, loops: usize, with_run_layer: bool) -> anyhow::Result<Figures> {
    let target = setup
        .scenario
        .targets
        .first()
        .ok_or_else(|| anyhow::anyhow!("scenario has no target"))?;
    // The VUT drives east on the lane the target crosses: y of the lane centre from the
    // target's lateral start (the scenario's own geometry), heading east.
    let ap = Approach {
        y: target.start.y + target.lateral_start_m,
        heading_deg: 90.0,
        setup: setup.clone(),
    };
    let x_c = find_crossing(&ap)?;
    // The crossing lies between the pre-sample and the timed sample, one 25 Hz interval apart.
    let step = SPEED_MPS * DT_MS as f64 / 1000.0;
    let (x_pre, x_fire) = (x_c - 0.6 * step, x_c + 0.4 * step);

    let strt = Message::Strt(Strt {
        start_qms_of_week: STRT_NOW,
        gps_week: None,
    });
    let mut pre_encoded = Vec::new();
    encode_frame_into(&Header::default(), &strt, &mut pre_encoded);

    let udp = UdpSocket::bind("127.0.0.1:0")?;
    let udp_addr = udp.local_addr()?;
    let (tcp, got_rx, carrier_thread) = carrier()?;

    // The hot-path thread: owns the UDP socket, the decoder, the engine and the TCP stream.
    let (prep_tx, prep_rx) = smpsc::sync_channel::<Prep>(1);
    let (ready_tx, ready_rx) = smpsc::sync_channel::<()>(1);
    let hot = {
        let setup = setup.clone();
        let pre = pre_encoded.clone();
        std::thread::Builder::new()
            .name("scil-hot-path".into())
            .spawn(move || hot_path(setup, udp, tcp, pre, prep_rx, ready_tx))?
    };

    let sender = UdpSocket::bind("127.0.0.1:0")?;
    let warm = 500.min(loops);
    let mut run_layer = if with_run_layer {
        Some(run_layer::RunLayerPath::new(setup.clone())?)
    } else {
        None
    };
    let modes: &[Mode] = if run_layer.is_some() {
        &[Mode::Bare, Mode::Thread, Mode::RunLayer]
    } else {
        &[Mode::Bare, Mode::Thread]
    };
    let mut bare = Vec::with_capacity(loops);
    let mut thread = Vec::with_capacity(loops);
    let mut layer = Vec::with_capacity(loops);
    // The engine's pre-sample is decoded by a decoder of its own on this thread (untimed).
    let health = SourceHealth::new("bench-prep");
    let mut dec = NcomDecoder::new(setup.vut_id());
    let timeout = Duration::from_secs(5);
    let mut gps = GPS_BASE_MS;
    for i in 0..(warm + loops) * modes.len() {
        let mode = modes[i % modes.len()];
        let measured = i / modes.len() >= warm;
        gps += 1000;
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        if mode == Mode::RunLayer {
            if let Some(rl) = run_layer.as_mut() {
                let d = rl.once(&ap, x_pre, x_fire, gps)?;
                if measured {
                    layer.push(us(d));
                }
            }
            continue;
        }
        let prep = match mode {
            Mode::Thread => {
                Prep::Scil(Box::new(ap.armed(&mut dec, &health, x_pre, gps - DT_MS)?))
            }
            _ => Prep::Bare,
        };
        let pkt = ap.packet(x_fire, gps, 0)?;
        prep_tx
            .send(prep)
            .map_err(|_| anyhow::anyhow!("hot-path thread stopped"))?;
        ready_rx.recv_timeout(timeout)?;
        let t0 = Instant::now();
        sender.send_to(&pkt, udp_addr)?;
        let t1 = got_rx
            .recv_timeout(timeout)
            .map_err(|_| anyhow::anyhow!("no STRT reached the carrier ({mode:?} path)"))?;
        if measured {
            let d = t1.saturating_duration_since(t0);
            match mode {
                Mode::Bare => bare.push(us(d)),
                _ => thread.push(us(d)),
            }
        }
    }
    let _ = prep_tx.send(Prep::Quit);
    // Wake the hot thread out of its receive.
    let _ = sender.send_to(&[0u8], udp_addr);
    let _ = hot.join();
    let _ = carrier_thread.join();
    if let Some(rl) = run_layer {
        rl.finish();
    }
    let run_layer = with_run_layer.then(|| Percentiles::of(layer));
    Ok(Figures {
        loops,
        bare: Percentiles::of(bare),
        thread: Percentiles::of(thread),
        run_layer,
        crossing_x_m: x_c,
    })
}

/// A carrier on loopback: the connected stream (TCP_NODELAY both ways) and the arrival instant
/// of each STRT it reads and decodes, on a thread of its own.
fn carrier() -> anyhow::Result<(
    TcpStream,
    smpsc::Receiver<Instant>,
    std::thread::JoinHandle<()>,
)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let tcp = TcpStream::connect(listener.local_addr()?)?;
    tcp.set_nodelay(true)?;
    let (carrier, _) = listener.accept()?;
    carrier.set_nodelay(true)?;
    let (got_tx, got_rx) = smpsc::channel::<Instant>();
    let thread = std::thread::spawn(move || carrier_loop(carrier, got_tx));
    Ok((tcp, got_rx, thread))
}

fn carrier_loop(mut s: TcpStream, got: smpsc::Sender<Instant>) {
    let mut framer = StreamFramer::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = match s.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let at = Instant::now();
        framer.push(&buf[..n]);
        while let Some(f) = framer.next_frame() {
            if let Ok(f) = f {
                if matches!(f.message, Message::Strt(_)) && got.send(at).is_err() {
                    return;
                }
            }
        }
    }
}

fn hot_path(
    setup: Arc<RunSetup>,
    udp: UdpSocket,
    mut tcp: TcpStream,
    pre_encoded: Vec<u8>,
    prep: smpsc::Receiver<Prep>,
    ready: smpsc::SyncSender<()>,
) {
    let health = SourceHealth::new("bench-hot");
    let mut dec = NcomDecoder::new(setup.vut_id());
    let mut buf = [0u8; 2048];
    let mut out = Vec::with_capacity(64);
    let mut counter = 0u8;
    while let Ok(p) = prep.recv() {
        let mut engine = match p {
            Prep::Quit => return,
            Prep::Bare => None,
            Prep::Scil(e) => Some(e),
        };
        if ready.send(()).is_err() {
            return;
        }
        let Ok(n) = udp.recv(&mut buf) else { return };
        match engine.as_deref_mut() {
            None => {
                if tcp.write_all(&pre_encoded).is_err() {
                    return;
                }
            }
            Some(engine) => {
                let Some(fix) = handle_datagram(&mut dec, &health, &buf[..n]) else {
                    continue;
                };
                let Ok(s) = setup.interface.to_map(&fix.sample) else {
                    continue;
                };
                engine.handle_sample(&s);
                while let Some(o) = engine.poll_output() {
                    if is_start(&o) {
                        out.clear();
                        counter = counter.wrapping_add(1);
                        let h = Header {
                            message_counter: counter,
                            ..Header::default()
                        };
                        encode_frame_into(
                            &h,
                            &Message::Strt(Strt {
                                start_qms_of_week: STRT_NOW,
                                gps_week: None,
                            }),
                            &mut out,
                        );
                        if tcp.write_all(&out).is_err() {
                            return;
                        }
                    }
                }
            }
        }
    }
}

impl std::fmt::Display for Figures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let row = |f: &mut std::fmt::Formatter<'_>, name: &str, p: &Percentiles| {
            writeln!(
                f,
                "  {name:<44} p50 {:>7.1} µs   p99 {:>7.1} µs   max {:>8.1} µs",
                p.p50_us, p.p99_us, p.max_us
            )
        };
        writeln!(
            f,
            "Control loop on loopback (NCOM datagram in → STRT read by the carrier), {} loops each, \
             trigger crossing at x = {:.2} m:",
            self.loops, self.crossing_x_m
        )?;
        row(
            f,
            "bare path (receive → write pre-encoded STRT)",
            &self.bare,
        )?;
        row(f, "scil, dedicated hot-path thread", &self.thread)?;
        if let Some(t) = &self.run_layer {
            row(f, "scil, live run layer (source→driver→sink)", t)?;
        }
        writeln!(
            f,
            "ratio p50 end-to-end / p50 bare path: {:.2}",
            self.thread.p50_us / self.bare.p50_us
        )?;
        if let Some(t) = &self.run_layer {
            writeln!(
                f,
                "ratio p50 live run layer / p50 bare path: {:.2}",
                t.p50_us / self.bare.p50_us
            )?;
            writeln!(
                f,
                "ratio p99 live run layer / p99 bare path: {:.2}",
                t.p99_us / self.bare.p99_us
            )?;
        }
        writeln!(
            f,
            "ratio p99 end-to-end / p99 bare path: {:.2}",
            self.thread.p99_us / self.bare.p99_us
        )
    }
}
