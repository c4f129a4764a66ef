//! Tracks, the active-run list, late joiners and the demo's bounded history, over real HTTP
//! and WebSocket (SQLite).

use std::path::PathBuf;
use std::time::Duration;

use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{json, Value};

const OP: &str = "test-operator-token";

use crate::support;
use support::http::Api;

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn start(dir: &std::path::Path) -> (scil::serve::Server, Api, String) {
    let mut config = scil::serve::Config {
        bind: "127.0.0.1:0".into(),
        database_url: format!("sqlite://{}?mode=rwc", dir.join("scil.db").display()),
        storage_dir: dir.join("storage"),
        data_dir: Some(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data"))),
        tracks: vec!["A".into(), "B".into()],
        ..scil::serve::Config::default()
    };
    config.demo.keep_runs = 2;
    config.auth.operator_tokens = vec![OP.into()];
    let server = scil::serve::spawn(config).await.expect("server starts");
    let api = Api::new(format!("http://{}/api/v1", server.addr), OP);
    let ws = format!("ws://{}/api/v1", server.addr);
    (server, api, ws)
}

/// Frames until `until` (inclusive) or the timeout.
async fn frames(
    ws: &mut Ws,
    timeout: Duration,
    mut until: impl FnMut(&Value) -> bool,
) -> Vec<Value> {
    let mut out = Vec::new();
    let deadline = tokio::time::Instant::now() + timeout;
    while let Ok(Some(Ok(m))) = tokio::time::timeout_at(deadline, ws.next()).await {
        if let tokio_tungstenite::tungstenite::Message::Text(t) = m {
            let v: Value = serde_json::from_str(t.as_str()).expect("JSON frame");
            let stop = until(&v);
            out.push(v);
            if stop {
                break;
            }
        }
    }
    out
}

fn trigger_t(events: &[Value]) -> Option<f64> {
    events
        .iter()
        .find(|f| f["event"]["event"] == "triggered")
        .and_then(|f| f["t"].as_f64())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_on_two_tracks_and_a_late_joiner_sees_the_whole_run() {
    let (server, c, ws) = start(&support::tempdir("serve-tracks")).await;
    let (s, t) = c.get("/tracks").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(t["tracks"], json!(["A", "B"]));
    assert_eq!(t["default"], "A");
    assert_eq!(t["demo"], "demo");

    let body = |track: &str, start: bool| {
        json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh", "speed": 4,
               "start": start, "track": track})
    };
    let (s, v) = c.post("/runs", body("Z", false)).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        v["detail"]
            .as_str()
            .unwrap()
            .contains("track 'Z' is not a track"),
        "{v}"
    );
    let (s, v) = c.post("/runs", body("demo", false)).await;
    assert_eq!(
        s,
        StatusCode::UNPROCESSABLE_ENTITY,
        "the demo's track is its own: {v}"
    );

    // Run A, watched from its start by one client.
    let (s, a) = c.post("/runs", body("A", false)).await;
    assert_eq!(s, StatusCode::CREATED, "{a}");
    let id_a = a["id"].as_str().unwrap().to_string();
    assert_eq!(a["track"], "A");
    assert_eq!(a["demo"], false);
    let (mut first, _) = tokio_tungstenite::connect_async(format!("{ws}/runs/{id_a}/live"))
        .await
        .expect("ws");
    let hello = frames(&mut first, Duration::from_secs(5), |f| f["type"] == "state").await;
    let h0 = hello
        .iter()
        .find(|f| f["type"] == "history")
        .expect("history frame");
    assert_eq!(h0["t0"], Value::Null, "nothing happened yet");
    let (mut follow_b, _) = tokio_tungstenite::connect_async(format!("{ws}/live?track=B"))
        .await
        .expect("ws");
    assert_eq!(
        c.post_empty(&format!("/runs/{id_a}/arm")).await.0,
        StatusCode::OK
    );
    assert_eq!(
        c.post_empty(&format!("/runs/{id_a}/start")).await.0,
        StatusCode::OK
    );
    // Run B on the other track.
    let (s, b) = c.post("/runs", body("B", true)).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let id_b = b["id"].as_str().unwrap().to_string();

    // The track B follower is on run B, not on A (started first).
    let got = frames(&mut follow_b, Duration::from_secs(10), |f| {
        f["type"] == "sample"
    })
    .await;
    let hellos: Vec<&Value> = got.iter().filter(|f| f["type"] == "hello").collect();
    assert_eq!(hellos.len(), 1, "{hellos:?}");
    assert_eq!(hellos[0]["run"]["id"], id_b.as_str());
    assert!(got
        .iter()
        .filter(|f| f["type"] == "sample")
        .all(|f| f["run_id"] == id_b.as_str()));

    // Both active, with their tracks and their own time.
    let (s, list) = c.get("/runs?active=true").await;
    assert_eq!(s, StatusCode::OK);
    let list = list.as_array().unwrap().clone();
    assert_eq!(list.len(), 2, "{list:?}");
    for r in &list {
        let want = if r["id"] == id_a.as_str() { "A" } else { "B" };
        assert_eq!(r["track"], want);
        assert!(r["state"] == "running");
    }
    let (_, only_b) = c.get("/runs?active=true&track=B").await;
    assert_eq!(only_b.as_array().unwrap().len(), 1);

    // The first client sees the trigger; a client joining after it gets the whole run first.
    let seen = frames(&mut first, Duration::from_secs(30), |f| {
        f["type"] == "event" && f["event"]["event"] == "triggered"
    })
    .await;
    let t_trig = trigger_t(&seen).expect("trigger seen live");
    let first_vut = seen
        .iter()
        .find(|f| f["type"] == "sample" && f["kind"] == "vut")
        .and_then(|f| f["t"].as_f64())
        .expect("a VUT sample");
    let (mut late, _) = tokio_tungstenite::connect_async(format!("{ws}/runs/{id_a}/live"))
        .await
        .expect("ws");
    let joined = frames(&mut late, Duration::from_secs(10), |f| f["type"] == "state").await;
    assert_eq!(joined[0]["type"], "hello");
    assert_eq!(joined[0]["t0"], first_vut);
    let h = joined
        .iter()
        .find(|f| f["type"] == "history")
        .expect("history");
    assert_eq!(h["t0"], first_vut, "the run's own time axis");
    let vut_t = h["vehicles"]["vut"]["t"].as_array().expect("VUT trace");
    assert_eq!(vut_t[0], first_vut, "the trace from the start");
    assert!(vut_t.len() > 50, "{}", vut_t.len());
    assert!(
        h["ttc"]["dummy"]["t"]
            .as_array()
            .is_some_and(|t| t.len() == vut_t.len()),
        "{}",
        h["ttc"]
    );
    let hist_events: Vec<Value> = h["events"].as_array().unwrap().clone();
    assert_eq!(
        trigger_t(&hist_events),
        Some(t_trig),
        "the trigger at the same t"
    );
    assert!(hist_events
        .iter()
        .any(|e| e["event"]["event"] == "carrier_state"));
    // …then continues live, after the history's last sample.
    let more = frames(&mut late, Duration::from_secs(5), |f| {
        f["type"] == "sample" && f["kind"] == "vut"
    })
    .await;
    let next = more
        .last()
        .and_then(|f| f["t"].as_f64())
        .expect("live sample");
    assert!(
        next > vut_t.last().unwrap().as_f64().unwrap(),
        "no sample twice"
    );

    // ABORT on A leaves B running.
    let (s, v) = c
        .post(
            &format!("/runs/{id_a}/abort"),
            json!({"expect_state": "running"}),
        )
        .await;
    assert_eq!(s, StatusCode::ACCEPTED, "{v}");
    assert_eq!(
        c.wait_terminal(&id_a, Duration::from_secs(30)).await["state"],
        "aborted"
    );
    assert_eq!(c.get(&format!("/runs/{id_b}")).await.1["state"], "running");

    // A terminal run's history comes from the store, on the same axis.
    let (mut after, _) = tokio_tungstenite::connect_async(format!("{ws}/runs/{id_a}/live"))
        .await
        .expect("ws");
    let joined = frames(&mut after, Duration::from_secs(10), |f| {
        f["type"] == "state"
    })
    .await;
    let h = joined
        .iter()
        .find(|f| f["type"] == "history")
        .expect("history");
    assert_eq!(h["t0"], first_vut);
    assert_eq!(h["state"], "aborted");
    assert!(
        h["ttc"]["dummy"]["t"]
            .as_array()
            .is_some_and(|t| t.len() > 10),
        "TTC from the results' traces: {}",
        h["ttc"]
    );
    assert_eq!(trigger_t(h["events"].as_array().unwrap()), Some(t_trig));
    let (_, result) = c.get(&format!("/runs/{id_a}/results")).await;
    // The results' trigger is the fire instant between samples; same axis, within a sample.
    let res_t = result["triggers"][0]["time_s"]
        .as_f64()
        .expect("result trigger");
    assert!(
        (res_t - t_trig).abs() < 0.04,
        "results {res_t} vs live {t_trig}"
    );
    let (s, _) = c.post("/runs/abort-all", json!({})).await;
    assert_eq!(s, StatusCode::ACCEPTED);
    c.wait_terminal(&id_b, Duration::from_secs(30)).await;
    server.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_keeps_its_newest_runs_and_lists_can_hide_them() {
    let (server, c, _ws) = start(&support::tempdir("serve-demo")).await;
    let store = &server.state.store;
    let t0 = chrono::Utc::now() - chrono::Duration::minutes(10);
    let mut ids = Vec::new();
    for i in 0..4 {
        let id = format!("run-demo-{i}");
        let at = t0 + chrono::Duration::seconds(i);
        store
            .insert_run(&scil::store::RunRow {
                id: id.clone(),
                state: "finished".into(),
                scenario_id: "cpna75_30kmh".into(),
                map_id: None,
                source: "{}".into(),
                speed: Some(1.0),
                error: None,
                abort: None,
                created_at: at,
                armed_at: None,
                started_at: None,
                finished_at: Some(at),
                track: Some("demo".into()),
                demo: true,
                instance: None,
            })
            .await
            .expect("insert");
        store
            .insert_telemetry(&[scil::store::TelemetryRow {
                run_id: id.clone(),
                seq: 0,
                t: 1.0,
                vehicle: "vut".into(),
                kind: "vut".into(),
                x: 0.0,
                y: 0.0,
                yaw: 0.0,
                speed_mps: 8.0,
                steering_wheel_deg: None,
                brake_light: None,
                road_id: None,
                lane_id: None,
                road_s: None,
                road_t: None,
                wheel_speed_mps: None,
            }])
            .await
            .expect("telemetry");
        store.put_result(&id, "{}").await.expect("result");
        ids.push(id);
    }
    // An operator's run is never pruned.
    let (s, op) = c
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{op}");

    let gone = store.prune_demo_runs(2).await.expect("prune");
    assert_eq!(gone, vec![ids[0].clone(), ids[1].clone()], "the oldest go");
    for id in &ids[..2] {
        assert_eq!(c.get(&format!("/runs/{id}")).await.0, StatusCode::NOT_FOUND);
        assert_eq!(store.telemetry_count(id).await.unwrap(), 0);
        assert_eq!(store.get_result(id).await.unwrap(), None);
    }
    assert_eq!(store.telemetry_count(&ids[3]).await.unwrap(), 1);
    let (_, all) = c.get("/runs").await;
    assert_eq!(all.as_array().unwrap().len(), 3);
    let (_, no_demo) = c.get("/runs?demo=false").await;
    let no_demo = no_demo.as_array().unwrap();
    assert_eq!(no_demo.len(), 1);
    assert_eq!(no_demo[0]["id"], op["id"]);
    let (_, demo) = c.get("/runs?demo=true").await;
    assert!(demo
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["demo"] == true && r["track"] == "demo"));
    let (s, v) = c.get("/runs?demo=maybe").await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(
        store.prune_demo_runs(2).await.unwrap(),
        Vec::<String>::new()
    );
    server.task.abort();
}
