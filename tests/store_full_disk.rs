//! The telemetry writer on a real full disk: a 2 MB tmpfs filled while rows keep
//! coming, then freed. Every held row is written after recovery, events are stored once, a
//! bounded buffer turns an overflow into a stored `telemetry_lost` event. PostgreSQL: the server
//! stopped and restarted mid-write (when SCIL_TEST_POSTGRES_URL is set). With a spill directory on
//! another volume the rows beyond the buffer go there and come back; a spill file left by a
//! previous process is written back at startup, its torn tail reported.
//!
//! Needs root for `mount -t tmpfs` (CI runs as root); otherwise the tmpfs tests print why they
//! skip.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use scil::store::writer::{Writer, WriterConfig};
use scil::store::{NewEvent, Store, TelemetryRow};

struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(tag: &str) -> Result<Tmpfs, String> {
        Tmpfs::mount_sized(tag, "2m")
    }

    fn mount_sized(tag: &str, size: &str) -> Result<Tmpfs, String> {
        if unsafe_euid() != 0 {
            return Err("not root: cannot mount a tmpfs".into());
        }
        let dir = std::env::temp_dir().join(format!("scil-full-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .output()
            .map_err(|e| format!("mount: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount -t tmpfs failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Tmpfs(dir))
    }

    /// Grows (or shrinks) the mounted volume: space given back to a full disk.
    fn resize(&self, size: &str) {
        let out = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.0)
            .output()
            .expect("mount -o remount");
        assert!(
            out.status.success(),
            "remount: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        // Lazy: a failed test may still hold the database open.
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

fn unsafe_euid() -> u32 {
    // The effective uid from /proc (no libc call needed in a test).
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(str::to_string))
        })
        .and_then(|u| u.parse().ok())
        .unwrap_or(u32::MAX)
}

/// Fills the file system holding `dir` until ENOSPC; returns the filler's path.
fn fill(dir: &Path) -> PathBuf {
    let p = dir.join("filler");
    let mut f = std::fs::File::create(&p).expect("filler");
    let chunk = vec![0xA5u8; 16 << 10];
    while f.write_all(&chunk).is_ok() {}
    let _ = f.write_all(&[0u8; 512]);
    let _ = f.sync_all();
    p
}

fn row(run: &str, seq: i64) -> TelemetryRow {
    TelemetryRow {
        run_id: run.into(),
        seq,
        t: seq as f64 * 0.01,
        vehicle: "vut".into(),
        kind: "vut".into(),
        x: seq as f64 * 0.08,
        y: -1.75,
        yaw: 0.0,
        speed_mps: 8.3,
        steering_wheel_deg: Some(0.1),
        brake_light: Some(false),
        road_id: Some("1".into()),
        lane_id: Some(-1),
        road_s: Some(seq as f64 * 0.08),
        road_t: Some(0.0),
        wheel_speed_mps: None,
    }
}

fn event(run: &str, n: u32) -> NewEvent {
    NewEvent {
        run_id: Some(run.into()),
        t: Some(n as f64),
        kind: "test_event".into(),
        payload: format!("{{\"event\":\"test_event\",\"n\":{n}}}"),
        created_at: chrono::Utc::now(),
    }
}

async fn count_kind(store: &Store, run: &str, kind: &str) -> usize {
    store
        .list_events(run, 0, 1_000_000)
        .await
        .expect("events")
        .iter()
        .filter(|e| e.kind == kind)
        .count()
}

async fn all_events(store: &Store) -> Vec<(Option<String>, String, String)> {
    let rows: Vec<(Option<String>, String, String)> = match &store.db {
        scil::store::Db::Sqlite(p) => sqlx::query_as("SELECT run_id, kind, payload FROM events")
            .fetch_all(p)
            .await
            .expect("events"),
        scil::store::Db::Postgres(p) => sqlx::query_as("SELECT run_id, kind, payload FROM events")
            .fetch_all(p)
            .await
            .expect("events"),
    };
    rows
}

/// Sends rows at ~2 kHz (a replay at speed 2 of a 100 Hz run plus its target rows) for `dur`,
/// one event every 100 rows. Returns (rows, events) sent.
async fn stream(w: &Writer, run: &str, seq: &mut i64, ev: &mut u32, dur: Duration) -> (i64, u32) {
    let start = Instant::now();
    let (s0, e0) = (*seq, *ev);
    while start.elapsed() < dur {
        for _ in 0..20 {
            assert!(w.send_telemetry_wait(row(run, *seq)).await);
            if *seq % 100 == 0 {
                assert!(w.send_event(event(run, *ev)));
                *ev += 1;
            }
            *seq += 1;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    (*seq - s0, *ev - e0)
}

fn small_batches(max_buffer_rows: usize) -> WriterConfig {
    WriterConfig {
        channel: 100_000,
        batch_rows: 200,
        max_delay: Duration::from_millis(20),
        max_buffer_rows,
        spill_dir: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_on_a_full_disk_recovers_and_writes_every_held_row() {
    let fs = match Tmpfs::mount("recover") {
        Ok(fs) => fs,
        Err(why) => {
            println!("skip: {why}");
            return;
        }
    };
    let url = format!("sqlite://{}", fs.0.join("scil.db").display());
    let store = Store::connect(&url).await.expect("store");
    let w = Writer::spawn(store.clone(), small_batches(1_000_000), None);
    let run = "full-disk-run";
    let (mut seq, mut ev) = (0i64, 0u32);
    stream(&w, run, &mut seq, &mut ev, Duration::from_millis(300)).await;
    assert!(
        w.flush(Duration::from_secs(10)).await,
        "writes before the disk fills"
    );

    let filler = fill(&fs.0);
    let errors0 = w.stats.errors.load(Ordering::Relaxed);
    let mut held_max = 0u64;
    let t_full = Instant::now();
    while t_full.elapsed() < Duration::from_millis(1500) {
        stream(&w, run, &mut seq, &mut ev, Duration::from_millis(100)).await;
        held_max = held_max.max(w.stats.buffered.load(Ordering::Relaxed));
    }
    let errors = w.stats.errors.load(Ordering::Relaxed) - errors0;
    assert!(errors > 0, "the disk was not full: no write failed");
    let written_before_free = w.stats.rows_written.load(Ordering::Relaxed);
    std::fs::remove_file(&filler).expect("free the disk");
    let t_free = Instant::now();
    stream(&w, run, &mut seq, &mut ev, Duration::from_millis(300)).await;
    assert!(
        w.flush(Duration::from_secs(30)).await,
        "writer did not recover within 30 s of the space coming back: {:?}",
        w.stats.last_error.lock().map(|e| e.clone())
    );
    let recovered_s = t_free.elapsed().as_secs_f64();
    let stored = store.telemetry_count(run).await.expect("count");
    let written_after = w.stats.rows_written.load(Ordering::Relaxed) - written_before_free;
    println!(
        "full disk: {errors} failed writes, {held_max} rows held at most, {written_after} rows \
         written after the space came back (flushed {recovered_s:.2} s after), stored {stored} of \
         {seq} sent, lost {}",
        w.lost_rows()
    );
    assert_eq!(stored, seq, "every row stored");
    assert_eq!(w.lost_rows(), 0);
    // Events exactly once each.
    let evs = all_events(&store).await;
    let mut seen = std::collections::HashSet::new();
    for (_, kind, payload) in evs.iter().filter(|e| e.1 == "test_event") {
        assert!(
            seen.insert(payload.clone()),
            "{kind} stored twice: {payload}"
        );
    }
    assert_eq!(seen.len() as u32, ev, "every event stored");
    assert_eq!(
        evs.iter().filter(|e| e.1 == "store_error").count(),
        1,
        "one outage event"
    );
    assert_eq!(evs.iter().filter(|e| e.1 == "store_recovered").count(), 1);
    store.close().await;

    // Durable: a fresh connection sees the same.
    let again = Store::connect(&url).await.expect("reopen");
    assert_eq!(again.telemetry_count(run).await.expect("count"), seq);
    again.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overflow_is_a_stored_telemetry_lost_event() {
    let fs = match Tmpfs::mount("overflow") {
        Ok(fs) => fs,
        Err(why) => {
            println!("skip: {why}");
            return;
        }
    };
    let url = format!("sqlite://{}", fs.0.join("scil.db").display());
    let store = Store::connect(&url).await.expect("store");
    let w = Writer::spawn(store.clone(), small_batches(500), None);
    let run = "overflow-run";
    let (mut seq, mut ev) = (0i64, 0u32);
    let filler = fill(&fs.0);
    stream(&w, run, &mut seq, &mut ev, Duration::from_millis(800)).await;
    assert!(
        w.stats.errors.load(Ordering::Relaxed) > 0,
        "the disk was not full"
    );
    std::fs::remove_file(&filler).expect("free");
    assert!(w.flush(Duration::from_secs(30)).await, "recovers");
    let stored = store.telemetry_count(run).await.expect("count");
    let lost = w.lost_rows() as i64;
    println!("overflow: sent {seq}, stored {stored}, lost {lost} (buffer 500 rows)");
    assert!(lost > 0, "the buffer never overflowed");
    assert_eq!(
        stored + lost,
        seq,
        "every row either stored or counted lost"
    );
    assert_eq!(count_kind(&store, run, "test_event").await as u32, ev);
    let lost_events: Vec<serde_json::Value> = all_events(&store)
        .await
        .into_iter()
        .filter(|e| e.1 == "telemetry_lost")
        .map(|e| serde_json::from_str(&e.2).expect("JSON payload"))
        .collect();
    let counted: i64 = lost_events
        .iter()
        .map(|v| v["rows"].as_i64().unwrap_or(0))
        .sum();
    assert_eq!(counted, lost, "telemetry_lost events: {lost_events:?}");
    assert!(lost_events.iter().all(|v| v["run_id"] == run));
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_restarted_mid_write_loses_nothing() {
    let Ok(url) = std::env::var("SCIL_TEST_POSTGRES_URL") else {
        println!("skip: SCIL_TEST_POSTGRES_URL not set");
        return;
    };
    // The cluster to stop and start: SCIL_TEST_PG_CLUSTER="VERSION NAME", else the first
    // version under /etc/postgresql and cluster "main" (what .ci/run starts).
    let cluster = std::env::var("SCIL_TEST_PG_CLUSTER").ok().or_else(|| {
        std::fs::read_dir("/etc/postgresql")
            .ok()
            .and_then(|mut d| d.next())
            .and_then(|e| e.ok())
            .map(|e| format!("{} main", e.file_name().to_string_lossy()))
    });
    let Some((version, name)) = cluster
        .as_deref()
        .and_then(|c| c.split_once(' '))
        .map(|(v, n)| (v.to_string(), n.to_string()))
    else {
        println!("skip: no local PostgreSQL cluster to stop and start (SCIL_TEST_PG_CLUSTER)");
        return;
    };
    let ctl = |what: &str| {
        let ok = Command::new("pg_ctlcluster")
            .args(["--skip-systemctl-redirect", &version, &name, what])
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(ok, "pg_ctlcluster {version} {name} {what}");
    };
    let store = Store::connect(&url).await.expect("store");
    let w = Writer::spawn(store.clone(), small_batches(1_000_000), None);
    // Unique across test runs: the test database outlives them, and a process id comes
    // back (a run of the same id would already hold these rows).
    let run = format!("pg-restart-{}", uuid::Uuid::new_v4().simple());
    let (mut seq, mut ev) = (0i64, 0u32);
    stream(&w, &run, &mut seq, &mut ev, Duration::from_millis(300)).await;
    ctl("stop");
    let down = {
        use sqlx::Connection;
        sqlx::PgConnection::connect(&url).await.is_err()
    };
    assert!(
        down,
        "the server still accepts connections after pg_ctlcluster stop"
    );
    stream(&w, &run, &mut seq, &mut ev, Duration::from_millis(1500)).await;
    ctl("start");
    stream(&w, &run, &mut seq, &mut ev, Duration::from_millis(300)).await;
    assert!(
        w.flush(Duration::from_secs(60)).await,
        "recovers after the restart"
    );
    let stored = store.telemetry_count(&run).await.expect("count");
    println!(
        "postgres restart: {} failed writes (others waited for a connection), stored {stored} \
         of {seq}, lost {}",
        w.stats.errors.load(Ordering::Relaxed),
        w.lost_rows()
    );
    // Writes during the outage either failed and were retried, or waited in the pool's
    // acquire (10 s) until the server was back: both end with every row stored once.
    assert_eq!(stored, seq);
    assert_eq!(count_kind(&store, &run, "test_event").await as u32, ev);
    store.close().await;
}

#[path = "it/support/mod.rs"]
mod support;

/// A whole service run with the default writer, its SQLite database on the 2 MB volume:
/// * disk full from the start to the end: the run ends `failed` naming the rows lost (never `finished`
///   with rows missing); its result answers; stored + lost = sent;
/// * disk full after the start, space back during the run: `finished` with every row;
/// * plenty of space: `finished` with every row.
///
/// Prints the write-ahead log's largest size (the writer measures it after every batch).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn service_run_on_a_full_disk_never_finishes_with_rows_missing() {
    let fs = match Tmpfs::mount("service") {
        Ok(fs) => fs,
        Err(why) => {
            println!("skip: {why}");
            return;
        }
    };
    let storage = support::tempdir("full-disk-storage");
    let mut config = scil::serve::Config {
        bind: "127.0.0.1:0".into(),
        database_url: format!("sqlite://{}?mode=rwc", fs.0.join("scil.db").display()),
        storage_dir: storage,
        data_dir: Some(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data"))),
        ..scil::serve::Config::default()
    };
    config.auth.operator_tokens = vec!["op".into()];
    config.telemetry.settle_timeout_s = 4.0;
    let server = scil::serve::spawn(config).await.expect("server starts");
    let api = support::http::Api::new(format!("http://{}/api/v1", server.addr), "op");
    let stats = server.state.writer.stats.clone();
    let run = |speed: serde_json::Value| {
        serde_json::json!({"scenario_id": "cpna75_10kmh", "replay": "cpna75_10kmh",
                           "speed": speed, "start": true})
    };

    // (A run cannot be created on a full disk: its row is not stored. Filled after the start.)
    // 1. Full from just after the start to the end.
    let errors0 = stats.errors.load(Ordering::Relaxed);
    let (s, v) = api.post("/runs", run(serde_json::json!(20))).await;
    assert_eq!(s, reqwest::StatusCode::CREATED, "{v}");
    let filler = fill(&fs.0);
    let id = v["id"].as_str().expect("id").to_string();
    let ended = api.wait_terminal(&id, Duration::from_secs(60)).await;
    let (s, result) = api.get(&format!("/runs/{id}/results")).await;
    assert_eq!(s, reqwest::StatusCode::OK, "an ended run answers: {result}");
    let sent = result["storage"]["rows_sent"].as_u64().expect("rows_sent");
    let lost = result["storage"]["rows_lost"].as_u64().expect("rows_lost");
    let failed_writes = stats.errors.load(Ordering::Relaxed) - errors0;
    println!(
        "full disk, whole run: state {}, {sent} rows sent, {lost} lost, {failed_writes} failed \
         writes; error: {}",
        ended["state"], ended["error"]
    );
    assert!(failed_writes > 0, "the disk was not full");
    assert!(sent > 3000, "{sent}");
    match ended["state"].as_str() {
        Some("finished") => assert_eq!(lost, 0, "finished with rows missing: {result}"),
        Some("failed") => {
            assert!(lost > 0, "{result}");
            let err = ended["error"].as_str().unwrap_or_default();
            assert!(
                err.contains(&format!("{lost} of {sent} telemetry rows lost")),
                "{err}"
            );
        }
        other => panic!("unexpected state {other:?}: {ended}"),
    }
    std::fs::remove_file(&filler).expect("free");
    // The final state reaches the database once there is room; the count there agrees.
    let t0 = Instant::now();
    loop {
        let row = server.state.store.get_run(&id).await.expect("run");
        if row.as_ref().is_some_and(|r| r.state == ended["state"]) {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "final state never stored"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let stored = server
        .state
        .store
        .telemetry_count(&id)
        .await
        .expect("count") as u64;
    assert_eq!(stored + lost, sent, "stored + lost = sent");

    // 2. Full after the start, space back while the run goes: finished with every row.
    let errors0 = stats.errors.load(Ordering::Relaxed);
    let (s, v) = api.post("/runs", run(serde_json::json!(10))).await;
    assert_eq!(s, reqwest::StatusCode::CREATED, "{v}");
    let filler = fill(&fs.0);
    let id = v["id"].as_str().expect("id").to_string();
    // Until writes fail (what is left of the log's allocated space fills first).
    let t0 = Instant::now();
    while stats.errors.load(Ordering::Relaxed) == errors0 && t0.elapsed() < Duration::from_secs(6) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let failed_writes = stats.errors.load(Ordering::Relaxed) - errors0;
    std::fs::remove_file(&filler).expect("free");
    let ended = api.wait_terminal(&id, Duration::from_secs(60)).await;
    let (_, result) = api.get(&format!("/runs/{id}/results")).await;
    let stored = server
        .state
        .store
        .telemetry_count(&id)
        .await
        .expect("count") as u64;
    println!(
        "full disk, space back mid-run: state {}, {} rows sent, {stored} stored, {failed_writes} \
         failed writes while full",
        ended["state"], result["storage"]["rows_sent"]
    );
    assert!(failed_writes > 0, "the disk was not full");
    assert_eq!(ended["state"], "finished", "{ended}");
    assert_eq!(result["storage"]["rows_lost"], 0, "{result}");
    assert_eq!(Some(stored), result["storage"]["rows_sent"].as_u64());

    // 3. Room throughout: the volume grown to 8 MB (the 2 MB one holds about two runs).
    fs.resize("8m");
    let (st, v) = api.post("/runs", run(serde_json::json!("max"))).await;
    let id = v["id"]
        .as_str()
        .unwrap_or_else(|| panic!("run not created: {st} {v}"))
        .to_string();
    let ended = api.wait_terminal(&id, Duration::from_secs(60)).await;
    assert_eq!(ended["state"], "finished", "{ended}");
    let wal_peak = stats.wal_peak_bytes.load(Ordering::Relaxed);
    let wal_now = server.state.store.wal_bytes().unwrap_or(0);
    let db = std::fs::metadata(fs.0.join("scil.db")).map_or(0, |m| m.len());
    println!(
        "WAL: peak {wal_peak} bytes after a batch, {wal_now} now; {} writer checkpoints; \
         database file {db} bytes",
        stats.checkpoints.load(Ordering::Relaxed)
    );
    assert!(
        wal_peak <= 768 << 10,
        "the write-ahead log grew to {wal_peak} bytes"
    );
    server.state.store.close().await;
}

fn spill_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "spill"))
                .collect()
        })
        .unwrap_or_default()
}

/// A buffer of 300 rows, the database's disk full: with a spill directory on another volume
/// nothing is lost — the rows beyond the buffer go to the spill file and are written back, in
/// order, once the space returns; the file is then removed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_spill_dir_a_full_disk_loses_no_row() {
    let (fs, spill_fs) = match (
        Tmpfs::mount("spill-db"),
        Tmpfs::mount_sized("spill-dir", "32m"),
    ) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(why), _) | (_, Err(why)) => {
            println!("skip: {why}");
            return;
        }
    };
    let url = format!("sqlite://{}", fs.0.join("scil.db").display());
    let store = Store::connect(&url).await.expect("store");
    let spill_dir = spill_fs.0.join("spill");
    let w = Writer::spawn(
        store.clone(),
        WriterConfig {
            spill_dir: Some(spill_dir.clone()),
            ..small_batches(300)
        },
        None,
    );
    let run = "spill-run";
    let (mut seq, mut ev) = (0i64, 0u32);
    let filler = fill(&fs.0);
    stream(&w, run, &mut seq, &mut ev, Duration::from_millis(800)).await;
    assert!(
        w.stats.errors.load(Ordering::Relaxed) > 0,
        "the disk was not full"
    );
    let spilled = w.stats.spilled.load(Ordering::Relaxed);
    let files = spill_files(&spill_dir);
    let file_bytes: u64 = files
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum();
    assert!(spilled > 0, "nothing was spilled");
    assert_eq!(files.len(), 1, "one spill file: {files:?}");
    std::fs::remove_file(&filler).expect("free");
    assert!(w.flush(Duration::from_secs(30)).await, "recovers");
    let stored = store.telemetry_count(run).await.expect("count");
    let replayed = w.stats.spill_replayed.load(Ordering::Relaxed);
    println!(
        "spill: sent {seq}, spilled {spilled} rows ({file_bytes} bytes), written back \
         {replayed}, stored {stored}, lost {}",
        w.lost_rows()
    );
    assert_eq!(w.lost_rows(), 0);
    assert_eq!(stored, seq, "every row stored");
    assert_eq!(replayed, spilled, "every spilled row written back");
    assert_eq!(w.stats.spill_pending.load(Ordering::Relaxed), 0);
    assert!(spill_files(&spill_dir).is_empty(), "spill file removed");
    assert_eq!(count_kind(&store, run, "test_event").await as u32, ev);
    assert_eq!(count_kind(&store, run, "telemetry_lost").await, 0);
    // Rows came back in order: the stored sequence numbers are exactly 0..seq.
    let (lo, hi): (i64, i64) = match &store.db {
        scil::store::Db::Sqlite(p) => {
            sqlx::query_as("SELECT MIN(seq), MAX(seq) FROM telemetry WHERE run_id = ?")
                .bind(run)
                .fetch_one(p)
                .await
                .expect("range")
        }
        scil::store::Db::Postgres(_) => unreachable!("sqlite"),
    };
    assert_eq!((lo, hi), (0, seq - 1));
    store.close().await;
}

/// A spill file left by a process that stopped (its last record torn), its run meanwhile marked
/// `failed`: the next writer on that directory writes the good rows back, reports the torn tail
/// (event and counter, naming the record and byte), records a `telemetry_recovered` event for
/// the run naming its state (it stays `failed`) and removes the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spill_file_left_behind_is_written_back_and_its_torn_tail_reported() {
    use scil::store::writer::spill::{encode_record, MAGIC};
    let dir = support::tempdir("spill-orphan");
    let spill_dir = dir.join("spill");
    std::fs::create_dir_all(&spill_dir).expect("dir");
    let run = "crashed-run";
    let mut bytes = MAGIC.to_vec();
    for seq in 0..120 {
        encode_record(&row(run, seq), &mut bytes);
    }
    let good = bytes.len();
    encode_record(&row(run, 120), &mut bytes);
    bytes.truncate(good + 20); // the crash: half a record
    let file = spill_dir.join("telemetry-1-1700000000000-1.spill");
    std::fs::write(&file, &bytes).expect("write");

    let url = format!("sqlite://{}?mode=rwc", dir.join("scil.db").display());
    let store = Store::connect(&url).await.expect("store");
    let now = chrono::Utc::now();
    store
        .insert_run(&scil::store::RunRow {
            id: run.into(),
            state: "failed".into(),
            scenario_id: "cpna75_10kmh".into(),
            map_id: None,
            source: "{}".into(),
            speed: Some(1.0),
            error: Some("left active by a previous process".into()),
            abort: None,
            created_at: now,
            armed_at: None,
            started_at: None,
            finished_at: Some(now),
            track: Some("main".into()),
            demo: false,
            instance: None,
        })
        .await
        .expect("run row");
    let w = Writer::spawn(
        store.clone(),
        WriterConfig {
            spill_dir: Some(spill_dir.clone()),
            ..small_batches(1_000)
        },
        None,
    );
    assert!(w.flush(Duration::from_secs(30)).await, "written back");
    assert_eq!(store.telemetry_count(run).await.expect("count"), 120);
    assert_eq!(w.stats.spill_replayed.load(Ordering::Relaxed), 120);
    assert_eq!(w.stats.spill_problems.load(Ordering::Relaxed), 1);
    assert!(!file.exists(), "file removed once written back");
    let evs = all_events(&store).await;
    let corrupt: Vec<_> = evs.iter().filter(|e| e.1 == "spill_corrupt").collect();
    assert_eq!(corrupt.len(), 1, "{evs:?}");
    let detail = &corrupt[0].2;
    println!("reported: {detail}");
    assert!(
        detail.contains("record 121") && detail.contains(&format!("at byte {good}")),
        "{detail}"
    );
    assert!(detail.contains("torn"), "{detail}");
    let recovered: Vec<serde_json::Value> = evs
        .iter()
        .filter(|e| e.1 == "telemetry_recovered")
        .map(|e| serde_json::from_str(&e.2).expect("JSON"))
        .collect();
    assert_eq!(recovered.len(), 1, "{recovered:?}");
    assert_eq!(recovered[0]["rows"], 120);
    assert_eq!(recovered[0]["run_id"], run);
    assert_eq!(recovered[0]["run_state"], "failed");
    let row = store.get_run(run).await.expect("run").expect("row");
    assert_eq!(row.state, "failed", "a failed run stays failed");
    store.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// A whole service run with a 200-row buffer, the database's disk full after the start: with a
/// spill directory on another volume the run ends `finished` with every row once the space
/// returns; without one it ends `failed` with the number of rows lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn service_run_with_a_spill_dir_finishes_and_without_one_fails_with_the_loss() {
    let (db_a, db_b, spill_fs) = match (
        Tmpfs::mount("svc-spill-a"),
        Tmpfs::mount("svc-spill-b"),
        Tmpfs::mount_sized("svc-spill-dir", "32m"),
    ) {
        (Ok(a), Ok(b), Ok(c)) => (a, b, c),
        (Err(why), _, _) | (_, Err(why), _) | (_, _, Err(why)) => {
            println!("skip: {why}");
            return;
        }
    };
    for (db, spill) in [(&db_a, Some(spill_fs.0.join("spill"))), (&db_b, None)] {
        let mut config = scil::serve::Config {
            bind: "127.0.0.1:0".into(),
            database_url: format!("sqlite://{}?mode=rwc", db.0.join("scil.db").display()),
            storage_dir: support::tempdir("spill-storage"),
            data_dir: Some(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data"))),
            ..scil::serve::Config::default()
        };
        config.auth.operator_tokens = vec!["op".into()];
        config.telemetry.max_buffer_rows = 200;
        config.telemetry.settle_timeout_s = if spill.is_some() { 60.0 } else { 4.0 };
        config.telemetry.spill_dir = spill.clone();
        let server = scil::serve::spawn(config).await.expect("server starts");
        let api = support::http::Api::new(format!("http://{}/api/v1", server.addr), "op");
        let stats = server.state.writer.stats.clone();
        // Slower with a spill directory: the disk stays full while 1000 rows go to the file.
        let speed = if spill.is_some() { 2 } else { 20 };
        let (s, v) = api
            .post(
                "/runs",
                serde_json::json!({"scenario_id": "cpna75_10kmh", "replay": "cpna75_10kmh",
                                   "speed": speed, "start": true}),
            )
            .await;
        assert_eq!(s, reqwest::StatusCode::CREATED, "{v}");
        let id = v["id"].as_str().expect("id").to_string();
        let filler = fill(&db.0);
        let ended = if spill.is_some() {
            // Until 1000 rows have gone to the spill file (the run sends ~4000 rows), then
            // the space comes back.
            let t0 = Instant::now();
            while stats.spilled.load(Ordering::Relaxed) < 1000 {
                assert!(t0.elapsed() < Duration::from_secs(60), "nothing spilled");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            std::fs::remove_file(&filler).expect("free");
            let t_free = Instant::now();
            let ended = api.wait_terminal(&id, Duration::from_secs(90)).await;
            println!(
                "spill dir: {:.1} s to 1000 spilled rows, terminal {:.1} s after the space came back",
                (t_free - t0).as_secs_f64(),
                t_free.elapsed().as_secs_f64()
            );
            ended
        } else {
            let t0 = Instant::now();
            let ended = api.wait_terminal(&id, Duration::from_secs(90)).await;
            println!(
                "no spill dir: terminal after {:.1} s",
                t0.elapsed().as_secs_f64()
            );
            std::fs::remove_file(&filler).expect("free");
            ended
        };
        let (_, result) = api.get(&format!("/runs/{id}/results")).await;
        let sent = result["storage"]["rows_sent"].as_u64().expect("rows_sent");
        let lost = result["storage"]["rows_lost"].as_u64().expect("rows_lost");
        assert!(server.state.writer.flush(Duration::from_secs(30)).await);
        let stored = server
            .state
            .store
            .telemetry_count(&id)
            .await
            .expect("count") as u64;
        let spilled = stats.spilled.load(Ordering::Relaxed);
        println!(
            "service, spill dir {}: state {}, sent {sent}, stored {stored}, lost {lost}, spilled \
             {spilled}, written back {}; error: {}",
            spill.is_some(),
            ended["state"],
            stats.spill_replayed.load(Ordering::Relaxed),
            ended["error"]
        );
        if let Some(dir) = &spill {
            assert_eq!(ended["state"], "finished", "{ended}");
            assert_eq!(lost, 0, "{result}");
            assert_eq!(stored, sent);
            assert!(spilled > 0);
            assert_eq!(stats.spill_replayed.load(Ordering::Relaxed), spilled);
            assert!(spill_files(dir).is_empty(), "spill file removed");
            let metrics = reqwest::get(format!("{}/metrics", api.base))
                .await
                .expect("metrics")
                .text()
                .await
                .expect("text");
            assert!(
                metrics.contains(&format!("scil_store_spilled_rows_total {spilled}")),
                "{metrics}"
            );
            assert!(metrics.contains(&format!("scil_store_spill_replayed_rows_total {spilled}")));
        } else {
            assert_eq!(ended["state"], "failed", "{ended}");
            assert!(lost > 0 && spilled == 0, "{result}");
            assert_eq!(stored + lost, sent);
            let err = ended["error"].as_str().unwrap_or_default();
            assert!(
                err.contains(&format!("{lost} of {sent} telemetry rows lost")),
                "{err}"
            );
        }
        server.state.store.close().await;
    }
}
