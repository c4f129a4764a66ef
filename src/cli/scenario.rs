//! `scil scenario import FILE.xosc [--param NAME=VALUE …] [--out PATH] [--json]`: an
//! OpenSCENARIO scenario or variation file as scil scenario(s).
//!
//! `scil scenario place SCENARIO.toml --map PLACED.xodr [--heading DEG] -o OUT.toml`: a scenario
//! written for an unplaced layout, turned with the layout (`scil map place`).

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
    /// Turn a scenario written for an unplaced layout with the layout (`scil map place`): its
    /// world positions and headings turned, its road positions kept, its map the placed one.
    Place(PlaceArgs),
}

#[derive(Args, Debug, Clone)]
pub struct PlaceArgs {
    /// The scenario (TOML) in the metres of the unplaced layout.
    pub scenario: PathBuf,
    /// The placed map (`scil map place`'s output); the scenario's `map` names it.
    #[arg(long)]
    pub map: PathBuf,
    /// Compass heading the layout's +x axis was placed at, degrees (default: the site the
    /// placed map records).
    #[arg(long, allow_hyphen_values = true)]
    pub heading: Option<f64>,
    /// Where the placed scenario is written.
    #[arg(short, long)]
    pub output: PathBuf,
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
        ScenarioCommand::Place(p) => place(p),
    }
}

fn place(a: PlaceArgs) -> anyhow::Result<ExitCode> {
    let sc = crate::scenario::Scenario::from_path(&a.scenario)?;
    let xodr = std::fs::read_to_string(&a.map)
        .with_context(|| format!("{}: cannot read", a.map.display()))?;
    opendrive::OpenDrive::from_str(&xodr)
        .map_err(|e| anyhow::anyhow!("{}: not a usable OpenDRIVE map: {e}", a.map.display()))?;
    let heading = match (a.heading, opendrive::place::site_of(&xodr)) {
        (Some(h), _) if !h.is_finite() => bail!("--heading {h} is not a number"),
        (Some(h), _) => h,
        (None, Some(site)) => site.heading_deg,
        (None, None) => bail!(
            "{} records no site (it was not made by `scil map place`): give --heading DEG",
            a.map.display()
        ),
    };
    let mut placed = sc.placed(heading);
    placed.map = Some(map_reference(&a.map, &a.output)?);
    let text = format!(
        "# {} with its layout's +x axis at heading {heading}° (scil scenario place)\n{}",
        sc.name,
        toml::to_string(&placed)?
    );
    // What is written must read back as a scenario.
    crate::scenario::Scenario::from_toml(&text)
        .map_err(|e| anyhow::anyhow!("placed scenario does not validate: {e}"))?;
    std::fs::write(&a.output, text)
        .with_context(|| format!("{}: cannot write", a.output.display()))?;
    eprintln!(
        "{} turned with its layout (+x axis at {heading}°) → {}",
        a.scenario.display(),
        a.output.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// How the written scenario names the map: its file name when both lie in one directory, else
/// its absolute path (a scenario's `map` is relative to the scenario file).
fn map_reference(map: &std::path::Path, output: &std::path::Path) -> anyhow::Result<String> {
    let abs = std::fs::canonicalize(map).with_context(|| format!("{}", map.display()))?;
    let out_dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let same = std::fs::canonicalize(&out_dir).is_ok_and(|d| Some(d.as_path()) == abs.parent());
    match (same, abs.file_name()) {
        (true, Some(name)) => Ok(name.to_string_lossy().into_owned()),
        _ => Ok(abs.display().to_string()),
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
