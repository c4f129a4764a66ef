//! The service's REST API as the integration tests call it: JSON in and out, the operator's
//! bearer token on writes, and the wait for a run to reach a terminal state.
#![allow(dead_code)] // not every test crate that includes `support` uses every call

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::Value;

/// A client of one service's `/api/v1`.
pub struct Api {
    pub base: String,
    pub http: reqwest::Client,
    /// Sent as the bearer token on writes.
    pub token: String,
}

impl Api {
    pub fn new(base: impl Into<String>, token: &str) -> Api {
        Api {
            base: base.into(),
            http: reqwest::Client::new(),
            token: token.into(),
        }
    }

    pub fn url(&self, p: &str) -> String {
        format!("{}{p}", self.base)
    }

    pub async fn get(&self, p: &str) -> (StatusCode, Value) {
        self.send(Method::GET, p, None, None).await
    }

    /// Any request: `token` as bearer token, `body` as JSON; the status and the JSON body
    /// (`null` when the body is not JSON).
    pub async fn send(
        &self,
        m: Method,
        p: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut rq = self.http.request(m, self.url(p));
        if let Some(t) = token {
            rq = rq.bearer_auth(t);
        }
        if let Some(b) = body {
            rq = rq.json(&b);
        }
        let r = rq.send().await.expect("request");
        let s = r.status();
        (s, r.json().await.unwrap_or(Value::Null))
    }

    pub async fn post(&self, p: &str, body: Value) -> (StatusCode, Value) {
        self.send(Method::POST, p, Some(&self.token), Some(body))
            .await
    }

    pub async fn post_empty(&self, p: &str) -> (StatusCode, Value) {
        self.send(Method::POST, p, Some(&self.token), None).await
    }

    pub async fn patch(&self, p: &str, body: Value) -> (StatusCode, Value) {
        self.send(Method::PATCH, p, Some(&self.token), Some(body))
            .await
    }

    /// Polls `/runs/{id}` until it is finished, aborted or failed and settled (panics after
    /// `limit`).
    pub async fn wait_terminal(&self, id: &str, limit: Duration) -> Value {
        let t0 = Instant::now();
        loop {
            let (s, run) = self.get(&format!("/runs/{id}")).await;
            assert_eq!(s, StatusCode::OK, "{run}");
            // Ended and settled (an aborting run reads `aborted` with no `finished_at` while
            // its data is being stored).
            if matches!(
                run["state"].as_str(),
                Some("finished" | "aborted" | "failed")
            ) && !run["finished_at"].is_null()
            {
                return run;
            }
            assert!(t0.elapsed() < limit, "run {id} did not end: {run}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A run's dispatch events.
    pub async fn events(&self, id: &str) -> Vec<Value> {
        let (s, v) = self.get(&format!("/runs/{id}/events")).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        v.as_array().cloned().unwrap_or_default()
    }
}
