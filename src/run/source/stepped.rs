//! A lock-step feed: samples pushed by a co-simulation peer, each with an acknowledgement
//! that fires once the driver has finished with it (applied with every sink called, or
//! dropped by the injection), i.e. when the driver asks for the next sample or the feed is
//! dropped at the end of the session. The feed is *not* live: time is the peer's sample
//! time only (at `Pace::Max` no engine timer fires on the wall clock), so a co-simulation is
//! as deterministic as its peer.

use tokio::sync::{mpsc, oneshot};

use crate::sample::InsSample;

/// One step of a peer: the sample and the acknowledgement the peer waits on.
pub struct Step {
    pub sample: InsSample,
    pub done: oneshot::Sender<()>,
}

pub(super) struct Stepped {
    rx: mpsc::Receiver<Step>,
    pending: Option<oneshot::Sender<()>>,
}

impl Stepped {
    pub(super) fn new(rx: mpsc::Receiver<Step>) -> Stepped {
        Stepped { rx, pending: None }
    }

    /// Acknowledges the previous step (the driver is done with it) and waits for the next.
    /// Cancel-safe: the acknowledgement is sent on the first poll.
    pub(super) async fn next(&mut self) -> Option<InsSample> {
        if let Some(done) = self.pending.take() {
            let _ = done.send(());
        }
        let step = self.rx.recv().await?;
        self.pending = Some(step.done);
        Some(step.sample)
    }
}
