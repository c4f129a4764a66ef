//! `scil export RUN --parquet [--mcap] [--mf4] [--osi] [--xosc OUT.xosc]`: a stored run's telemetry and events
//! for other tools.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use crate::record::messages::Encoder;
use crate::store::Store;

#[derive(Args, Debug, Clone)]
pub struct ExportArgs {
    /// Run id (as listed by `GET /api/v1/runs`).
    pub run: String,
    /// Write RUN.telemetry.parquet and RUN.events.parquet.
    #[arg(long)]
    pub parquet: bool,
    /// Write RUN.mcap (Foxglove channels from the stored telemetry and events).
    #[arg(long)]
    pub mcap: bool,
    /// Write RUN.mf4 (ASAM MDF 4.10: one channel group per vehicle, and the events).
    #[arg(long)]
    pub mf4: bool,
    /// Write RUN.osi (ASAM OSI trace: one `osi3.SensorView` per VUT sample; docs/osi.md).
    #[arg(long)]
    pub osi: bool,
    /// Write the run as OpenSCENARIO 1.3 (every actor replays its recorded motion; the run's
    /// map is written beside it as OUT.xodr).
    #[arg(long, value_name = "OUT.xosc")]
    pub xosc: Option<PathBuf>,
    /// Output directory.
    #[arg(long, short, default_value = ".")]
    pub out: PathBuf,
    /// Database URL (default: DATABASE_URL, else the service default sqlite://scil.db).
    #[arg(long)]
    pub database_url: Option<String>,
}

/// `scil export`.
pub fn run(a: ExportArgs) -> anyhow::Result<ExitCode> {
    if !a.parquet && !a.mcap && !a.mf4 && !a.osi && a.xosc.is_none() {
        anyhow::bail!(
            "nothing to export: give --parquet, --mcap, --mf4, --osi and/or --xosc OUT.xosc"
        );
    }
    let url = super::database_url(&a.database_url);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(export(&url, &a))?;
    Ok(ExitCode::SUCCESS)
}

async fn export(url: &str, a: &ExportArgs) -> anyhow::Result<()> {
    let store = Store::connect(url).await?;
    let Some((run, rows, events)) = crate::serve::exports::load_run(&store, &a.run).await? else {
        anyhow::bail!("no run '{}' in {url}", a.run);
    };
    std::fs::create_dir_all(&a.out)?;
    let file = |suffix: &str| a.out.join(format!("{}.{suffix}", a.run));
    if a.parquet {
        let p = file("telemetry.parquet");
        crate::record::parquet::write_telemetry(create(&p)?, &rows)?.flush()?;
        eprintln!("{}: {} telemetry rows", p.display(), rows.len());
        let p = file("events.parquet");
        crate::record::parquet::write_events(create(&p)?, &events)?.flush()?;
        eprintln!("{}: {} events", p.display(), events.len());
    }
    if a.mf4 {
        let made = chrono::Utc::now().timestamp_nanos_opt().unwrap_or(0).max(0) as u64;
        let p = file("mf4");
        std::fs::write(&p, crate::record::mdf4::write_run(&rows, &events, made))?;
        eprintln!("{}: {} telemetry rows", p.display(), rows.len());
    }
    if a.mcap || a.osi {
        let scenario = store
            .get_scenario(&run.scenario_id)
            .await?
            .and_then(|s| crate::scenario::Scenario::from_toml(&s.toml).ok());
        let map = match &run.map_id {
            Some(m) => store
                .get_map(m)
                .await?
                .and_then(|r| opendrive::OpenDrive::from_str(&r.xodr).ok())
                .map(crate::map::Map::from_road_network),
            None => None,
        };
        let osi = crate::serve::exports::osi_encoder(&run, scenario.as_ref(), map.as_ref());
        if a.osi {
            let Some(mut enc) = osi.clone() else {
                anyhow::bail!(
                    "run '{}': its scenario '{}' is gone; OSI needs its objects",
                    a.run,
                    run.scenario_id
                );
            };
            let frames = crate::osi::Frame::from_rows(&rows);
            let p = file("osi");
            std::fs::write(&p, enc.trace(&frames))?;
            eprintln!("{}: {} SensorView messages", p.display(), frames.len());
        }
        if a.mcap {
            let bytes = crate::record::mcap_from_store(
                &rows,
                &events,
                Encoder::new(scenario.as_ref(), map.as_ref()),
                osi,
            )?;
            let p = file("mcap");
            std::fs::write(&p, &bytes)?;
            eprintln!("{}: {} bytes", p.display(), bytes.len());
        }
    }
    if let Some(out) = &a.xosc {
        let scenario = store
            .get_scenario(&run.scenario_id)
            .await?
            .and_then(|s| crate::scenario::Scenario::from_toml(&s.toml).ok());
        let xodr = match &run.map_id {
            Some(m) => store.get_map(m).await?.map(|r| r.xodr),
            None => None,
        };
        let n =
            crate::xosc::export::write_files(out, &run, &rows, scenario.as_ref(), xodr.as_deref())?;
        eprintln!("{}: {n} actors", out.display());
    }
    store.close().await;
    Ok(())
}

fn create(p: &Path) -> anyhow::Result<std::io::BufWriter<std::fs::File>> {
    let f = std::fs::File::create(p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    Ok(std::io::BufWriter::new(f))
}
