//! `scil verify FILE`: an exported run record checked offline (no service, no database).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The record (`GET /api/v1/runs/{id}/record.json`; with `?telemetry=true` its telemetry
    /// is checked too).
    pub file: PathBuf,
}

/// Prints the verdict as JSON; exit 0 intact, 1 not intact.
pub fn run(a: VerifyArgs) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(&a.file)
        .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", a.file.display()))?;
    let (v, telemetry_checked) = crate::serve::records::check_file(&text)
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.file.display()))?;
    let mut out = serde_json::to_value(&v)?;
    out["telemetry_checked"] = serde_json::json!(telemetry_checked);
    println!("{}", serde_json::to_string_pretty(&out)?);
    if !telemetry_checked && v.ok {
        eprintln!(
            "scil verify: the record carries no telemetry rows: its telemetry digest was not \
             checked (export with ?telemetry=true)"
        );
    }
    Ok(if v.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
