//! Targets started by a conflict rule (`activation = "conflict"`): turning, junction, head-on
//! and lane-change tests, where the VUT follows a planned path (`vut.path`) and a target its
//! own path, meeting at a conflict point at any angle.
//!
//! * **Distance and TTC along the path.** The VUT's control point (its INS reference point
//!   moved `vut.control_ahead_m()` forward along the body) is projected onto the planned path;
//!   the distance to the conflict is `conflict.vut_s − s`, the TTC that distance over the speed.
//!   The trigger machinery (prediction between samples, retime, synchronisation) is the
//!   crossing target's, with this distance in place of the straight-line one.
//! * **Threshold.** The target's time from its start to `conflict.target_s` along its path
//!   ([`super::ttc::ttc_dummy`] with that travel).
//! * **Impact.** The footprints (VUT rectangle from its dimensions; the target's from its kind
//!   or `length_m`/`width_m`, centred on its reference point) are tested for contact at every
//!   sample; the instant of first contact is located between samples by bisection. The
//!   location is the lateral position of the target's reference point across the VUT front, as
//!   a fraction of the VUT width from its right (nearside) edge; with `impact_on =
//!   "target_side"` the contact point along the target from its front end.
//! * **Arrival error.** When the VUT's control point passes `vut_s`, the target's remaining
//!   travel to `target_s` over its speed is its arrival error (positive: late).
//! * **Closest approach.** Without contact, the smallest distance between the footprints.

use super::*;
use crate::scenario::path::Polyline;
use crate::scenario::ImpactOn;

/// The VUT's planned path and where its control point was last found on it.
#[derive(Debug, Clone)]
pub(super) struct VutPath {
    pub(super) line: Polyline,
    /// Control point ahead of the INS reference point, m.
    pub(super) ahead: f64,
    /// Arc length of the control point at the last VUT sample (search hint).
    pub(super) s: Option<f64>,
    /// The last answer of [`VutPath::s_at`] and what it was asked (the bits of x, y, yaw and
    /// `s`, and whether there is an `s`): one sample's pose is asked for several times (the trigger, the TTC of each
    /// target, the protocol), and the same question has the same answer.
    pub(super) last: std::cell::Cell<Option<([u64; 5], f64)>>,
}

/// How far around the last position a projection searches (m of arc length): far more than a
/// vehicle travels between samples, far less than the length of a turn's inbound leg.
const SEARCH_M: f64 = 40.0;

impl VutPath {
    /// Arc length of the control point of a VUT at (x, y, yaw).
    pub(super) fn s_at(&self, x: f64, y: f64, yaw: f64) -> f64 {
        let key = [
            x.to_bits(),
            y.to_bits(),
            yaw.to_bits(),
            self.s.map_or(0, f64::to_bits),
            self.s.is_some() as u64,
        ];
        if let Some((k, at)) = self.last.get() {
            if k == key {
                return at;
            }
        }
        let (cx, cy) = (x + self.ahead * yaw.cos(), y + self.ahead * yaw.sin());
        let at = match self.s {
            Some(h) => self.line.project_within(cx, cy, h - SEARCH_M, h + SEARCH_M),
            None => self.line.project(cx, cy),
        };
        self.last.set(Some((key, at)));
        at
    }
}

/// The trigger's measure for one target: TTC and the distance it comes from, straight-line
/// (seed paper) or along the planned path (conflict targets).
#[derive(Clone, Copy)]
pub(super) struct Geo<'a> {
    pub(super) vut: &'a VutSpec,
    pub(super) path: Option<&'a VutPath>,
}

impl Geo<'_> {
    pub(super) fn d_long(&self, t: &TargetSpec, x: f64, y: f64, yaw: f64) -> Option<f64> {
        match (&t.conflict, self.path) {
            (Some(c), Some(p)) => {
                let d = c.vut_s - p.s_at(x, y, yaw);
                (d > 0.0).then_some(d)
            }
            _ => ttc::d_long(x, y, yaw, t, self.vut),
        }
    }

    pub(super) fn ttc(&self, t: &TargetSpec, x: f64, y: f64, yaw: f64, v: f64) -> Option<f64> {
        match (&t.conflict, self.path) {
            (Some(_), Some(_)) => {
                if v <= 0.05 {
                    return None;
                }
                self.d_long(t, x, y, yaw).map(|d| d / v)
            }
            _ => ttc::vut_ttc(x, y, yaw, v, t, self.vut),
        }
    }
}

/// An oriented rectangle (a footprint): centre, yaw, half length, half width.
#[derive(Debug, Clone, Copy)]
pub struct Rect {
    pub cx: f64,
    pub cy: f64,
    pub yaw: f64,
    pub hl: f64,
    pub hw: f64,
}

/// How two rectangles that do not overlap lie apart.
#[derive(Debug, Clone, Copy)]
pub struct Apart {
    /// The smallest distance between them (as [`Rect::gap`], to rounding).
    pub distance: f64,
    /// The first rectangle's length and width directions, then the second's (unit vectors),
    /// each with the gap between the rectangles' projections on it (positive: the direction
    /// separates them).
    pub axes: [((f64, f64), f64); 4],
}

impl Rect {
    /// The VUT's footprint for its INS reference point at (x, y, yaw).
    pub fn vut(vut: &VutSpec, x: f64, y: f64, yaw: f64) -> Rect {
        Rect::body(
            vut.reference_to_front_m,
            vut.length_m,
            vut.width_m,
            x,
            y,
            yaw,
        )
    }

    /// A vehicle's footprint from its dimensions (as [`Rect::vut`]).
    fn body(reference_to_front: f64, length: f64, width: f64, x: f64, y: f64, yaw: f64) -> Rect {
        // Centre: from the reference point, forward to the front, back half the length.
        let ahead = reference_to_front - 0.5 * length;
        Rect {
            cx: x + ahead * yaw.cos(),
            cy: y + ahead * yaw.sin(),
            yaw,
            hl: 0.5 * length,
            hw: 0.5 * width,
        }
    }

    /// Cosine and sine of the yaw, computed once per test.
    fn cs(&self) -> (f64, f64) {
        (self.yaw.cos(), self.yaw.sin())
    }

    fn corners(&self) -> [(f64, f64); 4] {
        self.corners_cs(self.cs())
    }

    fn corners_cs(&self, (c, s): (f64, f64)) -> [(f64, f64); 4] {
        let mut out = [(0.0, 0.0); 4];
        for (k, (a, b)) in [(1.0, 1.0), (1.0, -1.0), (-1.0, -1.0), (-1.0, 1.0)]
            .into_iter()
            .enumerate()
        {
            let (lx, ly) = (a * self.hl, b * self.hw);
            out[k] = (self.cx + lx * c - ly * s, self.cy + lx * s + ly * c);
        }
        out
    }

    /// Distance from a point to the rectangle (0 inside).
    fn distance_to(&self, px: f64, py: f64) -> f64 {
        self.distance_cs(self.cs(), px, py)
    }

    fn distance_cs(&self, (c, s): (f64, f64), px: f64, py: f64) -> f64 {
        let (dx, dy) = (px - self.cx, py - self.cy);
        let lx = (dx * c + dy * s).abs() - self.hl;
        let ly = (-dx * s + dy * c).abs() - self.hw;
        lx.max(0.0).hypot(ly.max(0.0))
    }

    /// Whether two rectangles overlap (separating-axis test).
    pub fn overlaps(&self, o: &Rect) -> bool {
        let (ca, cb) = (self.cs(), o.cs());
        let (a, b) = (self.corners_cs(ca), o.corners_cs(cb));
        Self::overlap_axes(&a, &b, ca, cb)
    }

    fn overlap_axes(
        a: &[(f64, f64); 4],
        b: &[(f64, f64); 4],
        ca: (f64, f64),
        cb: (f64, f64),
    ) -> bool {
        for (c, s) in [ca, cb] {
            for (ax, ay) in [(c, s), (-s, c)] {
                let proj = |p: &[(f64, f64); 4]| {
                    p.iter()
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), q| {
                            let d = q.0 * ax + q.1 * ay;
                            (lo.min(d), hi.max(d))
                        })
                };
                let ((a0, a1), (b0, b1)) = (proj(a), proj(b));
                if a1 < b0 || b1 < a0 {
                    return false;
                }
            }
        }
        true
    }

    /// `None` when the rectangles overlap, else the smallest distance between them (as
    /// [`Rect::gap`]).
    pub fn separation(&self, o: &Rect) -> Option<f64> {
        let (ca, cb) = (self.cs(), o.cs());
        let (a, b) = (self.corners_cs(ca), o.corners_cs(cb));
        if Self::overlap_axes(&a, &b, ca, cb) {
            return None;
        }
        Some(Self::distance(self, o, &a, &b, ca, cb))
    }

    /// Corner to rectangle both ways.
    fn distance(
        ra: &Rect,
        rb: &Rect,
        a: &[(f64, f64); 4],
        b: &[(f64, f64); 4],
        ca: (f64, f64),
        cb: (f64, f64),
    ) -> f64 {
        let d1 = b
            .iter()
            .map(|p| ra.distance_cs(ca, p.0, p.1))
            .fold(f64::INFINITY, f64::min);
        let d2 = a
            .iter()
            .map(|p| rb.distance_cs(cb, p.0, p.1))
            .fold(f64::INFINITY, f64::min);
        d1.min(d2)
    }

    /// How two rectangles lie apart: `None` when they overlap (as [`Rect::overlaps`]).
    pub fn apart(&self, o: &Rect) -> Option<Apart> {
        let (ca, cb) = (self.cs(), o.cs());
        let (a, b) = (self.corners_cs(ca), o.corners_cs(cb));
        let mut axes = [((0.0, 0.0), 0.0); 4];
        let mut separated = false;
        for (k, (ax, ay)) in [ca, (-ca.1, ca.0), cb, (-cb.1, cb.0)]
            .into_iter()
            .enumerate()
        {
            let proj = |p: &[(f64, f64); 4]| {
                p.iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), q| {
                        let d = q.0 * ax + q.1 * ay;
                        (lo.min(d), hi.max(d))
                    })
            };
            let ((a0, a1), (b0, b1)) = (proj(&a), proj(&b));
            separated |= a1 < b0 || b1 < a0;
            axes[k] = ((ax, ay), (b0 - a1).max(a0 - b1));
        }
        if !separated {
            return None;
        }
        // Corner to rectangle both ways, as Rect::gap, compared squared.
        let d2 = |r: &Rect, (c, s): (f64, f64), (px, py): (f64, f64)| {
            let (dx, dy) = (px - r.cx, py - r.cy);
            let lx = ((dx * c + dy * s).abs() - r.hl).max(0.0);
            let ly = ((-dx * s + dy * c).abs() - r.hw).max(0.0);
            lx * lx + ly * ly
        };
        let near = b
            .iter()
            .map(|&p| d2(self, ca, p))
            .chain(a.iter().map(|&p| d2(o, cb, p)))
            .fold(f64::INFINITY, f64::min);
        Some(Apart {
            distance: near.sqrt(),
            axes,
        })
    }

    /// Where `self` (the VUT) and `o` (a target) touch at first contact, as `on` measures it.
    /// Across the VUT front: the target's reference point (its centre), lateral from the VUT's
    /// right edge over the width. Along the target: the contact point (the corners of either
    /// footprint nearest the other, averaged) from the target's front end over its length.
    pub fn impact_location(&self, o: &Rect, on: ImpactOn) -> f64 {
        match on {
            ImpactOn::VutFront => {
                let (c, s) = (self.yaw.cos(), self.yaw.sin());
                let lat = -(o.cx - self.cx) * s + (o.cy - self.cy) * c;
                (lat + self.hw) / (2.0 * self.hw)
            }
            ImpactOn::VutSide => {
                let (c, s) = (self.yaw.cos(), self.yaw.sin());
                let along = (o.cx - self.cx) * c + (o.cy - self.cy) * s;
                (along + self.hl) / (2.0 * self.hl)
            }
            ImpactOn::TargetSide => {
                let mut near: Vec<(f64, (f64, f64))> = Vec::with_capacity(8);
                for p in self.corners() {
                    near.push((o.distance_to(p.0, p.1), p));
                }
                for p in o.corners() {
                    near.push((self.distance_to(p.0, p.1), p));
                }
                let min = near.iter().map(|n| n.0).fold(f64::INFINITY, f64::min);
                let (mut sx, mut sy, mut n) = (0.0, 0.0, 0.0);
                for (d, p) in &near {
                    if *d <= min + 0.005 {
                        sx += p.0;
                        sy += p.1;
                        n += 1.0;
                    }
                }
                let (px, py) = (sx / n, sy / n);
                let along = (px - o.cx) * o.yaw.cos() + (py - o.cy) * o.yaw.sin();
                ((o.hl - along) / (2.0 * o.hl)).clamp(0.0, 1.0)
            }
        }
    }

    /// Smallest distance between two rectangles (0 when they overlap): corner to rectangle
    /// both ways (exact for convex rectangles that do not overlap).
    pub fn gap(&self, o: &Rect) -> f64 {
        self.separation(o).unwrap_or(0.0)
    }
}

/// The footprint of target track `t` at sample time `time` (simulated pose, or its measured
/// state in the twin).
fn target_rect(t: &Track, twin: &Twin, time: f64) -> Rect {
    let (x, y, yaw) = if t.measured {
        match twin.get(&t.spec.id) {
            Some(o) => (o.x, o.y, o.yaw_rad),
            None => t.pose(0.0),
        }
    } else {
        t.pose(t.origin().map_or(0.0, |o| time - o))
    };
    let (l, w) = t.spec.footprint();
    Rect {
        cx: x,
        cy: y,
        yaw,
        hl: 0.5 * l,
        hw: 0.5 * w,
    }
}

impl Engine {
    /// Where the VUT's control point is on its planned path: updated once per VUT sample.
    pub(super) fn update_vut_path(&mut self, s: &Sample) {
        if let Some(p) = self.vut_path.as_mut() {
            let at = p.s_at(s.x, s.y, s.yaw_rad);
            p.s = Some(at);
        }
    }

    /// The target's velocity vector at `time` (simulated profile or measured state).
    fn target_velocity(&self, i: usize, time: f64) -> (f64, f64) {
        let t = &self.tracks[i];
        if t.measured {
            if let Some(o) = self.twin.get(&t.spec.id) {
                return (o.speed_mps * o.yaw_rad.cos(), o.speed_mps * o.yaw_rad.sin());
            }
        }
        let Some(o) = t.origin() else {
            return (0.0, 0.0);
        };
        let tau = time - o;
        let (_, _, yaw) = t.pose(tau);
        let v = t.profile.speed(tau);
        (v * yaw.cos(), v * yaw.sin())
    }

    /// Contact between the VUT and a conflict target between the previous and this sample.
    pub(super) fn check_conflict_impact(&mut self, i: usize, snap: &Snap) {
        // The body's dimensions only: the spec holds the planned path.
        let (front, length, width) = (
            self.vut.reference_to_front_m,
            self.vut.length_m,
            self.vut.width_m,
        );
        let rect_at = |e: &Engine, a: &Snap, b: &Snap, w: f64| {
            let (x, y, yaw, _) = Snap::lerp(a, b, w);
            let time = a.t + w * (b.t - a.t);
            (
                Rect::body(front, length, width, x, y, yaw),
                target_rect(&e.tracks[i], &e.twin, time),
            )
        };
        let (v1, t1) = rect_at(self, snap, snap, 0.0);
        // Arrival at the conflict point: the VUT's control point passes vut_s.
        self.conflict_arrival(i, snap);
        if self.tracks[i].impact.is_some() {
            return;
        }
        if !v1.overlaps(&t1) {
            let g = v1.gap(&t1);
            let t = &mut self.tracks[i];
            t.closest = Some(t.closest.map_or(g, |c: f64| c.min(g)));
            return;
        }
        let Some(prev) = self.tracks[i].prev else {
            return;
        };
        // First contact between the samples: bisection on the interpolated states.
        let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
        let (v0, t0) = rect_at(self, &prev, snap, 0.0);
        if !v0.overlaps(&t0) {
            for _ in 0..50 {
                let mid = 0.5 * (lo + hi);
                let (a, b) = rect_at(self, &prev, snap, mid);
                if a.overlaps(&b) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
        } else {
            hi = 0.0;
        }
        let w = hi;
        let time = prev.t + w * (snap.t - prev.t);
        let (_, _, yaw, v) = Snap::lerp(&prev, snap, w);
        let (vr, tr) = rect_at(self, &prev, snap, w);
        let (c, s) = (yaw.cos(), yaw.sin());
        let location = vr.impact_location(&tr, self.tracks[i].spec.impact_on);
        let (tvx, tvy) = self.target_velocity(i, time);
        let rel = (v * c - tvx).hypot(v * s - tvy);
        let t = &self.tracks[i];
        let travel = t.origin().map(|o| t.profile.travel(time - o));
        let nominal_kmh = self.vut.speed_kmh;
        let rec = ImpactRecord {
            target: t.spec.id.clone(),
            time_s: Some(time),
            dummy_travel_m: travel,
            nominal_travel_m: ttc::nominal_travel_m(&t.spec, &self.vut),
            overlap: Some(location),
            stopped_short_m: None,
            note: if travel.is_none() {
                Some("the target had not started".into())
            } else {
                None
            },
            impact_point: Some(crate::scenario::Point { x: tr.cx, y: tr.cy }),
            impact_speed_kmh: Some(v * 3.6),
            relative_speed_kmh: Some(rel * 3.6),
            speed_reduction_kmh: nominal_kmh.map(|n| n - v * 3.6),
            location: Some(location),
            vut_speed_kmh: Some(v * 3.6),
            arrival_error_s: t.arrival_error_s,
            closest_approach_m: Some(0.0),
        };
        self.tracks[i].impact = Some(rec.clone());
        self.proto.impact_at(time);
        self.event(Event::Impact(rec));
    }

    /// Records the target's arrival error when the VUT's control point passes `vut_s`.
    fn conflict_arrival(&mut self, i: usize, snap: &Snap) {
        let (Some(path), Some(c)) = (self.vut_path.as_ref(), self.tracks[i].spec.conflict) else {
            return;
        };
        let t = &self.tracks[i];
        if t.arrival_error_s.is_some() {
            return;
        }
        let Some(prev) = t.prev else { return };
        let (s0, s1) = (
            path.line.project_within(
                prev.x + path.ahead * prev.yaw.cos(),
                prev.y + path.ahead * prev.yaw.sin(),
                c.vut_s - 2.0 * SEARCH_M,
                c.vut_s + 2.0 * SEARCH_M,
            ),
            path.s.unwrap_or(f64::NAN),
        );
        if !(s0 < c.vut_s && s1 >= c.vut_s) {
            return;
        }
        let w = (c.vut_s - s0) / (s1 - s0);
        let time = prev.t + w * (snap.t - prev.t);
        let Some(origin) = t.origin() else {
            return;
        };
        let tau = time - origin;
        let remaining = c.target_s - t.profile.travel(tau);
        let v = t.profile.speed(tau).max(t.profile.v).max(0.1);
        self.tracks[i].arrival_error_s = Some(remaining / v);
    }
}
