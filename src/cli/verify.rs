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
    let bytes = std::fs::read(&a.file)
        .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", a.file.display()))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| anyhow::anyhow!("{}", not_a_record(&a.file, e.as_bytes())))?;
    if !text.trim_start().starts_with('{') {
        anyhow::bail!("{}", not_a_record(&a.file, text.as_bytes()));
    }
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

/// What `verify` expected, and what the file is when its kind is known.
fn not_a_record(path: &std::path::Path, bytes: &[u8]) -> String {
    let kind = crate::ingest::detect::sniff(&bytes[..bytes.len().min(8192)]);
    let what = match kind {
        crate::ingest::detect::FileKind::Csv => "text that is not JSON".to_string(),
        k => k.describe().to_string(),
    };
    format!(
        "{} is {what}: scil verify reads a run record, the JSON of GET /api/v1/runs/ID/record.json (the run page's record.json)",
        path.display()
    )
}
