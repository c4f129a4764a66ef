//! The telemetry/event writer: one task that batches rows from a bounded channel into
//! transactions, so the engine never waits on the database.
//!
//! * Rows are drained from the channel continuously into an in-memory buffer, even while the
//!   database is failing, so the channel stays free.
//! * A batch is written when it reaches `batch_rows` or `max_delay` has passed since the first
//!   buffered row, or when someone asks for a [`Writer::flush`].
//! * On a database error the batch stays in the buffer and is retried with exponential backoff
//!   (100 ms doubling to 5 s). Every failure is counted ([`WriterStats::errors`]) and reported
//!   through the `on_error` callback (the service turns it into an event and a health entry).
//! * Only if the buffer exceeds `max_buffer_rows` (a long outage) are the oldest rows dropped —
//!   counted in [`WriterStats::dropped`] and reported, never silent. A full channel (the writer
//!   task not keeping up at all) is counted the same way by [`Writer::send_telemetry`].

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
}

impl Default for WriterConfig {
    fn default() -> Self {
        WriterConfig {
            channel: 65_536,
            batch_rows: 5_000,
            max_delay: Duration::from_millis(100),
            max_buffer_rows: 2_000_000,
        }
    }
}

/// Counters, read by `/metrics` and the health frames.
#[derive(Debug, Default)]
pub struct WriterStats {
    pub rows_written: AtomicU64,
    pub events_written: AtomicU64,
    pub batches: AtomicU64,
    pub errors: AtomicU64,
    pub dropped: AtomicU64,
    pub buffered: AtomicU64,
    /// Milliseconds since the writer started at the last successful write.
    pub last_ok_ms: AtomicU64,
    pub last_error: Mutex<Option<String>>,
}

enum Item {
    Telemetry(TelemetryRow),
    Event(NewEvent),
    Flush(oneshot::Sender<()>),
}

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
            Err(_) => {
                self.stats.dropped.fetch_add(1, Ordering::Relaxed);
                false
            }
        }
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

    /// Waits until everything queued before this call is written (or `timeout` passes: then
    /// false, and the rows stay buffered for later retries).
    pub async fn flush(&self, timeout: Duration) -> bool {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(Item::Flush(tx)).await.is_err() {
            return false;
        }
        matches!(tokio::time::timeout(timeout, rx).await, Ok(Ok(())))
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
                        waiters: &mut Vec<oneshot::Sender<()>>| match it {
                Item::Telemetry(r) => tel.push(r),
                Item::Event(e) => evs.push(e),
                Item::Flush(w) => waiters.push(w),
            };
            match got {
                Got::Item(it) => take(*it, &mut tel, &mut evs, &mut waiters),
                Got::Closed => open = false,
                Got::Timeout => {}
            }
            // Drain whatever else is already queued.
            while tel.len() < cfg.batch_rows * 4 {
                match rx.try_recv() {
                    Ok(it) => take(it, &mut tel, &mut evs, &mut waiters),
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
        // Cap the buffer during a long outage: drop the oldest rows, counted and reported.
        if tel.len() > cfg.max_buffer_rows {
            let n = tel.len() - cfg.max_buffer_rows;
            tel.drain(..n);
            stats.dropped.fetch_add(n as u64, Ordering::Relaxed);
            if let Some(h) = &on_error {
                h(&format!("telemetry buffer full: dropped {n} oldest rows"));
            }
        }
        stats
            .buffered
            .store((tel.len() + evs.len()) as u64, Ordering::Relaxed);
        let now = Instant::now();
        let due = !waiters.is_empty()
            || tel.len() >= cfg.batch_rows
            || first_buffered.is_some_and(|f| now >= f + cfg.max_delay)
            || (!open && (!tel.is_empty() || !evs.is_empty()));
        let may = retry_at.is_none_or(|r| now >= r);
        if due && may {
            if tel.is_empty() && evs.is_empty() {
                for w in waiters.drain(..) {
                    let _ = w.send(());
                }
                first_buffered = None;
                continue;
            }
            let n = tel.len().min(cfg.batch_rows * 4);
            let res = async {
                store.insert_events(&evs).await?;
                store.insert_telemetry(&tel[..n]).await
            }
            .await;
            match res {
                Ok(()) => {
                    stats.rows_written.fetch_add(n as u64, Ordering::Relaxed);
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
                    tel.drain(..n);
                    retry_at = None;
                    backoff = Duration::from_millis(100);
                    if tel.is_empty() {
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
                    *stats.last_error.lock().unwrap() = Some(msg.clone());
                    if let Some(h) = &on_error {
                        h(&msg);
                    }
                    // Persisted too, once the database answers again.
                    evs.push(NewEvent {
                        run_id: None,
                        t: None,
                        kind: "store_error".into(),
                        payload: serde_json::json!({"event": "store_error", "detail": msg})
                            .to_string(),
                        created_at: chrono::Utc::now(),
                    });
                    retry_at = Some(Instant::now() + backoff);
                    backoff = (backoff * 2).min(Duration::from_secs(5));
                }
            }
            stats
                .buffered
                .store((tel.len() + evs.len()) as u64, Ordering::Relaxed);
        }
        if !open && tel.is_empty() && evs.is_empty() {
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

enum Got {
    Item(Box<Item>),
    Closed,
    Timeout,
}
