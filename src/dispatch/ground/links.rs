//! The control centre's links to the objects, kept open for the test day.
//!
//! A control centre connects to its objects once and keeps each link (TCP for OSEM, TRAJ,
//! OSTM and STRT; UDP for HEAB and MONR) across the runs, the drives back and the next runs:
//! each motion uploads its TRAJ on the open link. Closing and reopening the link around every
//! motion is what the objects handle worst — the stock isoObject shuts its UDP socket down
//! for reading when its TCP link closes, so that every later session busy-loops on it, and a
//! heartbeat that crosses the close can make it drop the next session or exit (see
//! `quiet_close` in the control centre).
//!
//! The links are shared by every [`super::Ground`] of the process (the service makes one per
//! run): a motion takes the session of its objects (same names and addresses, same settings)
//! if one is open, else opens one; a session whose objects overlap another motion's is
//! closed first. A session is used by one motion at a time.

use std::sync::{Mutex, OnceLock};

use crate::dispatch::control_centre::{ControlCentre, ControlCentreConfig, ControlCentreHandle};

/// One open session: its control centre and what it was opened with.
struct Session {
    key: String,
    /// `host:tcp` of each object, for overlaps.
    endpoints: Vec<String>,
    h: ControlCentreHandle,
    in_use: bool,
    /// Not before this may the objects take the next motion's TRAJ (their last TRAJ holds
    /// its end pose until then).
    ready_at: Option<tokio::time::Instant>,
}

/// What makes two configurations one session: the objects (name, address, ports, id) and
/// the settings announced in OSEM or used by the supervisor; not the TRAJ.
fn key_of(cfg: &ControlCentreConfig) -> String {
    let mut c = cfg.clone();
    c.trajectories.clear();
    serde_json::to_string(&c).unwrap_or_default()
}

fn endpoints_of(cfg: &ControlCentreConfig) -> Vec<String> {
    cfg.carriers
        .iter()
        .map(|c| format!("{}:{}", c.host, c.tcp_port))
        .collect()
}

fn sessions() -> &'static Mutex<Vec<Session>> {
    static S: OnceLock<Mutex<Vec<Session>>> = OnceLock::new();
    S.get_or_init(|| Mutex::new(Vec::new()))
}

/// A session taken by a motion; [`release`] gives it back.
pub struct Taken {
    pub h: ControlCentreHandle,
    /// Opened now (the objects were connected afresh and got `cfg`'s TRAJ on connecting).
    pub fresh: bool,
}

/// Takes the open session for `cfg`'s objects, or opens one. Sessions whose objects overlap
/// and that are not in use are closed first; an overlapping session in use refuses.
pub async fn take(cfg: ControlCentreConfig) -> Result<Taken, String> {
    let key = key_of(&cfg);
    let endpoints = endpoints_of(&cfg);
    let mut closing = Vec::new();
    let found = {
        let mut all = sessions().lock().unwrap_or_else(|e| e.into_inner());
        // Sessions whose tasks ended (shut down, or the runtime that ran them is gone).
        all.retain(|s| !s.h.is_closed());
        let mut found = None;
        let mut i = 0;
        while i < all.len() {
            let s = &all[i];
            let overlaps = s.endpoints.iter().any(|e| endpoints.contains(e));
            if s.key == key && !s.in_use {
                all[i].in_use = true;
                found = Some(all[i].h.clone());
            } else if overlaps && s.in_use {
                return Err(format!(
                    "objects {} are in use by another motion",
                    s.endpoints.join(", ")
                ));
            } else if overlaps {
                closing.push(all.remove(i).h);
                continue;
            }
            i += 1;
        }
        found
    };
    for h in closing {
        h.shutdown().await;
    }
    if let Some(h) = found {
        h.set_motion_rules(cfg.lateral_limits_m.clone(), cfg.geofence.clone());
        return Ok(Taken { h, fresh: false });
    }
    let h = ControlCentre::spawn(cfg).map_err(|e| e.to_string())?;
    sessions()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Session {
            key,
            endpoints,
            h: h.clone(),
            in_use: true,
            ready_at: None,
        });
    Ok(Taken { h, fresh: true })
}

/// Gives a session back for the next motion of the same objects (its links stay open).
pub fn release(h: &ControlCentreHandle) {
    let mut all = sessions().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = all.iter_mut().find(|s| same(&s.h, h)) {
        s.in_use = false;
    }
}

/// The objects of `h` take the next motion's TRAJ from `at` on.
pub fn set_ready_at(h: &ControlCentreHandle, at: tokio::time::Instant) {
    let mut all = sessions().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = all.iter_mut().find(|s| same(&s.h, h)) {
        s.ready_at = Some(at);
    }
}

/// When the objects of `h` take the next motion's TRAJ (none: now).
pub fn ready_at(h: &ControlCentreHandle) -> Option<tokio::time::Instant> {
    let all = sessions().lock().unwrap_or_else(|e| e.into_inner());
    all.iter().find(|s| same(&s.h, h)).and_then(|s| s.ready_at)
}

/// Closes a session (its objects were lost or the day is over) and forgets it.
pub async fn close(h: &ControlCentreHandle) {
    sessions()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|s| !same(&s.h, h));
    h.shutdown().await;
}

/// Closes every session of the process (the end of a test day).
pub async fn close_all() {
    let all: Vec<Session> =
        std::mem::take(&mut *sessions().lock().unwrap_or_else(|e| e.into_inner()));
    for s in all {
        s.h.shutdown().await;
    }
}

fn same(a: &ControlCentreHandle, b: &ControlCentreHandle) -> bool {
    a.same_session(b)
}

/// The open session of these objects (`host:tcp` each), whether a motion uses it or not: its
/// links are measured between motions too.
pub fn open_for(endpoints: &[String]) -> Option<ControlCentreHandle> {
    if endpoints.is_empty() {
        return None;
    }
    let all = sessions().lock().unwrap_or_else(|e| e.into_inner());
    all.iter()
        .find(|s| !s.h.is_closed() && endpoints.iter().all(|e| s.endpoints.contains(e)))
        .map(|s| s.h.clone())
}

/// Open sessions (diagnostics, tests).
pub fn open_sessions() -> usize {
    let all = sessions().lock().unwrap_or_else(|e| e.into_inner());
    all.iter().filter(|s| !s.h.is_closed()).count()
}

/// Where each object (name, `HOST[:TCP[:UDP]]`) says it stands now: the pose of a MONR from
/// the objects' open session at most half a second old, waiting up to a second for one
/// (`None` for an object without one, or when no session is open). An object restarted or
/// moved by hand since its last motion reports where it is.
pub async fn reported_poses(objects: &[(String, String)]) -> Vec<Option<super::track::Pose>> {
    use crate::dispatch::control_centre::CarrierConfig;
    let endpoints: Vec<String> = objects
        .iter()
        .filter_map(|(name, addr)| CarrierConfig::parse_spec(&format!("{name}={addr}"), 0).ok())
        .map(|c| format!("{}:{}", c.host, c.tcp_port))
        .collect();
    let mut poses = vec![None; objects.len()];
    let Some(h) = open_for(&endpoints) else {
        return poses;
    };
    let until = tokio::time::Instant::now() + std::time::Duration::from_secs(1);
    loop {
        let snap = h.snapshot();
        let now_s = h.epoch().elapsed().as_secs_f64();
        for ((name, _), pose) in objects.iter().zip(poses.iter_mut()) {
            if let Some(c) = snap.carriers.iter().find(|c| &c.name == name) {
                if c.connected && c.last_monr_s.is_some_and(|t| now_s - t <= 0.5) {
                    *pose = Some(super::track::Pose::new(c.x, c.y, c.yaw_deg.to_radians()));
                }
            }
        }
        if poses.iter().all(Option::is_some) || tokio::time::Instant::now() >= until {
            return poses;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
