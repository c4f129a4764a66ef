//! Carrier simulator: a thin tokio shell around the sans-IO [`TestObject`].
//!
//! Listens on TCP (control: OSEM/OSTM/STRT/TRAJ/MTSP) and UDP (HEAB in, MONR out to the HEAB's
//! source address; MTSP is accepted there too, as ATOS sends it). One control centre at a time; a new connection replaces the old one.

use super::iso22133::{
    decode_frame, encode_frame_into, Header, Message, Monr, ObjectState, StreamFramer,
};
use super::object::{ObjectConfig, ObjectOutput, TestObject};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream, UdpSocket};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

#[derive(Debug, Clone)]
pub struct SimConfig {
    pub listen: IpAddr,
    /// 0 = ephemeral (tests).
    pub tcp_port: u16,
    pub udp_port: u16,
    pub object: ObjectConfig,
    /// Print state changes to stderr.
    pub verbose: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            listen: IpAddr::V4(Ipv4Addr::LOCALHOST),
            tcp_port: super::iso22133::DEFAULT_TCP_PORT,
            udp_port: super::iso22133::DEFAULT_UDP_PORT,
            object: ObjectConfig::default(),
            verbose: false,
        }
    }
}

/// What the simulator shows from outside (tests, CLI).
#[derive(Debug, Clone, Default)]
pub struct SimStatus {
    pub state: Option<ObjectState>,
    pub connected: bool,
    pub monr_sent: u64,
    pub heab_received: u64,
    pub malformed_frames: u64,
    pub last_monr: Option<Monr>,
    /// (seconds since sim start, new state, cause)
    pub transitions: Vec<(f64, ObjectState, String)>,
    /// Trajectory time-origin shifts accepted from MTSP, seconds (positive = later).
    pub mtsp_shifts_s: Vec<f64>,
    /// Messages the object ignored: (message, reason).
    pub rejected: Vec<(String, String)>,
    /// HEAB NORMAL_STOP/TEST_DONE received outside Running (each one an error in the isoObject).
    pub unexpected_heab: u64,
}

#[derive(Debug)]
enum Control {
    PauseMonr(bool),
    Shutdown,
}

/// Handle to a running simulator.
pub struct SimHandle {
    pub tcp_addr: SocketAddr,
    pub udp_addr: SocketAddr,
    status: watch::Receiver<SimStatus>,
    ctl: mpsc::UnboundedSender<Control>,
    task: tokio::task::JoinHandle<()>,
}

impl SimHandle {
    pub fn status(&self) -> SimStatus {
        self.status.borrow().clone()
    }
    /// Stop (or resume) sending MONR while keeping everything else running.
    pub fn pause_monr(&self, paused: bool) {
        let _ = self.ctl.send(Control::PauseMonr(paused));
    }
    /// Wait until the object reaches `state` (or the timeout passes).
    pub async fn wait_state(&mut self, state: ObjectState, timeout: Duration) -> bool {
        let fut = self.status.wait_for(|s| s.state == Some(state));
        matches!(tokio::time::timeout(timeout, fut).await, Ok(Ok(_)))
    }
    /// Run until the simulator task ends (CLI).
    pub async fn wait(self) {
        let _ = self.task.await;
    }
    pub async fn shutdown(self) {
        let _ = self.ctl.send(Control::Shutdown);
        let _ = self.task.await;
    }
}

/// Bind the sockets and run the simulator in a background task.
pub async fn spawn(cfg: SimConfig) -> std::io::Result<SimHandle> {
    let listener = TcpListener::bind(SocketAddr::new(cfg.listen, cfg.tcp_port)).await?;
    let udp = UdpSocket::bind(SocketAddr::new(cfg.listen, cfg.udp_port)).await?;
    let tcp_addr = listener.local_addr()?;
    let udp_addr = udp.local_addr()?;
    let (status_tx, status_rx) = watch::channel(SimStatus::default());
    let (ctl_tx, ctl_rx) = mpsc::unbounded_channel();
    let task = tokio::spawn(run(cfg, listener, udp, status_tx, ctl_rx));
    Ok(SimHandle {
        tcp_addr,
        udp_addr,
        status: status_rx,
        ctl: ctl_tx,
        task,
    })
}

async fn read_opt(conn: &mut Option<TcpStream>, buf: &mut [u8]) -> std::io::Result<usize> {
    match conn {
        Some(s) => s.read(buf).await,
        None => std::future::pending().await,
    }
}

/// One datagram on the object's UDP port: a HEAB (which also tells where MONR go) or an MTSP.
fn on_datagram(
    obj: &mut TestObject,
    now: f64,
    bytes: &[u8],
    src: SocketAddr,
    heab_src: &mut Option<SocketAddr>,
    malformed: &mut u64,
) {
    match decode_frame(bytes) {
        Ok(frame) => match frame.message {
            Message::Heab(h) => {
                *heab_src = Some(src);
                obj.handle_heab(now, &h);
            }
            // ATOS sends MTSP on the process channel; scil on TCP.
            m @ Message::Mtsp(_) => obj.handle_tcp(now, &m),
            _ => {}
        },
        Err(e) => {
            *malformed += 1;
            tracing::warn!(error = %e, "carrier-sim: malformed UDP datagram");
        }
    }
}

async fn run(
    cfg: SimConfig,
    listener: TcpListener,
    udp: UdpSocket,
    status: watch::Sender<SimStatus>,
    mut ctl: mpsc::UnboundedReceiver<Control>,
) {
    let t0 = Instant::now();
    let now_s = || t0.elapsed().as_secs_f64();
    let (_, gps_qms) = super::iso22133::gps_now();
    let mut obj = TestObject::new(cfg.object.clone(), gps_qms as f64 / 4000.0);
    let mut conn: Option<TcpStream> = None;
    let mut framer = StreamFramer::new();
    let mut heab_src: Option<SocketAddr> = None;
    let mut paused = false;
    let mut counter: u8 = 0;
    let mut tcp_buf = vec![0u8; 64 * 1024];
    let mut udp_buf = vec![0u8; 64 * 1024];
    let mut out = Vec::with_capacity(128);
    let mut malformed: u64 = 0;
    let log = |s: &str| {
        if cfg.verbose {
            eprintln!("carrier-sim: {s}");
        }
    };

    loop {
        let deadline = obj
            .poll_timeout()
            .map(|t| t0 + Duration::from_secs_f64(t.max(0.0)));
        tokio::select! {
            acc = listener.accept() => {
                if let Ok((stream, peer)) = acc {
                    let _ = stream.set_nodelay(true);
                    if conn.is_some() {
                        obj.handle_disconnected(now_s());
                    }
                    log(&format!("control centre connected from {peer}"));
                    conn = Some(stream);
                    framer = StreamFramer::new();
                    obj.handle_connected(now_s());
                }
            }
            r = read_opt(&mut conn, &mut tcp_buf) => {
                match r {
                    Ok(0) | Err(_) => {
                        log("control centre disconnected");
                        conn = None;
                        obj.handle_disconnected(now_s());
                    }
                    Ok(n) => {
                        framer.push(&tcp_buf[..n]);
                        while let Some(f) = framer.next_frame() {
                            match f {
                                Ok(frame) => obj.handle_tcp(now_s(), &frame.message),
                                Err(e) => {
                                    malformed += 1;
                                    tracing::warn!(error = %e, "carrier-sim: malformed TCP frame");
                                }
                            }
                        }
                    }
                }
            }
            r = udp.recv_from(&mut udp_buf) => {
                if let Ok((n, src)) = r {
                    on_datagram(&mut obj, now_s(), &udp_buf[..n], src, &mut heab_src, &mut malformed);
                }
            }
            _ = sleep_until_opt(deadline) => {
                // Heartbeats that arrived while this task waited for the CPU are read before
                // the heartbeat timeout is judged (a real object's receiver runs beside it).
                while let Ok((n, src)) = udp.try_recv_from(&mut udp_buf) {
                    on_datagram(&mut obj, now_s(), &udp_buf[..n], src, &mut heab_src, &mut malformed);
                }
                obj.handle_timeout(now_s());
            }
            c = ctl.recv() => {
                match c {
                    Some(Control::PauseMonr(p)) => paused = p,
                    Some(Control::Shutdown) | None => return,
                }
            }
        }

        let mut changed = false;
        let mut last_monr = None;
        let mut transitions = Vec::new();
        let mut shifts = Vec::new();
        let mut rejected = Vec::new();
        while let Some(o) = obj.poll_output() {
            match o {
                ObjectOutput::Monr(m) => {
                    if paused {
                        continue;
                    }
                    if let Some(dst) = heab_src {
                        out.clear();
                        let h = Header {
                            ack_request: false,
                            transmitter_id: obj.id(),
                            receiver_id: 0,
                            message_counter: counter,
                        };
                        counter = counter.wrapping_add(1);
                        encode_frame_into(&h, &Message::Monr(m), &mut out);
                        let _ = udp.send_to(&out, dst).await;
                        last_monr = Some(m);
                    }
                }
                ObjectOutput::Disconnect { reason } => {
                    log(&format!("dropping connection: {reason}"));
                    conn = None;
                    heab_src = None;
                }
                ObjectOutput::StateChanged {
                    t_s,
                    from,
                    to,
                    cause,
                } => {
                    log(&format!("{t_s:.3} s: {from:?} -> {to:?} ({cause})"));
                    transitions.push((t_s, to, cause));
                    changed = true;
                }
                ObjectOutput::Retimed { t_s, shift_s } => {
                    log(&format!(
                        "{t_s:.3} s: MTSP moved the trajectory origin by {:+.2} ms",
                        shift_s * 1000.0
                    ));
                    shifts.push(shift_s);
                    changed = true;
                }
                ObjectOutput::Rejected {
                    message, reason, ..
                } => {
                    log(&format!("ignored {message}: {reason}"));
                    tracing::debug!(msg = message, %reason, "carrier-sim: message ignored");
                    rejected.push((message.to_string(), reason));
                    changed = true;
                }
            }
        }
        if changed || last_monr.is_some() {
            status.send_modify(|s| {
                s.state = Some(obj.state());
                s.connected = obj.is_connected();
                s.monr_sent = obj.monr_sent;
                s.heab_received = obj.heab_received;
                s.unexpected_heab = obj.unexpected_heab;
                s.malformed_frames = malformed + framer.malformed_frames();
                if last_monr.is_some() {
                    s.last_monr = last_monr;
                }
                s.transitions.extend(transitions);
                s.mtsp_shifts_s.extend(shifts);
                if s.rejected.len() < 1000 {
                    s.rejected.extend(rejected);
                }
            });
        }
    }
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}
