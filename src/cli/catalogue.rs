//! `scil catalogue [--json]` and `scil catalogue instantiate ID …`: the Euro NCAP scenario
//! catalogue (issue 11) and scenario files made from it that `scil replay` runs.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};

use crate::scenario::catalogue::{Catalogue, Entry, Params};

#[derive(Args, Debug, Clone)]
pub struct CatalogueArgs {
    /// One JSON array on stdout (`[{"id":"CPNA-75", …}, …]`).
    #[arg(long)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Option<CatalogueCommand>,
}

#[derive(Subcommand, Debug, Clone)]
pub enum CatalogueCommand {
    /// Write a scenario file for one catalogue entry on a map.
    Instantiate(InstantiateArgs),
}

#[derive(Args, Debug, Clone)]
pub struct InstantiateArgs {
    /// Catalogue id, e.g. CPNA-75 (case-insensitive).
    pub id: String,
    /// VUT test speed, km/h (within the entry's range).
    #[arg(long)]
    pub vut_speed: f64,
    /// OpenDRIVE map; the scenario names it relative to the output file.
    #[arg(long)]
    pub map: PathBuf,
    /// x (map frame) of the impact point (crossing), of the target's start (longitudinal) or
    /// of the target's rear end (rear).
    #[arg(long, allow_hyphen_values = true)]
    pub impact_x: f64,
    /// Lane id of the VUT (OpenDRIVE: negative = right of the reference line).
    #[arg(long, allow_hyphen_values = true)]
    pub lane: i32,
    /// Road id (default: the first road whose lane covers impact-x).
    #[arg(long)]
    pub road: Option<String>,
    /// Overlap (one of the entry's).
    #[arg(long, allow_hyphen_values = true)]
    pub overlap: Option<f64>,
    /// Target speed, km/h (one of the entry's).
    #[arg(long)]
    pub target_speed: Option<f64>,
    /// Headway, m (CCRm/CCRb).
    #[arg(long)]
    pub headway: Option<f64>,
    /// Lead-vehicle deceleration, m/s² (CCRb).
    #[arg(long)]
    pub decel: Option<f64>,
    /// Carrier name of the (first) target.
    #[arg(long)]
    pub carrier: Option<String>,
    /// Output scenario file (default: ID_SPEEDkmh.toml in the current directory).
    #[arg(long, short)]
    pub out: Option<PathBuf>,
}

/// `scil catalogue`.
pub fn run(a: CatalogueArgs) -> anyhow::Result<ExitCode> {
    let cat = Catalogue::bundled();
    match a.command {
        Some(CatalogueCommand::Instantiate(i)) => instantiate(&cat, &i),
        None => {
            if a.json {
                println!("{}", serde_json::to_string(&cat.scenario)?);
            } else {
                print!("{}", table(&cat.scenario));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn list(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{x}"))
        .collect::<Vec<_>>()
        .join("/")
}

/// The readable catalogue table.
pub fn table(entries: &[Entry]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<9} {:<12} {:<10} {:<12} {:<10} {:<22} {:<18}  name",
        "id", "layout", "target", "VUT km/h", "tgt km/h", "overlap", "extra"
    );
    for e in entries {
        let r = &e.vut_speed_kmh;
        let mut extra = String::new();
        if !e.headway_m.is_empty() {
            let _ = write!(extra, "hw {} m ", list(&e.headway_m));
        }
        if !e.decel_mps2.is_empty() {
            let _ = write!(extra, "dec {} ", list(&e.decel_mps2));
        }
        if e.obstruction.is_some() {
            extra.push_str("obstructed");
        }
        let _ = writeln!(
            s,
            "{:<9} {:<12} {:<10} {:<12} {:<10} {:<22} {:<18}  {}",
            e.id,
            format!("{:?}", e.layout).to_lowercase(),
            format!("{:?}", e.target).to_lowercase(),
            format!("{}–{}/{}", r.min, r.max, r.step),
            list(&e.target_speed_kmh),
            list(&e.overlaps),
            extra.trim(),
            e.name
        );
    }
    s
}

/// The map as the scenario file names it: relative to the scenario's directory when both are
/// under the same root, else absolute.
fn map_ref(map: &Path, out: &Path) -> String {
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let map_abs = abs(map);
    let dir = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir_abs = abs(dir);
    match map_abs.strip_prefix(&dir_abs) {
        Ok(rel) => rel.display().to_string(),
        Err(_) => map_abs.display().to_string(),
    }
}

fn instantiate(cat: &Catalogue, a: &InstantiateArgs) -> anyhow::Result<ExitCode> {
    let entry = cat.get(&a.id).with_context(|| {
        format!(
            "no catalogue entry '{}' (known: {})",
            a.id,
            cat.scenario
                .iter()
                .map(|e| e.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    let map = opendrive::OpenDrive::from_path(&a.map)
        .with_context(|| format!("map {}", a.map.display()))?;
    let out = a.out.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "{}_{}kmh.toml",
            entry.id.to_lowercase(),
            a.vut_speed
        ))
    });
    let mut p = Params::new(a.vut_speed, a.impact_x, a.lane);
    p.map = Some(map_ref(&a.map, &out));
    p.road = a.road.clone();
    p.overlap = a.overlap;
    p.target_speed_kmh = a.target_speed;
    p.headway_m = a.headway;
    p.decel_mps2 = a.decel;
    p.carrier = a.carrier.clone();
    let sc = entry.instantiate(&p, &map).map_err(anyhow::Error::msg)?;
    let text = format!(
        "# {} — instantiated from the Euro NCAP catalogue by `scil catalogue instantiate`\n{}",
        sc.name,
        toml::to_string(&sc)?
    );
    std::fs::write(&out, text).with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!("wrote {} ({})", out.display(), sc.name);
    Ok(ExitCode::SUCCESS)
}
