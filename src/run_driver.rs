//! The one async run driver: the sans-IO [`Engine`] fed from a sample channel.
//!
//! Used by `scil replay --carrier` (through [`crate::replay_live::drive_live`]) and by every
//! `scil serve` run, replay or live source alike. The shell around the engine:
//!
//! * Samples arrive on a tokio channel (a CSV reader thread, or a live ingest task).
//! * Engine timers are slept with tokio until the wall instant mapped from sample time
//!   ([`Clock`]), so a predicted trigger fires between samples and a stale-telemetry rule fires
//!   when the samples stop. [`Pace::Recorded`] maps from the first sample at the replay speed and
//!   waits for each sample's instant; [`Pace::Live`] re-anchors the mapping at every sample's
//!   arrival and applies samples as they come; [`Pace::Recorded`] at [`Speed::Max`] has no wall
//!   mapping at all (timers fire only at the next sample, exactly as [`crate::replay::drive`]).
//! * With a [`LiveDispatch`], engine commands become ISO 22133 control-centre calls
//!   (`Command::Start` → STRT to the target's carrier at the predicted instant,
//!   `Command::Retime` → MTSP, `Command::Abort` → HEAB ABORT), every
//!   sample feeds the control centre's stale-telemetry rule, and an abort raised by the control
//!   centre stops the run.
//! * An external stop request aborts the engine (and so the carriers) at once, or finishes the
//!   run normally (a live source has no end of its own).

use std::time::Duration;

use serde::Serialize;
use tokio::sync::{broadcast, mpsc, watch};
use tokio::time::Instant;

use crate::dispatch::events::{DispatchEvent, EventKind};
use crate::dispatch::live::LiveDispatch;
use crate::frame::Interface;
use crate::replay::{ReplayError, Speed};
use crate::sample::{InsSample, Sample};
use crate::scenario::engine::{Command, Engine, Output};

/// How sample time relates to wall time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pace {
    /// Recorded data: sample time is mapped to wall time from the first sample at the speed
    /// (each sample waits for its instant); `Speed::Max`: no waiting, no wall mapping.
    Recorded(Speed),
    /// Live data: samples are applied on arrival; the mapping is re-anchored at every arrival,
    /// so timers between samples fire at "last arrival + (t − last sample time)".
    Live,
}

/// Options of [`drive`].
#[derive(Debug, Clone)]
pub struct DriveConfig {
    pub pace: Pace,
    /// Wake the engine's timers this early when the next sample is already known (recorded
    /// pace only; see [`crate::replay_live`]).
    pub strt_lead: Duration,
    /// A sample that cannot be put on the map is counted (hook) and skipped instead of ending
    /// the run with an error (live sources).
    pub skip_bad_samples: bool,
}

impl Default for DriveConfig {
    fn default() -> Self {
        DriveConfig {
            pace: Pace::Recorded(Speed::Max),
            strt_lead: Duration::ZERO,
            skip_bad_samples: false,
        }
    }
}

/// Sample time ↔ wall time.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    anchor: Option<(f64, Instant)>,
    /// None: no wall mapping (as fast as possible).
    speed: Option<f64>,
}

impl Clock {
    pub fn new(pace: Pace) -> Clock {
        let speed = match pace {
            Pace::Recorded(Speed::Max) => None,
            Pace::Recorded(Speed::Factor(f)) if f > 0.0 && f.is_finite() => Some(f),
            Pace::Recorded(Speed::Factor(_)) | Pace::Live => Some(1.0),
        };
        Clock {
            anchor: None,
            speed,
        }
    }

    pub fn anchor(&mut self, t_s: f64, at: Instant) {
        self.anchor = Some((t_s, at));
    }

    /// Wall instant of sample time `t_s` (None without a mapping or before the first sample).
    pub fn wall(&self, t_s: f64) -> Option<Instant> {
        let speed = self.speed?;
        let (t0, w0) = self.anchor?;
        let d = (t_s - t0) / speed;
        Some(if d >= 0.0 {
            w0 + Duration::from_secs_f64(d.min(1e9))
        } else {
            w0.checked_sub(Duration::from_secs_f64((-d).min(1e9)))
                .unwrap_or(w0)
        })
    }

    /// Sample time of a wall instant.
    pub fn sample_time(&self, at: Instant) -> Option<f64> {
        let speed = self.speed?;
        let (t0, w0) = self.anchor?;
        let d = if at >= w0 {
            at.duration_since(w0).as_secs_f64()
        } else {
            -w0.duration_since(at).as_secs_f64()
        };
        Some(t0 + d * speed)
    }
}

/// A start command as the driver saw it.
#[derive(Debug, Clone, Serialize)]
pub struct StartRecord {
    pub target: String,
    pub carrier: Option<String>,
    /// Predicted instant (sample time base).
    pub at_s: f64,
    /// When the engine decided (sample time base, from the wall clock).
    pub decided_s: f64,
    /// Whether the control centre was asked (each start goes to its target's carrier).
    pub sent: bool,
    #[serde(skip)]
    pub decided_wall: Option<Instant>,
}

/// A retime of a target's profile origin (after the fact, from the exact crossing).
#[derive(Debug, Clone, Serialize)]
pub struct RetimeRecord {
    pub target: String,
    pub origin_s: f64,
    pub correction_ms: f64,
    /// MTSP handed to the control centre (its `MtspSent`/`RetimeRefused` event tells more).
    pub mtsp_sent: bool,
}

/// What the driver did, besides feeding the engine.
#[derive(Debug, Default)]
pub struct LiveDrive {
    pub samples: u64,
    /// Samples skipped because they could not be put on the map (`skip_bad_samples`).
    pub bad_samples: u64,
    /// Sample time of the last applied sample.
    pub last_t: Option<f64>,
    pub last_sample_wall: Option<Instant>,
    pub starts: Vec<StartRecord>,
    pub retimes: Vec<RetimeRecord>,
    /// Abort raised by the control centre (not by the engine), with its wall instant.
    pub cc_abort: Option<(Instant, String)>,
    /// Abort commanded by the engine (its own rule, or the external stop).
    pub engine_abort: Option<(Instant, String)>,
    /// The external stop request, when one ended the run.
    pub stopped: Option<StopRequest>,
    /// The source failed (the engine was left as it was: the caller decides).
    pub error: Option<ReplayError>,
}

impl LiveDrive {
    pub fn aborted(&self) -> bool {
        self.cc_abort.is_some() || self.engine_abort.is_some()
    }
}

/// What the caller sees of a drive.
pub trait DriveHooks {
    /// Every engine output, after the dispatch saw it.
    fn output(&mut self, o: Output);
    /// After each applied sample (and its outputs).
    fn sample(&mut self, _engine: &Engine, _s: &Sample) {}
    /// A sample that could not be put on the map (only with `skip_bad_samples`).
    fn bad_sample(&mut self, _ins: &InsSample, _error: &str) {}
}

impl<F: FnMut(Output)> DriveHooks for F {
    fn output(&mut self, o: Output) {
        self(o)
    }
}

/// What an external stop asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum StopRequest {
    /// Abort with this reason (the engine aborts; carriers get HEAB ABORT).
    Abort(String),
    /// End normally at the current sample time (the engine finishes).
    Finish,
}

enum Interrupt {
    /// The control centre aborted (its own rule).
    Cc(String),
    /// External stop.
    Stop(StopRequest),
}

async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}

/// The next abort the control centre reports (pending forever without one).
async fn next_cc_abort(ev: &mut Option<broadcast::Receiver<DispatchEvent>>) -> String {
    let Some(rx) = ev.as_mut() else {
        return std::future::pending().await;
    };
    loop {
        match rx.recv().await {
            Ok(DispatchEvent {
                kind: EventKind::Abort { reason },
                ..
            }) => {
                return serde_json::to_string(&reason).unwrap_or_else(|_| format!("{reason:?}"));
            }
            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
            Err(broadcast::error::RecvError::Closed) => return "control centre stopped".into(),
        }
    }
}

/// The external stop request once it is set (pending forever without one).
async fn next_stop(stop: &mut Option<watch::Receiver<Option<StopRequest>>>) -> StopRequest {
    loop {
        let Some(rx) = stop.as_mut() else {
            return std::future::pending().await;
        };
        if let Some(r) = rx.borrow_and_update().clone() {
            return r;
        }
        if rx.changed().await.is_err() {
            // Sender gone without a stop: nothing can stop us from outside any more.
            *stop = None;
        }
    }
}

fn stop_now(stop: &Option<watch::Receiver<Option<StopRequest>>>) -> Option<StopRequest> {
    stop.as_ref().and_then(|rx| rx.borrow().clone())
}

/// Sleeps until `at` unless interrupted first.
async fn sleep_or_interrupt(
    at: Option<Instant>,
    ev: &mut Option<broadcast::Receiver<DispatchEvent>>,
    stop: &mut Option<watch::Receiver<Option<StopRequest>>>,
) -> Option<Interrupt> {
    tokio::select! {
        biased;
        r = next_stop(stop) => Some(Interrupt::Stop(r)),
        r = next_cc_abort(ev) => Some(Interrupt::Cc(r)),
        _ = sleep_until_opt(at) => None,
    }
}

/// Turns one engine output into control-centre calls (and records starts/retimes).
fn dispatch_output(
    out: &Output,
    live: Option<&mut LiveDispatch>,
    clock: &Clock,
    d: &mut LiveDrive,
) {
    let Output::Command(c) = out else { return };
    match c {
        Command::Start {
            target,
            carrier,
            at_s,
        } => {
            let now = Instant::now();
            // Each start goes to its target's carrier (per-carrier STRT).
            let sent = match live {
                Some(live) => {
                    live.start_carrier(carrier.as_deref().unwrap_or(target), *at_s);
                    true
                }
                None => false,
            };
            d.starts.push(StartRecord {
                target: target.clone(),
                carrier: carrier.clone(),
                at_s: *at_s,
                decided_s: clock.sample_time(now).unwrap_or(f64::NAN),
                sent,
                decided_wall: Some(now),
            });
        }
        Command::Retime {
            target,
            carrier,
            origin_s,
            correction_s,
        } => {
            // MTSP to the target's carrier with the new profile origin.
            let mtsp_sent = match live {
                Some(live) => live.retime(carrier.as_deref().unwrap_or(target), *origin_s),
                None => false,
            };
            d.retimes.push(RetimeRecord {
                target: target.clone(),
                origin_s: *origin_s,
                correction_ms: correction_s * 1000.0,
                mtsp_sent,
            });
        }
        Command::Abort { reason } => {
            if let Some(live) = live {
                live.abort(reason);
            }
            d.engine_abort
                .get_or_insert((Instant::now(), reason.clone()));
        }
    }
}

/// Drives `engine` from `samples` until the channel closes (the engine finishes), the engine
/// or the control centre aborts, `stop` is set (the engine aborts or finishes) or the
/// source fails (`error` set; the engine is left as it is). With `dispatch`, the carriers must
/// be armed already.
pub async fn drive<E: Into<ReplayError>, H: DriveHooks + ?Sized>(
    samples: &mut mpsc::Receiver<Result<InsSample, E>>,
    interface: &Interface,
    engine: &mut Engine,
    mut dispatch: Option<&mut LiveDispatch>,
    stop: Option<watch::Receiver<Option<StopRequest>>>,
    cfg: &DriveConfig,
    hooks: &mut H,
) -> LiveDrive {
    let mut d = LiveDrive::default();
    let mut ev = dispatch.as_ref().map(|l| l.handle.events());
    let mut stop = stop;
    let live_pace = cfg.pace == Pace::Live;
    let mut clock = Clock::new(cfg.pace);
    let lead = if live_pace {
        Duration::ZERO
    } else {
        cfg.strt_lead
    };

    // Flush the engine's outputs; true if the run must stop (engine aborted).
    macro_rules! flush {
        () => {{
            while let Some(o) = engine.poll_output() {
                dispatch_output(&o, dispatch.as_deref_mut(), &clock, &mut d);
                hooks.output(o);
            }
            d.aborted()
        }};
    }
    macro_rules! interrupted {
        ($i:expr) => {{
            match $i {
                Interrupt::Cc(reason) => {
                    let now = Instant::now();
                    let t = clock.sample_time(now).or(d.last_t).unwrap_or(0.0);
                    d.cc_abort = Some((now, reason.clone()));
                    // The engine records the abort; its Abort command is not sent back.
                    engine.abort(t, &format!("control centre abort: {reason}"));
                    while let Some(o) = engine.poll_output() {
                        if !matches!(o, Output::Command(Command::Abort { .. })) {
                            dispatch_output(&o, dispatch.as_deref_mut(), &clock, &mut d);
                        }
                        hooks.output(o);
                    }
                }
                Interrupt::Stop(req) => {
                    match &req {
                        // Aborts at the current sample time; the Abort command reaches the
                        // carriers.
                        StopRequest::Abort(reason) => engine.abort(d.last_t.unwrap_or(0.0), reason),
                        StopRequest::Finish => engine.finish(d.last_t.unwrap_or(0.0)),
                    }
                    d.stopped = Some(req);
                    flush!();
                }
            }
            return d;
        }};
    }

    loop {
        if let Some(r) = stop_now(&stop) {
            interrupted!(Interrupt::Stop(r));
        }
        // Next sample; engine timers, control-centre aborts and the stop are served meanwhile.
        let s = loop {
            let timer = if d.samples > 0 {
                engine.poll_timeout()
            } else {
                None
            };
            let wake = timer.and_then(|t| clock.wall(t));
            tokio::select! {
                biased;
                r = next_stop(&mut stop) => interrupted!(Interrupt::Stop(r)),
                r = next_cc_abort(&mut ev) => interrupted!(Interrupt::Cc(r)),
                item = samples.recv() => match item {
                    None => break None,
                    Some(Err(e)) => {
                        d.error = Some(e.into());
                        return d;
                    }
                    Some(Ok(ins)) => match interface.to_map(&ins) {
                        Ok(s) => break Some(s),
                        Err(e) => {
                            let msg = format!("sample at t={}: {e}", ins.time_s);
                            if cfg.skip_bad_samples {
                                d.bad_samples += 1;
                                hooks.bad_sample(&ins, &msg);
                            } else {
                                d.error = Some(ReplayError::Other(anyhow::anyhow!(msg)));
                                return d;
                            }
                        }
                    },
                },
                _ = sleep_until_opt(wake) => {
                    if let Some(t) = timer {
                        engine.handle_timeout(t);
                        if flush!() {
                            return d;
                        }
                    }
                }
            }
        };
        let Some(s) = s else { break };
        let now = Instant::now();
        if d.samples == 0 || live_pace {
            clock.anchor(s.time_s, now);
            if let Some(l) = dispatch.as_deref_mut() {
                l.anchor(s.time_s, now);
            }
        }
        if d.samples == 0 {
            engine.arm(s.time_s);
        }
        // Timers due up to this sample fire first, at their own instants (recorded pace: slept
        // until then; the held sample is later, so a timer may be woken `strt_lead` early).
        while let Some(t) = engine.poll_timeout() {
            if t > s.time_s {
                break;
            }
            if !live_pace {
                if let Some(w) = clock.wall(t) {
                    let w = w.checked_sub(lead).unwrap_or(w);
                    if let Some(i) = sleep_or_interrupt(Some(w), &mut ev, &mut stop).await {
                        interrupted!(i);
                    }
                }
            }
            engine.handle_timeout(t);
            if flush!() {
                return d;
            }
        }
        if !live_pace {
            if let Some(w) = clock.wall(s.time_s) {
                if let Some(i) = sleep_or_interrupt(Some(w), &mut ev, &mut stop).await {
                    interrupted!(i);
                }
            }
        }
        if let Some(l) = dispatch.as_deref_mut() {
            l.on_sample(s.time_s);
        }
        d.last_sample_wall = Some(Instant::now());
        engine.handle_sample(&s);
        d.last_t = Some(s.time_s);
        d.samples += 1;
        let stop_run = flush!();
        hooks.sample(engine, &s);
        if stop_run {
            return d;
        }
    }
    engine.finish(d.last_t.unwrap_or(0.0));
    flush!();
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_maps_sample_time_to_wall_time() {
        let w0 = Instant::now();
        let mut c = Clock::new(Pace::Recorded(Speed::Factor(2.0)));
        assert!(c.wall(1.0).is_none(), "no mapping before the anchor");
        c.anchor(100.0, w0);
        let w = c.wall(101.0).expect("mapped");
        assert_eq!(w.duration_since(w0), Duration::from_millis(500));
        assert!((c.sample_time(w).expect("inverse") - 101.0).abs() < 1e-9);
        // Earlier than the anchor maps before it.
        assert!(c.wall(99.0).expect("mapped") <= w0);
        // As fast as possible: no wall mapping at all.
        let mut m = Clock::new(Pace::Recorded(Speed::Max));
        m.anchor(100.0, w0);
        assert!(m.wall(101.0).is_none() && m.sample_time(w0).is_none());
        // Live: real time from the latest anchor.
        let mut l = Clock::new(Pace::Live);
        l.anchor(5.0, w0);
        assert_eq!(
            l.wall(5.2).expect("mapped").duration_since(w0),
            Duration::from_millis(200)
        );
    }
}
