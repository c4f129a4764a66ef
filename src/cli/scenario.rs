//! `scil scenario import FILE.xosc [--param NAME=VALUE …] [--out PATH] [--json]`: an
//! OpenSCENARIO scenario or variation file as scil scenario(s).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};

#[derive(Args, Debug, Clone)]
pub struct ScenarioArgs {
    #[command(subcommand)]
    pub command: ScenarioCommand,
}

#[derive(Subcommand, Debug, Clone)]
pub enum ScenarioCommand {
    /// Import an OpenSCENARIO XML file (a scenario, or a variation file: one scenario per
    /// combination of its parameter distributions).
    Import(ImportArgs),
}

#[derive(Args, Debug, Clone)]
pub struct ImportArgs {
    /// The .xosc file.
    pub file: PathBuf,
    /// Override a parameter of the scenario (repeatable): NAME=VALUE.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Write the scenario TOML to this file; for a variation file, a directory that gets one
    /// TOML per combination.
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// Print `{"parameters": {…}, "scenario": {…}}` (a list of those for a variation file).
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: ScenarioArgs) -> anyhow::Result<ExitCode> {
    match a.command {
        ScenarioCommand::Import(i) => import(i),
    }
}

fn import(a: ImportArgs) -> anyhow::Result<ExitCode> {
    let mut overrides = BTreeMap::new();
    for p in &a.params {
        let Some((k, v)) = p.split_once('=') else {
            bail!("--param {p}: expected NAME=VALUE");
        };
        overrides.insert(k.trim().to_string(), v.to_string());
    }
    let variation = openscenario::variation::is_variation(&a.file)?;
    let all = crate::xosc::import(&a.file, &overrides)?;
    if a.json {
        let items: Vec<serde_json::Value> = all
            .iter()
            .map(|c| {
                serde_json::json!({
                    "parameters": c.parameters,
                    "scenario": c.scenario,
                })
            })
            .collect();
        let v = if variation {
            serde_json::Value::Array(items)
        } else {
            items.into_iter().next().unwrap_or_default()
        };
        let mut out = std::io::stdout().lock();
        serde_json::to_writer(&mut out, &v)?;
        writeln!(out)?;
    }
    match (&a.out, variation) {
        (Some(dir), true) => {
            std::fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
            let stem = a
                .file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "scenario".into());
            let width = all.len().to_string().len().max(3);
            for (i, c) in all.iter().enumerate() {
                let p = dir.join(format!("{stem}-{:0width$}.toml", i + 1));
                std::fs::write(&p, toml_with_parameters(c)?)
                    .with_context(|| format!("{}", p.display()))?;
            }
            eprintln!("{}: {} scenarios", dir.display(), all.len());
        }
        (Some(file), false) => {
            std::fs::write(file, toml_with_parameters(&all[0])?)
                .with_context(|| format!("{}", file.display()))?;
            eprintln!("{}: written", file.display());
        }
        (None, true) if !a.json => bail!(
            "{} is a variation file with {} scenarios: give --out DIR (or --json)",
            a.file.display(),
            all.len()
        ),
        (None, false) if !a.json => print!("{}", toml_with_parameters(&all[0])?),
        _ => {}
    }
    Ok(ExitCode::SUCCESS)
}

fn toml_with_parameters(c: &crate::xosc::Imported) -> anyhow::Result<String> {
    c.to_toml()
}
