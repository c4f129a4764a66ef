//! A recorded CAN log on the telemetry's time base. Loggers write their own times: candump
//! the capturing machine's clock (or whatever `-l` was given), Vector BLF a SYSTEMTIME start
//! plus each object's offset, ASC times relative to its trigger block's start, MDF4 its
//! header's start time plus the master channel. The INS recording is in GPS seconds of week.
//! Before a log is fused its offset is fixed: given (`--can-offset`), found by matching a CAN
//! speed signal to the INS speed ([`align`]), or 0; a log whose shifted times never overlap
//! the telemetry is refused naming both spans, never fused as nothing.

use serde::{Deserialize, Serialize};

/// How the log's times are moved onto the telemetry's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CanTimebase {
    /// Seconds added to every frame's time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset_s: Option<f64>,
    /// `speed=MESSAGE.SIGNAL`: find the offset by cross-correlating that signal with the
    /// INS speed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub align: Option<String>,
}

impl CanTimebase {
    /// The speed signal of `align` (`speed=MESSAGE.SIGNAL`).
    pub fn align_signal(&self) -> Result<Option<(String, String)>, String> {
        let Some(a) = &self.align else {
            return Ok(None);
        };
        let bad = || {
            format!("CAN alignment {a:?}: expected speed=MESSAGE.SIGNAL, e.g. speed=WHEEL_SPEEDS.WHEEL_SPEED_FL")
        };
        let sig = a.strip_prefix("speed=").ok_or_else(bad)?;
        let (m, s) = sig
            .split_once('.')
            .filter(|(m, s)| !m.is_empty() && !s.is_empty())
            .ok_or_else(bad)?;
        if self.offset_s.is_some() {
            return Err("give either a CAN offset or a CAN alignment, not both".into());
        }
        Ok(Some((m.to_string(), s.to_string())))
    }
}

/// What the fusion of a CAN log did, for the run's report (`"can"` in results).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CanFusionReport {
    /// The log's name (`blf:run.blf`).
    pub log: String,
    /// Frames read from the log.
    pub frames: u64,
    /// Frames that gave a twin field (DBC-decoded and mapped) within the telemetry's time span.
    pub fused: u64,
    /// Seconds added to the log's times.
    pub offset_s: f64,
    /// First and last frame time of the log, as written (before the offset).
    pub log_span_s: [f64; 2],
    /// First and last sample time of the telemetry.
    pub ins_span_s: [f64; 2],
    /// How the offset was found when it was matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub align: Option<Alignment>,
}

impl CanFusionReport {
    /// One sentence for the readable report.
    pub fn describe(&self) -> String {
        let how = match &self.align {
            Some(a) => format!(
                ", found by matching {} to the INS speed (correlation {:.3})",
                a.signal, a.confidence
            ),
            None if self.offset_s != 0.0 => " (given)".into(),
            None => String::new(),
        };
        format!(
            "{} of {} CAN frames of {} fused into the telemetry; log times moved by {:+.3} s{how}",
            self.fused, self.frames, self.log, self.offset_s
        )
    }
}

/// The offset a speed match found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alignment {
    /// `MESSAGE.SIGNAL`.
    pub signal: String,
    /// Pearson correlation of the two speed traces at the offset found (1 = identical shape).
    pub confidence: f64,
}

/// The error for a log whose times, moved by `offset_s`, never overlap the telemetry's.
pub fn no_overlap(
    log: &str,
    log_span: [f64; 2],
    ins_span: [f64; 2],
    offset_s: f64,
) -> Option<String> {
    let (a, b) = (log_span[0] + offset_s, log_span[1] + offset_s);
    if a <= ins_span[1] && b >= ins_span[0] {
        return None;
    }
    let moved = if offset_s != 0.0 {
        format!(" (moved by {offset_s:+.6} s: {a:.6} – {b:.6} s)")
    } else {
        String::new()
    };
    Some(format!(
        "the CAN log {log} spans {:.6} – {:.6} s{moved}, the telemetry {:.6} – {:.6} s: they never overlap, so no frame would be fused; give --can-offset SECONDS (the telemetry's time at the log's 0) or --can-align speed=MESSAGE.SIGNAL",
        log_span[0], log_span[1], ins_span[0], ins_span[1]
    ))
}

/// Linear interpolation of a time series (sorted by time) at `t`; `None` outside it.
fn at(series: &[(f64, f64)], t: f64) -> Option<f64> {
    let i = series.partition_point(|(ts, _)| *ts < t);
    if i == series.len() {
        return None;
    }
    let (t1, v1) = series[i];
    if t1 == t {
        return Some(v1);
    }
    let (t0, v0) = *series.get(i.checked_sub(1)?)?;
    Some(v0 + (v1 - v0) * (t - t0) / (t1 - t0))
}

/// Resamples on a grid of step `dt` from the series' first time.
fn grid(series: &[(f64, f64)], dt: f64) -> Vec<f64> {
    let (Some(first), Some(last)) = (series.first(), series.last()) else {
        return Vec::new();
    };
    let n = ((last.0 - first.0) / dt).floor() as usize + 1;
    (0..n)
        .filter_map(|k| at(series, first.0 + k as f64 * dt))
        .collect()
}

/// Pearson correlation of `a[i]` with `b[i - lag]` over their overlap; `None` when the
/// overlap is shorter than `min_overlap` samples or flat.
fn correlation(a: &[f64], b: &[f64], lag: i64, min_overlap: usize) -> Option<f64> {
    let start = lag.max(0) as usize;
    let end = (a.len() as i64).min(b.len() as i64 + lag).max(0) as usize;
    if end <= start || end - start < min_overlap {
        return None;
    }
    let n = (end - start) as f64;
    let (mut sa, mut sb, mut saa, mut sbb, mut sab) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for i in start..end {
        let (x, y) = (a[i], b[(i as i64 - lag) as usize]);
        sa += x;
        sb += y;
        saa += x * x;
        sbb += y * y;
        sab += x * y;
    }
    let cov = sab - sa * sb / n;
    let va = saa - sa * sa / n;
    let vb = sbb - sb * sb / n;
    (va > 1e-12 && vb > 1e-12).then(|| cov / (va * vb).sqrt())
}

/// Best lag (in samples of `a` after `b`'s start) over `lags`, and its correlation.
fn best(a: &[f64], b: &[f64], lags: impl Iterator<Item = i64>, min: usize) -> Option<(i64, f64)> {
    lags.filter_map(|l| correlation(a, b, l, min).map(|r| (l, r)))
        .max_by(|x, y| x.1.total_cmp(&y.1))
}

/// The offset to add to the CAN times so that the CAN speed trace (any unit: the match is on
/// shape) lies on the INS speed trace: coarse (0.1 s, or coarser for traces over 400 s) over
/// every overlap of at least half the shorter trace, then at 10 ms and at 1 ms around the
/// best. Returns (offset, correlation at it).
pub fn align(ins: &[(f64, f64)], can: &[(f64, f64)]) -> Option<(f64, f64)> {
    let (ins0, can0) = (ins.first()?.0, can.first()?.0);
    let longest = (ins.last()?.0 - ins0).max(can.last()?.0 - can0);
    let coarse = (longest / 4000.0).max(0.1);
    let (a, b) = (grid(ins, coarse), grid(can, coarse));
    let min = (a.len().min(b.len()) / 2).max(10);
    let (mut lag, mut r) = best(&a, &b, -(b.len() as i64)..a.len() as i64, min)?;
    let mut step = coarse;
    for fine in [0.01, 0.001] {
        let (a, b) = (grid(ins, fine), grid(can, fine));
        let centre = (lag as f64 * step / fine).round() as i64;
        let span = (2.0 * step / fine).ceil() as i64;
        let min = (a.len().min(b.len()) / 2).max(10);
        (lag, r) = best(&a, &b, centre - span..=centre + span, min)?;
        step = fine;
    }
    // CAN time tc lies on INS time ins0 + (tc - can0) + lag·step.
    Some((ins0 - can0 + lag as f64 * step, r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_large_offset_to_the_millisecond() {
        let mut rng = crate::ingest::xorshift(3);
        let mut v = 8.3;
        let ins: Vec<(f64, f64)> = (0..800)
            .map(|k| {
                v += ((rng() % 1000) as f64 / 1000.0 - 0.5) * 0.05;
                (387_000.0 + k as f64 * 0.04, v)
            })
            .collect();
        // The CAN trace: km/h, every 20 ms, 3 ms after the INS one, on a clock from 0.00025 s.
        let can: Vec<(f64, f64)> = (0..1500)
            .map(|k| {
                let t = 387_000.003 + k as f64 * 0.02;
                (
                    t - 387_000.0 + 0.00025,
                    at(&ins, t - 0.003).unwrap_or(v) * 3.6,
                )
            })
            .collect();
        let (off, r) = align(&ins, &can).expect("aligned");
        assert!((off - (387_000.0 - 0.00025 - 0.003)).abs() < 0.002, "{off}");
        assert!(r > 0.99, "{r}");
    }

    #[test]
    fn spans_that_never_meet_are_named() {
        let e =
            no_overlap("blf:x.blf", [0.00025, 10.0], [387_000.0, 387_026.0], 0.0).expect("error");
        assert!(
            e.contains("0.000250 – 10.000000 s") && e.contains("387000.000000 – 387026.000000 s"),
            "{e}"
        );
        assert!(no_overlap("x", [0.0, 10.0], [387_000.0, 387_026.0], 387_000.0).is_none());
    }
}
