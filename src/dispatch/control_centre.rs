//! Control centre (scil side of ISO 22133): a tokio shell around the sans-IO [`Supervisor`].
//!
//! Tasks: one *central* task owns the supervisor, the snapshot and the event stream; one task
//! per carrier owns its TCP connection (connect with exponential backoff, OSEM, TRAJ, OSTM,
//! STRT, MTSP) and its UDP socket (HEAB at the configured rate, MONR received on the same
//! socket). STRT is sent by the carrier task's own timer at the scheduled instant, so the path
//! from the timer to the socket is one encode and one `write_all`.
//!
//! Start: [`ControlCentreHandle::start_at`] starts every carrier at one instant (start-only
//! configurations, the benchmark); [`ControlCentreHandle::start_carrier_at`] starts one carrier
//! (one scenario target) and may be called once per carrier while the run is going.
//!
//! Retime: [`ControlCentreHandle::retime`] sends MTSP to a started carrier. Convention: the sync
//! point is the trajectory's origin (TRAJ relative time 0), so the MTSP time (GPS qms of week)
//! is the instant the carrier's trajectory should have started — the new profile origin, not
//! the time the VUT reaches the impact point. The carrier simulator
//! ([`super::object`]) honours it by moving its trajectory time origin there (bounded shift). A
//! real carrier that expects the sync point from SYPM would need one at TRAJ time 0 (not sent).

use super::events::{DispatchEvent, EventKind, Phase};
use super::iso22133::{
    decode_frame, encode_frame_into, gps_now, gps_week_qms, CcStatus, Heab, Header, Message, Monr,
    Mtsp, ObjectState, Osem, OsemDateTime, OsemIds, OsemLimits, OsemOrigin, Ostm, OstmCommand,
    Readiness, StreamFramer, Strt, Traj, GPS_LEAP_SECONDS,
};
use super::link_health::{LinkHealth, LinkLimits, LinkMeter};
use super::profile::DummyProfile;
use super::safety::{Action, SafetyConfig, Supervisor};
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{lookup_host, TcpStream, UdpSocket};
use tokio::sync::{broadcast, mpsc, watch};
use tokio::time::Instant;

pub use crate::scenario::CarrierMode;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CarrierConfig {
    /// Name used by the scenario (`carrier = "carrier-1"`).
    pub name: String,
    /// Device id assigned in OSEM (the object's transmitter id).
    pub object_id: u32,
    /// Host name or address.
    pub host: String,
    pub tcp_port: u16,
    pub udp_port: u16,
    #[serde(default)]
    pub mode: CarrierMode,
    /// Path and speed profile to upload as TRAJ (mode `trajectory`).
    pub profile: Option<DummyProfile>,
}

impl CarrierConfig {
    /// Parse `NAME=HOST[:PORT]` (UDP port = TCP port − 1 when a TCP port is given, as with the
    /// defaults 53241/53240; `HOST:TCP:UDP` sets both).
    pub fn parse_spec(spec: &str, object_id: u32) -> Result<Self, String> {
        let (name, addr) = spec
            .split_once('=')
            .ok_or_else(|| format!("expected NAME=HOST[:PORT], got {spec:?}"))?;
        let parts: Vec<&str> = addr.split(':').collect();
        let port = |s: &str| s.parse::<u16>().map_err(|e| format!("bad port {s:?}: {e}"));
        let (host, tcp, udp) = match parts.as_slice() {
            [h] => (
                h.to_string(),
                super::iso22133::DEFAULT_TCP_PORT,
                super::iso22133::DEFAULT_UDP_PORT,
            ),
            [h, t] => {
                let t = port(t)?;
                (h.to_string(), t, t.saturating_sub(1))
            }
            [h, t, u] => (h.to_string(), port(t)?, port(u)?),
            _ => return Err(format!("cannot parse address {addr:?}")),
        };
        if name.is_empty() || host.is_empty() {
            return Err(format!("empty name or host in {spec:?}"));
        }
        Ok(Self {
            name: name.to_string(),
            object_id,
            host,
            tcp_port: tcp,
            udp_port: udp,
            mode: CarrierMode::Trajectory,
            profile: None,
        })
    }
}

/// Origin of the local frame (the map's geoReference origin).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct GeoOrigin {
    pub lat_deg: f64,
    pub lon_deg: f64,
    pub alt_m: f64,
    /// Rotation of the local frame, degrees.
    pub rotation_deg: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ControlCentreConfig {
    pub control_centre_id: u32,
    pub origin: GeoOrigin,
    /// MONR rate requested in OSEM (1..=1000 Hz; the OSEM field is u8, so ≤ 255 is encodable).
    pub monr_rate_hz: u16,
    /// HEAB rate (1..=1000 Hz, ≤ 255 encodable in OSEM).
    pub heab_rate_hz: u16,
    /// Heartbeat timeout announced in OSEM, ms (None = the object's default, 10 HEAB periods).
    pub heab_timeout_ms: Option<u32>,
    pub carriers: Vec<CarrierConfig>,
    /// Stale-telemetry limit, n consecutive MONR, arm timeout (`monr_period_s` is derived).
    pub safety: SafetyConfig,
    pub reconnect_initial_ms: u64,
    pub reconnect_max_ms: u64,
    /// TRAJ sampling step.
    pub traj_dt_s: f64,
    /// Link-health limits (MONR loss, latency, rate); None: the defaults for the HEAB rate.
    #[serde(default)]
    pub link_limits: Option<LinkLimits>,
    /// Prepared TRAJ per carrier name, uploaded instead of one sampled from the carrier's
    /// profile (a VUT robot's planned path, a drive back to the start).
    #[serde(skip)]
    pub trajectories: std::collections::BTreeMap<String, Arc<Traj>>,
    /// An object's own lateral limit from its path, by carrier name (others: the site's,
    /// `safety.motion.lateral_m`). Per motion: an open session takes them with the TRAJ.
    #[serde(skip)]
    pub lateral_limits_m: std::collections::BTreeMap<String, f64>,
    /// The site's geofence: an object outside it aborts the run.
    #[serde(skip)]
    pub geofence: Option<Arc<super::motion_watch::Geofence>>,
}

impl Default for ControlCentreConfig {
    fn default() -> Self {
        Self {
            control_centre_id: 0xC0,
            origin: GeoOrigin::default(),
            monr_rate_hz: 100,
            heab_rate_hz: 100,
            heab_timeout_ms: None,
            carriers: Vec::new(),
            safety: SafetyConfig::default(),
            reconnect_initial_ms: 100,
            reconnect_max_ms: 5000,
            traj_dt_s: 0.05,
            link_limits: None,
            trajectories: Default::default(),
            lateral_limits_m: Default::default(),
            geofence: None,
        }
    }
}

/// Validate an ISO 22133 message rate.
pub fn validate_rate(what: &str, hz: u16) -> Result<(), String> {
    if !(1..=1000).contains(&hz) {
        return Err(format!("{what} must be 1..1000 Hz, got {hz}"));
    }
    if hz > u8::MAX as u16 {
        return Err(format!(
            "{what} {hz} Hz does not fit the OSEM u8 rate field (max 255)"
        ));
    }
    Ok(())
}

impl ControlCentreConfig {
    pub fn validate(&self) -> Result<(), String> {
        validate_rate("MONR rate", self.monr_rate_hz)?;
        validate_rate("HEAB rate", self.heab_rate_hz)?;
        if self.carriers.is_empty() {
            return Err("no carriers configured".into());
        }
        for (i, c) in self.carriers.iter().enumerate() {
            if self.carriers[..i].iter().any(|d| d.name == c.name) {
                return Err(format!("duplicate carrier name {}", c.name));
            }
            if c.mode == CarrierMode::Trajectory
                && c.profile.is_none()
                && !self.trajectories.contains_key(&c.name)
            {
                return Err(format!(
                    "carrier {} in trajectory mode needs a profile",
                    c.name
                ));
            }
        }
        self.effective_safety().validate()
    }

    fn effective_safety(&self) -> SafetyConfig {
        SafetyConfig {
            monr_period_s: 1.0 / self.monr_rate_hz.max(1) as f64,
            ..self.safety
        }
    }
}

pub use snapshot::CarrierSnapshot;

/// One MONR as it arrived, for consumers that follow an object live (the VUT robot's MONR
/// as the run's telemetry, the dashboard map).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MonrSample {
    /// Index of the carrier in the configuration.
    pub carrier: usize,
    /// The object's own time stamp on the control centre's clock (seconds since its epoch).
    pub t_s: f64,
    pub x: f64,
    pub y: f64,
    /// Map yaw, degrees.
    pub yaw_deg: f64,
    pub speed_mps: f64,
    pub state: ObjectState,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Snapshot {
    pub phase: Phase,
    pub carriers: Vec<CarrierSnapshot>,
    pub events: Vec<DispatchEvent>,
}

enum Cmd {
    Arm,
    Disarm,
    StartAt {
        at: Instant,
        decided: Instant,
    },
    StartCarrierAt {
        carrier: String,
        at: Instant,
        decided: Instant,
    },
    Retime {
        carrier: String,
        origin: Instant,
    },
    Estop(String),
    Finish,
    AllClear,
    Telemetry(Instant),
    Traj(usize, Arc<Traj>),
    /// A motion's own lateral limits (by carrier) and the site's geofence.
    MotionRules(
        std::collections::BTreeMap<String, f64>,
        Option<Arc<super::motion_watch::Geofence>>,
    ),
    HeabReady,
    Shutdown,
}

enum Obs {
    Connected(usize),
    Disconnected(usize, String),
    Monr(usize, Monr, Instant),
    StrtSent {
        carrier: usize,
        scheduled: Instant,
        fired: Instant,
        written: Instant,
    },
    MtspSent {
        carrier: usize,
        origin: Instant,
        written: Instant,
    },
    Malformed(usize, String),
    Sent(EventKind),
}

enum CarrierCmd {
    Ostm(OstmCommand),
    Strt { at: Instant },
    Mtsp { origin: Instant },
    Traj(Arc<Traj>),
    Shutdown,
}

/// Handle to a running control centre. Cheap to clone.
#[derive(Clone)]
pub struct ControlCentreHandle {
    epoch: Instant,
    cmd: mpsc::UnboundedSender<Cmd>,
    events: broadcast::Sender<DispatchEvent>,
    monr: broadcast::Sender<MonrSample>,
    snapshot: watch::Receiver<Snapshot>,
    tasks: Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    arm_when_readiness_unavailable: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum DispatchError {
    #[error("invalid configuration: {0}")]
    Config(String),
    #[error("arming refused: {0}")]
    ArmRefused(String),
    #[error("timed out waiting for {0}")]
    Timeout(String),
    #[error("control centre stopped")]
    Stopped,
}

pub struct ControlCentre;

impl ControlCentre {
    /// Validate the configuration and start the tasks (connections are made in the background).
    pub fn spawn(cfg: ControlCentreConfig) -> Result<ControlCentreHandle, DispatchError> {
        cfg.validate().map_err(DispatchError::Config)?;
        let epoch = Instant::now();
        let names: Vec<String> = cfg.carriers.iter().map(|c| c.name.clone()).collect();
        let arm_when_readiness_unavailable = cfg.safety.arm_when_readiness_unavailable;
        let mut sup = Supervisor::new(cfg.effective_safety(), names.clone())
            .map_err(DispatchError::Config)?;
        // Each object's path as it is uploaded, its own lateral limit, the site's geofence.
        for (i, c) in cfg.carriers.iter().enumerate() {
            if c.mode == CarrierMode::Trajectory {
                match (cfg.trajectories.get(&c.name), &c.profile) {
                    (Some(t), _) => sup.set_path(i, t),
                    (None, Some(p)) => {
                        sup.set_path(i, &p.to_traj(i as u16 + 1, &c.name, cfg.traj_dt_s))
                    }
                    (None, None) => {}
                }
            }
            sup.set_lateral_limit(i, cfg.lateral_limits_m.get(&c.name).copied());
        }
        sup.set_geofence(cfg.geofence.clone());
        let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
        let (obs_tx, obs_rx) = mpsc::unbounded_channel();
        let (ev_tx, _) = broadcast::channel(4096);
        let (monr_tx, _) = broadcast::channel(4096);
        let (heab_tx, heab_rx) = watch::channel(CcStatus::Ready);
        let snap = Snapshot {
            phase: Phase::Idle,
            carriers: names
                .iter()
                .map(|n| CarrierSnapshot {
                    name: n.clone(),
                    ..Default::default()
                })
                .collect(),
            events: Vec::new(),
        };
        let (snap_tx, snap_rx) = watch::channel(snap);
        let cfg = Arc::new(cfg);
        let mut tasks = Vec::new();
        let mut carrier_txs = Vec::new();
        for i in 0..cfg.carriers.len() {
            let (tx, rx) = mpsc::unbounded_channel();
            carrier_txs.push(tx);
            tasks.push(tokio::spawn(carrier_task(
                i,
                cfg.clone(),
                rx,
                obs_tx.clone(),
                heab_rx.clone(),
            )));
        }
        let link = LinkSetup {
            limits: cfg
                .link_limits
                .unwrap_or_else(|| LinkLimits::for_heab_rate(cfg.heab_rate_hz)),
            monr_rate_hz: cfg.monr_rate_hz as f64,
        };
        tasks.push(tokio::spawn(central_task(
            epoch,
            link,
            sup,
            cmd_rx,
            obs_rx,
            carrier_txs,
            heab_tx,
            snap_tx,
            ev_tx.clone(),
            monr_tx.clone(),
        )));
        Ok(ControlCentreHandle {
            epoch,
            cmd: cmd_tx,
            events: ev_tx,
            monr: monr_tx,
            snapshot: snap_rx,
            tasks: Arc::new(std::sync::Mutex::new(tasks)),
            arm_when_readiness_unavailable,
        })
    }
}

impl ControlCentreHandle {
    /// Instant that event times (`t_s`) count from.
    pub fn epoch(&self) -> Instant {
        self.epoch
    }

    fn send(&self, c: Cmd) {
        let _ = self.cmd.send(c);
    }

    /// Waits until every carrier could be armed ([`CarrierSnapshot::armable`] with this
    /// control centre's `arm_when_readiness_unavailable`); false on timeout. Use this before
    /// [`Self::arm`] instead of testing `ready_to_arm` (which is false for the stock isoObject).
    pub async fn wait_armable(&self, timeout: Duration) -> bool {
        let ok = self.arm_when_readiness_unavailable;
        // … and each link measured for half a second, so arming judges it on real figures.
        self.wait_for(timeout, |s| {
            s.carriers.iter().all(|c| {
                c.armable(ok)
                    && matches!((c.link_since_s, c.last_monr_s), (Some(a), Some(b)) if b - a >= 0.5)
            })
        })
        .await
    }

    /// The next motion's own lateral limits (by carrier name) and the site's geofence (an open
    /// session kept for the next motion takes them with its TRAJ).
    pub fn set_motion_rules(
        &self,
        lateral_limits_m: std::collections::BTreeMap<String, f64>,
        geofence: Option<Arc<super::motion_watch::Geofence>>,
    ) {
        self.send(Cmd::MotionRules(lateral_limits_m, geofence));
    }

    /// Ask every carrier to arm (returns at once; see [`Self::arm`]).
    pub fn request_arm(&self) {
        self.send(Cmd::Arm);
    }

    /// Arm and wait until every carrier reports ARMED and ready-to-arm.
    pub async fn arm(&self, timeout: Duration) -> Result<(), DispatchError> {
        let mut ev = self.events.subscribe();
        self.request_arm();
        let wait = async {
            loop {
                match ev.recv().await {
                    Ok(e) => match e.kind {
                        EventKind::Armed => return Ok(()),
                        EventKind::ArmRefused { reason } => {
                            return Err(DispatchError::ArmRefused(reason))
                        }
                        _ => {}
                    },
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(_) => return Err(DispatchError::Stopped),
                }
            }
        };
        tokio::time::timeout(timeout, wait)
            .await
            .map_err(|_| DispatchError::Timeout("ARMED".into()))?
    }

    pub fn disarm(&self) {
        self.send(Cmd::Disarm);
    }

    /// Send STRT to every carrier at `at` (a timer in each carrier task fires then).
    pub fn start_at(&self, at: Instant) {
        self.send(Cmd::StartAt {
            at,
            decided: Instant::now(),
        });
    }

    /// Send STRT to the carrier called `carrier` at `at` (a timer in its task fires then). The
    /// first start of a run starts the run; later ones start further carriers. An unknown or
    /// already started carrier is refused (`StartRefused` event).
    pub fn start_carrier_at(&self, carrier: &str, at: Instant) {
        self.send(Cmd::StartCarrierAt {
            carrier: carrier.to_string(),
            at,
            decided: Instant::now(),
        });
    }

    /// Send MTSP to a started carrier: its trajectory origin becomes `origin` (see the module
    /// docs for the convention). Refused (`RetimeRefused` event) unless the run is going and the
    /// carrier was started.
    pub fn retime(&self, carrier: &str, origin: Instant) {
        self.send(Cmd::Retime {
            carrier: carrier.to_string(),
            origin,
        });
    }

    /// Send STRT now.
    pub fn start_now(&self) {
        let now = Instant::now();
        self.send(Cmd::StartAt {
            at: now,
            decided: now,
        });
    }

    /// Operator e-stop: HEAB ABORT to every carrier.
    pub fn abort(&self, reason: &str) {
        self.send(Cmd::Estop(reason.to_string()));
    }

    /// Normal end of the run (HEAB NORMAL_STOP).
    pub fn finish(&self) {
        self.send(Cmd::Finish);
    }

    /// HEAB READY while the run stays aborted (before [`Self::all_clear`]).
    pub fn heab_ready(&self) {
        self.send(Cmd::HeabReady);
    }

    /// ALL_CLEAR after an abort or a finished run.
    pub fn all_clear(&self) {
        self.send(Cmd::AllClear);
    }

    /// A new VUT telemetry sample arrived now (feeds the stale-telemetry rule).
    pub fn telemetry(&self) {
        self.send(Cmd::Telemetry(Instant::now()));
    }

    /// Uploads `traj` to carrier `carrier` (index) on its open link; it is also the TRAJ
    /// sent when the link is made again.
    pub fn upload_traj(&self, carrier: usize, traj: Arc<Traj>) {
        self.send(Cmd::Traj(carrier, traj));
    }

    /// Whether `other` is a handle of the same control centre.
    pub fn same_session(&self, other: &ControlCentreHandle) -> bool {
        self.cmd.same_channel(&other.cmd)
    }

    /// Whether the control centre's tasks have ended (shut down, or their runtime is gone).
    pub fn is_closed(&self) -> bool {
        self.cmd.is_closed()
    }

    pub fn events(&self) -> broadcast::Receiver<DispatchEvent> {
        self.events.subscribe()
    }

    /// Every MONR from now on, as it arrives.
    pub fn monr(&self) -> broadcast::Receiver<MonrSample> {
        self.monr.subscribe()
    }

    pub fn snapshot(&self) -> Snapshot {
        self.snapshot.borrow().clone()
    }

    /// `f` of the snapshot as it is, without copying it (its MONR tracks and events grow
    /// with the run). Keep `f` short: the control centre waits to update it meanwhile.
    pub fn peek<R>(&self, f: impl FnOnce(&Snapshot) -> R) -> R {
        f(&self.snapshot.borrow())
    }

    /// Wait until `pred` holds for the snapshot.
    pub async fn wait_for(&self, timeout: Duration, pred: impl FnMut(&Snapshot) -> bool) -> bool {
        let mut rx = self.snapshot.clone();
        let ok = matches!(
            tokio::time::timeout(timeout, rx.wait_for(pred)).await,
            Ok(Ok(_))
        );
        ok
    }

    pub async fn wait_phase(&self, phase: Phase, timeout: Duration) -> bool {
        self.wait_for(timeout, |s| s.phase == phase).await
    }

    pub async fn wait_carrier_state(
        &self,
        carrier: &str,
        state: ObjectState,
        timeout: Duration,
    ) -> bool {
        self.wait_for(timeout, |s| {
            s.carriers
                .iter()
                .any(|c| c.name == carrier && c.state == Some(state))
        })
        .await
    }

    pub async fn shutdown(&self) {
        self.send(Cmd::Shutdown);
        let tasks: Vec<_> = match self.tasks.lock() {
            Ok(mut t) => t.drain(..).collect(),
            Err(_) => Vec::new(),
        };
        for t in tasks {
            let _ = t.await;
        }
    }
}

/// How the central task judges the carriers' links.
struct LinkSetup {
    limits: LinkLimits,
    monr_rate_hz: f64,
}

#[allow(clippy::too_many_arguments)]
async fn central_task(
    epoch: Instant,
    link: LinkSetup,
    mut sup: Supervisor,
    mut cmd_rx: mpsc::UnboundedReceiver<Cmd>,
    mut obs_rx: mpsc::UnboundedReceiver<Obs>,
    carriers: Vec<mpsc::UnboundedSender<CarrierCmd>>,
    heab: watch::Sender<CcStatus>,
    snap: watch::Sender<Snapshot>,
    events: broadcast::Sender<DispatchEvent>,
    monr: broadcast::Sender<MonrSample>,
) {
    let secs = |t: Instant| t.saturating_duration_since(epoch).as_secs_f64();
    let unavailable_ok = sup.config().arm_when_readiness_unavailable;
    let n = carriers.len();
    let mut meters: Vec<LinkMeter> = (0..n)
        .map(|_| LinkMeter::new(link.monr_rate_hz, 1.0))
        .collect();
    let mut warned: Vec<bool> = vec![false; n];
    loop {
        let deadline = sup
            .poll_timeout()
            .map(|t| epoch + Duration::from_secs_f64(t.max(0.0)));
        tokio::select! {
            biased;
            c = cmd_rx.recv() => {
                let now = secs(Instant::now());
                match c {
                    Some(Cmd::Arm) => sup.request_arm(now),
                    Some(Cmd::Disarm) => sup.request_disarm(now),
                    Some(Cmd::StartAt { at, decided }) => sup.request_start(secs(decided), secs(at)),
                    Some(Cmd::StartCarrierAt { carrier, at, decided }) => match sup.carrier_index(&carrier) {
                        Some(i) => sup.request_start_carrier(secs(decided), i, secs(at)),
                        None => publish(&snap, &events, DispatchEvent { t_s: now, kind: EventKind::StartRefused {
                            reason: format!("no carrier {carrier}"),
                        }}),
                    },
                    Some(Cmd::Retime { carrier, origin }) => match sup.carrier_index(&carrier) {
                        // The origin may precede the control centre's epoch only in theory.
                        Some(i) => sup.request_retime(now, i, signed_secs(epoch, origin)),
                        None => publish(&snap, &events, DispatchEvent { t_s: now, kind: EventKind::RetimeRefused {
                            carrier, reason: "no such carrier".into(),
                        }}),
                    },
                    Some(Cmd::Estop(r)) => sup.estop(now, &r),
                    Some(Cmd::Finish) => sup.finish(now),
                    Some(Cmd::AllClear) => sup.all_clear(now),
                    Some(Cmd::Telemetry(t)) => sup.on_sample(secs(t)),
                    Some(Cmd::HeabReady) => sup.heab_ready(),
                    Some(Cmd::MotionRules(lateral, fence)) => {
                        for i in 0..n {
                            let name = snap.borrow().carriers[i].name.clone();
                            sup.set_lateral_limit(i, lateral.get(&name).copied());
                        }
                        sup.set_geofence(fence);
                    }
                    Some(Cmd::Traj(i, t)) => if let Some(c) = carriers.get(i) {
                        sup.set_path(i, &t);
                        let _ = c.send(CarrierCmd::Traj(t));
                    },
                    Some(Cmd::Shutdown) | None => {
                        for c in &carriers {
                            let _ = c.send(CarrierCmd::Shutdown);
                        }
                        return;
                    }
                }
            }
            o = obs_rx.recv() => {
                let Some(o) = o else { return };
                let now = secs(Instant::now());
                match o {
                    Obs::Connected(i) => {
                        sup.on_connected(now, i);
                        snap.send_modify(|s| s.carriers[i].connected = true);
                    }
                    Obs::Disconnected(i, reason) => {
                        if let Some(m) = meters.get_mut(i) {
                            m.reset();
                        }
                        sup.on_disconnected(now, i, &reason);
                        snap.send_modify(|s| {
                            s.carriers[i].connected = false;
                            s.carriers[i].state = None;
                            s.carriers[i].link_since_s = None;
                        });
                    }
                    Obs::Monr(i, m, at) => {
                        let t = secs(at);
                        let state = m.object_state();
                        // The control centre's GPS time at the MONR's arrival.
                        let (_, qms_now) = gps_now();
                        let arrival_gps = qms_now as f64 / 4000.0 - at.elapsed().as_secs_f64();
                        let (t_carrier, health) = match meters.get_mut(i) {
                            Some(meter) => (
                                meter.on_monr(t, arrival_gps, m.time_qms_of_week),
                                meter.health(t),
                            ),
                            None => (t, LinkHealth::default()),
                        };
                        sup.on_link(i, health.refusal(&link.limits, link.monr_rate_hz));
                        sup.on_monr(t, i, state, m.readiness(), m.error_status);
                        sup.on_position(t, t_carrier, i, (m.x_m(), m.y_m()), m.speed_mps());
                        let lag = sup.lag(i);
                        let phase = sup.phase();
                        // Warned once while a run degrades (again after it recovered).
                        let warning = (phase != Phase::Idle)
                            .then(|| health.warning(&link.limits))
                            .flatten();
                        if let Some(w) = warned.get_mut(i) {
                            match (&warning, *w) {
                                (Some(measure), false) => {
                                    *w = true;
                                    let name = snap.borrow().carriers[i].name.clone();
                                    publish(&snap, &events, DispatchEvent { t_s: t, kind: EventKind::LinkDegraded {
                                        carrier: name, measure: measure.clone(), link: health,
                                    }});
                                }
                                (None, true) if health.monr > 0 => *w = false,
                                _ => {}
                            }
                        }
                        snap.send_modify(|s| {
                            let c = &mut s.carriers[i];
                            if c.state != Some(state) {
                                c.states_seen.push((t, state));
                            }
                            c.state = Some(state);
                            // "Readiness allows arming": 1, or 2 (unavailable) when accepted.
                            c.ready_to_arm = match m.readiness() {
                                Readiness::Ready => true,
                                Readiness::Unavailable => unavailable_ok,
                                Readiness::NotReady => false,
                            };
                            c.readiness = Some(m.readiness());
                            c.x = m.x_m();
                            c.y = m.y_m();
                            c.yaw_deg = m.yaw_deg();
                            c.speed_mps = m.speed_mps();
                            c.last_monr_s = Some(t);
                            c.link = health;
                            c.link_since_s.get_or_insert(t);
                            c.monr_count += 1;
                            c.lag = lag;
                            if c.strt_written_s.is_some() && c.start_position.is_none() {
                                c.start_position = Some((c.x, c.y));
                            }
                            if phase != Phase::Idle && c.track.len() < 200_000 {
                                c.track.push((t_carrier, c.x, c.y, c.speed_mps, state));
                            }
                        });
                        let _ = monr.send(MonrSample {
                            carrier: i,
                            t_s: t_carrier,
                            x: m.x_m(),
                            y: m.y_m(),
                            yaw_deg: m.yaw_deg(),
                            speed_mps: m.speed_mps(),
                            state,
                        });
                    }
                    Obs::StrtSent { carrier, scheduled, fired, written } => {
                        let latency_us = written.saturating_duration_since(scheduled).as_secs_f64() * 1e6;
                        let timer_late_us = fired.saturating_duration_since(scheduled).as_secs_f64() * 1e6;
                        let (scheduled_s, written_s) = (secs(scheduled), secs(written));
                        snap.send_modify(|s| {
                            let c = &mut s.carriers[carrier];
                            c.strt_scheduled_s = Some(scheduled_s);
                            c.strt_written_s = Some(written_s);
                            c.strt_latency_us = Some(latency_us);
                            c.strt_timer_late_us = Some(timer_late_us);
                        });
                        let name = snap.borrow().carriers[carrier].name.clone();
                        publish(&snap, &events, DispatchEvent { t_s: written_s, kind: EventKind::StrtSent {
                            carrier: name, scheduled_s, written_s, latency_us, timer_late_us,
                        }});
                    }
                    Obs::MtspSent { carrier, origin, written } => {
                        let (origin_s, written_s) = (signed_secs(epoch, origin), secs(written));
                        snap.send_modify(|s| {
                            let c = &mut s.carriers[carrier];
                            c.mtsp_origin_s = Some(origin_s);
                            c.mtsp_count += 1;
                        });
                        let name = snap.borrow().carriers[carrier].name.clone();
                        publish(&snap, &events, DispatchEvent { t_s: written_s, kind: EventKind::MtspSent {
                            carrier: name, origin_s, written_s,
                        }});
                    }
                    Obs::Malformed(i, error) => {
                        snap.send_modify(|s| s.carriers[i].malformed_frames += 1);
                        let name = snap.borrow().carriers[i].name.clone();
                        tracing::warn!(carrier = %name, %error, "malformed frame");
                        publish(&snap, &events, DispatchEvent { t_s: now, kind: EventKind::MalformedFrame { carrier: name, error } });
                    }
                    Obs::Sent(kind) => publish(&snap, &events, DispatchEvent { t_s: now, kind }),
                }
            }
            _ = sleep_until_opt(deadline) => {
                sup.handle_timeout(secs(Instant::now()));
            }
        }
        while let Some(a) = sup.poll_action() {
            match a {
                Action::Ostm { carrier, command } => {
                    if let Some(c) = carriers.get(carrier) {
                        let _ = c.send(CarrierCmd::Ostm(command));
                    }
                }
                Action::Strt { carrier, at_s } => {
                    if let Some(c) = carriers.get(carrier) {
                        let _ = c.send(CarrierCmd::Strt {
                            at: epoch + Duration::from_secs_f64(at_s.max(0.0)),
                        });
                    }
                }
                Action::Mtsp { carrier, origin_s } => {
                    if let Some(c) = carriers.get(carrier) {
                        let _ = c.send(CarrierCmd::Mtsp {
                            origin: at_signed(epoch, origin_s),
                        });
                    }
                }
                Action::HeabStatus(st) => {
                    heab.send_if_modified(|s| {
                        let changed = *s != st;
                        *s = st;
                        changed
                    });
                }
                Action::Event { t_s, kind } => {
                    if let EventKind::PhaseChanged { to, .. } = &kind {
                        let to = *to;
                        snap.send_modify(|s| {
                            s.phase = to;
                            if to == Phase::Arming {
                                for c in &mut s.carriers {
                                    c.track.clear();
                                    c.strt_written_s = None;
                                    c.start_position = None;
                                    c.mtsp_origin_s = None;
                                    c.mtsp_count = 0;
                                }
                            }
                        });
                    }
                    publish(&snap, &events, DispatchEvent { t_s, kind });
                }
            }
        }
    }
}

mod carrier_link;
mod snapshot;
use carrier_link::*;

/// The instant of `s` seconds on a control centre's clock (its [`ControlCentreHandle::epoch`]
/// plus `s`; before the epoch when negative): where a [`MonrSample`]'s time stamp falls on
/// this host's monotonic clock.
pub fn instant_of(epoch: Instant, s: f64) -> Instant {
    at_signed(epoch, s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(yyyymmdd(0), 19700101);
        assert_eq!(yyyymmdd(19111), 20220429);
    }

    #[test]
    fn rates_and_specs() {
        assert!(validate_rate("x", 0).is_err());
        assert!(validate_rate("x", 1001).is_err());
        assert!(validate_rate("x", 100).is_ok());
        let c = CarrierConfig::parse_spec("carrier-1=127.0.0.1:6000", 1).expect("spec");
        assert_eq!((c.tcp_port, c.udp_port), (6000, 5999));
        let c = CarrierConfig::parse_spec("c=localhost", 1).expect("spec");
        assert_eq!((c.tcp_port, c.udp_port), (53241, 53240));
        let c = CarrierConfig::parse_spec("c=h:1:2", 1).expect("spec");
        assert_eq!((c.tcp_port, c.udp_port), (1, 2));
        assert!(CarrierConfig::parse_spec("nohost", 1).is_err());
    }
}
