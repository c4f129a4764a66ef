//! The simulated dummies in the twin, and the straight-line geometry of a crossing dummy's
//! path.

use super::*;
use crate::twin::{RoadState, VehicleState};

impl Engine {
    /// Moves the simulated dummies in the twin to `now_s`.
    pub(super) fn update_dummies(&mut self, now_s: f64) {
        for t in self.tracks.iter_mut().filter(|t| !t.measured) {
            let started = t.origin().is_some();
            let tau = t.origin().map_or(0.0, |o| now_s - o);
            let (x, y, yaw) = t.pose(tau);
            // A conflict or headway target at speed from its start (no acceleration distance)
            // stands still until it is started.
            let waits =
                t.is_conflict() || t.spec.activation == crate::scenario::Activation::Headway;
            let (speed, accel) = if started || !waits {
                (t.profile.speed(tau), t.profile.accel(tau))
            } else {
                (0.0, 0.0)
            };
            let slot = *t
                .twin_slot
                .get_or_insert_with(|| self.twin.object_slot(&t.spec.id));
            self.twin.set_object_at(
                slot,
                VehicleState {
                    time_s: now_s,
                    x,
                    y,
                    yaw_rad: yaw,
                    speed_mps: speed,
                    accel_mps2: accel,
                    yaw_rate_rps: 0.0,
                    steering_wheel_deg: None,
                    road_wheel_deg: None,
                    brake_light: None,
                    wheel_speed_mps: None,
                    road: RoadState::Unknown,
                    samples: 0,
                },
            );
        }
    }
}

pub(super) fn ttc_nominal(t: &TargetSpec, width: f64) -> f64 {
    t.lateral_start_m + (t.overlap - 0.5) * width
}

/// Distance along the VUT heading from its front bumper to the dummy's path line (positive
/// before the line); `None` when the VUT runs parallel to the path.
pub(super) fn path_gap(x: f64, y: f64, yaw: f64, p: &Profile, d_front: f64) -> Option<f64> {
    path_gap_dir(x, y, yaw, p, d_front, (p.yaw.cos(), p.yaw.sin()))
}

/// [`path_gap`] with cos and sin of the path's yaw given.
pub(super) fn path_gap_dir(
    x: f64,
    y: f64,
    yaw: f64,
    p: &Profile,
    d_front: f64,
    (dc, ds): (f64, f64),
) -> Option<f64> {
    let (uc, us) = (yaw.cos(), yaw.sin());
    let fx = x + d_front * uc;
    let fy = y + d_front * us;
    let denom = uc * ds - us * dc;
    if denom.abs() < 1e-6 {
        return None;
    }
    let (ax, ay) = (p.start_x - fx, p.start_y - fy);
    Some((ax * ds - ay * dc) / denom)
}
