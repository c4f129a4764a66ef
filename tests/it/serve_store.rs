//! The telemetry writer: batched, idempotent, and never loses rows silently when the database
//! fails (buffer, retry with backoff, count, report).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use scil::store::writer::{Writer, WriterConfig};
use scil::store::{Store, TelemetryRow};

fn row(run: &str, i: i64) -> TelemetryRow {
    TelemetryRow {
        run_id: run.into(),
        seq: i,
        t: i as f64 * 0.01,
        vehicle: "vut".into(),
        kind: "vut".into(),
        x: i as f64,
        y: 0.0,
        yaw: 0.0,
        speed_mps: 8.0,
        steering_wheel_deg: None,
        brake_light: Some(i % 2 == 0),
        road_id: Some("1".into()),
        lane_id: Some(-1),
        road_s: Some(1.0),
        road_t: None,
        wheel_speed_mps: None,
    }
}

async fn outage(url: &str) {
    let store = Store::connect(url).await.unwrap();
    let reports = Arc::new(Mutex::new(Vec::<String>::new()));
    let r2 = reports.clone();
    let writer = Writer::spawn(
        store.clone(),
        WriterConfig {
            max_delay: Duration::from_millis(10),
            ..WriterConfig::default()
        },
        Some(Arc::new(move |m: &str| {
            r2.lock().unwrap().push(m.to_string())
        })),
    );
    let run = format!("outage-{}", uuid::Uuid::new_v4().simple());
    let table = format!(
        "telemetry_off_{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    );
    // Healthy: rows arrive, round-trip intact.
    for i in 0..100 {
        assert!(writer.send_telemetry(row(&run, i)));
    }
    assert!(writer.flush(Duration::from_secs(10)).await);
    assert_eq!(store.telemetry_count(&run).await.unwrap(), 100);
    let back = store
        .telemetry(&run, Some(0.5), Some(0.6), 100)
        .await
        .unwrap();
    assert_eq!(back, (50..=60).map(|i| row(&run, i)).collect::<Vec<_>>());

    // Outage: the table disappears; rows stay buffered, errors are counted and reported.
    store
        .execute_raw(&format!("ALTER TABLE telemetry RENAME TO {table}"))
        .await
        .unwrap();
    for i in 100..600 {
        assert!(writer.send_telemetry(row(&run, i)));
    }
    assert!(
        !writer.flush(Duration::from_millis(500)).await,
        "cannot flush during the outage"
    );
    let s = &writer.stats;
    assert!(s.errors.load(Ordering::Relaxed) >= 1);
    assert!(
        s.buffered.load(Ordering::Relaxed) >= 500,
        "rows and store_error events stay buffered"
    );
    assert!(!reports.lock().unwrap().is_empty());
    assert!(
        reports.lock().unwrap()[0].contains("500 rows buffered"),
        "{:?}",
        reports.lock().unwrap()
    );

    // Recovery: everything is written once, nothing dropped.
    store
        .execute_raw(&format!("ALTER TABLE {table} RENAME TO telemetry"))
        .await
        .unwrap();
    assert!(writer.flush(Duration::from_secs(15)).await);
    assert_eq!(store.telemetry_count(&run).await.unwrap(), 600);
    assert_eq!(s.dropped.load(Ordering::Relaxed), 0);
    assert_eq!(s.buffered.load(Ordering::Relaxed), 0);
    // Idempotent: the same rows again change nothing.
    store
        .insert_telemetry(&(0..600).map(|i| row(&run, i)).collect::<Vec<_>>())
        .await
        .unwrap();
    assert_eq!(store.telemetry_count(&run).await.unwrap(), 600);
    store.delete_telemetry(&run).await.unwrap();
}

#[tokio::test]
async fn writer_survives_outage_sqlite() {
    let dir =
        std::env::temp_dir().join(format!("scil-store-test-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    outage(&format!("sqlite://{}", dir.join("t.db").display())).await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn writer_survives_outage_postgres() {
    let Ok(url) = std::env::var("SCIL_TEST_POSTGRES_URL") else {
        eprintln!("skipped: SCIL_TEST_POSTGRES_URL not set");
        return;
    };
    outage(&url).await;
}
