//! NCOM over UDP: the live INS source.
//!
//! ```no_run
//! # async fn f() -> std::io::Result<()> {
//! use scil::ingest::{health::SourceHealth, udp::NcomUdpSource};
//! let (tx, mut rx) = tokio::sync::mpsc::channel(1024);
//! let src = NcomUdpSource::bind("0.0.0.0:3000", "vut", SourceHealth::new("ncom")).await?;
//! tokio::spawn(src.run(tx));
//! while let Some(sample) = rx.recv().await { /* frame::Interface::to_map → engine */ }
//! # Ok(()) }
//! ```

use std::io;
use std::net::SocketAddr;

use tokio::net::{ToSocketAddrs, UdpSocket};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::health::SourceHealth;
use super::ncom::{self, NcomDecoder, NcomError, NcomFix, NoFix};
use super::Received;
use crate::sample::InsSample;

/// OxTS default NCOM port.
pub const NCOM_DEFAULT_PORT: u16 = 3000;

/// A bound NCOM UDP listener for one vehicle.
#[derive(Debug)]
pub struct NcomUdpSource {
    socket: UdpSocket,
    decoder: NcomDecoder,
    health: SourceHealth,
}

impl NcomUdpSource {
    pub async fn bind(
        addr: impl ToSocketAddrs,
        vehicle: &str,
        health: SourceHealth,
    ) -> io::Result<Self> {
        let socket = UdpSocket::bind(addr).await?;
        Ok(Self {
            socket,
            decoder: NcomDecoder::new(vehicle),
            health,
        })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    pub fn health(&self) -> SourceHealth {
        self.health.clone()
    }

    /// Receives until `tx` is closed, forwarding every fix's [`InsSample`].
    pub async fn run(self, tx: mpsc::Sender<InsSample>) -> io::Result<()> {
        self.run_fixes(|fix, _| {
            let tx = tx.clone();
            async move { tx.send(fix.sample).await.is_ok() }
        })
        .await
    }

    /// Like [`NcomUdpSource::run`], each sample stamped with the instant its datagram was
    /// taken off the socket: a live run times its engine from that instant, so the hops
    /// between this task and the engine do not delay a predicted STRT.
    pub async fn run_stamped(self, tx: mpsc::Sender<Received>) -> io::Result<()> {
        self.run_fixes(|fix, at| {
            let tx = tx.clone();
            async move {
                tx.send(Received {
                    sample: fix.sample,
                    at,
                })
                .await
                .is_ok()
            }
        })
        .await
    }

    /// Receives until `on_fix` returns false, handing over full fixes (nav status, GPS time)
    /// and the instant each datagram was received.
    pub async fn run_fixes<F, Fut>(mut self, mut on_fix: F) -> io::Result<()>
    where
        F: FnMut(NcomFix, Instant) -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        let mut buf = [0u8; 2048];
        loop {
            let n = match self.socket.recv(&mut buf).await {
                Ok(n) => (n, Instant::now()),
                Err(e) => {
                    // ICMP errors etc.: log, count, keep listening.
                    tracing::warn!(error = %e, "ncom udp recv error");
                    self.health.error(&e);
                    continue;
                }
            };
            let (n, at) = n;
            if let Some(fix) = handle_datagram(&mut self.decoder, &self.health, &buf[..n]) {
                if !on_fix(fix, at).await {
                    return Ok(());
                }
            }
        }
    }
}

/// Decodes one datagram, updating health. Shared by the listener and the benchmark.
pub fn handle_datagram(
    decoder: &mut NcomDecoder,
    health: &SourceHealth,
    data: &[u8],
) -> Option<NcomFix> {
    health.message();
    let packet = match ncom::decode_packet(data) {
        Ok(p) => p,
        Err(NcomError::Checksum) => {
            tracing::debug!("ncom checksum 1 failed");
            health.checksum_failed();
            return None;
        }
        Err(e) => {
            tracing::debug!(error = %e, "malformed ncom datagram");
            health.malformed(e);
            return None;
        }
    };
    if packet.validity() != ncom::Validity::Full {
        health.checksum_failed();
    }
    match decoder.handle_packet(&packet) {
        Ok(fix) => {
            if !fix.locked {
                health.not_locked();
            }
            health.sample(fix.sample.time_s);
            Some(fix)
        }
        Err(NoFix::OutOfOrder) => {
            health.out_of_order();
            None
        }
        Err(_) => {
            health.no_fix();
            None
        }
    }
}
