//! Shared application state, startup (database, writer, bundled data registration) and the
//! small registries that live in memory (active runs, parsed maps, carrier states, metrics).

use std::collections::{BTreeMap, HashMap};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use chrono::Utc;
use serde::Serialize;

use super::auth::{generate_token, Tokens};
use super::config::Config;
use super::error::{ApiError, ApiResult};
use super::lifecycle::ActiveRun;
use super::live::Hub;
use crate::ingest::health::SourceHealth as IngestHealth;
use crate::map::Map;
use crate::scenario::Scenario;
use crate::store::writer::Writer;
use crate::store::{MapRow, NewEvent, ReplayRow, ScenarioRow, Store};

/// Cheaply cloneable handle to the service state.
#[derive(Clone)]
pub struct AppState(pub Arc<Inner>);

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

pub struct Inner {
    pub config: Config,
    pub store: Store,
    pub writer: Writer,
    pub tokens: Tokens,
    /// Set when no operator token was configured and one was generated at startup.
    pub generated_operator_token: Option<String>,
    pub hub: Hub,
    pub runs: Mutex<HashMap<String, Arc<ActiveRun>>>,
    pub maps: Mutex<HashMap<String, Arc<Map>>>,
    /// Generated `/maps/{id}/geojson` documents, bounded by `limits.geojson_cache_bytes`.
    pub geojson: super::geojson_cache::GeoCache,
    pub carriers: Mutex<BTreeMap<String, CarrierStatus>>,
    /// Live ingest sources, by name (the latest run's source of each name), for `/metrics`.
    pub sources: Mutex<BTreeMap<String, IngestHealth>>,
    pub metrics: Metrics,
    pub started: Instant,
    pub upload_dir: PathBuf,
    /// Sweeps run by the service.
    pub sweeps: super::sweeps::Registry,
    /// The Foxglove live view's hub when `foxglove_bind` is set: every run publishes into it.
    pub foxglove: Option<Arc<super::foxglove::FoxgloveHub>>,
    /// Ended runs whose final state or result is not stored yet.
    pub unsaved: super::unsaved::Unsaved,
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
    /// Live samples that could not be put on the map (skipped).
    pub samples_rejected: AtomicU64,
}

impl Metrics {
    pub fn inc(c: &AtomicU64) {
        c.fetch_add(1, Ordering::Relaxed);
    }
}

impl AppState {
    /// Connects the store, starts the writer, registers the bundled data and fails runs left
    /// active by a previous process.
    pub async fn start(config: Config) -> anyhow::Result<AppState> {
        config.validate()?;
        let instance = super::instance::Instance::from_config(&config)?;
        if let Some(d) = &config.telemetry.spill_dir {
            std::fs::create_dir_all(d).map_err(|e| {
                anyhow::anyhow!("telemetry.spill_dir {}: cannot create: {e}", d.display())
            })?;
        }
        let store = Store::connect(&config.database_url).await?;
        let hub = Hub::new();
        let hub_for_errors = hub.clone();
        let writer = Writer::spawn(
            store.clone(),
            config.telemetry.writer(),
            Some(Arc::new(move |msg: &str| hub_for_errors.store_error(msg))),
        );
        let mut tokens = Tokens {
            operator: config.auth.operator_tokens.clone(),
            viewer: config.auth.viewer_tokens.clone(),
            read_requires_token: config.auth.read_requires_token,
        };
        let generated = if tokens.operator.is_empty() {
            let t = generate_token();
            tokens.operator.push(t.clone());
            Some(t)
        } else {
            None
        };
        let upload_dir = config.storage_dir.join("uploads");
        let config_foxglove = config
            .foxglove_bind
            .as_ref()
            .map(|_| super::foxglove::FoxgloveHub::new(4096));
        let geojson = super::geojson_cache::GeoCache::new(config.limits.geojson_cache_bytes);
        std::fs::create_dir_all(&upload_dir)
            .map_err(|e| anyhow::anyhow!("{}: cannot create: {e}", upload_dir.display()))?;
        let state = AppState(Arc::new(Inner {
            config,
            store,
            writer,
            tokens,
            generated_operator_token: generated,
            hub,
            runs: Mutex::new(HashMap::new()),
            maps: Mutex::new(HashMap::new()),
            geojson,
            carriers: Mutex::new(BTreeMap::new()),
            sources: Mutex::new(BTreeMap::new()),
            metrics: Metrics::default(),
            started: Instant::now(),
            upload_dir,
            sweeps: Default::default(),
            foxglove: config_foxglove,
            unsaved: Default::default(),
            instance,
        }));
        // Runs of this instance's previous process and of instances whose lease expired; a
        // live instance's runs are left alone.
        let failed = state
            .instance
            .claim(&state.store, state.config.take_over_instance)
            .await?;
        super::instance::report_failed(
            &state,
            &failed,
            "left active by a stopped process (this instance's previous one, or one whose lease expired)",
        );
        super::instance::spawn_heartbeat(&state);
        let (replays, recordings) = super::shared_files::migrate_local(&state).await?;
        if replays + recordings > 0 {
            tracing::warn!(
                "moved {replays} uploaded replay(s) and {recordings} recording(s) from the local storage directory into the database"
            );
        }
        let n = state.store.release_stale_claims().await?;
        if n > 0 {
            tracing::warn!("{n} carrier claim(s) of ended runs released");
        }
        state.register_bundled().await?;
        state.refresh_carriers().await?;
        // Test series: attempts whose run ended while no process watched.
        super::series_run::recover(&state).await?;
        Ok(state)
    }

    /// Registers the bundled map(s), scenarios and replays (idempotent; ids are file stems).
    async fn register_bundled(&self) -> anyhow::Result<()> {
        let data = self.config.data_dir();
        let now = Utc::now();
        // The proving ground's maps, and the road networks of the bundled OpenSCENARIO
        // library (what an uploaded Euro NCAP .xosc names).
        let mut map_files = files(&data.join("opendrive"), "xodr");
        map_files.extend(files(&data.join("osc-ncap/OpenDRIVE/NCAP"), "xodr"));
        for p in map_files {
            let xml = std::fs::read_to_string(&p)?;
            match self.map_row(&stem(&p), &file_name(&p), xml, true) {
                Ok((row, map)) => {
                    self.store.upsert_map(&row).await?;
                    self.cache_map(&row.id, map);
                }
                Err(e) => tracing::warn!("bundled map {}: {e}", p.display()),
            }
        }
        let maps = self.store.map_ids().await?;
        let mut scenario_ids = Vec::new();
        let mut scenario_maps = HashMap::new();
        for p in files(&data.join("scenarios"), "toml") {
            let text = std::fs::read_to_string(&p)?;
            match scenario_row(&stem(&p), &text, None, &maps, true) {
                Ok(row) => {
                    scenario_ids.push(row.id.clone());
                    scenario_maps.insert(row.id.clone(), row.map_id.clone());
                    self.store.upsert_scenario(&row).await?
                }
                Err(e) => tracing::warn!("bundled scenario {}: {e}", p.display()),
            }
        }
        for p in files(&data.join("can"), "dbc") {
            let bytes = std::fs::read(&p)?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            match super::dbcs::dbc_row(&stem(&p), &file_name(&p), text, true) {
                Ok(row) => self.store.upsert_dbc(&row).await?,
                Err(e) => tracing::warn!("bundled DBC {}: {e}", p.display()),
            }
        }
        for p in files(&data.join("replays"), "csv") {
            let id = stem(&p);
            let scenario_id = scenario_ids
                .iter()
                .filter(|s| id.starts_with(s.as_str()))
                .max_by_key(|s| s.len())
                .cloned();
            let meta = std::fs::metadata(&p)?;
            let rows = count_rows(&p).unwrap_or(0);
            let abs = p.canonicalize().unwrap_or(p.clone());
            // Recorded on its scenario's map; the bundled recordings are all on the bundled
            // proving ground.
            let map_id = scenario_id
                .as_ref()
                .and_then(|s| scenario_maps.get(s).cloned().flatten())
                .or_else(|| maps.iter().find(|m| *m == "proving_ground").cloned());
            self.store
                .upsert_replay(&ReplayRow {
                    map_id,
                    id: id.clone(),
                    name: file_name(&p),
                    scenario_id,
                    path: abs.display().to_string(),
                    bytes: meta.len() as i64,
                    row_count: rows as i64,
                    bundled: true,
                    created_at: now,
                })
                .await?;
        }
        Ok(())
    }

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
        let row = self
            .store
            .get_scenario(id)
            .await?
            .ok_or_else(|| ApiError::Unprocessable(format!("scenario '{id}' {gone}")))?;
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

/// Ids are what users type in URLs: letters, digits, `_`, `-`, `.` (not leading), ≤ 64 chars.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
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

fn file_name(p: &Path) -> String {
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
