//! Carriers are exclusive and creates are atomic, decided by the database: two runs naming one
//! carrier address (the second is refused with 409 naming the first, also when it comes
//! through another service instance on the same database), and concurrent creates of one id
//! (exactly one 201, the others 409). SQLite, and PostgreSQL when SCIL_TEST_POSTGRES_URL is set.

use std::path::PathBuf;

use reqwest::StatusCode;
use serde_json::{json, Value};

use scil::serve::{self, Config};

use crate::support;
use support::http::Api;
use support::tempdir;

const OP: &str = "test-operator-token";

async fn start(db_url: &str) -> (serve::Server, Api) {
    let storage = tempdir("exclusive");
    let mut config = Config {
        bind: "127.0.0.1:0".into(),
        database_url: db_url.into(),
        storage_dir: storage,
        data_dir: Some(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data"))),
        ..Config::default()
    };
    config.auth.operator_tokens = vec![OP.into()];
    let server = serve::spawn(config).await.expect("server starts");
    let api = Api::new(format!("http://{}/api/v1", server.addr), OP);
    (server, api)
}

/// A free TCP port on loopback (nobody listens: the carrier is never reached in these tests).
fn free_tcp_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

fn run_with_carrier(address: &str, start: bool) -> Value {
    json!({
        "scenario_id": "cpna75_30kmh",
        "replay": "cpna75_30kmh",
        "speed": 1,
        "start": start,
        "carriers": [{"name": "carrier-1", "address": address}],
    })
}

async fn exclusive_carriers(db_url: &str) {
    // Two instances on one database: the rule is the database's, not one process's.
    let (_s1, a) = start(db_url).await;
    let (_s2, b) = start(db_url).await;
    let port = free_tcp_port();
    let addr = format!("127.0.0.1:{port}");

    let (s, first) = a.post("/runs", run_with_carrier(&addr, false)).await;
    assert_eq!(s, StatusCode::CREATED, "{first}");
    let first_id = first["id"].as_str().expect("id").to_string();

    // The same address through the other instance, spelled as a host name and with the UDP
    // port given: refused, naming the holder.
    for (api, spelled) in [
        (&b, format!("localhost:{port}")),
        (&a, format!("127.0.0.1:{port}:{}", port.wrapping_sub(7))),
        (&b, addr.clone()),
    ] {
        for start in [false, true] {
            let (s, v) = api.post("/runs", run_with_carrier(&spelled, start)).await;
            assert_eq!(s, StatusCode::CONFLICT, "{spelled} start={start}: {v}");
            let detail = v["detail"].as_str().unwrap_or_default();
            assert!(
                detail.contains(&first_id),
                "{spelled} start={start}: names the holder: {v}"
            );
        }
    }
    // Concurrent creates naming one free address: exactly one holds it.
    let port2 = free_tcp_port();
    let addr2 = format!("127.0.0.1:{port2}");
    let posts = (0..6).map(|i| {
        let api = if i % 2 == 0 { &a } else { &b };
        api.post("/runs", run_with_carrier(&addr2, false))
    });
    let results = futures_util::future::join_all(posts).await;
    let created: Vec<&Value> = results
        .iter()
        .filter(|(s, _)| *s == StatusCode::CREATED)
        .map(|(_, v)| v)
        .collect();
    let conflicts = results
        .iter()
        .filter(|(s, _)| *s == StatusCode::CONFLICT)
        .count();
    assert_eq!(created.len(), 1, "{results:?}");
    assert_eq!(conflicts, 5, "{results:?}");
    let second_id = created[0]["id"].as_str().expect("id").to_string();

    // Ending the holder releases the carrier.
    // (A run is controlled through the instance that runs it.)
    let (s, v) = a.post_empty(&format!("/runs/{first_id}/abort")).await;
    assert_eq!(s, StatusCode::ACCEPTED, "{v}");
    let (s, third) = b.post("/runs", run_with_carrier(&addr, false)).await;
    assert_eq!(s, StatusCode::CREATED, "released by the abort: {third}");
    // An aborted run answers its results.
    let (s, r) = a.get(&format!("/runs/{first_id}/results")).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["aborted"], "operator abort", "{r}");

    for id in [second_id, third["id"].as_str().expect("id").to_string()] {
        let (s, v) = a.post_empty(&format!("/runs/{id}/abort")).await;
        if s != StatusCode::ACCEPTED {
            let (s, v) = b.post_empty(&format!("/runs/{id}/abort")).await;
            assert_eq!(s, StatusCode::ACCEPTED, "{v}");
        }
        let _ = v;
    }
}

async fn atomic_creates(db_url: &str) {
    let (_s1, a) = start(db_url).await;
    let (_s2, b) = start(db_url).await;
    let tag = uuid::Uuid::new_v4().simple().to_string()[..8].to_string();
    let toml = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/scenarios/cpna75_30kmh.toml"
    ))
    .expect("scenario");
    let dbc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/can/vut.dbc"))
        .expect("dbc");
    let xodr = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/opendrive/proving_ground.xodr"
    ))
    .expect("map");

    // Each kind: 8 concurrent creates of one id over two instances → one 201, seven 409.
    let scenario_id = format!("race-{tag}");
    let posts = (0..8).map(|i| {
        let api = if i % 2 == 0 { &a } else { &b };
        api.post(
            "/scenarios",
            json!({"id": scenario_id, "toml": toml.replace("CPNA", &format!("CPNA {i}"))}),
        )
    });
    check_one_created("scenario", futures_util::future::join_all(posts).await);

    let dbc_id = format!("race-{tag}");
    let posts = (0..8).map(|i| {
        let api = if i % 2 == 0 { &a } else { &b };
        api.post("/dbcs", json!({"id": dbc_id, "text": dbc}))
    });
    check_one_created("DBC", futures_util::future::join_all(posts).await);

    let map_id = format!("race-{tag}");
    let posts = (0..8).map(|i| {
        let api = if i % 2 == 0 { &a } else { &b };
        let form = reqwest::multipart::Form::new()
            .text("id", map_id.clone())
            .part(
                "file",
                reqwest::multipart::Part::bytes(xodr.clone()).file_name("race.xodr"),
            );
        let rq = api
            .http
            .post(api.url("/maps"))
            .bearer_auth(OP)
            .multipart(form);
        async move {
            let r = rq.send().await.expect("request");
            let s = r.status();
            (s, r.json::<Value>().await.unwrap_or(Value::Null))
        }
    });
    check_one_created("map", futures_util::future::join_all(posts).await);
}

fn check_one_created(what: &str, results: Vec<(StatusCode, Value)>) {
    let created = results
        .iter()
        .filter(|(s, _)| *s == StatusCode::CREATED)
        .count();
    let conflicts: Vec<&Value> = results
        .iter()
        .filter(|(s, _)| *s == StatusCode::CONFLICT)
        .map(|(_, v)| v)
        .collect();
    assert_eq!(created, 1, "{what}: {results:?}");
    assert_eq!(conflicts.len(), results.len() - 1, "{what}: {results:?}");
    for v in conflicts {
        assert!(
            v["detail"]
                .as_str()
                .is_some_and(|d| d.contains("already exists")),
            "{what}: {v}"
        );
    }
}

fn sqlite_url(tag: &str) -> String {
    format!(
        "sqlite://{}?mode=rwc",
        tempdir(tag).join("scil.db").display()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn carriers_are_exclusive_on_sqlite() {
    exclusive_carriers(&sqlite_url("excl")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creates_are_atomic_on_sqlite() {
    atomic_creates(&sqlite_url("atomic")).await;
}

/// One test on PostgreSQL: a starting instance marks the database's active runs failed, so
/// the two parts must not overlap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn carriers_exclusive_and_creates_atomic_on_postgres() {
    let Ok(url) = std::env::var("SCIL_TEST_POSTGRES_URL") else {
        println!("skip: SCIL_TEST_POSTGRES_URL not set");
        return;
    };
    exclusive_carriers(&url).await;
    atomic_creates(&url).await;
}
