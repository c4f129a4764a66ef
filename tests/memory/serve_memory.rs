//! Memory of the service under 40 concurrent runs, three batches in a row: the resident set
//! after each batch is printed; it must settle (the third batch may not need much more than
//! the first), so a leak per run shows.
// The memory tests hold the process-wide ONE_AT_A_TIME guard for their whole run, awaits
// included: it only orders the tests (a plain mutex no task of the run waits on).
#![allow(clippy::await_holding_lock)]

use std::time::Duration;

use serde_json::json;

use crate::support;

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).map(str::to_string))
        })
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forty_concurrent_runs_three_times_settle() {
    let _alone = crate::ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let dir = support::tempdir("memory");
    let (_server, base) = support::service::spawn(&dir, "op").await;
    let api = support::http::Api::new(base, "op");
    let before = rss_kb();
    let mut after = Vec::new();
    for batch in 0..3 {
        let posts = (0..40).map(|_| {
            api.post(
                "/runs",
                json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh",
                       "speed": "max", "start": true}),
            )
        });
        let created = futures_util::future::join_all(posts).await;
        for (s, v) in &created {
            assert_eq!(*s, reqwest::StatusCode::CREATED, "{v}");
        }
        for (_, v) in &created {
            let id = v["id"].as_str().expect("id");
            let run = api.wait_terminal(id, Duration::from_secs(120)).await;
            assert_eq!(run["state"], "finished", "batch {batch}: {run}");
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        after.push(rss_kb());
    }
    println!(
        "RSS: {} MB before, after batches of 40 runs: {:?} MB",
        before / 1024,
        after.iter().map(|k| k / 1024).collect::<Vec<_>>()
    );
    // Settles: the third batch adds at most half of what the first one did (plus 8 MB).
    let first = after[0].saturating_sub(before);
    let third = after[2].saturating_sub(after[1]);
    assert!(
        third <= first / 2 + 8 * 1024,
        "still growing: {before} → {after:?} kB"
    );
}
