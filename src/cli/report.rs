//! `scil report RUN.json… [-o report.html]`: the Euro NCAP test-series report (HTML with inline
//! SVG, CSV alongside) from run results (`scil replay --json` output, the service's
//! `/results`). A run whose result has traces (`scil replay --traces`, service runs) gets its
//! time-series plots and a CSV of its traces beside the report, `REPORT.RUN.traces.csv`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use crate::ncap_report::{csv, html, RunInput};

#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
    /// Run result JSON files.
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// Output HTML (the CSV is written beside it with the extension .csv).
    #[arg(long, short, default_value = "report.html")]
    pub out: PathBuf,
    /// Report title.
    #[arg(long, default_value = "Euro NCAP test series")]
    pub title: String,
}

/// `scil report`.
pub fn run(a: ReportArgs) -> anyhow::Result<ExitCode> {
    let mut runs = Vec::new();
    for p in &a.runs {
        let text =
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?;
        let result: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a run result JSON", p.display()))?;
        if !result.is_object() || result.get("impacts").is_none() {
            anyhow::bail!("{}: not a run result (no \"impacts\")", p.display());
        }
        let name = p
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| p.display().to_string());
        runs.push(RunInput { name, result });
    }
    std::fs::write(&a.out, html(&a.title, &runs))
        .with_context(|| format!("cannot write {}", a.out.display()))?;
    let csv_path = a.out.with_extension("csv");
    std::fs::write(&csv_path, csv(&runs))
        .with_context(|| format!("cannot write {}", csv_path.display()))?;
    eprintln!("wrote {} and {}", a.out.display(), csv_path.display());
    let stem = a
        .out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".into());
    for r in &runs {
        let Some(text) = crate::ncap_report::traces::csv(&r.result) else {
            eprintln!("{}: no traces (run with --traces for its plots)", r.name);
            continue;
        };
        let p = a
            .out
            .with_file_name(format!("{stem}.{}.traces.csv", r.name));
        std::fs::write(&p, text).with_context(|| format!("cannot write {}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}
