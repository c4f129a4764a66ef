//! Files in the database (uploaded replays, run recordings), so that every instance sharing a
//! PostgreSQL can read them: chunked `bytea` rows of [`CHUNK_BYTES`], written from a file and
//! read back one chunk at a time (a file is never held whole in memory). A blob becomes
//! visible (`complete`) in the transaction that writes its last chunk.

use std::path::Path;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{Db, Store, StoreResult};

/// Bytes per chunk row.
pub const CHUNK_BYTES: usize = 1 << 20;

/// A complete blob: its size and chunk count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlobInfo {
    pub bytes: i64,
    pub chunks: i64,
}

impl Store {
    /// Stores the file at `path` as blob `id` (replacing a previous one), streaming it in
    /// chunks inside one transaction. Returns its size.
    pub async fn put_blob_from_file(
        &self,
        id: &str,
        kind: &str,
        path: &Path,
    ) -> anyhow::Result<u64> {
        let mut f = tokio::fs::File::open(path)
            .await
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let mut buf = vec![0u8; CHUNK_BYTES];
        let now = chrono::Utc::now().timestamp_millis();
        macro_rules! body {
            ($p:expr) => {{
                let mut tx = $p.begin().await?;
                sqlx::query(
                    "INSERT INTO blobs (id, kind, bytes, chunks, complete, created_ms) \
                     VALUES ($1, $2, 0, 0, FALSE, $3) ON CONFLICT (id) DO UPDATE SET \
                     kind = excluded.kind, bytes = 0, chunks = 0, complete = FALSE, \
                     created_ms = excluded.created_ms",
                )
                .bind(id)
                .bind(kind)
                .bind(now)
                .execute(&mut *tx)
                .await?;
                // The blob's row is locked by the upsert above before its old chunks go: a
                // second writer of the same id (two instances registering the same bundled
                // file at once) waits here and then sees, and deletes, the first one's chunks.
                sqlx::query("DELETE FROM blob_chunks WHERE blob_id = $1")
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                let (mut total, mut seq) = (0u64, 0i64);
                loop {
                    // Fill a whole chunk (a read may return less).
                    let mut n = 0;
                    while n < buf.len() {
                        let k = f
                            .read(&mut buf[n..])
                            .await
                            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
                        if k == 0 {
                            break;
                        }
                        n += k;
                    }
                    if n == 0 {
                        break;
                    }
                    sqlx::query("INSERT INTO blob_chunks (blob_id, seq, data) VALUES ($1, $2, $3)")
                        .bind(id)
                        .bind(seq)
                        .bind(&buf[..n])
                        .execute(&mut *tx)
                        .await?;
                    total += n as u64;
                    seq += 1;
                    if n < buf.len() {
                        break;
                    }
                }
                sqlx::query(
                    "UPDATE blobs SET bytes = $2, chunks = $3, complete = TRUE WHERE id = $1",
                )
                .bind(id)
                .bind(total as i64)
                .bind(seq)
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok::<u64, anyhow::Error>(total)
            }};
        }
        match &self.db {
            Db::Sqlite(p) => body!(p),
            Db::Postgres(p) => body!(p),
        }
    }

    /// The complete blob `id`, if any.
    pub async fn blob_info(&self, id: &str) -> StoreResult<Option<BlobInfo>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_as::<DB, (i64, i64)>(
                "SELECT bytes, chunks FROM blobs WHERE id = $1 AND complete = TRUE",
            )
            .bind(id)
            .fetch_optional(p)
            .await
            .map(|r| r.map(|(bytes, chunks)| BlobInfo { bytes, chunks }))
        })
    }

    /// Chunk `seq` of blob `id`.
    pub async fn blob_chunk(&self, id: &str, seq: i64) -> StoreResult<Option<Vec<u8>>> {
        on_db!(&self.db, |p, DB| {
            sqlx::query_scalar::<DB, Vec<u8>>(
                "SELECT data FROM blob_chunks WHERE blob_id = $1 AND seq = $2",
            )
            .bind(id)
            .bind(seq)
            .fetch_optional(p)
            .await
        })
    }

    /// Writes blob `id` to `dest` one chunk at a time (through a temporary file beside it,
    /// renamed when complete). `Ok(false)` when there is no such blob.
    pub async fn blob_to_file(&self, id: &str, dest: &Path) -> anyhow::Result<bool> {
        let Some(info) = self.blob_info(id).await? else {
            return Ok(false);
        };
        if let Some(dir) = dest.parent() {
            tokio::fs::create_dir_all(dir).await?;
        }
        // A name of its own: two requests may fetch the same blob at once.
        let part = dest.with_extension(format!("part-{}", uuid::Uuid::new_v4().simple()));
        let mut f = tokio::fs::File::create(&part)
            .await
            .map_err(|e| anyhow::anyhow!("{}: {e}", part.display()))?;
        let mut written = 0i64;
        for seq in 0..info.chunks {
            let data = self
                .blob_chunk(id, seq)
                .await?
                .ok_or_else(|| anyhow::anyhow!("blob {id}: chunk {seq} is missing"))?;
            f.write_all(&data).await?;
            written += data.len() as i64;
        }
        f.flush().await?;
        f.sync_all().await?;
        drop(f);
        if written != info.bytes {
            let _ = tokio::fs::remove_file(&part).await;
            anyhow::bail!("blob {id}: {written} bytes read, {} stored", info.bytes);
        }
        tokio::fs::rename(&part, dest).await?;
        Ok(true)
    }
}
