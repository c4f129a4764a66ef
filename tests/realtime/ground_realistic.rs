//! Objects with a real platform's dynamics (`scil carrier-sim --realistic`: dead time,
//! acceleration limits, a position controller, lateral wander, RTK error, MONR latency) over
//! real ISO 22133 links: a characterisation run recovers a simulator's known dead time and
//! acceleration, and the drive back to the start arrives from far off and turned away.

use std::sync::Arc;

use scil::capabilities::ObjectKind;
use scil::dispatch::carrier_sim::{self, SimConfig, SimHandle};
use scil::dispatch::control_centre::GeoOrigin;
use scil::dispatch::ground::characterise::Request;
use scil::dispatch::ground::{
    back_to_start, characterise_drive, Drives, Ground, GroundOptions, ObjectSpec, Pose,
};
use scil::dispatch::object::ObjectConfig;
use scil::dispatch::object_dynamics::Dynamics;
use scil::dispatch::profile::DummyProfile;
use scil::map::Map;
use scil::run::RunSetup;
use scil::scenario::ncap2026::{Catalogue, Params};
use scil::scenario::profile::Profile;

use crate::support;

/// One test at a time: they drive objects in real time.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn sim(dynamics: Dynamics, id: u32) -> (SimHandle, String) {
    sim_at(dynamics, id, Pose::new(0.0, 0.0, 0.0)).await
}

/// A simulated object standing at `at` (where it reports itself before any TRAJ).
async fn sim_at(dynamics: Dynamics, id: u32, at: Pose) -> (SimHandle, String) {
    let profile = DummyProfile::new(Profile::new(at.x, at.y, at.yaw, 1.0, 1.0));
    let s = carrier_sim::spawn(SimConfig {
        tcp_port: 0,
        udp_port: 0,
        object: ObjectConfig {
            id,
            dynamics,
            profile,
            ..Default::default()
        },
        ..Default::default()
    })
    .await
    .expect("sim binds");
    let addr = format!("127.0.0.1:{}:{}", s.tcp_addr.port(), s.udp_addr.port());
    (s, addr)
}

#[tokio::test]
async fn a_characterisation_recovers_a_known_dead_time_and_acceleration() {
    let _one = SERIAL.lock().await;
    let known = Dynamics {
        dead_time_s: 0.2,
        max_accel_mps2: 2.0,
        max_decel_mps2: 5.0,
        seed: 11,
        ..Dynamics::realistic(ObjectKind::VehiclePlatform)
    };
    let (s, addr) = sim(known, 21).await;
    let req = Request::for_kind(ObjectKind::VehiclePlatform);
    let opts = GroundOptions::default();
    let plan = characterise_drive::plan(
        "lprv-c",
        ObjectKind::VehiclePlatform,
        &req,
        Pose::new(0.0, 0.0, 0.0),
        opts.traj_dt_s,
    );
    let c = characterise_drive::characterise(plan, &addr, &req, GeoOrigin::default(), &opts)
        .await
        .expect("characterised");
    let m = &c.measured;
    eprintln!(
        "characterisation of a carrier-sim with dead time 200 ms, 2.0 m/s², 5.0 m/s², MONR 20–40 ms late: {m:?}"
    );
    assert!(
        (m.dead_time_s - 0.2).abs() <= 0.02,
        "dead time {:.0} ms",
        m.dead_time_s * 1000.0
    );
    assert!(
        (m.accel_mps2 - 2.0).abs() <= 0.2,
        "acceleration {}",
        m.accel_mps2
    );
    assert!(
        (m.decel_mps2 - 5.0).abs() <= 0.5,
        "deceleration {}",
        m.decel_mps2
    );
    let lat = m.monr_latency_s.expect("latency measured");
    assert!((0.015..0.06).contains(&lat), "MONR latency {lat}");
    assert!(m.lateral_error_m < 0.15, "{}", m.lateral_error_m);
    s.shutdown().await;
}

/// The pedestrian crossing at 20 km/h on the proving ground.
fn setup() -> Arc<RunSetup> {
    let map = Arc::new(Map::load(&support::shared("opendrive/proving_ground.xodr")).expect("map"));
    let mut p = Params::new(20.0);
    p.impact = Some(0.5);
    let cat = Catalogue::bundled();
    let (row, _) = cat.find("CPNCO").expect("row");
    let sc = row.instantiate(&p, &map.road_network).expect("placed");
    Arc::new(RunSetup::try_new(sc, Some(map), Default::default()).expect("setup"))
}

#[tokio::test]
async fn the_drive_back_arrives_from_far_off_and_turned_away_on_realistic_platforms() {
    let _one = SERIAL.lock().await;
    let spec = |name: &str, address: String, drives: Drives| ObjectSpec {
        name: name.into(),
        address,
        drives,
        mobility: None,
        capabilities: Vec::new(),
    };
    let vut = || Drives::Vut;
    let dummy = || Drives::Target("dummy".into());
    // Where each object starts its test (planning connects to nothing).
    let mut plan_only = Ground::new(
        vec![
            spec("robot-r", "127.0.0.1:1".into(), vut()),
            spec("ped-r", "127.0.0.1:3".into(), dummy()),
        ],
        GroundOptions::default(),
    )
    .expect("objects");
    let starts: Vec<Pose> = plan_only
        .prepare(setup())
        .await
        .expect("planned")
        .plans
        .iter()
        .map(|p| p.track.start())
        .collect();
    // The robot 72 m from its start, turned 90° away from it; the pedestrian's platform 15 m
    // off, facing the other way. Each stands there (its simulator reports it there, and
    // joins a TRAJ that starts elsewhere only as it drives).
    let away = |s: Pose, d: f64, turn: f64| {
        let dir = s.yaw + turn;
        Pose::new(s.x + d * dir.cos(), s.y + d * dir.sin(), dir)
    };
    let robot_at = away(starts[0], 72.0, std::f64::consts::FRAC_PI_2);
    let ped_at = away(starts[1], 15.0, std::f64::consts::PI);
    let (robot, robot_addr) = sim_at(
        Dynamics {
            seed: 3,
            ..Dynamics::realistic(ObjectKind::VutRobot)
        },
        31,
        robot_at,
    )
    .await;
    let (ped, ped_addr) = sim_at(
        Dynamics {
            seed: 4,
            ..Dynamics::realistic(ObjectKind::PedestrianPlatform)
        },
        32,
        ped_at,
    )
    .await;
    let mut g = Ground::new(
        vec![
            spec("robot-r", robot_addr, vut()),
            spec("ped-r", ped_addr, dummy()),
        ],
        GroundOptions::default(),
    )
    .expect("objects");
    let prepared = g.prepare(setup()).await.expect("planned");
    g.set_known("robot-r", Some(robot_at), None);
    g.set_known("ped-r", Some(ped_at), None);
    let motion = g.arm_return(&prepared).await.expect("armed");
    let r = back_to_start::drive_back_to_start(&mut g, &prepared, motion, back_to_start::PASSES)
        .await
        .expect("drove back");
    eprintln!("back to the start in {} pass(es)", r.passes);
    for o in &r.objects {
        eprintln!(
            "drive back of {}: {:.1} s planned, ended {:.3} m and {:.2}° from its start",
            o.name,
            o.traj_duration_s,
            o.end_distance_m.unwrap_or(f64::NAN),
            o.end_heading_deg.unwrap_or(f64::NAN)
        );
        let (d, h) = (
            o.end_distance_m.expect("end"),
            o.end_heading_deg.expect("end"),
        );
        assert!(
            d <= 0.5 && h <= 5.0,
            "{} ends {d:.2} m, {h:.1}° off",
            o.name
        );
    }
    assert!(r.at_start, "{:?}", r.aborted);
    robot.shutdown().await;
    ped.shutdown().await;
}

/// Through the service: `POST /objects/{name}/characterise` drives a carrier-sim and keeps
/// what it measured as the object's capabilities, which a restarted service still knows (the
/// audit trail holds them).
#[tokio::test]
async fn the_service_characterises_an_object_and_keeps_its_measured_capabilities() {
    use crate::support::http::Api;
    use serde_json::json;
    let _one = SERIAL.lock().await;
    let (s, addr) = sim(
        Dynamics {
            dead_time_s: 0.25,
            max_accel_mps2: 1.5,
            seed: 5,
            ..Dynamics::realistic(ObjectKind::VutRobot)
        },
        41,
    )
    .await;
    let dir = support::tempdir("characterise");
    let (server, base) = support::service::spawn(&dir, "char-op").await;
    let c = Api::new(base, "char-op");
    // A bad request is refused before anything moves.
    let (st, v) = c
        .post(
            "/objects/robot-c/characterise",
            json!({"address": addr, "speed_kmh": 500}),
        )
        .await;
    assert_eq!(st.as_u16(), 422, "{v}");
    let (st, v) = c
        .post(
            "/objects/robot-c/characterise",
            json!({"address": addr, "kind": "vut_robot", "from": {"x": 0.0, "y": 0.0, "heading_deg": 90.0}}),
        )
        .await;
    assert!(st.is_success(), "{st} {v}");
    eprintln!(
        "characterised through the service: {}",
        v["characterisation"]["measured"]
    );
    let dead = v["characterisation"]["measured"]["dead_time_s"]
        .as_f64()
        .expect("dead time");
    assert!((dead - 0.25).abs() <= 0.02, "{v}");
    assert_eq!(
        v["capabilities"]["sources"]["dead_time_s"]["from"], "measured",
        "{v}"
    );
    server.task.abort();
    // A new process on the same database knows the measurement.
    let (_server, base) = support::service::spawn(&dir, "char-op").await;
    let c = Api::new(base, "char-op");
    let (st, v) = c.get("/objects/robot-c/capabilities").await;
    assert!(st.is_success(), "{st} {v}");
    let m = v["as"]["vut_robot"]["dead_time_s"]
        .as_f64()
        .expect("dead time");
    assert!((m - dead).abs() < 1e-9, "{v}");
    assert_eq!(
        v["as"]["vut_robot"]["sources"]["max_accel_mps2"]["from"], "measured",
        "{v}"
    );
    s.shutdown().await;
}
