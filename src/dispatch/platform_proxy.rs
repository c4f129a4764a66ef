//! A real platform's motion in front of another ISO 22133 object (`scil carrier-proxy`).
//!
//! The proxy stands between the control centre and an object that follows its TRAJ perfectly
//! (the stock RI-SE isoObject): it listens on its own address, passes the control session
//! (TCP) through unchanged, relays HEAB to the object and sends each of the object's MONR on
//! with the motion of a simulated platform ([`Plant`]) in place of the object's own. The
//! object keeps its state machine, its message timing and its answers; the proxy gives it a
//! body that starts late, accelerates within limits, catches up, wanders, carries RTK error
//! and reports late, as [`super::object_dynamics`] describes.
//!
//! What the plant is told comes from what the control centre sends the object: a TRAJ gives
//! it a new path (joined from where it stands), a STRT starts it at the STRT's time, a HEAB
//! ABORT (or a normal stop while running) brakes it. The object's position, speed and
//! acceleration in its MONR are replaced by the plant's (its report: pose plus RTK error);
//! each MONR leaves the proxy its latency after the proxy received it, stamped with the
//! object's own time. A readyToArm of 2 ("unavailable") while DISARMED, which only the stock
//! object reports, goes on as 1 (ready), as a real platform's: the control centre then treats
//! the object by its configured capabilities, not as the perfect follower it identifies by
//! that value.

use std::collections::VecDeque;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UdpSocket};
use tokio::time::Instant;

use super::iso22133::{
    decode_frame, encode_frame, CcStatus, Header, Message, Monr, ObjectState, StreamFramer,
    STRT_NOW,
};
use super::object_dynamics::{Dynamics, Plant, Reference};
use super::profile::{yaw_to_cdeg, MotionState, TrajFollower};

use super::iso22133::QMS_PER_WEEK;

/// The sans-IO core: the plant, what the object last said of its state, and the MONR waiting
/// for their latency to pass. Times are seconds on the proxy's own monotonic clock.
#[derive(Debug)]
pub struct PlatformModel {
    dynamics: Dynamics,
    /// None until placed: at the configured start, or where the object first reports.
    plant: Option<Plant>,
    /// GPS seconds of week at time 0 (to read STRT times).
    gps_base_s: f64,
    object_state: ObjectState,
    late: VecDeque<(f64, Header, Monr)>,
    pub monr_in: u64,
    pub monr_out: u64,
    /// Frames from either side that did not decode (passed on as they came).
    pub malformed: u64,
}

fn at_rest(x: f64, y: f64, yaw_rad: f64) -> Option<Reference> {
    Reference::from_states(&[(
        0.0,
        MotionState {
            x,
            y,
            yaw_rad,
            speed_mps: 0.0,
            accel_mps2: 0.0,
            travel_m: 0.0,
        },
    )])
}

impl PlatformModel {
    /// A platform of `dynamics` standing at `start` (x, y, yaw in the object's frame; None:
    /// where the object first reports).
    pub fn new(dynamics: Dynamics, start: Option<(f64, f64, f64)>, gps_base_s: f64) -> Self {
        let plant = start
            .and_then(|(x, y, yaw)| at_rest(x, y, yaw))
            .map(|r| Plant::new(dynamics.clone(), r, 0.0));
        PlatformModel {
            dynamics,
            plant,
            gps_base_s,
            object_state: ObjectState::Init,
            late: VecDeque::new(),
            monr_in: 0,
            monr_out: 0,
            malformed: 0,
        }
    }

    /// Local time of a GPS qms-of-week instant, the nearest one around `now`.
    fn local_time_of(&self, now: f64, qms: u32) -> f64 {
        let now_qms = ((self.gps_base_s + now) * 4000.0).rem_euclid(QMS_PER_WEEK);
        now + super::iso22133::qms_delta_s(qms, now_qms)
    }

    /// A message of the control session, control centre to object.
    pub fn on_control(&mut self, now: f64, msg: &Message) {
        let Some(p) = &mut self.plant else { return };
        match msg {
            Message::Traj(t) => {
                if let Some(r) =
                    TrajFollower::new(t).and_then(|f| Reference::from_states(&f.states()))
                {
                    p.set_reference(r, now);
                }
            }
            Message::Strt(s) => {
                let start = if s.start_qms_of_week == STRT_NOW {
                    now
                } else {
                    now + (self.local_time_of(now, s.start_qms_of_week) - now).max(-1.0)
                };
                // The plant starts at the STRT's time (as the object's trajectory clock does).
                if let Some(p) = &mut self.plant {
                    p.start(now, start);
                }
            }
            _ => {}
        }
    }

    /// A HEAB, control centre to object: an abort brakes, a normal stop while running too.
    pub fn on_heab(&mut self, now: f64, status: CcStatus) {
        let Some(p) = &mut self.plant else { return };
        let brake = match status {
            CcStatus::Abort => !matches!(
                self.object_state,
                ObjectState::Disarmed | ObjectState::Init | ObjectState::Off
            ),
            CcStatus::NormalStop | CcStatus::TestDone => self.object_state == ObjectState::Running,
            _ => false,
        };
        if brake {
            p.brake(now);
        }
    }

    /// A MONR from the object: its motion replaced by the plant's, queued for its latency.
    pub fn on_monr(&mut self, now: f64, header: Header, mut m: Monr) {
        self.monr_in += 1;
        self.object_state = m.object_state();
        if self.plant.is_none() {
            let yaw = crate::frame::wrap_pi(m.yaw_deg().to_radians());
            self.plant =
                at_rest(m.x_m(), m.y_m(), yaw).map(|r| Plant::new(self.dynamics.clone(), r, now));
        }
        let Some(p) = &mut self.plant else { return };
        p.advance(now);
        let s = p.state();
        let (ex, ey) = p.rtk_error();
        m.x_mm = ((s.x + ex) * 1000.0).round() as i32;
        m.y_mm = ((s.y + ey) * 1000.0).round() as i32;
        m.yaw_cdeg = yaw_to_cdeg(s.yaw_rad);
        m.speed_lon_cm_s = (s.speed_mps * 100.0).round().clamp(-32768.0, 32767.0) as i16;
        m.speed_lat_cm_s = 0;
        m.acc_lon_mm_s2 = (s.accel_mps2 * 1000.0).round().clamp(-32768.0, 32767.0) as i16;
        m.acc_lat_mm_s2 = 0;
        if m.object_state() == ObjectState::Disarmed && m.ready_to_arm == 2 {
            m.ready_to_arm = 1;
        }
        // In order: a MONR never overtakes the one before it.
        let due = now + p.latency();
        let due = self.late.back().map_or(due, |(d, _, _)| due.max(*d));
        self.late.push_back((due, header, m));
    }

    /// When the next MONR is due to leave.
    pub fn next_due(&self) -> Option<f64> {
        self.late.front().map(|(d, _, _)| *d)
    }

    /// The next MONR whose latency has passed by `now`.
    pub fn pop_due(&mut self, now: f64) -> Option<(Header, Monr)> {
        if self.late.front().is_some_and(|(d, _, _)| *d <= now) {
            self.monr_out += 1;
            return self.late.pop_front().map(|(_, h, m)| (h, m));
        }
        None
    }
}

/// Where the proxy listens and which object it stands in front of.
#[derive(Debug, Clone)]
pub struct ProxyConfig {
    pub listen: IpAddr,
    pub object: IpAddr,
    pub tcp_port: u16,
    pub udp_port: u16,
    pub dynamics: Dynamics,
    /// Where the platform stands at first (x, y, yaw in the object's frame); None: where the
    /// object first reports.
    pub start: Option<(f64, f64, f64)>,
}

/// A running proxy; dropping it stops it.
pub struct ProxyHandle {
    pub tcp_addr: SocketAddr,
    pub udp_addr: SocketAddr,
    model: Arc<Mutex<PlatformModel>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl ProxyHandle {
    /// MONR received from the object and sent on.
    pub fn monr_counts(&self) -> (u64, u64) {
        let m = lock(&self.model);
        (m.monr_in, m.monr_out)
    }

    /// Run until its tasks end (CLI).
    pub async fn wait(mut self) {
        for t in self.tasks.drain(..) {
            let _ = t.await;
        }
    }
}

impl Drop for ProxyHandle {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

fn lock(m: &Mutex<PlatformModel>) -> std::sync::MutexGuard<'_, PlatformModel> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Binds the proxy's ports and runs it in the background.
pub async fn spawn(cfg: ProxyConfig) -> std::io::Result<ProxyHandle> {
    cfg.dynamics
        .validate()
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let listener = TcpListener::bind(SocketAddr::new(cfg.listen, cfg.tcp_port)).await?;
    let cc_side = UdpSocket::bind(SocketAddr::new(cfg.listen, cfg.udp_port)).await?;
    let obj_side = UdpSocket::bind(SocketAddr::new(cfg.listen, 0)).await?;
    let tcp_addr = listener.local_addr()?;
    let udp_addr = cc_side.local_addr()?;
    let t0 = Instant::now();
    let (_, gps_qms) = super::iso22133::gps_now();
    let model = Arc::new(Mutex::new(PlatformModel::new(
        cfg.dynamics.clone(),
        cfg.start,
        gps_qms as f64 / 4000.0,
    )));
    let obj_tcp = SocketAddr::new(cfg.object, super::iso22133::DEFAULT_TCP_PORT);
    let obj_udp = SocketAddr::new(cfg.object, super::iso22133::DEFAULT_UDP_PORT);
    let m = model.clone();
    let tcp_task = tokio::spawn(async move {
        while let Ok((cc, _)) = listener.accept().await {
            let m = m.clone();
            tokio::spawn(async move {
                if let Ok(obj) = TcpStream::connect(obj_tcp).await {
                    relay_control(cc, obj, m, t0).await;
                }
            });
        }
    });
    let udp_task = tokio::spawn(relay_process(cc_side, obj_side, obj_udp, model.clone(), t0));
    Ok(ProxyHandle {
        tcp_addr,
        udp_addr,
        model,
        tasks: vec![tcp_task, udp_task],
    })
}

/// The control session: bytes passed through both ways unchanged; what the control centre
/// sends is read as it passes.
async fn relay_control(
    cc: TcpStream,
    obj: TcpStream,
    model: Arc<Mutex<PlatformModel>>,
    t0: Instant,
) {
    let _ = cc.set_nodelay(true);
    let _ = obj.set_nodelay(true);
    let (mut cc_r, mut cc_w) = cc.into_split();
    let (mut obj_r, mut obj_w) = obj.into_split();
    let back = tokio::spawn(async move {
        let _ = tokio::io::copy(&mut obj_r, &mut cc_w).await;
        let _ = cc_w.shutdown().await;
    });
    let mut framer = StreamFramer::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match cc_r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        framer.push(&buf[..n]);
        while let Some(f) = framer.next_frame() {
            let now = t0.elapsed().as_secs_f64();
            match f {
                Ok(frame) => lock(&model).on_control(now, &frame.message),
                Err(_) => lock(&model).malformed += 1,
            }
        }
        if obj_w.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    let _ = obj_w.shutdown().await;
    back.abort();
}

/// The process channel: HEAB relayed to the object as it came, MONR back through the model.
async fn relay_process(
    cc_side: UdpSocket,
    obj_side: UdpSocket,
    obj_udp: SocketAddr,
    model: Arc<Mutex<PlatformModel>>,
    t0: Instant,
) {
    let mut cc: Option<SocketAddr> = None;
    let (mut a, mut b) = ([0u8; 2048], [0u8; 2048]);
    loop {
        let due = lock(&model)
            .next_due()
            .map(|t| t0 + Duration::from_secs_f64(t.max(0.0)));
        tokio::select! {
            r = cc_side.recv_from(&mut a) => {
                let Ok((n, from)) = r else { continue };
                cc = Some(from);
                let now = t0.elapsed().as_secs_f64();
                match decode_frame(&a[..n]) {
                    Ok(f) => {
                        if let Message::Heab(h) = f.message {
                            lock(&model).on_heab(now, h.status);
                        }
                    }
                    Err(_) => lock(&model).malformed += 1,
                }
                let _ = obj_side.send_to(&a[..n], obj_udp).await;
            }
            r = obj_side.recv_from(&mut b) => {
                let Ok((n, _)) = r else { continue };
                let now = t0.elapsed().as_secs_f64();
                match decode_frame(&b[..n]) {
                    Ok(f) => match f.message {
                        Message::Monr(m) => lock(&model).on_monr(now, f.header, m),
                        _ => {
                            if let Some(to) = cc {
                                let _ = cc_side.send_to(&b[..n], to).await;
                            }
                        }
                    },
                    Err(_) => lock(&model).malformed += 1,
                }
            }
            _ = async {
                match due {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending().await,
                }
            } => {}
        }
        let now = t0.elapsed().as_secs_f64();
        loop {
            let next = lock(&model).pop_due(now);
            let Some((h, m)) = next else { break };
            if let Some(to) = cc {
                let _ = cc_side
                    .send_to(&encode_frame(&h, &Message::Monr(m)), to)
                    .await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::iso22133::{Strt, Traj, TrajPoint};

    fn header() -> Header {
        Header {
            ack_request: false,
            transmitter_id: 7,
            receiver_id: 0,
            message_counter: 0,
        }
    }

    /// A MONR as the stock object sends it while running: exactly on its TRAJ.
    fn monr(state: ObjectState, x: f64, speed: f64) -> Monr {
        Monr {
            x_mm: (x * 1000.0) as i32,
            speed_lon_cm_s: (speed * 100.0) as i16,
            state: state.to_u8(),
            ready_to_arm: if state == ObjectState::Disarmed { 2 } else { 0 },
            ..Default::default()
        }
    }

    /// A straight TRAJ east from the origin: 2 m/s² to 8 m/s, then 8 m/s, 10 s in all.
    fn traj() -> Traj {
        let mut points = Vec::new();
        for i in 0..=100 {
            let t = i as f64 * 0.1;
            let (x, v, a): (f64, f64, f64) = if t < 4.0 {
                (t * t, 2.0 * t, 2.0)
            } else {
                (16.0 + 8.0 * (t - 4.0), 8.0, 0.0)
            };
            points.push(TrajPoint {
                rel_time_ms: (t * 1000.0).round() as u32,
                x_mm: (x * 1000.0).round() as i32,
                speed_lon_cm_s: (v * 100.0).round() as i16,
                acc_lon_mm_s2: (a * 1000.0).round() as i16,
                ..Default::default()
            });
        }
        Traj {
            points,
            ..Default::default()
        }
    }

    fn realistic() -> Dynamics {
        Dynamics {
            dead_time_s: 0.2,
            max_accel_mps2: 1.5,
            rtk_bias_m: 0.0,
            rtk_noise_m: 0.0,
            wander_m: 0.0,
            monr_latency_s: (0.03, 0.03),
            ..Dynamics::realistic(crate::capabilities::ObjectKind::VutRobot)
        }
    }

    /// The object reports its TRAJ point; the proxy reports a platform that starts its dead
    /// time late, accelerates within its limit, falls behind and catches up, 30 ms late.
    #[test]
    fn the_plant_replaces_the_perfect_follower_and_reports_late() {
        let mut p = PlatformModel::new(realistic(), Some((0.0, 0.0, 0.0)), 100.0);
        p.on_monr(0.0, header(), monr(ObjectState::Disarmed, 0.0, 0.0));
        assert_eq!(p.pop_due(0.0), None, "not before its latency");
        let (_, first) = p.pop_due(0.03).expect("due after 30 ms");
        assert_eq!(first.ready_to_arm, 1, "ready as a real platform");
        p.on_control(0.5, &Message::Traj(traj()));
        p.on_monr(0.6, header(), monr(ObjectState::Armed, 0.0, 0.0));
        // STRT for 1 s local (GPS 101 s of week).
        p.on_control(
            0.9,
            &Message::Strt(Strt {
                start_qms_of_week: 101 * 4000,
                gps_week: None,
            }),
        );
        let mut worst_behind = 0.0f64;
        let mut t = 1.0;
        let mut moved_at = None;
        let mut behind_at_9 = None;
        while t < 11.0 {
            let tau = t - 1.0;
            let plan_x = if tau < 4.0 {
                tau * tau
            } else {
                16.0 + 8.0 * (tau - 4.0)
            };
            p.on_monr(t, header(), monr(ObjectState::Running, plan_x, 0.0));
            while let Some((_, m)) = p.pop_due(t) {
                if moved_at.is_none() && m.speed_mps() > 0.0 {
                    moved_at = Some(t - 0.03);
                }
            }
            let s = p.plant.as_ref().map(Plant::state).expect("placed");
            worst_behind = worst_behind.max(plan_x - s.x);
            if (tau - 9.0).abs() < 0.005 {
                behind_at_9 = Some(plan_x - s.x);
            }
            assert!(s.accel_mps2 <= 1.5 + 1e-9, "accel {}", s.accel_mps2);
            t += 0.01;
        }
        let moved_at = moved_at.expect("it moved");
        assert!((moved_at - 1.2).abs() < 0.02, "moved at {moved_at}");
        assert!(
            worst_behind > 1.0,
            "behind its plan at 1.5 m/s²: {worst_behind}"
        );
        let behind_at_9 = behind_at_9.expect("a MONR 9 s after the start");
        assert!(
            behind_at_9 < 0.5 * worst_behind,
            "catching up: {behind_at_9} m behind at 9 s, {worst_behind} m at worst"
        );
        assert_eq!(p.monr_in, p.monr_out + p.late.len() as u64);
    }

    /// Placed where the object first reports when no start is given; an abort brakes it.
    #[test]
    fn placed_at_the_first_report_and_braked_by_an_abort() {
        let mut p = PlatformModel::new(realistic(), None, 100.0);
        p.on_monr(0.0, header(), monr(ObjectState::Disarmed, 5.0, 0.0));
        let s = p.plant.as_ref().map(Plant::state).expect("placed");
        assert!((s.x - 5.0).abs() < 1e-9 && s.y.abs() < 1e-9, "{s:?}");
        assert!(s.yaw_rad.abs() < 1e-9, "heading east: {}", s.yaw_rad);
        p.on_control(0.1, &Message::Traj(traj()));
        p.on_monr(0.2, header(), monr(ObjectState::Armed, 0.0, 0.0));
        p.on_control(
            0.3,
            &Message::Strt(Strt {
                start_qms_of_week: STRT_NOW,
                gps_week: None,
            }),
        );
        p.on_monr(3.0, header(), monr(ObjectState::Running, 9.0, 6.0));
        let v = p
            .plant
            .as_ref()
            .map(Plant::state)
            .expect("placed")
            .speed_mps;
        assert!(v > 2.0, "{v}");
        p.on_heab(3.0, CcStatus::Abort);
        p.on_monr(3.5, header(), monr(ObjectState::Aborting, 9.0, 6.0));
        let v2 = p
            .plant
            .as_ref()
            .map(Plant::state)
            .expect("placed")
            .speed_mps;
        assert!(v2 < v, "braking: {v} → {v2}");
    }
}
