//! ADMAnet over UDP: a live GeneSys ADMA.

use std::io;
use std::net::SocketAddr;

use tokio::net::{ToSocketAddrs, UdpSocket};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::AdmaDecoder;
use crate::ingest::health::SourceHealth;
use crate::ingest::Received;

/// A bound ADMAnet UDP listener for one vehicle.
#[derive(Debug)]
pub struct AdmaUdpSource {
    socket: UdpSocket,
    decoder: AdmaDecoder,
    health: SourceHealth,
}

impl AdmaUdpSource {
    pub async fn bind(
        addr: impl ToSocketAddrs,
        vehicle: &str,
        health: SourceHealth,
    ) -> io::Result<Self> {
        Ok(Self {
            socket: UdpSocket::bind(addr).await?,
            decoder: AdmaDecoder::new(vehicle),
            health,
        })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    /// Receives until `tx` is closed, each sample stamped with the instant its datagram was
    /// taken off the socket. A datagram that is not a packet scil reads is counted, named in
    /// the health, and the stream goes on.
    pub async fn run_stamped(mut self, tx: mpsc::Sender<Received>) -> io::Result<()> {
        // Larger than a packet, so an oversized datagram is seen whole (and read as one).
        let mut buf = vec![0u8; 2048];
        loop {
            let n = match self.socket.recv(&mut buf).await {
                Ok(n) => n,
                Err(e) => {
                    tracing::warn!(error = %e, "adma udp recv error");
                    self.health.error(&e);
                    continue;
                }
            };
            let at = Instant::now();
            if let Some(fix) = super::handle_datagram(&mut self.decoder, &self.health, &buf[..n]) {
                if tx
                    .send(Received {
                        sample: fix.sample,
                        at,
                    })
                    .await
                    .is_err()
                {
                    return Ok(());
                }
            }
        }
    }
}
