//! Startup of the service: the store, the writer, the run supervisor's recovery of what a
//! previous process left (runs, carrier claims) and its lease keeper, the files and test
//! series a previous process left, and the bundled data.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use chrono::Utc;

use super::auth::{generate_token, Person, Tokens};
use super::config::Config;
use super::context::{count_rows, file_name, files, scenario_row, stem, Ctx, Metrics, Shared};
use super::dbcs::dbc_row;
use super::foxglove::FoxgloveHub;
use super::geojson_cache::GeoCache;
use super::hub::Hub;
use super::instance::Instance;
use super::series::attempts;
use super::shared_files;
use super::state::{AppState, Inner};
use super::supervisor::Supervisor;
use crate::store::writer::Writer;
use crate::store::{ReplayRow, Store};

impl AppState {
    /// Connects the store, starts the writer, registers the bundled data and fails runs left
    /// active by a previous process.
    pub async fn start(config: Config) -> anyhow::Result<AppState> {
        config.validate()?;
        let instance = Instance::from_config(&config)?;
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
        let mut tokens = Tokens::from_config(&config);
        let generated = if tokens.operator.is_empty() {
            let t = generate_token();
            tokens.operator.push(Person::clear("operator", &t));
            Some(t)
        } else {
            None
        };
        let upload_dir = config.storage_dir.join("uploads");
        let config_foxglove = config
            .foxglove_bind
            .as_ref()
            .map(|_| FoxgloveHub::new(4096));
        let geojson = GeoCache::new(config.limits.geojson_cache_bytes);
        std::fs::create_dir_all(&upload_dir)
            .map_err(|e| anyhow::anyhow!("{}: cannot create: {e}", upload_dir.display()))?;
        let ctx = Ctx(Arc::new(Shared {
            config,
            store,
            writer,
            hub,
            maps: Mutex::new(HashMap::new()),
            carriers: Mutex::new(BTreeMap::new()),
            sources: Mutex::new(BTreeMap::new()),
            metrics: Metrics::default(),
            started: Instant::now(),
            foxglove: config_foxglove,
            instance,
        }));
        let state = AppState(Arc::new(Inner {
            supervisor: Supervisor::new(ctx.clone()),
            ctx,
            tokens,
            generated_operator_token: generated,
            geojson,
            upload_dir,
            sweeps: Default::default(),
        }));
        // Runs a stopped process left; test series give their points back.
        let failed = state.supervisor.recover().await?;
        give_back_points(&state, failed);
        let weak = Arc::downgrade(&state.0);
        state.supervisor.keep_lease(Arc::new(move |failed| {
            if let Some(inner) = weak.upgrade() {
                give_back_points(&AppState(inner), failed);
            }
        }));
        let (replays, recordings) = migrate_local(&state).await?;
        if replays + recordings > 0 {
            tracing::warn!(
                "moved {replays} uploaded replay(s) and {recordings} recording(s) from the local storage directory into the database"
            );
        }
        state.register_bundled().await?;
        state.refresh_carriers().await?;
        // Test series: attempts whose run ended while no process watched.
        attempts::recover(&state).await?;
        spawn_upkeep(&state);
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
            match Shared::map_row(self, &stem(&p), &file_name(&p), xml, true) {
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
            match dbc_row(&stem(&p), &file_name(&p), text, true) {
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
                    kind: "csv".into(),
                    sha256: super::replays::sha256_file(&p).ok(),
                    columns: None,
                })
                .await?;
        }
        Ok(())
    }
}

/// Test series whose point was being run by one of the failed runs give the point back.
fn give_back_points(st: &AppState, failed: Vec<String>) {
    if !failed.is_empty() {
        tokio::spawn(attempts::settle_runs(st.clone(), failed));
    }
}

/// At startup with PostgreSQL: local files from before the database held them (or from a
/// time this instance ran on its own) go into the database. Uploaded replays whose row still
/// names a local file in this instance's storage directory, and recordings in
/// `<storage_dir>/recordings/` of runs in the database without a stored copy. Files of other
/// instances are migrated when those start. Returns (replays, recordings) migrated.
pub async fn migrate_local(st: &AppState) -> anyhow::Result<(usize, usize)> {
    if !shared_files::shared(st) {
        return Ok((0, 0));
    }
    let mut replays = 0;
    let own = own_dir(&st.config.storage_dir);
    for r in st.store.list_replays().await? {
        // Only this instance's own files: another instance on this host moves its own when it
        // starts (its storage directory, its cache).
        if r.bundled
            || r.path.starts_with(shared_files::DB_PREFIX)
            || !Path::new(&r.path).is_file()
            || !own_dir(Path::new(&r.path)).starts_with(&own)
        {
            continue;
        }
        let path = shared_files::share_replay(st, &r.id, Path::new(&r.path)).await?;
        st.store
            .upsert_replay(&ReplayRow { path, ..r.clone() })
            .await?;
        replays += 1;
    }
    let mut recordings = 0;
    let dir = st.config.storage_dir.join("recordings");
    if let Ok(mut rd) = tokio::fs::read_dir(&dir).await {
        while let Some(e) = rd.next_entry().await? {
            let p = e.path();
            let Some(run_id) = p
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".mcap"))
                .map(str::to_string)
            else {
                continue;
            };
            if st.supervisor.is_active(&run_id)
                || st.store.get_run(&run_id).await?.is_none()
                || st
                    .store
                    .blob_info(&shared_files::recording_blob(&run_id))
                    .await?
                    .is_some()
            {
                continue;
            }
            st.store
                .put_blob_from_file(&shared_files::recording_blob(&run_id), "recording", &p)
                .await?;
            recordings += 1;
        }
    }
    Ok((replays, recordings))
}

/// A path made absolute and free of symbolic links where it exists, to compare directories.
fn own_dir(p: &Path) -> std::path::PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The stored telemetry's upkeep, in the background (the service answers meanwhile; every
/// reader reads rows and chunks alike): finished runs' rows into chunks (a compaction cut
/// short by a crash, or a database from before chunks), then retention (`telemetry.keep_days`,
/// audited), at startup and hourly.
fn spawn_upkeep(state: &AppState) {
    let weak = Arc::downgrade(&state.0);
    tokio::spawn(async move {
        loop {
            let Some(inner) = weak.upgrade() else {
                return;
            };
            let st = AppState(inner);
            match st.store.compact_pending(|_, _| {}).await {
                Ok(c) if c.rows > 0 => tracing::info!(
                    "{} telemetry rows of finished runs compacted into {} bytes of chunks",
                    c.rows,
                    c.bytes
                ),
                Ok(_) => {}
                Err(e) => tracing::error!("telemetry compaction (kept as rows, retried): {e}"),
            }
            if let Some(days) = st.config.telemetry.keep_days {
                let before = chrono::Utc::now() - chrono::Duration::days(i64::from(days));
                match crate::cli::db::prune_audited(
                    &st.store,
                    before,
                    "retention",
                    "telemetry.keep_days",
                )
                .await
                {
                    Ok(ids) if !ids.is_empty() => tracing::info!(
                        "retention: telemetry of {} runs older than {days} days dropped",
                        ids.len()
                    ),
                    Ok(_) => {}
                    Err(e) => tracing::error!("retention: {e}"),
                }
            }
            drop(st);
            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
        }
    });
}
