//! Sinks: everything a run's outputs flow into, through one interface.
//!
//! A sink sees the run from the driver's side: it may prepare before the first sample
//! ([`Sink::arm`]: connect and arm carriers, open a file), sees every applied sample with the
//! engine's state after it ([`Sink::sample`]), every engine output ([`Sink::output`]), every
//! sample the run had to drop ([`Sink::bad_sample`]), and finally contributes its block to the
//! typed [`RunReport`] ([`Sink::close`]). A sink that can end the run by itself (a carrier
//! that aborts) does so through the [`StopHandle`] it gets at arm time.
//!
//! A new sink is one file in this folder (or in the front end that owns its state) and one
//! `session.add_sink(...)` line.

pub mod carriers;
pub mod events;
pub mod osi;
pub mod recording;

use futures_util::future::BoxFuture;

use super::clock::Clock;
use super::control::StopHandle;
use super::report::{RunEnd, RunReport};
use super::setup::RunSetup;
use crate::sample::{InsSample, Sample};
use crate::scenario::engine::{Engine, Output};

/// What a sink sees of the run at every call.
pub struct SinkCtx<'a> {
    pub setup: &'a RunSetup,
    pub clock: &'a Clock,
}

/// What a sink gets before the first sample.
pub struct ArmCtx<'a> {
    pub setup: &'a RunSetup,
    /// Stops the run (abort or normal end) from inside a sink.
    pub stop: StopHandle,
}

/// One consumer of a run's samples and outputs (see the module doc).
pub trait Sink: Send {
    /// Short name for logs and errors.
    fn name(&self) -> &'static str;

    /// Before the first sample. An error fails the run before anything moves.
    fn arm<'a>(&'a mut self, _ctx: ArmCtx<'a>) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async { Ok(()) })
    }

    /// After each applied sample and its outputs; `engine` holds the twin after it.
    fn sample(&mut self, _ctx: &SinkCtx<'_>, _engine: &Engine, _s: &Sample) {}

    /// Every engine output, in order.
    fn output(&mut self, _ctx: &SinkCtx<'_>, _o: &Output) {}

    /// A sample the run dropped (cannot be put on the map, implausible): live sources only;
    /// a recorded source's bad rows are the source's report.
    fn bad_sample(&mut self, _ctx: &SinkCtx<'_>, _ins: &InsSample, _reason: &str) {}

    /// After the run: stop what the sink drives, add its block to the report.
    fn close<'a>(&'a mut self, _end: &'a RunEnd, _report: &'a mut RunReport) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
}
