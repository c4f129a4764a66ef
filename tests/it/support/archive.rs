//! The telemetry archive as the tests measure it: waiting for a finished run's compaction,
//! and the bytes a stored sample takes on disk.

use std::path::Path;
use std::time::{Duration, Instant};

use scil::store::Store;

/// Waits (at most 60 s) until `run`'s telemetry is compacted into chunks.
pub async fn wait_compacted(store: &Store, run: &str) {
    let t0 = Instant::now();
    while store.archive_info(run).await.expect("archive").is_none() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "run {run} not compacted"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Bytes on disk that the compacted telemetry of `ids` takes in a SQLite `store`: the
/// database vacuumed into `dir` with the runs' chunks, less the same without them (every page
/// the chunks, the blob store and the archive's index take).
pub async fn sqlite_bytes(store: &Store, ids: &[String], dir: &Path) -> u64 {
    let with = dir.join("with.db");
    let without = dir.join("without.db");
    store
        .execute_raw(&format!("VACUUM INTO '{}'", with.display()))
        .await
        .expect("vacuum into");
    let stripped = Store::connect(&format!("sqlite://{}", with.display()))
        .await
        .expect("copy opens");
    for id in ids {
        stripped.delete_telemetry(id).await.expect("delete");
    }
    stripped
        .execute_raw(&format!("VACUUM INTO '{}'", without.display()))
        .await
        .expect("vacuum into");
    stripped.close().await;
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let bytes = size(&with).saturating_sub(size(&without));
    let _ = std::fs::remove_file(&with);
    let _ = std::fs::remove_file(&without);
    bytes
}
