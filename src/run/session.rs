//! A session: one run from arming to its report. Every front end — `scil replay`, service runs,
//! and whatever drives a run next — builds one with its setup, its source and its sinks, and
//! awaits [`Session::run`].
//!
//! 1. **Arm**: every sink prepares (carriers connect and arm); a failure ends the run as
//!    `failed` before anything moved.
//! 2. **Drive**: the live source's gate opens and [`super::driver`] feeds the engine until the
//!    source ends, the engine or a sink aborts, or a [`StopHandle`] asks.
//! 3. **Close**: the engine is finished or aborted, every sink closes (carriers stop and
//!    report) and the typed [`RunReport`] is returned.

pub use super::control::{SessionOptions, StopHandle, StopRequest, Stopper};
use super::driver::{self, Driven};
use super::report::{Outcome, RunEnd, RunReport};
use super::setup::RunSetup;
use super::sink::{ArmCtx, Sink, SinkCtx};
use super::source::Feed;
use crate::scenario::engine::{Event, Output};

/// One run (see the module doc).
pub struct Session {
    pub setup: std::sync::Arc<RunSetup>,
    feed: Feed,
    sinks: Vec<Box<dyn Sink>>,
    opts: SessionOptions,
    stop: StopHandle,
}

impl Session {
    pub fn new(setup: std::sync::Arc<RunSetup>, feed: Feed, opts: SessionOptions) -> Session {
        Session {
            setup,
            feed,
            sinks: Vec::new(),
            opts,
            stop: StopHandle::new(),
        }
    }

    /// Sinks see samples and outputs in the order they were added.
    pub fn add_sink(&mut self, s: Box<dyn Sink>) -> &mut Self {
        self.sinks.push(s);
        self
    }

    pub fn with_sink(mut self, s: impl Sink + 'static) -> Self {
        self.sinks.push(Box::new(s));
        self
    }

    /// Uses `stop` (e.g. one the service holds before the run starts).
    pub fn with_stop(mut self, stop: StopHandle) -> Self {
        self.stop = stop;
        self
    }

    pub fn stop_handle(&self) -> StopHandle {
        self.stop.clone()
    }

    pub fn feed(&self) -> &Feed {
        &self.feed
    }

    /// The feed back, for a caller that drives the run another way (objects on the ground).
    pub fn into_feed(self) -> Feed {
        self.feed
    }

    /// Arms, drives and closes the run (see the module doc).
    pub async fn run(mut self) -> RunReport {
        let setup = self.setup.clone();
        let mut report = RunReport::default();
        let mut engine = setup.engine();
        if self.opts.traces {
            engine.record_traces();
        }
        // 1. Arm.
        for i in 0..self.sinks.len() {
            let ctx = ArmCtx {
                setup: &setup,
                stop: self.stop.clone(),
            };
            if let Err(e) = self.sinks[i].arm(ctx).await {
                let reason = format!("{}: {e:#}", self.sinks[i].name());
                report.error = Some(reason.clone());
                let end = RunEnd {
                    outcome: Outcome::Failed,
                    reason: Some(reason),
                    last_t: None,
                    last_sample_wall: None,
                    impacts: Vec::new(),
                };
                // The sinks armed so far let go of what they hold.
                for s in self.sinks[..i].iter_mut().rev() {
                    s.close(&end, &mut report).await;
                }
                return report;
            }
        }
        // 2. Drive.
        self.feed.start();
        let mut stop_rx = self.stop.subscribe();
        let d: Driven = driver::drive(
            &mut self.feed,
            &setup,
            &mut engine,
            &mut self.sinks,
            &mut stop_rx,
            &self.opts,
            &mut report,
        )
        .await;
        // 3. Close.
        if let Some(e) = &d.error {
            // The source failed: the engine aborts so the carriers stop.
            engine.abort(d.last_t.unwrap_or(0.0), &format!("source error: {e}"));
            let clock = d.clock;
            let ctx = SinkCtx {
                setup: &setup,
                clock: &clock,
            };
            while let Some(o) = engine.poll_output() {
                if let Output::Event(ev) = &o {
                    report.apply(ev);
                }
                for s in self.sinks.iter_mut() {
                    s.output(&ctx, &o);
                }
            }
            report.error = Some(e.to_string());
        }
        report.samples = d.samples;
        report.traces = engine.take_traces();
        if let Some(lp) = &self.opts.live {
            report.parameter_changes = lp.changes();
        }
        let (skipped, reasons) = self.feed.skipped();
        report.skipped_rows = if self.feed.is_live() {
            d.bad_samples
        } else {
            skipped
        };
        report.skipped = reasons;
        report.source = self.feed.report(d.bad_samples);
        report.can = self.feed.can_report();
        let outcome = if report.error.is_some() {
            Outcome::Failed
        } else if report.aborted.is_some() || matches!(d.stopped, Some(StopRequest::Abort { .. })) {
            Outcome::Aborted
        } else {
            Outcome::Finished
        };
        let end = RunEnd {
            outcome,
            reason: report.error.clone().or_else(|| report.aborted.clone()),
            last_t: d.last_t,
            last_sample_wall: d.last_sample_wall,
            impacts: report
                .impacts
                .iter()
                .map(|i| (i.target.clone(), i.time_s))
                .collect(),
        };
        for s in self.sinks.iter_mut() {
            s.close(&end, &mut report).await;
        }
        report
    }
}

/// The outcome of a finished report (for front ends mapping it to states and exit codes).
pub fn outcome_of(r: &RunReport) -> Outcome {
    if r.error.is_some() {
        Outcome::Failed
    } else if r.is_aborted() {
        Outcome::Aborted
    } else {
        Outcome::Finished
    }
}

/// True for the events a readable event log skips (scheduling chatter).
pub fn is_chatter(e: &Event) -> bool {
    matches!(e, Event::TriggerScheduled { .. })
}
