//! Plans every object can drive: a turn-across car at 45 km/h "from its start" gets the run-up
//! a 3 m/s² platform needs, its launch a jerk-limited ramp within it, and still meets the VUT
//! where the scenario says; where the site's geofence cannot hold that run-up the plan is
//! refused, naming the object, its acceleration and the room it would need.

use std::sync::Arc;

use scil::capabilities::{CapabilitiesPatch, CapabilityLayer, Source};
use scil::dispatch::ground::plan::plan_objects;
use scil::dispatch::ground::{Drives, GroundOptions, ObjectSpec};
use scil::dispatch::motion_watch::Geofence;
use scil::map::Map;
use scil::run::RunSetup;
use scil::scenario::ncap2026::{Catalogue, Params};
use scil::scenario::turn::Turn;

use crate::support::shared;

fn setup(row: &str, p: Params, map: &str) -> Arc<RunSetup> {
    let m = Arc::new(Map::load(&shared(map)).expect("map loads"));
    let cat = Catalogue::bundled();
    let (r, _) = cat.find(row).expect("row");
    let sc = r.instantiate(&p, &m.road_network).expect("placed");
    Arc::new(RunSetup::try_new(sc, Some(m), Default::default()).expect("setup"))
}

fn objects(setup: &RunSetup, accel: Option<f64>) -> Vec<ObjectSpec> {
    let target = setup
        .scenario
        .targets
        .iter()
        .find(|t| t.activation != scil::scenario::Activation::Static)
        .expect("a moving target");
    vec![
        ObjectSpec {
            name: "robot".into(),
            address: "127.0.0.2".into(),
            drives: Drives::Vut,
            mobility: None,
            capabilities: Vec::new(),
        },
        ObjectSpec {
            name: "gvt".into(),
            address: "127.0.0.3".into(),
            drives: Drives::Target(target.id.clone()),
            mobility: None,
            capabilities: accel
                .map(|a| CapabilityLayer {
                    kind: None,
                    source: Source::Configured {
                        by: "the test".into(),
                    },
                    patch: CapabilitiesPatch {
                        max_accel_mps2: Some(a),
                        ..Default::default()
                    },
                })
                .into_iter()
                .collect(),
        },
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_across_target_gets_the_run_up_its_platform_drives() {
    let mut p = Params::new(20.0);
    p.turn = Some(Turn::Farside);
    p.target_speed_kmh = Some(45.0);
    let s = setup(
        "CCFtap",
        p,
        "osc-ncap/OpenDRIVE/NCAP/X-Intersection_NCAP.xodr",
    );
    let target = s
        .scenario
        .targets
        .iter()
        .find(|t| t.activation != scil::scenario::Activation::Static)
        .expect("target")
        .clone();
    // The scenario has the car at 45 km/h from its first metre.
    assert_eq!(target.accel_distance_m, 0.0, "{target:?}");
    // The engine's own plan of the unfitted scenario: where the car meets the VUT.
    let sim = scil::sim::SimOptions {
        aeb: None,
        fcw: None,
        ..Default::default()
    };
    let (plain, _) =
        scil::sim::run_sim_session(s.clone(), &sim, Default::default(), Vec::new()).await;
    let plain_loc = plain.impacts[0].location.expect("impact planned");
    for accel in [3.0, 1.5] {
        let planned = plan_objects(&s, &objects(&s, Some(accel)), &GroundOptions::default())
            .await
            .expect("planned");
        let fit = &planned.run_ups[0];
        println!("{accel} m/s²: {fit:?}");
        assert_eq!(fit.object, "gvt");
        assert_eq!(fit.scenario_accel_distance_m, 0.0);
        assert!(fit.moved_back_m > fit.accel_distance_m, "{fit:?}");
        // The car's TRAJ: from standstill, never above its platform's acceleration, at 45 km/h
        // once launched.
        let track = &planned.plans[1].track;
        assert_eq!(track.points[0].v, 0.0);
        let peak = track.points.iter().map(|q| q.a).fold(0.0, f64::max);
        // Planned at 90 % of it: the rest is the platform controller's room.
        assert!(
            peak <= 0.9 * accel + 1e-3 && peak > 0.5 * accel,
            "peak {peak}"
        );
        assert!(
            (fit.planned_accel_mps2 - 0.9 * accel).abs() < 1e-9,
            "{fit:?}"
        );
        assert!(track
            .points
            .iter()
            .any(|q| (q.v - 12.5).abs() < 0.01 && q.a.abs() < 1e-3));
        // Jerk-limited: no step in acceleration between TRAJ points (10 ms apart).
        for w in track.points.windows(2) {
            let dt = w[1].t - w[0].t;
            if dt > 1e-6 && w[0].a >= 0.0 && w[1].a >= 0.0 {
                assert!((w[1].a - w[0].a).abs() <= 4.0 * dt + 0.01, "{w:?}");
            }
        }
        // And still meets the VUT where the scenario says.
        let rehearsal = planned.rehearsal.expect("rehearsal");
        let loc = rehearsal.impacts[0].location.expect("impact");
        println!("{accel} m/s²: impact {loc:.3} (unfitted {plain_loc:.3})");
        assert!((loc - plain_loc).abs() <= 0.05, "{loc} vs {plain_loc}");
        assert!((loc - 0.5).abs() <= 0.05, "{loc}");
    }
    // Without a platform setting: the vehicle platform's default (3 m/s²).
    let planned = plan_objects(&s, &objects(&s, None), &GroundOptions::default())
        .await
        .expect("planned");
    assert_eq!(planned.run_ups[0].max_accel_mps2, 3.0);
    // A geofence that ends 5 m behind the car's scenario start cannot hold its run-up.
    let (x, y) = (target.start.x, target.start.y);
    let yaw = planned.plans[1].track.points[0].yaw;
    let (bx, by) = (x - 5.0 * yaw.cos(), y - 5.0 * yaw.sin());
    // A big square around everything, cut by the line through (bx, by) across the car's path.
    let (nx, ny) = (yaw.cos(), yaw.sin());
    let (px, py) = (-ny, nx);
    let far = 2000.0;
    let fence = Geofence {
        permitted: vec![
            [bx + px * far, by + py * far],
            [bx - px * far, by - py * far],
            [bx - px * far + nx * far, by - py * far + ny * far],
            [bx + px * far + nx * far, by + py * far + ny * far],
        ],
        forbidden: Vec::new(),
    };
    let opts = GroundOptions {
        geofence: Some(Arc::new(fence)),
        ..GroundOptions::default()
    };
    let err = match plan_objects(&s, &objects(&s, Some(3.0)), &opts).await {
        Ok(_) => panic!("a run-up outside the geofence was planned"),
        Err(e) => e,
    };
    println!("{err}");
    assert!(err.contains("object gvt"), "{err}");
    assert!(err.contains("at most 3.00 m/s²"), "{err}");
    assert!(err.contains("at 2.70 m/s²"), "{err}");
    assert!(err.contains("needs a run-up of"), "{err}");
    assert!(
        err.contains("the geofence leaves 4.9 m") || err.contains("the geofence leaves 5.0 m"),
        "{err}"
    );
}
