//! The run layer: one place where a run happens, for every front end.
//!
//! ```text
//! setup (scenario, map, interface, engine config — parsed once)
//!   + source (SourceSpec → Feed: CSV, NCOM, JSON, CAN fused)        source/
//!   + sinks (carriers, store, live stream, event log, …)             sink/
//!   → Session::run: arm → drive (one driver, one clock) → close     session.rs, driver.rs, clock.rs
//!   → RunReport (what `scil replay --json` prints and the API's results)  report.rs
//! ```
//!
//! The engine below (`scenario::engine`, crate `scil-core`) is sans-IO and takes its time from
//! the samples; this layer owns the only mapping between sample time and wall time. The
//! front ends above (`cli`, `serve`) choose a source, add sinks and await the session.

pub mod clock;
pub mod control;
pub mod cosim;
pub mod driver;
pub mod params;
pub mod report;
pub mod session;
pub mod setup;
pub mod sink;
pub mod source;

use std::sync::Arc;

pub use clock::{Clock, Pace};
pub use params::{LiveParams, ParameterChange};
pub use report::{Outcome, RunEnd, RunReport, TriggerResult, WarningRecord};
pub use session::{Session, SessionOptions, StopHandle, StopRequest, Stopper};
pub use setup::RunSetup;
pub use sink::{ArmCtx, Sink, SinkCtx};
pub use source::{CanSpec, Feed, InsSpec, JsonTransport, OpenCtx, SourceError, SourceSpec};

/// The one tokio runtime of the command-line front ends (the service builds its own the same
/// way): multi-threaded on two workers, timers and I/O enabled.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
}

/// Opens `spec` (DBC names are file paths) and runs a session with `sinks`. A source that
/// cannot be opened is an error; everything after that is in the report (`error` when the
/// run failed).
pub async fn run_source(
    setup: Arc<RunSetup>,
    spec: &SourceSpec,
    opts: SessionOptions,
    sinks: Vec<Box<dyn Sink>>,
) -> Result<RunReport, SourceError> {
    let ctx = OpenCtx {
        vut_id: setup.vut_id(),
        dbc: &source::dbc_from_path,
    };
    let feed = source::open(spec, &ctx).await?;
    let mut session = Session::new(setup, feed, opts);
    for s in sinks {
        session.add_sink(s);
    }
    Ok(session.run().await)
}

/// A single-threaded runtime for one headless run (sweeps run many side by side, one each).
fn headless_runtime() -> Result<tokio::runtime::Runtime, SourceError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| SourceError::Other(format!("runtime: {e}")))
}

/// Replays a recorded source as fast as possible on a single-threaded runtime (the headless
/// path of `scil replay`, sweeps and tests). The result does not depend on the pace.
pub fn replay_blocking(
    setup: Arc<RunSetup>,
    spec: &SourceSpec,
    sinks: Vec<Box<dyn Sink>>,
) -> Result<RunReport, SourceError> {
    let rt = headless_runtime()?;
    rt.block_on(run_source(setup, spec, SessionOptions::default(), sinks))
}

/// Replays a CSV file as fast as possible (`scil replay --json` without options).
pub fn replay_csv(
    setup: Arc<RunSetup>,
    path: &std::path::Path,
    on_bad_row: crate::ingest::csv::BadRowPolicy,
) -> Result<RunReport, SourceError> {
    let spec = SourceSpec::ins(InsSpec::Csv {
        path: path.to_path_buf(),
        columns: Vec::new(),
        on_bad_row,
    });
    replay_blocking(setup, &spec, Vec::new())
}

/// Runs a session on a feed the caller made, as fast as possible, on a single-threaded
/// runtime.
pub fn run_feed_blocking(
    setup: Arc<RunSetup>,
    feed: Feed,
    sinks: Vec<Box<dyn Sink>>,
) -> Result<RunReport, SourceError> {
    let rt = headless_runtime()?;
    let mut session = Session::new(setup, feed, SessionOptions::default());
    for s in sinks {
        session.add_sink(s);
    }
    Ok(rt.block_on(session.run()))
}

/// Run states of the service (the database stores `as_str`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    Created,
    Armed,
    Running,
    Finished,
    Aborted,
    Failed,
}

impl RunState {
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Created => "created",
            RunState::Armed => "armed",
            RunState::Running => "running",
            RunState::Finished => "finished",
            RunState::Aborted => "aborted",
            RunState::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<RunState> {
        Some(match s {
            "created" => RunState::Created,
            "armed" => RunState::Armed,
            "running" => RunState::Running,
            "finished" => RunState::Finished,
            "aborted" => RunState::Aborted,
            "failed" => RunState::Failed,
            _ => return None,
        })
    }

    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            RunState::Finished | RunState::Aborted | RunState::Failed
        )
    }
}

impl From<Outcome> for RunState {
    fn from(o: Outcome) -> RunState {
        match o {
            Outcome::Finished => RunState::Finished,
            Outcome::Aborted => RunState::Aborted,
            Outcome::Failed => RunState::Failed,
        }
    }
}

impl std::fmt::Display for RunState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
