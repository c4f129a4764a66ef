//! CCFhol's lane change: the target moves one lane to the left over a span chosen by its speed,
//! drawn as the turning paths are (clothoid, arc, clothoid out of its lane and the same,
//! mirrored, into the new one).
//!
//! The protocol asks for 3.5 m over 44–88 m at about 1.5 m/s² of lateral acceleration. The
//! peak lateral acceleration is v²·κ at the arcs; for a change of `offset` over `span` whose
//! halves (h = span/2) are a clothoid of length c, an arc and a clothoid again, the heading at
//! the middle is κ(h − c) and the offset h·κ(h − c), so κ = 4·offset / ((1 − σ)·span²) with
//! σ = c/h the clothoids' share of a half. [`for_speed`] takes the smooth shape (σ = ¼: each
//! clothoid a quarter of its half, the arc half of it) and the span that gives 1.5 m/s²; where
//! that span is over 88 m it keeps 88 m and shortens the clothoids until the peak is 1.5 m/s².

use crate::scenario::path::{Piece, Polyline, SegmentSpec};

/// The shortest and longest lane change the protocol allows, m.
pub(crate) const SPAN_M: (f64, f64) = (44.0, 88.0);
/// The peak lateral acceleration a lane change is drawn for, m/s².
pub(crate) const PEAK_ACCEL: f64 = 1.5;
/// The most a lane change may peak at, m/s² (the protocol's 1.5 m/s² with its tolerance).
pub(crate) const MAX_ACCEL: f64 = 1.55;
/// The smooth shape's clothoid share of each half.
const SMOOTH_SHARE: f64 = 0.25;
/// The shortest clothoids, as a share of each half (a shorter one steers too abruptly).
const MIN_SHARE: f64 = 0.02;

/// A lane change as drawn for one speed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LaneChange {
    /// Along the lane, m.
    pub span_m: f64,
    /// The clothoids' share of each half (¼ for the smooth shape).
    pub share: f64,
    pub segments: Vec<SegmentSpec>,
}

impl LaneChange {
    /// The largest curvature on the change, 1/m (its arcs').
    pub fn peak_curvature(&self) -> f64 {
        self.segments
            .iter()
            .filter_map(|s| s.curvature)
            .fold(0.0, |m, k| m.max(k.abs()))
    }
}

/// The lane change of `offset` m for a target at `speed_mps`: span and shape chosen for a
/// peak lateral acceleration of [`PEAK_ACCEL`] within [`SPAN_M`] (see the module doc); an
/// error when even the longest span and the shortest clothoids would peak above
/// [`MAX_ACCEL`].
pub(crate) fn for_speed(speed_mps: f64, offset: f64) -> Result<LaneChange, String> {
    let (shortest, longest) = SPAN_M;
    let v2 = speed_mps * speed_mps;
    // The span that peaks at PEAK_ACCEL with share σ (small angles), and the share that does
    // at `longest`.
    let span_for = |share: f64| (4.0 * offset * v2 / ((1.0 - share) * PEAK_ACCEL)).sqrt();
    let smooth = span_for(SMOOTH_SHARE);
    let (span, share) = if smooth <= longest {
        // Whole metres, rounded up: the peak stays at or below PEAK_ACCEL.
        (smooth.ceil().clamp(shortest, longest), SMOOTH_SHARE)
    } else {
        let share = 1.0 - 4.0 * offset * v2 / (PEAK_ACCEL * longest * longest);
        // Hundredths, rounded down: shorter clothoids, a lower peak.
        (longest, ((share * 100.0).floor() / 100.0).max(MIN_SHARE))
    };
    let segments = shaped(span, offset, share)?;
    let change = LaneChange {
        span_m: span,
        share,
        segments,
    };
    let peak = v2 * change.peak_curvature();
    if peak > MAX_ACCEL {
        return Err(format!(
            "no lane change of {offset} m within {longest} m keeps the target at {MAX_ACCEL} m/s² at {:.1} km/h (it would peak at {peak:.2} m/s²)",
            speed_mps * 3.6
        ));
    }
    Ok(change)
}

/// A lane change `offset` m to the left over `span` m along the lane with the smooth shape:
/// curvature is continuous and peaks 8 % above a half-cosine shift's over the same span.
#[cfg(test)]
pub(crate) fn lane_change(span: f64, offset: f64) -> Result<Vec<SegmentSpec>, String> {
    shaped(span, offset, SMOOTH_SHARE)
}

/// A lane change `offset` m to the left over `span` m whose clothoids are `share` of each
/// half: clothoid, arc, clothoid out and the same, mirrored, in. The span and offset are met
/// to 1 µm (lengths rounded to 1 µm, curvature to 1e-12 1/m).
fn shaped(span: f64, offset: f64, share: f64) -> Result<Vec<SegmentSpec>, String> {
    if !(share > 0.0 && share <= 0.5) {
        return Err(format!(
            "no lane change with clothoids of {share} of each half"
        ));
    }
    // The arc's length for a clothoid of length q (the smooth shape: 2q).
    let arc_per_clothoid = (1.0 - 2.0 * share) / share;
    let segments = |q: f64, k: f64| {
        let arc = arc_per_clothoid * q;
        let mut s = vec![SegmentSpec::clothoid(q, 0.0, k)];
        if arc > 0.0 {
            s.push(SegmentSpec::arc(arc, k));
        }
        s.push(SegmentSpec::clothoid(q, k, 0.0));
        s.push(SegmentSpec::clothoid(q, 0.0, -k));
        if arc > 0.0 {
            s.push(SegmentSpec::arc(arc, -k));
        }
        s.push(SegmentSpec::clothoid(q, -k, 0.0));
        s
    };
    let round = |q: f64, k: f64| ((q * 1e6).round() / 1e6, (k * 1e12).round() / 1e12);
    let rounded = |q: f64, k: f64| {
        let (q, k) = round(q, k);
        segments(q, k)
            .into_iter()
            .map(|s| match s.arc {
                Some(a) => SegmentSpec::arc((a * 1e6).round() / 1e6, s.curvature.unwrap_or(k)),
                None => s,
            })
            .collect::<Vec<_>>()
    };
    // Where the change ends (along, left).
    let end = |segs: &[SegmentSpec]| -> Result<(f64, f64), String> {
        let pieces = segs
            .iter()
            .enumerate()
            .map(|(i, s)| s.piece(i + 1))
            .collect::<Result<Vec<Piece>, _>>()?;
        let path = Polyline::from_pieces(0.0, 0.0, 0.0, &pieces)?;
        let (x, y, _) = path.pose(path.length());
        Ok((x, y))
    };
    if !(span > 0.0 && offset > 0.0 && offset < 0.5 * span) {
        return Err(format!("no lane change of {offset} m over {span} m"));
    }
    // Small-angle start (half h = q / share, offset = h·k·(h − q)), then scaled until the
    // ends match.
    let half = 0.5 * span;
    let mut q = share * half;
    let mut k = offset / (half * (half - q));
    for _ in 0..40 {
        let (x, y) = end(&segments(q, k))?;
        if (x - span).abs() < 1e-9 && (y - offset).abs() < 1e-9 {
            break;
        }
        k *= offset / y;
        q *= span / x;
    }
    let segs = rounded(q, k);
    let (x, y) = end(&segs)?;
    if (x - span).abs() > 2e-5 || (y - offset).abs() > 2e-5 {
        return Err(format!(
            "the lane change of {offset} m over {span} m ends at ({x:.6}, {y:.6})"
        ));
    }
    Ok(segs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where a change ends (along, left, heading) and whether its curvature is continuous
    /// (each clothoid starts with the curvature the last segment ended on).
    fn drawn(segs: &[SegmentSpec]) -> ((f64, f64, f64), bool) {
        let pieces: Vec<Piece> = segs
            .iter()
            .enumerate()
            .map(|(i, s)| s.piece(i + 1).expect("piece"))
            .collect();
        let path = Polyline::from_pieces(0.0, 0.0, 0.0, &pieces).expect("path");
        let mut last = 0.0;
        let mut continuous = true;
        for p in &pieces {
            let (a, b) = match *p {
                Piece::Line { .. } => (0.0, 0.0),
                Piece::Arc { curvature, .. } => (curvature, curvature),
                Piece::Clothoid {
                    curvature_start,
                    curvature_end,
                    ..
                } => (curvature_start, curvature_end),
            };
            continuous &= a == last;
            last = b;
        }
        (path.pose(path.length()), continuous && last == 0.0)
    }

    /// The lane change ends `offset` to the left, `span` along, heading as it started, and
    /// its curvature is continuous.
    #[test]
    fn lane_change_meets_its_span_and_offset() {
        for (span, offset) in [(66.0, 3.5), (44.0, 3.5), (88.0, 3.5), (30.0, 1.0)] {
            let segs = lane_change(span, offset).expect("lane change");
            let ((x, y, yaw), continuous) = drawn(&segs);
            assert!(
                (x - span).abs() < 2e-5 && (y - offset).abs() < 2e-5,
                "{x} {y}"
            );
            assert!(yaw.abs() < 1e-9, "{yaw}");
            assert!(continuous);
            let cosine = 0.5 * offset * (std::f64::consts::PI / span).powi(2);
            let peak = segs[1].curvature.expect("arc");
            assert!(peak > cosine && peak < 1.1 * cosine, "{peak} vs {cosine}");
        }
        assert!(lane_change(10.0, 6.0).is_err());
    }

    /// At the protocol's target speeds (and between them) the change spans 44–88 m and
    /// peaks near 1.5 m/s², never above 1.55; it ends where it should, curvature continuous.
    #[test]
    fn the_lane_change_follows_the_speed() {
        let mut last_span = 0.0;
        for kmh in [30.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 100.0] {
            let v: f64 = kmh / 3.6;
            let c = for_speed(v, 3.5).expect("lane change");
            let peak = v * v * c.peak_curvature();
            assert!(
                (SPAN_M.0..=SPAN_M.1).contains(&c.span_m),
                "{kmh} km/h: {} m",
                c.span_m
            );
            assert!(peak <= MAX_ACCEL, "{kmh} km/h: {peak} m/s²");
            if c.span_m > SPAN_M.0 {
                // Not held up by the shortest span: near 1.5 m/s².
                assert!(peak > 1.4, "{kmh} km/h: {peak} m/s²");
            }
            assert!(c.span_m >= last_span, "{kmh} km/h: the span shrank");
            last_span = c.span_m;
            let ((x, y, yaw), continuous) = drawn(&c.segments);
            assert!((x - c.span_m).abs() < 2e-5 && (y - 3.5).abs() < 2e-5);
            assert!(yaw.abs() < 1e-9 && continuous, "{kmh} km/h");
        }
        // 50 km/h: the smooth shape over 49 m; 100 km/h: 88 m with short clothoids.
        let c = for_speed(50.0 / 3.6, 3.5).expect("50");
        assert_eq!((c.span_m, c.share), (49.0, SMOOTH_SHARE));
        let c = for_speed(100.0 / 3.6, 3.5).expect("100");
        assert_eq!(c.span_m, SPAN_M.1);
        assert!(c.share < SMOOTH_SHARE, "{}", c.share);
        // Far beyond the protocol's speeds no lane change within 88 m stays at 1.55 m/s².
        assert!(for_speed(130.0 / 3.6, 3.5).is_err());
    }
}
