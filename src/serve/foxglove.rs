//! Live view for Foxglove / Lichtblick: a `foxglove.websocket.v1` server
//! (`scil serve --foxglove 127.0.0.1:8765`, config key `foxglove_bind`).
//!
//! The run layer publishes through a [`FoxgloveTap`] (one per run, from [`FoxgloveHub::tap`]):
//! `tap.sample(&engine, &sample)` after the engine handled a VUT sample, `tap.output(&o)` for
//! each engine output. Publishing is a `tokio::sync::broadcast` send: it never blocks and never
//! fails when nobody listens, so clients come and go without touching the run. A client that
//! falls behind skips messages (and gets a `status` warning) instead of slowing the run.
//!
//! Protocol (docs/protocols.md): on connect the server sends `serverInfo` and `advertise` of
//! the [`CHANNELS`] (ids 1…n, JSON with JSON Schemas); the client sends `subscribe`
//! (`{"op":"subscribe","subscriptions":[{"id","channelId"}]}`) and `unsubscribe`
//! (`{"op":"unsubscribe","subscriptionIds":[…]}`); data goes out as binary frames
//! `0x01 | u32 subscription id | u64 log time ns | JSON payload` (little-endian). A client that
//! subscribes to the lanes gets the current run's lanes at once.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::broadcast;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message as WsMessage;

use crate::record::messages::{ch, Encoder, Message, Snapshot, CHANNELS};
use crate::record::messages::{MESSAGE_ENCODING, SCHEMA_ENCODING};
use crate::sample::Sample;
use crate::scenario::engine::{Engine, Output};

/// Subprotocols accepted (the SDK's newer name carries the same content).
pub const SUBPROTOCOLS: [&str; 2] = ["foxglove.websocket.v1", "foxglove.sdk.v1"];

/// Messages of the active run, fanned out to every connected client.
pub struct FoxgloveHub {
    tx: broadcast::Sender<Arc<Message>>,
    /// The active run's lanes (sent to each new lanes subscriber).
    lanes: Mutex<Option<Arc<Message>>>,
}

impl FoxgloveHub {
    /// A hub keeping up to `capacity` messages for slow clients.
    pub fn new(capacity: usize) -> Arc<FoxgloveHub> {
        let (tx, _) = broadcast::channel(capacity.max(16));
        Arc::new(FoxgloveHub {
            tx,
            lanes: Mutex::new(None),
        })
    }

    /// A publisher for one run (call at arm/start with the run's scenario and map).
    pub fn tap(self: &Arc<Self>, enc: Encoder) -> FoxgloveTap {
        FoxgloveTap {
            hub: self.clone(),
            enc,
            last_t: None,
        }
    }

    /// Publishes one message (no-op without clients).
    pub fn publish(&self, m: Message) {
        let m = Arc::new(m);
        if m.channel == ch::LANES {
            if let Ok(mut l) = self.lanes.lock() {
                *l = Some(m.clone());
            }
        }
        let _ = self.tx.send(m);
    }

    /// Connected clients.
    pub fn clients(&self) -> usize {
        self.tx.receiver_count()
    }
}

/// One run's publisher into a [`FoxgloveHub`].
pub struct FoxgloveTap {
    hub: Arc<FoxgloveHub>,
    enc: Encoder,
    last_t: Option<f64>,
}

impl FoxgloveTap {
    /// After `engine.handle_sample(s)` for a VUT sample. Without connected clients this costs
    /// next to nothing (no snapshot, no encoding).
    pub fn sample(&mut self, engine: &Engine, s: &Sample) {
        if self.last_t.is_some() && self.hub.clients() == 0 {
            self.last_t = Some(s.time_s);
            return;
        }
        self.snapshot(&Snapshot::from_engine(engine, s));
    }

    pub fn snapshot(&mut self, snap: &Snapshot) {
        if self.last_t.is_none() {
            if let Some(m) = self.enc.lanes_message(snap.vut.time_s) {
                self.hub.publish(m);
            }
        }
        self.last_t = Some(snap.vut.time_s);
        // Nobody watching: skip the encoding (the lanes above stay latched for later clients).
        if self.hub.clients() == 0 {
            return;
        }
        for m in self.enc.sample(snap) {
            self.hub.publish(m);
        }
    }

    /// For every engine output (command or event).
    pub fn output(&mut self, o: &Output) {
        if self.hub.clients() == 0 {
            return;
        }
        let m = self.enc.output(self.last_t.unwrap_or(0.0), o);
        self.hub.publish(m);
    }
}

/// A run's sink into the hub: the tap is made at arm time with the run's scenario and map.
/// Clients that come and go never reach the run: publishing is a non-blocking broadcast.
pub struct FoxgloveSink {
    hub: Arc<FoxgloveHub>,
    tap: Option<FoxgloveTap>,
}

impl FoxgloveSink {
    pub fn new(hub: &Arc<FoxgloveHub>) -> FoxgloveSink {
        FoxgloveSink {
            hub: hub.clone(),
            tap: None,
        }
    }
}

impl crate::run::Sink for FoxgloveSink {
    fn name(&self) -> &'static str {
        "foxglove"
    }

    fn arm<'a>(
        &'a mut self,
        ctx: crate::run::sink::ArmCtx<'a>,
    ) -> futures_util::future::BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            let enc = Encoder::new(Some(&ctx.setup.scenario), ctx.setup.map.as_deref());
            self.tap = Some(self.hub.tap(enc));
            Ok(())
        })
    }

    fn sample(&mut self, _ctx: &crate::run::sink::SinkCtx<'_>, engine: &Engine, s: &Sample) {
        if let Some(t) = self.tap.as_mut() {
            t.sample(engine, s);
        }
    }

    fn output(&mut self, _ctx: &crate::run::sink::SinkCtx<'_>, o: &Output) {
        if let Some(t) = self.tap.as_mut() {
            t.output(o);
        }
    }
}

/// A running Foxglove WebSocket server.
pub struct FoxgloveServer {
    pub addr: SocketAddr,
    pub hub: Arc<FoxgloveHub>,
    pub task: tokio::task::JoinHandle<()>,
}

/// Binds `bind` and serves `hub` in the background.
pub async fn spawn(bind: &str, hub: Arc<FoxgloveHub>) -> anyhow::Result<FoxgloveServer> {
    let listener = TcpListener::bind(bind)
        .await
        .map_err(|e| anyhow::anyhow!("foxglove: cannot listen on {bind}: {e}"))?;
    let addr = listener.local_addr()?;
    let h = hub.clone();
    let task = tokio::spawn(async move {
        loop {
            match listener.accept().await {
                Ok((stream, peer)) => {
                    let h = h.clone();
                    tokio::spawn(async move {
                        if let Err(e) = client(stream, h).await {
                            tracing::debug!("foxglove client {peer}: {e}");
                        }
                    });
                }
                Err(e) => {
                    tracing::warn!("foxglove accept: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
            }
        }
    });
    Ok(FoxgloveServer { addr, hub, task })
}

/// The `advertise` message of every channel (ids 1…n).
pub fn advertise() -> Value {
    let channels: Vec<Value> = CHANNELS
        .iter()
        .enumerate()
        .map(|(i, c)| {
            json!({"id": i + 1, "topic": c.topic, "encoding": MESSAGE_ENCODING,
                   "schemaName": c.schema_name, "schema": c.schema,
                   "schemaEncoding": SCHEMA_ENCODING})
        })
        .collect();
    json!({"op": "advertise", "channels": channels})
}

fn server_info() -> Value {
    json!({
        "op": "serverInfo", "name": concat!("scil ", env!("CARGO_PKG_VERSION")),
        "capabilities": [], "supportedEncodings": [MESSAGE_ENCODING], "metadata": {},
        "sessionId": uuid::Uuid::new_v4().to_string()
    })
}

fn status(level: u8, message: &str) -> WsMessage {
    WsMessage::Text(json!({"op": "status", "level": level, "message": message}).to_string())
}

/// Binary message data frame.
pub fn data_frame(subscription: u32, m: &Message) -> Vec<u8> {
    let mut b = Vec::with_capacity(13 + m.data.len());
    b.push(0x01);
    b.extend_from_slice(&subscription.to_le_bytes());
    b.extend_from_slice(&m.log_time_ns.to_le_bytes());
    b.extend_from_slice(&m.data);
    b
}

// The handshake callback's error type is tungstenite's `ErrorResponse` (an HTTP response).
#[allow(clippy::result_large_err)]
async fn client(stream: TcpStream, hub: Arc<FoxgloveHub>) -> anyhow::Result<()> {
    let pick = |req: &Request, mut resp: Response| -> Result<Response, ErrorResponse> {
        let offered = req
            .headers()
            .get_all("Sec-WebSocket-Protocol")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .find(|p| SUBPROTOCOLS.contains(p))
            .map(str::to_string);
        if let Some(p) = offered {
            if let Ok(v) = HeaderValue::from_str(&p) {
                resp.headers_mut().insert("Sec-WebSocket-Protocol", v);
            }
        }
        Ok(resp)
    };
    let ws = tokio_tungstenite::accept_hdr_async(stream, pick).await?;
    let (mut tx, mut rx) = ws.split();
    let mut data = hub.tx.subscribe();
    tx.send(WsMessage::Text(server_info().to_string())).await?;
    tx.send(WsMessage::Text(advertise().to_string())).await?;
    // channel index → subscription ids
    let mut subs: HashMap<usize, Vec<u32>> = HashMap::new();
    loop {
        tokio::select! {
            incoming = rx.next() => {
                let Some(incoming) = incoming else { return Ok(()) };
                match incoming? {
                    WsMessage::Text(t) => {
                        let reply = handle_op(&t, &mut subs, &hub);
                        for r in reply {
                            tx.send(r).await?;
                        }
                    }
                    WsMessage::Close(_) => return Ok(()),
                    _ => {}
                }
            }
            m = data.recv() => match m {
                Ok(m) => {
                    if let Some(ids) = subs.get(&m.channel) {
                        for id in ids {
                            tx.send(WsMessage::Binary(data_frame(*id, &m))).await?;
                        }
                    }
                }
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tx.send(status(1, &format!("client too slow: skipped {n} messages"))).await?;
                }
                Err(broadcast::error::RecvError::Closed) => return Ok(()),
            },
        }
    }
}

/// Applies one client text frame; returns frames to send back (errors as `status`).
fn handle_op(text: &str, subs: &mut HashMap<usize, Vec<u32>>, hub: &FoxgloveHub) -> Vec<WsMessage> {
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return vec![status(2, "message is not JSON")];
    };
    let mut out = Vec::new();
    match v.get("op").and_then(Value::as_str) {
        Some("subscribe") => {
            // The protocol's list form, or a single {id, channelId}.
            let list: Vec<Value> = match v.get("subscriptions").and_then(Value::as_array) {
                Some(l) => l.clone(),
                None => vec![v.clone()],
            };
            for s in list {
                let id = s
                    .get("id")
                    .and_then(Value::as_u64)
                    .and_then(|x| u32::try_from(x).ok());
                let chan = s.get("channelId").and_then(Value::as_u64);
                let idx = chan
                    .and_then(|c| usize::try_from(c).ok())
                    .and_then(|c| c.checked_sub(1));
                match (id, idx) {
                    (Some(id), Some(idx)) if idx < CHANNELS.len() => {
                        for ids in subs.values_mut() {
                            ids.retain(|x| *x != id);
                        }
                        subs.entry(idx).or_default().push(id);
                        if idx == ch::LANES {
                            let latched = hub.lanes.lock().ok().and_then(|l| l.clone());
                            if let Some(m) = latched {
                                out.push(WsMessage::Binary(data_frame(id, &m)));
                            }
                        }
                    }
                    _ => out.push(status(2, &format!("bad subscription {s}"))),
                }
            }
        }
        Some("unsubscribe") => {
            let ids: Vec<u64> = v
                .get("subscriptionIds")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default();
            for ids_of in subs.values_mut() {
                ids_of.retain(|x| !ids.contains(&u64::from(*x)));
            }
        }
        Some(op) => out.push(status(1, &format!("unsupported op {op}"))),
        None => out.push(status(2, "missing op")),
    }
    out
}
