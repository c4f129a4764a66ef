//! A run's live ASAM OSI stream: a TCP server on the address the run names (`"osi": {"tcp":
//! "HOST:PORT"}`, or `[osi]` in scil.toml) that sends every SensorView of the run to every
//! connected client as OSI's binary trace (4-byte little-endian length, then the message), and
//! closes the connections when the run ends.
//!
//! The server is bound when the run is created, so a busy or invalid address fails the request
//! and a subscriber can connect before the run starts. Each client gets the map's lanes in its
//! first message. The run never waits for a client: each has a bounded queue, written by its
//! own task; a client whose queue is full is disconnected.

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

use crate::osi::{osi3, trace, OsiEncoder};
use crate::run::sink::osi::OsiFeed;

/// Messages queued per client before it counts as too slow (about 5 s at 100 Hz).
const CLIENT_QUEUE: usize = 512;

/// Where a run's OSI stream is served.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OsiSpec {
    /// TCP address to listen on, `HOST:PORT` (port 0: any free port, see the run's `osi`).
    pub tcp: String,
}

struct Client {
    tx: mpsc::Sender<Arc<[u8]>>,
    /// The client has not had a message with the lanes yet.
    needs_lanes: bool,
}

#[derive(Default)]
struct Inner {
    clients: Vec<Client>,
    closed: bool,
    /// Clients ever connected, and those dropped for being too slow.
    connected: u64,
    dropped: u64,
}

/// The live OSI server of one run (see the module doc). Dropping it closes everything.
pub struct OsiServer {
    local: std::net::SocketAddr,
    inner: Arc<Mutex<Inner>>,
    accept: tokio::task::JoinHandle<()>,
}

fn lock(m: &Mutex<Inner>) -> std::sync::MutexGuard<'_, Inner> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl OsiServer {
    /// Binds `spec.tcp` and starts accepting clients (on the current tokio runtime).
    pub fn bind(spec: &OsiSpec) -> Result<OsiServer, String> {
        let l = std::net::TcpListener::bind(&spec.tcp)
            .map_err(|e| format!("osi.tcp {:?}: cannot listen: {e}", spec.tcp))?;
        l.set_nonblocking(true)
            .map_err(|e| format!("osi.tcp {:?}: {e}", spec.tcp))?;
        let local = l
            .local_addr()
            .map_err(|e| format!("osi.tcp {:?}: {e}", spec.tcp))?;
        let listener = tokio::net::TcpListener::from_std(l)
            .map_err(|e| format!("osi.tcp {:?}: {e}", spec.tcp))?;
        let inner = Arc::new(Mutex::new(Inner::default()));
        let accept = tokio::spawn(accept_loop(listener, inner.clone()));
        Ok(OsiServer {
            local,
            inner,
            accept,
        })
    }

    /// The address actually listened on.
    pub fn local_addr(&self) -> std::net::SocketAddr {
        self.local
    }

    /// The feed an [`crate::run::sink::osi::OsiSink`] hands its messages to.
    pub fn feed(self: &Arc<Self>) -> Box<dyn OsiFeed> {
        Box::new(ServerFeed(self.clone()))
    }

    /// Stops accepting and ends every connection once its queue is written.
    pub fn close(&self) {
        self.accept.abort();
        let mut g = lock(&self.inner);
        g.closed = true;
        // Dropping the senders ends each writer task after its queue.
        g.clients.clear();
    }

    /// Clients ever connected and clients dropped for being too slow.
    pub fn counts(&self) -> (u64, u64) {
        let g = lock(&self.inner);
        (g.connected, g.dropped)
    }

    fn send(&self, enc: &OsiEncoder, view: &osi3::SensorView) {
        let mut g = lock(&self.inner);
        if g.clients.is_empty() {
            return;
        }
        let plain: Arc<[u8]> = trace::frame(view).into();
        let has_lanes = view
            .global_ground_truth
            .as_ref()
            .is_some_and(|gt| !gt.lane.is_empty() || !gt.lane_boundary.is_empty());
        let mut with_lanes: Option<Arc<[u8]>> = None;
        let mut dropped = 0;
        g.clients.retain_mut(|c| {
            let msg = if c.needs_lanes && !has_lanes {
                with_lanes
                    .get_or_insert_with(|| {
                        let mut v = view.clone();
                        if let Some(gt) = v.global_ground_truth.as_mut() {
                            enc.add_lanes(gt);
                        }
                        trace::frame(&v).into()
                    })
                    .clone()
            } else {
                plain.clone()
            };
            c.needs_lanes = false;
            match c.tx.try_send(msg) {
                Ok(()) => true,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    dropped += 1;
                    false
                }
                Err(mpsc::error::TrySendError::Closed(_)) => false,
            }
        });
        if dropped > 0 {
            tracing::warn!(
                "OSI stream {}: {dropped} client(s) too slow, disconnected",
                self.local
            );
            g.dropped += dropped;
        }
    }
}

impl Drop for OsiServer {
    fn drop(&mut self) {
        self.close();
    }
}

async fn accept_loop(listener: tokio::net::TcpListener, inner: Arc<Mutex<Inner>>) {
    loop {
        let (sock, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                tracing::debug!("OSI stream: accept: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = sock.set_nodelay(true);
        let (tx, rx) = mpsc::channel(CLIENT_QUEUE);
        {
            let mut g = lock(&inner);
            if g.closed {
                return;
            }
            g.connected += 1;
            g.clients.push(Client {
                tx,
                needs_lanes: true,
            });
        }
        tokio::spawn(write_loop(sock, rx, peer));
    }
}

async fn write_loop(
    mut sock: tokio::net::TcpStream,
    mut rx: mpsc::Receiver<Arc<[u8]>>,
    peer: std::net::SocketAddr,
) {
    while let Some(m) = rx.recv().await {
        if let Err(e) = sock.write_all(&m).await {
            tracing::debug!("OSI stream to {peer}: {e}");
            return;
        }
    }
    let _ = sock.shutdown().await;
}

struct ServerFeed(Arc<OsiServer>);

impl OsiFeed for ServerFeed {
    fn message(&mut self, encoder: &OsiEncoder, view: &osi3::SensorView) {
        self.0.send(encoder, view);
    }
    fn close(&mut self) {
        self.0.close();
    }
}
