//! Live runs of the service over real HTTP on ephemeral ports (SQLite): an NCOM source fed by
//! the simulated INS (`scil feed`'s functions), stale telemetry, and a real carrier (the
//! in-process ISO 22133 carrier simulator).

use std::time::Duration;

use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{json, Value};

use scil::dispatch::carrier_sim::{self, SimConfig, SimHandle};
use scil::dispatch::iso22133::ObjectState;
use scil::dispatch::object::ObjectConfig;
use scil::serve;
use scil::sim::ins::{self as feed, FeedOptions, TimedPacket};

const OP: &str = "test-operator-token";

/// The tests feed real-time streams: one at a time.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

use crate::support;
use support::http::Api;
use support::{data, free_udp_port};

/// The API client plus the WebSocket base of the same service.
struct Ctx {
    api: Api,
    ws: String,
}

impl std::ops::Deref for Ctx {
    type Target = Api;
    fn deref(&self) -> &Api {
        &self.api
    }
}

async fn start_server() -> (serve::Server, Ctx) {
    let (server, base) = support::service::spawn(&support::tempdir("serve-live"), OP).await;
    let ctx = Ctx {
        api: Api::new(base, OP),
        ws: format!("ws://{}/api/v1", server.addr),
    };
    (server, ctx)
}

/// The recorded run as NCOM packets at the CSV's own 25 Hz (the samples the CSV replay sees).
fn ncom_packets() -> Vec<TimedPacket> {
    let samples =
        scil::sim::ins::read_replay_csv(&data("replays/cpna75_30kmh.csv")).expect("read CSV");
    let geo = scil::sim::ins::map_geo(Some(&data("opendrive/proving_ground.xodr")))
        .expect("map geo")
        .expect("geoReference");
    let opts = FeedOptions {
        rate_hz: 25.0,
        ..Default::default()
    };
    feed::ncom_stream(&samples, Some(geo.as_ref()), &opts).expect("NCOM stream")
}

fn slice(p: &[TimedPacket], from: f64, to: f64) -> Vec<TimedPacket> {
    p.iter()
        .filter(|p| p.time_s >= from - 1e-6 && p.time_s <= to + 1e-6)
        .copied()
        .collect()
}

/// The CSV replay of the same recording through the service (speed max).
async fn replay_result(c: &Ctx) -> Value {
    let (s, run) = c
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh", "speed": "max", "start": true}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    let id = run["id"].as_str().expect("id").to_string();
    let done = c.wait_terminal(&id, Duration::from_secs(60)).await;
    assert_eq!(done["state"], "finished", "{done}");
    let (s, r) = c.get(&format!("/runs/{id}/results")).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    r
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ncom_run_triggers_like_the_csv_replay() {
    let _g = SERIAL.lock().await;
    let (server, c) = start_server().await;
    let reference = replay_result(&c).await;
    let trig = &reference["triggers"][0];
    let trig_t = f(&trig["fired_at_s"]);
    assert!(trig_t.is_finite(), "the replay triggers: {reference}");

    let port = free_udp_port();
    let bind = format!("127.0.0.1:{port}");
    let (s, run) = c
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "source": {"kind": "ncom", "bind": bind}, "start": true}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    assert_eq!(run["state"], "running");
    assert_eq!(run["source"]["kind"], "ncom");
    let id = run["id"].as_str().expect("id").to_string();

    // From 6 s before the trigger to the end of the recording (the VUT stands still at the
    // end): the main part ×4, then the standstill tail in real time while the run is finished.
    let packets = ncom_packets();
    let last_t = packets.last().expect("packets").time_s;
    let main = slice(&packets, trig_t - 6.0, last_t - 4.0);
    let tail = slice(&packets, last_t - 3.96, last_t);
    let target: std::net::SocketAddr = bind.parse().expect("addr");
    let n = feed::send_udp(&main, target, 4.0).await.expect("feed");
    assert_eq!(n as usize, main.len());
    let tail_task = tokio::spawn(async move { feed::send_udp(&tail, target, 1.0).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (s, r) = c.post(&format!("/runs/{id}/finish"), json!({})).await;
    assert_eq!(s, StatusCode::ACCEPTED, "{r}");
    let done = c.wait_terminal(&id, Duration::from_secs(30)).await;
    assert_eq!(done["state"], "finished", "{done}");
    let _ = tail_task.await;

    let (s, live) = c.get(&format!("/runs/{id}/results")).await;
    assert_eq!(s, StatusCode::OK, "{live}");
    println!(
        "replay trigger {}\nlive trigger {}",
        reference["triggers"], live["triggers"]
    );
    let lt = live["triggers"].as_array().expect("triggers");
    assert_eq!(
        lt.len(),
        reference["triggers"].as_array().map_or(0, |a| a.len())
    );
    for (a, b) in lt
        .iter()
        .zip(reference["triggers"].as_array().expect("ref"))
    {
        assert_eq!(a["target"], b["target"]);
        for k in ["fired_at_s", "time_s"] {
            let d = (f(&a[k]) - f(&b[k])).abs();
            assert!(
                d <= 0.002,
                "{k}: live {} vs replay {} ({:.2} ms)",
                a[k],
                b[k],
                d * 1e3
            );
        }
    }
    let (li, ri) = (&live["impacts"], &reference["impacts"]);
    assert_eq!(
        li.as_array().map(|a| a.len()),
        ri.as_array().map(|a| a.len()),
        "{li} vs {ri}"
    );
    for (a, b) in li
        .as_array()
        .into_iter()
        .flatten()
        .zip(ri.as_array().into_iter().flatten())
    {
        assert_eq!(a["time_s"].is_null(), b["time_s"].is_null(), "{a} vs {b}");
        if !a["time_s"].is_null() {
            assert!(
                (f(&a["time_s"]) - f(&b["time_s"])).abs() <= 0.002,
                "{a} vs {b}"
            );
        }
    }
    assert!(live["aborted"].is_null(), "{live}");
    // The source's own counters are in the results and in /metrics.
    assert!(
        live["source"]["health"][0]["samples"].as_u64().unwrap_or(0) > 100,
        "{}",
        live["source"]
    );
    let metrics = c
        .http
        .get(format!("{}/metrics", c.base))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("text");
    assert!(
        metrics.contains(&format!(
            "scil_source_samples_total{{source=\"ncom-udp:{bind}\"}}"
        )),
        "{metrics}"
    );
    server.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ncom_run_aborts_when_telemetry_stops() {
    let _g = SERIAL.lock().await;
    let (server, c) = start_server().await;
    let port = free_udp_port();
    let bind = format!("127.0.0.1:{port}");
    let (s, run) = c
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "source": {"kind": "ncom", "bind": bind}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    let id = run["id"].as_str().expect("id").to_string();
    let (s, r) = c.post(&format!("/runs/{id}/arm"), json!({})).await;
    assert_eq!(s, StatusCode::OK, "{r}");

    // Live health frames carry the source's counters.
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("{}/runs/{id}/live", c.ws))
        .await
        .expect("ws");
    let (s, r) = c.post(&format!("/runs/{id}/start"), json!({})).await;
    assert_eq!(s, StatusCode::OK, "{r}");

    // 3 s of the approach in real time, plus two garbage datagrams, then silence: the link stays
    // up, no more samples come.
    let packets = ncom_packets();
    let t0 = packets[0].time_s;
    let part = slice(&packets, t0 + 2.0, t0 + 5.0);
    let target: std::net::SocketAddr = bind.parse().expect("addr");
    let garbage = tokio::net::UdpSocket::bind("127.0.0.1:0")
        .await
        .expect("bind");
    garbage.send_to(b"not ncom", target).await.expect("send");
    garbage.send_to(&[0xE7; 72], target).await.expect("send");
    let fed = tokio::spawn(async move { feed::send_udp(&part, target, 1.0).await });

    let mut health = None;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while let Ok(Some(Ok(m))) = tokio::time::timeout_at(deadline, ws.next()).await {
        if let tokio_tungstenite::tungstenite::Message::Text(t) = m {
            let v: Value = serde_json::from_str(t.as_str()).expect("JSON frame");
            if v["type"] == "health" && v["sources"][0]["samples"].as_u64().unwrap_or(0) > 0 {
                health = Some(v);
                break;
            }
        }
    }
    let health = health.expect("a health frame with the NCOM source's counters");
    let src = &health["sources"][0];
    assert!(
        src["name"].as_str().unwrap_or("").starts_with("ncom-udp:"),
        "{health}"
    );
    assert!(src["rate_hz"].as_f64().unwrap_or(0.0) > 0.0, "{health}");
    assert!(src["age_s"].is_number(), "{health}");
    assert!(
        src["malformed"].as_u64().unwrap_or(0) + src["checksum_failed"].as_u64().unwrap_or(0) >= 2,
        "garbage counted: {health}"
    );
    fed.await.expect("feed task").expect("feed");

    let done = c.wait_terminal(&id, Duration::from_secs(20)).await;
    assert_eq!(done["state"], "aborted", "{done}");
    let err = done["error"].as_str().unwrap_or("");
    assert!(err.contains("VUT telemetry stale"), "{done}");
    let (_, res) = c.get(&format!("/runs/{id}/results")).await;
    assert!(
        res["aborted"].as_str().unwrap_or("").contains("stale"),
        "{res}"
    );
    // The abort's sample time is one limit after the last sample (engine time, not wall time).
    let ev = c.events(&id).await;
    let aborted = ev
        .iter()
        .find(|e| e["kind"] == "aborted")
        .expect("aborted event");
    let last_sample = packets
        .iter()
        .filter(|p| p.time_s <= t0 + 5.0 + 1e-6)
        .map(|p| p.time_s)
        .fold(f64::MIN, f64::max);
    let at = f(&aborted["t"]);
    assert!(
        (at - last_sample - 0.2).abs() < 0.05,
        "abort at {at}, last sample {last_sample}"
    );
    server.task.abort();
}

async fn sim() -> SimHandle {
    carrier_sim::spawn(SimConfig {
        tcp_port: 0,
        udp_port: 0,
        object: ObjectConfig {
            ready_to_arm: true,
            ..Default::default()
        },
        ..Default::default()
    })
    .await
    .expect("carrier simulator")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_with_a_real_carrier_arms_starts_and_aborts_it() {
    let _g = SERIAL.lock().await;
    let (server, c) = start_server().await;
    let sim = sim().await;
    let address = format!("127.0.0.1:{}:{}", sim.tcp_addr.port(), sim.udp_addr.port());

    // A carrier that is not in the scenario is refused up front.
    let (s, e) = c
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh", "speed": 4,
                   "carriers": [{"name": "carrier-9", "address": address}]}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{e}");

    let (s, run) = c
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh", "speed": 4,
                   "carriers": [{"name": "carrier-1", "address": address}]}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    let id = run["id"].as_str().expect("id").to_string();
    let (s, r) = c.post(&format!("/runs/{id}/arm"), json!({})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("{}/runs/{id}/live", c.ws))
        .await
        .expect("ws");
    let (s, r) = c.post(&format!("/runs/{id}/start"), json!({})).await;
    assert_eq!(s, StatusCode::OK, "{r}");

    // carrier_state frames: ARMED, then RUNNING at the trigger.
    let mut states = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while let Ok(Some(Ok(m))) = tokio::time::timeout_at(deadline, ws.next()).await {
        if let tokio_tungstenite::tungstenite::Message::Text(t) = m {
            let v: Value = serde_json::from_str(t.as_str()).expect("JSON frame");
            if v["type"] == "event" && v["event"]["event"] == "carrier_state" {
                assert_eq!(v["event"]["mode"], "iso22133", "{v}");
                assert_eq!(v["event"]["carrier"], "carrier-1", "{v}");
                let st = v["event"]["state"].as_str().unwrap_or("").to_string();
                states.push(st.clone());
                if st == "RUNNING" {
                    break;
                }
            }
            if v["type"] == "state"
                && matches!(v["state"].as_str(), Some("finished" | "aborted" | "failed"))
            {
                panic!("run ended before RUNNING: {v} (carrier states {states:?})");
            }
        }
    }
    let armed = states.iter().position(|s| s == "ARMED");
    let running = states.iter().position(|s| s == "RUNNING");
    assert!(
        armed.is_some() && running.is_some() && armed < running,
        "carrier states {states:?}"
    );
    let (_, carriers) = c.get("/carriers").await;
    let c1 = carriers
        .as_array()
        .into_iter()
        .flatten()
        .find(|x| x["id"] == "carrier-1")
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(c1["mode"], "iso22133", "{carriers}");
    assert_eq!(c1["state"], "RUNNING", "{carriers}");
    assert_eq!(c1["address"], address.as_str(), "{carriers}");

    // Operator abort → HEAB ABORT → the carrier goes ABORTING.
    let (s, r) = c
        .post(
            &format!("/runs/{id}/abort"),
            json!({"reason": "test e-stop"}),
        )
        .await;
    assert_eq!(s, StatusCode::ACCEPTED, "{r}");
    let done = c.wait_terminal(&id, Duration::from_secs(20)).await;
    assert_eq!(done["state"], "aborted", "{done}");
    assert_eq!(done["error"], "test e-stop", "{done}");
    let sim_states: Vec<ObjectState> = sim.status().transitions.iter().map(|t| t.1).collect();
    assert!(
        sim_states.contains(&ObjectState::Aborting),
        "{sim_states:?}"
    );

    // Stored: carrier states and the control centre's abort.
    let ev = c.events(&id).await;
    let stored: Vec<&str> = ev
        .iter()
        .filter(|e| e["kind"] == "carrier_state")
        .filter_map(|e| e["event"]["state"].as_str())
        .collect();
    assert!(
        stored.contains(&"ARMED") && stored.contains(&"RUNNING"),
        "{stored:?}"
    );
    assert!(
        ev.iter()
            .any(|e| e["kind"] == "dispatch" && e["event"]["event"] == "abort"),
        "dispatch abort stored"
    );
    let (_, res) = c.get(&format!("/runs/{id}/results")).await;
    assert_eq!(res["carriers"][0]["carrier"], "carrier-1", "{res}");
    // After the run the control centre is gone: the carrier shows disconnected.
    let (_, carriers) = c.get("/carriers").await;
    let c1 = carriers
        .as_array()
        .into_iter()
        .flatten()
        .find(|x| x["id"] == "carrier-1")
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(c1["mode"], "iso22133", "{carriers}");
    assert_eq!(c1["connected"], false, "{carriers}");
    assert_eq!(
        res["triggers"].as_array().map_or(0, |a| a.len()),
        1,
        "{res}"
    );
    sim.shutdown().await;
    server.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_tcp_run_counts_bad_lines_and_finishes() {
    use tokio::io::AsyncWriteExt;
    let _g = SERIAL.lock().await;
    let (server, c) = start_server().await;
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let bind = format!("127.0.0.1:{port}");
    let (s, run) = c
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh",
                   "source": {"kind": "json", "transport": "tcp", "bind": bind}, "start": true}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    let id = run["id"].as_str().expect("id").to_string();
    let samples =
        scil::sim::ins::read_replay_csv(&data("replays/cpna75_30kmh.csv")).expect("read CSV");
    let mut conn = tokio::net::TcpStream::connect(&bind)
        .await
        .expect("connect");
    conn.write_all(b"{not json\n").await.expect("write");
    conn.write_all(b"{\"t\": 1}\n").await.expect("write");
    // 2 s of the approach at 25 Hz, ×2.
    let t0 = samples[0].time_s;
    for s in samples
        .iter()
        .filter(|s| s.time_s >= t0 + 1.0 && s.time_s <= t0 + 3.0)
    {
        let line = format!("{}\n", scil::ingest::json::to_line(s));
        conn.write_all(line.as_bytes()).await.expect("write");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (s, r) = c.post(&format!("/runs/{id}/finish"), json!({})).await;
    assert_eq!(s, StatusCode::ACCEPTED, "{r}");
    let done = c.wait_terminal(&id, Duration::from_secs(20)).await;
    assert_eq!(done["state"], "finished", "{done}");
    let (_, res) = c.get(&format!("/runs/{id}/results")).await;
    assert!(res["samples"].as_u64().unwrap_or(0) >= 40, "{res}");
    let h = &res["source"]["health"][0];
    assert!(
        h["malformed"].as_u64().unwrap_or(0) >= 2,
        "bad lines counted: {res}"
    );
    drop(conn);
    server.task.abort();
}
