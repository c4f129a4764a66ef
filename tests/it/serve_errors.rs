//! Error answers: oversized bodies are 413 everywhere, every
//! error — axum's own rejections included — is `{"error", "detail"}` JSON, a 5xx answers a generic
//! message and a request id (the database detail only in the log), `?token=` only on GET.

use std::path::PathBuf;

use reqwest::StatusCode;
use serde_json::{json, Value};

use scil::serve::{self, Config};

const OP: &str = "test-operator-token";

async fn start() -> (serve::Server, String, PathBuf) {
    let dir = std::env::temp_dir().join(format!(
        "scil-serve-errors-{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mut config = Config {
        bind: "127.0.0.1:0".into(),
        database_url: format!("sqlite://{}", dir.join("scil.db").display()),
        storage_dir: dir.clone(),
        data_dir: Some(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data"))),
        ..Config::default()
    };
    config.auth.operator_tokens = vec![OP.into()];
    let server = serve::spawn(config).await.expect("server starts");
    let base = format!("http://{}/api/v1", server.addr);
    (server, base, dir)
}

async fn json_error(r: reqwest::Response, status: StatusCode) -> Value {
    assert_eq!(r.status(), status);
    let ct = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    assert!(ct.starts_with("application/json"), "content type {ct}");
    let v: Value = r.json().await.expect("JSON body");
    assert!(
        v["error"].is_string() && v["detail"].is_string(),
        "not an error body: {v}"
    );
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_is_json_with_the_right_status() {
    let (server, base, dir) = start().await;
    let http = reqwest::Client::new();

    // A JSON body over the 2 MB default limit on POST /runs and /scenarios is 413, not 400.
    // (2.5 MB: small enough for loopback socket buffers, so the client finishes writing before
    // the server answers and closes; a transport error is retried.)
    let big = format!("{{\"scenario_id\":\"{}\"}}", "x".repeat(5 << 19));
    for path in ["runs", "scenarios"] {
        let mut last = None;
        for _ in 0..3 {
            match http
                .post(format!("{base}/{path}"))
                .bearer_auth(OP)
                .header("content-type", "application/json")
                .body(big.clone())
                .send()
                .await
            {
                Ok(r) => {
                    last = Some(r);
                    break;
                }
                Err(e) => println!("POST /{path}: {e} (retrying)"),
            }
        }
        json_error(last.expect("an answer"), StatusCode::PAYLOAD_TOO_LARGE).await;
    }

    // Bad percent-encoding in a path parameter.
    let r = http
        .get(format!("{base}/runs/%FF%FE"))
        .send()
        .await
        .unwrap();
    let v = json_error(r, StatusCode::BAD_REQUEST).await;
    assert_eq!(v["error"], "bad_request");

    // Wrong content type.
    let r = http
        .post(format!("{base}/scenarios"))
        .bearer_auth(OP)
        .header("content-type", "text/plain")
        .body("{}")
        .send()
        .await
        .unwrap();
    let s = r.status();
    assert!(s.is_client_error(), "{s}");
    json_error(r, s).await;

    // Unknown method on a known path.
    let r = http.delete(format!("{base}/maps")).send().await.unwrap();
    json_error(r, StatusCode::METHOD_NOT_ALLOWED).await;

    // Invalid scenario values: 422 naming the key.
    let toml = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/scenarios/cpna75_30kmh.toml"
    ))
    .expect("shared scenario");
    {
        let bad = regex_like_replace(&toml, "heading_deg", "heading_deg = nan");
        let r = http
            .post(format!("{base}/scenarios"))
            .bearer_auth(OP)
            .json(&json!({ "id": "bad-nan", "toml": bad }))
            .send()
            .await
            .unwrap();
        let v = json_error(r, StatusCode::UNPROCESSABLE_ENTITY).await;
        assert!(
            v["detail"].as_str().unwrap_or("").contains("heading_deg"),
            "{v}"
        );
    }

    // `?token=` is for GET and WebSocket upgrades only.
    let r = http
        .post(format!("{base}/scenarios?token={OP}"))
        .json(&json!({ "id": "x", "toml": "" }))
        .send()
        .await
        .unwrap();
    let v = json_error(r, StatusCode::UNAUTHORIZED).await;
    assert!(v["detail"].as_str().unwrap_or("").contains("GET"), "{v}");
    let r = http
        .get(format!("{base}/runs?token={OP}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);

    // A database failure: 500 with a generic message and a request id, no driver detail.
    server.state.store.close().await;
    let r = http.get(format!("{base}/runs")).send().await.unwrap();
    let v = json_error(r, StatusCode::INTERNAL_SERVER_ERROR).await;
    let detail = v["detail"].as_str().unwrap_or("");
    assert!(
        v["request_id"].as_str().is_some_and(|s| s.len() >= 8),
        "{v}"
    );
    for leak in ["pool", "sqlx", "database:", "sqlite", "closed"] {
        assert!(
            !detail.to_lowercase().contains(leak),
            "5xx leaks {leak:?}: {v}"
        );
    }
    server.task.abort();
    let _ = std::fs::remove_dir_all(dir);
}

/// Replaces the first line starting with `key` by `line`.
fn regex_like_replace(text: &str, key: &str, line: &str) -> String {
    let mut done = false;
    text.lines()
        .map(|l| {
            if !done && l.trim_start().starts_with(key) {
                done = true;
                line.to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
