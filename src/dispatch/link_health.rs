//! Link health of an ISO 22133 carrier, measured from its MONR stream (sans-IO).
//!
//! Every MONR carries the carrier's own time stamp (GPS quarter-milliseconds of week). Over a
//! sliding window the meter keeps (arrival, carrier time) pairs and derives:
//! * **rate**: MONR received per second;
//! * **loss**: the share of MONR missing between the first and last carrier time stamp of the
//!   window at the configured MONR period (time stamps, not arrivals, so a delayed stream is
//!   not counted as lossy);
//! * **latency**: arrival time minus carrier time stamp (median and minimum). On GPS-synchronised
//!   clocks this is the one-way delay; otherwise it also holds the clocks' offset, which is
//!   why positions are timed by the carrier's stamp and not by their arrival.
//!
//! [`LinkLimits`] judge it: arming is refused beyond a limit, naming the measure, and a run
//! that degrades past the warning levels is reported while it goes. The default delay limit is
//! ISO 22133's heartbeat timeout (an object drops the link after 10 missed HEAB periods), the
//! default loss limit a quarter of the MONR (at 100 Hz, 10 consecutive losses abort a run).

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Seconds in a GPS week.
const WEEK_S: f64 = 604_800.0;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LinkLimits {
    /// Largest MONR loss that still arms (0..1).
    pub max_monr_loss: f64,
    /// Largest median MONR latency that still arms, seconds.
    pub max_latency_s: f64,
    /// Smallest MONR rate that still arms, as a share of the configured rate.
    pub min_rate_share: f64,
    /// Warnings while a run goes, at these levels.
    pub warn_monr_loss: f64,
    pub warn_latency_s: f64,
}

impl LinkLimits {
    /// Defaults from the heartbeat timing: latency limit = 10 HEAB periods (100 ms at 100 Hz).
    pub fn for_heab_rate(heab_rate_hz: u16) -> LinkLimits {
        let timeout = 10.0 / heab_rate_hz.max(1) as f64;
        LinkLimits {
            max_latency_s: timeout,
            warn_latency_s: timeout / 2.0,
            ..LinkLimits::default()
        }
    }
}

impl Default for LinkLimits {
    fn default() -> Self {
        LinkLimits {
            max_monr_loss: 0.25,
            max_latency_s: 0.1,
            min_rate_share: 0.5,
            warn_monr_loss: 0.05,
            warn_latency_s: 0.05,
        }
    }
}

/// What the meter measured over its window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LinkHealth {
    /// MONR in the window.
    pub monr: u32,
    /// MONR per second.
    pub rate_hz: f64,
    /// Share of MONR missing (0..1).
    pub monr_loss: f64,
    /// Arrival − carrier time stamp, median and minimum, ms (one-way delay plus clock offset).
    pub latency_ms: f64,
    pub latency_min_ms: f64,
    /// Seconds of the carrier's time stamps the measures cover (up to the window).
    pub span_s: f64,
}

/// Loss and rate are judged only over at least this much of a link's MONR stream.
pub const MIN_JUDGED_SPAN_S: f64 = 0.3;

impl LinkHealth {
    /// The first measure beyond `limits` (for arming), worded for the operator.
    pub fn refusal(&self, limits: &LinkLimits, monr_rate_hz: f64) -> Option<String> {
        if self.monr < 3 {
            return Some(format!(
                "MONR rate {:.0} Hz: too few MONR measured ({}) to judge the link",
                self.rate_hz, self.monr
            ));
        }
        let judged = self.span_s >= MIN_JUDGED_SPAN_S;
        if judged && self.monr_loss > limits.max_monr_loss {
            return Some(format!(
                "MONR loss {:.0} % exceeds the limit {:.0} %",
                self.monr_loss * 100.0,
                limits.max_monr_loss * 100.0
            ));
        }
        if self.latency_ms > limits.max_latency_s * 1000.0 {
            return Some(format!(
                "MONR latency {:.0} ms exceeds the limit {:.0} ms",
                self.latency_ms,
                limits.max_latency_s * 1000.0
            ));
        }
        let min_rate = monr_rate_hz * limits.min_rate_share;
        if judged && self.rate_hz < min_rate {
            return Some(format!(
                "MONR rate {:.0} Hz below the limit {min_rate:.0} Hz",
                self.rate_hz
            ));
        }
        None
    }

    /// The first measure beyond the warning levels (while a run goes).
    pub fn warning(&self, limits: &LinkLimits) -> Option<String> {
        if self.span_s >= MIN_JUDGED_SPAN_S && self.monr_loss > limits.warn_monr_loss {
            return Some(format!("MONR loss {:.0} %", self.monr_loss * 100.0));
        }
        if self.latency_ms > limits.warn_latency_s * 1000.0 {
            return Some(format!("MONR latency {:.0} ms", self.latency_ms));
        }
        None
    }
}

/// Sliding-window meter of one carrier's MONR.
#[derive(Debug, Clone)]
pub struct LinkMeter {
    window_s: f64,
    period_s: f64,
    /// (arrival s, carrier s of week unwrapped to the arrival's week, latency s).
    seen: VecDeque<(f64, f64, f64)>,
}

impl LinkMeter {
    pub fn new(monr_rate_hz: f64, window_s: f64) -> LinkMeter {
        LinkMeter {
            window_s,
            period_s: 1.0 / monr_rate_hz.max(1e-3),
            seen: VecDeque::new(),
        }
    }

    pub fn reset(&mut self) {
        self.seen.clear();
    }

    /// A MONR arrived at `arrival_s` (any clock, seconds), when the control centre's GPS time
    /// of week was `arrival_gps_s`; `carrier_qms` is its own time stamp. Returns the carrier's
    /// time stamp on the arrival clock (`arrival_s` minus the latency).
    pub fn on_monr(&mut self, arrival_s: f64, arrival_gps_s: f64, carrier_qms: u32) -> f64 {
        let mut latency = arrival_gps_s - carrier_qms as f64 / 4000.0;
        // Week roll-over between the two stamps.
        if latency > WEEK_S / 2.0 {
            latency -= WEEK_S;
        } else if latency < -WEEK_S / 2.0 {
            latency += WEEK_S;
        }
        let carrier_s = arrival_s - latency;
        self.seen.push_back((arrival_s, carrier_s, latency));
        while self
            .seen
            .front()
            .is_some_and(|f| f.0 < arrival_s - self.window_s)
        {
            self.seen.pop_front();
        }
        carrier_s
    }

    /// The window's measures at `now_s` (arrival clock): MONR older than the window are not
    /// counted, so a silent link shows rate 0.
    pub fn health(&self, now_s: f64) -> LinkHealth {
        let live: Vec<&(f64, f64, f64)> = self
            .seen
            .iter()
            .filter(|s| s.0 >= now_s - self.window_s)
            .collect();
        let n = live.len();
        if n == 0 {
            return LinkHealth::default();
        }
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        let (mut first, mut last) = (f64::INFINITY, f64::NEG_INFINITY);
        for s in &live {
            lo = lo.min(s.1);
            hi = hi.max(s.1);
            first = first.min(s.0);
            last = last.max(s.0);
        }
        // Over the part of the window the stream covers (a link that just came up).
        let covered = (now_s - first).clamp(last - first, self.window_s);
        let expected = ((hi - lo) / self.period_s).round() + 1.0;
        let mut lat: Vec<f64> = live.iter().map(|s| s.2).collect();
        lat.sort_by(f64::total_cmp);
        LinkHealth {
            monr: n as u32,
            rate_hz: if covered > 0.0 {
                n as f64 / covered
            } else {
                0.0
            },
            monr_loss: (1.0 - n as f64 / expected).clamp(0.0, 1.0),
            latency_ms: lat[n / 2] * 1000.0,
            latency_min_ms: lat[0] * 1000.0,
            span_s: hi - lo,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 100 Hz MONR over 2 s with `lose(i)` dropped and `delay` seconds of travel.
    fn feed(lose: impl Fn(u32) -> bool, delay: f64) -> (LinkMeter, f64) {
        let mut m = LinkMeter::new(100.0, 1.0);
        let base_gps = 300_000.0;
        let mut now = 0.0;
        for i in 0..200u32 {
            let sent = i as f64 * 0.01;
            now = sent + delay;
            if lose(i) {
                continue;
            }
            let qms = ((base_gps + sent) * 4000.0).round() as u32;
            let t = m.on_monr(now, base_gps + now, qms);
            assert!((t - sent).abs() < 1e-3, "timed by the carrier's stamp");
        }
        (m, now)
    }

    #[test]
    fn a_clean_link_passes() {
        let (m, now) = feed(|_| false, 0.002);
        let h = m.health(now);
        assert!((h.rate_hz - 100.0).abs() <= 1.0, "{h:?}");
        assert!(h.monr_loss < 0.02, "{h:?}");
        assert!((h.latency_ms - 2.0).abs() < 0.5, "{h:?}");
        assert_eq!(h.refusal(&LinkLimits::default(), 100.0), None);
        assert_eq!(h.warning(&LinkLimits::default()), None);
    }

    #[test]
    fn loss_and_latency_are_named() {
        let (m, now) = feed(|i| i % 2 == 0, 0.0);
        let h = m.health(now);
        assert!((h.monr_loss - 0.5).abs() < 0.03, "{h:?}");
        let r = h.refusal(&LinkLimits::default(), 100.0).expect("refused");
        assert!(r.starts_with("MONR loss 50 %"), "{r}");

        let (m, now) = feed(|_| false, 0.15);
        let r = m
            .health(now)
            .refusal(&LinkLimits::for_heab_rate(100), 100.0)
            .expect("refused");
        assert!(r.starts_with("MONR latency 150 ms"), "{r}");

        let (m, now) = feed(|_| false, 0.09);
        let h = m.health(now);
        assert_eq!(h.refusal(&LinkLimits::for_heab_rate(100), 100.0), None);
        assert_eq!(
            h.warning(&LinkLimits::default()).as_deref(),
            Some("MONR latency 90 ms")
        );
        // Silent link: nothing in the window.
        assert_eq!(m.health(now + 2.0).monr, 0);
    }

    #[test]
    fn week_rollover() {
        let mut m = LinkMeter::new(100.0, 1.0);
        let t = m.on_monr(10.0, 0.004, ((WEEK_S - 0.001) * 4000.0) as u32);
        assert!((10.0 - t - 0.005).abs() < 1e-6, "{t}");
    }
}
