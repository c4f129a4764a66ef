//! `scil db compact` and `scil db prune --before DATE`: the stored telemetry's upkeep.

use std::process::ExitCode;

use chrono::{DateTime, NaiveDate, Utc};
use clap::{Args, Subcommand};

use crate::store::audit::NewAudit;
use crate::store::Store;

#[derive(Subcommand, Debug)]
pub enum DbCommand {
    /// Compact every finished run's telemetry rows into columnar chunks (what the service does
    /// at each run's end and at startup), with a progress bar.
    Compact {
        #[command(flatten)]
        db: DbArgs,
        /// SQLite: then give the freed pages back to the file system (`VACUUM`; needs free
        /// space the size of the database while it runs).
        #[arg(long)]
        vacuum: bool,
    },
    /// Drop the telemetry of runs finished before DATE (the runs keep their events, results
    /// and record; the drop is written to the audit trail).
    Prune {
        /// `YYYY-MM-DD` (midnight UTC) or an RFC 3339 time.
        #[arg(long, value_name = "DATE")]
        before: String,
        #[command(flatten)]
        db: DbArgs,
    },
}

#[derive(Args, Debug)]
pub struct DbArgs {
    /// Database URL (default: DATABASE_URL, else the service default sqlite://scil.db).
    #[arg(long)]
    pub database_url: Option<String>,
}

/// A date as `--before` takes it.
pub fn parse_date(s: &str) -> anyhow::Result<DateTime<Utc>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok(t.with_timezone(&Utc));
    }
    let d = NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|_| {
        anyhow::anyhow!("--before '{s}': not a date (YYYY-MM-DD or an RFC 3339 time)")
    })?;
    Ok(d.and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc())
        .unwrap_or_default())
}

pub fn run(cmd: DbCommand) -> anyhow::Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        match cmd {
            DbCommand::Compact { db, vacuum } => {
                compact(&super::database_url(&db.database_url), vacuum).await
            }
            DbCommand::Prune { before, db } => {
                let before = parse_date(&before)?;
                prune(&super::database_url(&db.database_url), before).await
            }
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

async fn compact(url: &str, vacuum: bool) -> anyhow::Result<()> {
    let store = Store::connect(url).await?;
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("compacting {pos}/{len} runs {wide_bar} {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let done = store
        .compact_pending(|i, n| {
            bar.set_length(n as u64);
            bar.set_position(i as u64);
        })
        .await?;
    bar.finish_and_clear();
    println!(
        "{} telemetry rows compacted: {} samples in {} bytes of chunks",
        done.rows, done.samples, done.bytes
    );
    if vacuum && store.backend() == "sqlite" {
        store.checkpoint(true).await?;
        store.execute_raw("VACUUM").await?;
        println!("database vacuumed");
    }
    store.close().await;
    Ok(())
}

/// Drops old runs' telemetry and writes the drop to the audit trail (who: the CLI's user).
pub async fn prune_audited(
    store: &Store,
    before: DateTime<Utc>,
    who: &str,
    path: &str,
) -> anyhow::Result<Vec<String>> {
    let ids = store.prune_telemetry(before).await?;
    let detail = serde_json::json!({
        "before": before.to_rfc3339(),
        "runs": ids.len(),
        "run_ids": ids.iter().take(100).collect::<Vec<_>>(),
    });
    store
        .append_audit(&NewAudit {
            at: Utc::now(),
            who: who.to_string(),
            action: "prune telemetry".into(),
            target: "telemetry".into(),
            method: "CLI".into(),
            path: path.into(),
            status: 200,
            detail: detail.to_string(),
        })
        .await?;
    Ok(ids)
}

async fn prune(url: &str, before: DateTime<Utc>) -> anyhow::Result<()> {
    let store = Store::connect(url).await?;
    let who = std::env::var("USER").unwrap_or_else(|_| "cli".into());
    let ids = prune_audited(&store, before, &who, "scil db prune").await?;
    println!(
        "telemetry of {} runs finished before {} dropped",
        ids.len(),
        before.to_rfc3339()
    );
    store.close().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates() {
        assert_eq!(
            super::parse_date("2026-01-02").unwrap().to_rfc3339(),
            "2026-01-02T00:00:00+00:00"
        );
        assert!(super::parse_date("2026-01-02T03:04:05Z").is_ok());
        assert!(super::parse_date("yesterday").is_err());
    }
}
