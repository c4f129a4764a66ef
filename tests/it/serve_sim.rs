//! The simulated VUT as a service run source (`{"kind":"sim_vut", …}`) and live parameters
//! (`PATCH /runs/{id}/parameters`), over real HTTP on an ephemeral port (SQLite).

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{json, Value};

use scil::serve;

const OP: &str = "test-operator-token";

use crate::support;
use support::http::Api;

async fn start_server() -> (serve::Server, Api) {
    let (server, base) = support::service::spawn(&support::tempdir("serve-sim"), OP).await;
    (server, Api::new(base, OP))
}

fn sim_source(aeb: bool) -> Value {
    let mut s = json!({"kind": "sim_vut", "vut_speed_kmh": 40});
    if aeb {
        s["aeb"] = json!({"ttc_s": 1.2, "decel_mps2": 8, "delay_ms": 150});
    }
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sim_vut_run_with_aeb_stops_short() {
    let (_server, c) = start_server().await;
    let t0 = Instant::now();
    let (s, run) = c
        .post("/runs", json!({"scenario_id": "cpna75_30kmh", "source": sim_source(true), "speed": "max", "start": true}))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    assert_eq!(run["source"]["kind"], "sim_vut", "{run}");
    let id = run["id"].as_str().expect("id").to_string();
    let done = c.wait_terminal(&id, Duration::from_secs(60)).await;
    assert_eq!(done["state"], "finished", "{done}");
    let (s, r) = c.get(&format!("/runs/{id}/results")).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    println!(
        "sim_vut at max: {} samples, {:?}",
        r["samples"],
        t0.elapsed()
    );
    let tr = &r["triggers"][0];
    let (ttc, thr) = (
        tr["ttc_s"].as_f64().expect("ttc"),
        tr["threshold_s"].as_f64().expect("thr"),
    );
    assert!((ttc - thr).abs() < 0.01, "fired on time: {tr}");
    let imp = &r["impacts"][0];
    assert!(imp["time_s"].is_null(), "no impact: {imp}");
    let short = imp["stopped_short_m"].as_f64().expect("stopped short");
    println!("stopped {short:.3} m short");
    assert!(short > 0.5 && short < 15.0, "{short}");
    assert!(r.get("parameter_changes").is_none(), "no changes: {r}");

    // Same triggers and impacts as `scil sim` (the CLI's run_sim).
    let setup = std::sync::Arc::new(
        scil::run::RunSetup::load(
            std::path::Path::new(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/data/scenarios/cpna75_30kmh.toml"
            )),
            Some(std::path::Path::new(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/data/opendrive/proving_ground.xodr"
            ))),
            scil::scenario::engine::EngineConfig::default(),
        )
        .expect("setup"),
    );
    let opts: scil::sim::SimOptions = serde_json::from_value(json!({"vut_speed_kmh": 40,
        "aeb": {"ttc_s": 1.2, "decel_mps2": 8, "delay_ms": 150}}))
    .expect("opts");
    let cli = tokio::task::spawn_blocking(move || scil::sim::run_sim(setup, &opts))
        .await
        .expect("run_sim");
    let cli = serde_json::to_value(&cli).expect("json");
    assert_eq!(r["triggers"], cli["triggers"]);
    assert_eq!(r["impacts"], cli["impacts"]);
    assert_eq!(r["samples"], cli["samples"]);

    // Telemetry of the simulated VUT is stored like any run's.
    let (s, tel) = c.get(&format!("/runs/{id}/telemetry?limit=5")).await;
    assert_eq!(s, StatusCode::OK);
    assert!(!tel.as_array().expect("rows").is_empty(), "{tel}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn patch_during_a_paced_run_shifts_the_trigger() {
    let (_server, c) = start_server().await;
    let (s, run) = c
        .post("/runs", json!({"scenario_id": "cpna75_30kmh", "source": sim_source(true), "speed": 1, "start": true}))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    let id = run["id"].as_str().expect("id").to_string();
    let path = format!("/runs/{id}/parameters");
    tokio::time::sleep(Duration::from_millis(300)).await;

    // Errors first: no token, wrong token, unknown name, bad value — nothing changes.
    let (s, _) = c
        .send(
            reqwest::Method::PATCH,
            &path,
            None,
            Some(json!({"ttc_offset_s": 1.0})),
        )
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let (s, e) = c
        .patch(&path, json!({"ttc_offset_s": 1.0, "bogus": 1}))
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    assert!(e.to_string().contains("bogus"), "{e}");
    let (s, e) = c.patch(&path, json!({"noise.pos": -1})).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    assert!(e.to_string().contains("noise.pos"), "{e}");
    let (s, e) = c.patch(&path, json!({"ttc_offset_s": "soon"})).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    assert!(e.to_string().contains("ttc_offset_s"), "{e}");
    let (s, e) = c.patch(&path, json!({"ttc_offset_s": 99})).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{e}");

    // Fire 1 s earlier (in TTC) than the scenario says.
    let (s, v) = c.patch(&path, json!({"ttc_offset_s": 1.0})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["parameters"]["ttc_offset_s"], 1.0, "{v}");
    let (s, v) = c.get(&path).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["changes"].as_array().map(Vec::len), Some(1), "{v}");

    // After the trigger (≈ 3.9 s into the run at real time): position noise on the telemetry.
    tokio::time::sleep(Duration::from_millis(4700)).await;
    let (s, v) = c.patch(&path, json!({"noise.pos": 0.1})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["parameters"]["noise"]["pos"], 0.1, "{v}");

    let done = c.wait_terminal(&id, Duration::from_secs(60)).await;
    assert_eq!(done["state"], "finished", "{done}");
    let (s, r) = c.get(&format!("/runs/{id}/results")).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let tr = &r["triggers"][0];
    let (ttc, thr) = (
        tr["ttc_s"].as_f64().expect("ttc"),
        tr["threshold_s"].as_f64().expect("thr"),
    );
    println!("trigger at TTC {ttc:.3} s, threshold {thr:.3} s");
    // The scenario's threshold is 3.9339 s (tests/sim_vut.rs); the offset moves it by 1 s and
    // the dummy is started at the moved threshold.
    assert!(
        (thr - (3.9339 + 1.0)).abs() < 1e-3,
        "shifted by the offset: {tr}"
    );
    assert!(
        (ttc - thr).abs() < 0.01,
        "fired at the shifted threshold: {tr}"
    );
    let ch = r["parameter_changes"]
        .as_array()
        .expect("parameter_changes");
    assert_eq!(ch.len(), 2, "{r}");
    assert_eq!(ch[1]["name"], "noise.pos");
    assert!(
        ch[1]["after_sample_s"].as_f64() > ch[0]["after_sample_s"].as_f64(),
        "{ch:?}"
    );
    assert_eq!(ch[0]["name"], "ttc_offset_s");
    assert_eq!(ch[0]["value"], 1.0);
    assert_eq!(ch[0]["by"], "operator");
    let after = ch[0]["after_sample_s"].as_f64().expect("after a sample");
    assert!(after < ttc_time(&r), "changed before the trigger: {ch:?}");

    let (s, ev) = c.get(&format!("/runs/{id}/events")).await;
    assert_eq!(s, StatusCode::OK);
    let pc: Vec<&Value> = ev
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["kind"] == "parameter_change")
        .collect();
    assert_eq!(pc.len(), 2, "{ev}");
    assert_eq!(pc[0]["event"]["name"], "ttc_offset_s");
    assert_eq!(pc[1]["event"]["name"], "noise.pos");
    assert_eq!(
        pc[1]["t"], ch[1]["after_sample_s"],
        "the event is stamped with its sample time"
    );

    // The run is over: 409.
    let (s, e) = c.patch(&path, json!({"ttc_offset_s": 0.0})).await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    let (s, _) = c
        .patch("/runs/run-nope/parameters", json!({"ttc_offset_s": 0.0}))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}

fn ttc_time(r: &Value) -> f64 {
    r["triggers"][0]["time_s"].as_f64().unwrap_or(f64::INFINITY)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sim_vut_source_is_validated() {
    let (_server, c) = start_server().await;
    let (s, e) = c
        .post("/runs", json!({"scenario_id": "cpna75_30kmh", "source": {"kind": "sim_vut", "vut_speed_kmh": 0}}))
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    assert!(e.to_string().contains("vut speed"), "{e}");
    let (s, e) = c
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "source": {"kind": "sim_vut", "wheels": 3}}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    // A created (not running) run: 409.
    let (s, run) = c
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "source": sim_source(false)}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    let id = run["id"].as_str().expect("id");
    let (s, e) = c
        .patch(
            &format!("/runs/{id}/parameters"),
            json!({"ttc_offset_s": 0.2}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
}
