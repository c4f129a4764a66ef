//! `scil bench archive`: the run list and a run's Parquet export through the service's HTTP API
//! on an archive of `--runs` stored runs (default 10^5) next to one of `--base-runs` (10^2),
//! measured in the same process; the ratio is the figure. Prints; it is not a test.
//!
//! Each archive: finished runs one second apart (two events and four telemetry rows each) and
//! one run with 1320 telemetry rows (the 30 km/h replay's 660 samples × VUT and target) whose
//! `telemetry.parquet` is exported. With `--samples-per-run N` every run has N samples (VUT and
//! target alternating, 25 Hz, a CSV logger's decimals for the VUT and MONR's units for the
//! target, each with a real sensor's noise),
//! compacted as a run's end compacts them, and the bytes a sample on disk are printed, with the
//! time of reading the exported run from the store as rows (before its compaction) and as
//! chunks (after it).
//! Measured: the first page of `GET /runs?limit=50`, the page half-way down (by its cursor),
//! `GET /runs/{id}/telemetry.parquet` and `GET /runs/{id}/telemetry` (the whole run as JSON);
//! the median of `--requests` requests each, over a fresh TCP connection each.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use clap::Args;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::store::{NewEvent, RunRow, Store, TelemetryRow};

#[derive(Args, Debug, Clone)]
pub struct ArchiveBenchArgs {
    /// Runs in the large archive.
    #[arg(long, default_value_t = 100_000)]
    pub runs: usize,
    /// Runs in the baseline archive.
    #[arg(long, default_value_t = 100)]
    pub base_runs: usize,
    /// Requests per measurement (the median is printed).
    #[arg(long, default_value_t = 30)]
    pub requests: usize,
    /// Samples of telemetry in every run (default: four rows each, 1320 in the exported one).
    #[arg(long)]
    pub samples_per_run: Option<usize>,
    /// Also PostgreSQL: a server URL (two schemas are created in it and dropped after).
    /// Default: $SCIL_TEST_POSTGRES_URL when set.
    #[arg(long)]
    pub postgres: Option<String>,
}

pub fn run(args: ArchiveBenchArgs) -> anyhow::Result<ExitCode> {
    let rt = crate::run::runtime()?;
    rt.block_on(bench(args))?;
    Ok(ExitCode::SUCCESS)
}

const EXPORT_RUN: &str = "run-bench-export";
/// Runs per page (half the baseline archive: the half-way page is full in both).
const PAGE: usize = 50;

fn run_row(i: usize, t0: DateTime<Utc>) -> RunRow {
    let at = t0 - chrono::Duration::seconds(i as i64);
    RunRow {
        id: if i == 0 {
            EXPORT_RUN.into()
        } else {
            format!("run-bench-{i:07}")
        },
        state: "finished".into(),
        scenario_id: "cpna75_30kmh".into(),
        map_id: Some("proving_ground".into()),
        source: r#"{"ins":{"kind":"csv_replay","replay_id":"cpna75_30kmh","file_name":"cpna75_30kmh.csv"},"sync":false}"#.into(),
        speed: None,
        error: None,
        created_at: at,
        armed_at: Some(at),
        started_at: Some(at),
        finished_at: Some(at + chrono::Duration::seconds(26)),
        instance: Some("bench".into()),
        abort: None,
        track: Some("main".into()),
        demo: false,
    }
}

fn telemetry(run: &str, samples: usize) -> Vec<TelemetryRow> {
    (0..samples * 2)
        .map(|k| {
            let (i, target) = (k / 2, k % 2 == 1);
            TelemetryRow {
                run_id: run.to_string(),
                seq: k as i64,
                t: 387_000.0 + i as f64 * 0.04,
                vehicle: if target { "dummy" } else { "vut" }.into(),
                kind: if target { "target" } else { "vut" }.into(),
                x: 20.0 + i as f64 * 0.333,
                y: if target { 3.0 } else { -1.75 },
                yaw: 90.0,
                speed_mps: 8.33,
                steering_wheel_deg: Some(-0.2),
                brake_light: Some(false),
                road_id: Some("1".into()),
                lane_id: Some(-1),
                road_s: Some(i as f64 * 0.333),
                road_t: Some(-1.75),
                wheel_speed_mps: None,
            }
        })
        .collect()
}

/// `samples` rows of a run as a proving ground records them: the VUT from a CSV logger (its
/// decimals: 0.1 mm, 1 ms, 0.001 km/h) with an RTK INS's sample-to-sample noise (5 mm of
/// position, 0.02 km/h of speed, 0.02° of heading), a pedestrian target from its platform's
/// MONR (ISO 22133's units: mm, 0.01°, cm/s) with an RTK receiver's 5 mm white noise,
/// alternating. The noise is what a real run's telemetry carries and what a columnar store
/// cannot compress away; a noiseless track would flatter the bytes a sample.
fn ground_telemetry(run: &str, samples: usize) -> Vec<TelemetryRow> {
    use rand::SeedableRng;
    use rand_distr::{Distribution, StandardNormal};
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5c11);
    let mut n = move || -> f64 { StandardNormal.sample(&mut rng) };
    let dec = |v: f64, k: i32| (v * 10f64.powi(k)).round() / 10f64.powi(k);
    (0..samples)
        .map(|k| {
            let (i, target) = (k / 2, k % 2 == 1);
            let f = i as f64;
            let t = dec(387_000.0 + f * 0.04, 3);
            let (x, y, yaw, speed) = if target {
                let s = (f * 0.04 - 2.0).max(0.0) * 1.39;
                let v = if s > 0.0 { 5.0 / 3.6 } else { 0.0 };
                (
                    dec(200.0 + 0.005 * n(), 3),
                    dec(-5.75 + s + 0.005 * n(), 3),
                    dec((90.0 + 0.05 * n()).to_radians(), 4),
                    dec(v + 0.01 * n(), 2),
                )
            } else {
                (
                    dec(20.0 + f * 0.3359 + 0.01 * (f * 0.37).sin() + 0.005 * n(), 4),
                    dec(-1.75 + 0.002 * (f * 0.11).sin() + 0.005 * n(), 4),
                    (90.0 - dec(0.1 * (f * 0.05).sin() + 0.02 * n(), 3)).to_radians(),
                    dec(30.25 + 0.05 * (f * 0.3).sin() + 0.02 * n(), 3) / 3.6,
                )
            };
            TelemetryRow {
                run_id: run.to_string(),
                seq: k as i64,
                t,
                vehicle: if target { "dummy" } else { "vut" }.into(),
                kind: if target { "target" } else { "vut" }.into(),
                x,
                y,
                yaw,
                speed_mps: speed,
                steering_wheel_deg: (!target).then(|| dec(0.2 * (f * 0.21).sin() + 0.1 * n(), 1)),
                brake_light: (!target).then_some(i % 500 > 450),
                road_id: Some("1".into()),
                lane_id: Some(-1),
                road_s: Some(x - 5.0),
                road_t: Some(y + 3.5),
                wheel_speed_mps: None,
            }
        })
        .collect()
}

/// Gives every run of the archive the telemetry of the exported run: its rows compacted as a
/// run's end compacts them, its chunks then copied to every other run (SQL, in the database).
async fn populate_samples(store: &Store, samples: usize) -> anyhow::Result<()> {
    store
        .insert_telemetry(&ground_telemetry(EXPORT_RUN, samples))
        .await?;
    // The same run read from the store as rows, then as chunks.
    let from_rows = read_time(store, samples).await?;
    store
        .compact_run(EXPORT_RUN)
        .await?
        .ok_or_else(|| anyhow::anyhow!("{EXPORT_RUN} not compacted"))?;
    let from_chunks = read_time(store, samples).await?;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{}: one run's {samples} samples read from the store: rows {:.2} ms, chunks {:.2} ms \
         (×{:.1} faster; median of {READS})",
        store.backend(),
        ms(from_rows),
        ms(from_chunks),
        ms(from_rows) / ms(from_chunks).max(1e-9)
    );
    let blob = crate::store::telemetry_archive::blob_id(EXPORT_RUN);
    let runs = "FROM runs r CROSS JOIN";
    let others = format!("r.id <> '{EXPORT_RUN}'");
    for sql in [
        format!(
            "INSERT INTO blobs (id, kind, bytes, chunks, complete, created_ms) \
             SELECT 'telemetry/' || r.id, b.kind, b.bytes, b.chunks, b.complete, b.created_ms \
             {runs} blobs b WHERE {others} AND b.id = '{blob}'"
        ),
        format!(
            "INSERT INTO blob_chunks (blob_id, seq, data) \
             SELECT 'telemetry/' || r.id, c.seq, c.data \
             {runs} blob_chunks c WHERE {others} AND c.blob_id = '{blob}'"
        ),
        format!(
            "INSERT INTO telemetry_archive (run_id, samples, chunks, bytes, compacted_ms) \
             SELECT r.id, a.samples, a.chunks, a.bytes, a.compacted_ms \
             {runs} telemetry_archive a WHERE {others} AND a.run_id = '{EXPORT_RUN}'"
        ),
    ] {
        store.execute_raw(&sql).await?;
    }
    Ok(())
}

/// Reads of a run's telemetry timed by [`read_time`].
const READS: usize = 11;

/// Median time of reading the exported run's whole telemetry from the store (`samples` rows
/// expected).
async fn read_time(store: &Store, samples: usize) -> anyhow::Result<Duration> {
    let mut t = Vec::with_capacity(READS);
    for _ in 0..READS {
        let t0 = Instant::now();
        let rows = store.telemetry(EXPORT_RUN, None, None, 50_000_000).await?;
        t.push(t0.elapsed());
        anyhow::ensure!(
            rows.len() == samples,
            "{EXPORT_RUN}: read {} samples of {samples}",
            rows.len()
        );
    }
    t.sort();
    Ok(t[t.len() / 2])
}

/// Fills an empty store with `n` runs.
async fn populate(store: &Store, n: usize, samples: Option<usize>) -> anyhow::Result<()> {
    let t0 = Utc::now();
    for lo in (0..n).step_by(10_000) {
        let hi = (lo + 10_000).min(n);
        let runs: Vec<RunRow> = (lo..hi).map(|i| run_row(i, t0)).collect();
        store.insert_runs(&runs).await?;
        let mut events = Vec::with_capacity(2 * runs.len());
        let mut rows = Vec::with_capacity(4 * runs.len());
        for r in &runs {
            for kind in ["state", "trigger"] {
                events.push(NewEvent {
                    run_id: Some(r.id.clone()),
                    t: Some(387_003.2),
                    kind: kind.into(),
                    payload: format!(r#"{{"event":"{kind}"}}"#),
                    created_at: r.created_at,
                });
            }
            if r.id != EXPORT_RUN && samples.is_none() {
                rows.extend(telemetry(&r.id, 2));
            }
        }
        store.insert_events(&events).await?;
        store.insert_telemetry(&rows).await?;
    }
    match samples {
        Some(s) => populate_samples(store, s).await?,
        None => store.insert_telemetry(&telemetry(EXPORT_RUN, 660)).await?,
    }
    // Finished runs keep their telemetry as chunks (what the service would otherwise do in
    // the background at its start, during the measurement).
    store.compact_pending(|_, _| {}).await?;
    Ok(())
}

/// One GET over a fresh connection: (status, body bytes).
async fn get(addr: std::net::SocketAddr, path: &str) -> anyhow::Result<(u16, usize)> {
    let mut s = tokio::net::TcpStream::connect(addr).await?;
    s.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .await?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await?;
    let head_end = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| anyhow::anyhow!("{path}: no HTTP header"))?;
    let status = std::str::from_utf8(&buf[..head_end.min(12)])
        .ok()
        .and_then(|l| l.get(9..12))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    Ok((status, buf.len() - head_end - 4))
}

/// One GET that must answer 200: (latency, body bytes).
async fn timed(addr: std::net::SocketAddr, path: &str) -> anyhow::Result<(Duration, usize)> {
    let t = Instant::now();
    let (status, bytes) = get(addr, path).await?;
    let dt = t.elapsed();
    if status != 200 {
        anyhow::bail!("GET {path}: HTTP {status}");
    }
    Ok((dt, bytes))
}

struct Figures {
    first_page: Duration,
    deep_page: Duration,
    export: Duration,
    export_bytes: usize,
    read: Duration,
    /// Samples of the exported run.
    samples: usize,
}

/// An archive served in process: its address and the three measured paths.
struct Served {
    server: crate::serve::Server,
    storage: std::path::PathBuf,
    paths: [String; 4],
}

async fn serve(url: &str, runs: usize) -> anyhow::Result<Served> {
    let storage = std::env::temp_dir().join(format!(
        "scil-bench-archive-{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ));
    let config = crate::serve::Config {
        bind: "127.0.0.1:0".into(),
        database_url: url.into(),
        storage_dir: storage.clone(),
        instance_id: Some("bench".into()),
        ..crate::serve::Config::default()
    };
    let server = crate::serve::spawn(config).await?;
    // The cursor of the run half-way down the list: the page after it has PAGE runs in both
    // archives.
    let mid = run_row((runs / 2).saturating_sub(1).max(1), Utc::now());
    let key = server
        .state
        .store
        .get_run(&mid.id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("run {} missing", mid.id))?;
    let cursor = format!(
        "{}_{}",
        key.created_at.timestamp_nanos_opt().unwrap_or_default(),
        key.id
    );
    Ok(Served {
        server,
        storage,
        paths: [
            format!("/api/v1/runs?limit={PAGE}"),
            format!("/api/v1/runs?limit={PAGE}&cursor={cursor}"),
            format!("/api/v1/runs/{EXPORT_RUN}/telemetry.parquet"),
            format!("/api/v1/runs/{EXPORT_RUN}/telemetry"),
        ],
    })
}

/// Both archives, requests alternating between them (machine load drifts alike for both);
/// medians.
async fn measure(
    small: Served,
    large: Served,
    n: usize,
    samples: usize,
) -> anyhow::Result<(Figures, Figures)> {
    // Per measured path: the medians of (small, large).
    let mut meds: Vec<[Duration; 2]> = Vec::new();
    let mut bytes = [0usize; 2];
    for (m, last) in [(0, false), (1, false), (2, true), (3, false)] {
        let mut times: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
        for s in [&small, &large] {
            timed(s.server.addr, &s.paths[m]).await?; // warm-up
        }
        for _ in 0..n.max(1) {
            for (k, s) in [&small, &large].into_iter().enumerate() {
                let (dt, b) = timed(s.server.addr, &s.paths[m]).await?;
                times[k].push(dt);
                if last {
                    bytes[k] = b;
                }
            }
        }
        for t in times.iter_mut() {
            t.sort();
        }
        meds.push([times[0][times[0].len() / 2], times[1][times[1].len() / 2]]);
    }
    for s in [small, large] {
        s.server.task.abort();
        s.server.state.store.close().await;
        let _ = std::fs::remove_dir_all(&s.storage);
    }
    let fig = |k: usize| Figures {
        first_page: meds[0][k],
        deep_page: meds[1][k],
        export: meds[2][k],
        export_bytes: bytes[k],
        read: meds[3][k],
        samples,
    };
    Ok((fig(0), fig(1)))
}

fn print(backend: &str, small: usize, large: usize, a: &Figures, b: &Figures) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("{backend}: {small} runs vs {large} runs (median latency, ms; ratio large/small)");
    for (what, x, y) in [
        (
            "GET /runs?limit=50 (first page)",
            a.first_page,
            b.first_page,
        ),
        (
            "GET /runs?limit=50&cursor=… (half-way)",
            a.deep_page,
            b.deep_page,
        ),
        ("GET /runs/{id}/telemetry.parquet", a.export, b.export),
        ("GET /runs/{id}/telemetry (one run, JSON)", a.read, b.read),
    ] {
        println!(
            "  {what:<42} {:>8.2} {:>8.2}   ×{:.2}",
            ms(x),
            ms(y),
            ms(y) / ms(x).max(1e-9)
        );
    }
    println!(
        "  (export: {} telemetry rows; {} and {} bytes of Parquet)",
        a.samples, a.export_bytes, b.export_bytes
    );
}

async fn bench(args: ArchiveBenchArgs) -> anyhow::Result<()> {
    let tmp = std::env::temp_dir().join(format!("scil-bench-archive-{}", std::process::id()));
    std::fs::create_dir_all(&tmp)?;
    let sizes = [args.base_runs.max(2), args.runs.max(2)];
    let mut served = Vec::new();
    for (k, n) in sizes.iter().enumerate() {
        let url = format!(
            "sqlite://{}?mode=rwc",
            tmp.join(format!("a{k}.db")).display()
        );
        let store = Store::connect(&url).await?;
        let t = Instant::now();
        populate(&store, *n, args.samples_per_run).await?;
        store.checkpoint(true).await?;
        eprintln!(
            "sqlite: {n} runs stored in {:.1} s",
            t.elapsed().as_secs_f64()
        );
        if let Some(per_run) = args.samples_per_run {
            let file = std::fs::metadata(tmp.join(format!("a{k}.db")))?.len()
                + store.wal_bytes().unwrap_or(0);
            let samples = (per_run * n) as f64;
            println!(
                "sqlite: {n} runs × {per_run} samples: database file {:.1} MB, {:.2} bytes a \
                 sample on disk (everything: runs, events, chunks, indexes)",
                file as f64 / 1e6,
                file as f64 / samples.max(1.0)
            );
        }
        store.close().await;
        served.push(serve(&url, *n).await?);
    }
    let large = served.pop().ok_or_else(|| anyhow::anyhow!("no archive"))?;
    let small = served.pop().ok_or_else(|| anyhow::anyhow!("no archive"))?;
    let samples = args.samples_per_run.unwrap_or(1320);
    let (a, b) = measure(small, large, args.requests, samples).await?;
    print("sqlite", sizes[0], sizes[1], &a, &b);
    let _ = std::fs::remove_dir_all(&tmp);

    let pg = args
        .postgres
        .clone()
        .or_else(|| std::env::var("SCIL_TEST_POSTGRES_URL").ok());
    if let Some(pg) = pg {
        // One schema per archive in the given database (search_path through the URL).
        let admin = sqlx::PgPool::connect(&pg).await?;
        let tag = uuid::Uuid::new_v4().simple().to_string()[..8].to_string();
        let mut schemas = Vec::new();
        let res = async {
            let mut served = Vec::new();
            for (k, n) in sizes.iter().enumerate() {
                let schema = format!("scil_bench_{tag}_{k}");
                sqlx::query(&format!("CREATE SCHEMA {schema}"))
                    .execute(&admin)
                    .await?;
                schemas.push(schema.clone());
                let sep = if pg.contains('?') { '&' } else { '?' };
                let url = format!("{pg}{sep}options=-csearch_path%3D{schema}");
                let store = Store::connect(&url).await?;
                let t = Instant::now();
                populate(&store, *n, args.samples_per_run).await?;
                if let (Some(per_run), crate::store::Db::Postgres(p)) =
                    (args.samples_per_run, &store.db)
                {
                    // Every table of the archive's schema with its indexes and TOAST.
                    let bytes: i64 = sqlx::query_scalar(
                        "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::BIGINT \
                         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                         WHERE n.nspname = current_schema() AND c.relkind = 'r'",
                    )
                    .fetch_one(p)
                    .await?;
                    println!(
                        "postgres: {n} runs × {per_run} samples: tables {:.1} MB, {:.2} bytes a \
                         sample on disk (everything: runs, events, chunks, indexes)",
                        bytes as f64 / 1e6,
                        bytes as f64 / (per_run * n).max(1) as f64
                    );
                }
                store.close().await;
                eprintln!(
                    "postgres: {n} runs stored in {:.1} s",
                    t.elapsed().as_secs_f64()
                );
                served.push(serve(&url, *n).await?);
            }
            let large = served.pop().ok_or_else(|| anyhow::anyhow!("no archive"))?;
            let small = served.pop().ok_or_else(|| anyhow::anyhow!("no archive"))?;
            measure(small, large, args.requests, samples).await
        }
        .await;
        for schema in &schemas {
            let _ = sqlx::query(&format!("DROP SCHEMA {schema} CASCADE"))
                .execute(&admin)
                .await;
        }
        let (a, b) = res?;
        print("postgres", sizes[0], sizes[1], &a, &b);
    }
    Ok(())
}
