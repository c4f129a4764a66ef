//! Placing a conflict point: where on their paths the VUT and a target first touch, at nominal
//! motion, so that the impact happens at the requested location.
//!
//! Both move at constant speed along their paths, synchronised (the target's arc length is
//! `q0 + (v_target / v_vut)·(s − s_ref)` when the VUT's control point is at `s`). For a given
//! `q0` the first contact is found by marching the VUT forward (2 cm steps, then bisection)
//! and testing the footprints with the engine's own contact test (steps that the footprints'
//! distance at an earlier step proves apart are not tested); its location is the
//! target's reference point across the VUT front. `q0` is then chosen by a scan and bisection
//! so that the location is the requested one. The result is the pair (VUT s, target s) at
//! first contact: the scenario's `conflict`.

use crate::scenario::engine::conflict::Rect;
use crate::scenario::path::Polyline;
use crate::scenario::{ImpactOn, VutSpec};

pub(crate) struct Setup<'a> {
    pub vut: &'a VutSpec,
    pub vpath: &'a Polyline,
    pub tpath: &'a Polyline,
    /// Target footprint (length, width).
    pub footprint: (f64, f64),
    pub v_vut: f64,
    pub v_target: f64,
    /// What the impact location measures.
    pub on: ImpactOn,
}

impl Setup<'_> {
    fn rects(&self, s: f64, q: f64) -> (Rect, Rect) {
        let ahead = self.vut.control_ahead_m();
        let (cx, cy, yaw) = self.vpath.pose(s);
        let (x, y) = (cx - ahead * yaw.cos(), cy - ahead * yaw.sin());
        let (tx, ty, tyaw) = self.tpath.pose(q);
        (
            Rect::vut(self.vut, x, y, yaw),
            Rect {
                cx: tx,
                cy: ty,
                yaw: tyaw,
                hl: 0.5 * self.footprint.0,
                hw: 0.5 * self.footprint.1,
            },
        )
    }

    fn q_of(&self, q0: f64, s_ref: f64, s: f64) -> f64 {
        q0 + self.v_target / self.v_vut * (s - s_ref)
    }

    /// The VUT positions first contact is searched at: from `from` in 2 cm steps (each the
    /// previous plus the step) to the first at or beyond `to`.
    fn steps(from: f64, to: f64) -> Vec<f64> {
        let mut s = vec![from];
        let mut last = from;
        while last < to {
            last += 0.02;
            s.push(last);
        }
        s
    }

    /// First contact for offset `q0`: (s, q, location), the first of the positions `steps`
    /// (see [`Setup::steps`]) where the footprints overlap, refined by bisection from the
    /// position before it.
    ///
    /// A position that cannot touch is skipped untested. From a tested position where the
    /// footprints are apart — by a distance, or by a gap along a direction that separates
    /// them — they close by at most how far their points move (towards each other along that
    /// direction): the control point and the target's centre along their paths' tangents there
    /// (off them by at most the arc length times the paths' turn), the corners also their
    /// distance from those points times the turn. Every position until that bound reaches
    /// the gap keeps them apart.
    fn first_contact(&self, q0: f64, s_ref: f64, steps: &[f64]) -> Option<(f64, f64, f64)> {
        let touch = |s: f64| {
            let (a, b) = self.rects(s, self.q_of(q0, s_ref, s));
            a.overlaps(&b)
        };
        let ratio = self.v_target / self.v_vut;
        let (&from, &end) = (steps.first()?, steps.last()?);
        let (a, b) = self.rects(from, self.q_of(q0, s_ref, from));
        // Farthest a footprint point lies from the point that follows the path.
        let (px, py, _) = self.vpath.pose(from);
        let r_vut = (a.cx - px).hypot(a.cy - py) + a.hl.hypot(a.hw);
        let r_target = b.hl.hypot(b.hw);
        // already touching where the search starts: not an approach
        let mut apart = a.apart(&b)?;
        let mut k = 0;
        while k + 1 < steps.len() {
            let (sa, qa) = (steps[k], self.q_of(q0, s_ref, steps[k]));
            let (tv, tt) = (apart.axes[0].0, apart.axes[2].0);
            // Relative motion of the two points per metre of s, were the paths straight.
            let rel = (tv.0 - ratio * tt.0, tv.1 - ratio * tt.1);
            // (gap, closing per metre) for the distance and each separating direction.
            let mut bounds = [(0.0, 0.0); 5];
            bounds[0] = (apart.distance, rel.0.hypot(rel.1));
            for (i, &((nx, ny), g)) in apart.axes.iter().enumerate() {
                bounds[i + 1] = (g, (rel.0 * nx + rel.1 * ny).abs());
            }
            let reach = |turn_v: f64, turn_t: f64, cap: f64| {
                let rot = r_vut * turn_v + r_target * turn_t;
                let lin = turn_v + ratio.abs() * turn_t;
                bounds
                    .iter()
                    .map(|&(g, w)| {
                        let room = 0.999 * g - 1e-6 - rot;
                        if room <= 0.0 {
                            0.0
                        } else if room < cap * (w + lin) {
                            room / (w + lin)
                        } else {
                            cap
                        }
                    })
                    .fold(0.0, f64::max)
            };
            // As far as straight paths would allow, then shorter stretches: the paths' turn
            // over a stretch bounds it over any part of it.
            let mut cap = reach(0.0, 0.0, end - sa);
            let mut best = 0.0;
            for _ in 0..4 {
                let far = sa + cap;
                let r = reach(
                    self.vpath.turn_between(sa, far),
                    self.tpath.turn_between(qa, self.q_of(q0, s_ref, far)),
                    cap,
                );
                best = f64::max(best, r);
                cap *= 0.25;
                if r >= cap || cap < 0.02 {
                    break;
                }
            }
            let reach = best;
            // The next position not within reach of this one.
            let k1 =
                (k + 1 + steps[k + 1..].partition_point(|&s| s - sa < reach)).min(steps.len() - 1);
            let s1 = steps[k1];
            let (v, t) = self.rects(s1, self.q_of(q0, s_ref, s1));
            match v.apart(&t) {
                Some(next) => {
                    apart = next;
                    k = k1;
                }
                None => {
                    let (mut lo, mut hi) = (steps[k1 - 1], s1);
                    for _ in 0..30 {
                        let mid = 0.5 * (lo + hi);
                        if touch(mid) {
                            hi = mid;
                        } else {
                            lo = mid;
                        }
                    }
                    let q = self.q_of(q0, s_ref, hi);
                    let (v, t) = self.rects(hi, q);
                    return Some((hi, q, v.impact_location(&t, self.on)));
                }
            }
        }
        None
    }

    /// The conflict (VUT s, target s) for impact `location`, around the paths' meeting
    /// point (s_ref on the VUT path, q_ref on the target's).
    pub fn solve(&self, location: f64, s_ref: f64, q_ref: f64) -> Result<(f64, f64), String> {
        let (from, to) = (s_ref - 25.0, s_ref + 25.0);
        let steps = Self::steps(from, to);
        let span = 15.0_f64
            .max(3.0 * self.footprint.0)
            .max(15.0 * self.v_target / self.v_vut);
        let n = 600;
        let q0_at = |k: usize| q_ref - span + 2.0 * span * k as f64 / n as f64;
        let contact = |k: usize| {
            let q0 = q0_at(k);
            self.first_contact(q0, s_ref, &steps)
                .map(|(_, _, loc)| (q0, loc))
        };
        let crosses = |(_, pl): (f64, f64), (_, loc): (f64, f64)| {
            (pl - location) * (loc - location) <= 0.0 && pl != loc
        };
        // A bracketing pair of offsets: bisection on q0.
        let refine = |(pq, llo): (f64, f64), (q0, _): (f64, f64)| {
            let (mut lo, mut hi) = (pq, q0);
            for _ in 0..40 {
                let mid = 0.5 * (lo + hi);
                match self.first_contact(mid, s_ref, &steps) {
                    Some((_, _, l)) if (l - location) * (llo - location) > 0.0 => lo = mid,
                    Some(_) => hi = mid,
                    None => break,
                }
            }
            self.first_contact(hi, s_ref, &steps)
                .map(|(s, q, _)| (s, q))
        };
        // The offsets k in (a, b] in order, from the contact at a: the first bracket that
        // refines to a contact.
        let fine = |a: usize, b: usize, mut prev: Option<(f64, f64)>| {
            for k in a + 1..=b {
                let cur = contact(k);
                if let (Some(p), Some(c)) = (prev, cur) {
                    if crosses(p, c) {
                        if let Some(found) = refine(p, c) {
                            return Some(found);
                        }
                    }
                }
                prev = cur;
            }
            None
        };
        // Every COARSE-th offset first (at least 0.5 m apart: span/30); a stretch whose ends
        // cross the asked location, or where contact begins or ends, is then scanned offset by
        // offset, so the bracket and its bisection are the ones a scan of every offset finds,
        // unless a stretch crosses it twice or holds all of a contact narrower than 0.5 m
        // (the footprints are wider than that).
        const COARSE: usize = 10;
        let (mut a, mut at_a) = (0, contact(0));
        while a < n {
            let b = (a + COARSE).min(n);
            let at_b = contact(b);
            let worth = match (at_a, at_b) {
                (Some(p), Some(c)) => crosses(p, c),
                (None, None) => false,
                _ => true,
            };
            if worth {
                if let Some(found) = fine(a, b, at_a) {
                    return Ok(found);
                }
            }
            (a, at_a) = (b, at_b);
        }
        // No bracket: the contact closest to the asked location over every offset.
        let mut best: Option<(f64, f64)> = None;
        for k in 0..=n {
            if let Some((q0, loc)) = contact(k) {
                if best.is_none_or(|(_, b)| (loc - location).abs() < (b - location).abs()) {
                    best = Some((q0, loc));
                }
            }
        }
        // Without a bracket: a location that does not change with the offset (parallel paths,
        // head-on) is taken when it is the one asked for; along a target, the ends of its side
        // are reached only in the limit (corner against corner), so the closest contact within
        // the protocol's 0.1 m of the end is taken.
        let tol = match self.on {
            ImpactOn::VutFront | ImpactOn::VutSide => 0.005,
            ImpactOn::TargetSide => 0.1 / self.footprint.0,
        };
        match best {
            Some((q0, loc)) if (loc - location).abs() < tol => self
                .first_contact(q0, s_ref, &steps)
                .map(|(s, q, _)| (s, q))
                .ok_or_else(|| "no contact".to_string()),
            Some((_, loc)) => Err(format!(
                "no placement reaches impact location {location:.3} (closest {loc:.3})"
            )),
            None => Err("the VUT's and the target's paths never meet".into()),
        }
    }
}

/// Where two polylines come closest: (s on `a`, s on `b`), sampled every 0.25 m of `a`.
pub(crate) fn meeting_point(a: &Polyline, b: &Polyline) -> (f64, f64) {
    let n = (a.length() / 0.25).ceil() as usize;
    let mut best = (f64::INFINITY, 0.0, 0.0);
    for k in 0..=n {
        let s = a.length() * k as f64 / n.max(1) as f64;
        let (x, y, _) = a.pose(s);
        let q = b.project(x, y);
        let (bx, by, _) = b.pose(q);
        let d = (bx - x).hypot(by - y);
        if d < best.0 {
            best = (d, s, q);
        }
    }
    (best.1, best.2)
}
