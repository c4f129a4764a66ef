//! `scil serve`: the proving-ground service — runs, persistence, REST API under `/api/v1`,
//! live WebSocket, bearer-token auth.
//!
//! Layout: one module per API resource, each with its own `router()` ([`runs`],
//! [`run_control`], [`replays`], [`scenarios`], [`maps`], [`carriers`], [`health`], [`metrics`],
//! [`live`], [`sweeps`], [`series`], [`openapi`], …), each a thin adapter. [`supervisor`] owns
//! every active run from create to stored result (the run itself is [`crate::run`]'s
//! session); [`context`] is the small shared context of handles it and the handlers are given;
//! [`state`] the HTTP state around both; [`startup`] builds them and recovers what a previous
//! process left; [`error`] the one error type; [`auth`] the roles; [`config`] the TOML file and
//! environment.
//! Persistence is [`crate::store`].

pub mod audit;
pub mod auth;
pub mod carriers;
pub mod catalogue;
pub mod config;
pub mod context;
pub mod dbcs;
pub mod error;
pub mod exports;
pub mod foxglove;
pub mod geojson_cache;
pub mod health;
pub mod history;
pub mod hub;
pub mod instance;
pub mod instances;
pub mod known;
pub mod live;
pub mod maps;
pub mod metrics;
pub mod objects;
pub mod openapi;
pub mod osi_stream;
pub mod plan;
pub mod records;
pub mod replay_fit;
pub mod replays;
pub mod reports;
pub mod run_control;
pub mod run_params;
pub mod runs;
pub mod scenario_upload;
pub mod scenarios;
pub mod series;
pub mod shared_files;
pub mod startup;
pub mod state;
pub mod supervisor;
pub mod sweep_jobs;
pub mod sweeps;
pub mod web;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use axum::Router;
use clap::Args;

pub use config::Config;
pub use state::AppState;

use crate::run::Pace;
use supervisor::{NewRun, RunSource};

/// The whole HTTP application.
pub fn app(state: AppState) -> Router {
    let limits = &state.config.limits;
    let api = Router::new()
        .merge(runs::router())
        .merge(run_control::router())
        .merge(run_params::router())
        .merge(exports::router())
        .merge(replays::router(limits.upload_max_bytes))
        .merge(scenarios::router(limits.document_max_bytes))
        .merge(maps::router(limits.map_max_bytes))
        .merge(carriers::router())
        .merge(dbcs::router())
        .merge(health::router())
        .merge(instances::router())
        .merge(metrics::router())
        .merge(live::router())
        .merge(sweeps::router())
        .merge(series::router(limits.document_max_bytes))
        .merge(catalogue::router())
        .merge(reports::router())
        .merge(openapi::router())
        .merge(audit::router())
        .merge(auth::router())
        .merge(records::router())
        .merge(objects::router())
        .fallback(error::not_found_fallback)
        .layer(axum::middleware::from_fn(error::json_errors))
        // Outside the JSON errors: the audit reads the reason a refusal gives.
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            audit::audit,
        ));
    Router::new()
        .nest("/api/v1", api)
        .merge(dashboard())
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            count_requests,
        ))
        .with_state(state)
}

async fn count_requests(State(st): State<AppState>, req: Request, next: Next) -> Response {
    st.metrics.http_requests.fetch_add(1, Ordering::Relaxed);
    next.run(req).await
}

/// The dashboard at `/`: the embedded `web/` assets.
fn dashboard() -> Router<AppState> {
    web::routes::<AppState>()
}

/// A running server (tests and `scil serve`).
pub struct Server {
    pub addr: SocketAddr,
    pub state: AppState,
    pub task: tokio::task::JoinHandle<std::io::Result<()>>,
    /// The Foxglove live view when `config.foxglove_bind` is set; every run
    /// publishes into its hub (`AppState::foxglove`) through a `FoxgloveSink`.
    pub foxglove: Option<foxglove::FoxgloveServer>,
}

/// Starts the state and binds `config.bind` (port 0 = ephemeral); serves in the background.
pub async fn spawn(config: Config) -> anyhow::Result<Server> {
    let listener = tokio::net::TcpListener::bind(&config.bind)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", config.bind))?;
    let addr = listener.local_addr()?;
    let mut config = config;
    if config.instance_id.is_none() {
        // Two instances on one host cannot listen on one port: the port tells them apart.
        config.instance_id = Some(instance::default_id(&instance::host_name(), addr.port()));
    }
    let state = AppState::start(config).await?;
    let fox = match (&state.config.foxglove_bind, &state.foxglove) {
        (Some(b), Some(hub)) => Some(foxglove::spawn(b, hub.clone()).await?),
        _ => None,
    };
    let router = app(state.clone());
    let task = tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(shutdown_signal())
            .await
    });
    Ok(Server {
        addr,
        state,
        task,
        foxglove: fox,
    })
}

/// Ctrl-C or SIGTERM (systemd, `docker stop`).
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(t) => t,
                Err(_) => {
                    let _ = tokio::signal::ctrl_c().await;
                    return;
                }
            };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}

#[derive(Args, Debug, Clone, Default)]
pub struct ServeArgs {
    /// Configuration file (TOML). Without it: embedded defaults.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Listen address (overrides the file and SCIL_BIND).
    #[arg(long)]
    pub bind: Option<String>,
    /// Database URL: sqlite://FILE or postgres://… (overrides the file and DATABASE_URL).
    #[arg(long)]
    pub database_url: Option<String>,
    /// Foxglove/Lichtblick live view: `foxglove.websocket.v1` server address (e.g.
    /// 127.0.0.1:8765; overrides the file's `foxglove_bind` and SCIL_FOXGLOVE_BIND).
    #[arg(long)]
    pub foxglove: Option<String>,
    /// Directory for telemetry rows the writer cannot hold in memory while the database fails
    /// (overrides the file's `telemetry.spill_dir` and SCIL_SPILL_DIR).
    #[arg(long)]
    pub spill_dir: Option<PathBuf>,
    /// Demo: loop the bundled 30 km/h CPNA replay in real time, a new run every loop.
    #[arg(long)]
    pub demo: bool,
    /// Take this instance id's lease although another process holds it: the restart of an
    /// instance that crashed on another machine (or whose process is stuck), before its lease
    /// expires (also SCIL_TAKE_OVER_INSTANCE=1).
    #[arg(long)]
    pub take_over_instance: bool,
}

/// `scil serve`.
pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let mut config = Config::load(args.config.as_deref())?;
    if let Some(b) = args.bind {
        config.bind = b;
    }
    if let Some(f) = args.foxglove {
        config.foxglove_bind = Some(f);
    }
    if let Some(u) = args.database_url {
        config.database_url = u;
    }
    if let Some(d) = args.spill_dir {
        config.telemetry.spill_dir = Some(d);
    }
    if args.take_over_instance {
        config.take_over_instance = true;
    }
    if std::env::var_os("RUST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .try_init();
    } else {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new("warn"))
            .with_writer(std::io::stderr)
            .try_init();
    }
    let rt = crate::run::runtime()?;
    rt.block_on(async move {
        let server = spawn(config).await?;
        let st = &server.state;
        eprintln!(
            "scil serve: http://{} (database: {}, dashboard at /, API at /api/v1)",
            server.addr,
            st.store.backend()
        );
        if let Some(f) = &server.foxglove {
            eprintln!(
                "scil serve: Foxglove/Lichtblick live view at ws://{} (foxglove.websocket.v1)",
                f.addr
            );
        }
        if let Some(t) = &st.generated_operator_token {
            eprintln!("scil serve: no operator token configured; generated one for this process:");
            eprintln!("  SCIL_OPERATOR_TOKEN={t}");
            eprintln!("  (set SCIL_OPERATOR_TOKEN or [auth] operator_tokens to choose your own)");
        }
        if args.demo {
            tokio::spawn(demo_loop(server.state.clone()));
        }
        server.task.await??;
        server.state.writer.flush(Duration::from_secs(5)).await;
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Deletes older demo runs (with their telemetry, events and results), keeping `keep`.
async fn prune_demo(st: &AppState, keep: u32) {
    match st.store.prune_demo_runs(keep).await {
        Ok(gone) if !gone.is_empty() => {
            tracing::info!("demo: deleted {} older demo run(s)", gone.len())
        }
        Ok(_) => {}
        Err(e) => eprintln!("demo: cannot delete older demo runs: {e}"),
    }
}

/// The demo: the bundled 30 km/h CPNA run, real time, again and again, on the demo's own track
/// (`[demo] track`), its runs marked `demo`; only the newest `[demo] keep_runs` are kept.
pub async fn demo_loop(st: AppState) {
    let mut n = 0u64;
    loop {
        n += 1;
        // Room for the run about to start: with it, at most `keep_runs` stored demo runs.
        prune_demo(&st, st.config.demo.keep_runs.saturating_sub(1)).await;
        let res = async {
            let row = st
                .supervisor
                .create(NewRun {
                    scenario_id: "cpna75_30kmh".into(),
                    map_id: None,
                    source: RunSource::CsvReplay {
                        replay_id: "cpna75_30kmh".into(),
                        file_name: "cpna75_30kmh.csv".into(),
                    },
                    can: None,
                    can_mapping: None,
                    speed: Pace::Factor(1.0),
                    carriers: Vec::new(),
                    sync: false,
                    record: false,
                    track: None,
                    demo: true,
                    virtual_targets: Vec::new(),
                    osi: None,
                })
                .await?;
            st.supervisor.arm(&row.id, None).await?;
            st.supervisor.start(&row.id, None).await?;
            eprintln!("demo: run {n} ({}) started", row.id);
            let done = st
                .supervisor
                .wait_done(&row.id, Duration::from_secs(600))
                .await?;
            let result = st.store.get_result(&row.id).await?.unwrap_or_default();
            let v: serde_json::Value = serde_json::from_str(&result).unwrap_or_default();
            let trig = &v["triggers"][0];
            eprintln!(
                "demo: run {n} {}: trigger at t={} s (TTC {} s), impacts {}",
                done.state,
                trig["time_s"],
                trig["ttc_s"],
                v["impacts"].as_array().map_or(0, |a| a.len())
            );
            Ok::<_, error::ApiError>(())
        }
        .await;
        if let Err(e) = res {
            eprintln!("demo: run {n}: {e}");
        }
        prune_demo(&st, st.config.demo.keep_runs).await;
        tokio::time::sleep(Duration::from_secs(3)).await;
    }
}
