//! The one driver: the sans-IO engine fed from a [`Feed`], its timers slept on the run's
//! [`Clock`], its outputs handed to every sink in order.
//!
//! * Recorded data at a factor: each sample waits for its wall instant; engine timers due
//!   before it fire at their own instants (woken `strt_lead` early, which is safe because the
//!   held sample is later than the instant). At `Max`: no waiting, timers fire when the next
//!   sample shows they are due — same input, same output, at any pace.
//! * Live data: samples are applied on arrival, the clock re-anchors at each (at its socket
//!   instant when the source stamps one, so the hops to this task do not delay), and timers
//!   between samples (a predicted trigger, the stale-telemetry rule) fire on the wall clock.
//! * A stop request (operator, or a sink such as the carriers) interrupts any wait: abort
//!   aborts the engine at the current sample time (its Abort command reaches the carriers),
//!   finish ends the run normally.

use tokio::sync::watch;
use tokio::time::Instant;

use super::clock::Clock;
use super::control::{SessionOptions, StopRequest, Stopper};
use super::report::RunReport;
use super::setup::RunSetup;
use super::sink::{Sink, SinkCtx};
use super::source::{Feed, SourceError};
use crate::sample::Sample;
use crate::scenario::engine::{Engine, Output};

/// The most a source's run start may precede its first sample, s: an earlier one is not that
/// sample's start (the engine arms at the sample).
const MAX_RUN_START_LEAD_S: f64 = 0.5;

/// What the driver did, besides feeding the engine.
pub struct Driven {
    pub samples: u64,
    /// Live samples that could not be put on the map (counted, skipped).
    pub bad_samples: u64,
    pub last_t: Option<f64>,
    pub last_sample_wall: Option<Instant>,
    /// The stop request that ended the run, if one did.
    pub stopped: Option<StopRequest>,
    /// The source failed (the engine is left as it was: the session aborts it).
    pub error: Option<SourceError>,
    pub clock: Clock,
}

async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}

/// The stop request once set (pending forever when nobody can set one any more).
async fn next_stop(rx: &mut watch::Receiver<Option<StopRequest>>) -> StopRequest {
    loop {
        if let Some(r) = rx.borrow_and_update().clone() {
            return r;
        }
        if rx.changed().await.is_err() {
            return std::future::pending().await;
        }
    }
}

struct Run<'a> {
    setup: &'a RunSetup,
    engine: &'a mut Engine,
    sinks: &'a mut [Box<dyn Sink>],
    report: &'a mut RunReport,
    live: Option<&'a super::params::LiveParams>,
    d: Driven,
}

impl Run<'_> {
    /// Hands the engine's outputs to the report and the sinks; true once the engine aborted.
    fn flush(&mut self) -> bool {
        let mut aborted = false;
        while let Some(o) = self.engine.poll_output() {
            if let Output::Event(e) = &o {
                self.report.apply(e);
            }
            if matches!(
                o,
                Output::Command(crate::scenario::engine::Command::Abort { .. })
            ) {
                aborted = true;
            }
            let ctx = SinkCtx {
                setup: self.setup,
                clock: &self.d.clock,
            };
            for s in self.sinks.iter_mut() {
                s.output(&ctx, &o);
            }
        }
        aborted
    }

    /// Serves a stop request; the run ends after it.
    fn stop(&mut self, r: StopRequest) {
        match &r {
            StopRequest::Abort { reason, by } => {
                // A sink's abort happened on the wall clock, between samples: its sample time.
                let t = match by {
                    Stopper::Sink(_) => self.d.clock.now_s().or(self.d.last_t),
                    Stopper::Operator => self.d.last_t,
                }
                .unwrap_or(0.0);
                let reason = match by {
                    Stopper::Sink(name) => format!("{name} abort: {reason}"),
                    Stopper::Operator => reason.clone(),
                };
                self.engine.abort(t, &reason);
            }
            StopRequest::Finish => self.engine.finish(self.d.last_t.unwrap_or(0.0)),
        }
        self.d.stopped = Some(r);
        self.flush();
    }

    /// A sample is in: anchor the clock, arm at the first, fire the timers due before it
    /// (each at its own instant when paced), wait for its instant, apply it. True when the
    /// run must end.
    async fn on_sample(
        &mut self,
        s: &Sample,
        received: Option<Instant>,
        run_start: Option<f64>,
        stop: &mut watch::Receiver<Option<StopRequest>>,
        live: bool,
        lead: std::time::Duration,
    ) -> bool {
        // One clock read per sample (the anchor and the last-sample instant share it). A live
        // sample anchors at the instant it was received, so the time it spent reaching the
        // engine does not shift the wall instants of its timers (a predicted STRT).
        let now = received.unwrap_or_else(Instant::now);
        self.begin(s, now, run_start);
        // Timers due up to this sample fire first, at their own instants.
        while let Some(t) = self.due_before(s) {
            if !live {
                if let Some(w) = self.d.clock.wall(t) {
                    let w = w.checked_sub(lead).unwrap_or(w);
                    tokio::select! {
                        biased;
                        r = next_stop(stop) => { self.stop(r); return true; }
                        _ = tokio::time::sleep_until(w) => {}
                    }
                }
            }
            if self.fire(t) {
                return true;
            }
        }
        if !live {
            if let Some(w) = self.d.clock.wall(s.time_s) {
                tokio::select! {
                    biased;
                    r = next_stop(stop) => { self.stop(r); return true; }
                    _ = tokio::time::sleep_until(w) => {}
                }
            }
        }
        // At a paced speed the sample waited for its instant above: that is when it is applied.
        let applied = if self.d.clock.is_paced() {
            Instant::now()
        } else {
            now
        };
        self.d.last_sample_wall = Some(applied);
        self.apply(s)
    }

    /// [`Run::on_sample`] at `Max` pace, where nothing waits: the same steps without a future
    /// per sample and without a clock read per sample (the caller stamps the last sample's
    /// wall instant when the loop ends, which at `Max` is the same instant).
    fn on_sample_max(&mut self, s: &Sample) -> bool {
        if self.d.samples == 0 {
            self.begin(s, Instant::now(), None);
        }
        while let Some(t) = self.due_before(s) {
            if self.fire(t) {
                return true;
            }
        }
        self.apply(s)
    }

    /// Recorded data as fast as possible: nothing to wait for, so no select per sample. The
    /// samples come a batch at a time, already in the map frame (see
    /// [`Feed::next_batch_now`]); the stop is checked and the task yields between batches
    /// (every few hundred samples, well under a millisecond). True when the run ended; false
    /// when the feed cannot be read without waiting (the caller's loop takes it).
    async fn at_max_pace(
        &mut self,
        feed: &mut Feed,
        iface: &crate::frame::Interface,
        stop: &mut watch::Receiver<Option<StopRequest>>,
    ) -> bool {
        let mut batch = Vec::new();
        loop {
            if let Some(r) = stop.borrow_and_update().clone() {
                self.stop(r);
                return true;
            }
            if feed.next_batch_now(iface, &mut batch).is_none() {
                return false;
            }
            if batch.is_empty() {
                self.engine.finish(self.d.last_t.unwrap_or(0.0));
                self.flush();
                return true;
            }
            for item in batch.iter_mut() {
                match item {
                    Ok(s) => {
                        if self.on_sample_max(s) {
                            return true;
                        }
                    }
                    Err(e) => {
                        let e = std::mem::replace(e, SourceError::Other(String::new()));
                        self.d.error = Some(e);
                        return true;
                    }
                }
            }
            tokio::task::yield_now().await;
        }
    }

    /// Anchors the clock at `s` (received at `now`) and arms the engine at the first sample,
    /// or at the run's start when the source knows an earlier one (`run_start`, sample time:
    /// a VUT robot's STRT, which its first RUNNING MONR reports up to a MONR period later).
    fn begin(&mut self, s: &Sample, now: Instant, run_start: Option<f64>) {
        self.d.clock.on_sample(s.time_s, now);
        if self.d.samples == 0 {
            let at = run_start
                .filter(|t| *t <= s.time_s && s.time_s - *t <= MAX_RUN_START_LEAD_S)
                .unwrap_or(s.time_s);
            self.engine.arm(at);
        }
    }

    /// The engine's next timer if it is due no later than `s`.
    fn due_before(&self, s: &Sample) -> Option<f64> {
        self.engine.poll_timeout().filter(|&t| t <= s.time_s)
    }

    /// Fires the engine timer at `t`; true once the engine aborted.
    fn fire(&mut self, t: f64) -> bool {
        self.engine.handle_timeout(t);
        self.flush()
    }

    fn apply(&mut self, s: &Sample) -> bool {
        if let Some(off) = self.live.and_then(|l| l.before_sample(s.time_s)) {
            self.engine.set_ttc_offset(off);
        }
        self.engine.handle_sample(s);
        self.d.last_t = Some(s.time_s);
        self.d.samples += 1;
        let aborted = self.flush();
        let ctx = SinkCtx {
            setup: self.setup,
            clock: &self.d.clock,
        };
        for k in self.sinks.iter_mut() {
            k.sample(&ctx, self.engine, s);
        }
        aborted
    }
}

/// Drives `engine` from `feed` (see the module doc) until the source ends (the engine
/// finishes), the engine aborts, a stop is requested, or the source fails.
pub async fn drive(
    feed: &mut Feed,
    setup: &RunSetup,
    engine: &mut Engine,
    sinks: &mut [Box<dyn Sink>],
    stop: &mut watch::Receiver<Option<StopRequest>>,
    opts: &SessionOptions,
    report: &mut RunReport,
) -> Driven {
    let live = feed.is_live();
    // A recording of map coordinates must not be shifted and rotated a second time.
    let map_iface;
    let iface = if feed.in_map_frame() {
        map_iface = setup.interface.for_map_frame();
        &map_iface
    } else {
        &setup.interface
    };
    let lead = if live {
        std::time::Duration::ZERO
    } else {
        opts.strt_lead
    };
    let mut run = Run {
        setup,
        engine,
        sinks,
        report,
        live: opts.live.as_ref(),
        d: Driven {
            samples: 0,
            bad_samples: 0,
            last_t: None,
            last_sample_wall: None,
            stopped: None,
            error: None,
            clock: Clock::new(if live {
                super::clock::Pace::Live
            } else {
                opts.pace
            }),
        },
    };

    if !live && opts.pace == super::clock::Pace::Max {
        let ended = run.at_max_pace(feed, iface, stop).await;
        // At `Max` the last sample was applied just now (see `on_sample_max`).
        if run.d.samples > 0 {
            run.d.last_sample_wall = Some(Instant::now());
        }
        if ended {
            return run.d;
        }
    }
    let first_deadline = opts.first_sample_timeout.map(|d| Instant::now() + d);
    loop {
        // The next sample; meanwhile engine timers fire on the wall clock and a stop is served.
        let s = loop {
            let timer = if run.d.samples > 0 {
                run.engine.poll_timeout()
            } else {
                None
            };
            let wake = timer.and_then(|t| run.d.clock.wall(t));
            let no_first = if run.d.samples == 0 {
                first_deadline
            } else {
                None
            };
            tokio::select! {
                biased;
                r = next_stop(stop) => {
                    run.stop(r);
                    return run.d;
                }
                _ = sleep_until_opt(no_first) => {
                    let secs = opts.first_sample_timeout.map_or(0.0, |d| d.as_secs_f64());
                    run.stop(StopRequest::Abort {
                        reason: format!("no telemetry: no sample within {secs:.1} s of the start"),
                        by: Stopper::Operator,
                    });
                    return run.d;
                }
                item = feed.next() => match item {
                    None => break None,
                    Some(Err(e)) => {
                        run.d.error = Some(e);
                        return run.d;
                    }
                    Some(Ok(ins)) => match iface.to_map(&ins) {
                        Ok(s) => break Some(s),
                        Err(e) => {
                            let msg = format!("sample at t={}: {e}", ins.time_s);
                            if live {
                                run.d.bad_samples += 1;
                                let ctx = SinkCtx { setup, clock: &run.d.clock };
                                for k in run.sinks.iter_mut() {
                                    k.bad_sample(&ctx, &ins, &msg);
                                }
                            } else {
                                run.d.error = Some(SourceError::Other(msg));
                                return run.d;
                            }
                        }
                    },
                },
                _ = sleep_until_opt(wake) => {
                    if let Some(t) = timer {
                        run.engine.handle_timeout(t);
                        if run.flush() {
                            return run.d;
                        }
                    }
                }
            }
        };
        let Some(s) = s else { break };
        if run
            .on_sample(&s, feed.received_at(), feed.run_start_s(), stop, live, lead)
            .await
        {
            return run.d;
        }
    }
    run.engine.finish(run.d.last_t.unwrap_or(0.0));
    run.flush();
    run.d
}
