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

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};

use super::recorded::Recorded;
use super::SourceError;
use crate::ingest::health::SourceHealth;
use crate::sample::InsSample;

/// Samples per hand-over: large enough that the channel costs nothing per sample, small enough
/// that a paced replay's read-ahead stays a fraction of a second of data at 100 Hz... 10 s.
const BATCH: usize = 256;
/// Batches in flight.
const DEPTH: usize = 4;

type Item = Result<InsSample, SourceError>;

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
    size: u64,
    rx: Receiver<Vec<Item>>,
    batch: std::vec::IntoIter<Item>,
    shared: Arc<Shared>,
}

impl Prefetched {
    /// Moves `r` onto a reader thread. Falls back to `Err(r)` when no thread can be spawned (the
    /// caller then reads in place).
    pub(super) fn start(r: Recorded) -> Result<Prefetched, Recorded> {
        let name = r.name();
        let health = r.health();
        let (_, size) = r.progress();
        let shared = Arc::new(Shared::default());
        let (tx, rx) = sync_channel::<Vec<Item>>(DEPTH);
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
                let mut skipped_seen = 0u64;
                loop {
                    let mut batch = Vec::with_capacity(BATCH);
                    let mut end = false;
                    while batch.len() < BATCH {
                        match r.next_sample() {
                            Some(item) => batch.push(item),
                            None => {
                                end = true;
                                break;
                            }
                        }
                    }
                    shared_t.offset.store(r.progress().0, Ordering::Relaxed);
                    let (n, reasons) = r.skipped();
                    if n != skipped_seen {
                        skipped_seen = n;
                        if let Ok(mut g) = shared_t.skipped.lock() {
                            *g = (n, reasons);
                        }
                    }
                    if !batch.is_empty() && tx.send(batch).is_err() {
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
                size,
                rx,
                batch: Vec::new().into_iter(),
                shared,
            }),
            Err(_) => match slot.lock().ok().and_then(|mut g| g.take()) {
                Some(r) => Err(r),
                // Unreachable in practice (the thread did not start, so it took nothing).
                None => Ok(Prefetched {
                    name,
                    health,
                    size,
                    rx,
                    batch: Vec::new().into_iter(),
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
        loop {
            if let Some(item) = self.batch.next() {
                return Some(item);
            }
            // A blocking receive: the reader is at most one batch of parsing away, and the file
            // is local (a recorded source never waits on the network).
            match self.rx.recv() {
                Ok(b) => self.batch = b.into_iter(),
                Err(_) => return None,
            }
        }
    }
}
