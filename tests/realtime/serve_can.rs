//! CAN in service runs: an NCOM source fused with a cannelloni CAN source, both fed by
//! `scil feed --ncom … --can-log … --cannelloni …` from the recorded files; the registered
//! DBCs (`vut` bundled, uploads validated with the parser's line).

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{json, Value};

use scil::serve;

const OP: &str = "test-operator-token";

use crate::support;
use support::http::Api;
use support::{data, free_udp_port, shared};

async fn start_server() -> (serve::Server, Api) {
    let (server, base) = support::service::spawn(&support::tempdir("serve-can"), OP).await;
    (server, Api::new(base, OP))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dbcs_are_registered_and_validated() {
    let (server, api) = start_server().await;
    let (s, v) = api.get("/dbcs").await;
    assert_eq!(s, StatusCode::OK);
    let vut = v
        .as_array()
        .and_then(|a| a.iter().find(|d| d["id"] == "vut"))
        .cloned()
        .expect("bundled vut DBC registered");
    assert_eq!(vut["messages"], 3, "{vut}");
    assert_eq!(vut["bundled"], true);

    // A DBC that does not parse: 422 naming the line.
    let text = std::fs::read_to_string(data("can/vut.dbc")).expect("dbc");
    let mut lines: Vec<&str> = text.lines().collect();
    let bo = lines
        .iter()
        .position(|l| l.starts_with("BO_ "))
        .expect("a message");
    lines.insert(bo, "BO_ this is not a message");
    let bad = lines.join("\n");
    let (s, v) = api
        .post("/dbcs", json!({"id": "broken", "text": bad}))
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let msg = v.to_string();
    assert!(msg.contains(&format!("line {}", bo + 1)), "{msg}");

    // A good upload is listed.
    let (s, v) = api.post("/dbcs", json!({"id": "vut2", "text": text})).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let (s, v) = api.get("/dbcs/vut2").await;
    assert_eq!((s, v["messages"].clone()), (StatusCode::OK, json!(3)));
    server.task.abort();
}

/// The acceptance check of the run layer: INS over NCOM and CAN over cannelloni, both sent by
/// `scil feed` from the recorded files, fused in a service run; the stored VUT telemetry's
/// steering-wheel angle comes from CAN on at least 90 % of rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn service_run_fuses_ncom_with_cannelloni_can() {
    let log = shared("can/cpna75_30kmh.log");
    if !log.exists() {
        eprintln!("shared CAN log missing; skipping");
        return;
    }
    let (server, api) = start_server().await;
    let (ncom, can) = (free_udp_port(), free_udp_port());
    let (s, run) = api
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh",
               "source": {"kind": "ncom", "bind": format!("127.0.0.1:{ncom}")},
               "can": {"kind": "cannelloni", "bind": format!("127.0.0.1:{can}"), "dbc": "vut"},
               "start": true}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    let id = run["id"].as_str().expect("id").to_string();
    assert_eq!(run["source"]["can"]["kind"], "cannelloni", "{run}");

    // `scil feed` sends both streams in step, 4× real time.
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_scil"))
            .arg("feed")
            .arg(data("replays/cpna75_30kmh.csv"))
            .args(["--ncom", &format!("127.0.0.1:{ncom}")])
            .arg("--can-log")
            .arg(&log)
            .args(["--cannelloni", &format!("127.0.0.1:{can}")])
            .args(["--speed", "4"])
            .output()
    })
    .await
    .expect("join")
    .expect("scil feed runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{}", String::from_utf8_lossy(&out.stderr).trim());

    // A live run ends when the operator finishes it (right away: the engine's stale-telemetry
    // rule aborts 200 ms after the last sample).
    let (s, v) = api.post(&format!("/runs/{id}/finish"), json!({})).await;
    assert_eq!(s, StatusCode::ACCEPTED, "{v}");
    let t0 = Instant::now();
    let done = loop {
        let (_, r) = api.get(&format!("/runs/{id}")).await;
        if matches!(r["state"].as_str(), Some("finished" | "aborted" | "failed")) {
            break r;
        }
        assert!(t0.elapsed() < Duration::from_secs(20), "{r}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(done["state"], "finished", "{done}");

    let (s, tel) = api.get(&format!("/runs/{id}/telemetry")).await;
    assert_eq!(s, StatusCode::OK);
    let vut: Vec<&Value> = tel
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["kind"] == "vut")
        .collect();
    assert!(vut.len() > 1000, "{} VUT rows", vut.len());
    let with_steering = vut
        .iter()
        .filter(|r| r["steering_wheel_deg"].is_number())
        .count();
    let with_wheel = vut
        .iter()
        .filter(|r| r["wheel_speed_mps"].is_number())
        .count();
    let share = with_steering as f64 / vut.len() as f64;
    println!(
        "{} VUT rows, steering from CAN on {with_steering} ({:.1} %), wheel speed on {with_wheel}",
        vut.len(),
        share * 100.0
    );
    assert!(
        share >= 0.9,
        "steering from CAN on {:.1} % of rows",
        share * 100.0
    );
    assert!(with_wheel as f64 >= 0.9 * vut.len() as f64);

    // The values are the log's (decoded by an independent decoder): every stored angle is one
    // of the STEER_ANGLE values of the reference decoding.
    let reference = std::fs::read_to_string(shared("can/cpna75_30kmh.decoded.csv")).expect("ref");
    let angles: Vec<f64> = reference
        .lines()
        .filter(|l| l.contains(",STEER_ANGLE,"))
        .filter_map(|l| l.rsplit(',').next()?.parse().ok())
        .collect();
    assert!(!angles.is_empty());
    for r in vut.iter().filter_map(|r| r["steering_wheel_deg"].as_f64()) {
        assert!(
            angles.iter().any(|a| (a - r).abs() < 1e-6),
            "steering {r} is not a logged value"
        );
    }

    // The run's source health shows both sources.
    let (_, res) = api.get(&format!("/runs/{id}/results")).await;
    let names: Vec<String> = res["source"]["health"]
        .as_array()
        .expect("health")
        .iter()
        .filter_map(|h| h["source"].as_str().map(String::from))
        .collect();
    assert!(
        names.iter().any(|n| n.starts_with("ncom-udp"))
            && names.iter().any(|n| n.starts_with("cannelloni")),
        "{names:?}"
    );
    assert!(
        res["triggers"].as_array().is_some_and(|t| t.len() == 1),
        "{res}"
    );
    server.task.abort();
}

/// A run's CAN signal mapping (e.g. the FCW) is checked against the registered DBC when the run
/// is created, and kept with the run's source.
#[tokio::test]
async fn can_mapping_is_checked_against_the_dbc_and_stored() {
    let (server, api) = start_server().await;
    let (ncom, can) = (free_udp_port(), free_udp_port());
    let body = |mapping: Value, with_can: bool| {
        let mut b = json!({"scenario_id": "cpna75_30kmh",
            "source": {"kind": "ncom", "bind": format!("127.0.0.1:{ncom}")},
            "can_mapping": mapping});
        if with_can {
            b["can"] =
                json!({"kind": "cannelloni", "bind": format!("127.0.0.1:{can}"), "dbc": "vut"});
        }
        b
    };
    let missing = json!({"fcw": {"message": "ADAS_STATUS", "signal": "FCW"}});
    let (s, v) = api.post("/runs", body(missing.clone(), true)).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(v.to_string().contains("ADAS_STATUS.FCW"), "{v}");
    let (s, v) = api.post("/runs", body(missing, false)).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    // A signal the DBC has (the brake-light bit standing in for an FCW line).
    let present = json!({"fcw": {"message": "LIGHTS_STATUS", "signal": "BRAKE_LIGHT"}});
    let (s, run) = api.post("/runs", body(present, true)).await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    assert_eq!(
        run["source"]["can_mapping"]["fcw"]["signal"], "BRAKE_LIGHT",
        "{run}"
    );
    server.task.abort();
}
