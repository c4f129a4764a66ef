//! Exports of a stored run (Parquet read by pyarrow, MCAP read by the Python `mcap` package,
//! `scil export`) and the `foxglove.websocket.v1` live view driven by a scripted client.

use crate::support;
use support::{shared, tempdir};

use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message as Ws;

use scil::ingest::csv::{BadRowPolicy, CsvSource};
use scil::record::messages::Encoder;
use scil::run::RunSetup as ReplaySetup;
use scil::sample::InsSample;
use scil::scenario::engine::EngineConfig;
use scil::serve::{self, Config};
use scil::store::{NewEvent, RunRow, TelemetryRow};

fn csv_samples() -> Vec<InsSample> {
    CsvSource::open(&shared("replays/cpna75_30kmh.csv"), &[], BadRowPolicy::Stop)
        .expect("csv")
        .map(|r| r.expect("row"))
        .collect()
}

async fn server(dir: &Path, foxglove: bool) -> serve::Server {
    let config = Config {
        bind: "127.0.0.1:0".into(),
        database_url: format!("sqlite://{}", dir.join("scil.db").display()),
        storage_dir: dir.join("storage"),
        data_dir: Some(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data"))),
        foxglove_bind: foxglove.then(|| "127.0.0.1:0".to_string()),
        ..Config::default()
    };
    serve::spawn(config).await.expect("server starts")
}

const PY_PARQUET: &str = r#"
import json, sys
import pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
e = pq.read_table(sys.argv[2])
d = t.to_pydict()
print(json.dumps({"rows": t.num_rows, "schema": {f.name: str(f.type) for f in t.schema},
  "kinds": sorted(set(d["kind"])), "first": {k: v[0] for k, v in d.items()},
  "events": e.num_rows, "event_kinds": sorted(set(e.to_pydict()["kind"])),
  "created_at": str(e.schema.field("created_at").type)}))
"#;

const PY_MCAP: &str = r#"
import json, sys
from collections import Counter
from mcap.reader import make_reader
with open(sys.argv[1], "rb") as f:
    r = make_reader(f)
    c = Counter(ch.topic for _, ch, _ in r.iter_messages())
print(json.dumps(c))
"#;

/// asammdf reads scil's MDF4 export; every vehicle's channels equal the Parquet export's
/// columns (NaN where Parquet has null).
const PY_MF4: &str = r#"
import json, sys, math
import pyarrow.parquet as pq
from asammdf import MDF
t = pq.read_table(sys.argv[2]).to_pydict()
m = MDF(sys.argv[1])
out = {"groups": [], "events": []}
cols = {"x": "x", "y": "y", "yaw": "yaw", "speed": "speed_mps",
        "steering_wheel": "steering_wheel_deg", "road_s": "road_s", "road_t": "road_t"}
for i, g in enumerate(m.groups):
    name = g.channel_group.acq_name
    if name == "events":
        kinds = m.get("kind", group=i).samples
        out["events"] = [k.decode().rstrip("\x00") for k in kinds]
        continue
    rows = [k for k, v in enumerate(t["vehicle"]) if v == name]
    tt = m.get("t", group=i).samples
    assert len(tt) == len(rows), (name, len(tt), len(rows))
    assert all(tt[j] == t["t"][k] for j, k in enumerate(rows)), name
    for ch, col in cols.items():
        s = m.get(ch, group=i)
        for j, k in enumerate(rows):
            want = t[col][k]
            got = float(s.samples[j])
            assert (want is None and math.isnan(got)) or got == want, (name, ch, j, got, want)
    bl = m.get("brake_light", group=i).samples
    for j, k in enumerate(rows):
        want = t["brake_light"][k]
        assert (want is None and math.isnan(bl[j])) or bl[j] == float(want), (name, j)
    out["groups"].append([name, len(rows), m.get("speed", group=i).unit])
print(json.dumps(out))
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_run_exports_as_parquet_and_mcap() {
    let dir = tempdir("export");
    let srv = server(&dir, false).await;
    let store = &srv.state.store;
    let id = "run-export-1";
    let now = chrono::Utc::now();
    store
        .insert_run(&RunRow {
            id: id.into(),
            state: "finished".into(),
            scenario_id: "cpna75_30kmh".into(),
            map_id: Some("proving_ground".into()),
            source: "{}".into(),
            speed: None,
            error: None,
            abort: None,
            created_at: now,
            armed_at: None,
            started_at: None,
            finished_at: Some(now),
            track: None,
            demo: false,
            instance: None,
        })
        .await
        .expect("run");
    let samples = csv_samples();
    let setup = ReplaySetup::load(
        &shared("scenarios/cpna75_30kmh.toml"),
        None,
        EngineConfig::default(),
    )
    .unwrap();
    let mut rows = Vec::new();
    for (k, ins) in samples.iter().enumerate() {
        let s = setup.interface.to_map(ins).unwrap();
        let row = |seq: usize, vehicle: &str, kind: &str, x: f64, y: f64| TelemetryRow {
            run_id: id.into(),
            seq: seq as i64,
            t: s.time_s,
            vehicle: vehicle.into(),
            kind: kind.into(),
            x,
            y,
            yaw: s.yaw_rad,
            speed_mps: s.speed_mps,
            steering_wheel_deg: s.steering_wheel_deg,
            brake_light: s.brake_light,
            road_id: Some("1".into()),
            lane_id: Some(-1),
            road_s: Some(s.x),
            road_t: None,
            wheel_speed_mps: None,
        };
        rows.push(row(2 * k, "vut", "vut", s.x, s.y));
        rows.push(row(2 * k + 1, "dummy", "target", 200.0, -9.75));
    }
    store.insert_telemetry(&rows).await.expect("telemetry");
    let ev = |t: f64, kind: &str| NewEvent {
        run_id: Some(id.into()),
        t: Some(t),
        kind: kind.into(),
        payload: json!({"event": kind, "time_s": t}).to_string(),
        created_at: now,
    };
    let t0 = samples[0].time_s;
    store
        .insert_events(&[
            ev(t0, "armed"),
            ev(t0 + 10.0, "triggered"),
            ev(t0 + 20.0, "finished"),
        ])
        .await
        .expect("events");
    let n_vut = samples.len();

    let http = reqwest::Client::new();
    let base = format!("http://{}/api/v1", srv.addr);
    let get = |p: String| {
        let http = http.clone();
        async move {
            let r = http.get(p).send().await.unwrap();
            let status = r.status();
            let ct = r
                .headers()
                .get("content-type")
                .map(|v| v.to_str().unwrap().to_string());
            (status, ct, r.bytes().await.unwrap().to_vec())
        }
    };
    let (s, ct, tel) = get(format!("{base}/runs/{id}/telemetry.parquet")).await;
    assert_eq!(s, 200);
    assert_eq!(ct.as_deref(), Some("application/vnd.apache.parquet"));
    assert_eq!(&tel[..4], b"PAR1");
    let (s, _, evp) = get(format!("{base}/runs/{id}/events.parquet")).await;
    assert_eq!(s, 200);
    let (s, ct, mcap) = get(format!("{base}/runs/{id}/export.mcap")).await;
    assert_eq!(s, 200);
    assert_eq!(ct.as_deref(), Some("application/x-mcap"));
    assert_eq!(&mcap[..8], b"\x89MCAP0\r\n");
    let (s, _, body) = get(format!("{base}/runs/nope/export.mcap")).await;
    assert_eq!(s, 404, "{}", String::from_utf8_lossy(&body));

    // MCAP in from the export: the VUT channel reproduces the stored samples.
    let mpath = dir.join("export.mcap");
    std::fs::write(&mpath, &mcap).unwrap();
    let back: Vec<InsSample> = scil::record::McapSource::open(&mpath)
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(back.len(), n_vut);
    assert_eq!(back[0].time_s, samples[0].time_s);

    // `scil export` writes the same Parquet.
    let out = dir.join("cli");
    let st = std::process::Command::new(env!("CARGO_BIN_EXE_scil"))
        .args([
            "export",
            id,
            "--parquet",
            "--mcap",
            "--mf4",
            "--database-url",
        ])
        .arg(format!("sqlite://{}", dir.join("scil.db").display()))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let cli_tel = out.join(format!("{id}.telemetry.parquet"));
    assert_eq!(
        std::fs::metadata(&cli_tel).unwrap().len() as usize,
        tel.len()
    );
    assert!(out.join(format!("{id}.mcap")).exists());
    let cli_mf4 = std::fs::read(out.join(format!("{id}.mf4"))).unwrap();

    // Independent readers.
    let tpath = dir.join("t.parquet");
    let epath = dir.join("e.parquet");
    std::fs::write(&tpath, &tel).unwrap();
    std::fs::write(&epath, &evp).unwrap();
    if let Some(o) = support::python::run(
        "pyarrow",
        PY_PARQUET,
        &[tpath.to_str().unwrap(), epath.to_str().unwrap()],
    ) {
        let v: Value = serde_json::from_str(o.trim()).unwrap();
        assert_eq!(v["rows"].as_u64(), Some(rows.len() as u64));
        assert_eq!(v["schema"]["t"], "double");
        assert_eq!(v["schema"]["seq"], "int64");
        assert_eq!(v["schema"]["brake_light"], "bool");
        assert_eq!(v["schema"]["lane_id"], "int32");
        assert_eq!(v["schema"]["vehicle"], "string");
        assert_eq!(v["kinds"], json!(["target", "vut"]));
        assert_eq!(v["first"]["t"].as_f64(), Some(samples[0].time_s));
        assert_eq!(v["first"]["road_t"], Value::Null);
        assert_eq!(v["events"].as_u64(), Some(3));
        assert_eq!(v["event_kinds"], json!(["armed", "finished", "triggered"]));
        assert!(
            v["created_at"]
                .as_str()
                .unwrap()
                .starts_with("timestamp[us"),
            "{v}"
        );
    }
    if let Some(o) = support::python::run("mcap", PY_MCAP, &[mpath.to_str().unwrap()]) {
        let v: Value = serde_json::from_str(o.trim()).unwrap();
        assert_eq!(v["/scil/vut"].as_u64(), Some(n_vut as u64));
        assert_eq!(v["/vut/fix"].as_u64(), Some(n_vut as u64));
        assert_eq!(
            v["/tf"].as_u64(),
            Some(2 * n_vut as u64),
            "VUT and dummy transforms"
        );
        assert_eq!(v["/scene/lanes"].as_u64(), Some(1));
        assert_eq!(v["/scil/events"].as_u64(), Some(3));
    }
    // MDF4 export, read back by asammdf against the Parquet export.
    let (s, ct, mf4) = get(format!("{base}/runs/{id}/export.mf4")).await;
    assert_eq!(s, 200);
    assert_eq!(ct.as_deref(), Some("application/x-mdf"));
    assert_eq!(&mf4[..8], b"MDF     ");
    // The same file from the command line (only the time it was made differs).
    assert_eq!(cli_mf4.len(), mf4.len());
    let fpath = dir.join("export.mf4");
    std::fs::write(&fpath, &mf4).unwrap();
    if let Some(o) = support::python::run(
        "asammdf",
        PY_MF4,
        &[fpath.to_str().unwrap(), tpath.to_str().unwrap()],
    ) {
        let v: Value = serde_json::from_str(o.trim()).unwrap();
        assert_eq!(
            v["groups"],
            json!([["vut", n_vut, "m/s"], ["dummy", n_vut, "m/s"]])
        );
        assert_eq!(v["events"], json!(["armed", "triggered", "finished"]));
    }
    srv.task.abort();
    let _ = std::fs::remove_dir_all(&dir);
}

type Client =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn connect(addr: std::net::SocketAddr) -> Client {
    let mut req = format!("ws://{addr}/").into_client_request().unwrap();
    req.headers_mut().insert(
        "Sec-WebSocket-Protocol",
        "foxglove.websocket.v1".parse().unwrap(),
    );
    let (ws, resp) = tokio_tungstenite::connect_async(req)
        .await
        .expect("connect");
    assert_eq!(
        resp.headers()
            .get("Sec-WebSocket-Protocol")
            .map(|v| v.to_str().unwrap()),
        Some("foxglove.websocket.v1")
    );
    ws
}

async fn next_text(ws: &mut Client) -> Value {
    loop {
        match tokio::time::timeout(Duration::from_secs(2), ws.next()).await {
            Ok(Some(Ok(Ws::Text(t)))) => return serde_json::from_str(&t).unwrap(),
            Ok(Some(Ok(_))) => continue,
            other => panic!("no text frame: {other:?}"),
        }
    }
}

/// The next binary frame within `within`: (subscription id, log time ns, JSON payload).
async fn next_binary(ws: &mut Client, within: Duration) -> Option<(u32, u64, Value)> {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, ws.next()).await {
            Ok(Some(Ok(Ws::Binary(b)))) => {
                assert_eq!(b[0], 0x01, "message data opcode");
                let sub = u32::from_le_bytes(b[1..5].try_into().unwrap());
                let ts = u64::from_le_bytes(b[5..13].try_into().unwrap());
                return Some((sub, ts, serde_json::from_slice(&b[13..]).unwrap()));
            }
            Ok(Some(Ok(_))) => continue,
            _ => return None,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foxglove_websocket_scripted_client() {
    let dir = tempdir("fox");
    let srv = server(&dir, true).await;
    let fox = srv.foxglove.as_ref().expect("foxglove server");
    let mut a = connect(fox.addr).await;
    let info = next_text(&mut a).await;
    assert_eq!(info["op"], "serverInfo");
    assert_eq!(info["supportedEncodings"], json!(["json"]));
    let adv = next_text(&mut a).await;
    assert_eq!(adv["op"], "advertise");
    let chans = adv["channels"].as_array().unwrap();
    assert_eq!(chans.len(), scil::record::CHANNELS.len());
    let chan = |topic: &str| {
        chans
            .iter()
            .find(|c| c["topic"] == topic)
            .unwrap_or_else(|| panic!("{topic}"))
    };
    let vut = chan("/scil/vut");
    let fix = chan("/vut/fix");
    assert_eq!(fix["schemaName"], "foxglove.LocationFix");
    assert_eq!(fix["schemaEncoding"], "jsonschema");
    assert_eq!(fix["encoding"], "json");
    let schema: Value = serde_json::from_str(fix["schema"].as_str().unwrap()).unwrap();
    assert!(schema["properties"]["latitude"].is_object());
    a.send(Ws::Text(
        json!({"op": "subscribe", "subscriptions": [
        {"id": 7, "channelId": vut["id"]}, {"id": 9, "channelId": chan("/scene/lanes")["id"]}]})
        .to_string(),
    ))
    .await
    .unwrap();

    // A "run" publishing through the hub while clients come and go.
    let setup = ReplaySetup::load(
        &shared("scenarios/cpna75_30kmh.toml"),
        None,
        EngineConfig::default(),
    )
    .unwrap();
    let mut tap = fox
        .hub
        .tap(Encoder::new(Some(&setup.scenario), setup.map.as_deref()));
    let samples = csv_samples();
    let publisher = tokio::spawn(async move {
        let mut engine = setup.engine();
        let mut published = 0u64;
        for (k, ins) in samples.iter().enumerate() {
            let s = setup.interface.to_map(ins).unwrap();
            if k == 0 {
                engine.arm(s.time_s);
            }
            engine.handle_sample(&s);
            tap.sample(&engine, &s);
            while let Some(o) = engine.poll_output() {
                tap.output(&o);
            }
            published += 1;
            tokio::time::sleep(Duration::from_millis(4)).await;
        }
        published
    });
    let t_sub = std::time::Instant::now();
    let mut got_vut = 0u64;
    let mut got_lanes = 0u64;
    let mut last_ts = 0;
    // Within a second the first data arrives.
    let (sub, ts, payload) = next_binary(&mut a, Duration::from_secs(1))
        .await
        .expect("data within 1 s");
    println!("first binary frame after {:?}", t_sub.elapsed());
    for (sub, ts, payload) in std::iter::once((sub, ts, payload)) {
        match sub {
            7 => {
                got_vut += 1;
                last_ts = ts;
                assert_eq!(
                    ts,
                    (payload["time_s"].as_f64().unwrap() * 1e9).round() as u64
                );
            }
            9 => got_lanes += 1,
            s => panic!("unknown subscription {s}"),
        }
    }
    // A second client connects, subscribes, and drops mid-run.
    let mut b = connect(fox.addr).await;
    assert_eq!(next_text(&mut b).await["op"], "serverInfo");
    assert_eq!(next_text(&mut b).await["op"], "advertise");
    b.send(Ws::Text(
        json!({"op": "subscribe", "subscriptions": [{"id": 1, "channelId": fix["id"]}]})
            .to_string(),
    ))
    .await
    .unwrap();
    let (bsub, _, bfix) = next_binary(&mut b, Duration::from_secs(1))
        .await
        .expect("client b data");
    assert_eq!(bsub, 1);
    assert!(bfix["latitude"].as_f64().is_some());
    drop(b);
    for _ in 0..200 {
        let Some((sub, ts, _)) = next_binary(&mut a, Duration::from_secs(1)).await else {
            break;
        };
        match sub {
            7 => {
                assert!(ts >= last_ts, "in order");
                last_ts = ts;
                got_vut += 1;
            }
            9 => got_lanes += 1,
            s => panic!("unknown subscription {s}"),
        }
    }
    assert!(got_vut >= 150, "VUT messages to client a: {got_vut}");
    assert_eq!(got_lanes, 1, "lanes once");
    // Unsubscribe: no more VUT data.
    a.send(Ws::Text(
        json!({"op": "unsubscribe", "subscriptionIds": [7, 9]}).to_string(),
    ))
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    while let Ok(Some(Ok(m))) = tokio::time::timeout(Duration::from_millis(50), a.next()).await {
        let _ = m; // frames already in flight
    }
    assert!(
        next_binary(&mut a, Duration::from_millis(300))
            .await
            .is_none(),
        "data after unsubscribe"
    );
    let published = publisher.await.unwrap();
    assert_eq!(published, 660, "the run was not disturbed");
    srv.task.abort();
    fox.task.abort();
    let _ = std::fs::remove_dir_all(&dir);
}

const PY_WS: &str = r#"
import json, struct, sys, time
from websockets.sync.client import connect
with connect(sys.argv[1], subprotocols=["foxglove.websocket.v1"], open_timeout=5) as ws:
    assert ws.subprotocol == "foxglove.websocket.v1", ws.subprotocol
    info = json.loads(ws.recv(timeout=2))
    adv = json.loads(ws.recv(timeout=2))
    chans = {c["topic"]: c for c in adv["channels"]}
    ws.send(json.dumps({"op": "subscribe", "subscriptions": [{"id": 42, "channelId": chans["/scil/state"]["id"]}]}))
    t0 = time.monotonic()
    while True:
        m = ws.recv(timeout=1)
        if isinstance(m, bytes):
            break
    dt = time.monotonic() - t0
    op, sub, ts = struct.unpack_from("<BIQ", m, 0)
    payload = json.loads(m[13:])
print(json.dumps({"info": info["op"], "adv": adv["op"], "n": len(chans), "op": op, "sub": sub,
                  "ts": ts, "payload": payload, "latency_s": dt}))
"#;

/// An independent client (Python `websockets`) sees serverInfo, advertise and binary data.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foxglove_python_client() {
    let hub = scil::serve::foxglove::FoxgloveHub::new(256);
    let fox = scil::serve::foxglove::spawn("127.0.0.1:0", hub.clone())
        .await
        .unwrap();
    let setup = ReplaySetup::load(
        &shared("scenarios/cpna75_30kmh.toml"),
        None,
        EngineConfig::default(),
    )
    .unwrap();
    let mut tap = hub.tap(Encoder::new(Some(&setup.scenario), setup.map.as_deref()));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop2 = stop.clone();
    let publisher = tokio::spawn(async move {
        let mut engine = setup.engine();
        for (k, ins) in csv_samples().iter().enumerate().cycle() {
            if stop2.load(std::sync::atomic::Ordering::Relaxed) {
                break;
            }
            let s = setup.interface.to_map(ins).unwrap();
            if k == 0 {
                engine = setup.engine();
                engine.arm(s.time_s);
            }
            engine.handle_sample(&s);
            tap.sample(&engine, &s);
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    let url = format!("ws://{}/", fox.addr);
    let out =
        tokio::task::spawn_blocking(move || support::python::run("websockets", PY_WS, &[&url]))
            .await
            .unwrap();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    publisher.await.unwrap();
    fox.task.abort();
    let Some(out) = out else { return };
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    println!("python client: first data after {} s", v["latency_s"]);
    assert_eq!(v["info"], "serverInfo");
    assert_eq!(v["adv"], "advertise");
    assert_eq!(v["n"].as_u64(), Some(scil::record::CHANNELS.len() as u64));
    assert_eq!(v["op"], 1);
    assert_eq!(v["sub"], 42);
    assert!(v["latency_s"].as_f64().unwrap() < 1.0);
    let t = v["payload"]["time_s"].as_f64().unwrap();
    assert_eq!(v["ts"].as_u64(), Some((t * 1e9).round() as u64));
    assert!(v["payload"]["targets"][0]["threshold_s"].as_f64().unwrap() > 3.0);
}

/// A real service run: started with `"record": true` on a server with the
/// Foxglove live view, it publishes every VUT sample to a subscribed client while it runs,
/// records an MCAP that the Python reader counts one VUT message per sample in, and
/// `export.mcap` serves that recording byte for byte once the run is over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn service_run_publishes_to_foxglove_and_records_mcap() {
    let dir = tempdir("fox-run");
    let srv = server(&dir, true).await;
    let fox = srv.foxglove.as_ref().expect("foxglove server");
    let token = srv
        .state
        .generated_operator_token
        .clone()
        .expect("generated operator token");
    let mut a = connect(fox.addr).await;
    assert_eq!(next_text(&mut a).await["op"], "serverInfo");
    let adv = next_text(&mut a).await;
    let vut_channel = adv["channels"]
        .as_array()
        .expect("channels")
        .iter()
        .find(|c| c["topic"] == "/scil/vut")
        .expect("/scil/vut advertised")["id"]
        .clone();
    a.send(Ws::Text(
        json!({"op": "subscribe", "subscriptions": [{"id": 3, "channelId": vut_channel}]})
            .to_string(),
    ))
    .await
    .expect("subscribe");

    let http = reqwest::Client::new();
    let base = format!("http://{}/api/v1", srv.addr);
    let r = http
        .post(format!("{base}/runs"))
        .bearer_auth(&token)
        .json(
            &json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh",
                      "speed": 4, "start": true, "record": true}),
        )
        .send()
        .await
        .expect("POST /runs");
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap_or_default());
    let run: Value = r.json().await.expect("run json");
    let id = run["id"].as_str().expect("id").to_string();

    // Every VUT sample reaches the client while the run goes on, in time order.
    let mut got = 0u64;
    let mut last_ts = 0u64;
    while let Some((sub, ts, payload)) = next_binary(&mut a, Duration::from_secs(3)).await {
        assert_eq!(sub, 3);
        assert!(ts >= last_ts, "in order");
        assert_eq!(
            ts,
            (payload["time_s"].as_f64().expect("time_s") * 1e9).round() as u64
        );
        last_ts = ts;
        got += 1;
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let state = loop {
        let row: Value = http
            .get(format!("{base}/runs/{id}"))
            .send()
            .await
            .expect("GET run")
            .json()
            .await
            .expect("json");
        let s = row["state"].as_str().unwrap_or("").to_string();
        if !matches!(s.as_str(), "created" | "armed" | "running")
            || std::time::Instant::now() > deadline
        {
            break s;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(state, "finished");
    let results: Value = http
        .get(format!("{base}/runs/{id}/results"))
        .send()
        .await
        .expect("results")
        .json()
        .await
        .expect("json");
    let samples = results["samples"].as_u64().expect("samples");
    assert!(samples > 600, "{results}");
    assert_eq!(got, samples, "one Foxglove VUT message per sample");
    assert_eq!(
        results["recording"]["samples"].as_u64(),
        Some(samples),
        "{results}"
    );

    let file = dir.join("storage/recordings").join(format!("{id}.mcap"));
    let on_disk = std::fs::read(&file).expect("recording on disk");
    let served = http
        .get(format!("{base}/runs/{id}/export.mcap"))
        .send()
        .await
        .expect("export");
    assert_eq!(served.status(), 200);
    let served = served.bytes().await.expect("body");
    assert_eq!(
        served.as_ref(),
        on_disk.as_slice(),
        "the recording itself is served"
    );
    if let Some(o) = support::python::run("mcap", PY_MCAP, &[file.to_str().expect("utf-8")]) {
        let counts: Value = serde_json::from_str(o.trim()).expect("python json");
        assert_eq!(counts["/scil/vut"].as_u64(), Some(samples), "{counts}");
        assert_eq!(counts["/scene/lanes"].as_u64(), Some(1), "{counts}");
    }
}
