//! `GET /maps/{id}/geojson`: the document is generated once per map and coordinate system,
//! streamed feature by feature into a byte buffer (no `serde_json::Value` tree: a 5 MB map took
//! the server from 118 MB to 3.6 GB that way), and kept in a cache bounded in bytes. One
//! generation at a time, so concurrent first requests do not multiply the memory.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;

use crate::map::Map;

type Key = (String, bool, usize);

pub struct GeoCache {
    max_bytes: u64,
    entries: Mutex<HashMap<Key, (Bytes, u64)>>,
    tick: std::sync::atomic::AtomicU64,
    generating: tokio::sync::Mutex<()>,
}

/// Why a document could not be made.
pub enum GeoCacheError {
    /// The map cannot be exported so (no geoReference for WGS84, unsupported projection).
    Map(String),
    Internal(String),
}

impl GeoCache {
    pub fn new(max_bytes: u64) -> Self {
        GeoCache {
            max_bytes,
            entries: Mutex::new(HashMap::new()),
            tick: Default::default(),
            generating: tokio::sync::Mutex::new(()),
        }
    }

    fn lookup(&self, key: &Key) -> Option<Bytes> {
        let t = self.tick.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut m = self.entries.lock().ok()?;
        m.get_mut(key).map(|(b, used)| {
            *used = t;
            b.clone()
        })
    }

    /// Bytes held by the cache.
    pub fn bytes(&self) -> u64 {
        self.entries
            .lock()
            .map(|m| m.values().map(|(b, _)| b.len() as u64).sum())
            .unwrap_or(0)
    }

    /// The GeoJSON of map `id` (its parsed `map`), generated on first use.
    pub async fn get(&self, id: &str, map: Arc<Map>, wgs84: bool) -> Result<Bytes, GeoCacheError> {
        let key = (id.to_string(), wgs84, Arc::as_ptr(&map) as usize);
        if let Some(b) = self.lookup(&key) {
            return Ok(b);
        }
        let _one = self.generating.lock().await;
        if let Some(b) = self.lookup(&key) {
            return Ok(b);
        }
        let bytes = tokio::task::spawn_blocking(move || {
            let mut out = Vec::new();
            crate::map::write_lanes_geojson(&map.road_network, wgs84, &mut out).map(|()| out)
        })
        .await
        .map_err(|e| GeoCacheError::Internal(e.to_string()))?
        .map_err(|e| match e {
            opendrive::geojson::WriteError::Geo(g) => GeoCacheError::Map(g.to_string()),
            other => GeoCacheError::Internal(other.to_string()),
        })?;
        let bytes = Bytes::from(bytes);
        self.insert(key, bytes.clone());
        Ok(bytes)
    }

    fn insert(&self, key: Key, bytes: Bytes) {
        let len = bytes.len() as u64;
        if len > self.max_bytes {
            return; // served, not kept
        }
        let Ok(mut m) = self.entries.lock() else {
            return;
        };
        // Entries of a replaced map (same id, other parse) are dead.
        m.retain(|k, _| !(k.0 == key.0 && k.2 != key.2));
        let mut total: u64 = m.values().map(|(b, _)| b.len() as u64).sum();
        while total + len > self.max_bytes {
            let Some(oldest) = m
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some((b, _)) = m.remove(&oldest) {
                total -= b.len() as u64;
            }
        }
        let t = self.tick.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        m.insert(key, (bytes, t));
    }
}
