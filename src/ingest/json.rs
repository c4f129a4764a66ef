//! Newline-delimited JSON telemetry over UDP, TCP and WebSocket.
//!
//! # Schema
//! One JSON object per line (a UDP datagram or WebSocket message may carry several lines):
//!
//! ```json
//! {"t": 387000.04, "vehicle": "vut", "x": 20.3359, "y": -1.75,
//!  "heading_deg": 90.0, "speed_mps": 8.391, "steering_wheel_deg": 0.1, "brake_light": false}
//! {"t": 387000.08, "lat": 46.893084258, "lon": 16.839966849, "alt": 212.4,
//!  "heading_deg": 90.0, "speed_mps": 8.39}
//! ```
//!
//! | field | type | meaning |
//! |---|---|---|
//! | `t` | number, required | source time, s (GPS seconds of week for the shared replays) |
//! | `vehicle` | string, default `"vut"` | vehicle id |
//! | `x`, `y` | numbers | local position, m (INS/test-site frame, like the CSV `PosX`/`PosY`) |
//! | `lat`, `lon`, `alt` | numbers | WGS84 position, degrees / m (used when `x`/`y` are absent) |
//! | `heading_deg` | number, required | 0 = north, clockwise, degrees |
//! | `speed_mps` | number, required | horizontal speed, m/s |
//! | `steering_wheel_deg` | number, optional | steering-wheel angle, degrees, positive left |
//! | `brake_light` | bool, optional | |
//! | `fcw` | bool, optional | forward collision warning active |
//! | `accel_mps2` | number, optional | longitudinal acceleration |
//! | `yaw_rate_rps` | number, optional | yaw rate, rad/s, counter-clockwise positive |
//!
//! Unknown fields are ignored. A line without a position, with a non-finite number, or whose `t` is
//! not after the vehicle's previous `t` is dropped and counted (malformed / out-of-order).

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;

use futures_util::{SinkExt, StreamExt};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};
use tokio::net::{TcpListener, TcpStream, ToSocketAddrs, UdpSocket};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

use super::health::SourceHealth;
use crate::sample::{InsPosition, InsSample, VUT};

/// Longest accepted line (bytes).
pub const MAX_LINE: u64 = 64 * 1024;

/// Wire form of one JSON sample (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonSample {
    pub t: f64,
    #[serde(default = "default_vehicle")]
    pub vehicle: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lon: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alt: Option<f64>,
    pub heading_deg: f64,
    pub speed_mps: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steering_wheel_deg: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brake_light: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accel_mps2: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yaw_rate_rps: Option<f64>,
    /// Forward collision warning active.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fcw: Option<bool>,
}

fn default_vehicle() -> String {
    VUT.to_string()
}

#[derive(Debug, thiserror::Error)]
pub enum JsonError {
    #[error("bad JSON sample: {0}")]
    Json(#[from] serde_json::Error),
    #[error("sample has neither x/y nor lat/lon")]
    NoPosition,
    #[error("non-finite value in sample")]
    NotFinite,
}

impl TryFrom<JsonSample> for InsSample {
    type Error = JsonError;
    fn try_from(j: JsonSample) -> Result<Self, JsonError> {
        let position = match (j.x, j.y, j.lat, j.lon) {
            (Some(x), Some(y), _, _) => InsPosition::Local { x, y },
            (_, _, Some(lat_deg), Some(lon_deg)) => InsPosition::Wgs84 {
                lat_deg,
                lon_deg,
                alt_m: j.alt,
            },
            _ => return Err(JsonError::NoPosition),
        };
        let finite = [j.t, j.heading_deg, j.speed_mps]
            .into_iter()
            .chain(j.x)
            .chain(j.y)
            .chain(j.lat)
            .chain(j.lon)
            .chain(j.steering_wheel_deg)
            .all(f64::is_finite);
        if !finite {
            return Err(JsonError::NotFinite);
        }
        Ok(InsSample {
            time_s: j.t,
            vehicle: j.vehicle.into(),
            position,
            heading_deg: j.heading_deg,
            speed_mps: j.speed_mps,
            steering_wheel_deg: j.steering_wheel_deg,
            brake_light: j.brake_light,
            accel_mps2: j.accel_mps2,
            yaw_rate_rps: j.yaw_rate_rps,
            wheel_speed_mps: None,
            fcw: j.fcw,
        })
    }
}

impl From<&InsSample> for JsonSample {
    fn from(s: &InsSample) -> Self {
        let (x, y, lat, lon, alt) = match s.position {
            InsPosition::Local { x, y } => (Some(x), Some(y), None, None, None),
            InsPosition::Wgs84 {
                lat_deg,
                lon_deg,
                alt_m,
            } => (None, None, Some(lat_deg), Some(lon_deg), alt_m),
        };
        JsonSample {
            t: s.time_s,
            vehicle: s.vehicle.to_string(),
            x,
            y,
            lat,
            lon,
            alt,
            heading_deg: s.heading_deg,
            speed_mps: s.speed_mps,
            steering_wheel_deg: s.steering_wheel_deg,
            brake_light: s.brake_light,
            accel_mps2: s.accel_mps2,
            yaw_rate_rps: s.yaw_rate_rps,
            fcw: s.fcw,
        }
    }
}

/// Parses one line.
pub fn parse_line(line: &str) -> Result<InsSample, JsonError> {
    serde_json::from_str::<JsonSample>(line)?.try_into()
}

/// Serialises a sample as one line (without the newline).
pub fn to_line(s: &InsSample) -> String {
    // Serialising plain numbers, strings and options cannot fail.
    serde_json::to_string(&JsonSample::from(s)).unwrap_or_default()
}

/// Sans-IO line handler shared by all transports: parsing, health, per-vehicle ordering.
#[derive(Debug)]
pub struct JsonLineDecoder {
    health: SourceHealth,
    last_t: HashMap<String, f64>,
}

impl JsonLineDecoder {
    pub fn new(health: SourceHealth) -> Self {
        Self {
            health,
            last_t: HashMap::new(),
        }
    }

    /// Handles one or more newline-separated lines, returning the accepted samples.
    pub fn handle_text(&mut self, text: &str) -> Vec<InsSample> {
        let mut out = Vec::new();
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            self.health.message();
            match parse_line(line) {
                Ok(s) => {
                    let last = self.last_t.get(&*s.vehicle).copied();
                    if last.is_some_and(|l| s.time_s <= l) {
                        self.health.out_of_order();
                        continue;
                    }
                    self.last_t.insert(s.vehicle.to_string(), s.time_s);
                    self.health.sample(s.time_s);
                    out.push(s);
                }
                Err(e) => {
                    tracing::debug!(error = %e, "malformed json sample");
                    self.health.malformed(e);
                }
            }
        }
        out
    }
}

async fn forward(samples: Vec<InsSample>, tx: &mpsc::Sender<InsSample>) -> bool {
    for s in samples {
        if tx.send(s).await.is_err() {
            return false;
        }
    }
    true
}

/// JSON over UDP: each datagram holds one or more lines.
#[derive(Debug)]
pub struct JsonUdpSource {
    socket: UdpSocket,
    decoder: JsonLineDecoder,
}

impl JsonUdpSource {
    pub async fn bind(addr: impl ToSocketAddrs, health: SourceHealth) -> io::Result<Self> {
        Ok(Self {
            socket: UdpSocket::bind(addr).await?,
            decoder: JsonLineDecoder::new(health),
        })
    }
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }
    pub async fn run(mut self, tx: mpsc::Sender<InsSample>) -> io::Result<()> {
        let mut buf = vec![0u8; 65536];
        loop {
            let n = match self.socket.recv(&mut buf).await {
                Ok(n) => n,
                Err(e) => {
                    tracing::warn!(error = %e, "json udp recv error");
                    self.decoder.health.error(&e);
                    continue;
                }
            };
            let samples = match std::str::from_utf8(&buf[..n]) {
                Ok(text) => self.decoder.handle_text(text),
                Err(e) => {
                    self.decoder.health.message();
                    self.decoder.health.malformed(e);
                    continue;
                }
            };
            if !forward(samples, &tx).await {
                return Ok(());
            }
        }
    }
}

/// Reads newline-delimited JSON from any byte stream until EOF or until `tx` closes.
pub async fn read_lines<R: AsyncRead + Unpin>(
    reader: R,
    decoder: &mut JsonLineDecoder,
    tx: &mpsc::Sender<InsSample>,
) -> io::Result<bool> {
    let mut reader = BufReader::new(reader);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = (&mut reader)
            .take(MAX_LINE)
            .read_until(b'\n', &mut line)
            .await?;
        if n == 0 {
            return Ok(true);
        }
        if line.last() != Some(&b'\n') && n as u64 == MAX_LINE {
            decoder.health.message();
            decoder.health.malformed("line too long");
            // Skip the rest of the over-long line.
            let mut rest = Vec::new();
            reader.read_until(b'\n', &mut rest).await?;
            continue;
        }
        let samples = match std::str::from_utf8(&line) {
            Ok(t) => decoder.handle_text(t),
            Err(e) => {
                decoder.health.message();
                decoder.health.malformed(e);
                continue;
            }
        };
        if !forward(samples, tx).await {
            return Ok(false);
        }
    }
}

/// JSON over TCP, server side: accepts any number of connections, one task each.
pub struct JsonTcpServer {
    listener: TcpListener,
    health: SourceHealth,
}

impl JsonTcpServer {
    pub async fn bind(addr: impl ToSocketAddrs, health: SourceHealth) -> io::Result<Self> {
        Ok(Self {
            listener: TcpListener::bind(addr).await?,
            health,
        })
    }
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }
    pub async fn run(self, tx: mpsc::Sender<InsSample>) -> io::Result<()> {
        accept_loop(
            self.listener,
            self.health,
            tx,
            "tcp",
            |stream, peer, health, tx| async move {
                let mut dec = JsonLineDecoder::new(health.clone());
                if let Err(e) = read_lines(stream, &mut dec, &tx).await {
                    tracing::info!(%peer, error = %e, "json tcp connection closed");
                    health.error(e);
                }
            },
        )
        .await
    }
}

/// The accept loop of the JSON servers: a failed accept is counted and retried after 50 ms
/// (never ends the server), each connection gets its own task, and the loop ends when the
/// consumer has gone away.
async fn accept_loop<F, Fut>(
    listener: TcpListener,
    health: SourceHealth,
    tx: mpsc::Sender<InsSample>,
    kind: &'static str,
    serve: F,
) -> io::Result<()>
where
    F: Fn(TcpStream, SocketAddr, SourceHealth, mpsc::Sender<InsSample>) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, kind, "json accept error");
                health.error(&e);
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        if tx.is_closed() {
            return Ok(());
        }
        tokio::spawn(serve(stream, peer, health.clone(), tx.clone()));
    }
}

/// JSON over TCP, client side: connects to a server that streams lines.
pub async fn tcp_client(
    addr: impl ToSocketAddrs,
    health: SourceHealth,
    tx: mpsc::Sender<InsSample>,
) -> io::Result<()> {
    let stream = TcpStream::connect(addr).await?;
    let mut dec = JsonLineDecoder::new(health);
    read_lines(stream, &mut dec, &tx).await.map(|_| ())
}

async fn ws_loop<S>(
    mut ws: tokio_tungstenite::WebSocketStream<S>,
    dec: &mut JsonLineDecoder,
    tx: &mpsc::Sender<InsSample>,
) -> io::Result<()>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    while let Some(msg) = ws.next().await {
        let msg = msg.map_err(io::Error::other)?;
        let samples = match msg {
            Message::Text(t) => dec.handle_text(&t),
            Message::Binary(b) => match std::str::from_utf8(&b) {
                Ok(t) => dec.handle_text(t),
                Err(e) => {
                    dec.health.message();
                    dec.health.malformed(e);
                    continue;
                }
            },
            Message::Ping(p) => {
                let _ = ws.send(Message::Pong(p)).await;
                continue;
            }
            Message::Close(_) => break,
            _ => continue,
        };
        if !forward(samples, tx).await {
            break;
        }
    }
    Ok(())
}

/// JSON over WebSocket, server side: every text (or UTF-8 binary) message holds one or more lines.
pub struct JsonWsServer {
    listener: TcpListener,
    health: SourceHealth,
}

impl JsonWsServer {
    pub async fn bind(addr: impl ToSocketAddrs, health: SourceHealth) -> io::Result<Self> {
        Ok(Self {
            listener: TcpListener::bind(addr).await?,
            health,
        })
    }
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }
    pub async fn run(self, tx: mpsc::Sender<InsSample>) -> io::Result<()> {
        accept_loop(
            self.listener,
            self.health,
            tx,
            "websocket",
            |stream, peer, health, tx| async move {
                let ws = match tokio_tungstenite::accept_async(stream).await {
                    Ok(ws) => ws,
                    Err(e) => {
                        tracing::info!(%peer, error = %e, "websocket handshake failed");
                        health.malformed(e);
                        return;
                    }
                };
                let mut dec = JsonLineDecoder::new(health.clone());
                if let Err(e) = ws_loop(ws, &mut dec, &tx).await {
                    health.error(e);
                }
            },
        )
        .await
    }
}

/// JSON over WebSocket, client side (`ws://host:port/path`).
pub async fn ws_client(
    url: &str,
    health: SourceHealth,
    tx: mpsc::Sender<InsSample>,
) -> io::Result<()> {
    let (ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .map_err(io::Error::other)?;
    let mut dec = JsonLineDecoder::new(health);
    ws_loop(ws, &mut dec, &tx).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema() {
        let s = parse_line(
            r#"{"t":1.5,"x":1,"y":2,"heading_deg":90,"speed_mps":3,"brake_light":true,"extra":0}"#,
        )
        .unwrap();
        assert_eq!(&*s.vehicle, "vut");
        assert_eq!(s.position, InsPosition::Local { x: 1.0, y: 2.0 });
        assert_eq!(s.brake_light, Some(true));
        let s = parse_line(
            r#"{"t":1.5,"vehicle":"gvt","lat":46.9,"lon":16.8,"heading_deg":0,"speed_mps":0}"#,
        )
        .unwrap();
        assert!(matches!(s.position, InsPosition::Wgs84 { alt_m: None, .. }));
        assert_eq!(parse_line(&to_line(&s)).unwrap(), s);
        assert!(matches!(
            parse_line(r#"{"t":1,"heading_deg":0,"speed_mps":0}"#),
            Err(JsonError::NoPosition)
        ));
        assert!(parse_line("{").is_err());
    }

    #[test]
    fn ordering_and_counts() {
        let h = SourceHealth::new("j");
        let mut d = JsonLineDecoder::new(h.clone());
        let out = d.handle_text(
            "{\"t\":2,\"x\":0,\"y\":0,\"heading_deg\":0,\"speed_mps\":0}\n\
             {\"t\":1,\"x\":0,\"y\":0,\"heading_deg\":0,\"speed_mps\":0}\n\
             garbage\n",
        );
        assert_eq!(out.len(), 1);
        let s = h.snapshot();
        assert_eq!((s.messages, s.out_of_order, s.malformed), (3, 1, 1));
    }
}
