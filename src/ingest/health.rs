//! Per-source health counters, shared between a source task and the API/dashboard.
//!
//! A [`SourceHealth`] is a cheap clone (`Arc` inside); the source increments counters, readers take a
//! [`HealthSnapshot`] (serde `Serialize`) at any time. Rates are computed over the last
//! [`RATE_WINDOW`] of wall-clock time.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::Serialize;

/// Window over which `rate_hz` is computed.
pub const RATE_WINDOW: Duration = Duration::from_secs(2);

/// Point-in-time view of one source's health.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HealthSnapshot {
    /// Source name, e.g. `ncom-udp:0.0.0.0:3000`.
    pub source: String,
    /// Messages (datagrams, lines, frames) received, valid or not.
    pub messages: u64,
    /// Samples (or decoded CAN frames) produced.
    pub samples: u64,
    /// Samples per second over the last two seconds of wall-clock time.
    pub rate_hz: f64,
    /// Wall-clock seconds since the last sample (None before the first).
    pub last_sample_age_s: Option<f64>,
    /// Source time of the last sample.
    pub last_sample_time_s: Option<f64>,
    /// Messages that could not be parsed (wrong length, bad sync, bad JSON, bad hex...).
    pub malformed: u64,
    /// Messages whose checksum failed (NCOM checksum 1) or that were only partly valid.
    pub checksum_failed: u64,
    /// Messages with a source time at or before the previous one (dropped).
    pub out_of_order: u64,
    /// CAN frames whose id is not in the DBC.
    pub unknown_id: u64,
    /// Valid messages that gave no sample (no time yet, navigation status < 2, ...).
    pub no_fix: u64,
    /// Samples whose navigation status is not "locked" (NCOM status != 4).
    pub not_locked: u64,
    /// Bytes skipped while resynchronising a byte stream.
    pub skipped_bytes: u64,
    /// Last error text (I/O or parse), for display.
    pub last_error: Option<String>,
    /// Malformed messages by why they were refused (`too_short`, `other_id`,
    /// `unknown_version`, ...), for sources that tell; also counted in `malformed`.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub rejected: std::collections::BTreeMap<String, u64>,
}

#[derive(Debug)]
struct Inner {
    snap: HealthSnapshot,
    last_sample_at: Option<Instant>,
    recent: VecDeque<Instant>,
}

/// Shared, cloneable health handle for one source.
#[derive(Debug, Clone)]
pub struct SourceHealth(Arc<Mutex<Inner>>);

impl SourceHealth {
    pub fn new(source: impl Into<String>) -> Self {
        Self(Arc::new(Mutex::new(Inner {
            snap: HealthSnapshot {
                source: source.into(),
                ..Default::default()
            },
            last_sample_at: None,
            recent: VecDeque::new(),
        })))
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave counters inconsistent: recover.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn message(&self) {
        self.lock().snap.messages += 1;
    }

    pub fn sample(&self, time_s: f64) {
        let now = Instant::now();
        let mut g = self.lock();
        g.snap.samples += 1;
        g.snap.last_sample_time_s = Some(time_s);
        g.last_sample_at = Some(now);
        g.recent.push_back(now);
        while g
            .recent
            .front()
            .is_some_and(|t| now.duration_since(*t) > RATE_WINDOW)
        {
            g.recent.pop_front();
        }
    }

    pub fn malformed(&self, err: impl std::fmt::Display) {
        let mut g = self.lock();
        g.snap.malformed += 1;
        g.snap.last_error = Some(err.to_string());
    }
    /// A malformed message, counted under `kind` too.
    pub fn rejected(&self, kind: &str, err: impl std::fmt::Display) {
        let mut g = self.lock();
        g.snap.malformed += 1;
        *g.snap.rejected.entry(kind.to_string()).or_default() += 1;
        g.snap.last_error = Some(err.to_string());
    }
    pub fn checksum_failed(&self) {
        self.lock().snap.checksum_failed += 1;
    }
    pub fn out_of_order(&self) {
        self.lock().snap.out_of_order += 1;
    }
    pub fn unknown_id(&self) {
        self.lock().snap.unknown_id += 1;
    }
    pub fn no_fix(&self) {
        self.lock().snap.no_fix += 1;
    }
    pub fn not_locked(&self) {
        self.lock().snap.not_locked += 1;
    }
    pub fn skipped_bytes(&self, n: u64) {
        self.lock().snap.skipped_bytes += n;
    }
    pub fn error(&self, err: impl std::fmt::Display) {
        self.lock().snap.last_error = Some(err.to_string());
    }

    pub fn snapshot(&self) -> HealthSnapshot {
        let now = Instant::now();
        let g = self.lock();
        let mut s = g.snap.clone();
        s.last_sample_age_s = g
            .last_sample_at
            .map(|t| now.duration_since(t).as_secs_f64());
        let n = g
            .recent
            .iter()
            .filter(|t| now.duration_since(**t) <= RATE_WINDOW)
            .count();
        s.rate_hz = n as f64 / RATE_WINDOW.as_secs_f64();
        s
    }
}

/// All sources of a running service, for the API (`GET /health` later).
#[derive(Debug, Clone, Default)]
pub struct HealthRegistry(Arc<Mutex<Vec<SourceHealth>>>);

impl HealthRegistry {
    pub fn new() -> Self {
        Self::default()
    }
    /// Creates and registers a source.
    pub fn register(&self, source: impl Into<String>) -> SourceHealth {
        let h = SourceHealth::new(source);
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(h.clone());
        h
    }
    pub fn snapshot(&self) -> Vec<HealthSnapshot> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|h| h.snapshot())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_rate() {
        let reg = HealthRegistry::new();
        let h = reg.register("test");
        for i in 0..10 {
            h.message();
            h.sample(i as f64);
        }
        h.malformed("bad");
        let s = &reg.snapshot()[0];
        assert_eq!(s.samples, 10);
        assert_eq!(s.malformed, 1);
        assert_eq!(s.rate_hz, 5.0);
        assert!(s.last_sample_age_s.is_some());
        assert!(serde_json::to_string(s)
            .unwrap()
            .contains("\"malformed\":1"));
    }
}
