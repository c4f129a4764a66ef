//! Time series of a run for the report's plots: the `"traces"` block of a
//! run result (`scil replay --traces`, service runs).
//!
//! Built from the same frames the validity verdict is computed on, so each plotted quantity is
//! the one its check uses: VUT speed and lateral deviation raw, yaw rate and steering-wheel
//! rate through the phaseless 10 Hz Butterworth run over the whole record (as [`super::assess`]
//! does). Kept: from T0 − 1 s (or the first sample) to the end of the window + 0.5 s, at most
//! [`MAX_RATE_HZ`] (a faster record is decimated by time, never interpolated), at most
//! [`MAX_POINTS`] points (a run that never opened the window keeps its latest ones; a longer
//! window is strided). Columnar arrays, one entry per kept VUT sample; `null` = not measured.
//!
//! Bands are absolute, in the plotted quantity's unit (VUT speed: nominal … nominal + 1 km/h),
//! with the interval over which they apply (`from_s`/`to_s`, `null` = unbounded), so a report
//! draws them without re-deriving the protocol's limits.

use serde::Serialize;

use super::{deviations, Channel, Frame, Limits, Window};
use crate::scenario::TargetKind;

/// Highest point rate kept (Hz).
pub const MAX_RATE_HZ: f64 = 100.0;
/// Kept before T0 (s).
pub const BEFORE_T0_S: f64 = 1.0;
/// Kept after the end of the window (s).
pub const AFTER_END_S: f64 = 0.5;
/// Most points per trace.
pub const MAX_POINTS: usize = 20_000;

/// A tolerance band in absolute units, applying over `[from_s, to_s]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Band {
    pub lo: f64,
    pub hi: f64,
    pub limit: String,
    pub from_s: Option<f64>,
    pub to_s: Option<f64>,
}

/// The VUT's bands.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bands {
    /// `None` when the scenario names no nominal VUT speed.
    pub vut_speed_kmh: Option<Band>,
    pub vut_lateral_m: Band,
    pub vut_yaw_rate_dps: Band,
    pub vut_steering_rate_dps: Band,
}

/// One target's series (same length as [`Traces::t_s`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetTrace {
    pub id: String,
    pub kind: TargetKind,
    pub nominal_speed_kmh: f64,
    /// Crossing targets: the nominal travel from start to the impact point.
    pub nominal_travel_m: Option<f64>,
    /// The validity-checked target's speed band (after its acceleration, before braking).
    pub speed_band: Option<Band>,
    /// VUT TTC to this target.
    pub ttc_s: Vec<Option<f64>>,
    pub speed_kmh: Vec<Option<f64>>,
    /// Travel along its path from its start point.
    pub travel_m: Vec<Option<f64>>,
}

/// The `"traces"` block (see the module doc).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Traces {
    pub max_rate_hz: f64,
    /// The validity window, when it opened.
    pub window: Option<Window>,
    /// VUT TTC that opens the window (the scenario's `[validity]`), when it has one.
    pub t0_ttc_s: Option<f64>,
    pub t_s: Vec<f64>,
    pub vut_speed_kmh: Vec<f64>,
    /// Lateral deviation from the intended path (the `vut_lateral` check's quantity; from T0).
    pub vut_lateral_m: Vec<Option<f64>>,
    /// Filtered yaw rate.
    pub vut_yaw_rate_dps: Vec<f64>,
    /// Filtered steering-wheel rate; `None` without a steering-wheel angle.
    pub vut_steering_rate_dps: Option<Vec<f64>>,
    pub bands: Bands,
    pub targets: Vec<TargetTrace>,
}

/// One target's per-sample input (full rate, one entry per frame).
#[derive(Debug, Clone)]
pub struct TargetInput {
    pub id: String,
    pub kind: TargetKind,
    pub nominal_speed_kmh: f64,
    pub nominal_travel_m: Option<f64>,
    /// Checked by `target_speed`, over this interval (sample time; `None` = unbounded).
    pub speed_checked: Option<(Option<f64>, Option<f64>)>,
    pub ttc_s: Vec<Option<f64>>,
    pub speed_kmh: Vec<Option<f64>>,
    pub travel_m: Vec<Option<f64>>,
}

/// What [`build`] needs besides the frames.
#[derive(Debug, Clone)]
pub struct TraceSetup {
    pub limits: Limits,
    /// The scenario names the VUT's nominal speed.
    pub vut_nominal_known: bool,
    pub window: Option<Window>,
    pub t0_ttc_s: Option<f64>,
}

fn round(x: f64, scale: f64) -> f64 {
    if x.is_finite() {
        (x * scale).round() / scale
    } else {
        x
    }
}

/// Indices of the kept frames: cropped to the window's surroundings, at most
/// [`MAX_RATE_HZ`], at most [`MAX_POINTS`].
pub fn pick(times: &[f64], window: Option<Window>) -> Vec<usize> {
    let (from, to) = match window {
        Some(w) => (w.from_s - BEFORE_T0_S, w.to_s + AFTER_END_S),
        None => (f64::NEG_INFINITY, f64::INFINITY),
    };
    let min_dt = 1.0 / MAX_RATE_HZ - 1e-6;
    let mut idx = Vec::new();
    let mut last: Option<f64> = None;
    for (i, &t) in times.iter().enumerate() {
        if t < from - 1e-9 || t > to + 1e-9 || last.is_some_and(|l| t - l < min_dt) {
            continue;
        }
        idx.push(i);
        last = Some(t);
    }
    if idx.len() > MAX_POINTS && window.is_none() {
        // No window to centre on: the latest points.
        idx.drain(..idx.len() - MAX_POINTS);
    } else if idx.len() > MAX_POINTS {
        let stride = idx.len().div_ceil(MAX_POINTS);
        idx = idx.into_iter().step_by(stride).collect();
    }
    idx
}

fn band(lim: &Limits, c: Channel, offset: f64, w: Option<Window>) -> Band {
    let (lo, hi, limit) = lim.band(c);
    Band {
        lo: offset + lo,
        hi: offset + hi,
        limit,
        from_s: w.map(|w| w.from_s),
        to_s: w.map(|w| w.to_s),
    }
}

/// The traces of a run from its full-rate `frames` and per-target series.
pub fn build(frames: &[Frame], setup: &TraceSetup, targets: Vec<TargetInput>) -> Traces {
    let lim = &setup.limits;
    let win = setup.window;
    let mut warnings = Vec::new();
    // The checks' own filtered rates (index 2: yaw rate, 3: steering-wheel rate).
    let devs = deviations(frames, lim, &mut warnings);
    let times: Vec<f64> = frames.iter().map(|f| f.time_s).collect();
    let idx = pick(&times, win);
    let col = |g: &dyn Fn(usize) -> f64, s: f64| -> Vec<f64> {
        idx.iter().map(|&i| round(g(i), s)).collect()
    };
    let opt = |g: &dyn Fn(usize) -> Option<f64>, s: f64| {
        idx.iter()
            .map(|&i| g(i).map(|x| round(x, s)))
            .collect::<Vec<_>>()
    };
    let steer = frames
        .iter()
        .all(|f| f.steering_wheel_deg.is_some())
        .then(|| col(&|i| devs[i][3].unwrap_or(f64::NAN), 1e4));
    let targets = targets
        .into_iter()
        .map(|t| {
            let speed_band = t.speed_checked.map(|(from, to)| {
                let (lo, hi, limit) = lim.band(Channel::TargetSpeed);
                let from = match (from, win) {
                    (Some(a), Some(w)) => Some(a.max(w.from_s)),
                    (a, w) => a.or(w.map(|w| w.from_s)),
                };
                let to = match (to, win) {
                    (Some(a), Some(w)) => Some(a.min(w.to_s)),
                    (a, w) => a.or(w.map(|w| w.to_s)),
                };
                Band {
                    lo: t.nominal_speed_kmh + lo,
                    hi: t.nominal_speed_kmh + hi,
                    limit,
                    from_s: from,
                    to_s: to,
                }
            });
            let at = |v: &Vec<Option<f64>>, s: f64| {
                idx.iter()
                    .map(|&i| v.get(i).copied().flatten().map(|x| round(x, s)))
                    .collect::<Vec<_>>()
            };
            TargetTrace {
                ttc_s: at(&t.ttc_s, 1e5),
                speed_kmh: at(&t.speed_kmh, 1e4),
                travel_m: at(&t.travel_m, 1e5),
                id: t.id,
                kind: t.kind,
                nominal_speed_kmh: t.nominal_speed_kmh,
                nominal_travel_m: t.nominal_travel_m,
                speed_band,
            }
        })
        .collect();
    Traces {
        max_rate_hz: MAX_RATE_HZ,
        window: win,
        t0_ttc_s: setup.t0_ttc_s,
        t_s: col(&|i| frames[i].time_s, 1e6),
        vut_speed_kmh: col(&|i| frames[i].vut_speed_kmh, 1e4),
        vut_lateral_m: opt(&|i| frames[i].vut_lateral_m, 1e5),
        vut_yaw_rate_dps: col(&|i| devs[i][2].unwrap_or(frames[i].yaw_rate_dps), 1e4),
        vut_steering_rate_dps: steer,
        bands: Bands {
            vut_speed_kmh: setup.vut_nominal_known.then(|| {
                band(
                    lim,
                    Channel::VutSpeed,
                    lim.vut_nominal_kmh.unwrap_or(0.0),
                    win,
                )
            }),
            vut_lateral_m: band(lim, Channel::VutLateral, 0.0, win),
            vut_yaw_rate_dps: band(lim, Channel::VutYawRate, 0.0, win),
            vut_steering_rate_dps: band(lim, Channel::VutSteeringRate, 0.0, win),
        },
        targets,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pick_crops_and_decimates() {
        // 200 Hz over 10 s, window 4..6: 3 .. 6.5 s at 100 Hz.
        let t: Vec<f64> = (0..2000).map(|k| k as f64 * 0.005).collect();
        let idx = pick(
            &t,
            Some(Window {
                from_s: 4.0,
                to_s: 6.0,
            }),
        );
        let kept: Vec<f64> = idx.iter().map(|&i| t[i]).collect();
        assert!((kept[0] - 3.0).abs() < 1e-9, "{}", kept[0]);
        assert!((kept[kept.len() - 1] - 6.5).abs() < 1e-9);
        assert_eq!(kept.len(), 351);
        assert!(kept.windows(2).all(|w| w[1] - w[0] >= 0.0099));
        // No window, a long record: the latest MAX_POINTS.
        let t: Vec<f64> = (0..50_000).map(|k| k as f64 * 0.01).collect();
        let idx = pick(&t, None);
        assert_eq!(idx.len(), MAX_POINTS);
        assert_eq!(idx[MAX_POINTS - 1], 49_999);
        // A window longer than MAX_POINTS at 100 Hz: strided over the whole window.
        let idx = pick(
            &t,
            Some(Window {
                from_s: 10.0,
                to_s: 480.0,
            }),
        );
        assert!(idx.len() <= MAX_POINTS && idx.len() > MAX_POINTS / 2);
        assert!(t[idx[0]] <= 9.0 + 1e-9 && t[*idx.last().unwrap()] >= 480.0);
    }
}
