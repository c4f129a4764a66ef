//! The service over real HTTP and WebSocket, against SQLite and (when SCIL_TEST_POSTGRES_URL is
//! set) PostgreSQL: the same suite on both.

use std::path::PathBuf;
use std::time::Duration;

use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{json, Value};

use scil::serve::{self, Config};

const OP: &str = "test-operator-token";
const VIEW: &str = "test-viewer-token";

use crate::support;
use support::http::Api;
use support::{shared, tempdir};

/// The API client plus the service's WebSocket base and storage directory.
struct Ctx {
    api: Api,
    ws: String,
    storage: PathBuf,
}

impl std::ops::Deref for Ctx {
    type Target = Api;
    fn deref(&self) -> &Api {
        &self.api
    }
}

impl Ctx {
    async fn upload(
        &self,
        csv: &std::path::Path,
        file_name: &str,
        scenario: &str,
        speed: &str,
        start: bool,
        token: Option<&str>,
    ) -> (StatusCode, Value) {
        let bytes = std::fs::read(csv).unwrap();
        let form = reqwest::multipart::Form::new()
            .text("scenario_id", scenario.to_string())
            .text("speed", speed.to_string())
            .text("start", start.to_string())
            .part(
                "file",
                reqwest::multipart::Part::bytes(bytes).file_name(file_name.to_string()),
            );
        let mut rq = self.http.post(self.url("/replays")).multipart(form);
        if let Some(t) = token {
            rq = rq.bearer_auth(t);
        }
        let r = rq.send().await.unwrap();
        let s = r.status();
        (s, r.json().await.unwrap_or(Value::Null))
    }
    async fn wait_terminal(&self, id: &str) -> Value {
        self.api.wait_terminal(id, Duration::from_secs(60)).await
    }
}

fn assert_error_body(v: &Value) {
    assert!(
        v["error"].is_string() && v["detail"].is_string(),
        "not an error body: {v}"
    );
}

async fn start_server(db_url: String) -> (serve::Server, Ctx) {
    let storage = tempdir("storage");
    let mut config = Config {
        bind: "127.0.0.1:0".into(),
        database_url: db_url,
        storage_dir: storage.clone(),
        data_dir: Some(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data"))),
        ..Config::default()
    };
    config.auth.operator_tokens = vec![OP.into()];
    config.auth.viewer_tokens = vec![VIEW.into()];
    config.limits.upload_max_bytes = 1 << 20;
    let server = serve::spawn(config).await.expect("server starts");
    let ctx = Ctx {
        api: Api::new(format!("http://{}/api/v1", server.addr), OP),
        ws: format!("ws://{}/api/v1", server.addr),
        storage,
    };
    (server, ctx)
}

/// Reads frames until `until` says stop (or the timeout).
async fn read_frames(
    ws: &mut tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
    timeout: Duration,
    mut until: impl FnMut(&Value) -> bool,
) -> Vec<Value> {
    let mut out = Vec::new();
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let m = match tokio::time::timeout_at(deadline, ws.next()).await {
            Ok(Some(Ok(m))) => m,
            _ => break,
        };
        if let tokio_tungstenite::tungstenite::Message::Text(t) = m {
            let v: Value = serde_json::from_str(t.as_str()).expect("frames are JSON");
            let stop = until(&v);
            out.push(v);
            if stop {
                break;
            }
        }
    }
    out
}

async fn suite(db_url: String) {
    let (server, c) = start_server(db_url).await;

    // Health, bundled registrations, OpenAPI, metrics.
    let (s, h) = c.get("/health").await;
    assert_eq!(s, StatusCode::OK, "{h}");
    assert_eq!(h["database"]["ok"], true);
    let (_, scenarios) = c.get("/scenarios").await;
    let cpna = scenarios
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "cpna75_30kmh")
        .expect("bundled scenario");
    assert_eq!(cpna["map_id"], "proving_ground");
    let (s, m) = c.get("/maps").await;
    assert_eq!(s, StatusCode::OK);
    assert!(m
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["id"] == "proving_ground"));
    let (s, _) = c.get("/scenarios/cpna75_30kmh").await;
    assert_eq!(s, StatusCode::OK);
    let (s, replays) = c.get("/replays").await;
    assert_eq!(s, StatusCode::OK);
    assert!(replays
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["id"] == "cpna75_30kmh" && r["scenario_id"] == "cpna75_30kmh"));
    let (s, doc) = c.get("/openapi.json").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(doc["openapi"], "3.0.3");
    assert!(doc["paths"]["/runs/{id}/telemetry"].is_object());
    let (s, carriers) = c.get("/carriers").await;
    assert_eq!(s, StatusCode::OK);
    assert!(carriers
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["id"] == "carrier-1"));
    let (s, geo) = c.get("/maps/proving_ground/geojson").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(geo["type"], "FeatureCollection");

    // Auth: 401 without a token, 401 with a wrong one, 403 for a viewer; JSON bodies.
    let csv = shared("replays/cpna75_30kmh.csv");
    // (A small body: the server answers 401 before reading it, and a large one could still be
    // in flight when the connection closes.)
    let tiny = c.storage.join("tiny.csv");
    std::fs::write(&tiny, "Time,PosX,PosY,Heading,Velocity\n0,0,0,0,0\n").unwrap();
    let (s, v) = c
        .upload(&tiny, "tiny.csv", "cpna75_30kmh", "max", true, None)
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_error_body(&v);
    let r = c
        .http
        .post(c.url("/runs"))
        .json(&json!({"scenario_id": "cpna75_30kmh"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_error_body(&r.json().await.unwrap());
    let r = c
        .http
        .post(c.url("/runs"))
        .bearer_auth("nope")
        .json(&json!({"scenario_id": "cpna75_30kmh"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let r = c
        .http
        .post(c.url("/runs"))
        .bearer_auth(VIEW)
        .json(&json!({"scenario_id": "cpna75_30kmh"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert_error_body(&r.json().await.unwrap());

    // 404 and 422 are JSON {error, detail}.
    let (s, v) = c.get("/runs/no-such-run").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_error_body(&v);
    let (s, v) = c.get("/no/such/endpoint").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_error_body(&v);
    let (s, v) = c.post("/runs", json!({"scenario_id": 5})).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_error_body(&v);
    let (s, v) = c
        .post(
            "/runs",
            json!({"scenario_id": "nope", "replay": "cpna75_30kmh"}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_error_body(&v);
    let (s, v) = c.post("/scenarios", json!({"toml": "name = 'x'"})).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_error_body(&v);
    let (s, v) = c.get("/runs/x/telemetry?from=abc").await;
    assert!(
        s == StatusCode::UNPROCESSABLE_ENTITY || s == StatusCode::NOT_FOUND,
        "{s}"
    );
    assert_error_body(&v);

    // Register a scenario and a map.
    let sid = format!("test_{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let toml = std::fs::read_to_string(shared("scenarios/cpna75_30kmh.toml")).unwrap();
    let (s, v) = c.post("/scenarios", json!({"id": sid, "toml": toml})).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    assert_eq!(v["map_id"], "proving_ground");
    assert_eq!(v["targets"][0]["carrier"], "carrier-1");
    let (s, v) = c.post("/scenarios", json!({"id": sid, "toml": toml})).await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_error_body(&v);
    let (s, v) = c
        .post("/scenarios", json!({"id": "../x", "toml": toml}))
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_error_body(&v);
    let mid = format!("map_{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let xodr = std::fs::read(shared("opendrive/proving_ground.xodr")).unwrap();
    let form = reqwest::multipart::Form::new()
        .text("id", mid.clone())
        .part(
            "file",
            reqwest::multipart::Part::bytes(xodr).file_name("pg.xodr"),
        );
    let r = c
        .http
        .post(c.url("/maps"))
        .bearer_auth(OP)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let v: Value = r.json().await.unwrap();
    assert!(v["roads"].as_i64().unwrap() > 0);
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(b"<not a map/>".to_vec()).file_name("bad.xodr"),
    );
    let r = c
        .http
        .post(c.url("/maps"))
        .bearer_auth(OP)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_error_body(&r.json().await.unwrap());
    let (s, _) = c.get(&format!("/maps/{mid}/geojson")).await;
    assert_eq!(s, StatusCode::OK);

    // Upload the shared 30 km/h run (not started yet), watch it over the WebSocket.
    let (s, run) = c
        .upload(
            &csv,
            "../../escape.csv",
            "cpna75_30kmh",
            "max",
            false,
            Some(OP),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    assert_eq!(run["state"], "created");
    assert_eq!(run["source"]["kind"], "csv_replay");
    assert_eq!(run["source"]["file_name"], "escape.csv");
    assert_eq!(run["duplicate_of"]["id"], "cpna75_30kmh", "{run}");
    assert!(
        !c.storage.join("../escape.csv").exists()
            && !c.storage.parent().unwrap().join("escape.csv").exists()
    );
    let id = run["id"].as_str().unwrap().to_string();
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("{}/runs/{id}/live", c.ws))
        .await
        .unwrap();
    let hello = read_frames(&mut ws, Duration::from_secs(5), |v| v["type"] == "state").await;
    assert_eq!(hello[0]["type"], "hello");
    assert_eq!(hello[0]["run"]["id"], id.as_str());
    assert_eq!(hello[0]["scenario_id"], "cpna75_30kmh");
    assert_eq!(hello[0]["map_id"], "proving_ground");
    let (s, armed) = c.post_empty(&format!("/runs/{id}/arm")).await;
    assert_eq!(s, StatusCode::OK, "{armed}");
    assert_eq!(armed["state"], "armed");
    let (s, v) = c.post_empty(&format!("/runs/{id}/arm")).await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_error_body(&v);
    let (s, started) = c.post_empty(&format!("/runs/{id}/start")).await;
    assert_eq!(s, StatusCode::OK, "{started}");
    let frames = read_frames(&mut ws, Duration::from_secs(30), |v| {
        v["type"] == "state"
            && matches!(v["state"].as_str(), Some("finished" | "aborted" | "failed"))
    })
    .await;
    let kinds = |t: &str| frames.iter().filter(|f| f["type"] == t).count();
    assert!(kinds("sample") > 600, "sample frames: {}", kinds("sample"));
    assert!(kinds("ttc") > 600);
    assert!(kinds("event") > 3);
    let vut = frames
        .iter()
        .find(|f| f["type"] == "sample" && f["kind"] == "vut")
        .unwrap();
    for k in [
        "run_id",
        "t",
        "vehicle",
        "x",
        "y",
        "yaw",
        "speed_mps",
        "brake",
        "road",
    ] {
        assert!(vut.get(k).is_some(), "sample frame lacks {k}: {vut}");
    }
    assert_eq!(vut["vehicle"], "vut");
    assert!(
        vut["road"]["road_id"].is_string(),
        "VUT is map-matched: {vut}"
    );
    assert!(frames
        .iter()
        .any(|f| f["type"] == "sample" && f["kind"] == "target" && f["vehicle"] == "dummy"));
    let ttc = frames
        .iter()
        .find(|f| f["type"] == "ttc" && f["ttc_s"].is_number())
        .unwrap();
    assert_eq!(ttc["target"], "dummy");
    assert!(ttc["threshold_s"].as_f64().unwrap() > 0.0);
    assert!(frames
        .iter()
        .any(|f| f["type"] == "event" && f["event"]["event"] == "triggered"));
    assert!(frames
        .iter()
        .any(|f| f["type"] == "event" && f["event"]["event"] == "carrier_state"));
    assert!(frames
        .iter()
        .any(|f| f["type"] == "state" && f["state"] == "running"));
    assert_eq!(frames.last().unwrap()["state"], "finished");

    // Results match `scil replay` on the same files.
    let done = c.wait_terminal(&id).await;
    assert_eq!(done["state"], "finished", "{done}");
    assert!(done["finished_at"].is_string());
    let (s, res) = c.get(&format!("/runs/{id}/results")).await;
    assert_eq!(s, StatusCode::OK);
    // The service runs the bundled scenario (with its test speed and validity section).
    let setup = std::sync::Arc::new(
        scil::run::RunSetup::load(
            &support::data("scenarios/cpna75_30kmh.toml"),
            None,
            scil::scenario::engine::EngineConfig::default(),
        )
        .unwrap(),
    );
    // The same type, serialised once: the service's results are `scil replay --json`'s.
    let expect = scil::run::run_source(
        setup,
        &scil::run::SourceSpec::csv(&csv),
        Default::default(),
        Vec::new(),
    )
    .await
    .unwrap();
    let expect = serde_json::to_value(&expect).unwrap();
    assert_eq!(res["samples"], expect["samples"]);
    assert_eq!(res["skipped_rows"], expect["skipped_rows"]);
    assert_eq!(res["triggers"].as_array().unwrap().len(), 1);
    let (a, b) = (
        res["triggers"][0]["time_s"].as_f64().unwrap(),
        expect["triggers"][0]["time_s"].as_f64().unwrap(),
    );
    assert!((a - b).abs() < 1e-9, "trigger {a} vs scil replay {b}");
    for k in [
        "target",
        "ttc_s",
        "d_long_m",
        "vut_speed_kmh",
        "fired_at_s",
        "fire_error_ms",
        "method",
        "retimed",
        "threshold_s",
    ] {
        assert_eq!(
            res["triggers"][0][k], expect["triggers"][0][k],
            "trigger field {k}"
        );
    }
    assert_eq!(res["impacts"], expect["impacts"]);
    assert_eq!(res["aborted"], expect["aborted"]);

    // Telemetry, JSON and CSV, with a time window; events.
    let (s, tel) = c.get(&format!("/runs/{id}/telemetry")).await;
    assert_eq!(s, StatusCode::OK);
    let tel = tel.as_array().unwrap();
    let n_vut = tel.iter().filter(|r| r["kind"] == "vut").count() as u64;
    assert_eq!(n_vut, expect["samples"].as_u64().unwrap());
    assert!(tel.iter().any(|r| r["kind"] == "target"));
    let t0 = tel[0]["t"].as_f64().unwrap();
    let (_, win) = c
        .get(&format!(
            "/runs/{id}/telemetry?from={}&to={}",
            t0 + 1.0,
            t0 + 2.0
        ))
        .await;
    let win = win.as_array().unwrap();
    assert!(!win.is_empty() && win.len() < tel.len());
    assert!(win
        .iter()
        .all(|r| (t0 + 1.0..=t0 + 2.0).contains(&r["t"].as_f64().unwrap())));
    let r = c
        .http
        .get(c.url(&format!("/runs/{id}/telemetry?format=csv")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/csv"));
    let text = r.text().await.unwrap();
    assert!(text.starts_with("run_id,seq,t,vehicle,kind,x,y"));
    assert_eq!(text.lines().count(), tel.len() + 1);
    let (s, v) = c.get(&format!("/runs/{id}/telemetry?format=xml")).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_error_body(&v);
    let (s, evs) = c.get(&format!("/runs/{id}/events")).await;
    assert_eq!(s, StatusCode::OK);
    let evs = evs.as_array().unwrap();
    assert!(evs
        .iter()
        .any(|e| e["kind"] == "triggered" && e["event"]["target"] == "dummy"));
    assert!(evs.iter().any(|e| e["kind"] == "finished"));
    assert!(evs
        .iter()
        .any(|e| e["kind"] == "state" && e["event"]["state"] == "finished"));
    let (s, v) = c.post_empty(&format!("/runs/{id}/start")).await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_error_body(&v);

    // The follow-the-active-run socket switches to a new run; abort a real-time run.
    let (mut live, _) = tokio_tungstenite::connect_async(format!("{}/live", c.ws))
        .await
        .unwrap();
    let first = read_frames(&mut live, Duration::from_secs(5), |v| v["type"] == "hello").await;
    assert_eq!(first.last().unwrap()["run"]["id"], id.as_str());
    let (s, run2) = c.post("/runs", json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh", "speed": 1, "start": true})).await;
    assert_eq!(s, StatusCode::CREATED, "{run2}");
    let id2 = run2["id"].as_str().unwrap().to_string();
    assert_eq!(run2["state"], "running");
    assert_eq!(run2["speed"], 1.0);
    let got = read_frames(&mut live, Duration::from_secs(10), |v| {
        v["type"] == "sample"
    })
    .await;
    assert!(
        got.iter()
            .any(|f| f["type"] == "hello" && f["run"]["id"] == id2.as_str()),
        "{got:?}"
    );
    let health = read_frames(&mut live, Duration::from_secs(3), |v| v["type"] == "health").await;
    let h = health.last().unwrap();
    assert_eq!(h["type"], "health", "a health frame about once per second");
    let src = &h["sources"][0];
    assert!(src["name"].as_str().unwrap().starts_with("csv:"));
    assert!(src["rate_hz"].as_f64().unwrap() > 5.0, "{h}");
    assert!(src["age_s"].is_number() && src["errors"] == 0);
    assert!(h["sources"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["name"] == "store"));
    let (s, v) = c
        .post(
            &format!("/runs/{id2}/abort"),
            json!({"reason": "test e-stop"}),
        )
        .await;
    assert_eq!(s, StatusCode::ACCEPTED, "{v}");
    let done2 = c.wait_terminal(&id2).await;
    assert_eq!(done2["state"], "aborted");
    let (_, res2) = c.get(&format!("/runs/{id2}/results")).await;
    assert_eq!(res2["aborted"], "test e-stop");

    // A run re-using an earlier run's recording; abort before start.
    let (s, run3) = c
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "replay": id, "speed": "max"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run3}");
    assert_eq!(run3["speed"], "max");
    let id3 = run3["id"].as_str().unwrap();
    let (s, v) = c.post_empty(&format!("/runs/{id3}/abort")).await;
    assert_eq!(s, StatusCode::ACCEPTED);
    assert_eq!(v["state"], "aborted");

    // Upload limits: too large → 413; not a telemetry CSV → 422.
    let big = c.storage.join("big.csv");
    std::fs::write(&big, "Time,PosX\n".to_string() + &"1,2\n".repeat(400_000)).unwrap();
    // The server answers 413 as soon as the limit is passed and closes the connection, so the
    // client may see the 413 or a broken pipe while still sending; either way nothing is kept.
    let form = reqwest::multipart::Form::new()
        .text("scenario_id", "cpna75_30kmh")
        .part(
            "file",
            reqwest::multipart::Part::bytes(std::fs::read(&big).unwrap()).file_name("big.csv"),
        );
    match c
        .http
        .post(c.url("/replays"))
        .bearer_auth(OP)
        .multipart(form)
        .send()
        .await
    {
        Ok(r) => {
            assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
            assert_error_body(&r.json().await.unwrap());
        }
        Err(e) => assert!(e.is_request() || e.is_body(), "{e}"),
    }
    let bad = c.storage.join("bad.csv");
    std::fs::write(&bad, "a,b,c\n1,2,3\n").unwrap();
    let (s, v) = c
        .upload(&bad, "bad.csv", "cpna75_30kmh", "max", true, Some(OP))
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_error_body(&v);
    // Nothing is kept: the refused uploads leave no file, and the accepted one is the bundled
    // 30 km/h file byte for byte, recognised by its SHA-256 and replayed from the bundled copy.
    let kept = files_under(&c.storage.join("uploads")) + files_under(&c.storage.join("blobs"));
    assert_eq!(kept, 0);

    // Runs list, metrics.
    let (_, runs) = c.get("/runs").await;
    assert!(runs.as_array().unwrap().len() >= 3);
    let text = c
        .http
        .get(c.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.contains("scil_telemetry_rows_written_total"));
    assert!(text.contains("scil_runs_finished_total 1"), "{text}");

    server.task.abort();
    let _ = std::fs::remove_dir_all(&c.storage);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_on_sqlite() {
    let dir = tempdir("sqlite");
    suite(format!("sqlite://{}", dir.join("scil.db").display())).await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_on_postgres() {
    let Ok(url) = std::env::var("SCIL_TEST_POSTGRES_URL") else {
        eprintln!("skipped: SCIL_TEST_POSTGRES_URL not set");
        return;
    };
    suite(url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_endpoints_can_require_a_viewer_token() {
    let dir = tempdir("viewer");
    let mut config = Config {
        bind: "127.0.0.1:0".into(),
        database_url: format!("sqlite://{}", dir.join("scil.db").display()),
        storage_dir: dir.clone(),
        data_dir: Some(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data"))),
        ..Config::default()
    };
    config.auth.viewer_tokens = vec![VIEW.into()];
    config.auth.read_requires_token = true;
    let server = serve::spawn(config).await.unwrap();
    // No operator token configured: one was generated.
    let op = server
        .state
        .generated_operator_token
        .clone()
        .expect("generated operator token");
    let base = format!("http://{}/api/v1", server.addr);
    let http = reqwest::Client::new();
    let r = http.get(format!("{base}/runs")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let r = http
        .get(format!("{base}/runs"))
        .bearer_auth(VIEW)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = http
        .get(format!("{base}/runs"))
        .bearer_auth(&op)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = http.get(format!("{base}/health")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK, "health stays open");
    server.task.abort();
    let _ = std::fs::remove_dir_all(dir);
}

/// Regular files under `dir`, recursively (0 when it does not exist).
fn files_under(dir: &std::path::Path) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| {
            let p = e.path();
            if p.is_dir() {
                files_under(&p)
            } else {
                1
            }
        })
        .sum()
}

/// A run refuses a replay that does not fit its scenario (422): recorded on another map
/// (naming both maps), or on the scenario's map but never near the point where its VUT meets
/// its target (naming the closest approach, which the test works out from the CSV itself).
/// `GET /replays?scenario=ID` says the same per replay.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_that_does_not_fit_the_scenario_is_refused() {
    let dir = tempdir("replay-fit");
    let (_srv, base) = support::service::spawn(&dir, OP).await;
    let c = Api::new(base, OP);
    // Fits: the replay recorded for the scenario.
    let (s, v) = c
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    // Another map: a crossing-path cell at the junction map.
    let junction = scil::map::Map::load(&support::data(
        "osc-ncap/OpenDRIVE/NCAP/X-Intersection_NCAP.xodr",
    ))
    .expect("map");
    let cat = scil::scenario::ncap2026::Catalogue::bundled();
    let row = cat.row.iter().find(|r| r.id == "CCCscp").expect("row");
    let mut p = scil::scenario::ncap2026::Params::new(20.0);
    p.target_speed_kmh = Some(20.0);
    let sc = row.instantiate(&p, &junction.road_network).expect("cell");
    let toml = toml::to_string(&sc).expect("toml");
    let (s, v) = c
        .post(
            "/scenarios",
            json!({"id": "fit_junction", "toml": toml, "map_id": "X-Intersection_NCAP"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let (s, v) = c
        .post(
            "/runs",
            json!({"scenario_id": "fit_junction", "replay": "cpna75_30kmh"}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let e = v["detail"].as_str().unwrap_or_default().to_string();
    assert!(
        e.contains("map 'X-Intersection_NCAP'") && e.contains("map 'proving_ground'"),
        "{e}"
    );
    // The lap of the proving ground happens to drive along the junction map's approach lane
    // (both maps start a road at the origin): its map, not its samples, tells it apart.
    let (s, v) = c
        .post(
            "/runs",
            json!({"scenario_id": "fit_junction", "replay": "lap_50kmh"}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    // The simulated VUT always fits.
    let (s, v) = c
        .post("/runs", json!({"scenario_id": "fit_junction", "source": {"kind": "sim_vut", "vut_speed_kmh": 20}}))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    // The scenario's map, elsewhere: the dummy moved 1800 m east (off the recorded lane).
    let far = std::fs::read_to_string(shared("scenarios/cpna75_30kmh.toml"))
        .expect("toml")
        .replace("x = 200.0", "x = 2000.0");
    let (s, v) = c
        .post("/scenarios", json!({"id": "fit_far", "toml": far}))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let (s, v) = c
        .post(
            "/runs",
            json!({"scenario_id": "fit_far", "replay": "cpna75_30kmh"}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let e = v["detail"].as_str().unwrap_or_default().to_string();
    // The point on the VUT's line: the dummy's start moved E = 4 m along its walk (north).
    let (px, py) = (2000.0, -5.75 + 4.0);
    let csv = std::fs::read_to_string(shared("replays/cpna75_30kmh.csv")).expect("csv");
    let closest = csv
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<f64> = l.split(',').filter_map(|x| x.trim().parse().ok()).collect();
            (f.len() >= 3).then(|| (f[1] - px).hypot(f[2] - py))
        })
        .fold(f64::INFINITY, f64::min);
    let said: f64 = e
        .split("no closer than ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{e}"));
    assert!((said - closest).abs() < 0.1, "{said} vs {closest}: {e}");
    // The listing, per scenario.
    let (s, list) = c.get("/replays?scenario=fit_junction").await;
    assert_eq!(s, StatusCode::OK, "{list}");
    let rows = list.as_array().expect("list");
    assert!(!rows.is_empty());
    assert!(
        rows.iter()
            .all(|r| r["fits"] == false && r["misfit"].is_string()),
        "{list}"
    );
    let (_, list) = c.get("/replays?scenario=cpna75_30kmh").await;
    let fits = |id: &str| {
        list.as_array()
            .expect("list")
            .iter()
            .find(|r| r["id"] == id)
            .map(|r| r["fits"].clone())
    };
    assert_eq!(fits("cpna75_30kmh"), Some(json!(true)), "{list}");
    let (s, _) = c.get("/replays?scenario=nope").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let _ = std::fs::remove_dir_all(&dir);
}
