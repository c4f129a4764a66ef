//! The run's one clock: sample time (the engine's only time base) ↔ wall time.
//!
//! The engine never reads the system clock; this mapping exists only so that the driver knows
//! how long to sleep before a sample or an engine timer is due, and so that a carrier's STRT
//! can be scheduled at the wall instant of a predicted sample time.
//!
//! * [`Pace::Max`]: no wall mapping at all: samples are applied as fast as they can be read,
//!   and engine timers fire only when the next sample shows they are due.
//! * [`Pace::Factor`]: recorded data, anchored at the first sample, each sample waits for its
//!   instant (`wall = wall₀ + (t − t₀)/factor`).
//! * [`Pace::Live`]: live data, re-anchored at every sample's arrival (the instant its datagram
//!   left the socket, when the source stamps it: [`crate::ingest::Received`]), so a timer
//!   between samples fires at "last arrival + (t − last sample time)" and stale telemetry is
//!   noticed.

use std::str::FromStr;
use std::time::Duration;

use tokio::time::Instant;

/// How sample time relates to wall time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pace {
    /// As fast as possible (recorded data only).
    Max,
    /// Recorded data at real time × factor.
    Factor(f64),
    /// Live data: applied on arrival, real time.
    Live,
}

impl Pace {
    pub fn is_live(self) -> bool {
        self == Pace::Live
    }

    /// The real-time factor (1 for live data), None for `Max`.
    pub fn factor(self) -> Option<f64> {
        match self {
            Pace::Max => None,
            Pace::Factor(f) => Some(f),
            Pace::Live => Some(1.0),
        }
    }
}

/// Lowest and highest accepted real-time factor: below, a 10 s run would take days; above, the
/// pacing is meaningless (use `max`).
pub const MIN_FACTOR: f64 = 0.01;
pub const MAX_FACTOR: f64 = 1000.0;

impl FromStr for Pace {
    type Err = String;
    /// `max` or a factor (`4`, `4x`); `live` is not a replay pace and is rejected.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("max") {
            return Ok(Pace::Max);
        }
        let f: f64 = s
            .trim_end_matches(['x', 'X'])
            .parse()
            .map_err(|_| format!("speed must be 'max' or a positive factor, got '{s}'"))?;
        Pace::factor_checked(f)
    }
}

impl Pace {
    /// A replay factor within [`MIN_FACTOR`, `MAX_FACTOR`].
    pub fn factor_checked(f: f64) -> Result<Pace, String> {
        if f.is_finite() && (MIN_FACTOR..=MAX_FACTOR).contains(&f) {
            Ok(Pace::Factor(f))
        } else {
            Err(format!(
                "speed factor must be between {MIN_FACTOR} and {MAX_FACTOR}, got {f}"
            ))
        }
    }
}

/// Sample time ↔ wall time (see the module doc).
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    pace: Pace,
    anchor: Option<(f64, Instant)>,
}

impl Clock {
    pub fn new(pace: Pace) -> Clock {
        Clock { pace, anchor: None }
    }

    pub fn pace(&self) -> Pace {
        self.pace
    }

    /// Whether [`Clock::wall`] can map at all (not `Max`).
    pub fn is_paced(&self) -> bool {
        self.pace != Pace::Max
    }

    /// A sample with time `t_s` is being applied at wall instant `at`: the first one anchors a
    /// recorded pace, every one anchors a live pace.
    pub fn on_sample(&mut self, t_s: f64, at: Instant) {
        if self.anchor.is_none() || self.pace.is_live() {
            self.anchor = Some((t_s, at));
        }
    }

    /// Anchors explicitly (tests, benchmarks).
    pub fn anchor(&mut self, t_s: f64, at: Instant) {
        self.anchor = Some((t_s, at));
    }

    pub fn is_anchored(&self) -> bool {
        self.anchor.is_some()
    }

    /// Wall instant of sample time `t_s` (None at `Max` or before the first sample).
    pub fn wall(&self, t_s: f64) -> Option<Instant> {
        let f = self.pace.factor()?;
        let (t0, w0) = self.anchor?;
        let d = (t_s - t0) / f;
        if !d.is_finite() {
            return None;
        }
        Some(if d >= 0.0 {
            w0 + Duration::from_secs_f64(d.min(1e9))
        } else {
            w0.checked_sub(Duration::from_secs_f64((-d).min(1e9)))
                .unwrap_or(w0)
        })
    }

    /// Sample time of a wall instant (None at `Max` or before the first sample).
    pub fn sample_time(&self, at: Instant) -> Option<f64> {
        let f = self.pace.factor()?;
        let (t0, w0) = self.anchor?;
        let d = if at >= w0 {
            at.duration_since(w0).as_secs_f64()
        } else {
            -w0.duration_since(at).as_secs_f64()
        };
        Some(t0 + d * f)
    }

    /// Sample time now (see [`Clock::sample_time`]).
    pub fn now_s(&self) -> Option<f64> {
        self.sample_time(Instant::now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pace_parses() {
        assert_eq!("max".parse::<Pace>(), Ok(Pace::Max));
        assert_eq!("4".parse::<Pace>(), Ok(Pace::Factor(4.0)));
        assert_eq!("4x".parse::<Pace>(), Ok(Pace::Factor(4.0)));
        assert!("0".parse::<Pace>().is_err());
        assert!("1e-300".parse::<Pace>().is_err());
        assert!("fast".parse::<Pace>().is_err());
    }

    #[test]
    fn maps_sample_time_to_wall_time() {
        let w0 = Instant::now();
        let mut c = Clock::new(Pace::Factor(2.0));
        assert!(c.wall(1.0).is_none(), "no mapping before the first sample");
        c.on_sample(100.0, w0);
        c.on_sample(100.5, w0 + Duration::from_secs(9)); // recorded: only the first anchors
        let w = c.wall(101.0).expect("mapped");
        assert_eq!(w.duration_since(w0), Duration::from_millis(500));
        assert!((c.sample_time(w).expect("inverse") - 101.0).abs() < 1e-9);
        assert!(c.wall(99.0).expect("mapped") <= w0);
        // As fast as possible: no wall mapping at all.
        let mut m = Clock::new(Pace::Max);
        m.on_sample(100.0, w0);
        assert!(m.wall(101.0).is_none() && m.sample_time(w0).is_none());
        // Live: real time from the latest arrival.
        let mut l = Clock::new(Pace::Live);
        l.on_sample(5.0, w0);
        let w1 = w0 + Duration::from_secs(3);
        l.on_sample(5.1, w1);
        assert_eq!(
            l.wall(5.3).expect("mapped").duration_since(w1),
            Duration::from_millis(200)
        );
    }
}
