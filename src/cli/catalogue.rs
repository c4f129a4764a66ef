//! `scil catalogue [--json]` and `scil catalogue instantiate ID …`: the Euro NCAP 2026
//! catalogue (every row of the rating tool) and scenario files made from it that `scil sim`,
//! `scil replay` and the service run.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};

use crate::scenario::ncap2026::{
    Approach, Catalogue, Direction, DoorChoice, Light, Params, Robustness, Row,
};
use crate::scenario::turn::Turn;

#[derive(Args, Debug, Clone)]
pub struct CatalogueArgs {
    /// One JSON array on stdout (`[{"id":"CCRs", "rows":["CCRs"], …}, …]`).
    #[arg(long)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Option<CatalogueCommand>,
}

#[derive(Subcommand, Debug, Clone)]
pub enum CatalogueCommand {
    /// Write a scenario file for one catalogue entry on a map.
    Instantiate(InstantiateArgs),
    /// Run the whole prediction grid (every placeable row × every cell) on the simulated VUT.
    Grid(GridArgs),
}

#[derive(Args, Debug, Clone)]
pub struct GridArgs {
    /// Map for the straight rows.
    #[arg(long)]
    pub straight_map: PathBuf,
    /// Map with a junction for the turning and crossing-path rows.
    #[arg(long)]
    pub junction_map: PathBuf,
    /// AEB model of the simulated VUT (`ttc=1.2,decel=8,delay_ms=150`); default: none
    /// (drive-through).
    #[arg(long)]
    pub aeb: Option<crate::sim::AebParams>,
    /// Parallel runs (default: the machine's cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Only rows whose id contains this (case-insensitive).
    #[arg(long)]
    pub only: Option<String>,
    /// Write the results as CSV.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also measure the bare simulated-VUT step of this machine (about 0.1 s) and print a
    /// grid step's cost against it.
    #[arg(long)]
    pub baseline: bool,
}

#[derive(Args, Debug, Clone)]
pub struct InstantiateArgs {
    /// Row as the rating tool names it (CPNA, "CPNA night", "CPTAfs & CPTAns", CPTAns, CCFtap,
    /// "CC ELK On", …) or an earlier catalogue id (CPNA-75); case-insensitive.
    pub id: String,
    /// VUT test speed, km/h (one of the row's).
    #[arg(long)]
    pub vut_speed: f64,
    /// OpenDRIVE map; the scenario names it relative to the output file.
    #[arg(long)]
    pub map: PathBuf,
    /// Target speed, km/h (one of the row's).
    #[arg(long)]
    pub target_speed: Option<f64>,
    /// Impact location: fraction of the VUT width from its nearside (right) edge (head-on rows:
    /// the overlap).
    #[arg(long, allow_hyphen_values = true)]
    pub impact: Option<f64>,
    /// Turn of the VUT: farside | nearside (turn-across-path rows).
    #[arg(long)]
    pub turn: Option<Turn>,
    /// Target direction relative to the VUT's approach: same | opposite.
    #[arg(long)]
    pub direction: Option<Direction>,
    /// Side the crossing target comes from: nearside | farside (crossing-path rows).
    #[arg(long)]
    pub approach: Option<Approach>,
    /// day | night (rows tested in both).
    #[arg(long)]
    pub light: Option<Light>,
    /// Lateral speed of the VUT's drift, m/s (lane-departure rows).
    #[arg(long)]
    pub lateral_speed: Option<f64>,
    /// Gap of the low-speed rows, m (CPMRCm: the reversing VUT's rear bumper to the child's
    /// path at standstill).
    #[arg(long)]
    pub gap: Option<f64>,
    /// The door of a dooring test: driver | behind-driver | passenger | behind-passenger.
    #[arg(long)]
    pub door: Option<DoorChoice>,
    /// x (map frame) of the impact point on a straight lane (default: placed on the longest
    /// straight, or at the map's junction for turning and crossing-path rows).
    #[arg(long, allow_hyphen_values = true)]
    pub impact_x: Option<f64>,
    /// Lane id of the VUT (OpenDRIVE: negative = right of the reference line).
    #[arg(long, allow_hyphen_values = true)]
    pub lane: Option<i32>,
    /// Road id of the straight.
    #[arg(long)]
    pub road: Option<String>,
    /// Earlier name of --impact.
    #[arg(long, allow_hyphen_values = true, hide = true)]
    pub overlap: Option<f64>,
    /// Robustness layer offsets: `vut_speed_kmh=5,target_speed_kmh=-2,heading_deg=20,…`.
    #[arg(long)]
    pub robustness: Option<String>,
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
        Some(CatalogueCommand::Grid(g)) => grid(&cat, &g),
        None => {
            if a.json {
                println!("{}", serde_json::to_string(&cat.row)?);
            } else {
                print!("{}", table(&cat.row));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn list(v: &[f64]) -> String {
    match v {
        [] => "-".into(),
        [one] => format!("{one}"),
        _ if v.len() > 4 => format!("{}…{} ({})", v[0], v[v.len() - 1], v.len()),
        _ => v
            .iter()
            .map(|x| format!("{x}"))
            .collect::<Vec<_>>()
            .join("/"),
    }
}

/// The readable catalogue table.
pub fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<16} {:<4} {:<21} {:<11} {:<14} {:<12} {:<15} {:<10}  name",
        "id", "", "family", "target", "VUT km/h", "tgt km/h", "impact", "runnable"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{:<16} {:<4} {:<21} {:<11} {:<14} {:<12} {:<15} {:<10}  {}",
            r.id,
            r.stage,
            format!("{:?}", r.family),
            r.target
                .map(|t| format!("{t:?}").to_lowercase())
                .unwrap_or_else(|| "-".into()),
            list(&r.vut_speeds_kmh),
            list(&r.target_speeds_kmh),
            list(&r.impacts),
            if r.unsupported().is_none() {
                "yes"
            } else {
                "not yet"
            },
            r.name
        );
    }
    let runnable = rows.iter().filter(|r| r.unsupported().is_none()).count();
    let tool_rows: usize = rows.iter().map(|r| r.rows.len()).sum();
    let _ = writeln!(
        s,
        "{} rating-tool rows in {} entries; {runnable} entries can be placed and simulated",
        tool_rows,
        rows.len()
    );
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

/// Robustness offsets from `key=value,…`.
pub fn robustness(text: &str) -> anyhow::Result<Robustness> {
    let mut r = Robustness::default();
    for part in text.split(',').filter(|p| !p.trim().is_empty()) {
        let (k, v) = part
            .split_once('=')
            .with_context(|| format!("robustness: '{part}' is not key=value"))?;
        let v: f64 = v
            .trim()
            .parse()
            .with_context(|| format!("robustness: '{v}' is not a number"))?;
        if !v.is_finite() {
            anyhow::bail!("robustness: {k} must be finite");
        }
        match k.trim() {
            "vut_speed_kmh" => r.vut_speed_kmh = v,
            "target_speed_kmh" => r.target_speed_kmh = v,
            "heading_deg" => r.heading_deg = v,
            "path_offset_m" => r.path_offset_m = v,
            "start_fraction" => r.start_fraction = v,
            "decel_mps2" => r.decel_mps2 = v,
            "headway_s" => r.headway_s = v,
            other => anyhow::bail!(
                "robustness: unknown key '{other}' (vut_speed_kmh, target_speed_kmh, heading_deg, path_offset_m, start_fraction, decel_mps2, headway_s)"
            ),
        }
    }
    Ok(r)
}

fn instantiate(cat: &Catalogue, a: &InstantiateArgs) -> anyhow::Result<ExitCode> {
    let (row, implied) = cat.find(&a.id).with_context(|| {
        format!(
            "no catalogue row '{}' (known: {})",
            a.id,
            cat.row
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
            row.id.to_lowercase().replace(" & ", "_").replace(' ', "_"),
            a.vut_speed
        ))
    });
    let mut p = Params::new(a.vut_speed);
    p.map = Some(map_ref(&a.map, &out));
    p.target_speed_kmh = a.target_speed;
    p.impact = a.impact.or(a.overlap);
    p.turn = a.turn;
    p.direction = a.direction;
    p.approach = a.approach;
    p.light = a.light;
    p.lateral_mps = a.lateral_speed;
    p.gap_m = a.gap;
    p.door = a.door;
    p.impact_x = a.impact_x;
    p.lane = a.lane;
    p.road = a.road.clone();
    p.carrier = a.carrier.clone();
    if let Some(r) = &a.robustness {
        p.robustness = robustness(r)?;
    }
    implied.apply(&mut p);
    let sc = row.instantiate(&p, &map).map_err(anyhow::Error::msg)?;
    let name = sc.name.clone();
    let text = scenario_file(
        sc,
        "instantiated from the Euro NCAP 2026 catalogue by `scil catalogue instantiate`",
    )?;
    std::fs::write(&out, text).with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!("wrote {} ({name})", out.display());
    Ok(ExitCode::SUCCESS)
}

/// The scenario `instantiate` writes: its polylines with as few points as they need (a
/// straight by its two ends; turning paths are segments already).
pub fn compacted(mut sc: crate::scenario::Scenario) -> crate::scenario::Scenario {
    sc.vut.path = sc.vut.path.take().map(crate::scenario::PathSpec::compacted);
    for t in &mut sc.targets {
        t.path = t.path.take().map(crate::scenario::PathSpec::compacted);
    }
    sc
}

/// The file `instantiate` (and `scil ncap plan`) writes for a scenario: [`compacted`], under a
/// line naming it and where it comes from (`origin`), each path's start inline and its points or
/// segments one per line.
pub fn scenario_file(sc: crate::scenario::Scenario, origin: &str) -> anyhow::Result<String> {
    let sc = compacted(sc);
    let text = toml::to_string(&sc)?;
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .context("the scenario's TOML does not read back")?;
    if let Some(vut) = doc.get_mut("vut").and_then(toml_edit::Item::as_table_mut) {
        inline_path(vut);
    }
    if let Some(targets) = doc
        .get_mut("targets")
        .and_then(toml_edit::Item::as_array_of_tables_mut)
    {
        for t in targets.iter_mut() {
            inline_path(t);
        }
    }
    Ok(format!("# {} — {origin}\n{doc}", sc.name))
}

/// `path` of a VUT or target table with its `start` first, as an inline table, and its
/// `points` or `segments` as an array of inline tables, one per line.
fn inline_path(owner: &mut toml_edit::Table) {
    use toml_edit::{Array, Item, Value};
    let Some(path) = owner.get_mut("path").and_then(Item::as_table_mut) else {
        return;
    };
    path.set_implicit(false);
    let mut items: Vec<(String, Item)> = path
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    items.sort_by_key(|(k, _)| k != "start");
    path.clear();
    for (key, item) in items {
        let item = match item {
            Item::Table(t) => {
                let mut inline = t.into_inline_table();
                inline.fmt();
                Item::Value(Value::InlineTable(inline))
            }
            Item::ArrayOfTables(tables) => {
                let mut array = Array::new();
                for t in tables.into_iter() {
                    let mut inline = t.into_inline_table();
                    inline.fmt();
                    let mut v = Value::InlineTable(inline);
                    v.decor_mut().set_prefix("\n    ");
                    array.push_formatted(v);
                }
                array.set_trailing_comma(true);
                array.set_trailing("\n");
                Item::Value(Value::Array(array))
            }
            other => other,
        };
        path.insert(&key, item);
    }
}

fn grid(cat: &Catalogue, a: &GridArgs) -> anyhow::Result<ExitCode> {
    use crate::sweep::catalogue_grid as g;
    let load = |p: &Path| -> anyhow::Result<std::sync::Arc<crate::map::Map>> {
        Ok(std::sync::Arc::new(
            crate::map::Map::load(p).with_context(|| format!("map {}", p.display()))?,
        ))
    };
    let mut cells = g::cells(cat);
    if let Some(only) = &a.only {
        let o = only.to_lowercase();
        cells.retain(|c| cat.row[c.row].id.to_lowercase().contains(&o));
    }
    // Only the maps the selected rows run on are read.
    let (straight, junction) = g::Maps::needed(cat, &cells);
    let maps = g::Maps {
        straight: straight.then(|| load(&a.straight_map)).transpose()?,
        junction: junction.then(|| load(&a.junction_map)).transpose()?,
    };
    let jobs = a.jobs.unwrap_or_else(crate::sweep::default_jobs);
    // The baseline of this machine, measured in the same run when asked for.
    let bare = a.baseline.then(|| g::bare_step_rate(2_000_000));
    let bar = indicatif::ProgressBar::new(cells.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} cells {elapsed}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let out = g::run(cat, &cells, &maps, a.aeb, jobs, &|n| {
        bar.set_position(n as u64)
    });
    bar.finish_and_clear();
    let n = out.results.len();
    let hits = out.results.iter().filter(|r| r.impacted).count();
    let errors = out.results.iter().filter(|r| r.error.is_some()).count();
    let valid = out.results.iter().filter(|r| r.valid == Some(true)).count();
    let rate = n as f64 / out.elapsed_s.max(1e-9);
    println!(
        "grid     {n} cells of {} rows on {jobs} threads in {:.1} s: {rate:.1} runs/s",
        cells
            .iter()
            .map(|c| c.row)
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        out.elapsed_s
    );
    // Cost of a simulated step: the cells' thread time (placing, setting up and running them:
    // engine, session and simulated VUT) over their steps, beside the bare vehicle model's step.
    let steps: u64 = out.results.iter().map(|r| r.steps).sum();
    // (0 with no cell: a sum of no f64 is −0.0, printed "-0.0")
    let cpu: f64 = out.results.iter().map(|r| r.cpu_s).sum::<f64>() + 0.0;
    let per_step_us = 1e6 * cpu / steps.max(1) as f64;
    match bare {
        Some(bare) => {
            let bare_us = 1e6 / bare.max(1e-9);
            println!(
                "step     {per_step_us:.2} µs per simulated step ({steps} steps, {cpu:.1} s thread time) vs {bare_us:.3} µs per bare simulated-VUT step (measured in this run): {:.0}×",
                per_step_us / bare_us
            );
        }
        None => println!(
            "step     {per_step_us:.2} µs per simulated step ({steps} steps, {cpu:.1} s thread time; --baseline: beside the bare simulated-VUT step)"
        ),
    }
    println!("result   {hits} impacts, {valid} valid verdicts, {errors} errors");
    if let Some(p) = &a.out {
        std::fs::write(p, g::csv(&out.results))
            .with_context(|| format!("cannot write {}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    Ok(if errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}
