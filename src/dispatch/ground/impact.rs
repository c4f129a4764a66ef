//! The impact as the objects drove it: the VUT's footprint on its robot's MONR and a target's
//! on its carrier's MONR, first contact located between MONR samples by bisection on the
//! positions interpolated in the objects' own time stamps, and the location measured as the
//! engine measures it ([`Rect::impact_location`]).

use serde::Serialize;

use crate::dispatch::control_centre::MonrSample;
use crate::dispatch::iso22133::ObjectState;
use crate::scenario::engine::Rect;
use crate::scenario::{TargetSpec, VutSpec};

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

/// First contact between the VUT (`vut_track`, its robot's MONR) and `target` (its carrier's
/// MONR) while both moved, with its location; `None` without contact.
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
