//! Safety on stock isoObjects through the service, measured as a safety officer would:
//! - an object whose MONR drifts sideways at 3 m/s (made on the wire by a proxy, see
//!   `proxy.rs`) is aborted within 2 s of the drift's start, the run never finishes and its
//!   reason names the object and its path deviation;
//! - an object killed while armed: the run is no longer `armed` within 1 s;
//! - a robot killed mid-run on a series point with `return_to_start`, then restarted: scil
//!   neither arms nor starts anything for 40 s without an operator's request, and offers the
//!   drive back instead; asked, it drives back from where the objects report they stand.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::service::{cpnco_service, ground_service, series_points, wait_at_start};
use crate::support::{self, http::Api};
use crate::{demo_bin, one_at_a_time, Demo, SERIAL};

type Objects = Arc<Mutex<Vec<Demo>>>;

/// Runs `body` against fresh stock objects on `ips`, once more with fresh objects when the
/// day failed and an object died of a signal other than the test's own kill (the stock
/// object's own crash, see `stand_in_day`).
async fn with_objects<F, Fut>(bin: &Path, ips: &[&str], label: &str, body: F)
where
    F: Fn(Objects) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    for attempt in 1..=2 {
        let procs: Objects = Arc::new(Mutex::new(crate::demos(bin, ips)));
        let r = tokio::spawn(tokio::time::timeout(
            Duration::from_secs(170),
            body(procs.clone()),
        ))
        .await;
        scil::dispatch::ground::links::close_all().await;
        let mut procs = procs.lock().unwrap_or_else(|e| e.into_inner());
        let crashed: Vec<String> = procs
            .iter_mut()
            .filter_map(|d| d.crashed())
            .filter(|c| !c.ends_with("signal 9"))
            .collect();
        if !matches!(r, Ok(Ok(()))) {
            for d in procs.iter() {
                eprintln!("--- {} ---\n{}", d.ip, d.log());
            }
        }
        for d in procs.iter_mut() {
            d.kill();
        }
        match r {
            Ok(Ok(())) => return,
            _ if attempt == 1 && !crashed.is_empty() => println!(
                "{label}: STAND-IN OBJECT CRASHED ({}): the stock isoObject's own fault, not scil's; once more with fresh objects",
                crashed.join("; ")
            ),
            Ok(Err(_)) => panic!("{label}: timed out"),
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => panic!("{label}: {e}"),
        }
    }
}

/// A pedestrian crossing run with the robot's MONR as its telemetry.
fn cpnco_run(robot: &str, ped: &str) -> Value {
    let mobility = json!({"min_turn_radius_m": 5.5, "may_reverse": true,
                          "speed_mps": 12.0, "accel_mps2": 4.0});
    json!({
        "scenario_id": "cpnco-20", "map_id": "proving_ground",
        "source": {"kind": "monr", "carrier": "robot"},
        "carriers": [
            {"name": "robot", "address": robot, "drives": "vut", "mobility": mobility},
            {"name": "ped", "address": ped, "drives": "dummy", "mobility": mobility}
        ]
    })
}

async fn create_and_arm(c: &Api, body: Value, label: &str) -> String {
    let (st, run) = c.post("/runs", body).await;
    assert_eq!(st, StatusCode::CREATED, "{label}: {run}");
    let id = run["id"].as_str().expect("id").to_string();
    let (st, v) = c.post_empty(&format!("/runs/{id}/arm")).await;
    assert_eq!(st, StatusCode::OK, "{label}: {v}");
    id
}

fn lock(o: &Objects) -> std::sync::MutexGuard<'_, Vec<Demo>> {
    o.lock().unwrap_or_else(|e| e.into_inner())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sideways_drift_through_a_proxy_aborts_within_2_s_naming_the_path_deviation() {
    let _alone = one_at_a_time();
    let Some(bin) = demo_bin() else { return };
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let ips = ["127.0.0.71", "127.0.0.72"];
    with_objects(&bin, &ips, "drift", move |_objects| async move {
        // The pedestrian's carrier behind the proxy: its MONR drifts to the right at 3 m/s
        // from half a second after it began to walk.
        let proxy = crate::proxy::start("127.0.0.73", ips[1], 0.5, 3.0).await;
        let dir = support::tempdir("ground-drift");
        let (_server, c) = cpnco_service(&dir).await;
        let id = create_and_arm(&c, cpnco_run(ips[0], "127.0.0.73"), "drift").await;
        let (st, v) = c.post_empty(&format!("/runs/{id}/start")).await;
        assert_eq!(st, StatusCode::OK, "{v}");
        let run = c.wait_terminal(&id, Duration::from_secs(90)).await;
        let seen = proxy.seen();
        println!("drift: run {} abort {}", run["state"], run["abort"]);
        assert_eq!(run["state"], "aborted", "the drifting run must not finish: {run}");
        let abort = &run["abort"];
        assert_eq!(abort["kind"], "path_deviation", "{run}");
        assert_eq!(abort["object"], "ped", "{run}");
        let text = abort["text"].as_str().unwrap_or_default();
        assert!(
            text.contains("ped") && text.contains("path"),
            "the reason names the object and its path deviation: {text}"
        );
        let began = seen.drift_began.expect("the drift began (the object walked)");
        let aborted = seen.first_abort.expect("an ABORT heartbeat reached the object");
        let after = aborted.saturating_duration_since(began).as_secs_f64();
        println!(
            "drift: ABORT reached the object {after:.2} s after the drift began ({} MONR relayed, largest offset {:.2} m): {text}",
            seen.monr_relayed, seen.max_offset_m
        );
        assert!(aborted > began, "aborted before the drift: {seen:?}");
        assert!(after <= 2.0, "aborted {after:.2} s after the drift began");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_object_killed_while_armed_ends_the_armed_run_within_1_s() {
    let _alone = one_at_a_time();
    let Some(bin) = demo_bin() else { return };
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let ips = ["127.0.0.81", "127.0.0.82"];
    with_objects(
        &bin,
        &ips,
        "killed while armed",
        move |objects| async move {
            let dir = support::tempdir("ground-kill-armed");
            let (_server, c) = cpnco_service(&dir).await;
            let id = create_and_arm(&c, cpnco_run(ips[0], ips[1]), "killed while armed").await;
            let (_, run) = c.get(&format!("/runs/{id}")).await;
            assert_eq!(run["state"], "armed", "{run}");
            lock(&objects)[1].kill();
            let killed = Instant::now();
            let state = loop {
                let (_, run) = c.get(&format!("/runs/{id}")).await;
                if run["state"] != "armed" {
                    break run["state"].clone();
                }
                assert!(
                    killed.elapsed() < Duration::from_secs(5),
                    "still armed 5 s after the kill: {run}"
                );
                tokio::time::sleep(Duration::from_millis(10)).await;
            };
            let after = killed.elapsed().as_secs_f64();
            println!("killed while armed: the run read {state} {after:.3} s after the kill");
            assert!(after <= 1.0, "still armed {after:.3} s after the kill");
            let run = c.wait_terminal(&id, Duration::from_secs(30)).await;
            assert_eq!(run["state"], "aborted", "{run}");
            assert_eq!(run["abort"]["object"], "ped", "{run}");
            println!("killed while armed: {}", run["abort"]["text"]);
            // The robot that stayed never ran.
            let robot_log = lock(&objects)[0].log();
            assert!(
                !robot_log.contains("Entering state: Running"),
                "{robot_log}"
            );
        },
    )
    .await;
}

/// The states a stock object entered that move it or prepare it to move.
fn moving_states(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| {
            l.contains("Entering state:")
                && ["Armed", "Running", "PreArming", "PreRunning"]
                    .iter()
                    .any(|s| l.trim_end().ends_with(s))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_robot_killed_mid_series_point_and_restarted_is_left_alone() {
    let _alone = one_at_a_time();
    let Some(bin) = demo_bin() else { return };
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let ips = ["127.0.0.91", "127.0.0.92"];
    let bin2 = bin.clone();
    with_objects(&bin, &ips, "robot restarted", move |objects| {
        let bin = bin2.clone();
        async move {
            let dir = support::tempdir("ground-restart");
            let (_server, c) = ground_service(&dir).await;
            let (sid, points) = series_points(&c).await;
            let p = &points[0];
            let idx = p["point"].as_i64().expect("point");
            let target = p["actors"][1]["drives"].as_str().expect("target id");
            let mobility = json!({"min_turn_radius_m": 5.5, "may_reverse": true,
                                  "speed_mps": 12.0, "accel_mps2": 4.0});
            let body = json!({
                "source": {"kind": "monr", "carrier": "robot"},
                "carriers": [
                    {"name": "robot", "address": ips[0], "drives": "vut", "mobility": mobility},
                    {"name": "target", "address": ips[1], "drives": target, "mobility": mobility}
                ],
                "return_to_start": true,
                "start": false
            });
            let (st, v) = c
                .post(&format!("/series/{sid}/points/{idx}/run"), body)
                .await;
            assert_eq!(st, StatusCode::CREATED, "{v}");
            let id = v["run"]["id"].as_str().expect("run id").to_string();
            if v["objects"]["state"] == "returning" {
                wait_at_start(&c, &id, "restart").await;
            }
            let (st, v) = c.post_empty(&format!("/runs/{id}/arm")).await;
            assert_eq!(st, StatusCode::OK, "{v}");
            let (st, v) = c.post_empty(&format!("/runs/{id}/start")).await;
            assert_eq!(st, StatusCode::OK, "{v}");
            tokio::time::sleep(Duration::from_millis(1500)).await;
            lock(&objects)[0].kill();
            let run = c.wait_terminal(&id, Duration::from_secs(60)).await;
            println!("restart: the run {} ({})", run["state"], run["abort"]["text"]);
            assert_ne!(run["state"], "finished", "{run}");
            assert_eq!(run["abort"]["object"], "robot", "{run}");
            // The robot comes back on its address; for 40 s nobody asks anything of it.
            lock(&objects)[0] = Demo::start(&bin, ips[0]);
            let back = Instant::now();
            while back.elapsed() < Duration::from_secs(40) {
                let (_, v) = c.get(&format!("/runs/{id}")).await;
                for o in v["objects"].as_array().cloned().unwrap_or_default() {
                    assert_ne!(o["state"], "returning", "driven back unasked: {v}");
                    assert_ne!(o["state"], "armed", "armed unasked: {v}");
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            let (robot, other) = {
                let o = lock(&objects);
                (o[0].log(), o[1].log())
            };
            assert!(
                moving_states(&robot).is_empty(),
                "the restarted robot was armed or started unasked: {:?}",
                moving_states(&robot)
            );
            // The target stopped at the abort and was not armed again after it.
            let after_abort = other
                .rsplit_once("Entering state: Aborting")
                .map(|(_, rest)| rest)
                .unwrap_or_default();
            assert!(
                moving_states(after_abort).is_empty(),
                "the target was armed or started after the abort: {:?}",
                moving_states(after_abort)
            );
            let offered = c
                .events(&id)
                .await
                .into_iter()
                .any(|e| e.to_string().contains("return_offered"));
            assert!(offered, "the page offers the drive back");
            println!("restart: 40 s after the robot came back, nothing was armed or started; the drive back is offered");
            // The operator asks: the drive back is planned from where each object reports it
            // stands now, the restarted robot included.
            let (st, v) = c.post_empty(&format!("/runs/{id}/return")).await;
            assert_eq!(st, StatusCode::ACCEPTED, "{v}");
            wait_at_start(&c, &id, "restart: driven back on request").await;
        }
    })
    .await;
}
