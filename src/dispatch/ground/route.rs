//! Back to the start: a drivable path from an object's pose to its start pose made of arcs of
//! its minimum turning radius and straight lines (Dubins' shortest forward paths; where the
//! object may reverse, also the same words driven backwards and "back up, then drive"), timed
//! with a trapezoidal speed profile that stops at every change of direction.

use serde::{Deserialize, Serialize};

use super::track::{PlannedTrack, Pose, TrackPoint};
use std::f64::consts::{PI, TAU};

/// How an object can move when it drives back to its start.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mobility {
    /// Smallest turning radius of its path, m.
    pub min_turn_radius_m: f64,
    /// It may drive backwards.
    pub may_reverse: bool,
    /// Cruise speed of a drive back, m/s.
    pub speed_mps: f64,
    /// Acceleration and deceleration of a drive back, m/s².
    pub accel_mps2: f64,
}

impl Mobility {
    /// A driving robot in a passenger car (the VUT): turning circle ≈ 11 m.
    pub const CAR: Mobility = Mobility {
        min_turn_radius_m: 5.5,
        may_reverse: true,
        speed_mps: 5.0,
        accel_mps2: 1.0,
    };
    /// A low-profile platform carrying a vehicle or two-wheeler target.
    pub const PLATFORM: Mobility = Mobility {
        min_turn_radius_m: 3.0,
        may_reverse: true,
        speed_mps: 4.0,
        accel_mps2: 1.0,
    };
    /// A small platform or belt system carrying a pedestrian or cyclist dummy.
    pub const SMALL_PLATFORM: Mobility = Mobility {
        min_turn_radius_m: 1.0,
        may_reverse: true,
        speed_mps: 2.0,
        accel_mps2: 0.7,
    };

    pub fn validate(&self) -> Result<(), String> {
        let pos = |v: f64| v.is_finite() && v > 0.0;
        if !(pos(self.min_turn_radius_m) && pos(self.speed_mps) && pos(self.accel_mps2)) {
            return Err(format!(
                "mobility needs a positive turning radius, speed and acceleration, got {self:?}"
            ));
        }
        Ok(())
    }
}

/// One piece of a route: an arc (curvature ±1/r) or a line, driven forwards or backwards.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Piece {
    /// Signed curvature of the path as driven (left positive), 1/m.
    curvature: f64,
    length: f64,
    /// +1 forwards, −1 backwards.
    dir: f64,
}

/// Changes of direction cost this much extra (m): a stop, the gear change, a start.
const CUSP_PENALTY_M: f64 = 5.0;

fn mod2pi(a: f64) -> f64 {
    a.rem_euclid(TAU)
}

/// Dubins' six words from `a` to `b` with radius `r`, forwards: (pieces, length).
fn dubins(a: Pose, b: Pose, r: f64) -> Option<Vec<Piece>> {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let d = dx.hypot(dy) / r;
    let th = if d > 0.0 { dy.atan2(dx) } else { 0.0 };
    let al = mod2pi(a.yaw - th);
    let be = mod2pi(b.yaw - th);
    let (sa, sb, ca, cb) = (al.sin(), be.sin(), al.cos(), be.cos());
    let cab = (al - be).cos();
    // (t, p, q) in units of r and the word's curvature signs (0 = straight).
    let mut words: Vec<([f64; 3], [f64; 3])> = Vec::new();
    // LSL
    let p2 = 2.0 + d * d - 2.0 * cab + 2.0 * d * (sa - sb);
    if p2 >= 0.0 {
        let t1 = (cb - ca).atan2(d + sa - sb);
        words.push((
            [mod2pi(-al + t1), p2.sqrt(), mod2pi(be - t1)],
            [1.0, 0.0, 1.0],
        ));
    }
    // RSR
    let p2 = 2.0 + d * d - 2.0 * cab + 2.0 * d * (sb - sa);
    if p2 >= 0.0 {
        let t1 = (ca - cb).atan2(d - sa + sb);
        words.push((
            [mod2pi(al - t1), p2.sqrt(), mod2pi(-be + t1)],
            [-1.0, 0.0, -1.0],
        ));
    }
    // LSR
    let p2 = -2.0 + d * d + 2.0 * cab + 2.0 * d * (sa + sb);
    if p2 >= 0.0 {
        let p = p2.sqrt();
        let t2 = (-ca - cb).atan2(d + sa + sb) - (-2.0f64).atan2(p);
        words.push(([mod2pi(-al + t2), p, mod2pi(-be + t2)], [1.0, 0.0, -1.0]));
    }
    // RSL
    let p2 = -2.0 + d * d + 2.0 * cab - 2.0 * d * (sa + sb);
    if p2 >= 0.0 {
        let p = p2.sqrt();
        let t2 = (ca + cb).atan2(d - sa - sb) - 2.0f64.atan2(p);
        words.push(([mod2pi(al - t2), p, mod2pi(be - t2)], [-1.0, 0.0, 1.0]));
    }
    // RLR
    let tmp = (6.0 - d * d + 2.0 * cab + 2.0 * d * (sa - sb)) / 8.0;
    if tmp.abs() <= 1.0 {
        let p = mod2pi(TAU - tmp.acos());
        let t = mod2pi(al - (ca - cb).atan2(d - sa + sb) + p / 2.0);
        words.push(([t, p, mod2pi(al - be - t + p)], [-1.0, 1.0, -1.0]));
    }
    // LRL
    let tmp = (6.0 - d * d + 2.0 * cab + 2.0 * d * (sb - sa)) / 8.0;
    if tmp.abs() <= 1.0 {
        let p = mod2pi(TAU - tmp.acos());
        let t = mod2pi(-al - (ca - cb).atan2(d + sa - sb) + p / 2.0);
        words.push(([t, p, mod2pi(be - al - t + p)], [1.0, -1.0, 1.0]));
    }
    let mut best: Option<(f64, Vec<Piece>)> = None;
    for (len, k) in words {
        let pieces: Vec<Piece> = (0..3)
            .filter(|&i| len[i] > 1e-9)
            .map(|i| Piece {
                curvature: k[i] / r,
                length: len[i] * r,
                dir: 1.0,
            })
            .collect();
        // Numerical guard: the word must end where it should.
        let end = integrate(a, &pieces);
        if end.offset_to(&b).0 > 1e-3 * r.max(1.0) || end.offset_to(&b).1 > 0.1 {
            continue;
        }
        let total: f64 = pieces.iter().map(|p| p.length).sum();
        if best.as_ref().is_none_or(|(l, _)| total < *l) {
            best = Some((total, pieces));
        }
    }
    best.map(|(_, p)| p)
}

/// Pose after driving `s` of one piece from `p`.
fn advance(p: Pose, piece: &Piece, s: f64) -> Pose {
    // The heading of motion: reversing moves along yaw + π with the path's curvature seen
    // from the direction of motion.
    let dir_yaw = if piece.dir > 0.0 { p.yaw } else { p.yaw + PI };
    let k = piece.curvature;
    let (x, y, h) = if k.abs() < 1e-12 {
        (p.x + s * dir_yaw.cos(), p.y + s * dir_yaw.sin(), dir_yaw)
    } else {
        let h = dir_yaw + k * s;
        (
            p.x + (h.sin() - dir_yaw.sin()) / k,
            p.y - (h.cos() - dir_yaw.cos()) / k,
            h,
        )
    };
    let yaw = if piece.dir > 0.0 { h } else { h - PI };
    Pose::new(x, y, crate::frame::wrap_pi(yaw))
}

fn integrate(mut p: Pose, pieces: &[Piece]) -> Pose {
    for q in pieces {
        p = advance(p, q, q.length);
    }
    p
}

fn cost(pieces: &[Piece]) -> f64 {
    let len: f64 = pieces.iter().map(|p| p.length).sum();
    let cusps = pieces.windows(2).filter(|w| w[0].dir != w[1].dir).count();
    len + cusps as f64 * CUSP_PENALTY_M
}

/// The words driven backwards: a forward path from `a` turned round (yaw + π) to `b` turned
/// round, traced in reverse gear.
fn dubins_backwards(a: Pose, b: Pose, r: f64) -> Option<Vec<Piece>> {
    let flip = |p: Pose| Pose::new(p.x, p.y, p.yaw + PI);
    dubins(flip(a), flip(b), r).map(|ps| {
        ps.into_iter()
            .map(|p| Piece {
                curvature: p.curvature,
                length: p.length,
                dir: -1.0,
            })
            .collect()
    })
}

/// The shortest route (with the cusp penalty) from `from` to `to`.
fn plan_pieces(from: Pose, to: Pose, m: &Mobility) -> Option<Vec<Piece>> {
    let r = m.min_turn_radius_m;
    let mut cands: Vec<Vec<Piece>> = Vec::new();
    if let Some(p) = dubins(from, to, r) {
        cands.push(p);
    }
    if m.may_reverse {
        if let Some(p) = dubins_backwards(from, to, r) {
            cands.push(p);
        }
        // Back up first (straight or on full lock either way), then drive forwards; and drive
        // forwards to a point short of the start, then reverse into it.
        for k in [0.0, 1.0 / r, -1.0 / r] {
            for len in [2.0, 4.0, 6.0, 8.0, 12.0] {
                let back = Piece {
                    curvature: k,
                    length: len,
                    dir: -1.0,
                };
                let mid = advance(from, &back, len);
                if let Some(mut rest) = dubins(mid, to, r) {
                    rest.insert(0, back);
                    cands.push(rest);
                }
                let fwd_tail = Piece {
                    curvature: k,
                    length: len,
                    dir: -1.0,
                };
                // The pose from which reversing `len` ends at the start.
                let pre = advance(
                    to,
                    &Piece {
                        curvature: k,
                        length: len,
                        dir: 1.0,
                    },
                    len,
                );
                if let Some(mut head) = dubins(from, pre, r) {
                    head.push(fwd_tail);
                    cands.push(head);
                }
            }
        }
    }
    cands
        .into_iter()
        .filter(|c| {
            let (d, h) = integrate(from, c).offset_to(&to);
            d < 0.01 && h < 0.5
        })
        .min_by(|a, b| cost(a).total_cmp(&cost(b)))
}

/// A planned drive back from `from` to `to`, timed every `dt_s`; `None` when no route was
/// found (the planner always finds a forward one for a positive radius). A drive of no length
/// is a single point.
pub fn plan_route(from: Pose, to: Pose, m: &Mobility, dt_s: f64) -> Option<PlannedTrack> {
    let pieces = plan_pieces(from, to, m)?;
    let pieces: Vec<Piece> = pieces.into_iter().filter(|p| p.length > 1e-6).collect();
    let dt = if dt_s > 0.0 { dt_s } else { 0.05 };
    let mut points = vec![TrackPoint {
        t: 0.0,
        x: from.x,
        y: from.y,
        yaw: from.yaw,
        v: 0.0,
        a: 0.0,
        curvature: 0.0,
    }];
    let (mut t0, mut pose) = (0.0, from);
    let mut i = 0;
    while i < pieces.len() {
        // One gear: consecutive pieces in the same direction, a trapezoid over their length.
        let mut j = i;
        while j + 1 < pieces.len() && pieces[j + 1].dir == pieces[i].dir {
            j += 1;
        }
        let gear = &pieces[i..=j];
        let len: f64 = gear.iter().map(|p| p.length).sum();
        let (v, a) = (m.speed_mps, m.accel_mps2);
        let vp = v.min((a * len).sqrt());
        let ta = vp / a;
        let sa = 0.5 * a * ta * ta;
        let tc = (len - 2.0 * sa).max(0.0) / vp.max(1e-9);
        let total = 2.0 * ta + tc;
        let s_at = |t: f64| -> (f64, f64, f64) {
            if t < ta {
                (0.5 * a * t * t, a * t, a)
            } else if t < ta + tc {
                (sa + vp * (t - ta), vp, 0.0)
            } else {
                let u = (total - t).max(0.0);
                (len - 0.5 * a * u * u, a * u, -a)
            }
        };
        let pose_at = |s: f64| -> (Pose, f64) {
            let mut p = pose;
            let mut left = s;
            for q in gear {
                if left <= q.length {
                    return (advance(p, q, left), q.curvature);
                }
                p = advance(p, q, q.length);
                left -= q.length;
            }
            (p, gear[gear.len() - 1].curvature)
        };
        let n = (total / dt).ceil().max(1.0) as usize;
        for k in 1..=n {
            let t = (k as f64 * dt).min(total);
            let (s, sv, sa_) = s_at(t);
            let (p, kappa) = pose_at(s.min(len));
            let dir = gear[0].dir;
            points.push(TrackPoint {
                t: t0 + t,
                x: p.x,
                y: p.y,
                yaw: p.yaw,
                v: if k == n { 0.0 } else { dir * sv },
                a: dir * sa_,
                curvature: kappa,
            });
        }
        pose = pose_at(len).0;
        t0 += total;
        i = j + 1;
    }
    // End exactly on the start pose (the integration is exact up to rounding).
    if let Some(last) = points.last_mut() {
        last.x = to.x;
        last.y = to.y;
        last.yaw = crate::frame::wrap_pi(to.yaw);
    }
    PlannedTrack::new(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(from: Pose, to: Pose, m: &Mobility) -> PlannedTrack {
        let t = plan_route(from, to, m, 0.05).expect("route");
        let (d, h) = t.end().offset_to(&to);
        assert!(
            d < 1e-6 && h < 1e-6,
            "{from:?} → {to:?}: ends {d} m {h}° off"
        );
        // Drivable: consecutive points no further apart than the speed allows, and the
        // heading changes no faster than the radius allows.
        for w in t.points.windows(2) {
            let ds = (w[1].x - w[0].x).hypot(w[1].y - w[0].y);
            let dt = w[1].t - w[0].t;
            assert!(ds <= m.speed_mps * dt + 1e-6, "{ds} m in {dt} s");
            let dyaw = crate::frame::wrap_pi(w[1].yaw - w[0].yaw).abs();
            assert!(
                dyaw <= ds / m.min_turn_radius_m + 1e-3,
                "{dyaw} rad over {ds} m"
            );
        }
        t
    }

    #[test]
    fn routes_end_on_the_start_pose_within_the_turning_radius() {
        let car = Mobility::CAR;
        // Straight ahead of the start, facing away: reversing straight back is the shortest.
        let t = check(Pose::new(30.0, 0.0, 0.0), Pose::new(0.0, 0.0, 0.0), &car);
        assert!((t.length_m() - 30.0).abs() < 0.05, "{}", t.length_m());
        assert!(t.points.iter().all(|p| p.v <= 1e-9), "all reversing");
        // Forward only: a loop round.
        let fwd = Mobility {
            may_reverse: false,
            ..car
        };
        let t = check(Pose::new(30.0, 0.0, 0.0), Pose::new(0.0, 0.0, 0.0), &fwd);
        assert!(t.points.iter().all(|p| p.v >= -1e-9));
        assert!(t.length_m() > 30.0 + PI * car.min_turn_radius_m - 1.0);
        // After a left turn (end of a turn-across path), back to the approach.
        for (from, to) in [
            (
                Pose::new(20.0, 25.0, PI / 2.0),
                Pose::new(-40.0, -1.75, 0.0),
            ),
            (Pose::new(3.0, -2.0, -2.5), Pose::new(0.0, 0.0, 1.0)),
            (Pose::new(0.1, 0.0, 0.0), Pose::new(0.0, 0.0, 0.0)),
        ] {
            check(from, to, &car);
            check(from, to, &fwd);
            check(from, to, &Mobility::SMALL_PLATFORM);
        }
        // Dubins' words against a closed form: a half circle to the left.
        let p = dubins(Pose::new(0.0, 0.0, 0.0), Pose::new(0.0, 10.0, PI), 5.0).expect("path");
        let len: f64 = p.iter().map(|q| q.length).sum();
        assert!((len - 5.0 * PI).abs() < 1e-6, "{len}");
        assert!(Mobility {
            min_turn_radius_m: 0.0,
            ..car
        }
        .validate()
        .is_err());
    }
}
