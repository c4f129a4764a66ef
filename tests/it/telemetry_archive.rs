//! Finished runs' telemetry in columnar chunks, on SQLite and (when SCIL_TEST_POSTGRES_URL is
//! set) PostgreSQL: the bundled replays run through the service are compacted at their end;
//! put back into rows (a database from before chunks) every read is the same; a restart
//! compacts them again and `GET /runs/{id}/telemetry` (JSON and CSV) answers the same bytes,
//! the records still verify (also offline with `scil verify`), reading is faster (printed), the
//! chunks take at most 20 bytes a sample on disk (SQLite, measured on the file); a `kill -9`
//! in the middle of `scil db compact` loses nothing; retention drops old runs' telemetry,
//! audited, and their records still verify.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{json, Value};

use scil::serve::{self, Config};
use scil::store::{Db, Store};

use crate::support::http::Api;
use crate::support::tempdir;

const TOKEN: &str = "tok-archive-3e1";

/// (replay, scenario) of each run: every bundled replay.
const RUNS: [(&str, &str); 5] = [
    ("cpna75_10kmh", "cpna75_10kmh"),
    ("cpna75_30kmh", "cpna75_30kmh"),
    ("cpna75_30kmh_wgs84", "cpna75_30kmh"),
    ("cpna75_50kmh", "cpna75_50kmh"),
    ("lap_50kmh", "cpna75_50kmh"),
];

fn config(db_url: &str, storage: PathBuf) -> Config {
    let mut c = Config {
        bind: "127.0.0.1:0".into(),
        database_url: db_url.into(),
        storage_dir: storage,
        data_dir: Some(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data"))),
        ..Config::default()
    };
    c.apply_env(|k| (k == "SCIL_OPERATOR_TOKEN").then(|| TOKEN.to_string()));
    c.validate().expect("config");
    c
}

/// Rows of `run` in the telemetry table itself (not through the reader).
async fn table_rows(store: &Store, run: &str) -> i64 {
    let q = "SELECT COUNT(*) FROM telemetry WHERE run_id = $1";
    match &store.db {
        Db::Sqlite(p) => sqlx::query_scalar(q).bind(run).fetch_one(p).await,
        Db::Postgres(p) => sqlx::query_scalar(q).bind(run).fetch_one(p).await,
    }
    .expect("count")
}

async fn text(api: &Api, p: &str) -> String {
    let r = api.http.get(api.url(p)).send().await.expect("GET");
    assert_eq!(r.status(), StatusCode::OK, "{p}");
    r.text().await.expect("body")
}

/// The run's telemetry as JSON and CSV, exactly as answered, and its record's verdict.
async fn reads(api: &Api, id: &str) -> (String, String) {
    let (s, v) = api.get(&format!("/runs/{id}/verify")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["sealed"], true, "{v}");
    (
        text(api, &format!("/runs/{id}/telemetry")).await,
        text(api, &format!("/runs/{id}/telemetry?format=csv")).await,
    )
}

/// Puts a compacted run back into rows, as a database from before chunks holds it.
async fn back_to_rows(store: &Store, id: &str) -> usize {
    let rows = store.run_telemetry(id).await.expect("read");
    store.delete_telemetry(id).await.expect("delete");
    store.insert_telemetry(&rows).await.expect("insert");
    assert!(store.archive_info(id).await.unwrap().is_none());
    assert_eq!(table_rows(store, id).await, rows.len() as i64);
    rows.len()
}

/// Median time of reading a run's whole telemetry.
async fn read_time(store: &Store, id: &str) -> Duration {
    let mut t = Vec::new();
    for _ in 0..15 {
        let t0 = Instant::now();
        let rows = store.telemetry(id, None, None, 5_000_000).await.unwrap();
        t.push(t0.elapsed());
        assert!(!rows.is_empty());
    }
    t.sort();
    t[t.len() / 2]
}

async fn start_run(api: &Api, replay: &str, scenario: &str) -> String {
    let (s, run) = api
        .post(
            "/runs",
            json!({"scenario_id": scenario, "replay": replay, "speed": "max"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    let id = run["id"].as_str().expect("id").to_string();
    for step in ["arm", "start"] {
        let (s, v) = api.post_empty(&format!("/runs/{id}/{step}")).await;
        assert_eq!(s, StatusCode::OK, "{step}: {v}");
    }
    api.wait_terminal(&id, Duration::from_secs(120)).await;
    id
}

async fn suite(db_url: String, on_disk: bool) {
    let dir = tempdir("archive");
    let server = serve::spawn(config(&db_url, dir.join("storage")))
        .await
        .expect("server");
    let api = Api::new(format!("http://{}/api/v1", server.addr), TOKEN);
    let mut ids = Vec::new();
    for (replay, scenario) in RUNS {
        ids.push(start_run(&api, replay, scenario).await);
    }
    let store = server.state.store.clone();
    // Compacted at the run's end: no rows left.
    let mut before = Vec::new();
    let mut samples = 0usize;
    let (mut t_rows, mut t_chunks) = (Duration::ZERO, Duration::ZERO);
    for id in &ids {
        crate::support::archive::wait_compacted(&store, id).await;
        assert_eq!(table_rows(&store, id).await, 0);
        let a = reads(&api, id).await;
        t_chunks += read_time(&store, id).await;
        // Back to rows (an old database): the same bytes.
        samples += back_to_rows(&store, id).await;
        let b = reads(&api, id).await;
        assert!(a.0 == b.0, "run {id}: JSON differs between chunks and rows");
        assert!(a.1 == b.1, "run {id}: CSV differs between chunks and rows");
        t_rows += read_time(&store, id).await;
        before.push(b);
    }
    assert!(samples > 4000, "{samples} samples");
    server.task.abort();
    store.close().await;

    // The upgrade: a restart compacts what it finds in rows.
    let server = serve::spawn(config(&db_url, dir.join("storage")))
        .await
        .expect("server");
    let api = Api::new(format!("http://{}/api/v1", server.addr), TOKEN);
    let store = server.state.store.clone();
    for (id, b) in ids.iter().zip(&before) {
        crate::support::archive::wait_compacted(&store, id).await;
        assert_eq!(table_rows(&store, id).await, 0);
        let c = reads(&api, id).await;
        assert!(c.0 == b.0, "run {id}: JSON differs after the upgrade");
        assert!(c.1 == b.1, "run {id}: CSV differs after the upgrade");
    }
    let (mut t_after, mut t_decode) = (Duration::ZERO, Duration::ZERO);
    for id in &ids {
        t_after += read_time(&store, id).await;
        let blob = scil::store::telemetry_archive::blob_id(id);
        let data = store.blob_chunk(&blob, 0).await.unwrap().expect("chunk");
        let t0 = Instant::now();
        let rows = scil::store::telemetry_codec::decode_run(id, &data).unwrap();
        t_decode += t0.elapsed();
        assert_eq!(rows.len() as i64, store.telemetry_count(id).await.unwrap());
    }
    println!(
        "{}: reading {samples} samples of {} runs: rows {:.2} ms, chunks {:.2} ms (×{:.1} faster; \
         after the upgrade {:.2} ms, of which decoding {:.2} ms)",
        store.backend(),
        ids.len(),
        t_rows.as_secs_f64() * 1e3,
        t_chunks.as_secs_f64() * 1e3,
        t_rows.as_secs_f64() / t_chunks.as_secs_f64().max(1e-9),
        t_after.as_secs_f64() * 1e3,
        t_decode.as_secs_f64() * 1e3,
    );

    // The record with its telemetry, checked offline.
    let record = text(
        &api,
        &format!("/runs/{}/record.json?telemetry=true", ids[1]),
    )
    .await;
    let file = dir.join("record.json");
    std::fs::write(&file, &record).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_scil"))
        .args(["verify", file.to_str().unwrap()])
        .output()
        .unwrap();
    let verdict: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert!(out.status.success(), "{verdict}");
    assert_eq!(verdict["telemetry_checked"], true);

    // Bytes a sample on disk: the file with the chunks against the same without them (both
    // vacuumed: every page the chunks, the blob store and the archive's index take).
    if on_disk {
        let bytes = crate::support::archive::sqlite_bytes(&store, &ids, &dir).await;
        let per = bytes as f64 / samples as f64;
        println!("sqlite: {samples} samples take {bytes} bytes on disk: {per:.2} bytes a sample");
        assert!(per <= 20.0, "{per:.2} bytes a sample");
    }

    // Retention: runs finished before the second one ended lose their telemetry (the first);
    // audited; every record still verifies.
    let old = &ids[0];
    let cut = store
        .get_run(&ids[1])
        .await
        .unwrap()
        .and_then(|r| r.finished_at)
        .expect("finished_at");
    let pruned = scil::cli::db::prune_audited(&store, cut, "test", "scil db prune")
        .await
        .unwrap();
    assert_eq!(&pruned, &ids[..1], "{pruned:?}");
    assert_eq!(store.telemetry_count(old).await.unwrap(), 0);
    assert!(store.telemetry_pruned(old).await.unwrap().is_some());
    let (s, v) = api.get(&format!("/runs/{old}/verify")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["ok"], true, "{v}");
    for (id, b) in ids[1..].iter().zip(&before[1..]) {
        assert!(reads(&api, id).await == *b, "run {id} changed by the prune");
    }
    let (_, audit) = api
        .send(reqwest::Method::GET, "/audit?who=test", Some(TOKEN), None)
        .await;
    assert!(audit.to_string().contains("prune telemetry"), "{audit}");
    server.task.abort();
    store.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_runs_are_compacted_losslessly_on_sqlite() {
    let dir = tempdir("archive-db");
    suite(format!("sqlite://{}", dir.join("scil.db").display()), true).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_runs_are_compacted_losslessly_on_postgres() {
    let Ok(url) = std::env::var("SCIL_TEST_POSTGRES_URL") else {
        eprintln!("skipped: SCIL_TEST_POSTGRES_URL not set");
        return;
    };
    // A schema of its own: the prune drops every run's telemetry before a date, and the
    // database is shared with other tests.
    let admin = sqlx::PgPool::connect(&url).await.expect("postgres");
    let schema = format!(
        "scil_test_archive_{}",
        &uuid::Uuid::new_v4().simple().to_string()[..12]
    );
    sqlx::query(&format!("CREATE SCHEMA {schema}"))
        .execute(&admin)
        .await
        .unwrap();
    let sep = if url.contains('?') { '&' } else { '?' };
    suite(format!("{url}{sep}options=-csearch_path%3D{schema}"), false).await;
    let _ = sqlx::query(&format!("DROP SCHEMA {schema} CASCADE"))
        .execute(&admin)
        .await;
}

/// `kill -9` of `scil db compact` while a run's chunks are written but its rows not yet
/// deleted: after the restart no sample is lost, the run compacts, and its record verifies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_during_compaction_loses_nothing() {
    let dir = tempdir("archive-kill");
    let url = format!("sqlite://{}", dir.join("scil.db").display());
    let server = serve::spawn(config(&url, dir.join("storage")))
        .await
        .expect("server");
    let api = Api::new(format!("http://{}/api/v1", server.addr), TOKEN);
    let id = start_run(&api, "cpna75_30kmh", "cpna75_30kmh").await;
    let store = server.state.store.clone();
    crate::support::archive::wait_compacted(&store, &id).await;
    let n = back_to_rows(&store, &id).await;
    let rows = store.run_telemetry(&id).await.unwrap();
    server.task.abort();
    store.close().await;

    let scil = env!("CARGO_BIN_EXE_scil");
    let mut child = std::process::Command::new(scil)
        .args(["db", "compact", "--database-url", &url])
        .env("SCIL_COMPACT_PAUSE_MS", "60000")
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("scil db compact");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if line.contains("chunks written, pausing") {
                let _ = tx.send(());
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("the compaction did not reach its pause");
    child.kill().expect("kill -9"); // SIGKILL
    child.wait().unwrap();

    let store = Store::connect(&url).await.unwrap();
    assert_eq!(table_rows(&store, &id).await, n as i64, "rows lost");
    assert!(store.archive_info(&id).await.unwrap().is_none());
    assert_eq!(store.run_telemetry(&id).await.unwrap(), rows);
    store.close().await;

    // `scil db compact` again, then the service: the record verifies.
    let out = std::process::Command::new(scil)
        .args(["db", "compact", "--database-url", &url])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let server = serve::spawn(config(&url, dir.join("storage")))
        .await
        .expect("server");
    let api = Api::new(format!("http://{}/api/v1", server.addr), TOKEN);
    let store = server.state.store.clone();
    assert!(store.archive_info(&id).await.unwrap().is_some());
    assert_eq!(table_rows(&store, &id).await, 0);
    assert_eq!(store.run_telemetry(&id).await.unwrap(), rows);
    reads(&api, &id).await;
    server.task.abort();
    store.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}
