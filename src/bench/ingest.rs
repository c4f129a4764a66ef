//! Live-ingest latency benchmark (prints figures; not a test).
//!
//! Measures, on loopback, the time from `send_to` of an NCOM datagram to the moment the consumer
//! holds the decoded [`InsSample`] (listener task → bounded mpsc channel → consumer), optionally
//! plus a consumer-side hook (interface block + engine update). Baselines in the same run:
//! * `udp_only`: the same socket path with a listener that forwards raw bytes without decoding;
//! * `decode_only`: `decode_packet` + `NcomDecoder::handle_packet` on an in-memory buffer.

use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::net::UdpSocket;
use tokio::sync::mpsc;

use crate::ingest::health::SourceHealth;
use crate::ingest::ncom::{decode_packet, NcomDecoder, NcomState};
use crate::ingest::udp::NcomUdpSource;
use crate::sample::InsSample;

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Percentiles {
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

fn percentiles(mut v: Vec<Duration>) -> Percentiles {
    v.sort();
    let at = |q: f64| {
        let i = ((v.len() as f64 - 1.0) * q).round() as usize;
        v.get(i).map(|d| d.as_secs_f64() * 1e6).unwrap_or(f64::NAN)
    };
    Percentiles {
        p50_us: at(0.5),
        p99_us: at(0.99),
        max_us: at(1.0),
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct LatencyReport {
    pub packets: usize,
    /// Datagram sent → decoded sample in the consumer (+ hook).
    pub end_to_end: Percentiles,
    /// Datagram sent → raw bytes in the consumer, no decoding.
    pub udp_only: Percentiles,
    /// Decode + stateful fix only.
    pub decode_only: Percentiles,
    /// end_to_end p50 / udp_only p50.
    pub ratio_vs_udp_p50: f64,
    /// end_to_end p50 / decode_only p50.
    pub ratio_vs_decode_p50: f64,
    pub hook: String,
}

fn packets(n: usize) -> Vec<[u8; 72]> {
    (0..n)
        .map(|i| {
            let st = NcomState {
                gps_time_ms: 2400 * 604_800_000 + 387_000_000 + i as i64 * 10,
                lat_deg: 46.893084258,
                lon_deg: 16.839962441 + i as f64 * 1e-6,
                alt_m: 212.4,
                heading_deg: 90.0,
                speed_mps: 8.4,
                accel_mps2: Some(0.0),
                yaw_rate_rps: Some(0.0),
                nav_status: 4,
            };
            crate::ingest::ncom::encode_packet(&st.packet(if i % 10 == 0 { 0 } else { 3 }))
        })
        .collect()
}

/// Runs the benchmark with `n` measured packets (plus warm-up). `hook` runs in the consumer on
/// every decoded sample before the clock stops (e.g. interface block + engine update).
pub fn run(
    n: usize,
    hook_name: &str,
    mut hook: impl FnMut(&InsSample),
) -> anyhow::Result<LatencyReport> {
    let warm = 500.min(n);
    let pk = packets(n + warm + 10);
    let rt = crate::run::runtime()?;
    let (e2e, udp) = rt.block_on(async {
        // Decoding listener.
        let src = NcomUdpSource::bind("127.0.0.1:0", "vut", SourceHealth::new("bench")).await?;
        let addr = src.local_addr()?;
        let (tx, mut rx) = mpsc::channel::<InsSample>(1024);
        tokio::spawn(src.run(tx));
        let sock = UdpSocket::bind("127.0.0.1:0").await?;
        // Prime the time base (channel 0 in packet 0).
        sock.send_to(&pk[0], addr).await?;
        rx.recv().await;
        let mut e2e = Vec::with_capacity(n);
        for (i, p) in pk[1..1 + warm + n].iter().enumerate() {
            let t0 = Instant::now();
            sock.send_to(p, addr).await?;
            let s = rx
                .recv()
                .await
                .ok_or_else(|| anyhow::anyhow!("listener stopped"))?;
            hook(&s);
            if i >= warm {
                e2e.push(t0.elapsed());
            }
        }
        // Raw UDP baseline: same shape (socket task → channel → consumer), no decoding.
        let raw = UdpSocket::bind("127.0.0.1:0").await?;
        let raddr = raw.local_addr()?;
        let (rtx, mut rrx) = mpsc::channel::<Vec<u8>>(1024);
        tokio::spawn(async move {
            let mut buf = [0u8; 2048];
            while let Ok(k) = raw.recv(&mut buf).await {
                if rtx.send(buf[..k].to_vec()).await.is_err() {
                    break;
                }
            }
        });
        let mut udp = Vec::with_capacity(n);
        for (i, p) in pk[1..1 + warm + n].iter().enumerate() {
            let t0 = Instant::now();
            sock.send_to(p, raddr).await?;
            rrx.recv()
                .await
                .ok_or_else(|| anyhow::anyhow!("raw listener stopped"))?;
            if i >= warm {
                udp.push(t0.elapsed());
            }
        }
        anyhow::Ok((e2e, udp))
    })?;
    // Decode-only baseline.
    let mut d = NcomDecoder::new("vut");
    let mut dec = Vec::with_capacity(n);
    for (i, p) in pk.iter().take(1 + warm + n).enumerate() {
        let t0 = Instant::now();
        let fix = decode_packet(p).ok().and_then(|q| d.handle_packet(&q).ok());
        let el = t0.elapsed();
        std::hint::black_box(fix);
        if i > warm {
            dec.push(el);
        }
    }
    let end_to_end = percentiles(e2e);
    let udp_only = percentiles(udp);
    let decode_only = percentiles(dec);
    Ok(LatencyReport {
        packets: n,
        ratio_vs_udp_p50: end_to_end.p50_us / udp_only.p50_us,
        ratio_vs_decode_p50: end_to_end.p50_us / decode_only.p50_us,
        end_to_end,
        udp_only,
        decode_only,
        hook: hook_name.into(),
    })
}

impl std::fmt::Display for LatencyReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let row = |f: &mut std::fmt::Formatter<'_>, name: &str, p: &Percentiles| {
            writeln!(
                f,
                "  {name:<34} p50 {:>8.1} µs   p99 {:>8.1} µs   max {:>8.1} µs",
                p.p50_us, p.p99_us, p.max_us
            )
        };
        writeln!(
            f,
            "NCOM ingest latency on loopback, {} packets:",
            self.packets
        )?;
        row(
            f,
            &format!("send → InsSample ({})", self.hook),
            &self.end_to_end,
        )?;
        row(f, "baseline: send → raw bytes", &self.udp_only)?;
        row(f, "baseline: decode only", &self.decode_only)?;
        writeln!(
            f,
            "  ratio p50: {:.2}× raw UDP path, {:.0}× decode cost",
            self.ratio_vs_udp_p50, self.ratio_vs_decode_p50
        )
    }
}
