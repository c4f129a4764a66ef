//! Live sources: sockets bound at open, receive tasks, the CAN merge and the start gate.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::{CanSpec, InsSpec, JsonTransport, SourceError, SourceSpec};
use crate::ingest::adma::udp::AdmaUdpSource;
use crate::ingest::can::{cannelloni, socketcan, CanFrame, CanMapping, CanState, DbcDecoder};
use crate::ingest::health::SourceHealth;
use crate::ingest::json::{self, JsonTcpServer, JsonUdpSource, JsonWsServer};
use crate::ingest::plausibility::{Plausibility, PlausibilityLimits};
use crate::ingest::udp::NcomUdpSource;
use crate::ingest::Received;
use crate::sample::InsSample;

/// Capacity of the channel between a live source and the driver.
pub const LIVE_CHANNEL: usize = 4096;

pub(super) struct Live {
    pub(super) name: String,
    pub(super) addrs: Vec<SocketAddr>,
    pub(super) health: Vec<SourceHealth>,
    rx: mpsc::Receiver<Received>,
    received_at: Option<Instant>,
    started: Arc<AtomicBool>,
    dropped: Arc<AtomicU64>,
    tasks: Vec<JoinHandle<()>>,
}

impl Drop for Live {
    fn drop(&mut self) {
        // Closes the sockets: a port is free again when the run ends.
        for t in &self.tasks {
            t.abort();
        }
    }
}

fn bind_err<'a>(
    what: &'static str,
    addr: &'a str,
) -> impl FnOnce(std::io::Error) -> SourceError + 'a {
    move |source| SourceError::Bind {
        what,
        addr: addr.to_string(),
        source,
    }
}

fn log_end(name: String) -> impl FnOnce(std::io::Result<()>) {
    move |r| {
        if let Err(e) = r {
            tracing::warn!(source = %name, "live source stopped: {e}");
        }
    }
}

impl Live {
    pub(super) async fn open(
        spec: &SourceSpec,
        vut_id: &str,
        dbc: Option<Arc<DbcDecoder>>,
    ) -> Result<Live, SourceError> {
        // NCOM is stamped on its socket; the JSON sources come through a plain channel and
        // are stamped when the forwarder takes them (one hop later).
        let (ins_tx, plain_rx) = mpsc::channel::<InsSample>(1024);
        let (stamped_tx, stamped_rx) = mpsc::channel::<Received>(1024);
        let mut tasks = Vec::new();
        let mut addrs = Vec::new();
        let mut health = Vec::new();
        let ins_name = match &spec.ins {
            InsSpec::Csv { .. } => {
                return Err(SourceError::Other("a CSV file is not a live source".into()))
            }
            InsSpec::Ncom { bind } => {
                let h = SourceHealth::new(format!("ncom-udp:{bind}"));
                let s = NcomUdpSource::bind(bind.as_str(), vut_id, h.clone())
                    .await
                    .map_err(bind_err("NCOM", bind))?;
                let addr = s.local_addr().ok();
                let name = format!("ncom-udp:{}", addr.map_or(bind.clone(), |a| a.to_string()));
                let end = log_end(name.clone());
                tasks.push(tokio::spawn(
                    async move { end(s.run_stamped(stamped_tx).await) },
                ));
                addrs.extend(addr);
                health.push(h);
                name
            }
            InsSpec::Adma { bind } => {
                let h = SourceHealth::new(format!("adma-udp:{bind}"));
                let s = AdmaUdpSource::bind(bind.as_str(), vut_id, h.clone())
                    .await
                    .map_err(bind_err("ADMA", bind))?;
                let addr = s.local_addr().ok();
                let name = format!("adma-udp:{}", addr.map_or(bind.clone(), |a| a.to_string()));
                let end = log_end(name.clone());
                tasks.push(tokio::spawn(
                    async move { end(s.run_stamped(stamped_tx).await) },
                ));
                addrs.extend(addr);
                health.push(h);
                name
            }
            InsSpec::Json { transport, bind } => {
                let kind = match transport {
                    JsonTransport::Udp => "json-udp",
                    JsonTransport::Tcp => "json-tcp",
                    JsonTransport::Ws => "json-ws",
                };
                let h = SourceHealth::new(format!("{kind}:{bind}"));
                let end = log_end(format!("{kind}:{bind}"));
                let addr = match transport {
                    JsonTransport::Udp => {
                        let s = JsonUdpSource::bind(bind.as_str(), h.clone())
                            .await
                            .map_err(bind_err("JSON/UDP", bind))?;
                        let a = s.local_addr().ok();
                        tasks.push(tokio::spawn(async move { end(s.run(ins_tx).await) }));
                        a
                    }
                    JsonTransport::Tcp => {
                        let s = JsonTcpServer::bind(bind.as_str(), h.clone())
                            .await
                            .map_err(bind_err("JSON/TCP", bind))?;
                        let a = s.local_addr().ok();
                        tasks.push(tokio::spawn(async move { end(s.run(ins_tx).await) }));
                        a
                    }
                    JsonTransport::Ws => {
                        let s = JsonWsServer::bind(bind.as_str(), h.clone())
                            .await
                            .map_err(bind_err("JSON/WebSocket", bind))?;
                        let a = s.local_addr().ok();
                        tasks.push(tokio::spawn(async move { end(s.run(ins_tx).await) }));
                        a
                    }
                };
                addrs.extend(addr);
                health.push(h);
                format!("{kind}:{}", addr.map_or(bind.clone(), |a| a.to_string()))
            }
            InsSpec::JsonWsClient { url } => {
                let h = SourceHealth::new(format!("json-ws-client:{url}"));
                let (u, h2) = (url.clone(), h.clone());
                tasks.push(tokio::spawn(async move {
                    if let Err(e) = json::ws_client(&u, h2.clone(), ins_tx).await {
                        tracing::warn!("websocket client {u}: {e}");
                        h2.error(e);
                    }
                }));
                health.push(h);
                format!("json-ws-client:{url}")
            }
        };

        // CAN, when fused: frames → DBC → mapped values.
        let (can_rx, can_name) = match (&spec.can, dbc) {
            (Some(c), Some(dbc)) => {
                let (tx, rx) = mpsc::channel::<CanFrame>(4096);
                let (name, h) = match c {
                    CanSpec::Cannelloni { bind, .. } => {
                        let h = SourceHealth::new(format!("cannelloni:{bind}"));
                        let s = cannelloni::CannelloniSource::bind(bind.as_str(), h.clone())
                            .await
                            .map_err(bind_err("cannelloni", bind))?;
                        let addr = s.local_addr().ok();
                        addrs.extend(addr);
                        let name = format!(
                            "cannelloni:{}",
                            addr.map_or(bind.clone(), |a| a.to_string())
                        );
                        let end = log_end(name.clone());
                        tasks.push(tokio::spawn(async move { end(s.run(tx).await) }));
                        (name, h)
                    }
                    CanSpec::Socketcan { iface, .. } => {
                        let h = SourceHealth::new(format!("socketcan:{iface}"));
                        let s = socketcan::SocketCanSource::open(iface, h.clone())
                            .map_err(|e| SourceError::Other(e.to_string()))?;
                        // A blocking reader thread; it ends when the channel closes.
                        s.spawn(tx);
                        (format!("socketcan:{iface}"), h)
                    }
                    CanSpec::Candump { .. } => {
                        return Err(SourceError::Other(
                            "a live INS source fuses with a live CAN source".into(),
                        ))
                    }
                };
                health.push(h.clone());
                (Some((rx, dbc, spec.can_mapping.clone(), h)), Some(name))
            }
            _ => (None, None),
        };

        let started = Arc::new(AtomicBool::new(false));
        let dropped = Arc::new(AtomicU64::new(0));
        let (tx, rx) = mpsc::channel(LIVE_CHANNEL);
        let name = match &can_name {
            Some(c) => format!("{ins_name} + {c}"),
            None => ins_name,
        };
        tasks.push(tokio::spawn(forward(
            Ins {
                plain: plain_rx,
                stamped: stamped_rx,
            },
            can_rx,
            tx,
            started.clone(),
            dropped.clone(),
            name.clone(),
        )));
        Ok(Live {
            name,
            addrs,
            health,
            rx,
            received_at: None,
            started,
            dropped,
            tasks,
        })
    }

    pub(super) fn start(&mut self) {
        self.started.store(true, Ordering::Release);
    }

    pub(super) async fn next(&mut self) -> Option<Result<InsSample, SourceError>> {
        let r = self.rx.recv().await?;
        self.received_at = Some(r.at);
        Some(Ok(r.sample))
    }

    /// When the last sample from [`Live::next`] was received (see [`Received`]).
    pub(super) fn received_at(&self) -> Option<Instant> {
        self.received_at
    }

    pub(super) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

type CanIn = (
    mpsc::Receiver<CanFrame>,
    Arc<DbcDecoder>,
    CanMapping,
    SourceHealth,
);

/// The INS receive channels: one source feeds one of them, the other stays empty.
struct Ins {
    plain: mpsc::Receiver<InsSample>,
    stamped: mpsc::Receiver<Received>,
}

/// Merges CAN into INS samples (latest CAN values fill the fields the INS lacks), discards
/// samples before the start, and never blocks the receive tasks: a full channel drops and
/// counts.
async fn forward(
    mut ins: Ins,
    can: Option<CanIn>,
    tx: mpsc::Sender<Received>,
    started: Arc<AtomicBool>,
    dropped: Arc<AtomicU64>,
    name: String,
) {
    let mut state = CanState::default();
    let mut plausible = Plausibility::new(PlausibilityLimits::default());
    let (mut can_rx, can_rest) = match can {
        Some((rx, dbc, mapping, h)) => (Some(rx), Some((dbc, mapping, h))),
        None => (None, None),
    };
    let (mut plain_closed, mut stamped_closed) = (false, false);
    loop {
        let s = tokio::select! {
            biased;
            f = async { match can_rx.as_mut() { Some(r) => r.recv().await, None => std::future::pending().await } } => {
                match (f, &can_rest) {
                    (Some(f), Some((dbc, mapping, h))) => match dbc.decode(&f) {
                        Ok(m) => {
                            let u = mapping.apply(f.time_s.unwrap_or(0.0), &m);
                            if !u.is_empty() {
                                state.update(&u);
                            }
                        }
                        Err(_) => h.unknown_id(),
                    },
                    _ => can_rx = None,
                }
                continue;
            }
            r = ins.stamped.recv(), if !stamped_closed => match r {
                Some(r) => r,
                None => {
                    stamped_closed = true;
                    if plain_closed { break } else { continue }
                }
            },
            s = ins.plain.recv(), if !plain_closed => match s {
                Some(sample) => Received { sample, at: Instant::now() },
                None => {
                    plain_closed = true;
                    if stamped_closed { break } else { continue }
                }
            },
        };
        let Received { sample: s, at } = s;
        if !started.load(Ordering::Acquire) {
            continue;
        }
        // The same physical plausibility as recorded rows: an implausible sample (a GNSS jump,
        // a corrupt speed) is dropped and counted, never handed to the engine.
        if let Err(reason) = plausible.admit(&s) {
            if dropped.fetch_add(1, Ordering::Relaxed).is_multiple_of(100) {
                tracing::warn!(source = %name, "implausible live sample dropped: {reason}");
            }
            continue;
        }
        let mut s = s;
        if s.steering_wheel_deg.is_none() {
            s.steering_wheel_deg = state.steering_wheel_deg;
        }
        if s.brake_light.is_none() {
            s.brake_light = state.brake_light;
        }
        if s.wheel_speed_mps.is_none() {
            s.wheel_speed_mps = state.wheel_speed_mps;
        }
        match tx.try_send(Received { sample: s, at }) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                if dropped.fetch_add(1, Ordering::Relaxed).is_multiple_of(100) {
                    tracing::warn!(source = %name, "engine behind: live samples dropped");
                }
            }
            Err(mpsc::error::TrySendError::Closed(_)) => break,
        }
    }
}
