//! Path geometry: a chain of line, arc and clothoid segments (the plan-view primitives of
//! OpenDRIVE and of OpenSCENARIO's Clothoid / ClothoidSpline), with a cumulative-length index and
//! a tree of bounding boxes over the segments.
//!
//! * Pose at arc length s: a binary search on the cumulative lengths, O(log n).
//! * Nearest point (projection, signed lateral offset): a branch-and-bound descent of the box
//!   tree, seeded with the segment of the previous answer (a hint), so a point that moves along
//!   the path visits a handful of boxes instead of every segment. The answer is exactly the one
//!   a scan of every segment in index order gives (the first segment at the smallest distance).
//! * A polyline (lane centres resolved from the map, OpenSCENARIO Polyline, recorded paths) is a
//!   chain of line segments and gets the same index.
//!
//! Before the start and past the end a path extends straight along its end headings.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::frame::wrap_pi;

/// One segment: where it starts and how it bends.
#[derive(Debug, Clone, PartialEq)]
enum Seg {
    /// From `a` to `b` (its length is the difference of the cumulative lengths; `yaw` and
    /// `l2 = |b − a|²` are kept so that no query computes them again).
    Line {
        a: (f64, f64),
        b: (f64, f64),
        yaw: f64,
        l2: f64,
        len: f64,
    },
    /// Curvature `k0 + (k1 − k0)·u/len` from (x0, y0) heading `yaw0` (an arc when k0 = k1).
    Curve {
        x0: f64,
        y0: f64,
        yaw0: f64,
        /// (cos, sin) of `yaw0` (cached).
        cs0: (f64, f64),
        /// The piece in the frame of its start heading: x(u) = Σ poly[n].0·u^(n+1), y(u) the
        /// same with poly[n].1 (see [`Seg::series`]); boxed, so that a line stays small.
        poly: Box<[(f64, f64); TERMS]>,
        k0: f64,
        k1: f64,
        len: f64,
        /// End point (cached).
        end: (f64, f64),
    },
}

/// A curved segment is split into pieces no longer than this and turning by no more than
/// [`MAX_TURN_RAD`], so that a piece's box is tight and its projection converges at once.
const MAX_PIECE_M: f64 = 4.0;
const MAX_TURN_RAD: f64 = 0.25;

/// Terms of a piece's power series: a piece turns by at most [`MAX_TURN_RAD`] (its start
/// curvature times its length, and its change of curvature times half its length, each at
/// most that), where the first term left out is below 1e-17 of the piece's length.
const TERMS: usize = 13;

impl Seg {
    fn curve_yaw(yaw0: f64, k0: f64, k1: f64, len: f64, u: f64) -> f64 {
        yaw0 + k0 * u + 0.5 * (k1 - k0) * u * u / len
    }

    /// The power series in u of a piece's position in the frame of its start heading, from
    /// the curvature k0 + (k1 − k0)·u/len: with φ(u) = k0·u + ½(k1 − k0)·u²/len, the series of
    /// cos φ and sin φ follow from (cos φ)' = −φ'·sin φ and (sin φ)' = φ'·cos φ, and x, y are
    /// their integrals. Exact to rounding on a piece; far cheaper to evaluate than a
    /// quadrature of the heading.
    fn series(k0: f64, k1: f64, len: f64) -> [(f64, f64); TERMS] {
        let (a, b2) = (k0, (k1 - k0) / len);
        let (mut c, mut s) = ([0.0; TERMS], [0.0; TERMS]);
        c[0] = 1.0;
        for n in 0..TERMS - 1 {
            let (cp, sp) = if n > 0 {
                (c[n - 1], s[n - 1])
            } else {
                (0.0, 0.0)
            };
            let m = (n + 1) as f64;
            c[n + 1] = -(a * s[n] + b2 * sp) / m;
            s[n + 1] = (a * c[n] + b2 * cp) / m;
        }
        let mut poly = [(0.0, 0.0); TERMS];
        for n in 0..TERMS {
            let m = (n + 1) as f64;
            poly[n] = (c[n] / m, s[n] / m);
        }
        poly
    }

    /// Position `u` metres into a curve piece from its series, turned into the map frame.
    fn curve_xy(
        x0: f64,
        y0: f64,
        (c0, s0): (f64, f64),
        poly: &[(f64, f64); TERMS],
        u: f64,
    ) -> (f64, f64) {
        let (mut dx, mut dy) = (0.0, 0.0);
        for &(px, py) in poly.iter().rev() {
            dx = dx * u + px;
            dy = dy * u + py;
        }
        let (dx, dy) = (dx * u, dy * u);
        (x0 + c0 * dx - s0 * dy, y0 + s0 * dx + c0 * dy)
    }

    fn start(&self) -> (f64, f64) {
        match *self {
            Seg::Line { a, .. } => a,
            Seg::Curve { x0, y0, .. } => (x0, y0),
        }
    }

    fn end(&self) -> (f64, f64) {
        match *self {
            Seg::Line { b, .. } => b,
            Seg::Curve { end, .. } => end,
        }
    }

    /// Position and yaw `u` metres into the segment (`len` its length from the index).
    fn pose(&self, u: f64, len: f64) -> (f64, f64, f64) {
        match *self {
            Seg::Line { a, b, yaw, .. } => {
                let w = u / len;
                (a.0 + w * (b.0 - a.0), a.1 + w * (b.1 - a.1), yaw)
            }
            Seg::Curve {
                x0,
                y0,
                yaw0,
                cs0,
                ref poly,
                k0,
                k1,
                len,
                ..
            } => {
                let (x, y) = Self::curve_xy(x0, y0, cs0, poly, u);
                (x, y, Self::curve_yaw(yaw0, k0, k1, len, u))
            }
        }
    }

    /// Nearest point of the segment to (x, y) with its parameter clamped to [lo, hi] (in
    /// metres into the segment; an infinite bound extends the segment straight): (distance,
    /// metres into the segment, signed side: left of the direction positive).
    fn nearest(&self, x: f64, y: f64, lo: f64, hi: f64) -> (f64, f64, f64) {
        match *self {
            Seg::Line { a, b, l2, .. } => {
                let (dx, dy) = (b.0 - a.0, b.1 - a.1);
                let (w, px, py) = self.foot(x, y, lo, hi);
                let d = (x - px).hypot(y - py);
                let side = dx * (y - a.1) - dy * (x - a.0);
                (d, w * l2.sqrt(), side)
            }
            Seg::Curve {
                yaw0,
                cs0,
                k0,
                k1,
                len,
                ..
            } => {
                // Beyond an end that extends, the straight extension along the end heading.
                let (sx, sy) = self.start();
                let (ex, ey) = self.end();
                let (c0, s0) = cs0;
                let yaw1 = Self::curve_yaw(yaw0, k0, k1, len, len);
                let (c1, s1) = (yaw1.cos(), yaw1.sin());
                let before = (x - sx) * c0 + (y - sy) * s0;
                if lo == f64::NEG_INFINITY && before < 0.0 {
                    let (px, py) = (sx + before * c0, sy + before * s0);
                    let side = c0 * (y - sy) - s0 * (x - sx);
                    return ((x - px).hypot(y - py), before, side);
                }
                let after = (x - ex) * c1 + (y - ey) * s1;
                if hi == f64::INFINITY && after > 0.0 {
                    let (px, py) = (ex + after * c1, ey + after * s1);
                    let side = c1 * (y - ey) - s1 * (x - ex);
                    return ((x - px).hypot(y - py), len + after, side);
                }
                let (lo, hi) = (lo.max(0.0), hi.min(len));
                // Newton on (P(u) − q)·T(u) = 0 from the chord's projection.
                let (cx, cy) = (ex - sx, ey - sy);
                let c2 = cx * cx + cy * cy;
                let mut u = if c2 > 0.0 {
                    (((x - sx) * cx + (y - sy) * cy) / c2 * len).clamp(lo, hi)
                } else {
                    lo
                };
                for _ in 0..8 {
                    let (px, py, h) = self.pose(u, len);
                    let (tc, ts) = (h.cos(), h.sin());
                    let (rx, ry) = (px - x, py - y);
                    let g = rx * tc + ry * ts;
                    let k = k0 + (k1 - k0) * u / len;
                    let dg = 1.0 + k * (-rx * ts + ry * tc);
                    let step = if dg > 0.1 { g / dg } else { g };
                    let next = (u - step).clamp(lo, hi);
                    let done = (next - u).abs() < 1e-12;
                    u = next;
                    if done {
                        break;
                    }
                }
                // The piece's ends too, should the iteration have stopped on a farther point.
                let mut best = (f64::INFINITY, u, 0.0);
                for v in [u, lo, hi] {
                    let (px, py, h) = self.pose(v, len);
                    let d = (x - px).hypot(y - py);
                    if d < best.0 {
                        best = (d, v, h.cos() * (y - py) - h.sin() * (x - px));
                    }
                }
                best
            }
        }
    }

    /// A line segment's nearest point to (x, y) as in [`Seg::nearest`]: (fraction of the
    /// segment, x, y); NaN for a curve.
    fn foot(&self, x: f64, y: f64, lo: f64, hi: f64) -> (f64, f64, f64) {
        match *self {
            Seg::Line { a, b, l2, len, .. } => {
                let (dx, dy) = (b.0 - a.0, b.1 - a.1);
                let (lo, hi) = (lo / len, hi / len);
                let w = if l2 > 0.0 {
                    (((x - a.0) * dx + (y - a.1) * dy) / l2).clamp(lo, hi)
                } else {
                    0.0
                };
                (w, a.0 + w * dx, a.1 + w * dy)
            }
            Seg::Curve { .. } => (f64::NAN, f64::NAN, f64::NAN),
        }
    }

    /// Axis-aligned box that holds the segment (a curve piece: its end points and middle,
    /// widened by a bound of its bulge from them).
    fn bbox(&self, len: f64) -> [f64; 4] {
        let (a, b) = (self.start(), self.end());
        // Widened by a micrometre: a computed nearest point may lie an ulp outside the box
        // of the end points, and the box must never exclude a segment the scan would pick.
        let e = 1e-6;
        let mut bx = [
            a.0.min(b.0) - e,
            a.1.min(b.1) - e,
            a.0.max(b.0) + e,
            a.1.max(b.1) + e,
        ];
        if let Seg::Curve { k0, k1, .. } = *self {
            let (mx, my, _) = self.pose(0.5 * len, len);
            let pad = 0.25 * len * len * k0.abs().max(k1.abs()) + 1e-9;
            bx = [
                bx[0].min(mx) - pad,
                bx[1].min(my) - pad,
                bx[2].max(mx) + pad,
                bx[3].max(my) + pad,
            ];
        }
        bx
    }
}

/// One segment of a path as written in a scenario file, placed after the previous one
/// (tangent-continuous).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Piece {
    Line {
        length: f64,
    },
    Arc {
        length: f64,
        curvature: f64,
    },
    Clothoid {
        length: f64,
        curvature_start: f64,
        curvature_end: f64,
    },
}

impl Piece {
    /// Length, curvature at its start and at its end (linear in between).
    pub fn shape(&self) -> (f64, f64, f64) {
        match *self {
            Piece::Line { length } => (length, 0.0, 0.0),
            Piece::Arc { length, curvature } => (length, curvature, curvature),
            Piece::Clothoid {
                length,
                curvature_start,
                curvature_end,
            } => (length, curvature_start, curvature_end),
        }
    }
}

/// A path: segments, the arc length where each begins, and the box tree.
#[derive(Debug)]
pub struct Path {
    segs: Vec<Seg>,
    /// Arc length at the start of each segment, and the total at the end (`segs.len() + 1`).
    cum: Vec<f64>,
    /// Box tree over segment ranges: node 1 covers every segment, node k has children 2k and
    /// 2k + 1; leaves from `leaf0` on (one per segment, padded to a power of two).
    tree: Vec<[f64; 4]>,
    leaf0: usize,
    /// The segments' start points and the path's end point.
    pts: Vec<(f64, f64)>,
    /// A bound of the heading's total variation from the start to the end of each segment
    /// (`segs.len() + 1`, from 0): the turns inside segments and at the joints between them.
    turn: Vec<f64>,
    /// Segment of the last nearest-point answer: where the next search starts (only the
    /// order of the search depends on it, never the answer).
    hint: AtomicUsize,
    /// Whether the cumulative lengths strictly increase (every segment longer than the
    /// rounding of its start), so that the segment at an arc length is unique.
    increasing: bool,
    /// Segment of the last lookup, where the next one starts (never changes the answer).
    at: AtomicUsize,
}

impl Clone for Path {
    fn clone(&self) -> Path {
        Path {
            segs: self.segs.clone(),
            cum: self.cum.clone(),
            tree: self.tree.clone(),
            leaf0: self.leaf0,
            pts: self.pts.clone(),
            turn: self.turn.clone(),
            increasing: self.increasing,
            hint: AtomicUsize::new(self.hint.load(Ordering::Relaxed)),
            at: AtomicUsize::new(self.at.load(Ordering::Relaxed)),
        }
    }
}

impl PartialEq for Path {
    fn eq(&self, o: &Path) -> bool {
        self.segs == o.segs && self.cum == o.cum
    }
}

/// A polyline is a path of line segments.
pub type Polyline = Path;

impl Path {
    /// Polyline through `points`, dropping a point closer than `min_gap` to the previous one;
    /// `None` with fewer than two distinct points or a non-finite one.
    pub fn from_xy(points: impl IntoIterator<Item = (f64, f64)>, min_gap: f64) -> Option<Path> {
        let mut pts: Vec<(f64, f64)> = Vec::new();
        let mut cum = Vec::new();
        for (x, y) in points {
            if !(x.is_finite() && y.is_finite()) {
                return None;
            }
            match pts.last() {
                None => {
                    pts.push((x, y));
                    cum.push(0.0);
                }
                Some(&(px, py)) => {
                    let d = (x - px).hypot(y - py);
                    if d > min_gap {
                        pts.push((x, y));
                        cum.push(cum.last().copied().unwrap_or(0.0) + d);
                    }
                }
            }
        }
        if pts.len() < 2 {
            return None;
        }
        let segs = pts
            .windows(2)
            .zip(cum.windows(2))
            .map(|(w, c)| {
                let (a, b) = (w[0], w[1]);
                let (dx, dy) = (b.0 - a.0, b.1 - a.1);
                Seg::Line {
                    a,
                    b,
                    yaw: dy.atan2(dx),
                    l2: dx * dx + dy * dy,
                    len: c[1] - c[0],
                }
            })
            .collect();
        Some(Path::build(segs, cum))
    }

    /// Polyline through `points` (points closer than 1 nm to the previous one dropped).
    pub fn new(points: &[super::Point]) -> Option<Path> {
        Path::from_xy(points.iter().map(|p| (p.x, p.y)), 1e-9)
    }

    /// Segments from (x, y) heading `yaw` (rad, map frame): each piece starts where the
    /// previous one ends, with its end heading. `Err` names a piece that is not finite, not
    /// longer than 0, or bends more sharply than a 0.5 m radius.
    pub fn from_pieces(x: f64, y: f64, yaw: f64, pieces: &[Piece]) -> Result<Path, String> {
        if !(x.is_finite() && y.is_finite() && yaw.is_finite()) {
            return Err("the start of the path is not finite".into());
        }
        if pieces.is_empty() {
            return Err("a path needs at least one segment".into());
        }
        let (mut x, mut y, mut yaw) = (x, y, yaw);
        let mut segs = Vec::new();
        let mut cum = vec![0.0];
        for (i, p) in pieces.iter().enumerate() {
            let (len, k0, k1) = p.shape();
            if !(len.is_finite() && len > 0.0 && k0.is_finite() && k1.is_finite()) {
                return Err(format!(
                    "segment {}: length and curvature must be finite, length above 0",
                    i + 1
                ));
            }
            if k0.abs() > 2.0 || k1.abs() > 2.0 {
                return Err(format!(
                    "segment {}: a curvature above 2 1/m (radius under 0.5 m)",
                    i + 1
                ));
            }
            let s0 = cum.last().copied().unwrap_or(0.0);
            if k0 == 0.0 && k1 == 0.0 {
                let (ex, ey) = (x + len * yaw.cos(), y + len * yaw.sin());
                let s1 = s0 + len;
                segs.push(Seg::Line {
                    a: (x, y),
                    b: (ex, ey),
                    yaw,
                    l2: len * len,
                    len: s1 - s0,
                });
                cum.push(s1);
                (x, y) = (ex, ey);
                continue;
            }
            let turn = (k0.abs().max(k1.abs()) * len / MAX_TURN_RAD).ceil();
            let n = turn.max((len / MAX_PIECE_M).ceil()).max(1.0) as usize;
            for j in 0..n {
                let (u0, u1) = (len * j as f64 / n as f64, len * (j + 1) as f64 / n as f64);
                let (ka, kb) = (k0 + (k1 - k0) * u0 / len, k0 + (k1 - k0) * u1 / len);
                let pl = u1 - u0;
                let cs0 = (yaw.cos(), yaw.sin());
                let poly = Seg::series(ka, kb, pl);
                let (ex, ey) = Seg::curve_xy(x, y, cs0, &poly, pl);
                segs.push(Seg::Curve {
                    x0: x,
                    y0: y,
                    yaw0: yaw,
                    cs0,
                    poly: Box::new(poly),
                    k0: ka,
                    k1: kb,
                    len: pl,
                    end: (ex, ey),
                });
                yaw = Seg::curve_yaw(yaw, ka, kb, pl, pl);
                (x, y) = (ex, ey);
                cum.push(s0 + u1);
            }
        }
        Ok(Path::build(segs, cum))
    }

    fn build(segs: Vec<Seg>, cum: Vec<f64>) -> Path {
        let n = segs.len();
        let leaf0 = n.next_power_of_two();
        let empty = [
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ];
        let mut tree = vec![empty; 2 * leaf0];
        for (i, s) in segs.iter().enumerate() {
            tree[leaf0 + i] = s.bbox(cum[i + 1] - cum[i]);
        }
        for k in (1..leaf0).rev() {
            let (a, b) = (tree[2 * k], tree[2 * k + 1]);
            tree[k] = [
                a[0].min(b[0]),
                a[1].min(b[1]),
                a[2].max(b[2]),
                a[3].max(b[3]),
            ];
        }
        let mut pts: Vec<(f64, f64)> = segs.iter().map(Seg::start).collect();
        if let Some(s) = segs.last() {
            pts.push(s.end());
        }
        // A joint between segments may turn (a polyline's vertex); a curve turns by at most
        // its length times its largest curvature.
        let mut turn = vec![0.0];
        let mut end_yaw: Option<f64> = None;
        for (i, s) in segs.iter().enumerate() {
            let len = cum[i + 1] - cum[i];
            let joint = end_yaw.map_or(0.0, |y| wrap_pi(s.pose(0.0, len).2 - y).abs());
            let inside = match *s {
                Seg::Line { .. } => 0.0,
                Seg::Curve { k0, k1, .. } => len * k0.abs().max(k1.abs()),
            };
            turn.push(turn[i] + joint + inside);
            end_yaw = Some(s.pose(len, len).2);
        }
        let increasing = cum.windows(2).all(|w| w[0] < w[1]);
        Path {
            segs,
            cum,
            tree,
            leaf0,
            pts,
            turn,
            increasing,
            hint: AtomicUsize::new(0),
            at: AtomicUsize::new(0),
        }
    }

    pub fn length(&self) -> f64 {
        self.cum.last().copied().unwrap_or(0.0)
    }

    /// Number of segments.
    pub fn segments(&self) -> usize {
        self.segs.len()
    }

    /// The segments' start points and the end point (a polyline: its points).
    pub fn points(&self) -> &[(f64, f64)] {
        &self.pts
    }

    /// Points along the path: every segment's start, curves every `step` metres or closer,
    /// and the end.
    pub fn sampled(&self, step: f64) -> Vec<(f64, f64)> {
        let mut v = Vec::new();
        for (i, seg) in self.segs.iter().enumerate() {
            let len = self.cum[i + 1] - self.cum[i];
            match seg {
                Seg::Line { a, .. } => v.push(*a),
                Seg::Curve { .. } => {
                    let n = (len / step.max(1e-3)).ceil().max(1.0) as usize;
                    for k in 0..n {
                        let (x, y, _) = seg.pose(len * k as f64 / n as f64, len);
                        v.push((x, y));
                    }
                }
            }
        }
        if let Some(s) = self.segs.last() {
            v.push(s.end());
        }
        v
    }

    /// Segment containing arc length `s` (clamped to the first/last segment).
    fn segment(&self, s: f64) -> usize {
        let n = self.segs.len();
        if self.increasing && self.cum[0] <= s && s < self.cum[n] {
            // Within the path there is one segment with cum[i] ≤ s < cum[i + 1], the binary
            // search's answer; searched for outwards from the last answer (a point moving
            // along the path is found in a step or two).
            let h = self.at.load(Ordering::Relaxed).min(n - 1);
            // cum[lo] ≤ s < cum[hi] throughout.
            let (mut lo, mut hi);
            let mut w = 1;
            if self.cum[h] <= s {
                lo = h;
                loop {
                    hi = (lo + w).min(n);
                    if s < self.cum[hi] {
                        break;
                    }
                    (lo, w) = (hi, 2 * w);
                }
            } else {
                hi = h;
                loop {
                    lo = hi.saturating_sub(w);
                    if self.cum[lo] <= s {
                        break;
                    }
                    (hi, w) = (lo, 2 * w);
                }
            }
            while hi - lo > 1 {
                let mid = (lo + hi) / 2;
                if self.cum[mid] <= s {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            self.at.store(lo, Ordering::Relaxed);
            return lo;
        }
        match self.cum.binary_search_by(|c| c.total_cmp(&s)) {
            Ok(i) => i.min(n - 1),
            Err(i) => i.saturating_sub(1).min(n - 1),
        }
    }

    /// Curvature at arc length `s` (1/m, positive turning left): a curve's own, linear along a
    /// clothoid; 0 on a line and beyond the ends (a polyline's turns are at its points, where
    /// it has no curvature).
    pub fn curvature(&self, s: f64) -> f64 {
        if !(s >= self.cum[0] && s <= self.length()) {
            return 0.0;
        }
        let i = self.segment(s);
        match self.segs[i] {
            Seg::Line { .. } => 0.0,
            Seg::Curve { k0, k1, len, .. } => {
                k0 + (k1 - k0) * ((s - self.cum[i]) / len).clamp(0.0, 1.0)
            }
        }
    }

    /// An upper bound of how far the heading turns between arc lengths `a` and `b` (rad, the
    /// total variation: every turn counted positive; straight beyond the ends).
    pub fn turn_between(&self, a: f64, b: f64) -> f64 {
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        let (i, j) = (self.segment(a), self.segment(b));
        self.turn[j + 1] - self.turn[i]
    }

    /// Position and yaw (rad, map frame) at arc length `s`; before the start and past the end
    /// the path is extended straight.
    pub fn pose(&self, s: f64) -> (f64, f64, f64) {
        let i = self.segment(s);
        let len = self.cum[i + 1] - self.cum[i];
        let seg = &self.segs[i];
        let u = s - self.cum[i];
        match seg {
            Seg::Line { .. } => seg.pose(u, len),
            Seg::Curve { .. } if u < 0.0 || u > len => {
                let (x, y, h) = seg.pose(u.clamp(0.0, len), len);
                let d = u - u.clamp(0.0, len);
                (x + d * h.cos(), y + d * h.sin(), h)
            }
            Seg::Curve { .. } => seg.pose(u, len),
        }
    }

    /// The nearest point among segments `i0..=i1`: (distance, arc length, signed side), the
    /// first segment in index order at the smallest distance. `extend`: the path's first and
    /// last segments extend straight beyond its ends.
    fn nearest(&self, x: f64, y: f64, i0: usize, i1: usize, extend: bool) -> (f64, f64, f64) {
        let last = self.segs.len() - 1;
        if i0 > i1 {
            // An empty range (a NaN bound): nothing found, as a scan of no segment.
            return (f64::INFINITY, 0.0, 0.0);
        }
        let bounds = |i: usize| -> (f64, f64) {
            let lo = if extend && i == 0 {
                f64::NEG_INFINITY
            } else {
                0.0
            };
            let hi = if extend && i == last {
                f64::INFINITY
            } else {
                self.cum[i + 1] - self.cum[i]
            };
            (lo, hi)
        };
        let eval = |i: usize| -> (f64, f64, f64) {
            let (lo, hi) = bounds(i);
            let (d, u, side) = self.segs[i].nearest(x, y, lo, hi);
            (d, self.cum[i] + u, side)
        };
        // Whether a squared distance is surely beyond `d` (distances compared squared, with a
        // margin far above their rounding, so that nothing the exact comparison keeps is
        // dropped; hypot only for what may win).
        let beyond = |d2: f64, d: f64| d2 > d * d * (1.0 + 1e-12);
        // A line segment that surely lies farther than the best so far is not evaluated.
        let evaluate = |i: usize, best: f64| -> Option<(f64, f64, f64)> {
            if let Seg::Line { .. } = self.segs[i] {
                let (lo, hi) = bounds(i);
                let (_, px, py) = self.segs[i].foot(x, y, lo, hi);
                if beyond((x - px) * (x - px) + (y - py) * (y - py), best) {
                    return None;
                }
            }
            Some(eval(i))
        };
        // (distance, segment, arc length, side)
        let h = self.hint.load(Ordering::Relaxed).clamp(i0, i1);
        let (d, s, side) = eval(h);
        let mut best = (d, h, s, side);
        // Squared distance to a box; a box beyond the best may hold no nearer segment.
        // Extended ends are unbounded, so the end segments are always considered.
        let box_d2 = |b: &[f64; 4]| -> f64 {
            let dx = (b[0] - x).max(x - b[2]).max(0.0);
            let dy = (b[1] - y).max(y - b[3]).max(0.0);
            dx * dx + dy * dy
        };
        if extend {
            for i in [0, last] {
                if (i0..=i1).contains(&i) && i != h {
                    if let Some((d, s, side)) = evaluate(i, best.0) {
                        if d < best.0 || (d == best.0 && i < best.1) {
                            best = (d, i, s, side);
                        }
                    }
                }
            }
        }
        // From the hint's leaf up to the root, each sibling's subtree, depth-first: every other
        // segment lies in one of them, and the near ones come first. At most two stack entries
        // per level of the tree (a path has far fewer than 2^31 segments); node k at depth
        // ⌊log2 k⌋ covers `leaf0 >> depth` segments.
        let mut stack = [0u32; 2 * 32 + 2];
        let mut up = self.leaf0 + h;
        while up > 1 {
            stack[0] = (up ^ 1) as u32;
            up >>= 1;
            let mut top = 1;
            while top > 0 {
                top -= 1;
                let node = stack[top] as usize;
                let depth = node.ilog2();
                let width = self.leaf0 >> depth;
                let lo = (node - (1 << depth)) * width;
                let hi = lo + width - 1;
                if hi < i0 || lo > i1 || beyond(box_d2(&self.tree[node]), best.0) {
                    continue;
                }
                if width == 1 {
                    let i = lo;
                    if extend && (i == 0 || i == last) {
                        continue;
                    }
                    if let Some((d, s, side)) = evaluate(i, best.0) {
                        if d < best.0 || (d == best.0 && i < best.1) {
                            best = (d, i, s, side);
                        }
                    }
                    continue;
                }
                let (l, r) = (2 * node, 2 * node + 1);
                // Nearer child first (pushed last).
                let (first, second) = if box_d2(&self.tree[l]) <= box_d2(&self.tree[r]) {
                    (l, r)
                } else {
                    (r, l)
                };
                stack[top] = second as u32;
                stack[top + 1] = first as u32;
                top += 2;
            }
        }
        self.hint.store(best.1, Ordering::Relaxed);
        (best.0, best.2, best.3)
    }

    /// Arc length of the point of the path nearest to (x, y), searching only the segments
    /// that overlap `[s_lo, s_hi]` (a path that crosses itself is disambiguated by where the
    /// vehicle was); the ends are extended straight, so a point before the start or past the
    /// end gets an s below 0 or beyond the length.
    pub fn project_within(&self, x: f64, y: f64, s_lo: f64, s_hi: f64) -> f64 {
        let (i0, i1) = (self.segment(s_lo), self.segment(s_hi));
        self.nearest(x, y, i0, i1, true).1
    }

    /// [`Path::project_within`] over the whole path.
    pub fn project(&self, x: f64, y: f64) -> f64 {
        self.nearest(x, y, 0, self.segs.len() - 1, true).1
    }

    /// Arc length of the nearest point of the path itself (no extension beyond its ends: a
    /// point before the start projects to 0, past the end to the length).
    pub fn project_clamped(&self, x: f64, y: f64) -> f64 {
        self.nearest(x, y, 0, self.segs.len() - 1, false).1
    }

    /// Signed lateral offset of (x, y) from the path (left of its direction positive): the
    /// distance to its nearest point.
    pub fn lateral(&self, x: f64, y: f64) -> f64 {
        let (d, _, side) = self.nearest(x, y, 0, self.segs.len() - 1, true);
        if side < 0.0 {
            -d
        } else {
            d
        }
    }
}

#[cfg(test)]
#[path = "geom_tests.rs"]
mod tests;
