//! The small shared context every part of the service is given: configuration, the store and
//! its writer, the live hub, this instance, the parsed maps, the carrier board, the sources and
//! counters of `/metrics`. Handles only; who owns a run's life is [`super::supervisor`], and
//! the HTTP state around both is [`super::state::AppState`].

use std::collections::{BTreeMap, HashMap};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use chrono::Utc;
use serde::Serialize;

pub use super::config::valid_id;
use super::config::Config;
use super::error::{ApiError, ApiResult};
use super::hub::Hub;
use crate::ingest::health::SourceHealth as IngestHealth;
use crate::map::Map;
use crate::scenario::Scenario;
use crate::store::writer::Writer;
use crate::store::{MapRow, NewEvent, ScenarioRow, Store};

/// Cheaply cloneable handle to the shared context.
#[derive(Clone)]
pub struct Ctx(pub Arc<Shared>);

impl Deref for Ctx {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

pub struct Shared {
    pub config: Config,
    pub store: Store,
    pub writer: Writer,
    pub hub: Hub,
    pub maps: Mutex<HashMap<String, Arc<Map>>>,
    pub carriers: Mutex<BTreeMap<String, CarrierStatus>>,
    /// Live ingest sources, by name (the latest run's source of each name), for `/metrics`.
    pub sources: Mutex<BTreeMap<String, IngestHealth>>,
    pub metrics: Metrics,
    pub started: Instant,
    /// The Foxglove live view's hub when `foxglove_bind` is set: every run publishes into it.
    pub foxglove: Option<Arc<super::foxglove::FoxgloveHub>>,
    /// This instance among those sharing the database (its id and lease).
    pub instance: super::instance::Instance,
}

/// Last known state of a target carrier (from the engine's commands in the latest run).
#[derive(Debug, Clone, Serialize)]
pub struct CarrierStatus {
    pub id: String,
    pub targets: Vec<String>,
    pub scenarios: Vec<String>,
    /// `idle`, `started`, `retimed`, `stopped`, `finished`.
    pub state: String,
    pub run_id: Option<String>,
    pub updated_at: Option<chrono::DateTime<Utc>>,
    /// Dispatch mode: `simulated` (engine commands only) or `iso22133` (a real carrier of a run,
    /// its state from MONR: `DISARMED`, `ARMED`, `RUNNING`, `ABORTING`, …).
    pub mode: String,
    /// ISO 22133 address (`iso22133` mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// TCP connection up (`iso22133` mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connected: Option<bool>,
}

/// Counters for `/metrics`.
#[derive(Debug, Default)]
pub struct Metrics {
    pub http_requests: AtomicU64,
    pub runs_created: AtomicU64,
    pub runs_finished: AtomicU64,
    pub runs_aborted: AtomicU64,
    pub runs_failed: AtomicU64,
    pub samples_ingested: AtomicU64,
    pub engine_events: AtomicU64,
    pub ws_clients: AtomicU64,
    pub ws_frames_sent: AtomicU64,
    pub ws_lagged_frames: AtomicU64,
    pub uploads: AtomicU64,
    /// Audit entries the database did not take (the request itself was answered).
    pub audit_failures: AtomicU64,
    /// Live samples that could not be put on the map (skipped).
    pub samples_rejected: AtomicU64,
}

impl Metrics {
    pub fn inc(c: &AtomicU64) {
        c.fetch_add(1, Ordering::Relaxed);
    }
}

impl Shared {
    /// Builds a map row and its parsed map (parses the XML to validate it and fill the
    /// metadata). Cache the map ([`Self::cache_map`]) once the row is stored.
    pub fn map_row(
        &self,
        id: &str,
        file: &str,
        xml: String,
        bundled: bool,
    ) -> ApiResult<(MapRow, Arc<Map>)> {
        let od = opendrive::OpenDrive::from_str(&xml)
            .map_err(|e| ApiError::Unprocessable(format!("not a usable OpenDRIVE map: {e}")))?;
        let row = MapRow {
            id: id.to_string(),
            name: if od.header.name.is_empty() {
                id.to_string()
            } else {
                od.header.name.clone()
            },
            file_name: file.to_string(),
            bytes: xml.len() as i64,
            roads: od.roads.len() as i64,
            geo_reference: od.header.geo_reference.clone(),
            xodr: xml,
            bundled,
            created_at: Utc::now(),
        };
        Ok((row, Arc::new(Map::from_road_network(od))))
    }

    /// Keeps a parsed map for the runs and the GeoJSON of `id`.
    pub fn cache_map(&self, id: &str, map: Arc<Map>) {
        self.maps.lock().unwrap().insert(id.to_string(), map);
    }

    /// A stored scenario, parsed: 422 naming it when it is missing (`gone` words why, e.g.
    /// "does not exist") or does not parse.
    pub async fn load_scenario(
        &self,
        id: &str,
        gone: &str,
    ) -> ApiResult<(crate::store::ScenarioRow, crate::scenario::Scenario)> {
        let Some(row) = self.store.get_scenario(id).await? else {
            let why = if gone == "does not exist" {
                super::known::unknown(&self.store, "scenario", id).await
            } else {
                format!("scenario '{id}' {gone}")
            };
            return Err(ApiError::Unprocessable(why));
        };
        let sc = crate::scenario::Scenario::from_toml(&row.toml)
            .map_err(|e| ApiError::Unprocessable(format!("scenario '{id}': {e}")))?;
        Ok((row, sc))
    }

    /// [`Self::map`] of an optional map id.
    pub async fn map_opt(&self, id: Option<&str>) -> ApiResult<Option<Arc<Map>>> {
        match id {
            Some(m) => Ok(Some(self.map(m).await?)),
            None => Ok(None),
        }
    }

    /// The parsed map (cached).
    pub async fn map(&self, id: &str) -> ApiResult<Arc<Map>> {
        if let Some(m) = self.maps.lock().unwrap().get(id) {
            return Ok(m.clone());
        }
        let row = self
            .store
            .get_map(id)
            .await?
            .ok_or_else(|| ApiError::not_found("map", id))?;
        let od = tokio::task::spawn_blocking(move || opendrive::OpenDrive::from_str(&row.xodr))
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .map_err(|e| {
                ApiError::Internal(anyhow::anyhow!("stored map '{id}' does not parse: {e}"))
            })?;
        let m = Arc::new(Map::from_road_network(od));
        self.maps.lock().unwrap().insert(id.to_string(), m.clone());
        Ok(m)
    }

    /// Rebuilds the carrier list from the registered scenarios (keeps known states).
    pub async fn refresh_carriers(&self) -> anyhow::Result<()> {
        let scenarios = self.store.list_scenarios().await?;
        let mut c = self.carriers.lock().unwrap();
        for s in scenarios {
            let Ok(sc) = Scenario::from_toml(&s.toml) else {
                continue;
            };
            for t in sc.targets {
                let Some(id) = t.carrier else { continue };
                let e = c.entry(id.clone()).or_insert_with(|| CarrierStatus {
                    id,
                    targets: vec![],
                    scenarios: vec![],
                    state: "idle".into(),
                    run_id: None,
                    updated_at: None,
                    mode: "simulated".into(),
                    address: None,
                    connected: None,
                });
                if !e.targets.contains(&t.id) {
                    e.targets.push(t.id.clone());
                }
                if !e.scenarios.contains(&s.id) {
                    e.scenarios.push(s.id.clone());
                }
            }
        }
        Ok(())
    }

    /// A simulated carrier's state (from the engine's commands).
    pub fn set_carrier_state(&self, carrier: &str, state: &str, run_id: &str) {
        self.set_carrier_status(carrier, state, run_id, "simulated", None, None);
    }

    /// A carrier's state in `mode` (`simulated` or `iso22133`).
    pub fn set_carrier_status(
        &self,
        carrier: &str,
        state: &str,
        run_id: &str,
        mode: &str,
        address: Option<String>,
        connected: Option<bool>,
    ) {
        let mut c = self.carriers.lock().unwrap();
        let e = c
            .entry(carrier.to_string())
            .or_insert_with(|| CarrierStatus {
                id: carrier.to_string(),
                targets: vec![],
                scenarios: vec![],
                state: "idle".into(),
                run_id: None,
                updated_at: None,
                mode: mode.into(),
                address: None,
                connected: None,
            });
        e.state = state.to_string();
        e.run_id = Some(run_id.to_string());
        e.updated_at = Some(Utc::now());
        e.mode = mode.to_string();
        e.address = address;
        e.connected = connected;
    }

    /// Registers a live source's health for `/metrics` (replaces one of the same name).
    pub fn register_source(&self, h: IngestHealth) {
        let name = h.snapshot().source;
        self.sources.lock().unwrap().insert(name, h);
    }

    /// Queues an event for the events table (through the writer: never blocks, never lost
    /// silently).
    pub fn record_event(
        &self,
        run_id: Option<&str>,
        t: Option<f64>,
        kind: &str,
        payload: &serde_json::Value,
    ) {
        self.writer.send_event(NewEvent {
            run_id: run_id.map(str::to_string),
            t,
            kind: kind.to_string(),
            payload: payload.to_string(),
            created_at: Utc::now(),
        });
    }
}

/// Parses and validates a scenario; its map is `map_id`, else the stem of the scenario's `map`
/// file when such a map is registered.
pub fn scenario_row(
    id: &str,
    toml_text: &str,
    map_id: Option<String>,
    maps: &[String],
    bundled: bool,
) -> ApiResult<ScenarioRow> {
    let sc = Scenario::from_toml(toml_text)
        .map_err(|e| ApiError::Unprocessable(format!("invalid scenario: {e}")))?;
    let map_id = match map_id {
        Some(m) => {
            if !maps.contains(&m) {
                return Err(ApiError::Unprocessable(format!(
                    "map '{m}' is not registered"
                )));
            }
            Some(m)
        }
        None => sc
            .map
            .as_deref()
            .map(|m| stem(Path::new(m)))
            .filter(|m| maps.contains(m)),
    };
    Ok(ScenarioRow {
        id: id.to_string(),
        name: sc.name,
        map_id,
        toml: toml_text.to_string(),
        bundled,
        created_at: Utc::now(),
    })
}

pub fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == ext))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

pub fn stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

pub fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Data rows of a CSV file (non-empty lines after the header).
pub fn count_rows(p: &Path) -> std::io::Result<u64> {
    use std::io::BufRead;
    let f = std::io::BufReader::new(std::fs::File::open(p)?);
    let mut n = 0u64;
    for l in f.split(b'\n') {
        if !l?.iter().all(|b| b.is_ascii_whitespace()) {
            n += 1;
        }
    }
    Ok(n.saturating_sub(1))
}
