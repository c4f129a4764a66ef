//! A conflict target synchronised to a VUT that drives beside its planned path: the VUT keeps
//! 6 cm left of its path across the straight crossing (CCCscp, 50 km/h both), and the target,
//! retimed at every sample, meets it at the planned impact location on the VUT as it drives
//! (a 6 cm offset is 0.032 of a 1.855 m wide VUT when ignored).

use scil_core::sample::Sample;
use scil_core::scenario::engine::{Engine, EngineConfig, Event, Output};
use scil_core::scenario::ncap2026::{Catalogue, Params};
use scil_core::scenario::Scenario;
use scil_core::twin::Twin;

fn cccscp() -> Scenario {
    let map = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/osc-ncap/OpenDRIVE/NCAP/X-Intersection_NCAP.xodr"
    );
    let od = opendrive::OpenDrive::from_path(std::path::Path::new(map)).expect("map parses");
    let cat = Catalogue::bundled();
    let (row, _) = cat.find("CCCscp").expect("row");
    let mut p = Params::new(50.0);
    p.target_speed_kmh = Some(50.0);
    p.impact = Some(0.5);
    row.instantiate(&p, &od).expect("placed")
}

/// The impact location with the VUT `left_m` to the left of its path all along, at its
/// speed, sampled at 100 Hz; synchronisation on.
fn location_with_offset(sc: &Scenario, left_m: f64) -> f64 {
    let line = sc.vut.driven_path().expect("the VUT's path");
    let ahead = sc.vut.control_ahead_m();
    let v = sc.vut.speed_kmh.expect("speed") / 3.6;
    let cfg = EngineConfig {
        sync: true,
        ..EngineConfig::default()
    };
    let mut e = Engine::new(sc, cfg, Twin::new(None));
    e.arm(0.0);
    let mut location = None;
    for k in 0..3000 {
        let t = k as f64 * 0.01;
        let s = (v * t).min(line.length());
        let (px, py, h) = line.pose(s);
        // The control point on the offset line; the reference point behind it.
        let (cx, cy) = (px - left_m * h.sin(), py + left_m * h.cos());
        let sample = Sample {
            time_s: t,
            vehicle: "vut".into(),
            x: cx - ahead * h.cos(),
            y: cy - ahead * h.sin(),
            yaw_rad: h,
            speed_mps: v,
            steering_wheel_deg: None,
            road_wheel_deg: None,
            brake_light: None,
            accel_mps2: None,
            yaw_rate_rps: None,
            wheel_speed_mps: None,
            fcw: None,
        };
        while let Some(due) = e.poll_timeout() {
            if due > t {
                break;
            }
            e.handle_timeout(due);
        }
        e.handle_sample(&sample);
        while let Some(o) = e.poll_output() {
            if let Output::Event(Event::Impact(i)) = o {
                location = location.or(i.location);
            }
        }
        if location.is_some() {
            break;
        }
    }
    location.expect("an impact")
}

#[test]
fn a_conflict_target_meets_a_vut_beside_its_path_where_planned_on_the_vut() {
    let sc = cccscp();
    let on_path = location_with_offset(&sc, 0.0);
    let left = location_with_offset(&sc, 0.06);
    let right = location_with_offset(&sc, -0.06);
    println!(
        "impact location: on its path {on_path:.4}, 6 cm left {left:.4}, 6 cm right {right:.4}"
    );
    for l in [on_path, left, right] {
        assert!((l - 0.5).abs() < 0.01, "impact at {l}, planned 0.5");
    }
}
