//! The per-carrier side of the control centre: one task per carrier owns its TCP connection
//! (connect with backoff, OSEM, TRAJ, OSTM, STRT, MTSP) and its UDP socket (HEAB out, MONR in),
//! plus the wire and time helpers the central task shares. Split from `control_centre.rs`.

use super::*;

/// Seconds from `epoch` to `t`, negative before it.
pub(super) fn signed_secs(epoch: Instant, t: Instant) -> f64 {
    if t >= epoch {
        t.duration_since(epoch).as_secs_f64()
    } else {
        -epoch.duration_since(t).as_secs_f64()
    }
}

impl CarrierSnapshot {
    /// Distance travelled from the start position at time `t_s` (interpolated MONR track,
    /// carrier-stamped times).
    pub fn travel_at(&self, t_s: f64) -> Option<f64> {
        // From where the carrier stood before it ran (its last MONR before RUNNING): the first
        // RUNNING MONR is already under way when STRT took a while to arrive.
        let first = self
            .track
            .iter()
            .position(|p| p.4 == ObjectState::Running)?;
        let p0 = self.track[first.saturating_sub(1)];
        let (x0, y0) = (p0.1, p0.2);
        let i = self.track.partition_point(|p| p.0 <= t_s);
        if i == 0 {
            return None;
        }
        let a = self.track[i - 1];
        let (x, y) = match self.track.get(i) {
            Some(b) if b.0 > a.0 => {
                let f = (t_s - a.0) / (b.0 - a.0);
                (a.1 + f * (b.1 - a.1), a.2 + f * (b.2 - a.2))
            }
            _ => (a.1, a.2),
        };
        Some(((x - x0).powi(2) + (y - y0).powi(2)).sqrt())
    }
}

/// `epoch` + `s` seconds (`s` may be negative).
pub(super) fn at_signed(epoch: Instant, s: f64) -> Instant {
    if s >= 0.0 {
        epoch + Duration::from_secs_f64(s)
    } else {
        epoch
            .checked_sub(Duration::from_secs_f64(-s))
            .unwrap_or(epoch)
    }
}

/// GPS quarter-milliseconds of week of the monotonic instant `at` (through the wall clock now).
pub(super) fn gps_qms_at(at: Instant) -> u32 {
    let now = Instant::now();
    let unix_now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    let unix_at = unix_now + signed_secs(now, at);
    gps_week_qms(unix_at).1
}

pub(super) fn publish(
    snap: &watch::Sender<Snapshot>,
    events: &broadcast::Sender<DispatchEvent>,
    e: DispatchEvent,
) {
    tracing::debug!(event = ?e, "dispatch event");
    snap.send_modify(|s| s.events.push(e.clone()));
    let _ = events.send(e);
}

pub(super) async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// How early the STRT timer wakes before spinning to the exact instant.
const TIMER_LEAD: Duration = Duration::from_micros(2500);

pub(super) struct Wire {
    cc_id: u32,
    object_id: u32,
    counter: u8,
    buf: Vec<u8>,
}

impl Wire {
    pub(super) fn encode(&mut self, m: &Message) -> &[u8] {
        self.buf.clear();
        let h = Header {
            ack_request: false,
            transmitter_id: self.cc_id,
            receiver_id: self.object_id,
            message_counter: self.counter,
        };
        self.counter = self.counter.wrapping_add(1);
        encode_frame_into(&h, m, &mut self.buf);
        &self.buf
    }
}

pub(super) fn osem_for(cfg: &ControlCentreConfig, carrier: &CarrierConfig) -> Osem {
    let (week, qms) = gps_now();
    let unix_days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    Osem {
        ids: OsemIds {
            device_id: carrier.object_id,
            sub_device_id: 0,
            control_centre_id: cfg.control_centre_id,
        },
        origin: Some(OsemOrigin::from_degrees(
            cfg.origin.lat_deg,
            cfg.origin.lon_deg,
            cfg.origin.alt_m,
            cfg.origin.rotation_deg,
        )),
        date_time: Some(OsemDateTime {
            date_yyyymmdd: yyyymmdd(unix_days),
            gps_week: week,
            gps_qms_of_week: qms,
            leap_seconds: GPS_LEAP_SECONDS,
        }),
        limits: Some(OsemLimits {
            max_way_deviation_mm: 500,
            max_lateral_deviation_mm: 500,
            max_yaw_deviation_cdeg: 1000,
            max_position_error_cm: 10,
            heab_timeout_10ms: cfg
                .heab_timeout_ms
                .map(|ms| (ms / 10).clamp(1, u16::MAX as u32) as u16)
                .unwrap_or(0),
            test_mode: 2,
            monr_rate_hz: cfg.monr_rate_hz.min(255) as u8,
            monr2_rate_hz: 0,
            heab_rate_hz: cfg.heab_rate_hz.min(255) as u8,
            max_message_length: u32::MAX,
        }),
        time_server: None,
    }
}

/// Civil date (YYYYMMDD) from days since 1970-01-01 (Howard Hinnant's algorithm).
pub(super) fn yyyymmdd(days: i64) -> u32 {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y * 10_000 + m * 100 + d) as u32
}

pub(super) async fn resolve(host: &str, port: u16) -> Option<SocketAddr> {
    lookup_host((host, port)).await.ok()?.next()
}

pub(super) async fn carrier_task(
    idx: usize,
    cfg: Arc<ControlCentreConfig>,
    mut rx: mpsc::UnboundedReceiver<CarrierCmd>,
    obs: mpsc::UnboundedSender<Obs>,
    mut heab_status: watch::Receiver<CcStatus>,
) {
    let c = &cfg.carriers[idx];
    let mut wire = Wire {
        cc_id: cfg.control_centre_id,
        object_id: c.object_id,
        counter: 0,
        buf: Vec::with_capacity(4096),
    };
    let mut heab_wire = Wire {
        cc_id: cfg.control_centre_id,
        object_id: c.object_id,
        counter: 0,
        buf: Vec::with_capacity(64),
    };
    let initial = Duration::from_millis(cfg.reconnect_initial_ms.max(1));
    let max = Duration::from_millis(cfg.reconnect_max_ms.max(cfg.reconnect_initial_ms.max(1)));
    let mut backoff = initial;
    let heab_period = Duration::from_secs_f64(1.0 / cfg.heab_rate_hz.max(1) as f64);
    // The TRAJ sent on every (re)connection: the configured one until another is uploaded.
    let mut current_traj: Option<Arc<Traj>> = cfg.trajectories.get(&c.name).cloned();

    loop {
        // --- connect (with exponential backoff), still obeying Shutdown --------------------
        let tcp_addr = resolve(&c.host, c.tcp_port).await;
        let udp_addr = resolve(&c.host, c.udp_port).await;
        let stream = match tcp_addr {
            Some(a) => tokio::time::timeout(Duration::from_secs(2), TcpStream::connect(a))
                .await
                .ok()
                .and_then(|r| r.ok()),
            None => None,
        };
        let (mut stream, udp_addr) = match (stream, udp_addr) {
            (Some(s), Some(u)) => (s, u),
            _ => {
                tracing::debug!(carrier = %c.name, ?backoff, "connect failed, retrying");
                let sleep = tokio::time::sleep(backoff);
                tokio::pin!(sleep);
                loop {
                    tokio::select! {
                        _ = &mut sleep => break,
                        m = rx.recv() => match m {
                            Some(CarrierCmd::Shutdown) | None => return,
                            Some(CarrierCmd::Traj(t)) => current_traj = Some(t),
                            Some(_) => {} // commands while disconnected are dropped
                        }
                    }
                }
                backoff = (backoff * 2).min(max);
                continue;
            }
        };
        backoff = initial;
        let _ = stream.set_nodelay(true);
        let bind: SocketAddr = if udp_addr.is_ipv4() {
            "0.0.0.0:0"
        } else {
            "[::]:0"
        }
        .parse()
        .unwrap_or_else(|_| SocketAddr::from(([0, 0, 0, 0], 0)));
        let udp = match UdpSocket::bind(bind).await {
            Ok(u) => u,
            Err(e) => {
                tracing::error!(error = %e, "cannot bind UDP socket");
                tokio::time::sleep(backoff).await;
                continue;
            }
        };

        // --- session setup: OSEM, TRAJ ---------------------------------------------------
        let osem = Message::Osem(osem_for(&cfg, c));
        if stream.write_all(wire.encode(&osem)).await.is_err() {
            continue;
        }
        let _ = obs.send(Obs::Connected(idx));
        let _ = obs.send(Obs::Sent(EventKind::OsemSent {
            carrier: c.name.clone(),
        }));
        if c.mode == CarrierMode::Trajectory {
            let traj = match (&current_traj, &c.profile) {
                (Some(t), _) => Some(Traj::clone(t)),
                (None, Some(p)) => Some(p.to_traj(idx as u16 + 1, &c.name, cfg.traj_dt_s)),
                (None, None) => None,
            };
            if let Some(traj) = traj {
                let points = traj.points.len();
                if stream
                    .write_all(wire.encode(&Message::Traj(traj)))
                    .await
                    .is_err()
                {
                    let _ = obs.send(Obs::Disconnected(idx, "write TRAJ failed".into()));
                    continue;
                }
                let _ = obs.send(Obs::Sent(EventKind::TrajUploaded {
                    carrier: c.name.clone(),
                    points,
                }));
            }
        }

        // --- session loop --------------------------------------------------------------
        let mut heab_tick = tokio::time::interval(heab_period);
        heab_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut pending_strt: Option<Instant> = None;
        // MTSP waiting for a pending STRT to go out first (the carrier ignores it before).
        let mut pending_mtsp: Option<Instant> = None;
        let mut framer = StreamFramer::new();
        let mut tcp_buf = vec![0u8; 4096];
        let mut udp_buf = vec![0u8; 2048];
        let reason: String = loop {
            tokio::select! {
                biased;
                _ = sleep_until_opt(pending_strt.map(|at| at.checked_sub(TIMER_LEAD).unwrap_or(at))) => {
                    // tokio timers have 1 ms granularity and round up: wake up early and spin
                    // for the last stretch so STRT leaves at the predicted instant.
                    let scheduled = pending_strt.take().unwrap_or_else(Instant::now);
                    while Instant::now() < scheduled {
                        std::hint::spin_loop();
                    }
                    let fired = Instant::now();
                    let (week, qms) = gps_now();
                    let strt = Message::Strt(Strt { start_qms_of_week: qms, gps_week: Some(week) });
                    let r = stream.write_all(wire.encode(&strt)).await;
                    let written = Instant::now();
                    if r.is_err() {
                        break "write STRT failed".into();
                    }
                    let _ = obs.send(Obs::StrtSent { carrier: idx, scheduled, fired, written });
                    if let Some(origin) = pending_mtsp.take() {
                        if let Err(e) = send_mtsp(&mut stream, &mut wire, idx, origin, &obs).await {
                            break e;
                        }
                    }
                }
                m = rx.recv() => match m {
                    Some(CarrierCmd::Strt { at }) => pending_strt = Some(at),
                    Some(CarrierCmd::Mtsp { origin }) => {
                        if pending_strt.is_some() {
                            pending_mtsp = Some(origin);
                        } else if let Err(e) = send_mtsp(&mut stream, &mut wire, idx, origin, &obs).await {
                            break e;
                        }
                    }
                    Some(CarrierCmd::Ostm(command)) => {
                        if stream.write_all(wire.encode(&Message::Ostm(Ostm { command }))).await.is_err() {
                            break "write OSTM failed".into();
                        }
                    }
                    Some(CarrierCmd::Traj(traj)) => {
                        let points = traj.points.len();
                        if stream.write_all(wire.encode(&Message::Traj(Traj::clone(&traj)))).await.is_err() {
                            break "write TRAJ failed".into();
                        }
                        current_traj = Some(traj);
                        let _ = obs.send(Obs::Sent(EventKind::TrajUploaded { carrier: c.name.clone(), points }));
                    }
                    Some(CarrierCmd::Shutdown) | None => {
                        quiet_close(stream, heab_period).await;
                        return;
                    }
                },
                r = heab_status.changed() => {
                    if r.is_ok() {
                        let status = *heab_status.borrow_and_update();
                        send_heab(&udp, &mut heab_wire, status, udp_addr).await;
                    }
                }
                _ = heab_tick.tick() => {
                    let status = *heab_status.borrow();
                    send_heab(&udp, &mut heab_wire, status, udp_addr).await;
                }
                r = udp.recv_from(&mut udp_buf) => {
                    if let Ok((n, _src)) = r {
                        let at = Instant::now();
                        match decode_frame(&udp_buf[..n]) {
                            Ok(f) => if let Message::Monr(m) = f.message {
                                let _ = obs.send(Obs::Monr(idx, m, at));
                            },
                            Err(e) => { let _ = obs.send(Obs::Malformed(idx, e.to_string())); }
                        }
                    }
                }
                r = stream.read(&mut tcp_buf) => {
                    match r {
                        Ok(0) => break "connection closed by carrier".into(),
                        Err(e) => break format!("read error: {e}"),
                        Ok(n) => {
                            framer.push(&tcp_buf[..n]);
                            while let Some(f) = framer.next_frame() {
                                if let Err(e) = f {
                                    let _ = obs.send(Obs::Malformed(idx, e.to_string()));
                                }
                            }
                        }
                    }
                }
            }
        };
        let _ = obs.send(Obs::Disconnected(idx, reason));
        tokio::time::sleep(backoff).await;
    }
}

/// Closes a link the way an object can take a new one: the heartbeat stops first and the TCP
/// connection is closed a few HEAB periods later (well inside the object's heartbeat timeout
/// of 10 periods). A HEAB that reaches an object after it saw its TCP connection close
/// re-arms its heartbeat check on a dead link: the stock isoObject then "times out" about a
/// second later and drops the next session, or — when that session has not been made yet —
/// cancels its own pending accept and exits (`remote_endpoint: Bad file descriptor`).
async fn quiet_close(mut stream: TcpStream, heab_period: Duration) {
    let quiet = (heab_period * 3).clamp(Duration::from_millis(30), Duration::from_millis(300));
    tokio::time::sleep(quiet).await;
    let _ = stream.shutdown().await;
}

pub(super) async fn send_mtsp(
    stream: &mut TcpStream,
    wire: &mut Wire,
    idx: usize,
    origin: Instant,
    obs: &mpsc::UnboundedSender<Obs>,
) -> Result<(), String> {
    let mtsp = Message::Mtsp(Mtsp {
        estimated_sync_qms_of_week: gps_qms_at(origin),
    });
    if stream.write_all(wire.encode(&mtsp)).await.is_err() {
        return Err("write MTSP failed".into());
    }
    let _ = obs.send(Obs::MtspSent {
        carrier: idx,
        origin,
        written: Instant::now(),
    });
    Ok(())
}

pub(super) async fn send_heab(udp: &UdpSocket, wire: &mut Wire, status: CcStatus, to: SocketAddr) {
    let (_, qms) = gps_now();
    let bytes = wire.encode(&Message::Heab(Heab {
        time_qms_of_week: qms,
        status,
    }));
    if let Err(e) = udp.send_to(bytes, to).await {
        tracing::debug!(error = %e, "HEAB send failed");
    }
}
