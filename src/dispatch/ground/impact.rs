//! The impact as the objects drove it: the VUT on its robot's MONR and a target on its
//! carrier's MONR, positions interpolated in the objects' own time stamps, the impact located
//! between MONR samples by bisection and defined and measured as the engine does for that
//! kind of target (a crossing dummy at the VUT's front reaching its path line; a target beside
//! a VUT that drifts out of its lane where they meet along the lane; others at the first
//! contact of the footprints, [`Rect::impact_location`]).
//!
//! A carrier that drifts off its own TRAJ schedule while it drives moves the impact with it,
//! whatever scil sent: that is what the objects did, and the impact says so.
//! [`drift_between`] measures the drift (shown beside the impact). [`timing_corrected`] shifts
//! the target's track and finds the contact again on the MONR positions: by a clock offset
//! between the two objects measured before the start (the corrected impact), or by their drift
//! apart (a diagnosis of the platforms: where they would have met on their schedules).

use serde::Serialize;

use crate::dispatch::control_centre::MonrSample;
use crate::dispatch::iso22133::ObjectState;
use crate::scenario::engine::Rect;
use crate::scenario::{Activation, TargetSpec, VutSpec};

/// The impact of one target, from MONR.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MonrImpact {
    /// Control-centre seconds of first contact.
    pub t_s: f64,
    /// Euro NCAP impact location (as the engine's `location`).
    pub location: f64,
    /// Where the target's reference point was, map frame.
    pub x: f64,
    pub y: f64,
}

/// (x, y, yaw) of a MONR track at `t` (linear between samples; yaw the shorter way round).
fn pose_at(track: &[MonrSample], t: f64) -> Option<(f64, f64, f64)> {
    if track.is_empty() || t < track[0].t_s || t > track[track.len() - 1].t_s {
        return None;
    }
    let i = track.partition_point(|m| m.t_s <= t);
    let a = &track[i.saturating_sub(1)];
    let b = track.get(i).unwrap_or(a);
    let f = if b.t_s > a.t_s {
        (t - a.t_s) / (b.t_s - a.t_s)
    } else {
        0.0
    };
    let (ya, yb) = (a.yaw_deg.to_radians(), b.yaw_deg.to_radians());
    Some((
        a.x + f * (b.x - a.x),
        a.y + f * (b.y - a.y),
        ya + f * crate::frame::wrap_pi(yb - ya),
    ))
}

fn rects(
    vut: &VutSpec,
    target: &TargetSpec,
    vt: &[MonrSample],
    tt: &[MonrSample],
    t: f64,
) -> Option<(Rect, Rect)> {
    let (vx, vy, vyaw) = pose_at(vt, t)?;
    let (tx, ty, tyaw) = pose_at(tt, t)?;
    let (l, w) = target.footprint();
    Some((
        Rect::vut(vut, vx, vy, vyaw),
        Rect {
            cx: tx,
            cy: ty,
            yaw: tyaw,
            hl: 0.5 * l,
            hw: 0.5 * w,
        },
    ))
}

/// The impact of `target` as the engine defines it for its kind of test, from MONR: a crossing
/// dummy (TTC-triggered) is hit when the VUT's front bumper reaches the dummy's path line, at
/// the dummy's place across the front (as the engine's impact check); any other target at the
/// first contact of the two footprints. `None` without an impact while both moved.
pub fn monr_impact(
    vut: &VutSpec,
    target: &TargetSpec,
    vut_track: &[MonrSample],
    target_track: &[MonrSample],
) -> Option<MonrImpact> {
    // Only while both drive: an object reports other poses before (a stock isoObject the end
    // of its TRAJ while DISARMED).
    let running = |t: &[MonrSample]| -> Vec<MonrSample> {
        t.iter()
            .filter(|m| m.state == ObjectState::Running)
            .copied()
            .collect()
    };
    let (vut_track, target_track) = (&running(vut_track)[..], &running(target_track)[..]);
    if target.activation == Activation::Ttc {
        path_line_impact(vut, vut_track, target_track)
    } else if lane_departure(vut, target) {
        lane_departure_meeting(vut, target, vut_track, target_track)
    } else {
        first_contact(vut, target, vut_track, target_track)
    }
}

/// Lateral separation under which a lane-departure test with a target ends as a collision
/// (the protocol's end of test), m.
pub const LANE_DEPARTURE_CONTACT_M: f64 = 0.3;

/// A lane-departure row with a target: the VUT drifts out of its lane towards a target driving
/// the next lane, which it meets side to side.
fn lane_departure(vut: &VutSpec, target: &TargetSpec) -> bool {
    use crate::scenario::{ImpactOn, PathSpec};
    vut.drift.is_some()
        && target.impact_on == ImpactOn::TargetSide
        && target.conflict.is_some()
        && matches!(target.path, Some(PathSpec::Points(_)))
}

/// A lane-departure row's impact (the VUT drifting into the lane of a target that drives
/// beside it, oncoming or overtaking): where along the target the VUT's front corner is when
/// the VUT reaches the station of its planned contact, the stations measured along the
/// target's lane. Where the corner first touches the target's side is set by the lateral
/// positions to the millimetre (the corner closes on the side at the drift's 0.2–0.8 m/s while
/// the target passes at up to 60 m/s: 2 mm across moves the contact by 0.04 of a car's
/// length), which no platform holds and the protocol does not judge (it measures whether an
/// impact occurred, and the target's lateral deviation within ±0.30 m); the meeting along the
/// lane is what the synchronisation sets, and is the same place on the plan. An impact when
/// the footprints touch or, at the meeting, the corner is less than
/// [`LANE_DEPARTURE_CONTACT_M`] from the target's side (the protocol's end of test); `None`
/// otherwise, or without a straight target path and a planned contact.
fn lane_departure_meeting(
    vut: &VutSpec,
    target: &TargetSpec,
    vut_track: &[MonrSample],
    target_track: &[MonrSample],
) -> Option<MonrImpact> {
    use crate::scenario::PathSpec;
    let conflict = target.conflict.as_ref()?;
    let Some(PathSpec::Points(path)) = &target.path else {
        return None;
    };
    let (p0, p1) = (path.points.first()?, path.points.last()?);
    let len = (p1.x - p0.x).hypot(p1.y - p0.y);
    if len < 1.0 {
        return None;
    }
    let (ux, uy) = ((p1.x - p0.x) / len, (p1.y - p0.y) / len);
    // Station along the target's lane, and distance across it (left positive).
    let along = |x: f64, y: f64| (x - p0.x) * ux + (y - p0.y) * uy;
    let across = |x: f64, y: f64| (y - p0.y) * ux - (x - p0.x) * uy;
    let hl = 0.5 * target.footprint().0;
    // The planned station of the VUT's corner: on the target's side at the planned location
    // (0 its front, 1 its rear), the target's centre at its conflict station.
    let meet = conflict.target_s + hl * (1.0 - 2.0 * target.overlap);
    // The VUT's front corner on the target's side (the one nearer its lane's centre line).
    let corner = |t: f64| -> Option<(f64, f64)> {
        let (x, y, yaw) = pose_at(vut_track, t)?;
        let (c, s) = (yaw.cos(), yaw.sin());
        let (fx, fy) = (
            x + vut.reference_to_front_m * c,
            y + vut.reference_to_front_m * s,
        );
        let hw = 0.5 * vut.width_m;
        let (lx, ly) = (fx - hw * s, fy + hw * c);
        let (rx, ry) = (fx + hw * s, fy - hw * c);
        Some(if across(lx, ly).abs() <= across(rx, ry).abs() {
            (lx, ly)
        } else {
            (rx, ry)
        })
    };
    let gap = |t: f64| corner(t).map(|(x, y)| along(x, y) - meet);
    let mut prev: Option<(f64, f64)> = None;
    for m in vut_track {
        let Some(g) = gap(m.t_s) else {
            prev = None;
            continue;
        };
        if let Some((t0, g0)) = prev {
            if g0 != 0.0 && g0.signum() != g.signum() {
                let (mut lo, mut hi) = (t0, m.t_s);
                for _ in 0..50 {
                    let mid = 0.5 * (lo + hi);
                    match gap(mid) {
                        Some(gm) if gm.signum() == g0.signum() && gm != 0.0 => lo = mid,
                        _ => hi = mid,
                    }
                }
                let (tx, ty, _) = pose_at(target_track, hi)?;
                let (cx, cy) = corner(hi)?;
                let apart = (across(cx, cy) - across(tx, ty)).abs() - 0.5 * target.footprint().1;
                if apart >= LANE_DEPARTURE_CONTACT_M
                    && first_contact(vut, target, vut_track, target_track).is_none()
                {
                    return None;
                }
                // The corner's place along the target, from its front (its direction of travel).
                let ahead = meet - along(tx, ty);
                return Some(MonrImpact {
                    t_s: hi,
                    location: (hl - ahead) / (2.0 * hl),
                    x: tx,
                    y: ty,
                });
            }
        }
        prev = Some((m.t_s, g));
    }
    None
}

/// A crossing dummy's impact: the first time the VUT's front bumper centre reaches the line
/// the dummy moves along (through its pose at that instant, along its heading there: a run-up
/// that bends before the crossing, or a heading that settles after the launch, does not tilt
/// the line), found by bisection between MONR samples; the location is the dummy's place
/// across the VUT's front, 0 at its right edge.
fn path_line_impact(
    vut: &VutSpec,
    vut_track: &[MonrSample],
    target_track: &[MonrSample],
) -> Option<MonrImpact> {
    let first = target_track.first()?;
    // Distance along the VUT's heading from its front bumper to the dummy's path line at `t`
    // (positive before it); `None` when it runs parallel to it or either track has no pose.
    let gap = |t: f64| -> Option<f64> {
        let (px, py, dyaw) = pose_at(target_track, t)?;
        let (dc, ds) = (dyaw.cos(), dyaw.sin());
        let (x, y, yaw) = pose_at(vut_track, t)?;
        let (uc, us) = (yaw.cos(), yaw.sin());
        let (fx, fy) = (
            x + vut.reference_to_front_m * uc,
            y + vut.reference_to_front_m * us,
        );
        let denom = uc * ds - us * dc;
        if denom.abs() < 1e-6 {
            return None;
        }
        Some(((px - fx) * ds - (py - fy) * dc) / denom)
    };
    let t_first = first.t_s;
    let mut prev: Option<(f64, f64)> = None;
    for m in vut_track.iter().filter(|m| m.t_s >= t_first) {
        let Some(g) = gap(m.t_s) else {
            prev = None;
            continue;
        };
        if let Some((t0, g0)) = prev {
            if g0 > 0.0 && g <= 0.0 {
                let (mut lo, mut hi) = (t0, m.t_s);
                for _ in 0..50 {
                    let mid = 0.5 * (lo + hi);
                    match gap(mid) {
                        Some(gm) if gm > 0.0 => lo = mid,
                        _ => hi = mid,
                    }
                }
                let (x, y, yaw) = pose_at(vut_track, hi)?;
                let (tx, ty, _) = pose_at(target_track, hi)?;
                let (c, s) = (yaw.cos(), yaw.sin());
                // Across the VUT's heading, positive to its left.
                let cross = c * (ty - y) - s * (tx - x);
                return Some(MonrImpact {
                    t_s: hi,
                    location: 0.5 + cross / vut.width_m,
                    x: tx,
                    y: ty,
                });
            }
        }
        prev = Some((m.t_s, g));
    }
    None
}

/// First contact of the VUT's and the target's footprints.
fn first_contact(
    vut: &VutSpec,
    target: &TargetSpec,
    vut_track: &[MonrSample],
    target_track: &[MonrSample],
) -> Option<MonrImpact> {
    let mut prev: Option<f64> = None;
    for m in vut_track {
        let t = m.t_s;
        let Some((a, b)) = rects(vut, target, vut_track, target_track, t) else {
            continue;
        };
        if a.overlaps(&b) {
            let (mut lo, mut hi) = (prev.unwrap_or(t), t);
            if prev.is_some() {
                for _ in 0..50 {
                    let mid = 0.5 * (lo + hi);
                    match rects(vut, target, vut_track, target_track, mid) {
                        Some((a, b)) if a.overlaps(&b) => hi = mid,
                        _ => lo = mid,
                    }
                }
            }
            let (a, b) = rects(vut, target, vut_track, target_track, hi)?;
            return Some(MonrImpact {
                t_s: hi,
                location: a.impact_location(&b, target.impact_on),
                x: b.cx,
                y: b.cy,
            });
        }
        prev = Some(t);
    }
    None
}

/// How much an object drifted off its schedule between control-centre times `from_s` and
/// `to_s`: its lag behind the plan around `to_s` less its lag around `from_s` (around its
/// first judged sample when that is later). `lags` are `(t from the object's first RUNNING
/// MONR, lag)` ([`PlannedTrack::schedule_lags`]), `t0_s` that first RUNNING MONR's
/// control-centre time. Each lag is the mean over [`LAG_WINDOW_S`] either side: an object that
/// steps through its TRAJ reports each point for a whole step, so one sample's lag is off by
/// up to a step.
///
/// [`PlannedTrack::schedule_lags`]: super::track::PlannedTrack::schedule_lags
pub fn drift_between(lags: &[(f64, f64)], t0_s: f64, from_s: f64, to_s: f64) -> Option<f64> {
    let near = |t: f64| -> Option<f64> {
        let (lo, hi) = (
            lags.partition_point(|l| l.0 < t - LAG_WINDOW_S),
            lags.partition_point(|l| l.0 <= t + LAG_WINDOW_S),
        );
        let w = lags.get(lo..hi).filter(|w| !w.is_empty())?;
        Some(w.iter().map(|l| l.1).sum::<f64>() / w.len() as f64)
    };
    let first = lags.first()?.0;
    let from = near((from_s - t0_s).max(first))?;
    Some(near(to_s - t0_s)? - from)
}

/// Half the window a lag is averaged over, s.
pub const LAG_WINDOW_S: f64 = 0.25;

/// The impact with the target's MONR track shifted by `shift_s`: by a clock offset between
/// the objects (how far the target's clock runs ahead of the VUT robot's), where the objects
/// met on one clock; by their drift apart, where they would have met on their schedules.
pub fn timing_corrected(
    vut: &VutSpec,
    target: &TargetSpec,
    vut_track: &[MonrSample],
    target_track: &[MonrSample],
    shift_s: f64,
) -> Option<MonrImpact> {
    let shifted: Vec<MonrSample> = target_track
        .iter()
        .map(|m| MonrSample {
            t_s: m.t_s - shift_s,
            ..*m
        })
        .collect();
    monr_impact(vut, target, vut_track, &shifted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(n: usize, dt: f64, f: impl Fn(f64) -> (f64, f64, f64)) -> Vec<MonrSample> {
        (0..n)
            .map(|k| {
                let t = k as f64 * dt;
                let (x, y, yaw_deg) = f(t);
                MonrSample {
                    carrier: 0,
                    t_s: t,
                    x,
                    y,
                    yaw_deg,
                    speed_mps: 0.0,
                    state: ObjectState::Running,
                }
            })
            .collect()
    }

    #[test]
    fn a_crossing_dummy_is_hit_where_the_front_reaches_its_path_line() {
        // VUT east along y = 0 at 5 m/s, front 3 m ahead of its reference point; a dummy north
        // along x = 20 at 1.5 m/s. The front reaches x = 20 at t = 3.4 s; the dummy is then at
        // y = -6 + 1.5 (3.4 - t0).
        let vut = VutSpec::new(1.8, 4.5, 3.0);
        let v = track(500, 0.01, |t| (5.0 * t, 0.0, 0.0));
        for (t0, want_y) in [(-0.6, 0.0), (-0.3, -0.45), (-0.9, 0.45)] {
            let d = track(500, 0.01, |t| (20.0, -6.0 + 1.5 * (t - t0), 90.0));
            let got = path_line_impact(&vut, &v, &d).expect("impact");
            assert!((got.t_s - 3.4).abs() < 1e-6, "{got:?}");
            assert!((got.y - want_y).abs() < 1e-6, "{got:?}");
            // 0 at the VUT's right edge (y = -0.9), 1 at its left (y = 0.9).
            assert!(
                (got.location - (0.5 + want_y / 1.8)).abs() < 1e-6,
                "{got:?}"
            );
        }
        // A dummy that crosses no line ahead of the VUT (beside it, parallel): no impact.
        let d = track(500, 0.01, |t| (20.0 + t, 5.0, 0.0));
        assert!(path_line_impact(&vut, &v, &d).is_none());
    }

    /// A lane-departure row: the VUT drifts left at 0.1 m/s into the lane of an oncoming car
    /// (20 m/s each); the impact is where along the car the VUT's front-left corner is when it
    /// reaches its planned station, whatever the lateral positions: a car 10 ms late meets the
    /// corner 0.4 m nearer its front (0.1 of its 4 m), and 5 cm more drift changes nothing.
    #[test]
    fn a_lane_departure_impact_is_the_meeting_along_the_lane() {
        use crate::scenario::path::PointsPath;
        use crate::scenario::{ConflictSpec, DriftSpec, ImpactOn, PathSpec, Point, TargetKind};
        let mut vut = VutSpec::new(1.8, 4.5, 3.0);
        vut.drift = Some(DriftSpec {
            from_s: 0.0,
            lateral_mps: 0.1,
            entry_m: None,
        });
        let mut t = TargetSpec::new(
            "gvt",
            TargetKind::Vehicle,
            Point { x: 200.0, y: 2.2 },
            270.0,
        );
        t.activation = Activation::Conflict;
        t.impact_on = ImpactOn::TargetSide;
        t.overlap = 0.5;
        t.path = Some(PathSpec::Points(PointsPath {
            points: vec![Point { x: 200.0, y: 2.2 }, Point { x: -100.0, y: 2.2 }],
        }));
        // The corner (3 m ahead of the reference) meets the car's centre 98.5 m along the car's
        // lane at 4.925 s.
        t.conflict = Some(ConflictSpec {
            vut_s: 98.5,
            target_s: 98.5,
        });
        let heading = 0.1f64.atan2(20.0).to_degrees();
        for (late, extra) in [(0.0, 0.0), (0.01, 0.0), (-0.01, 0.0), (0.0, 0.05)] {
            let v = track(1000, 0.01, |s| (20.0 * s, 0.5 + extra + 0.1 * s, heading));
            let g = track(1000, 0.01, |s| (200.0 - 20.0 * (s - late), 2.2, 180.0));
            let got = monr_impact(&vut, &t, &v, &g).expect("impact");
            let want = 0.5 - 20.0 * late / 4.0;
            assert!(
                (got.location - want).abs() < 0.003,
                "late {late}, extra {extra}: {got:?}"
            );
        }
        // Half a metre short of the target's side at the meeting, never touching: no impact.
        let v = track(1000, 0.01, |s| (20.0 * s, -0.1, 0.0));
        let g = track(1000, 0.01, |s| (200.0 - 20.0 * s, 2.2, 180.0));
        assert!(monr_impact(&vut, &t, &v, &g).is_none());
        // The same objects without a drift: the first contact of the footprints.
        vut.drift = None;
        let v = track(1000, 0.01, |s| (20.0 * s, 0.5 + 0.1 * s, heading));
        let g = track(1000, 0.01, |s| (200.0 - 20.0 * s, 2.2, 180.0));
        let contact = monr_impact(&vut, &t, &v, &g).expect("contact");
        assert!(contact.location < 0.45, "{contact:?}");
    }
}
