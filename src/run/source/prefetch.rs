//! A recorded source read ahead on its own thread.
//!
//! Reading a file (CSV parse, plausibility, CAN decode and fusion) is about 40 % of a max-pace
//! replay's work and independent of the engine, so on a machine with a second core the two run
//! side by side: a reader thread pulls [`Recorded::next_sample`] into batches and hands them over
//! a bounded channel, in order. The driver sees exactly the samples and errors, in the order, it
//! would see reading the file itself — the engine's input, and so its output, is unchanged; only
//! the reading happens a few batches earlier. At a paced speed the reader simply waits on the
//! full channel.
//!
//! Bounded read-ahead: at most `DEPTH` batches of `BATCH` samples (a few hundred kB), so a 1 GB
//! file still streams in flat memory.
//!
//! The thread waits for the first read to learn what to make. A replay at `Max` pace asks for
//! batches in the map frame ([`Prefetched::fill_map`]): the interface block's conversion then
//! runs on the reader thread too, the driver takes whole batches by reference, and the spent
//! batches go back to the reader to be dropped and refilled there (no allocation per batch, and
//! the samples' shared vehicle id is counted up and down on one thread). Any other read
//! ([`Prefetched::next_sample`]) gets the INS samples one by one, as before.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};

use super::recorded::Recorded;
use super::{to_map_frame, MapItem, SourceError};
use crate::frame::Interface;
use crate::ingest::health::SourceHealth;
use crate::sample::InsSample;

/// Samples per hand-over: large enough that the channel costs nothing per sample, small enough
/// that a paced replay's read-ahead stays a fraction of a second of data at 100 Hz... 10 s.
const BATCH: usize = 256;
/// Batches in flight.
const DEPTH: usize = 4;

type Item = Result<InsSample, SourceError>;

/// What the reader thread makes, told by the first read.
enum Mode {
    /// INS samples, as read.
    Ins,
    /// Samples converted to the map frame with this interface block.
    Map(Interface),
}

enum Batch {
    Ins(Vec<Item>),
    Map(Vec<MapItem>),
}

/// What the reader thread publishes besides the samples.
#[derive(Default)]
struct Shared {
    /// Byte offset of the reader (progress).
    offset: AtomicU64,
    /// Rows skipped so far and their reasons (changes rarely; copied when it did).
    skipped: Mutex<(u64, Vec<String>)>,
}

pub(super) struct Prefetched {
    name: String,
    health: Vec<SourceHealth>,
    can: Option<super::recorded::CanTally>,
    size: u64,
    /// Taken by the first read, which tells the thread what to make.
    mode: Option<SyncSender<Mode>>,
    rx: Receiver<Batch>,
    batch: std::vec::IntoIter<Item>,
    /// Spent map-frame batches on their way back to the reader thread.
    spent: SyncSender<Vec<MapItem>>,
    shared: Arc<Shared>,
}

impl Prefetched {
    /// Moves `r` onto a reader thread. Falls back to `Err(r)` when no thread can be spawned (the
    /// caller then reads in place).
    // The Err hands the source back unchanged, once per run: its size costs nothing.
    #[allow(clippy::result_large_err)]
    pub(super) fn start(r: Recorded) -> Result<Prefetched, Recorded> {
        let name = r.name();
        let health = r.health();
        let can = r.can_tally();
        let (_, size) = r.progress();
        let shared = Arc::new(Shared::default());
        let (tx, rx) = sync_channel::<Batch>(DEPTH);
        let (mode_tx, mode_rx) = sync_channel::<Mode>(1);
        // Batches in flight plus the one the driver holds can come back.
        let (spent_tx, spent_rx) = sync_channel::<Vec<MapItem>>(DEPTH + 2);
        // The thread takes the reader; if spawning fails the closure (and the reader) comes back
        // through this slot.
        let slot = Arc::new(Mutex::new(Some(r)));
        let (slot_t, shared_t) = (slot.clone(), shared.clone());
        let spawned = std::thread::Builder::new()
            .name("scil-reader".into())
            .spawn(move || {
                let Some(mut r) = slot_t.lock().ok().and_then(|mut g| g.take()) else {
                    return;
                };
                // Nothing is read until the first read says what to make (or the feed is
                // dropped unread).
                let Ok(mode) = mode_rx.recv() else {
                    return;
                };
                let mut skipped_seen = 0u64;
                loop {
                    let (batch, end) = match &mode {
                        Mode::Ins => {
                            let mut b = Vec::with_capacity(BATCH);
                            let end = fill(&mut b, || r.next_sample());
                            (Batch::Ins(b), end)
                        }
                        Mode::Map(iface) => {
                            // A spent batch is emptied (its samples dropped) here and refilled.
                            let mut b = spent_rx
                                .try_recv()
                                .unwrap_or_else(|_| Vec::with_capacity(BATCH));
                            b.clear();
                            let end = fill(&mut b, || {
                                r.next_sample()
                                    .map(|i| i.and_then(|s| to_map_frame(iface, s)))
                            });
                            (Batch::Map(b), end)
                        }
                    };
                    shared_t.offset.store(r.progress().0, Ordering::Relaxed);
                    let (n, reasons) = r.skipped();
                    if n != skipped_seen {
                        skipped_seen = n;
                        if let Ok(mut g) = shared_t.skipped.lock() {
                            *g = (n, reasons);
                        }
                    }
                    let empty = match &batch {
                        Batch::Ins(b) => b.is_empty(),
                        Batch::Map(b) => b.is_empty(),
                    };
                    if !empty && tx.send(batch).is_err() {
                        return; // the run ended (or stopped): nobody reads any more
                    }
                    if end {
                        return;
                    }
                }
            });
        match spawned {
            Ok(_) => Ok(Prefetched {
                name,
                health,
                can: can.clone(),
                size,
                mode: Some(mode_tx),
                rx,
                batch: Vec::new().into_iter(),
                spent: spent_tx,
                shared,
            }),
            Err(_) => match slot.lock().ok().and_then(|mut g| g.take()) {
                Some(r) => Err(r),
                // Unreachable in practice (the thread did not start, so it took nothing).
                None => Ok(Prefetched {
                    name,
                    health,
                    can,
                    size,
                    mode: Some(mode_tx),
                    rx,
                    batch: Vec::new().into_iter(),
                    spent: spent_tx,
                    shared,
                }),
            },
        }
    }

    pub(super) fn name(&self) -> String {
        self.name.clone()
    }

    pub(super) fn health(&self) -> Vec<SourceHealth> {
        self.health.clone()
    }

    pub(super) fn can_report(&self) -> Option<crate::ingest::can::timebase::CanFusionReport> {
        self.can.as_ref().map(|c| c.snapshot())
    }

    pub(super) fn skipped(&self) -> (u64, Vec<String>) {
        self.shared
            .skipped
            .lock()
            .map(|g| g.clone())
            .unwrap_or_default()
    }

    pub(super) fn progress(&self) -> (u64, u64) {
        (self.shared.offset.load(Ordering::Relaxed), self.size)
    }

    /// The next sample in file order; `None` at the end (the reader finished and its last batch
    /// was taken).
    pub(super) fn next_sample(&mut self) -> Option<Item> {
        self.tell(|| Mode::Ins);
        loop {
            if let Some(item) = self.batch.next() {
                return Some(item);
            }
            // A blocking receive: the reader is at most one batch of parsing away, and the file
            // is local (a recorded source never waits on the network).
            match self.rx.recv() {
                Ok(Batch::Ins(b)) => self.batch = b.into_iter(),
                // Not made in this mode (the first read chose INS samples).
                Ok(Batch::Map(_)) => return None,
                Err(_) => return None,
            }
        }
    }

    /// The next batch of samples in the map frame, into `out` (whose spent contents go back to
    /// the reader thread); `out` is left empty at the end. Samples read one by one before
    /// (the first read chose INS samples) are converted here.
    pub(super) fn fill_map(&mut self, iface: &Interface, out: &mut Vec<MapItem>) {
        self.tell(|| Mode::Map(iface.clone()));
        if self.batch.len() > 0 {
            out.clear();
            out.extend(
                self.batch
                    .by_ref()
                    .map(|i| i.and_then(|s| to_map_frame(iface, s))),
            );
            return;
        }
        match self.rx.recv() {
            Ok(Batch::Map(b)) => {
                let spent = std::mem::replace(out, b);
                // When the reader has spare batches enough (or has ended) it is dropped here.
                let _ = self.spent.try_send(spent);
            }
            Ok(Batch::Ins(b)) => {
                out.clear();
                out.extend(
                    b.into_iter()
                        .map(|i| i.and_then(|s| to_map_frame(iface, s))),
                );
            }
            Err(_) => out.clear(),
        }
    }

    /// Tells the reader thread what to make, at the first read.
    fn tell(&mut self, mode: impl FnOnce() -> Mode) {
        if let Some(tx) = self.mode.take() {
            // A failed send means the thread is gone: the receive after it ends the feed.
            let _ = tx.send(mode());
        }
    }
}

/// Reads into `b` until it holds a batch; true at the end of the source.
fn fill<T>(b: &mut Vec<T>, mut next: impl FnMut() -> Option<T>) -> bool {
    while b.len() < BATCH {
        match next() {
            Some(item) => b.push(item),
            None => return true,
        }
    }
    false
}
