//! Time-to-collision per Toth & Szalay, *Machines* 2023, 11, 1028 (CPNA method).
//!
//! * Dummy side: TTC_dummy = t_acc + (E − s_acc + (overlap − 0.5)·w) / v_target with
//!   t_acc = 2·s_acc / v_target (constant acceleration from rest over s_acc).
//! * VUT side: TTC = d_long / v_VUT with d_long = sqrt(d² − E²) − d_front, d the distance from the
//!   VUT reference point to the dummy start point.

use super::{TargetSpec, VutSpec};

/// Target speed in m/s.
pub fn target_speed_mps(t: &TargetSpec) -> f64 {
    t.speed_kmh / 3.6
}

/// The dummy's time from start to the impact point: the trigger threshold.
pub fn ttc_dummy(t: &TargetSpec, vut: &VutSpec) -> f64 {
    if let Some(ttc) = t.ttc_s {
        return ttc;
    }
    let v = target_speed_mps(t);
    2.0 * t.accel_distance_m / v + (nominal_travel_m(t, vut) - t.accel_distance_m) / v
}

/// Nominal dummy travel from start to the impact point: E + (overlap − 0.5)·w; for a target
/// started by a conflict rule, its travel to the conflict point along its path.
pub fn nominal_travel_m(t: &TargetSpec, vut: &VutSpec) -> f64 {
    if let Some(c) = &t.conflict {
        return c.target_s;
    }
    t.lateral_start_m + (t.overlap - 0.5) * vut.width_m
}

/// d_long for a VUT reference point at (x, y) heading `yaw_rad`; `None` once the dummy start point
/// is no longer ahead of the reference point (nothing left to trigger on).
pub fn d_long(x: f64, y: f64, yaw_rad: f64, t: &TargetSpec, vut: &VutSpec) -> Option<f64> {
    let dx = t.start.x - x;
    let dy = t.start.y - y;
    let ahead = dx * yaw_rad.cos() + dy * yaw_rad.sin();
    if ahead <= 0.0 {
        return None;
    }
    let d2 = dx * dx + dy * dy;
    let e2 = t.lateral_start_m * t.lateral_start_m;
    Some((d2 - e2).max(0.0).sqrt() - vut.reference_to_front_m)
}

/// VUT TTC; `None` when standing still or past the target.
pub fn vut_ttc(
    x: f64,
    y: f64,
    yaw_rad: f64,
    speed_mps: f64,
    t: &TargetSpec,
    vut: &VutSpec,
) -> Option<f64> {
    if speed_mps <= 0.05 {
        return None;
    }
    d_long(x, y, yaw_rad, t, vut).map(|d| d / speed_mps)
}

#[cfg(test)]
mod tests {
    use super::super::{Point, TargetKind};
    use super::*;

    pub fn cpna75() -> (TargetSpec, VutSpec) {
        (
            TargetSpec {
                id: "dummy".into(),
                kind: TargetKind::Pedestrian,
                carrier: None,
                start: Point { x: 200.0, y: -5.75 },
                heading_deg: 0.0,
                lateral_start_m: 4.0,
                accel_distance_m: 1.0,
                speed_kmh: 5.0,
                overlap: 0.75,
                ttc_s: None,
                carrier_mode: None,
                activation: Default::default(),
                brake: None,
                headway: None,
                length_m: None,
                path: None,
                conflict: None,
                width_m: None,
                impact_on: Default::default(),
            },
            VutSpec::new(1.855, 4.6, 2.3),
        )
    }

    #[test]
    fn paper_numbers() {
        let (t, v) = cpna75();
        assert!((nominal_travel_m(&t, &v) - 4.46375).abs() < 1e-12);
        // 3.93390 s; the paper prints 3.9312 because it rounded 3.46375 m to 3.46 m.
        assert!(
            (ttc_dummy(&t, &v) - 3.933_9).abs() < 5e-6,
            "{}",
            ttc_dummy(&t, &v)
        );
        // VUT on the lane centre 30 m before the dummy's x: d_long = 30 − 2.3.
        let d = d_long(170.0, -1.75, 0.0, &t, &v).unwrap();
        assert!((d - 27.7).abs() < 1e-9);
        assert!(d_long(201.0, -1.75, 0.0, &t, &v).is_none());
        assert!(vut_ttc(170.0, -1.75, 0.0, 0.0, &t, &v).is_none());
    }
}
