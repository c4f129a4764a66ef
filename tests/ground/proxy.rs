//! A MONR-altering proxy between scil and a stock isoObject: the stock object always follows
//! its TRAJ, so a positioning fault is made on the wire. The proxy listens on its own loopback
//! address (ISO 22133's TCP 53241 and UDP 53240), passes the TCP session through unchanged and
//! relays HEAB to the object and MONR back. From `after_moving_s` after the object first
//! reports RUNNING at walking pace or more, each MONR's position is moved sideways (to the right of its reported yaw)
//! by `lateral_mps` times the time since the drift began. The proxy notes when the drift began
//! and when the first HEAB with the control centre's ABORT passed it.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use scil::dispatch::iso22133::{decode_frame, encode_frame, CcStatus, Message, ObjectState};
use tokio::net::{TcpListener, TcpStream, UdpSocket};

/// What the proxy saw, with wall-clock instants.
#[derive(Debug, Default, Clone)]
pub(crate) struct Seen {
    pub(crate) first_moving: Option<Instant>,
    pub(crate) drift_began: Option<Instant>,
    pub(crate) first_abort: Option<Instant>,
    /// The largest offset applied to a MONR position, metres.
    pub(crate) max_offset_m: f64,
    pub(crate) monr_relayed: u64,
}

pub(crate) struct MonrProxy {
    pub(crate) seen: Arc<Mutex<Seen>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for MonrProxy {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

impl MonrProxy {
    pub(crate) fn seen(&self) -> Seen {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Starts the proxy on `listen_ip` for the stock object on `object_ip`.
pub(crate) async fn start(
    listen_ip: &str,
    object_ip: &str,
    after_moving_s: f64,
    lateral_mps: f64,
) -> MonrProxy {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let tcp = TcpListener::bind((listen_ip, 53241))
        .await
        .expect("proxy TCP port");
    let obj_tcp: SocketAddr = format!("{object_ip}:53241").parse().expect("address");
    let tcp_task = tokio::spawn(async move {
        while let Ok((mut from_cc, _)) = tcp.accept().await {
            tokio::spawn(async move {
                if let Ok(mut to_obj) = TcpStream::connect(obj_tcp).await {
                    let _ = from_cc.set_nodelay(true);
                    let _ = to_obj.set_nodelay(true);
                    let _ = tokio::io::copy_bidirectional(&mut from_cc, &mut to_obj).await;
                }
            });
        }
    });
    let cc_side = UdpSocket::bind((listen_ip, 53240))
        .await
        .expect("proxy UDP port");
    let obj_side = UdpSocket::bind((listen_ip, 0))
        .await
        .expect("proxy's object-side UDP socket");
    let obj_udp: SocketAddr = format!("{object_ip}:53240").parse().expect("address");
    let s = seen.clone();
    let udp_task = tokio::spawn(async move {
        let mut cc: Option<SocketAddr> = None;
        let (mut a, mut b) = ([0u8; 2048], [0u8; 2048]);
        loop {
            tokio::select! {
                r = cc_side.recv_from(&mut a) => {
                    let Ok((n, from)) = r else { continue };
                    cc = Some(from);
                    if let Ok(f) = decode_frame(&a[..n]) {
                        if let Message::Heab(h) = f.message {
                            if h.status == CcStatus::Abort {
                                let mut g = s.lock().unwrap_or_else(|e| e.into_inner());
                                g.first_abort.get_or_insert_with(Instant::now);
                            }
                        }
                    }
                    let _ = obj_side.send_to(&a[..n], obj_udp).await;
                }
                r = obj_side.recv_from(&mut b) => {
                    let Ok((n, _)) = r else { continue };
                    let Some(to) = cc else { continue };
                    let out = match decode_frame(&b[..n]) {
                        Ok(f) => match f.message {
                            Message::Monr(mut m) => {
                                let now = Instant::now();
                                let mut g = s.lock().unwrap_or_else(|e| e.into_inner());
                                if m.object_state() == ObjectState::Running && m.speed_mps() > 0.3 {
                                    g.first_moving.get_or_insert(now);
                                }
                                let began = g.first_moving.and_then(|t| {
                                    (now >= t + Duration::from_secs_f64(after_moving_s))
                                        .then(|| *g.drift_began.get_or_insert(now))
                                });
                                if let Some(t) = began {
                                    let d = lateral_mps * now.duration_since(t).as_secs_f64();
                                    let right = (m.yaw_deg() - 90.0).to_radians();
                                    m.x_mm += (d * right.cos() * 1000.0).round() as i32;
                                    m.y_mm += (d * right.sin() * 1000.0).round() as i32;
                                    g.max_offset_m = g.max_offset_m.max(d);
                                }
                                g.monr_relayed += 1;
                                encode_frame(&f.header, &Message::Monr(m))
                            }
                            _ => b[..n].to_vec(),
                        },
                        Err(_) => b[..n].to_vec(),
                    };
                    let _ = cc_side.send_to(&out, to).await;
                }
            }
        }
    });
    MonrProxy {
        seen,
        tasks: vec![tcp_task, udp_task],
    }
}
