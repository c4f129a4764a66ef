//! Instances sharing a database. Two scil instances (`scil serve` child processes) on one
//! PostgreSQL (runs when SCIL_TEST_POSTGRES_URL is set): a run on A keeps running while B starts
//! and restarts; B lists A's run, serves its results, report and exports while it runs and
//! after, and answers control requests for it with 409 naming A; a replay uploaded through A
//! runs on B; after A is killed (SIGKILL) B marks A's running run failed once A's lease has
//! expired, and not before. Also (SQLite): the startup rules and key-based run list pages.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support;
use support::http::Api;
use support::{data, tempdir};

const OP: &str = "instances-op-token";
/// Short, so that the test waits seconds: renewed every second.
const LEASE_S: &str = "3";

/// A `scil serve` child process; killed when dropped.
struct Instance {
    child: Child,
    api: Api,
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

async fn start(id: &str, db: &str, dir: &Path) -> Instance {
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_scil"))
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .env("DATABASE_URL", db)
        .env("SCIL_INSTANCE_ID", id)
        .env("SCIL_LEASE_S", LEASE_S)
        .env("SCIL_STORAGE_DIR", dir.join(id))
        .env(
            "SCIL_DATA",
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data")),
        )
        .env("SCIL_OPERATOR_TOKEN", OP)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("scil serve starts");
    let inst = Instance {
        child,
        api: Api::new(format!("http://127.0.0.1:{port}/api/v1"), OP),
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(r) = inst.api.http.get(inst.api.url("/health")).send().await {
            if r.status().is_success() {
                return inst;
            }
        }
        assert!(Instant::now() < deadline, "instance {id} did not come up");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// SIGTERM (graceful stop) and wait.
fn stop(mut i: Instance) {
    // SAFETY: signalling our own child process by its pid.
    unsafe {
        libc::kill(i.child.id() as i32, libc::SIGTERM);
    }
    let _ = i.child.wait();
}

async fn run(api: &Api, id: &str) -> Value {
    let (s, v) = api.get(&format!("/runs/{id}")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    v
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_share_one_postgres() {
    let Ok(db) = std::env::var("SCIL_TEST_POSTGRES_URL") else {
        eprintln!("skipped: SCIL_TEST_POSTGRES_URL not set");
        return;
    };
    let dir = tempdir("instances");
    // Uploads from before the database held files: a row naming a file in A's storage
    // directory and one in B's. Each instance moves its own when it starts, never the other's.
    let store = scil::store::Store::connect(&db).await.expect("store");
    let mut legacy = Vec::new();
    for inst in ["inst-a", "inst-b"] {
        let id = format!("legacy-{}", uuid::Uuid::new_v4().simple());
        let file = dir.join(inst).join("uploads").join("legacy.csv");
        std::fs::create_dir_all(file.parent().expect("dir")).expect("dir");
        std::fs::copy(data("replays/cpna75_30kmh.csv"), &file).expect("copy");
        store
            .upsert_replay(&scil::store::ReplayRow {
                id: id.clone(),
                name: "legacy.csv".into(),
                scenario_id: Some("cpna75_30kmh".into()),
                path: file.display().to_string(),
                bytes: std::fs::metadata(&file).expect("meta").len() as i64,
                row_count: 660,
                bundled: false,
                created_at: chrono::Utc::now(),
                kind: "csv".into(),
                sha256: None,
                columns: None,
                map_id: None,
            })
            .await
            .expect("legacy replay row");
        legacy.push((id, file));
    }
    let legacy_id = legacy[0].0.clone();
    let path_of = |id: String| {
        let store = &store;
        async move { store.get_replay(&id).await.expect("get").expect("row").path }
    };
    let a = start("inst-a", &db, &dir).await;
    let moved = path_of(legacy[0].0.clone()).await;
    assert!(moved.starts_with("db:"), "{moved}");
    assert_eq!(
        path_of(legacy[1].0.clone()).await,
        legacy[1].1.display().to_string()
    );
    assert!(legacy[1].1.is_file(), "A left B's file where it was");
    let (s, r1) = a
        .api
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh", "speed": 1.5, "start": true}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{r1}");
    let id1 = r1["id"].as_str().expect("id").to_string();
    assert_eq!(
        (r1["state"].as_str(), r1["instance"].as_str()),
        (Some("running"), Some("inst-a"))
    );

    // B starts while A's run runs: the run is untouched, listed with its instance.
    let b = start("inst-b", &db, &dir).await;
    let moved = path_of(legacy[1].0.clone()).await;
    assert!(moved.starts_with("db:"), "{moved}");
    assert_eq!(run(&a.api, &id1).await["state"], "running");
    let (s, list) = b.api.get("/runs?limit=1000").await;
    assert_eq!(s, StatusCode::OK);
    let listed = list
        .as_array()
        .and_then(|l| l.iter().find(|r| r["id"] == id1.as_str()))
        .cloned()
        .expect("B lists A's run");
    assert_eq!(
        (listed["state"].as_str(), listed["instance"].as_str()),
        (Some("running"), Some("inst-a"))
    );
    // Control requests for A's run through B: 409 naming A.
    for action in ["abort", "finish", "start", "arm"] {
        let (s, e) = b
            .api
            .post(&format!("/runs/{id1}/{action}"), json!({}))
            .await;
        assert_eq!(s, StatusCode::CONFLICT, "{action}: {e}");
        assert!(e.to_string().contains("instance 'inst-a'"), "{action}: {e}");
    }
    let (s, e) = b
        .api
        .send(
            reqwest::Method::PATCH,
            &format!("/runs/{id1}/parameters"),
            Some(OP),
            Some(json!({"ttc_offset_s": 0.1})),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert!(e.to_string().contains("inst-a"), "{e}");
    let (s, _) = b.api.get(&format!("/runs/{id1}/results")).await;
    assert_eq!(s, StatusCode::NOT_FOUND, "no results while it runs");
    let (s, inst) = b.api.get("/instances").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(inst["this"], "inst-b");
    let live: Vec<&str> = inst["instances"]
        .as_array()
        .expect("instances")
        .iter()
        .filter(|i| i["live"] == true)
        .filter_map(|i| i["id"].as_str())
        .collect();
    assert!(
        live.contains(&"inst-a") && live.contains(&"inst-b"),
        "{inst}"
    );

    // B restarts while A's run runs: still untouched.
    stop(b);
    let b = start("inst-b", &db, &dir).await;
    assert_eq!(run(&b.api, &id1).await["state"], "running");
    assert_eq!(run(&a.api, &id1).await["state"], "running");
    // Telemetry stored so far is readable through B while the run runs.
    let pq = b
        .api
        .http
        .get(b.api.url(&format!("/runs/{id1}/telemetry.parquet")))
        .send()
        .await
        .expect("export");
    assert_eq!(pq.status(), StatusCode::OK);

    // After: results and export of A's run through B.
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let r = run(&b.api, &id1).await;
        if r["state"] != "running" {
            assert_eq!(r["state"], "finished", "{r}");
            break;
        }
        assert!(Instant::now() < deadline, "run 1 did not finish");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let (s, res) = b.api.get(&format!("/runs/{id1}/results")).await;
    assert_eq!(s, StatusCode::OK, "{res}");
    assert_eq!(res["instance"], "inst-a");
    assert!(
        res["triggers"].as_array().is_some_and(|t| !t.is_empty()),
        "{res}"
    );
    let pq = b
        .api
        .http
        .get(b.api.url(&format!("/runs/{id1}/telemetry.parquet")))
        .send()
        .await
        .expect("export")
        .bytes()
        .await
        .expect("body");
    assert!(pq.len() > 1000 && pq.starts_with(b"PAR1") && pq.ends_with(b"PAR1"));
    let report = b
        .api
        .http
        .get(b.api.url(&format!("/reports?runs={id1}")))
        .send()
        .await
        .expect("report");
    assert_eq!(report.status(), StatusCode::OK);
    assert!(report.text().await.unwrap_or_default().contains(&id1));

    // A replay uploaded through A runs on B (recorded); the recording is exported through A.
    let form = reqwest::multipart::Form::new()
        .text("scenario_id", "cpna75_50kmh")
        .text("start", "false")
        .part(
            "file",
            reqwest::multipart::Part::bytes(
                std::fs::read(data("replays/cpna75_50kmh.csv")).expect("csv"),
            )
            .file_name("track_a_50.csv"),
        );
    let up = a
        .api
        .http
        .post(a.api.url("/replays"))
        .bearer_auth(OP)
        .multipart(form)
        .send()
        .await
        .expect("upload");
    assert_eq!(up.status(), StatusCode::CREATED);
    let up: Value = up.json().await.expect("json");
    let uploaded = up["replay_id"].as_str().expect("replay id").to_string();
    let mut ttc = Vec::new();
    for replay in [uploaded.as_str(), "cpna75_50kmh", legacy_id.as_str()] {
        let scenario = if replay == legacy_id {
            "cpna75_30kmh"
        } else {
            "cpna75_50kmh"
        };
        let (s, r) = b
            .api
            .post(
                "/runs",
                json!({"scenario_id": scenario, "replay": replay, "speed": "max", "start": true, "record": true}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{replay}: {r}");
        let id = r["id"].as_str().expect("id").to_string();
        let done = b.api.wait_terminal(&id, Duration::from_secs(60)).await;
        assert_eq!(done["state"], "finished", "{replay} on B: {done}");
        assert_eq!(done["instance"], "inst-b");
        let (s, res) = b.api.get(&format!("/runs/{id}/results")).await;
        assert_eq!(s, StatusCode::OK);
        ttc.push(res["triggers"][0]["ttc_s"].as_f64().expect("trigger"));
        if replay == uploaded {
            let get = |api: &Api| {
                api.http
                    .get(api.url(&format!("/runs/{id}/export.mcap")))
                    .send()
            };
            let on_b = get(&b.api).await.expect("mcap").bytes().await.expect("b");
            let on_a = get(&a.api).await.expect("mcap");
            assert_eq!(on_a.status(), StatusCode::OK);
            let on_a = on_a.bytes().await.expect("a");
            assert!(on_b.starts_with(b"\x89MCAP0\r\n"), "an MCAP file");
            assert_eq!(on_a, on_b, "A serves B's recording byte for byte");
        }
    }
    // The uploaded bytes are the bundled file's: the same trigger.
    assert_eq!(ttc[0], ttc[1]);

    // A second run on A; A is killed. B fails it once A's lease has expired, not before.
    let (s, r2) = a
        .api
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh", "speed": 0.3, "start": true}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{r2}");
    let id2 = r2["id"].as_str().expect("id").to_string();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut a = a;
    a.child.kill().expect("SIGKILL A");
    let _ = a.child.wait();
    let (_, inst) = b.api.get("/instances").await;
    let lease_a = inst["instances"]
        .as_array()
        .and_then(|l| l.iter().find(|i| i["id"] == "inst-a"))
        .and_then(|i| i["lease_until_ms"].as_i64())
        .expect("A's lease");
    assert!(
        lease_a > now_ms(),
        "A's lease is still live right after the kill"
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut seen_running = 0;
    let failed = loop {
        let r = run(&b.api, &id2).await;
        let after = now_ms();
        match r["state"].as_str() {
            Some("running") => {
                seen_running += 1;
            }
            Some("failed") => {
                // B decided after A's lease ran out.
                assert!(
                    after >= lease_a,
                    "failed {} ms before A's lease expired",
                    lease_a - after
                );
                break r;
            }
            other => panic!("unexpected state {other:?}: {r}"),
        }
        if after < lease_a {
            assert_eq!(r["state"], "running", "touched while A's lease was live");
        }
        assert!(Instant::now() < deadline, "B never failed A's run");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(seen_running > 0, "the run was seen running after the kill");
    let err = failed["error"].as_str().unwrap_or_default();
    assert!(err.contains("inst-a") && err.contains("lease"), "{err}");
    let finished: chrono::DateTime<chrono::Utc> =
        serde_json::from_value(failed["finished_at"].clone()).expect("finished_at");
    assert!(finished.timestamp_millis() >= lease_a);
    // Run 1 (finished) is untouched by the sweep.
    assert_eq!(run(&b.api, &id1).await["state"], "finished");
    drop(b);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The run list pages by key: following `x-next-cursor` visits every run once, newest first,
/// also across runs created in the same instant (the id breaks the tie).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_list_pages_by_key() {
    let dir = tempdir("pages");
    let (srv, base) = support::service::spawn(&dir, OP).await;
    let t0 = chrono::Utc::now();
    for i in 0..250i64 {
        // Five runs per instant.
        let at = t0 - chrono::Duration::milliseconds(i / 5);
        srv.state
            .store
            .insert_run(&scil::store::RunRow {
                id: format!("run-page-{i:04}"),
                state: "finished".into(),
                scenario_id: "cpna75_30kmh".into(),
                map_id: None,
                source: "{}".into(),
                speed: None,
                error: None,
                abort: None,
                created_at: at,
                armed_at: None,
                started_at: None,
                finished_at: Some(at),
                instance: Some("elsewhere".into()),
                track: Some("main".into()),
                demo: false,
            })
            .await
            .expect("insert");
    }
    let http = reqwest::Client::new();
    let mut seen: Vec<String> = Vec::new();
    let mut url = format!("{base}/runs?limit=100");
    loop {
        let r = http.get(&url).send().await.expect("list");
        assert_eq!(r.status(), StatusCode::OK);
        let next = r
            .headers()
            .get("x-next-cursor")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let page: Vec<Value> = r.json().await.expect("json");
        assert!(page.len() <= 100);
        seen.extend(
            page.iter()
                .filter_map(|r| r["id"].as_str().map(str::to_string)),
        );
        match next {
            Some(c) => url = format!("{base}/runs?limit=100&cursor={c}"),
            None => break,
        }
    }
    let all: Vec<String> = (0..250).map(|i| format!("run-page-{i:04}")).collect();
    let mut want = all.clone();
    // Newest first; within an instant the greater id first.
    want.sort_by_key(|id| {
        let i: i64 = id[9..].parse().expect("n");
        (i / 5, std::cmp::Reverse(id.clone()))
    });
    assert_eq!(seen, want);
    let r = http
        .get(format!("{base}/runs?cursor=nonsense"))
        .send()
        .await
        .expect("list");
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let _ = std::fs::remove_dir_all(&dir);
}

/// At startup an instance fails its own unfinished runs, runs without an owner and runs whose
/// owner's lease has expired; a run of an instance with a live lease is left alone (SQLite:
/// the same rules as on a shared PostgreSQL).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn startup_fails_only_own_and_expired_runs() {
    let dir = tempdir("startup");
    let url = format!("sqlite://{}?mode=rwc", dir.join("scil.db").display());
    let store = scil::store::Store::connect(&url).await.expect("store");
    let now = chrono::Utc::now();
    let row = |id: &str, instance: Option<&str>| scil::store::RunRow {
        id: id.into(),
        state: "running".into(),
        scenario_id: "cpna75_30kmh".into(),
        map_id: None,
        source: "{}".into(),
        speed: None,
        error: None,
        abort: None,
        created_at: now,
        armed_at: Some(now),
        started_at: Some(now),
        finished_at: None,
        instance: instance.map(str::to_string),
        track: Some("main".into()),
        demo: false,
    };
    let runs = [
        row("run-own", Some("me")),
        row("run-legacy", None),
        row("run-expired", Some("gone")),
        row("run-live", Some("alive")),
    ];
    store.insert_runs(&runs).await.expect("runs");
    let ms = now.timestamp_millis();
    for (id, until) in [("gone", ms - 1000), ("alive", ms + 600_000)] {
        store
            .put_instance(&scil::store::InstanceRow {
                id: id.into(),
                host: "elsewhere".into(),
                pid: 1,
                started_ms: ms - 60_000,
                heartbeat_ms: until - 15_000,
                lease_until_ms: until,
            })
            .await
            .expect("lease");
    }
    store.close().await;
    let mut config = scil::serve::Config {
        bind: "127.0.0.1:0".into(),
        database_url: url,
        storage_dir: dir.join("storage"),
        data_dir: Some(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data"))),
        instance_id: Some("me".into()),
        ..scil::serve::Config::default()
    };
    config.auth.operator_tokens = vec![OP.into()];
    let srv = scil::serve::spawn(config).await.expect("starts");
    let api = Api::new(format!("http://{}/api/v1", srv.addr), OP);
    for (id, state, why) in [
        ("run-own", "failed", "instance me restarted"),
        ("run-legacy", "failed", "service restarted"),
        (
            "run-expired",
            "failed",
            "instance gone stopped renewing its lease",
        ),
        ("run-live", "running", ""),
    ] {
        let r = run(&api, id).await;
        assert_eq!(r["state"], state, "{id}: {r}");
        assert!(
            r["error"].as_str().unwrap_or_default().contains(why),
            "{id}: {r}"
        );
    }
    // The live instance's run is controlled there.
    let (s, e) = api.post("/runs/run-live/abort", json!({})).await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert!(e.to_string().contains("instance 'alive'"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `scil serve` with `env` added (an id, a take-over): the child and its port, or its exit
/// status and stderr when it stops before it answers.
async fn try_start(
    id: Option<&str>,
    db: &str,
    dir: &Path,
    env: &[(&str, &str)],
) -> Result<Instance, String> {
    let port = free_port();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_scil"));
    cmd.args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .env("DATABASE_URL", db)
        .env_remove("SCIL_INSTANCE_ID")
        .env_remove("SCIL_TAKE_OVER_INSTANCE")
        .env("SCIL_LEASE_S", LEASE_S)
        .env("SCIL_STORAGE_DIR", dir.join(format!("storage-{port}")))
        .env(
            "SCIL_DATA",
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data")),
        )
        .env("SCIL_OPERATOR_TOKEN", OP)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(id) = id {
        cmd.env("SCIL_INSTANCE_ID", id);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("scil serve starts");
    let api = Api::new(format!("http://127.0.0.1:{port}/api/v1"), OP);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                use std::io::Read;
                let _ = e.read_to_string(&mut err);
            }
            return Err(format!("{status}: {err}"));
        }
        if let Ok(r) = api.http.get(api.url("/health")).send().await {
            if r.status().is_success() {
                // Its log from here on is drained (and dropped) by a thread of its own.
                if let Some(mut e) = child.stderr.take() {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut e, &mut std::io::sink());
                    });
                }
                return Ok(Instance { child, api });
            }
        }
        assert!(Instant::now() < deadline, "scil serve did not come up");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// One instance id, two processes on one database: the second is refused (naming the host,
/// pid and lease expiry of the holder) and the first's running run is untouched; with the
/// take-over the second starts, fails the first's run (its own id's, left behind) and the first
/// stops renewing the lease. With `default_ids`: without an id, two instances on one host get
/// distinct defaults.
async fn one_id_two_processes(db: &str, dir: &Path, default_ids: bool) {
    let id = format!("dup-{}", uuid::Uuid::new_v4().simple());
    let a = try_start(Some(&id), db, dir, &[]).await.expect("A starts");
    let (s, r) = a
        .api
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "source": {"kind": "sim_vut", "vut_speed_kmh": 30}, "speed": 1, "start": true}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{r}");
    let run_id = r["id"].as_str().expect("id").to_string();
    let a_pid = a.child.id();
    let err = match try_start(Some(&id), db, dir, &[]).await {
        Ok(_) => panic!("a second process with a live id started"),
        Err(e) => e,
    };
    assert!(
        err.contains(&format!("instance id '{id}' is in use"))
            && err.contains(&format!("pid {a_pid}"))
            && err.contains("host ")
            && err.contains("lease until 20"),
        "{err}"
    );
    assert!(err.contains("--take-over-instance"), "{err}");
    assert_eq!(run(&a.api, &run_id).await["state"], "running");
    // The explicit take-over.
    let b = try_start(Some(&id), db, dir, &[("SCIL_TAKE_OVER_INSTANCE", "1")])
        .await
        .expect("B takes over");
    let r = run(&b.api, &run_id).await;
    assert_eq!(r["state"], "failed", "{r}");
    let (_, inst) = b.api.get("/instances").await;
    let me = inst["instances"]
        .as_array()
        .expect("list")
        .iter()
        .find(|i| i["id"] == id.as_str())
        .expect("lease")
        .clone();
    assert_eq!(me["pid"], json!(b.child.id()), "{inst}");
    // A notices within a third of the lease and leaves it to B.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (_, inst) = b.api.get("/instances").await;
    assert!(
        inst.to_string()
            .contains(&format!("\"pid\":{}", b.child.id())),
        "{inst}"
    );
    stop(a);
    stop(b);
    if !default_ids {
        return;
    }
    // Default ids: the host name and the port, distinct for two instances on one host.
    let c = try_start(None, db, dir, &[]).await.expect("C starts");
    let d = try_start(None, db, dir, &[]).await.expect("D starts");
    let (_, ci) = c.api.get("/instances").await;
    let (_, di) = d.api.get("/instances").await;
    let (cid, did) = (
        ci["this"].as_str().expect("id"),
        di["this"].as_str().expect("id"),
    );
    assert_ne!(cid, did);
    let port = |api: &Api| {
        api.url("")
            .split(':')
            .nth(2)
            .unwrap_or("")
            .split('/')
            .next()
            .unwrap_or("")
            .to_string()
    };
    assert!(cid.ends_with(&format!("-{}", port(&c.api))), "{cid}");
    assert!(did.ends_with(&format!("-{}", port(&d.api))), "{did}");
    stop(c);
    stop(d);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_instance_id_is_held_by_one_process_sqlite() {
    let dir = tempdir("dup-id");
    let db = format!("sqlite://{}?mode=rwc", dir.join("scil.db").display());
    one_id_two_processes(&db, &dir, true).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_instance_id_is_held_by_one_process_postgres() {
    let Ok(db) = std::env::var("SCIL_TEST_POSTGRES_URL") else {
        eprintln!("skipped: SCIL_TEST_POSTGRES_URL not set");
        return;
    };
    let dir = tempdir("dup-id-pg");
    // Not the default ids here: the shared test database holds the leases of this test
    // binary's in-process servers (this live pid, ids `<host>-<port>`), and a child bound to a
    // port one of them used is refused (its holder process is alive). The defaults do not depend on the backend.
    one_id_two_processes(&db, &dir, false).await;
    let _ = std::fs::remove_dir_all(&dir);
}
