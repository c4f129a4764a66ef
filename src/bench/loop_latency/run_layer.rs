//! The live run layer's own path, for the loop benchmark: the NCOM datagram goes through what
//! a live run uses — the source's socket task (decode, health, receive stamp), the forwarder
//! (start gate, plausibility, CAN merge), the one driver ([`crate::run::driver::drive`]: clock,
//! interface block, engine, sinks) — to a sink that writes the STRT on the carrier's stream.
//!
//! Not included: the carriers sink's own hops (control-centre task → carrier-link task), whose
//! re-arming per loop would need a full ISO 22133 state cycle. A run's STRT is normally
//! predicted ahead of its instant (the carrier-link timer puts it on the wire then), so those
//! hops matter only for an overdue start — the case every loop here measures.

use std::io::Write;
use std::net::{TcpStream, UdpSocket};
use std::sync::mpsc as smpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, watch};

use super::{carrier, is_start, Approach, DT_MS};
use crate::dispatch::iso22133::{encode_frame_into, Header, Message, Strt, STRT_NOW};
use crate::run::driver::drive;
use crate::run::source::{self, dbc_from_path};
use crate::run::{
    InsSpec, OpenCtx, RunReport, RunSetup, SessionOptions, Sink, SinkCtx, SourceSpec, StopRequest,
};
use crate::sample::Sample;
use crate::scenario::engine::{Engine, Output};

/// Writes the STRT on the carrier's stream at the engine's start command, then ends the run.
struct StrtSink {
    tcp: TcpStream,
    counter: u8,
    out: Vec<u8>,
    stop: watch::Sender<Option<StopRequest>>,
    applied: smpsc::Sender<()>,
}

impl Sink for StrtSink {
    fn name(&self) -> &'static str {
        "bench-strt"
    }

    fn sample(&mut self, _: &SinkCtx<'_>, _: &Engine, _: &Sample) {
        let _ = self.applied.send(());
    }

    fn output(&mut self, _: &SinkCtx<'_>, o: &Output) {
        if !is_start(o) {
            return;
        }
        self.out.clear();
        self.counter = self.counter.wrapping_add(1);
        let h = Header {
            message_counter: self.counter,
            ..Header::default()
        };
        let m = Message::Strt(Strt {
            start_qms_of_week: STRT_NOW,
            gps_week: None,
        });
        encode_frame_into(&h, &m, &mut self.out);
        if let Err(e) = self.tcp.write_all(&self.out) {
            tracing::warn!("bench carrier stream: {e}");
        }
        let _ = self.stop.send(Some(StopRequest::Finish));
    }
}

/// One loop's run: a fresh engine, its sink and its stop channel.
type LoopRun = (Engine, StrtSink, watch::Receiver<Option<StopRequest>>);

/// The run layer's path, set up once (its own sockets, runtime and driver task); one loop per
/// [`RunLayerPath::once`], so that the caller can interleave it with the other paths.
pub(super) struct RunLayerPath {
    rt: tokio::runtime::Runtime,
    setup: Arc<RunSetup>,
    tcp: TcpStream,
    udp_addr: std::net::SocketAddr,
    sender: UdpSocket,
    got_rx: smpsc::Receiver<Instant>,
    run_tx: mpsc::Sender<LoopRun>,
    driver: tokio::task::JoinHandle<()>,
    carrier_thread: std::thread::JoinHandle<()>,
}

const TIMEOUT: Duration = Duration::from_secs(5);

impl RunLayerPath {
    pub(super) fn new(setup: Arc<RunSetup>) -> anyhow::Result<RunLayerPath> {
        let rt = crate::run::runtime()?;
        let (tcp, got_rx, carrier_thread) = carrier()?;

        let spec = SourceSpec::ins(InsSpec::Ncom {
            bind: "127.0.0.1:0".into(),
        });
        let vut = setup.vut_id().to_string();
        let mut feed = rt.block_on(source::open(
            &spec,
            &OpenCtx {
                vut_id: &vut,
                dbc: &dbc_from_path,
            },
        ))?;
        let udp_addr = *feed
            .local_addrs()
            .first()
            .ok_or_else(|| anyhow::anyhow!("the NCOM source bound no address"))?;
        feed.start();

        let (run_tx, mut run_rx) = mpsc::channel::<LoopRun>(1);
        let driver = {
            let setup = setup.clone();
            rt.spawn(async move {
                let opts = SessionOptions::default();
                while let Some((mut engine, sink, mut stop)) = run_rx.recv().await {
                    let mut sinks: Vec<Box<dyn Sink>> = vec![Box::new(sink)];
                    let mut report = RunReport::default();
                    let d = drive(
                        &mut feed,
                        &setup,
                        &mut engine,
                        &mut sinks,
                        &mut stop,
                        &opts,
                        &mut report,
                    )
                    .await;
                    if let Some(e) = d.error {
                        tracing::warn!("bench live feed: {e}");
                        return;
                    }
                }
            })
        };
        Ok(RunLayerPath {
            rt,
            setup,
            tcp,
            udp_addr,
            sender: UdpSocket::bind("127.0.0.1:0")?,
            got_rx,
            run_tx,
            driver,
            carrier_thread,
        })
    }

    /// One loop: a fresh run whose pre-sample (at `gps_ms` − 40 ms, untimed) arms the engine;
    /// the timed datagram at `gps_ms` crosses the threshold. Returns datagram sent → STRT read.
    pub(super) fn once(
        &mut self,
        ap: &Approach,
        x_pre: f64,
        x_fire: f64,
        gps_ms: i64,
    ) -> anyhow::Result<Duration> {
        let (applied_tx, applied_rx) = smpsc::channel();
        let (stop_tx, stop_rx) = watch::channel(None);
        let sink = StrtSink {
            tcp: self.tcp.try_clone()?,
            counter: 0,
            out: Vec::with_capacity(64),
            stop: stop_tx,
            applied: applied_tx,
        };
        self.run_tx
            .blocking_send((self.setup.engine(), sink, stop_rx))
            .map_err(|_| anyhow::anyhow!("the driver task stopped"))?;
        self.sender
            .send_to(&ap.packet(x_pre, gps_ms - DT_MS, 0)?, self.udp_addr)?;
        applied_rx
            .recv_timeout(TIMEOUT)
            .map_err(|_| anyhow::anyhow!("the driver applied no pre-sample"))?;
        let pkt = ap.packet(x_fire, gps_ms, 0)?;
        let t0 = Instant::now();
        self.sender.send_to(&pkt, self.udp_addr)?;
        let t1 = self
            .got_rx
            .recv_timeout(TIMEOUT)
            .map_err(|_| anyhow::anyhow!("no STRT reached the carrier (run-layer path)"))?;
        // The timed sample's own "applied" (after the STRT went out).
        let _ = applied_rx.recv_timeout(TIMEOUT);
        Ok(t1.saturating_duration_since(t0))
    }

    pub(super) fn finish(self) {
        let RunLayerPath {
            rt,
            tcp,
            run_tx,
            driver,
            carrier_thread,
            ..
        } = self;
        drop(run_tx);
        let _ = rt.block_on(driver);
        rt.shutdown_timeout(Duration::from_millis(100));
        drop(tcp);
        let _ = carrier_thread.join();
    }
}
