//! A userspace fault proxy for the ISO 22133 links (no netem needed): it sits between the
//! control centre and a carrier, on the TCP control link and the UDP process link, and adds
//! one-way delay, drops datagrams (MONR, carrier → control centre) and can partition both
//! links. The faults can be changed while the proxy runs.
#![allow(dead_code)] // not every test crate uses every knob

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UdpSocket};
use tokio::sync::mpsc;
use tokio::time::Instant;

#[derive(Debug, Clone, Copy, Default)]
pub struct Faults {
    /// Added to every byte and datagram, each direction.
    pub delay: Duration,
    /// Share of carrier → control-centre datagrams dropped (0..1).
    pub udp_loss: f64,
    /// Nothing passes either link.
    pub partition: bool,
}

pub struct FaultProxy {
    pub tcp_addr: SocketAddr,
    pub udp_addr: SocketAddr,
    faults: Arc<Mutex<Faults>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl FaultProxy {
    /// Proxies `carrier_tcp` and `carrier_udp` on fresh loopback ports.
    pub async fn start(carrier_tcp: SocketAddr, carrier_udp: SocketAddr, f: Faults) -> FaultProxy {
        let faults = Arc::new(Mutex::new(f));
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind tcp");
        let tcp_addr = listener.local_addr().expect("addr");
        let front = Arc::new(UdpSocket::bind("127.0.0.1:0").await.expect("bind udp"));
        let udp_addr = front.local_addr().expect("addr");
        let back = Arc::new(UdpSocket::bind("127.0.0.1:0").await.expect("bind udp"));
        back.connect(carrier_udp).await.expect("connect udp");
        let mut tasks = Vec::new();

        let fl = faults.clone();
        tasks.push(tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(carrier_tcp).await else {
                    continue;
                };
                let (cr, cw) = client.into_split();
                let (sr, sw) = server.into_split();
                tokio::spawn(pipe(cr, sw, fl.clone()));
                tokio::spawn(pipe(sr, cw, fl.clone()));
            }
        }));

        // Control centre → carrier (HEAB): remember the sender, forward after the delay.
        let cc_addr: Arc<Mutex<Option<SocketAddr>>> = Arc::default();
        let (to_carrier, mut rx_c) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
        let (fl, cca, f2) = (faults.clone(), cc_addr.clone(), front.clone());
        tasks.push(tokio::spawn(async move {
            let mut buf = vec![0u8; 65_536];
            while let Ok((n, from)) = f2.recv_from(&mut buf).await {
                *cca.lock().unwrap() = Some(from);
                let f = *fl.lock().unwrap();
                if !f.partition {
                    let _ = to_carrier.send((Instant::now() + f.delay, buf[..n].to_vec()));
                }
            }
        }));
        let b2 = back.clone();
        tasks.push(tokio::spawn(async move {
            while let Some((at, d)) = rx_c.recv().await {
                tokio::time::sleep_until(at).await;
                let _ = b2.send(&d).await;
            }
        }));
        // Carrier → control centre (MONR): drop a share, forward the rest after the delay.
        let (to_cc, mut rx_cc) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
        let fl = faults.clone();
        tasks.push(tokio::spawn(async move {
            let mut buf = vec![0u8; 65_536];
            let mut rng = 0x9E37_79B9_7F4A_7C15u64;
            while let Ok(n) = back.recv(&mut buf).await {
                let f = *fl.lock().unwrap();
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let u = (rng >> 11) as f64 / (1u64 << 53) as f64;
                if f.partition || u < f.udp_loss {
                    continue;
                }
                let _ = to_cc.send((Instant::now() + f.delay, buf[..n].to_vec()));
            }
        }));
        tasks.push(tokio::spawn(async move {
            while let Some((at, d)) = rx_cc.recv().await {
                tokio::time::sleep_until(at).await;
                let to = *cc_addr.lock().unwrap();
                if let Some(to) = to {
                    let _ = front.send_to(&d, to).await;
                }
            }
        }));
        FaultProxy {
            tcp_addr,
            udp_addr,
            faults,
            tasks,
        }
    }

    pub fn set(&self, f: Faults) {
        *self.faults.lock().unwrap() = f;
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// One direction of a TCP connection: bytes read now are written `delay` later; a partition
/// holds them back.
async fn pipe(
    mut r: tokio::net::tcp::OwnedReadHalf,
    mut w: tokio::net::tcp::OwnedWriteHalf,
    faults: Arc<Mutex<Faults>>,
) {
    let (tx, mut rx) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let fl = faults.clone();
    let writer = tokio::spawn(async move {
        while let Some((at, d)) = rx.recv().await {
            tokio::time::sleep_until(at).await;
            while fl.lock().unwrap().partition {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            if w.write_all(&d).await.is_err() {
                return;
            }
        }
        // Not even the close passes a partition.
        while fl.lock().unwrap().partition {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    });
    let mut buf = vec![0u8; 65_536];
    loop {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let delay = faults.lock().unwrap().delay;
                if tx
                    .send((Instant::now() + delay, buf[..n].to_vec()))
                    .is_err()
                {
                    break;
                }
            }
        }
    }
    drop(tx);
    let _ = writer.await;
}
