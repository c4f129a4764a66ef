//! `scil ncap plan|rehearse|fill`: a test day from Euro NCAP's rating-tool workbook
//! ([`crate::ncap`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::{Args, Subcommand};

use crate::ncap::plan::Planned;
use crate::ncap::rehearse::{self, PointResult, Systems};
use crate::ncap::{load, Loaded};
use crate::sim::{AebParams, ElkParams, FcwParams};

#[derive(Subcommand, Debug, Clone)]
pub enum NcapCommand {
    /// Each verification point of a preprocessed workbook → catalogue scenario and parameters.
    Plan(PlanArgs),
    /// Run every runnable point on the simulated VUT and write the values into a copy.
    Rehearse(RehearseArgs),
    /// Write the values of finished runs (result JSON files) into a copy of the workbook.
    Fill(FillArgs),
}

#[derive(Args, Debug, Clone)]
pub struct Common {
    /// The rating tool's preprocessed workbook (ca_preprocessed_template.xlsx).
    pub workbook: PathBuf,
    /// OpenDRIVE map the scenarios are placed on (default: the bundled proving ground).
    #[arg(long)]
    pub map: Option<PathBuf>,
    /// OpenDRIVE map with a junction for the turning and crossing-path rows (default: the
    /// Euro NCAP X-intersection bundled with scil).
    #[arg(long)]
    pub junction_map: Option<PathBuf>,
}

impl Common {
    fn load(&self) -> anyhow::Result<Loaded> {
        let map = self
            .map
            .clone()
            .unwrap_or_else(|| crate::data_dir().join("opendrive/proving_ground.xodr"));
        let junction = self.junction_map.clone().or_else(|| {
            let d = crate::data_dir().join("osc-ncap/OpenDRIVE/NCAP/X-Intersection_NCAP.xodr");
            d.is_file().then_some(d)
        });
        load(&self.workbook, &map, junction.as_deref())
    }
}

#[derive(Args, Debug, Clone)]
pub struct PlanArgs {
    #[command(flatten)]
    pub common: Common,
    /// Write each runnable point's scenario (TOML) and plan.json into this folder.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The plan as one JSON array on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug, Clone)]
pub struct RehearseArgs {
    #[command(flatten)]
    pub common: Common,
    /// The filled workbook to write.
    #[arg(long, short)]
    pub out: PathBuf,
    /// The simulated VUT's AEB for AEB points.
    #[arg(
        long,
        value_name = "ttc=S,decel=MPS2,delay_ms=MS",
        default_value = "ttc=1.2,decel=8,delay_ms=150"
    )]
    pub aeb: AebParams,
    /// The simulated VUT's forward collision warning for FCW points (the brake robot brakes
    /// at 4 m/s² 1.2 s after it).
    #[arg(long, value_name = "ttc=S", default_value = "ttc=2.0")]
    pub fcw: FcwParams,
    /// The simulated VUT's emergency lane keeping for the road-edge points (`dtle_t_end`).
    #[arg(
        long,
        value_name = "tlc=S,lat_accel=MPS2,delay_ms=MS",
        default_value = "tlc=0.3,lat_accel=3,delay_ms=100"
    )]
    pub elk: ElkParams,
    /// Also write PASS or FAIL into the assessment rows (General requirements, …) left empty.
    #[arg(long, value_name = "PASS|FAIL")]
    pub assess: Option<String>,
    /// Worker threads (default: the machine's cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Args, Debug, Clone)]
pub struct FillArgs {
    #[command(flatten)]
    pub common: Common,
    /// Folder of run results: `STEM.json` per point, STEM as the scenario files of
    /// `scil ncap plan --out` (a baseline run, when the point has one, as `STEM.baseline.json`).
    #[arg(long, required_unless_present = "series", conflicts_with = "series")]
    pub runs: Option<PathBuf>,
    /// A test series of the service (`POST /api/v1/series`): the values of its done points,
    /// read from the service's database.
    #[arg(long)]
    pub series: Option<String>,
    /// The service's database with --series (default: DATABASE_URL, else sqlite://scil.db).
    #[arg(long, requires = "series")]
    pub database_url: Option<String>,
    /// The filled workbook to write.
    #[arg(long, short)]
    pub out: PathBuf,
    /// Also write PASS or FAIL into the assessment rows left empty.
    #[arg(long, value_name = "PASS|FAIL")]
    pub assess: Option<String>,
}

pub fn run(c: NcapCommand) -> anyhow::Result<ExitCode> {
    match c {
        NcapCommand::Plan(a) => plan(a),
        NcapCommand::Rehearse(a) => rehearse_cmd(a),
        NcapCommand::Fill(a) => fill(a),
    }
}

fn short_sheet(s: &str) -> String {
    s.trim_end_matches("verif.").trim().to_string()
}

fn num(v: Option<f64>) -> String {
    v.map(|x| format!("{x}")).unwrap_or_default()
}

/// The plan as a table, one line per point.
pub fn plan_table(plan: &[Planned]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<17} {:>4}  {:<17} {:<4} {:>5} {:>5} {:>6}  {:<28} {:<15} status",
        "sheet", "row", "scenario", "fn", "VUT", "tgt", "impact", "more", "measure"
    );
    for p in plan {
        let pp = &p.params;
        let mut more = Vec::new();
        for (k, v) in [
            ("turn", &pp.turn),
            ("dir", &pp.direction),
            ("appr", &pp.approach),
            ("light", &pp.light),
            ("dist", &pp.distance),
        ] {
            if let Some(v) = v {
                more.push(format!("{k} {v}"));
            }
        }
        if let Some(g) = pp.gap_m {
            more.push(format!("gap {g} m"));
        }
        if let Some(l) = pp.lateral_velocity_mps {
            more.push(format!("lat {l} m/s"));
        }
        if let Some(r) = &pp.robustness_layer {
            more.push(format!("rob. {r}"));
        }
        let status = match p.reason() {
            None => format!("runnable ({})", p.catalogue_row.as_deref().unwrap_or("")),
            Some(r) => format!("NOT RUNNABLE: {r}"),
        };
        let _ = writeln!(
            s,
            "{:<17} {:>4}  {:<17} {:<4} {:>5} {:>5} {:>6}  {:<28} {:<15} {status}",
            short_sheet(&p.point.sheet),
            p.point.row,
            p.point.scenario,
            p.params
                .function
                .map(|f| format!("{f:?}").to_uppercase())
                .unwrap_or_default(),
            num(p.params.vut_speed_kmh),
            num(p.params.target_speed_kmh),
            p.params
                .impact
                .map(|x| format!("{:.0}%", x * 100.0))
                .unwrap_or_default(),
            more.join(", "),
            p.point.expected,
        );
    }
    s
}

fn counts(plan: &[Planned]) -> String {
    let n = plan.iter().filter(|p| p.runnable()).count();
    format!("{n} of {} points runnable", plan.len())
}

fn plan(a: PlanArgs) -> anyhow::Result<ExitCode> {
    let l = a.common.load()?;
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let mut index = Vec::new();
        for p in &l.plan {
            let file = p.runnable().then(|| p.file_name());
            if let (Some(f), Ok(sc)) = (&file, &p.scenario) {
                let origin = format!(
                    "{} row {} of the rating tool's workbook, planned by `scil ncap plan`",
                    p.point.sheet, p.point.row
                );
                let text = super::catalogue::scenario_file(sc.clone(), &origin)?;
                let path = dir.join(f);
                std::fs::write(&path, text)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            index.push(serde_json::json!({
                "sheet": p.point.sheet,
                "row": p.point.row,
                "scenario": p.point.scenario,
                "catalogue_row": p.catalogue_row,
                "params": p.params,
                "expected": p.point.expected,
                "expected_baseline": p.point.expected_baseline,
                "file": file,
                "reason": p.reason(),
            }));
        }
        let path = dir.join("plan.json");
        std::fs::write(&path, serde_json::to_string_pretty(&index)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if a.json {
        let v: Vec<_> = l
            .plan
            .iter()
            .map(|p| {
                serde_json::json!({
                    "sheet": p.point.sheet, "row": p.point.row, "scenario": p.point.scenario,
                    "catalogue_row": p.catalogue_row, "params": p.params,
                    "expected": p.point.expected, "runnable": p.runnable(), "reason": p.reason(),
                })
            })
            .collect();
        println!("{}", serde_json::to_string(&v)?);
    } else {
        print!("{}", plan_table(&l.plan));
        println!("{}", counts(&l.plan));
    }
    Ok(ExitCode::SUCCESS)
}

fn check_assess(a: &Option<String>) -> anyhow::Result<Option<String>> {
    match a.as_deref().map(str::to_ascii_uppercase) {
        None => Ok(None),
        Some(x) if x == "PASS" || x == "FAIL" => Ok(Some(x)),
        Some(x) => anyhow::bail!("--assess must be PASS or FAIL, got '{x}'"),
    }
}

/// Per catalogue row: points, values written, not written, and the written values' range.
fn summary(plan: &[Planned], results: &[PointResult]) -> String {
    #[derive(Default)]
    struct Row {
        points: usize,
        written: usize,
        lo: f64,
        hi: f64,
        quantity: String,
    }
    let mut rows: BTreeMap<(String, String), Row> = BTreeMap::new();
    for p in plan {
        let r = rows
            .entry((short_sheet(&p.point.sheet), p.point.scenario.clone()))
            .or_insert(Row {
                lo: f64::INFINITY,
                hi: f64::NEG_INFINITY,
                ..Default::default()
            });
        r.points += 1;
        if !r.quantity.contains(&p.point.expected) {
            if !r.quantity.is_empty() {
                r.quantity.push('/');
            }
            r.quantity.push_str(&p.point.expected);
        }
    }
    for res in results {
        let p = &plan[res.index];
        if let (Ok(v), Some(r)) = (
            &res.value,
            rows.get_mut(&(short_sheet(&p.point.sheet), p.point.scenario.clone())),
        ) {
            r.written += 1;
            r.lo = r.lo.min(*v);
            r.hi = r.hi.max(*v);
        }
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<17} {:<17} {:>6} {:>7}  {:<24} values",
        "sheet", "scenario", "points", "written", "measure"
    );
    for ((sheet, scen), r) in rows {
        let range = if r.written > 0 {
            format!("{:.2} … {:.2}", r.lo, r.hi)
        } else {
            "—".into()
        };
        let _ = writeln!(
            s,
            "{sheet:<17} {scen:<17} {:>6} {:>7}  {:<24} {range}",
            r.points, r.written, r.quantity
        );
    }
    s
}

/// The points without a value and why (the first few; `scil ncap plan` lists every point).
fn not_written(plan: &[Planned], results: &[PointResult]) -> String {
    const SHOWN: usize = 12;
    let mut s = String::new();
    let mut n = 0;
    for (i, p) in plan.iter().enumerate() {
        let why = match results.iter().find(|r| r.index == i) {
            None => p.reason(),
            Some(r) => r.value.as_ref().err().cloned(),
        };
        if let Some(w) = why {
            n += 1;
            if n <= SHOWN {
                let _ = writeln!(s, "  not written: {}: {w}", p.point.label());
            }
        }
    }
    if n > SHOWN {
        let _ = writeln!(
            s,
            "  … and {} more without a value (`scil ncap plan` lists every point with its reason)",
            n - SHOWN
        );
    }
    s
}

fn write_out(
    l: &Loaded,
    edits: &BTreeMap<String, BTreeMap<(u32, u32), crate::ncap::xlsx::NewValue>>,
    out: &Path,
) -> anyhow::Result<()> {
    let bytes = l.workbook.with_edits(edits)?;
    std::fs::write(out, bytes).with_context(|| format!("cannot write {}", out.display()))
}

fn rehearse_cmd(a: RehearseArgs) -> anyhow::Result<ExitCode> {
    let assess = check_assess(&a.assess)?;
    let l = a.common.load()?;
    let sys = Systems {
        aeb: a.aeb,
        fcw: a.fcw,
        elk: a.elk,
    };
    let runnable = l.plan.iter().filter(|p| p.runnable()).count();
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let bar = if a.quiet {
        indicatif::ProgressBar::hidden()
    } else {
        let b = indicatif::ProgressBar::new(runnable as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} points  {elapsed_precise}  eta {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    };
    let t0 = Instant::now();
    let maps = rehearse::RunMaps {
        straight: Some(l.map.clone()),
        junction: l.junction_map.clone(),
    };
    let results = rehearse::rehearse(&l.plan, maps, &sys, threads, &|| bar.inc(1));
    let wall = t0.elapsed();
    bar.finish_and_clear();
    let edits = rehearse::edits(
        &l.plan,
        &results,
        &l.verification.assessments,
        assess.as_deref(),
    );
    write_out(&l, &edits, &a.out)?;
    print!("{}", summary(&l.plan, &results));
    print!("{}", not_written(&l.plan, &results));
    let written = results.iter().filter(|r| r.value.is_ok()).count();
    println!(
        "{written} values written of {} points ({}); {runnable} points simulated in {:.2} s wall time on {threads} thread(s): {:.1} points/s",
        l.plan.len(),
        counts(&l.plan),
        wall.as_secs_f64(),
        runnable as f64 / wall.as_secs_f64().max(1e-9)
    );
    println!("wrote {}", a.out.display());
    Ok(ExitCode::SUCCESS)
}

fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()))
}

/// A finished run counts only when its validity verdict (if it has one) is valid.
fn counts_for_point(run: &serde_json::Value) -> Result<(), String> {
    match run.get("validity").and_then(|v| v.get("valid")) {
        Some(serde_json::Value::Bool(false)) => Err("the run is invalid (validity verdict)".into()),
        _ => Ok(()),
    }
}

/// `scil ncap fill --series ID`: the done points' values from the service's database.
fn fill_series(a: &FillArgs, id: &str) -> anyhow::Result<ExitCode> {
    let assess = check_assess(&a.assess)?;
    let url = super::database_url(&a.database_url);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (stored, points) = rt.block_on(async {
        let store = crate::store::Store::connect(&url).await?;
        let s = store.get_series(id).await?;
        let p = store.series_points(id).await?;
        store.close().await;
        anyhow::Ok((s, p))
    })?;
    let Some(stored) = stored else {
        anyhow::bail!("no test series '{id}' in {url}");
    };
    let wb = crate::ncap::xlsx::Workbook::open(&a.common.workbook)?;
    if wb.bytes() != stored.workbook.as_slice() {
        eprintln!(
            "note: {} is not the file uploaded as series '{id}' ({}); values go to the same sheet and row",
            a.common.workbook.display(),
            stored.name
        );
    }
    let edits = crate::serve::series::series_edits(&wb, &points, assess.as_deref())
        .map_err(|e| e.context(a.common.workbook.display().to_string()))?;
    let bytes = wb.with_edits(&edits)?;
    std::fs::write(&a.out, bytes).with_context(|| format!("cannot write {}", a.out.display()))?;
    let mut states: BTreeMap<&str, usize> = BTreeMap::new();
    for p in &points {
        *states.entry(p.state.as_str()).or_default() += 1;
    }
    let done = states.get("done").copied().unwrap_or(0);
    let list: Vec<String> = states.iter().map(|(k, v)| format!("{v} {k}")).collect();
    println!(
        "{done} values written of {} points (series '{id}': {})",
        points.len(),
        list.join(", ")
    );
    println!("wrote {}", a.out.display());
    Ok(ExitCode::SUCCESS)
}

fn fill(a: FillArgs) -> anyhow::Result<ExitCode> {
    if let Some(id) = &a.series {
        return fill_series(&a, id);
    }
    let assess = check_assess(&a.assess)?;
    let l = a.common.load()?;
    let Some(runs) = a.runs.clone() else {
        anyhow::bail!("give --runs DIR or --series ID");
    };
    if !runs.is_dir() {
        anyhow::bail!("--runs {}: not a folder", runs.display());
    }
    let mut results = Vec::new();
    for (i, p) in l.plan.iter().enumerate() {
        if !p.runnable() {
            continue;
        }
        let stem = p.file_name().trim_end_matches(".toml").to_string();
        let path = runs.join(format!("{stem}.json"));
        if !path.exists() {
            results.push(PointResult {
                index: i,
                value: Err(format!("no run result {}", path.display())),
                baseline: None,
            });
            continue;
        }
        let value = read_json(&path)
            .and_then(|r| counts_for_point(&r).map(|()| r))
            .and_then(|r| rehearse::value_of(p, &r))
            .map_err(|e| format!("{}: {e}", path.display()));
        let baseline = p.point.expected_baseline.as_ref().map(|_| {
            let bp = runs.join(format!("{stem}.baseline.json"));
            read_json(&bp)
                .and_then(|r| counts_for_point(&r).map(|()| r))
                .and_then(|r| rehearse::baseline_of(p, &r))
        });
        results.push(PointResult {
            index: i,
            value,
            baseline,
        });
    }
    let edits = rehearse::edits(
        &l.plan,
        &results,
        &l.verification.assessments,
        assess.as_deref(),
    );
    write_out(&l, &edits, &a.out)?;
    print!("{}", summary(&l.plan, &results));
    print!("{}", not_written(&l.plan, &results));
    let written = results.iter().filter(|r| r.value.is_ok()).count();
    println!("{written} values written of {} points", l.plan.len());
    println!("wrote {}", a.out.display());
    Ok(ExitCode::SUCCESS)
}
