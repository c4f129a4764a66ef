//! Operator safety over real HTTP: every control names its run and the state the operator saw
//! (refused with 409 and a detail when the run is elsewhere), and ABORT ALL stops every
//! active run.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

const OP: &str = "test-operator-token";

use crate::support;
use support::http::Api;

fn detail(v: &Value) -> &str {
    assert!(v["error"].is_string(), "error body: {v}");
    v["detail"].as_str().expect("detail")
}

async fn new_run(c: &Api, speed: Value, start: bool) -> String {
    let (s, run) = c
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh", "speed": speed, "start": start}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    run["id"].as_str().expect("id").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_control_for_a_run_in_another_state_is_refused() {
    let (server, base) = support::service::spawn(&support::tempdir("serve-control"), OP).await;
    let c = Api::new(base, OP);
    let id = new_run(&c, json!(1), false).await;

    // The page showed `armed`, the run is `created`: no start, with both states named.
    let (s, v) = c
        .post(
            &format!("/runs/{id}/start"),
            json!({"expect_state": "armed"}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    let d = detail(&v);
    assert!(
        d.contains(&id) && d.contains("it is created") && d.contains("not armed"),
        "{d}"
    );
    // The same through the header, for a finish.
    let r = c
        .http
        .post(c.url(&format!("/runs/{id}/finish")))
        .bearer_auth(OP)
        .header("Scil-Expect-State", "running")
        .send()
        .await
        .expect("request");
    assert_eq!(r.status(), StatusCode::CONFLICT);
    let v: Value = r.json().await.expect("json");
    assert!(detail(&v).contains("it is created, not running"), "{v}");
    assert_eq!(
        c.get(&format!("/runs/{id}")).await.1["state"],
        "created",
        "nothing happened"
    );
    // Body and header must agree; a state that does not exist is named.
    let r = c
        .http
        .post(c.url(&format!("/runs/{id}/arm")))
        .bearer_auth(OP)
        .header("Scil-Expect-State", "armed")
        .json(&json!({"expect_state": "created"}))
        .send()
        .await
        .expect("request");
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let (s, v) = c
        .post(&format!("/runs/{id}/arm"), json!({"expect_state": "ready"}))
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(detail(&v).contains("'ready' is not a run state"), "{v}");
    let (s, v) = c
        .post(&format!("/runs/{id}/arm"), json!({"reason": "x"}))
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");

    // In the state the page showed: accepted.
    let (s, v) = c
        .post(
            &format!("/runs/{id}/arm"),
            json!({"expect_state": "created"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["state"], "armed");
    let (s, v) = c
        .post(
            &format!("/runs/{id}/start"),
            json!({"expect_state": "armed"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["state"], "running");
    // Live parameters: the page showed `armed` (stale) → refused; `running` → applied.
    let (s, v) = c
        .patch(
            &format!("/runs/{id}/parameters"),
            json!({"ttc_offset_s": 0.1, "expect_state": "armed"}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    assert!(detail(&v).contains("it is running, not armed"), "{v}");
    let (s, v) = c
        .patch(
            &format!("/runs/{id}/parameters"),
            json!({"ttc_offset_s": 0.0, "expect_state": "running"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    // An abort is never refused for a stale view: a page that still shows `armed` aborts the
    // running run (a state name is still required of the field).
    let (s, v) = c
        .post(
            &format!("/runs/{id}/abort"),
            json!({"expect_state": "parked"}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(c.get(&format!("/runs/{id}")).await.1["state"], "running");
    let (s, v) = c
        .post(
            &format!("/runs/{id}/abort"),
            json!({"expect_state": "armed", "reason": "seen and aborted"}),
        )
        .await;
    assert_eq!(s, StatusCode::ACCEPTED, "{v}");
    assert_eq!(v["id"], json!(id), "{v}");
    let done = c.wait_terminal(&id, Duration::from_secs(30)).await;
    assert_eq!(done["state"], "aborted");
    // A terminal run: refused naming its state and the expected one.
    let (s, v) = c
        .post(
            &format!("/runs/{id}/finish"),
            json!({"expect_state": "running"}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    assert!(detail(&v).contains("it is aborted, not running"), "{v}");
    server.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abort_all_stops_every_active_run() {
    let (server, base) = support::service::spawn(&support::tempdir("serve-abort-all"), OP).await;
    let c = Api::new(base, OP);
    // A finished run is left alone.
    let done_id = new_run(&c, json!("max"), true).await;
    assert_eq!(
        c.wait_terminal(&done_id, Duration::from_secs(60)).await["state"],
        "finished"
    );
    let created = new_run(&c, json!(1), false).await;
    let armed = new_run(&c, json!(1), false).await;
    let (s, v) = c.post_empty(&format!("/runs/{armed}/arm")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let running1 = new_run(&c, json!(1), true).await;
    let running2 = new_run(&c, json!(0.5), true).await;

    // Operators only.
    let (s, _) = c.send(Method::POST, "/runs/abort-all", None, None).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);

    let (s, v) = c
        .post("/runs/abort-all", json!({"reason": "emergency"}))
        .await;
    assert_eq!(s, StatusCode::ACCEPTED, "{v}");
    let mut ids: Vec<String> = v["aborted"]
        .as_array()
        .expect("aborted list")
        .iter()
        .map(|r| r["id"].as_str().expect("id").to_string())
        .collect();
    ids.sort();
    let mut want = vec![
        created.clone(),
        armed.clone(),
        running1.clone(),
        running2.clone(),
    ];
    want.sort();
    assert_eq!(ids, want, "{v}");
    for id in &want {
        let run = c.wait_terminal(id, Duration::from_secs(30)).await;
        assert_eq!(run["state"], "aborted", "{run}");
        assert_eq!(run["error"], "emergency", "{run}");
    }
    assert_eq!(
        c.get(&format!("/runs/{done_id}")).await.1["state"],
        "finished"
    );
    // Nothing active any more: an empty list.
    let (s, v) = c.post_empty("/runs/abort-all").await;
    assert_eq!(s, StatusCode::ACCEPTED);
    assert_eq!(v["aborted"], json!([]));
    server.task.abort();
}
