//! The telemetry/event writer: one task that batches rows from a bounded channel into
//! transactions, so the engine never waits on the database.
//!
//! * Rows are drained from the channel continuously into an in-memory buffer, even while the
//!   database is failing, so the channel stays free.
//! * A batch is written when it reaches `batch_rows` or `max_delay` has passed since the first
//!   buffered row, or when someone asks for a [`Writer::flush`].
//! * A batch — its events and telemetry rows — is ONE transaction ([`Store::write_batch`]): a
//!   failure leaves nothing behind (events were stored twice when they had their own
//!   transaction), the connection that failed is closed rather than pooled (it could hold
//!   SQLite's write lock: "database is locked" for minutes after a full disk), and the batch
//!   stays in the buffer to be retried with exponential backoff (100 ms doubling to 5 s).
//!   Every failure is counted ([`WriterStats::errors`]) and reported through `on_error`; the
//!   outage is stored as one `store_error` event and its end as one `store_recovered` event
//!   (failures, rows held, seconds).
//! * The buffer is bounded (`max_buffer_rows`): beyond it the oldest rows are dropped, and so
//!   are rows refused by a full channel ([`Writer::send_telemetry`]); either way the loss is
//!   counted ([`WriterStats::dropped`]) and stored as a `telemetry_lost` event per run with the
//!   row count and sequence range — never silent.
//! * With a spill directory ([`WriterConfig::spill_dir`]) rows beyond the bound go to an
//!   append-only spill file there instead ([`spill`]; counted in [`WriterStats::spilled`]) and
//!   are written back in order, before the buffer, once the database takes writes again
//!   ([`WriterStats::spill_replayed`]); the file is then removed. Rows are dropped only when the
//!   spill file cannot be written either. Spill files left by a previous process are taken over
//!   at startup and written back the same way (a `telemetry_recovered` event per run names the
//!   rows and the run's state then); a torn or corrupt tail is reported (`spill_corrupt` event,
//!   [`WriterStats::spill_problems`]) and the rows before it are kept.
//! * [`Writer::flush`] is the "committed" signal: it returns true only once everything queued
//!   before the call is committed (lost rows accounted for by their committed `telemetry_lost`
//!   event), false on timeout (the rows stay buffered and keep being retried).

pub mod spill;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};

use super::{NewEvent, Store, TelemetryRow};

#[derive(Debug, Clone)]
pub struct WriterConfig {
    pub channel: usize,
    pub batch_rows: usize,
    pub max_delay: Duration,
    pub max_buffer_rows: usize,
    /// Where rows beyond `max_buffer_rows` go while the database fails (None: dropped).
    pub spill_dir: Option<PathBuf>,
}

impl Default for WriterConfig {
    fn default() -> Self {
        WriterConfig {
            channel: 65_536,
            batch_rows: 5_000,
            max_delay: Duration::from_millis(100),
            // ~200 bytes a row: about 100 MB at most during an outage.
            max_buffer_rows: 500_000,
            spill_dir: None,
        }
    }
}

/// Counters, read by `/metrics` and the health frames.
#[derive(Debug, Default)]
pub struct WriterStats {
    /// SQLite: the write-ahead log's size after the last batch, and its largest size seen.
    pub wal_bytes: AtomicU64,
    pub wal_peak_bytes: AtomicU64,
    /// Checkpoints the writer ran (beside SQLite's automatic ones).
    pub checkpoints: AtomicU64,
    pub rows_written: AtomicU64,
    pub events_written: AtomicU64,
    pub batches: AtomicU64,
    pub errors: AtomicU64,
    pub dropped: AtomicU64,
    pub buffered: AtomicU64,
    /// Rows written to a spill file (the buffer was full), rows written back from spill files
    /// into the database, rows in spill files now.
    pub spilled: AtomicU64,
    pub spill_replayed: AtomicU64,
    pub spill_pending: AtomicU64,
    /// Spill files found torn or corrupt (or unreadable).
    pub spill_problems: AtomicU64,
    /// Milliseconds since the writer started at the last successful write.
    pub last_ok_ms: AtomicU64,
    pub last_error: Mutex<Option<String>>,
    /// Rows refused by a full channel, per run, not yet turned into a `telemetry_lost` event.
    refused: Mutex<std::collections::BTreeMap<String, Lost>>,
}

/// Rows of one run that were lost: how many and their sequence range.
#[derive(Debug, Clone, Copy)]
struct Lost {
    rows: u64,
    first_seq: i64,
    last_seq: i64,
}

impl Lost {
    fn add(entry: Option<&mut Lost>, seq: i64) -> Option<Lost> {
        match entry {
            Some(l) => {
                l.rows += 1;
                l.first_seq = l.first_seq.min(seq);
                l.last_seq = l.last_seq.max(seq);
                None
            }
            None => Some(Lost {
                rows: 1,
                first_seq: seq,
                last_seq: seq,
            }),
        }
    }
}

fn note_lost(map: &mut std::collections::BTreeMap<String, Lost>, run_id: &str, seq: i64) {
    if let Some(new) = Lost::add(map.get_mut(run_id), seq) {
        map.insert(run_id.to_string(), new);
    }
}

fn lost_events(
    map: std::collections::BTreeMap<String, Lost>,
    reason: &str,
) -> impl Iterator<Item = NewEvent> + '_ {
    map.into_iter().map(move |(run_id, l)| NewEvent {
        run_id: Some(run_id.clone()),
        t: None,
        kind: "telemetry_lost".into(),
        payload: serde_json::json!({
            "event": "telemetry_lost",
            "run_id": run_id,
            "rows": l.rows,
            "first_seq": l.first_seq,
            "last_seq": l.last_seq,
            "reason": reason,
        })
        .to_string(),
        created_at: chrono::Utc::now(),
    })
}

fn store_event(kind: &str, payload: serde_json::Value) -> NewEvent {
    NewEvent {
        run_id: None,
        t: None,
        kind: kind.into(),
        payload: payload.to_string(),
        created_at: chrono::Utc::now(),
    }
}

enum Item {
    Telemetry(TelemetryRow),
    Event(NewEvent),
    Flush(oneshot::Sender<()>),
    /// Drop the buffered rows of a run (answers how many).
    Discard(String, oneshot::Sender<u64>),
}

/// Most telemetry rows in one SQLite transaction (~0.5 MB of write-ahead log).
const SQLITE_TX_ROWS: usize = 2_000;

/// The writer checkpoints SQLite's log itself once it is larger than this after a batch.
const CHECKPOINT_ABOVE_BYTES: u64 = super::SQLITE_JOURNAL_SIZE_LIMIT;

pub type ErrorHook = Arc<dyn Fn(&str) + Send + Sync>;

/// Handle to the writer task (cheap to clone).
#[derive(Clone)]
pub struct Writer {
    tx: mpsc::Sender<Item>,
    pub stats: Arc<WriterStats>,
    pub started: Instant,
}

impl Writer {
    /// Spawns the writer task on the current tokio runtime.
    pub fn spawn(store: Store, cfg: WriterConfig, on_error: Option<ErrorHook>) -> Writer {
        let (tx, rx) = mpsc::channel(cfg.channel);
        let stats = Arc::new(WriterStats::default());
        let started = Instant::now();
        tokio::spawn(run(store, cfg, rx, stats.clone(), started, on_error));
        Writer { tx, stats, started }
    }

    /// Queues a telemetry row without waiting. Returns false (and counts the row as dropped)
    /// when the channel is full or the writer is gone.
    pub fn send_telemetry(&self, row: TelemetryRow) -> bool {
        match self.tx.try_send(Item::Telemetry(row)) {
            Ok(()) => true,
            Err(e) => {
                let row = match e {
                    mpsc::error::TrySendError::Full(Item::Telemetry(r))
                    | mpsc::error::TrySendError::Closed(Item::Telemetry(r)) => r,
                    _ => return false,
                };
                self.stats.dropped.fetch_add(1, Ordering::Relaxed);
                if let Ok(mut m) = self.stats.refused.lock() {
                    note_lost(&mut m, &row.run_id, row.seq);
                }
                false
            }
        }
    }

    /// Rows lost so far (buffer overflow or full channel), each also in a `telemetry_lost` event.
    pub fn lost_rows(&self) -> u64 {
        self.stats.dropped.load(Ordering::Relaxed)
    }

    /// Queues a telemetry row, waiting for room in the channel (back-pressure; benchmarks).
    pub async fn send_telemetry_wait(&self, row: TelemetryRow) -> bool {
        self.tx.send(Item::Telemetry(row)).await.is_ok()
    }

    pub fn send_event(&self, ev: NewEvent) -> bool {
        match self.tx.try_send(Item::Event(ev)) {
            Ok(()) => true,
            Err(_) => {
                self.stats.dropped.fetch_add(1, Ordering::Relaxed);
                false
            }
        }
    }

    /// The "committed" signal: waits until everything queued before this call is committed in
    /// the database (rows lost to an overflow are accounted for by a committed `telemetry_lost`
    /// event). False when `timeout` passes first: the rows stay buffered and are retried. The
    /// run layer marks a run `finished` only after this returned true.
    pub async fn flush(&self, timeout: Duration) -> bool {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(Item::Flush(tx)).await.is_err() {
            return false;
        }
        matches!(tokio::time::timeout(timeout, rx).await, Ok(Ok(())))
    }

    /// Gives up on the rows of `run_id` still held (a run that ends while the database keeps
    /// failing): they are dropped from the buffer, counted as lost, and their number returned
    /// (None when the writer is gone). Rows of the run queued before the call are included.
    pub async fn discard_run(&self, run_id: &str) -> Option<u64> {
        let (tx, rx) = oneshot::channel();
        self.tx
            .send(Item::Discard(run_id.to_string(), tx))
            .await
            .ok()?;
        rx.await.ok()
    }

    /// Seconds since the last successful write (None before the first).
    pub fn last_ok_age_s(&self) -> Option<f64> {
        let ms = self.stats.last_ok_ms.load(Ordering::Relaxed);
        (ms > 0).then(|| (self.started.elapsed().as_millis() as f64 - ms as f64).max(0.0) / 1000.0)
    }
}

async fn run(
    store: Store,
    cfg: WriterConfig,
    mut rx: mpsc::Receiver<Item>,
    stats: Arc<WriterStats>,
    started: Instant,
    on_error: Option<ErrorHook>,
) {
    let mut tel: Vec<TelemetryRow> = Vec::with_capacity(cfg.batch_rows);
    let mut evs: Vec<NewEvent> = Vec::new();
    let mut waiters: Vec<oneshot::Sender<()>> = Vec::new();
    let mut first_buffered: Option<Instant> = None;
    let mut retry_at: Option<Instant> = None;
    let mut backoff = Duration::from_millis(100);
    let mut open = true;
    // The current outage: (first failure, failures, first error).
    let mut outage: Option<(Instant, u64)> = None;
    let mut spill = open_spill(&cfg, &stats, &on_error, &mut evs);
    if spill.as_ref().is_some_and(|s| s.has_segments()) || !evs.is_empty() {
        first_buffered = Some(Instant::now() - cfg.max_delay);
    }
    loop {
        // Wait for input or for the next deadline (batch age or retry time).
        let deadline = match (first_buffered, retry_at) {
            (_, Some(r)) => Some(r),
            (Some(f), None) => Some(f + cfg.max_delay),
            (None, None) => None,
        };
        if open {
            let got = match deadline {
                None => rx
                    .recv()
                    .await
                    .map_or(Got::Closed, |i| Got::Item(Box::new(i))),
                Some(d) => match tokio::time::timeout_at(d.into(), rx.recv()).await {
                    Ok(i) => i.map_or(Got::Closed, |i| Got::Item(Box::new(i))),
                    Err(_) => Got::Timeout,
                },
            };
            let take = |it: Item,
                        tel: &mut Vec<TelemetryRow>,
                        evs: &mut Vec<NewEvent>,
                        waiters: &mut Vec<oneshot::Sender<()>>,
                        spill: &mut Option<spill::Spill>| match it {
                Item::Telemetry(r) => tel.push(r),
                Item::Event(e) => evs.push(e),
                Item::Flush(w) => waiters.push(w),
                Item::Discard(run, reply) => {
                    let before = tel.len();
                    tel.retain(|r| r.run_id != run);
                    let n = (before - tel.len()) as u64
                        + spill.as_mut().map_or(0, |s| s.discard_run(&run));
                    stats.dropped.fetch_add(n, Ordering::Relaxed);
                    let _ = reply.send(n);
                }
            };
            match got {
                Got::Item(it) => take(*it, &mut tel, &mut evs, &mut waiters, &mut spill),
                Got::Closed => open = false,
                Got::Timeout => {}
            }
            // Drain whatever else is already queued.
            while tel.len() < cfg.batch_rows * 4 {
                match rx.try_recv() {
                    Ok(it) => take(it, &mut tel, &mut evs, &mut waiters, &mut spill),
                    Err(mpsc::error::TryRecvError::Empty) => break,
                    Err(mpsc::error::TryRecvError::Disconnected) => {
                        open = false;
                        break;
                    }
                }
            }
        }
        if (!tel.is_empty() || !evs.is_empty()) && first_buffered.is_none() {
            first_buffered = Some(Instant::now());
        }
        // Cap the buffer during a long outage: the oldest rows go to the spill file, or are
        // dropped, counted, reported and stored as `telemetry_lost` events.
        let mut reason = "writer buffer full (database unavailable)".to_string();
        if tel.len() > cfg.max_buffer_rows {
            let n = tel.len() - cfg.max_buffer_rows;
            if let Some(sp) = spill.as_mut() {
                match sp.append(&tel[..n]) {
                    Ok(()) => {
                        tel.drain(..n);
                        stats.spilled.fetch_add(n as u64, Ordering::Relaxed);
                        stats.spill_pending.store(sp.pending(), Ordering::Relaxed);
                    }
                    Err(e) => {
                        tracing::error!("spill file: {e}");
                        reason = format!("{reason}; spill file not written: {e}");
                    }
                }
            }
        }
        if tel.len() > cfg.max_buffer_rows {
            let n = tel.len() - cfg.max_buffer_rows;
            let mut lost = std::collections::BTreeMap::new();
            for r in tel.drain(..n) {
                note_lost(&mut lost, &r.run_id, r.seq);
            }
            evs.extend(lost_events(lost, &reason));
            stats.dropped.fetch_add(n as u64, Ordering::Relaxed);
            if let Some(h) = &on_error {
                h(&format!("telemetry buffer full: dropped {n} oldest rows"));
            }
        }
        let refused = match stats.refused.lock() {
            Ok(mut m) if !m.is_empty() => std::mem::take(&mut *m),
            _ => Default::default(),
        };
        if !refused.is_empty() {
            evs.extend(lost_events(refused, "writer channel full"));
            if first_buffered.is_none() {
                first_buffered = Some(Instant::now());
            }
        }
        stats
            .buffered
            .store((tel.len() + evs.len()) as u64, Ordering::Relaxed);
        let spilled = spill.as_ref().is_some_and(|s| s.has_segments());
        let now = Instant::now();
        let due = spilled
            || !waiters.is_empty()
            || tel.len() >= cfg.batch_rows
            || first_buffered.is_some_and(|f| now >= f + cfg.max_delay)
            || (!open && (!tel.is_empty() || !evs.is_empty()));
        let may = retry_at.is_none_or(|r| now >= r);
        if due && may {
            if tel.is_empty() && evs.is_empty() && !spilled {
                for w in waiters.drain(..) {
                    let _ = w.send(());
                }
                first_buffered = None;
                continue;
            }
            // SQLite: one transaction's rows all go to the write-ahead log before a checkpoint
            // can copy them out, so transactions are capped to keep the log small.
            let cap = if store.backend() == "sqlite" {
                SQLITE_TX_ROWS
            } else {
                usize::MAX
            };
            let limit = (cfg.batch_rows * 4).min(cap);
            // Spilled rows are older than the buffer's: they are written back first.
            let from_spill = spill.as_mut().and_then(|s| s.next_batch(limit));
            let n = if from_spill.is_some() {
                0
            } else {
                tel.len().min(limit)
            };
            let rows = from_spill.as_ref().map_or(&tel[..n], |b| &b.rows[..]);
            let written = rows.len();
            let res = if rows.is_empty() && evs.is_empty() {
                Ok(())
            } else {
                store.write_batch(&evs, rows).await
            };
            let mut after: Vec<NewEvent> = Vec::new();
            if let (Ok(()), Some(b), Some(sp)) = (&res, from_spill, spill.as_mut()) {
                stats
                    .spill_replayed
                    .fetch_add(written as u64, Ordering::Relaxed);
                if let Some(done) = sp.commit(b) {
                    after = spill_done(&store, &stats, &on_error, done).await;
                }
                stats.spill_pending.store(sp.pending(), Ordering::Relaxed);
            }
            match res {
                Ok(()) => {
                    if let Some((since, failures)) = outage.take() {
                        let secs = since.elapsed().as_secs_f64();
                        tracing::info!(failures, secs, "database writes recovered");
                        stats
                            .events_written
                            .fetch_add(evs.len() as u64, Ordering::Relaxed);
                        stats.last_ok_ms.store(
                            started.elapsed().as_millis().max(1) as u64,
                            Ordering::Relaxed,
                        );
                        evs.clear();
                        evs.push(store_event(
                            "store_recovered",
                            serde_json::json!({
                                "event": "store_recovered",
                                "failures": failures,
                                "outage_s": (secs * 1000.0).round() / 1000.0,
                                "rows_written_on_recovery": written,
                                "rows_still_buffered": tel.len() - n,
                                "rows_still_spilled": spill.as_ref().map_or(0, |s| s.pending()),
                            }),
                        ));
                        evs.extend(after);
                        // Not part of the committed batch: written with the next one.
                        stats
                            .rows_written
                            .fetch_add(written as u64, Ordering::Relaxed);
                        stats.batches.fetch_add(1, Ordering::Relaxed);
                        tel.drain(..n);
                        keep_wal_small(&store, &stats).await;
                        first_buffered = Some(Instant::now() - cfg.max_delay);
                        retry_at = None;
                        backoff = Duration::from_millis(100);
                        continue;
                    }
                    stats
                        .rows_written
                        .fetch_add(written as u64, Ordering::Relaxed);
                    stats
                        .events_written
                        .fetch_add(evs.len() as u64, Ordering::Relaxed);
                    stats.batches.fetch_add(1, Ordering::Relaxed);
                    stats.last_ok_ms.store(
                        started.elapsed().as_millis().max(1) as u64,
                        Ordering::Relaxed,
                    );
                    // Events are written before telemetry in the same attempt; if telemetry then
                    // failed they would be written twice on retry, so clear them only here.
                    evs.clear();
                    evs.extend(after);
                    tel.drain(..n);
                    keep_wal_small(&store, &stats).await;
                    retry_at = None;
                    backoff = Duration::from_millis(100);
                    let spilled = spill.as_ref().is_some_and(|s| s.has_segments());
                    if tel.is_empty() && evs.is_empty() && !spilled {
                        first_buffered = None;
                        for w in waiters.drain(..) {
                            let _ = w.send(());
                        }
                    } else {
                        first_buffered = Some(Instant::now() - cfg.max_delay);
                    }
                }
                Err(e) => {
                    stats.errors.fetch_add(1, Ordering::Relaxed);
                    let msg = format!(
                        "database write failed ({} rows buffered, retry in {} ms): {e}",
                        tel.len() + evs.len(),
                        backoff.as_millis()
                    );
                    tracing::warn!("{msg}");
                    if let Ok(mut l) = stats.last_error.lock() {
                        *l = Some(msg.clone());
                    }
                    if let Some(h) = &on_error {
                        h(&msg);
                    }
                    match &mut outage {
                        Some((_, failures)) => *failures += 1,
                        None => {
                            outage = Some((Instant::now(), 1));
                            // Persisted once per outage, when the database answers again.
                            evs.push(store_event(
                                "store_error",
                                serde_json::json!({"event": "store_error", "detail": msg}),
                            ));
                        }
                    }
                    retry_at = Some(Instant::now() + backoff);
                    backoff = (backoff * 2).min(Duration::from_secs(5));
                }
            }
            stats
                .buffered
                .store((tel.len() + evs.len()) as u64, Ordering::Relaxed);
        }
        if !open
            && tel.is_empty()
            && evs.is_empty()
            && spill.as_ref().is_none_or(|s| !s.has_segments())
        {
            for w in waiters.drain(..) {
                let _ = w.send(());
            }
            return;
        }
        if let (false, Some(r)) = (open, retry_at) {
            // Closed with a failing database: keep retrying until the buffer is written.
            tokio::time::sleep_until(r.into()).await;
        }
    }
}

/// Opens the spill directory (taking over files left by a previous process); problems found in
/// them become `spill_corrupt` events. None without a directory, or when it cannot be used
/// (then rows beyond the buffer are dropped, as without one).
fn open_spill(
    cfg: &WriterConfig,
    stats: &WriterStats,
    on_error: &Option<ErrorHook>,
    evs: &mut Vec<NewEvent>,
) -> Option<spill::Spill> {
    let dir = cfg.spill_dir.as_ref()?;
    match spill::Spill::open(dir) {
        Ok((sp, problems)) => {
            for p in problems {
                tracing::error!("spill file left by a previous process: {p}");
                stats.spill_problems.fetch_add(1, Ordering::Relaxed);
                if let Some(h) = on_error {
                    h(&format!("spill file: {p}"));
                }
                evs.push(store_event(
                    "spill_corrupt",
                    serde_json::json!({"event": "spill_corrupt", "detail": p}),
                ));
            }
            if sp.pending() > 0 {
                tracing::warn!(
                    rows = sp.pending(),
                    "spill files left by a previous process: writing them back"
                );
            }
            stats.spill_pending.store(sp.pending(), Ordering::Relaxed);
            Some(sp)
        }
        Err(e) => {
            tracing::error!(
                "spill directory unusable, rows beyond the buffer will be dropped: {e}"
            );
            if let Some(h) = on_error {
                h(&format!("spill directory unusable: {e}"));
            }
            None
        }
    }
}

/// A spill file written back and removed: events for the rows of a previous process (per run,
/// with the run's state now: a run already `failed` gets its rows back but stays failed) and for
/// rows lost to a corrupt record.
async fn spill_done(
    store: &Store,
    stats: &WriterStats,
    on_error: &Option<ErrorHook>,
    d: spill::Done,
) -> Vec<NewEvent> {
    let mut out = Vec::new();
    let file = d.path.display().to_string();
    if d.orphan {
        for (run, rows) in &d.replayed {
            let state = match store.get_run(run).await {
                Ok(Some(r)) => r.state,
                Ok(None) => "unknown".into(),
                Err(_) => "unread".into(),
            };
            tracing::warn!(
                "run {run}: {rows} telemetry rows written back from {file} (left by a previous                  process; the run is {state})"
            );
            out.push(NewEvent {
                run_id: Some(run.clone()),
                t: None,
                kind: "telemetry_recovered".into(),
                payload: serde_json::json!({
                    "event": "telemetry_recovered", "run_id": run, "rows": rows,
                    "file": file, "run_state": state,
                })
                .to_string(),
                created_at: chrono::Utc::now(),
            });
        }
    }
    if let Some(p) = d.problem {
        stats.spill_problems.fetch_add(1, Ordering::Relaxed);
        let lost: u64 = d.lost.values().sum();
        stats.dropped.fetch_add(lost, Ordering::Relaxed);
        tracing::error!("{p}: {lost} spilled rows lost");
        if let Some(h) = on_error {
            h(&format!("spill file: {p}: {lost} rows lost"));
        }
        out.push(store_event(
            "spill_corrupt",
            serde_json::json!({"event": "spill_corrupt", "detail": p, "rows_lost": lost}),
        ));
        for (run, rows) in d.lost {
            out.push(NewEvent {
                run_id: Some(run.clone()),
                t: None,
                kind: "telemetry_lost".into(),
                payload: serde_json::json!({
                    "event": "telemetry_lost", "run_id": run, "rows": rows,
                    "reason": format!("spill file corrupt: {p}"),
                })
                .to_string(),
                created_at: chrono::Utc::now(),
            });
        }
    }
    out
}

/// Measures SQLite's log after a batch and checkpoints it when it grew past the limit
/// (PASSIVE: never waits for readers; the log is then reused from its start and cut back to
/// `journal_size_limit`).
async fn keep_wal_small(store: &Store, stats: &WriterStats) {
    let Some(bytes) = store.wal_bytes() else {
        return;
    };
    if bytes > CHECKPOINT_ABOVE_BYTES {
        if let Err(e) = store.checkpoint(false).await {
            tracing::debug!("WAL checkpoint: {e}");
        }
        stats.checkpoints.fetch_add(1, Ordering::Relaxed);
    }
    let now = store.wal_bytes().unwrap_or(bytes);
    stats.wal_bytes.store(now, Ordering::Relaxed);
    stats
        .wal_peak_bytes
        .fetch_max(bytes.max(now), Ordering::Relaxed);
}

enum Got {
    Item(Box<Item>),
    Closed,
    Timeout,
}
