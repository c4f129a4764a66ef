//! Traceable records, over real HTTP, on SQLite and (when SCIL_TEST_POSTGRES_URL is set)
//! PostgreSQL: named operators, the audit trail (accepted and refused requests, never a
//! token), `by` on a run's control events, provenance in the results, the run's hash chain
//! (`/verify` intact, then not intact naming the event altered in the database while the
//! service was stopped), and the exported record checked offline by `scil verify`.

use std::path::PathBuf;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use scil::serve::{self, Config};

use crate::support::http::Api;
use crate::support::tempdir;

const ALICE: &str = "tok-alice-7f3a";
const BOB: &str = "tok-bob-19c2";
const CAROL: &str = "tok-carol-view";
const STRANGER: &str = "tok-stranger-55";

fn config(db_url: &str, storage: PathBuf) -> Config {
    let mut c = Config {
        bind: "127.0.0.1:0".into(),
        database_url: db_url.into(),
        storage_dir: storage,
        data_dir: Some(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data"))),
        ..Config::default()
    };
    c.apply_env(|k| match k {
        "SCIL_OPERATORS" => Some(format!("alice={ALICE}, bob={BOB}")),
        "SCIL_VIEWERS" => Some(format!("carol={CAROL}")),
        _ => None,
    });
    c.validate().expect("config");
    c
}

fn sha256(b: &[u8]) -> String {
    format!("{:x}", Sha256::digest(b))
}

async fn suite(db_url: String) {
    let dir = tempdir("records");
    let since = chrono::Utc::now() - chrono::Duration::seconds(1);
    let server = serve::spawn(config(&db_url, dir.join("storage")))
        .await
        .expect("server");
    let base = format!("http://{}/api/v1", server.addr);
    let api = Api::new(&base, ALICE);
    let send = |tok: &'static str, m: Method, p: String, body: Option<Value>| {
        let api = &api;
        async move { api.send(m, &p, Some(tok), body).await }
    };

    // Who is signed in.
    let (_, w) = send(BOB, Method::GET, "/whoami".into(), None).await;
    assert_eq!(w, json!({"name": "bob", "role": "operator"}));
    let (_, w) = send(CAROL, Method::GET, "/whoami".into(), None).await;
    assert_eq!(w, json!({"name": "carol", "role": "viewer"}));

    // alice creates, bob arms, alice starts, bob's second arm is refused.
    let (s, run) = send(
        ALICE,
        Method::POST,
        "/runs".into(),
        Some(json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh", "speed": "max"})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    let id = run["id"].as_str().expect("run id").to_string();
    let (s, v) = send(BOB, Method::POST, format!("/runs/{id}/arm"), None).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (s, v) = send(ALICE, Method::POST, format!("/runs/{id}/start"), None).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (s, v) = send(BOB, Method::POST, format!("/runs/{id}/arm"), None).await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    // An unknown token changes nothing; a viewer may not act.
    let (s, _) = send(STRANGER, Method::POST, format!("/runs/{id}/abort"), None).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let (s, _) = send(CAROL, Method::POST, format!("/runs/{id}/abort"), None).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let done = api.wait_terminal(&id, Duration::from_secs(60)).await;
    assert_eq!(done["state"], "finished", "{done}");

    // The audit trail, oldest first, with who and the outcome; never a token.
    let (s, _) = send(CAROL, Method::GET, "/audit".into(), None).await;
    assert_eq!(
        s,
        StatusCode::FORBIDDEN,
        "viewers do not read the audit trail"
    );
    let q = format!(
        "/audit?since={}&limit=1000",
        since.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    );
    let (s, audit) = send(ALICE, Method::GET, q, None).await;
    assert_eq!(s, StatusCode::OK, "{audit}");
    let text = audit.to_string();
    for t in [ALICE, BOB, CAROL, STRANGER] {
        assert!(!text.contains(t), "a token in the audit trail: {text}");
    }
    let mine: Vec<(String, String, i64)> = audit["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter(|e| e["target"].as_str() == Some(&format!("runs/{id}")))
        .map(|e| {
            (
                e["who"].as_str().unwrap_or_default().to_string(),
                e["action"].as_str().unwrap_or_default().to_string(),
                e["status"].as_i64().unwrap_or_default(),
            )
        })
        .collect();
    let want: Vec<(String, String, i64)> = [
        ("alice", "create", 201),
        ("bob", "arm", 200),
        ("alice", "start", 200),
        ("bob", "arm", 409),
        ("unknown token", "abort", 401),
        ("carol", "abort", 403),
    ]
    .iter()
    .map(|(w, a, s)| (w.to_string(), a.to_string(), *s))
    .collect();
    assert_eq!(mine, want, "{audit}");
    // This run's refusal (other tests on the same database write theirs meanwhile).
    let refused = audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["status"] == 409 && e["target"].as_str() == Some(&format!("runs/{id}")))
        .unwrap();
    assert!(
        refused["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("cannot arm"),
        "{refused}"
    );
    let (_, bobs) = send(ALICE, Method::GET, "/audit?who=bob".into(), None).await;
    assert!(bobs["entries"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["who"] == "bob"));

    // The run's events name who did each control.
    let events = api.events(&id).await;
    let controls: Vec<(String, String)> = events
        .iter()
        .filter(|e| e["kind"] == "control")
        .map(|e| {
            (
                e["event"]["action"].as_str().unwrap_or_default().into(),
                e["event"]["by"].as_str().unwrap_or_default().into(),
            )
        })
        .collect();
    assert_eq!(
        controls,
        [("create", "alice"), ("arm", "bob"), ("start", "alice")]
            .map(|(a, b)| (a.to_string(), b.to_string()))
    );

    // Provenance: the version `scil --version` prints, the digests of the inputs as stored.
    let (s, res) = api.get(&format!("/runs/{id}/results")).await;
    assert_eq!(s, StatusCode::OK, "{res}");
    let p = &res["provenance"];
    assert_eq!(
        p["scil_version"],
        format!("scil {}", env!("CARGO_PKG_VERSION"))
    );
    assert!(p["build_commit"].as_str().is_some_and(|c| !c.is_empty()));
    let (_, sc) = api.get("/scenarios/cpna75_30kmh").await;
    let toml = sc["toml"].as_str().expect("scenario text");
    assert_eq!(p["scenario"]["sha256"], sha256(toml.as_bytes()), "{p}");
    let map_file = p["map"]["file_name"].as_str().expect("map file");
    let map_bytes = std::fs::read(
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data/opendrive")).join(map_file),
    )
    .expect("bundled map");
    assert_eq!(p["map"]["sha256"], sha256(&map_bytes));
    let replay_bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/replays/cpna75_30kmh.csv"
    ))
    .expect("bundled replay");
    assert_eq!(p["replay"]["sha256"], sha256(&replay_bytes));
    assert_eq!(p["people"]["by_action"]["arm"], "bob");
    assert_eq!(p["people"]["by_action"]["start"], "alice");
    let config_text = p["config"].to_string();
    for t in [ALICE, BOB, CAROL] {
        assert!(!config_text.contains(t), "a token in the provenance");
    }
    assert_eq!(p["config"]["operators"][0]["name"], "alice");

    // Intact, sealed.
    let (s, v) = api.get(&format!("/runs/{id}/verify")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["sealed"], true, "{v}");
    assert!(v["events"].as_u64().unwrap() >= 5, "{v}");

    // The record, checked offline; a changed result is caught.
    let r = api
        .http
        .get(api.url(&format!("/runs/{id}/record.json?telemetry=true")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let record = r.text().await.unwrap();
    let file = dir.join("record.json");
    std::fs::write(&file, &record).unwrap();
    let scil = env!("CARGO_BIN_EXE_scil");
    let out = std::process::Command::new(scil)
        .args(["verify", file.to_str().unwrap()])
        .output()
        .unwrap();
    let verdict: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert!(
        out.status.success(),
        "{verdict} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(verdict["telemetry_checked"], true);
    let mut rec: Value = serde_json::from_str(&record).unwrap();
    let mut row: Value = serde_json::from_str(rec["telemetry"][3].as_str().unwrap()).unwrap();
    row["x"] = json!(row["x"].as_f64().unwrap() + 0.5);
    rec["telemetry"][3] = json!(row.to_string());
    std::fs::write(&file, rec.to_string()).unwrap();
    let out = std::process::Command::new(scil)
        .args(["verify", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "a changed telemetry row passed");
    assert!(String::from_utf8_lossy(&out.stdout).contains("telemetry"));

    // One stored event altered while the service is stopped: not intact, that event named.
    let arm_event = events
        .iter()
        .find(|e| e["kind"] == "control" && e["event"]["action"] == "arm")
        .and_then(|e| e["id"].as_i64())
        .expect("arm event");
    server.task.abort();
    server.state.store.close().await;
    drop(server);
    let store = scil::store::Store::connect(&db_url).await.unwrap();
    let n = store
        .execute_raw(&format!(
            "UPDATE events SET payload = REPLACE(payload, '\"bob\"', '\"eve\"') WHERE id = {arm_event}"
        ))
        .await
        .unwrap();
    assert_eq!(n, 1);
    store.close().await;
    let server = serve::spawn(config(&db_url, dir.join("storage")))
        .await
        .expect("server again");
    let api = Api::new(format!("http://{}/api/v1", server.addr), ALICE);
    let (_, v) = api.get(&format!("/runs/{id}/verify")).await;
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["first_bad_event"], arm_event, "{v}");
    server.task.abort();
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_on_sqlite() {
    let dir = tempdir("records-db");
    suite(format!("sqlite://{}", dir.join("scil.db").display())).await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_on_postgres() {
    let Ok(url) = std::env::var("SCIL_TEST_POSTGRES_URL") else {
        eprintln!("skipped: SCIL_TEST_POSTGRES_URL not set");
        return;
    };
    suite(url).await;
}

/// Runs stored before records were chained read as unchained, never as intact.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_stored_before_are_unchained() {
    let dir = tempdir("records-old");
    let url = format!("sqlite://{}", dir.join("scil.db").display());
    let server = serve::spawn(config(&url, dir.join("storage")))
        .await
        .expect("server");
    let api = Api::new(format!("http://{}/api/v1", server.addr), ALICE);
    let (s, run) = api
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh", "speed": "max", "start": true}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    let id = run["id"].as_str().unwrap().to_string();
    api.wait_terminal(&id, Duration::from_secs(60)).await;
    // What the migration does to the runs it finds.
    server
        .state
        .store
        .execute_raw(&format!(
            "UPDATE runs SET unchained = TRUE WHERE id = '{id}'"
        ))
        .await
        .unwrap();
    let (_, v) = api.get(&format!("/runs/{id}/verify")).await;
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["chained"], false, "{v}");
    server.task.abort();
    let _ = std::fs::remove_dir_all(dir);
}
