//! Test days through the service on stock isoObjects: a point armed, started, judged and
//! driven back, and a test series' points with `return_to_start`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use scil::scenario::ncap2026::Params;

use crate::support::{self, shared};
use crate::{demo_bin, judge_location_json, one_at_a_time, setup, stand_in_day, SERIAL};
/// A test-day point through the service: a run with the robot's MONR as its telemetry and a
/// carrier for the target, armed as one, started, its objects in `GET /runs/{id}` and its
/// results, driven back to the start, and the next run of the same scenario armed and
/// started.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_point_through_the_service_then_back_to_start_and_the_next() {
    let _alone = one_at_a_time();
    let Some(bin) = demo_bin() else { return };
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let ips = ["127.0.0.51", "127.0.0.52"];
    stand_in_day(&bin, &ips, "service", move || service_day(ips)).await;
}

/// The service with the pedestrian crossing scenario `cpnco-20` (CPNCO at 20 km/h, impact at
/// 50 %, on the proving ground) registered.
pub(crate) async fn cpnco_service(dir: &Path) -> (scil::serve::Server, support::http::Api) {
    let mut p = Params::new(20.0);
    p.impact = Some(0.5);
    let s = setup("CPNCO", p, "opendrive/proving_ground.xodr");
    let toml = toml::to_string(&s.scenario).expect("scenario toml");
    let (server, c) = ground_service(dir).await;
    let (st, v) = c
        .post(
            "/scenarios",
            serde_json::json!({"id": "cpnco-20", "toml": toml, "map_id": "proving_ground"}),
        )
        .await;
    assert!(st.is_success(), "{st} {v}");
    (server, c)
}

/// The service test's day on the objects at `ips` (the robot's and the dummy's).
async fn service_day(ips: [&'static str; 2]) {
    use reqwest::StatusCode;
    use serde_json::json;
    let dir = support::tempdir("ground");
    let (server, c) = cpnco_service(&dir).await;
    let mobility = json!({"min_turn_radius_m": 5.5, "may_reverse": true,
                          "speed_mps": 12.0, "accel_mps2": 4.0});
    let body = json!({
        "scenario_id": "cpnco-20", "map_id": "proving_ground",
        "source": {"kind": "monr", "carrier": "robot"},
        "carriers": [
            {"name": "robot", "address": ips[0], "drives": "vut", "mobility": mobility},
            {"name": "ped", "address": ips[1], "drives": "dummy", "mobility": mobility}
        ]
    });
    for round in 0..2 {
        let (st, run) = c.post("/runs", body.clone()).await;
        assert_eq!(st, StatusCode::CREATED, "{run}");
        let id = run["id"].as_str().expect("id").to_string();
        let (st, v) = c.post_empty(&format!("/runs/{id}/arm")).await;
        assert_eq!(st, StatusCode::OK, "round {round}: {v}");
        let (_, v) = c.get(&format!("/runs/{id}")).await;
        let objects = v["objects"].as_array().expect("objects").clone();
        assert_eq!(objects.len(), 2, "{v}");
        for o in &objects {
            assert_eq!(o["state"], "armed", "{o}");
            assert!(o["start"]["heading_deg"].is_number(), "{o}");
        }
        let (st, v) = c.post_empty(&format!("/runs/{id}/start")).await;
        assert_eq!(st, StatusCode::OK, "{v}");
        let run = c.wait_terminal(&id, Duration::from_secs(90)).await;
        assert_eq!(run["state"], "finished", "round {round}: {run}");
        let (_, res) = c.get(&format!("/runs/{id}/results")).await;
        let ground = &res["ground"];
        for o in ground["objects"].as_array().expect("ground objects") {
            assert!(o["monr_count"].as_u64().unwrap_or(0) > 100, "{o}");
            assert!(
                o["max_lateral_m"].as_f64().is_some_and(|d| d <= 0.05),
                "{o}"
            );
            assert!(
                o["states_seen"].as_array().is_some_and(|s| !s.is_empty()),
                "{o}"
            );
        }
        let imp = &ground["impacts"][0];
        println!("service round {round}: impact {imp}");
        assert!(imp["monr"]["location"].is_number(), "{ground}");
        judge_location_json(&format!("service round {round}"), imp);
        speeds_in_band(&format!("service round {round}"), &res);
        // The run's telemetry (the robot's MONR as the VUT, the dummy's MONR) as stored.
        let store = &server.state.store;
        support::archive::wait_compacted(store, &id).await;
        let samples = store.telemetry_count(&id).await.expect("count");
        let bytes = support::archive::sqlite_bytes(store, std::slice::from_ref(&id), &dir).await;
        let per = bytes as f64 / samples.max(1) as f64;
        println!("service round {round}: {samples} samples take {bytes} bytes on disk: {per:.2} bytes a sample");
        assert!(per <= 20.0, "{per:.2} bytes a sample");
        if round == 1 {
            break; // the next run armed, started and finished
        }
        // Back to the start; the next run needs it.
        let (st, v) = c.post_empty(&format!("/runs/{id}/return")).await;
        assert_eq!(st, StatusCode::ACCEPTED, "{v}");
        let t0 = std::time::Instant::now();
        loop {
            let (_, v) = c.get(&format!("/runs/{id}")).await;
            let objs = v["objects"].as_array().cloned().unwrap_or_default();
            if objs
                .iter()
                .all(|o| o["at_start"] == true && o["state"] != "returning")
            {
                break;
            }
            assert!(t0.elapsed() < Duration::from_secs(90), "not back: {v}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// The service as `support::service::spawn` starts it, with the `[ground]` limits of a shared
/// machine (see `options`), and an operator's client.
pub(crate) async fn ground_service(dir: &Path) -> (scil::serve::Server, support::http::Api) {
    let mut config = scil::serve::Config {
        bind: "127.0.0.1:0".into(),
        database_url: format!("sqlite://{}?mode=rwc", dir.join("scil.db").display()),
        storage_dir: dir.join("storage"),
        data_dir: Some(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data"))),
        ground: scil::serve::config::GroundConfig {
            monr_miss_limit: 50,
            heab_rate_hz: 10,
            telemetry_stale_s: 1.0,
            max_monr_loss: 0.75,
            ..Default::default()
        },
        ..scil::serve::Config::default()
    };
    config.auth.operator_tokens = vec!["op".into()];
    let server = scil::serve::spawn(config).await.expect("server starts");
    let base = format!("http://{}/api/v1", server.addr);
    (server, support::http::Api::new(base, "op"))
}

/// A test day through the service from Euro NCAP's rating-tool workbook: a turn-across point
/// (the VUT's robot turns, its telemetry from its MONR; the target's carrier is synchronised)
/// is created for the operator, armed as one, started, hits at the planned location and drives
/// back to its start by itself (`return_to_start`); then the next point of the row: its objects
/// drive to its start, it is armed and started.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_series_point_with_a_turning_vut_then_back_to_start_and_the_next_point() {
    let _alone = one_at_a_time();
    let Some(bin) = demo_bin() else { return };
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let ips = ["127.0.0.61", "127.0.0.62"];
    stand_in_day(&bin, &ips, "series", move || series_day(ips)).await;
}

/// The series test's day on the objects at `ips` (the robot's and the target's).
async fn series_day(ips: [&'static str; 2]) {
    use reqwest::StatusCode;
    use serde_json::json;
    let dir = support::tempdir("ground-series");
    let (_server, c) = ground_service(&dir).await;
    let (sid, points) = series_points(&c).await;
    let mobility = json!({"min_turn_radius_m": 5.5, "may_reverse": true,
                          "speed_mps": 12.0, "accel_mps2": 4.0});
    for p in &points[..2] {
        let idx = p["point"].as_i64().expect("point");
        let label = format!("point {idx} ({} row {})", p["sheet"], p["row"]);
        // What the point's objects drive, as the series lists it: the VUT and one moving target.
        let actors = p["actors"].as_array().expect("actors");
        assert_eq!(actors.len(), 2, "{label}: {p}");
        assert_eq!(actors[0]["drives"], "vut", "{label}: {p}");
        let moving = [actors[1]["drives"].as_str().expect("target id")];
        assert_eq!(actors[1]["kind"], "pedestrian", "{label}: {p}");
        let body = json!({
            "source": {"kind": "monr", "carrier": "robot"},
            "carriers": [
                {"name": "robot", "address": ips[0], "drives": "vut", "mobility": mobility},
                {"name": "target", "address": ips[1], "drives": moving[0], "mobility": mobility}
            ],
            "return_to_start": true,
            "start": false
        });
        let (st, v) = c
            .post(&format!("/series/{sid}/points/{idx}/run"), body)
            .await;
        assert_eq!(st, StatusCode::CREATED, "{label}: {v}");
        let id = v["run"]["id"].as_str().expect("run id").to_string();
        assert_eq!(v["run"]["state"], "created", "{label}: {v}");
        // The objects drive to this point's start when they stand elsewhere (not on the first
        // point: no position is known yet), then the operator arms.
        println!("{label}: objects {}", v["objects"]);
        if v["objects"]["state"] == "returning" {
            wait_at_start(&c, &id, &label).await;
        }
        let (st, v) = c.post_empty(&format!("/runs/{id}/arm")).await;
        assert_eq!(st, StatusCode::OK, "{label}: {v}");
        // Armed as one, for the operator to start.
        let (_, run) = c.get(&format!("/runs/{id}")).await;
        assert_eq!(run["state"], "armed", "{label}: {run}");
        let objects = run["objects"].as_array().expect("objects");
        assert_eq!(objects.len(), 2, "{label}: {run}");
        assert!(
            objects.iter().all(|o| o["state"] == "armed"),
            "{label}: {run}"
        );
        let (st, v) = c.post_empty(&format!("/runs/{id}/start")).await;
        assert_eq!(st, StatusCode::OK, "{label}: {v}");
        let run = c.wait_terminal(&id, Duration::from_secs(120)).await;
        assert_eq!(run["state"], "finished", "{label}: {run}");
        let (_, res) = c.get(&format!("/runs/{id}/results")).await;
        let ground = &res["ground"];
        for o in ground["objects"].as_array().expect("ground objects") {
            println!(
                "{label}: {} ({}) MONR {}, max lateral {} m, schedule lag max {} s",
                o["name"],
                o["drives"],
                o["monr_count"],
                o["max_lateral_m"],
                o["max_schedule_lag_s"]
            );
            assert!(o["monr_count"].as_u64().unwrap_or(0) > 100, "{label}: {o}");
            assert!(
                o["max_lateral_m"].as_f64().is_some_and(|d| d <= 0.05),
                "{label}: {o}"
            );
        }
        let imp = &ground["impacts"][0];
        println!("{label}: impact {imp}");
        judge_location_json(&label, imp);
        println!("{label}: validity {}", res["validity"]);
        // T0 is T_steer − 1 s, where the curve begins: the robot's run-up starts before it, so
        // the window opens on the robot at its speed and the point is judged.
        assert_eq!(res["validity"]["t0_rule"], "steer", "{label}: {res}");
        speeds_in_band(&label, &res);
        // Back to the start by itself (`return_to_start`).
        wait_at_start(&c, &id, &label).await;
    }
}

/// Waits until every object of run `id` stands at its start (90 s at most).
pub(crate) async fn wait_at_start(c: &support::http::Api, id: &str, label: &str) {
    let t0 = std::time::Instant::now();
    loop {
        let (_, v) = c.get(&format!("/runs/{id}")).await;
        let objs = v["objects"].as_array().cloned().unwrap_or_default();
        if !objs.is_empty()
            && objs
                .iter()
                .all(|o| o["at_start"] == true && o["state"] != "returning")
        {
            println!(
                "{label}: at the start after {:.1} s",
                t0.elapsed().as_secs_f64()
            );
            return;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(90),
            "{label}: not at the start: {v}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The X-intersection map and Euro NCAP's rating-tool workbook registered as a test series;
/// its id and the pedestrian turn-across points (VUT and one moving target) at the lowest VUT
/// speeds first.
pub(crate) async fn series_points(c: &support::http::Api) -> (String, Vec<serde_json::Value>) {
    use reqwest::StatusCode;
    use serde_json::Value;
    let form = reqwest::multipart::Form::new()
        .text("id", "x_intersection")
        .part(
            "file",
            reqwest::multipart::Part::bytes(
                std::fs::read(shared("osc-ncap/OpenDRIVE/NCAP/X-Intersection_NCAP.xodr"))
                    .expect("junction map"),
            )
            .file_name("junction.xodr"),
        );
    let r = c
        .http
        .post(c.url("/maps"))
        .bearer_auth(&c.token)
        .multipart(form)
        .send()
        .await
        .expect("upload map");
    assert_eq!(r.status(), StatusCode::CREATED);
    let wb = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/paths/ca_preprocessed_template.xlsx"
    ));
    let form = reqwest::multipart::Form::new()
        .text("junction_map", "x_intersection")
        .part(
            "file",
            reqwest::multipart::Part::bytes(std::fs::read(&wb).expect("workbook"))
                .file_name("ca_preprocessed_template.xlsx"),
        );
    let r = c
        .http
        .post(c.url("/series"))
        .bearer_auth(&c.token)
        .multipart(form)
        .send()
        .await
        .expect("upload workbook");
    assert_eq!(r.status(), StatusCode::CREATED);
    let series: Value = r.json().await.expect("series");
    let sid = series["id"].as_str().expect("series id").to_string();
    // The pedestrian turn-across row at its lowest VUT speeds: two points of one row.
    let mut points: Vec<Value> = series["points"]
        .as_array()
        .expect("points")
        .iter()
        .filter(|p| {
            p["runnable"] == true
                && p["junction"] == true
                && p["baseline_expected"].is_null()
                && p["catalogue_row"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("CPTA"))
        })
        .cloned()
        .collect();
    points.sort_by(|a, b| {
        let v = |p: &Value| p["params"]["vut_speed_kmh"].as_f64().unwrap_or(f64::MAX);
        v(a).total_cmp(&v(b))
    });
    assert!(points.len() >= 2, "turn-across points: {}", points.len());
    (sid, points)
}

/// The run's Euro NCAP validity on stock objects: valid, the VUT robot's speed 0.2–0.8 km/h
/// above nominal (its TRAJ runs in the middle of the protocol's 0/+1 km/h band) and the
/// target's within 0.5 km/h of its nominal speed.
pub(crate) fn speeds_in_band(label: &str, res: &serde_json::Value) {
    let v = &res["validity"];
    let checks = v["checks"].as_array().cloned().unwrap_or_default();
    let worst = |ch: &str| {
        checks
            .iter()
            .find(|c| c["channel"] == ch)
            .and_then(|c| c["worst"].as_f64())
    };
    let (vut, target) = (worst("vut_speed"), worst("target_speed"));
    println!(
        "{label}: valid {}, VUT speed {:+.3} km/h from nominal (the value nearest the band's edge), target {:+.3} km/h",
        v["valid"],
        vut.unwrap_or(f64::NAN),
        target.unwrap_or(f64::NAN)
    );
    assert_eq!(v["valid"], true, "{label}: {v}");
    let vut = vut.unwrap_or_else(|| panic!("{label}: no VUT speed check: {v}"));
    assert!(
        (0.2..=0.8).contains(&vut),
        "{label}: VUT speed {vut:+.3} km/h"
    );
    if let Some(t) = target {
        assert!(t.abs() <= 0.5, "{label}: target speed {t:+.3} km/h");
    }
}
