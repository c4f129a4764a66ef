//! The site's geofence at create: a run whose objects' motion leaves the permitted area, or
//! crosses a forbidden square on the robot's path, is refused (422) naming the object and the
//! first point outside; the same run inside a generous fence is created. Nothing connects to
//! an object here: the motion is checked from the plan, before anything moves.

use std::sync::Arc;

use reqwest::StatusCode;
use serde_json::{json, Value};

use scil::dispatch::ground::{Drives, Ground, GroundOptions, Mobility, ObjectSpec};
use scil::map::Map;
use scil::run::RunSetup;
use scil::scenario::ncap2026::{Catalogue, Params};

use crate::support::{self, http::Api};

const OP: &str = "fence-operator";

fn mobility() -> Mobility {
    Mobility {
        min_turn_radius_m: 5.5,
        may_reverse: true,
        speed_mps: 12.0,
        accel_mps2: 4.0,
    }
}

/// The pedestrian crossing at 20 km/h on the proving ground, as the run below plans it.
fn setup() -> Arc<RunSetup> {
    let map = Arc::new(Map::load(&support::shared("opendrive/proving_ground.xodr")).expect("map"));
    let mut p = Params::new(20.0);
    p.impact = Some(0.5);
    let cat = Catalogue::bundled();
    let (row, _) = cat.find("CPNCO").expect("row");
    let sc = row.instantiate(&p, &map.road_network).expect("placed");
    Arc::new(RunSetup::try_new(sc, Some(map), Default::default()).expect("setup"))
}

/// Every planned point (test runs) of the robot and of the pedestrian's carrier.
async fn planned_points(s: Arc<RunSetup>) -> (Vec<(f64, f64)>, Vec<(f64, f64)>) {
    let objects = [
        ("robot", Drives::Vut),
        ("ped", Drives::Target("dummy".into())),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (n, d))| ObjectSpec {
        name: n.into(),
        address: format!("127.0.0.1:{}", 40000 + i),
        mobility: Some(mobility()),
        drives: d,
        capabilities: Vec::new(),
    })
    .collect();
    let mut g = Ground::new(objects, GroundOptions::default()).expect("objects");
    let prepared = g.prepare(s).await.expect("planned");
    let pts = |i: usize| -> Vec<(f64, f64)> {
        prepared.plans[i]
            .track
            .points
            .iter()
            .map(|q| (q.x, q.y))
            .collect()
    };
    (pts(0), pts(1))
}

fn square(cx: f64, cy: f64, half: f64) -> Value {
    json!([
        [cx - half, cy - half],
        [cx + half, cy - half],
        [cx + half, cy + half],
        [cx - half, cy + half]
    ])
}

fn bbox(pts: &[(f64, f64)]) -> (f64, f64, f64, f64) {
    pts.iter().fold(
        (f64::MAX, f64::MAX, f64::MIN, f64::MIN),
        |(x0, y0, x1, y1), &(x, y)| (x0.min(x), y0.min(y), x1.max(x), y1.max(y)),
    )
}

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Value {
    json!([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
}

#[tokio::test]
async fn a_motion_outside_the_geofence_is_refused_at_create_naming_the_object() {
    let s = setup();
    let toml = toml::to_string(&s.scenario).expect("scenario toml");
    let (robot, ped) = planned_points(s).await;
    let dir = support::tempdir("geofence");
    let (_server, base) = support::service::spawn(&dir, OP).await;
    let c = Api::new(base, OP);
    let (st, v) = c
        .post(
            "/scenarios",
            json!({"id": "cpnco-20", "toml": toml, "map_id": "proving_ground"}),
        )
        .await;
    assert!(st.is_success(), "{st} {v}");
    let m = json!({"min_turn_radius_m": 5.5, "may_reverse": true, "speed_mps": 12.0, "accel_mps2": 4.0});
    // Nobody listens on these ports: create plans, it does not connect. Each run its own
    // objects (an object belongs to one run).
    let run = |_label: &str, n: u16| {
        let (a, b) = (40000 + 2 * n, 40001 + 2 * n);
        json!({
            "scenario_id": "cpnco-20", "map_id": "proving_ground", "start": false,
            "source": {"kind": "monr", "carrier": "robot"},
            "carriers": [
                {"name": "robot", "address": format!("127.0.0.1:{a}"), "drives": "vut", "mobility": m},
                {"name": "ped", "address": format!("127.0.0.1:{b}"), "drives": "dummy", "mobility": m}
            ]
        })
    };
    let all: Vec<(f64, f64)> = robot.iter().chain(&ped).copied().collect();
    let (x0, y0, x1, y1) = bbox(&all);
    let fence = "/maps/proving_ground/geofence";

    // A generous permitted area: created.
    let wide =
        json!({"permitted": rect(x0 - 60.0, y0 - 60.0, x1 + 60.0, y1 + 60.0), "forbidden": []});
    let (st, v) = c
        .send(reqwest::Method::PUT, fence, Some(OP), Some(wide))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let (st, v) = c.post("/runs", run("inside", 1)).await;
    assert_eq!(st, StatusCode::CREATED, "inside the fence: {v}");

    // A forbidden square on the middle of the robot's test path: refused, naming the robot.
    let (mx, my) = robot[robot.len() / 2];
    let zone = json!({"permitted": rect(x0 - 60.0, y0 - 60.0, x1 + 60.0, y1 + 60.0),
                      "forbidden": [square(mx, my, 1.0)]});
    let (st, v) = c
        .send(reqwest::Method::PUT, fence, Some(OP), Some(zone))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let (st, v) = c.post("/runs", run("zone", 2)).await;
    println!("forbidden square at ({mx:.1}, {my:.1}): {st} {v}");
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let why = v.to_string();
    assert!(
        why.contains("robot") && why.contains("forbidden zone 1"),
        "{why}"
    );

    // A permitted area that ends before the robot's run-up begins: refused, naming the robot
    // (its path is the one that leaves first) and a point outside.
    let (rx0, _, rx1, _) = bbox(&robot);
    let (px0, py0, px1, py1) = bbox(&ped);
    let cut = rx0 + (rx1 - rx0) * 0.25;
    let narrow = json!({"permitted": rect(cut, y0 - 60.0, x1 + 60.0, y1 + 60.0), "forbidden": []});
    let (st, v) = c
        .send(reqwest::Method::PUT, fence, Some(OP), Some(narrow))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let (st, v) = c.post("/runs", run("outside", 3)).await;
    println!("permitted from x = {cut:.1} (robot from {rx0:.1}; ped {px0:.1}..{px1:.1}, {py0:.1}..{py1:.1}): {st} {v}");
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let why = v.to_string();
    assert!(
        why.contains("object robot") && why.contains("leaves the permitted area"),
        "{why}"
    );

    // Without the fence the same run is created again.
    let (st, v) = c.send(reqwest::Method::DELETE, fence, Some(OP), None).await;
    assert_eq!(st, StatusCode::NO_CONTENT, "{v}");
    let (st, v) = c.post("/runs", run("no-fence", 4)).await;
    assert_eq!(st, StatusCode::CREATED, "without a fence: {v}");
}
