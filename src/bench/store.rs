//! `scil bench store`: sustained telemetry insert rate through the batching [`Writer`]
//! (bounded channel → multi-row INSERT in transactions), per database. Prints figures; it is
//! not a test.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Args;

use crate::store::writer::{Writer, WriterConfig};
use crate::store::{Store, TelemetryRow};

#[derive(Args, Debug, Clone)]
pub struct StoreBenchArgs {
    /// Database to measure (repeatable). Default: a temporary SQLite file, plus
    /// $SCIL_TEST_POSTGRES_URL when set.
    #[arg(long = "database-url")]
    pub urls: Vec<String>,
    /// Telemetry rows to write per database.
    #[arg(long, default_value_t = 200_000)]
    pub rows: u64,
    /// Vehicles per sample instant (rows per 100 Hz tick).
    #[arg(long, default_value_t = 4)]
    pub vehicles: u64,
    /// Rows per write transaction.
    #[arg(long, default_value_t = WriterConfig::default().batch_rows)]
    pub batch_rows: usize,
}

pub fn run(args: StoreBenchArgs) -> anyhow::Result<ExitCode> {
    let rt = crate::run::runtime()?;
    rt.block_on(bench(args))?;
    Ok(ExitCode::SUCCESS)
}

fn row(run: &str, i: u64, vehicles: u64) -> TelemetryRow {
    let tick = i / vehicles;
    let v = i % vehicles;
    let t = 387_000.0 + tick as f64 * 0.01;
    TelemetryRow {
        run_id: run.to_string(),
        seq: i as i64,
        t,
        vehicle: if v == 0 {
            "vut".into()
        } else {
            format!("target{v}")
        },
        kind: if v == 0 {
            "vut".into()
        } else {
            "target".into()
        },
        x: 20.0 + tick as f64 * 0.0833,
        y: -1.75 + v as f64,
        yaw: 0.0,
        speed_mps: 8.33,
        steering_wheel_deg: Some(0.1),
        brake_light: Some(false),
        road_id: Some("1".into()),
        lane_id: Some(-1),
        road_s: Some(tick as f64 * 0.0833),
        road_t: Some(-1.75),
        wheel_speed_mps: None,
    }
}

async fn bench(args: StoreBenchArgs) -> anyhow::Result<()> {
    let mut urls = args.urls.clone();
    let tmp = std::env::temp_dir().join(format!("scil-bench-store-{}.db", std::process::id()));
    if urls.is_empty() {
        urls.push(format!("sqlite://{}", tmp.display()));
        if let Ok(pg) = std::env::var("SCIL_TEST_POSTGRES_URL") {
            urls.push(pg);
        }
    }
    let need = 100.0 * args.vehicles as f64;
    println!(
        "telemetry writer: {} rows per database, {} vehicles (100 Hz × {} = {need:.0} rows/s needed), {} rows per transaction",
        args.rows, args.vehicles, args.vehicles, args.batch_rows
    );
    for url in &urls {
        let store = Store::connect(url).await?;
        let backend = store.backend();
        let writer = Writer::spawn(
            store.clone(),
            WriterConfig {
                batch_rows: args.batch_rows,
                ..WriterConfig::default()
            },
            None,
        );
        let run = format!("bench-{}", uuid::Uuid::new_v4().simple());
        let t0 = Instant::now();
        for i in 0..args.rows {
            writer
                .send_telemetry_wait(row(&run, i, args.vehicles))
                .await;
        }
        let flushed = writer.flush(Duration::from_secs(600)).await;
        let dt = t0.elapsed().as_secs_f64();
        let stored = store.telemetry_count(&run).await?;
        let s = &writer.stats;
        let rate = args.rows as f64 / dt;
        println!(
            "{backend:<8} {:>10.0} rows/s sustained ({} rows in {dt:.2} s, {} transactions, {} errors, stored {stored}{}) = {:.0}× the 100 Hz × {} need",
            rate,
            args.rows,
            s.batches.load(std::sync::atomic::Ordering::Relaxed),
            s.errors.load(std::sync::atomic::Ordering::Relaxed),
            if flushed { "" } else { ", NOT FLUSHED" },
            rate / need,
            args.vehicles,
        );
        store.delete_telemetry(&run).await?;
        store.close().await;
    }
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", tmp.display()));
    }
    Ok(())
}
