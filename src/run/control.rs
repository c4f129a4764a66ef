//! How a run is told to go and to stop: its options, and the stop handle every front end and
//! sink may hold. Below the session and the driver, so that both (and the sinks) use it.

use std::time::Duration;

use tokio::sync::watch;

use super::clock::Pace;

/// What an external stop asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum StopRequest {
    /// Abort with this reason (the engine aborts; carriers get HEAB ABORT).
    Abort { reason: String, by: Stopper },
    /// End normally at the current sample time (the way a live run ends).
    Finish,
}

/// Who asked a run to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopper {
    /// The operator (API, Ctrl-C).
    Operator,
    /// A sink's own rule (a carrier aborted, telemetry went stale at the control centre).
    Sink(&'static str),
}

/// Stops a run from anywhere (cloneable; the first request wins).
#[derive(Clone, Debug)]
pub struct StopHandle(watch::Sender<Option<StopRequest>>);

impl StopHandle {
    pub fn new() -> StopHandle {
        StopHandle(watch::channel(None).0)
    }

    /// Asks the run to stop; false if a stop was already asked for.
    pub fn request(&self, r: StopRequest) -> bool {
        self.0.send_if_modified(|s| {
            if s.is_none() {
                *s = Some(r);
                true
            } else {
                false
            }
        })
    }

    pub fn abort(&self, reason: &str, by: Stopper) -> bool {
        self.request(StopRequest::Abort {
            reason: reason.to_string(),
            by,
        })
    }

    pub fn finish(&self) -> bool {
        self.request(StopRequest::Finish)
    }

    pub fn requested(&self) -> Option<StopRequest> {
        self.0.borrow().clone()
    }

    pub(crate) fn subscribe(&self) -> watch::Receiver<Option<StopRequest>> {
        self.0.subscribe()
    }
}

impl Default for StopHandle {
    fn default() -> Self {
        StopHandle::new()
    }
}

/// Options of the driver.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    pub pace: Pace,
    /// Wake the engine's timers this early when the next sample is already known (recorded
    /// pace with real carriers: the STRT decision is made before its instant, so the carrier
    /// task's own timer puts it on the wire on time).
    pub strt_lead: Duration,
    /// A live run that has not received its first sample after this long is aborted (a
    /// misconfigured source must not leave a run `running` forever).
    pub first_sample_timeout: Option<Duration>,
    /// Live parameters (ttc offset, injection) changeable while the run goes on.
    pub live: Option<super::params::LiveParams>,
    /// Keep per-sample traces in the report (`RunReport::traces`).
    pub traces: bool,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            pace: Pace::Max,
            strt_lead: Duration::ZERO,
            first_sample_timeout: None,
            live: None,
            traces: false,
        }
    }
}
