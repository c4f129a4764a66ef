//! One motion of the objects (a run, or a drive back to the start) on one control centre:
//! connect and upload each object's TRAJ, arm as one, check before the start, and record
//! every MONR (with yaw) for the results.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::broadcast;

use super::links;
use super::plan::{GroundOptions, ObjectPlan};
use super::track::Pose;
use crate::dispatch::control_centre::{
    CarrierConfig, CarrierMode, ControlCentreConfig, ControlCentreHandle, GeoOrigin, MonrSample,
    Snapshot,
};
use crate::dispatch::events::{AbortReason, EventKind, Phase};
use crate::dispatch::iso22133::ObjectState;
use crate::dispatch::safety::SafetyConfig;

/// How long after ARMED the objects may take to report their start poses.
const ARM_SETTLE: Duration = Duration::from_millis(1000);

/// After a TRAJ upload on an open link, before arming.
const TRAJ_SETTLE: Duration = Duration::from_millis(500);

/// Why the start was refused, naming the object.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[error("start refused: object {object}: {why}")]
pub struct StartRefused {
    pub object: String,
    pub why: String,
}

/// MONR per object, as received (the control centre's snapshot keeps no yaw).
pub type MonrLog = Arc<Mutex<Vec<Vec<MonrSample>>>>;

/// One motion (see the module doc).
pub struct Motion {
    pub h: ControlCentreHandle,
    pub plans: Vec<ObjectPlan>,
    pub log: MonrLog,
    recorder: tokio::task::JoinHandle<()>,
    opts: GroundOptions,
    /// Where this motion starts in the session's record (events, states, MONR count).
    pub window: Window,
    /// How long each object's TRAJ holds its end pose after its path, s.
    pub holds_s: Vec<f64>,
    /// Each object was seen to be the stock isoObject (readyToArm 2, "unavailable", while
    /// DISARMED: the reference implementation's signature).
    pub stock: Vec<bool>,
}

/// How long every object's TRAJ holds its end pose after the motion's last path is planned to
/// end, s: the stop and the reset to DISARMED ([`Motion::reset_objects`]) happen inside it.
pub const END_HOLD_S: f64 = 2.0;

/// Each object's hold: all of them end together, [`END_HOLD_S`] after the last planned end
/// (start + duration). A stock isoObject steps through its TRAJ on a sleeping thread and
/// changes state under the loop that reads it while that loop spins (standing at the end of
/// its TRAJ, armed, stopped, aborting): a NORMAL_STOP, ABORT or ALL_CLEAR that reaches it while
/// it still steps through the hold cannot crash it.
fn holds_s(plans: &[ObjectPlan]) -> Vec<f64> {
    let end = |p: &ObjectPlan| p.start_s + p.track.duration_s();
    let last = plans.iter().map(end).fold(0.0, f64::max);
    plans.iter().map(|p| END_HOLD_S + last - end(p)).collect()
}

/// `traj` with its last point held for `hold_s` more (points every 0.1 s, at rest).
fn with_hold(
    mut traj: crate::dispatch::iso22133::Traj,
    hold_s: f64,
) -> crate::dispatch::iso22133::Traj {
    let Some(last) = traj.points.last().copied() else {
        return traj;
    };
    let n = (hold_s / 0.1).ceil().max(0.0) as u32;
    for k in 1..=n {
        traj.points.push(crate::dispatch::iso22133::TrajPoint {
            rel_time_ms: last.rel_time_ms.saturating_add(k * 100),
            speed_lon_cm_s: 0,
            speed_lat_cm_s: 0,
            acc_lon_mm_s2: 0,
            acc_lat_mm_s2: 0,
            ..last
        });
    }
    traj
}

/// Where a motion starts in its session's record: the session stays open across motions.
#[derive(Debug, Clone, Default)]
pub struct Window {
    /// Control-centre seconds.
    pub t_s: f64,
    pub events: usize,
    pub monr_counts: Vec<u64>,
    pub states: Vec<Option<ObjectState>>,
}

impl Window {
    fn now(h: &ControlCentreHandle) -> Window {
        let s = h.snapshot();
        Window {
            t_s: h.epoch().elapsed().as_secs_f64(),
            events: s.events.len(),
            monr_counts: s.carriers.iter().map(|c| c.monr_count).collect(),
            states: s.carriers.iter().map(|c| c.state).collect(),
        }
    }
}

/// Every connected object reports DISARMED.
fn all_disarmed(s: &Snapshot) -> bool {
    s.carriers
        .iter()
        .all(|c| c.connected && c.state == Some(ObjectState::Disarmed))
}

impl Motion {
    /// Takes the objects' open session ([`links`]; a first motion connects them) for `plans`
    /// (each object's address from `addresses`, in the same order), uploads each object's TRAJ
    /// and waits until every object is connected, DISARMED and armable.
    pub async fn connect(
        plans: Vec<ObjectPlan>,
        addresses: &[String],
        origin: GeoOrigin,
        opts: &GroundOptions,
    ) -> Result<Motion, String> {
        let mut carriers = Vec::new();
        let mut trajectories = std::collections::BTreeMap::new();
        let holds = holds_s(&plans);
        for (i, (p, addr)) in plans.iter().zip(addresses).enumerate() {
            let mut c = CarrierConfig::parse_spec(&format!("{}={addr}", p.name), i as u32 + 1)
                .map_err(|e| format!("object {}: {e}", p.name))?;
            c.mode = CarrierMode::Trajectory;
            let traj = with_hold(p.track.to_traj(i as u16 + 1, &p.name), holds[i]);
            trajectories.insert(p.name.clone(), Arc::new(traj));
            carriers.push(c);
        }
        let cfg = ControlCentreConfig {
            origin,
            monr_rate_hz: opts.monr_rate_hz,
            heab_rate_hz: opts.heab_rate_hz,
            carriers,
            safety: SafetyConfig {
                monr_miss_limit: opts.monr_miss_limit,
                telemetry_stale_s: opts.telemetry_stale_s,
                arm_timeout_s: opts.arm_timeout.as_secs_f64(),
                motion: opts.motion,
                lag_compensation: true,
                ..SafetyConfig::default()
            },
            lateral_limits_m: opts.lateral_m.clone(),
            geofence: opts.geofence.clone(),
            traj_dt_s: opts.traj_dt_s,
            trajectories,
            link_limits: opts.link_limits,
            ..ControlCentreConfig::default()
        };
        let trajs: Vec<Arc<crate::dispatch::iso22133::Traj>> = cfg
            .carriers
            .iter()
            .filter_map(|c| cfg.trajectories.get(&c.name).cloned())
            .collect();
        let taken = links::take(cfg).await?;
        let h = taken.h;
        let log: MonrLog = Arc::new(Mutex::new(vec![Vec::new(); plans.len()]));
        let mut rx = h.monr();
        let sink = log.clone();
        let recorder = tokio::spawn(async move {
            loop {
                match rx.recv().await {
                    Ok(m) => {
                        if let Ok(mut l) = sink.lock() {
                            if let Some(v) = l.get_mut(m.carrier) {
                                if v.len() < 500_000 {
                                    v.push(m);
                                }
                            }
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        });
        let mut m = Motion {
            h,
            plans,
            log,
            recorder,
            opts: opts.clone(),
            window: Window::default(),
            holds_s: holds,
            stock: Vec::new(),
        };
        let ready = if taken.fresh {
            Ok(())
        } else {
            m.next_motion(&trajs).await
        };
        let ready = match ready {
            Ok(()) if m.h.wait_armable(opts.connect_timeout).await => Ok(()),
            Ok(()) => Err(format!(
                "objects not connected, DISARMED and armable within {:.1} s: {}",
                opts.connect_timeout.as_secs_f64(),
                m.describe()
            )),
            Err(e) => Err(e),
        };
        if let Err(e) = ready {
            // A session that could not be made ready is not handed to the next motion.
            links::close(&m.h).await;
            m.recorder.abort();
            return Err(e);
        }
        m.window = Window::now(&m.h);
        m.stock =
            m.h.snapshot()
                .carriers
                .iter()
                .map(|c| c.readiness == Some(crate::dispatch::iso22133::Readiness::Unavailable))
                .collect();
        Ok(m)
    }

    /// The session was open already (the previous motion of the same objects): every object
    /// back to DISARMED, then this motion's TRAJ uploaded on the open link.
    ///
    /// After NORMAL_STOP an ISO 22133 object goes to DISARMED by itself once it stands; one
    /// that stays in NORMAL_STOP (the stock isoObject never leaves it) is reset the way the
    /// protocol offers on an open link: HEAB ABORT, then OSTM ALL_CLEAR (ABORTING →
    /// DISARMED). The previous motion's results were taken before; this motion's events and
    /// states start after the reset.
    async fn next_motion(
        &self,
        trajs: &[Arc<crate::dispatch::iso22133::Traj>],
    ) -> Result<(), String> {
        // Until the previous motion's TRAJ have run out (their end pose held).
        if let Some(at) = links::ready_at(&self.h) {
            tokio::time::sleep_until(at).await;
        }
        self.to_disarmed().await?;
        for (i, t) in trajs.iter().enumerate() {
            self.h.upload_traj(i, t.clone());
        }
        // The stock object reads a new TRAJ while DISARMED every 200 ms: a little time before
        // arming, as on a fresh connection (whose link is measured for half a second).
        tokio::time::sleep(TRAJ_SETTLE).await;
        Ok(())
    }

    /// After the motion (its results taken): every object back to DISARMED — by itself after
    /// NORMAL_STOP, else reset with ABORT and ALL_CLEAR — while its TRAJ still holds its end
    /// pose; the next motion of these objects waits for that hold to run out.
    pub async fn reset_objects(&self) {
        let t0 = tokio::time::Instant::now();
        if let Err(e) = self.to_disarmed().await {
            tracing::warn!(error = %e, "objects not back to DISARMED after the motion");
        }
        // The holds end END_HOLD_S after the last object reached its end, which was before t0
        // when the motion ran to its end. An aborted motion ends early, but the stock object
        // steps through its whole TRAJ anyway: from each object's STRT, its path and hold (and
        // 2 % for running late).
        let s = self.h.snapshot();
        let last_end_s = s
            .carriers
            .iter()
            .zip(&self.plans)
            .zip(&self.holds_s)
            .filter_map(|((c, p), hold)| {
                c.strt_written_s
                    .map(|t| t + 1.02 * p.track.duration_s() + hold)
            })
            .fold(0.0, f64::max);
        let ready = (self.h.epoch() + Duration::from_secs_f64(last_end_s))
            .max(t0 + Duration::from_secs_f64(END_HOLD_S));
        links::set_ready_at(&self.h, ready);
    }

    /// Every connected object DISARMED and the session idle (see [`Self::reset_objects`]).
    async fn to_disarmed(&self) -> Result<(), String> {
        let h = &self.h;
        match h.snapshot().phase {
            Phase::Running => h.finish(),
            Phase::Armed | Phase::Arming => h.disarm(),
            _ => {}
        }
        let settle = self.opts.stop_timeout.min(Duration::from_millis(300));
        h.wait_for(settle, all_disarmed).await;
        for attempt in 1..=3 {
            let s = h.snapshot();
            // A lost object is reported by the wait for armable objects.
            if all_disarmed(&s) || s.carriers.iter().any(|c| !c.connected) {
                break;
            }
            let stuck = h
                .snapshot()
                .carriers
                .iter()
                .filter(|c| c.connected && c.state != Some(ObjectState::Disarmed))
                .map(|c| format!("{} {:?}", c.name, c.state))
                .collect::<Vec<_>>()
                .join(", ");
            tracing::info!(%stuck, attempt, "objects not DISARMED after the motion: ABORT, ALL_CLEAR");
            h.abort(&format!("reset before the next motion ({stuck})"));
            h.wait_for(Duration::from_secs(2), |s| {
                s.carriers.iter().all(|c| {
                    !c.connected
                        || matches!(c.state, Some(ObjectState::Aborting | ObjectState::Disarmed))
                })
            })
            .await;
            // The heartbeat back to READY first, ALL_CLEAR a few HEAB periods later: the stock
            // object handles a HEAB ABORT arriving with the ALL_CLEAR on two threads at once.
            h.heab_ready();
            let period = 1.0 / self.opts.heab_rate_hz.max(1) as f64;
            tokio::time::sleep(Duration::from_secs_f64((3.0 * period).clamp(0.03, 0.3))).await;
            h.all_clear();
            h.wait_for(Duration::from_secs(2), all_disarmed).await;
        }
        match h.snapshot().phase {
            Phase::Finished | Phase::Aborted => h.all_clear(),
            Phase::Armed | Phase::Arming => h.disarm(),
            _ => {}
        }
        if !h
            .wait_for(Duration::from_secs(2), |s| s.phase == Phase::Idle)
            .await
        {
            return Err(format!(
                "the objects' session did not come back to idle: {}",
                self.describe()
            ));
        }
        Ok(())
    }

    /// Each object's connection and latest state, for messages.
    pub fn describe(&self) -> String {
        self.h
            .snapshot()
            .carriers
            .iter()
            .map(|c| {
                format!(
                    "{}: {}, state {}",
                    c.name,
                    if c.connected {
                        "connected"
                    } else {
                        "not connected"
                    },
                    c.state.map_or("none".into(), |s| format!("{s:?}"))
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Arms every object and waits until each reports ARMED in its latest MONR.
    pub async fn arm(&self) -> Result<(), String> {
        self.h
            .arm(self.opts.arm_timeout)
            .await
            .map_err(|e| format!("{e}: {}", self.describe()))?;
        // The MONR that first says ARMED may still carry the pose from before (an object
        // updates its pose and its state separately): a short settling time.
        let end = tokio::time::Instant::now() + ARM_SETTLE;
        loop {
            match self.start_check() {
                Ok(()) => return Ok(()),
                Err(r) if tokio::time::Instant::now() >= end => return Err(r.to_string()),
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    }

    /// Whether the motion is armed as one: the control centre armed and every object ARMED
    /// in its latest MONR, that MONR fresh, and the object at the start of its TRAJ.
    pub fn start_check(&self) -> Result<(), StartRefused> {
        let s = self.h.snapshot();
        let now = self.h.epoch().elapsed().as_secs_f64();
        let fresh_s = (self.opts.monr_miss_limit as f64 + 0.5) / self.opts.monr_rate_hz as f64;
        // An abort names its cause first: the others may show ABORTING because of it.
        if s.phase == Phase::Aborted {
            if let Some((object, why)) = abort_cause(&s) {
                return Err(StartRefused { object, why });
            }
        }
        let refuse = |object: &str, why: String| StartRefused {
            object: object.to_string(),
            why,
        };
        for c in &s.carriers {
            if !c.connected {
                return Err(refuse(&c.name, why_disconnected(&s, &c.name)));
            }
            match c.last_monr_s {
                Some(t) if now - t > fresh_s => {
                    return Err(refuse(&c.name, format!("no MONR for {:.2} s", now - t)));
                }
                None => return Err(refuse(&c.name, "no MONR received".into())),
                _ => {}
            }
        }
        for c in &s.carriers {
            if c.state != Some(ObjectState::Armed) {
                return Err(refuse(
                    &c.name,
                    format!(
                        "reports {} in its latest MONR, not ARMED",
                        c.state
                            .map_or("nothing".into(), |s| format!("{s:?}").to_uppercase())
                    ),
                ));
            }
        }
        for (c, p) in s.carriers.iter().zip(&self.plans) {
            let (d, h) = Pose::new(c.x, c.y, c.yaw_deg.to_radians()).offset_to(&p.track.start());
            if d > self.opts.at_start_m || h > self.opts.at_start_deg {
                return Err(refuse(
                    &c.name,
                    format!(
                        "{d:.2} m and {h:.1}° from the start of its path (limits {} m, {}°)",
                        self.opts.at_start_m, self.opts.at_start_deg
                    ),
                ));
            }
        }
        if s.phase != Phase::Armed {
            return Err(StartRefused {
                object: "all".into(),
                why: format!("the run is {:?}, not armed", s.phase),
            });
        }
        Ok(())
    }

    /// Latest MONR pose of each object.
    pub fn poses(&self) -> Vec<Option<Pose>> {
        self.h
            .snapshot()
            .carriers
            .iter()
            .map(|c| {
                c.last_monr_s
                    .map(|_| Pose::new(c.x, c.y, c.yaw_deg.to_radians()))
            })
            .collect()
    }

    /// Every object's MONR so far.
    pub fn monr(&self) -> Vec<Vec<MonrSample>> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// HEAB ABORT to every object.
    pub fn abort(&self, reason: &str) {
        self.h.abort(reason);
    }

    /// NORMAL_STOP when running (DISARM when armed but not started), waits for the objects to
    /// leave RUNNING, returns the final snapshot.
    pub async fn stop(&self) -> Snapshot {
        let aborted = self.h.snapshot().phase == Phase::Aborted;
        crate::run::sink::carriers::stop_carriers(&self.h, aborted, self.opts.stop_timeout).await
    }

    /// Ends the motion: the links stay open for the next motion of the same objects.
    pub async fn shutdown(self) {
        self.recorder.abort();
        links::release(&self.h);
    }

    /// This motion's events (the session's record holds the motions before it too).
    pub fn events(&self, s: &Snapshot) -> Vec<crate::dispatch::events::DispatchEvent> {
        s.events.get(self.window.events..).unwrap_or(&[]).to_vec()
    }

    pub fn options(&self) -> &GroundOptions {
        &self.opts
    }
}

/// Why an object is not connected: the control centre's last disconnect event for it.
pub fn why_disconnected(s: &Snapshot, name: &str) -> String {
    s.events
        .iter()
        .rev()
        .find_map(|e| match &e.kind {
            EventKind::CarrierDisconnected { carrier, reason } if carrier == name => {
                Some(format!("disconnected ({reason})"))
            }
            _ => None,
        })
        .unwrap_or_else(|| "not connected".into())
}

/// The object an abort names and why, if it names one.
pub fn abort_cause(s: &Snapshot) -> Option<(String, String)> {
    s.events.iter().rev().find_map(|e| match &e.kind {
        EventKind::Abort { reason } => match reason {
            AbortReason::MonrLost { carrier, missed } => Some((
                carrier.clone(),
                format!("lost: {missed} consecutive MONR missing"),
            )),
            AbortReason::CarrierDisconnected { carrier } => {
                Some((carrier.clone(), why_disconnected(s, carrier)))
            }
            AbortReason::CarrierAbort { carrier } => {
                Some((carrier.clone(), "reported ABORTING".into()))
            }
            AbortReason::LeftArmed { carrier, state } => Some((
                carrier.clone(),
                format!(
                    "left ARMED before the start (now {})",
                    format!("{state:?}").to_uppercase()
                ),
            )),
            // A motion rule: its words name the object already.
            other => {
                let info = other.info();
                info.object.map(|o| (o, info.text))
            }
        },
        _ => None,
    })
}

/// Object `name`'s fault in the session now: disconnected (why), or the cause of an abort
/// that names it.
pub fn fault_of(s: &Snapshot, name: &str) -> Option<String> {
    let c = s.carriers.iter().find(|c| c.name == name)?;
    if let Some((object, why)) = abort_cause(s) {
        if object == name {
            return Some(why);
        }
    }
    (!c.connected && c.link_since_s.is_some()).then(|| why_disconnected(s, name))
}

/// Waits up to `timeout` for the start check to fail; returns the refusal (tests, watchers).
pub async fn wait_not_armed(m: &Motion, timeout: Duration) -> Option<StartRefused> {
    let end = tokio::time::Instant::now() + timeout;
    loop {
        if let Err(r) = m.start_check() {
            return Some(r);
        }
        if tokio::time::Instant::now() >= end {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
