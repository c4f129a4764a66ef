//! `scil bench ground-series`: Euro NCAP 2026 rows with a moving target driven as on the
//! ground, on simulated ISO 22133 objects with a real platform's dynamics (`carrier-sim
//! --realistic`: dead time, limited acceleration, a position controller, lateral wander, RTK
//! error, MONR 20–40 ms late), over real links on loopback, in real time.
//!
//! For each point: the VUT's robot and every moving target's platform are simulated, standing
//! at their starts; the objects are planned (within their kind's capabilities), armed as one
//! and started; the run's VUT telemetry is the robot's MONR. The verdict is the one a ground
//! run gets (target checks and impacts from the objects' MONR). Printed: each point's verdict
//! and its impact from MONR against the plan, then the share valid at the first attempt and
//! the worst MONR impact error. Prints; it is not a test.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use serde::Serialize;

use crate::capabilities::{CapabilitiesPatch, CapabilityLayer, ObjectCapabilities, Source};
use crate::dispatch::carrier_sim::{self, SimConfig, SimHandle};
use crate::dispatch::ground::plan::object_kind;
use crate::dispatch::ground::{Drives, Ground, GroundOptions, ObjectSpec, Pose};
use crate::dispatch::object::ObjectConfig;
use crate::dispatch::object_dynamics::Dynamics;
use crate::dispatch::profile::DummyProfile;
use crate::map::Map;
use crate::run::RunSetup;
use crate::scenario::ncap2026::{Catalogue, Params};
use crate::scenario::profile::Profile;
use crate::scenario::Activation;
use crate::sweep::catalogue_grid::{self, Cell};

mod stock;

/// Top speed of the platform that carries a target faster than its kind's default, km/h.
const HIGH_SPEED_PLATFORM_KMH: f64 = 160.0;

#[derive(Args, Debug, Clone)]
pub struct GroundSeriesArgs {
    /// Rows to drive (rating-tool ids, comma-separated, e.g. `CPNA,CCFtap`); default: every
    /// row with a moving target.
    #[arg(long, value_delimiter = ',')]
    pub rows: Vec<String>,
    /// Points per row, spread over its test matrix (lowest, highest and between).
    #[arg(long, default_value_t = 1)]
    pub points: usize,
    /// Objects that follow their TRAJ perfectly instead of a real platform's dynamics.
    #[arg(long)]
    pub perfect: bool,
    /// Seed of the objects' noise (each object and point gets its own from it).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Map for the straight rows (default: the bundled proving ground).
    #[arg(long)]
    pub straight_map: Option<PathBuf>,
    /// Map with a junction for the turning and crossing-path rows (default: the bundled
    /// X-intersection).
    #[arg(long)]
    pub junction_map: Option<PathBuf>,
    /// Write every point's result as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Stock isoObjects (`ISO_objectDemo`, this path) instead of scil's simulated objects,
    /// each on its own loopback address; unless `--perfect`, each behind a proxy that gives it
    /// a real platform's motion (`scil carrier-proxy --realistic KIND`). The stock object
    /// ignores MTSP, so the proxied ones are configured as platforms without MTSP.
    #[arg(long, value_name = "ISO_objectDemo")]
    pub stock_objects: Option<PathBuf>,
    /// Exit 1 unless every point ran to its end (planned, armed, started, not aborted, no
    /// error); its verdict may still be invalid.
    #[arg(long)]
    pub require_finished: bool,
}

/// One point driven.
#[derive(Debug, Clone, Serialize)]
pub struct PointResult {
    pub row: String,
    pub vut_speed_kmh: f64,
    pub target_speed_kmh: Option<f64>,
    pub impact: Option<f64>,
    pub turn: Option<String>,
    /// Ran to its end: planned, armed, started, neither aborted nor failed.
    pub finished: bool,
    /// Its scenario has validity rules to judge it by (the dooring row is measured by the
    /// TTC at the door's opening instead, without a validity window).
    pub judged: bool,
    /// Valid at the first attempt.
    pub valid: bool,
    /// Why not: the broken checks, the abort or the error.
    pub why: Vec<String>,
    /// Per target: planned impact location, the one from MONR, their difference.
    pub impacts: Vec<ImpactResult>,
    /// Per object: how far behind its plan it drove (m, largest by magnitude) and off its path.
    pub objects: Vec<ObjectResult>,
    /// The dooring row's measure: the cyclist's TTC to the door when it opened, s.
    pub door_ttc_s: Option<f64>,
    /// Arming refused for a degraded link before it armed (each refusal's text): as an
    /// operator does, the point waited for the link and armed again. Nothing had moved, so
    /// the point still counts as a first attempt.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arm_refused: Vec<String>,
    pub wall_s: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ObjectResult {
    pub name: String,
    /// Behind its plan at its last moving MONR (m along its path, and s against its schedule
    /// from its first RUNNING MONR; positive: behind), then the largest.
    pub lag_m: Option<f64>,
    pub schedule_lag_s: Option<f64>,
    pub max_lag_m: Option<f64>,
    pub max_schedule_lag_s: Option<f64>,
    pub max_lateral_m: Option<f64>,
    /// Every retime the run asked of this object (its MTSP origins and their corrections), to
    /// trace a point whose impact is off back to the schedules it was sent.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub retimes: Vec<crate::run::sink::carriers::RetimeRecord>,
    /// Every MTSP written to it, as `[written, origin]` in the control centre's seconds: the
    /// retimes above after the control centre's own lag compensation, and its re-sends.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mtsp_written: Vec<[f64; 2]>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ImpactResult {
    pub target: String,
    pub planned: f64,
    pub monr: Option<f64>,
    pub error: Option<f64>,
    /// The error with the objects' drift apart from their schedules taken out (where they
    /// would have met on their schedules: a diagnosis of the platforms, not the verdict).
    pub on_schedule_error: Option<f64>,
}

pub fn run(a: GroundSeriesArgs) -> anyhow::Result<ExitCode> {
    let rt = crate::run::runtime()?;
    rt.block_on(series(a))
}

async fn series(a: GroundSeriesArgs) -> anyhow::Result<ExitCode> {
    let results = drive_points(&a).await?;
    summary(&a, &results)
}

/// Drives the series' points one after the other, printing each point's line as it ends.
pub async fn drive_points(a: &GroundSeriesArgs) -> anyhow::Result<Vec<PointResult>> {
    let cat = Catalogue::bundled();
    let straight = a
        .straight_map
        .clone()
        .unwrap_or_else(|| crate::data_dir().join("opendrive/proving_ground.xodr"));
    let junction = a.junction_map.clone().unwrap_or_else(|| {
        crate::data_dir().join("osc-ncap/OpenDRIVE/NCAP/X-Intersection_NCAP.xodr")
    });
    let load = |p: &PathBuf| -> anyhow::Result<Arc<Map>> {
        Ok(Arc::new(Map::load(p).map_err(|e| {
            anyhow::anyhow!("map {}: {e:#}", p.display())
        })?))
    };
    let (straight, junction) = (load(&straight)?, load(&junction)?);
    let map_of = |row: &crate::scenario::ncap2026::Row| {
        if row.family.needs_junction() {
            junction.clone()
        } else {
            straight.clone()
        }
    };
    let cells = chosen_cells(&cat, &a.rows, a.points, &|row, p| {
        row.instantiate(p, &map_of(row).road_network)
            .is_ok_and(|sc| {
                sc.targets
                    .iter()
                    .any(|t| t.activation != Activation::Static)
            })
    })?;
    println!(
        "ground series: {} points on {} (seed {})",
        cells.len(),
        match (a.perfect, a.stock_objects.is_some()) {
            (true, false) => "objects that follow their TRAJ perfectly",
            (false, false) => "simulated objects with a real platform's dynamics",
            (true, true) => "stock isoObjects (they follow their TRAJ perfectly)",
            (false, true) => "stock isoObjects behind a real platform's dynamics (carrier-proxy)",
        },
        a.seed
    );
    let mut results = Vec::new();
    for (k, c) in cells.iter().enumerate() {
        let row = &cat.row[c.row];
        let seed = a.seed.wrapping_mul(1000).wrapping_add(k as u64 * 10);
        let objects = match &a.stock_objects {
            Some(bin) => Objects::Stock {
                bin: bin.clone(),
                point: k,
            },
            None => Objects::Simulated,
        };
        let r = point(row, &c.params, &map_of(row), a.perfect, &objects, seed).await;
        println!("{}", line(&r));
        results.push(r);
    }
    Ok(results)
}

/// The share valid at the first attempt and the worst MONR impact error; the exit code.
fn summary(a: &GroundSeriesArgs, results: &[PointResult]) -> anyhow::Result<ExitCode> {
    let n = results.iter().filter(|r| r.judged).count();
    let valid = results.iter().filter(|r| r.judged && r.valid).count();
    let unjudged: Vec<&str> = results
        .iter()
        .filter(|r| !r.judged)
        .map(|r| r.row.as_str())
        .collect();
    let worst = results
        .iter()
        .flat_map(|r| r.impacts.iter().filter_map(|i| i.error))
        .fold(None, |w: Option<f64>, e| {
            Some(if w.is_some_and(|w| w.abs() >= e.abs()) {
                w.unwrap_or(e)
            } else {
                e
            })
        });
    let missing = results
        .iter()
        .flat_map(|r| &r.impacts)
        .filter(|i| i.monr.is_none())
        .count();
    println!(
        "valid at the first attempt: {valid} of {n} ({:.0} %); worst MONR impact error {}{}",
        100.0 * valid as f64 / n.max(1) as f64,
        worst.map_or("-".into(), |w| format!("{w:+.3}")),
        if missing > 0 {
            format!("; {missing} planned impact(s) without contact on MONR")
        } else {
            String::new()
        }
    );
    if !unjudged.is_empty() {
        println!(
            "not in the share: {} point(s) whose protocol has no validity rules ({})",
            unjudged.len(),
            unjudged.join(", ")
        );
    }
    if let Some(p) = &a.json {
        std::fs::write(p, serde_json::to_vec_pretty(results)?)?;
    }
    let unfinished = results.iter().filter(|r| !r.finished).count();
    if a.require_finished && unfinished > 0 {
        eprintln!("{unfinished} point(s) did not run to their end");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

type Moving<'a> = dyn Fn(&crate::scenario::ncap2026::Row, &Params) -> bool + 'a;

/// The cells to drive: per chosen row (every row with a moving target when none is named),
/// `points` spread over its matrix; `moving` says whether a cell of a row has a moving target.
fn chosen_cells(
    cat: &Catalogue,
    rows: &[String],
    points: usize,
    moving: &Moving<'_>,
) -> anyhow::Result<Vec<Cell>> {
    let all = catalogue_grid::cells(cat);
    let first_of = |i: usize| all.iter().find(|c| c.row == i);
    let mut picked: Vec<(usize, Option<crate::scenario::turn::Turn>)> = Vec::new();
    if rows.is_empty() {
        for (i, r) in cat.row.iter().enumerate() {
            if first_of(i).is_some_and(|c| moving(r, &c.params)) {
                picked.push((i, None));
            }
        }
    } else {
        for name in rows {
            let (r, implied) = cat
                .find(name)
                .ok_or_else(|| anyhow::anyhow!("no catalogue row '{name}'"))?;
            let i = cat
                .row
                .iter()
                .position(|x| std::ptr::eq(x, r))
                .ok_or_else(|| anyhow::anyhow!("row '{name}'"))?;
            if !first_of(i).is_some_and(|c| moving(r, &c.params)) {
                anyhow::bail!("row '{name}' has no moving target");
            }
            picked.push((i, implied.turn));
        }
    }
    let mut out = Vec::new();
    for (i, turn) in picked {
        let cells: Vec<&Cell> = all
            .iter()
            .filter(|c| c.row == i && (turn.is_none() || c.params.turn == turn))
            .collect();
        let n = cells.len();
        if n == 0 {
            continue;
        }
        let k = points.clamp(1, n);
        for j in 0..k {
            // Spread: the middle one alone, else from the first to the last.
            let idx = if k == 1 {
                n / 2
            } else {
                (j * (n - 1) + (k - 1) / 2) / (k - 1)
            };
            out.push(cells[idx].clone());
        }
    }
    Ok(out)
}

/// What stands in for the objects.
enum Objects {
    /// scil's own simulated objects (`carrier-sim`), in this process.
    Simulated,
    /// Stock isoObjects started from `bin`, on addresses of their own for the `point`-th
    /// point (behind a platform proxy unless perfect).
    Stock { bin: PathBuf, point: usize },
}

/// One point: plan, simulate the objects at their starts, arm, run, judge. A stock object that
/// dies of a signal (its own fault) gets the point driven once more with fresh objects.
async fn point(
    row: &crate::scenario::ncap2026::Row,
    p: &Params,
    map: &Arc<Map>,
    perfect: bool,
    objects: &Objects,
    seed: u64,
) -> PointResult {
    let mut r = point_once(row, p, map, perfect, objects, seed).await;
    if r.why.iter().any(|w| w.contains(stock::CRASHED)) {
        let first = r.why.join("; ");
        r = point_once(row, p, map, perfect, objects, seed).await;
        r.why.push(format!("driven again: {first}"));
    }
    r
}

async fn point_once(
    row: &crate::scenario::ncap2026::Row,
    p: &Params,
    map: &Arc<Map>,
    perfect: bool,
    objects: &Objects,
    seed: u64,
) -> PointResult {
    let t0 = std::time::Instant::now();
    let mut r = PointResult {
        row: row.id.clone(),
        vut_speed_kmh: p.vut_speed_kmh,
        target_speed_kmh: p.target_speed_kmh,
        impact: p.impact,
        turn: p.turn.map(|t| format!("{t:?}").to_lowercase()),
        finished: false,
        judged: false,
        valid: false,
        why: Vec::new(),
        impacts: Vec::new(),
        objects: Vec::new(),
        door_ttc_s: None,
        arm_refused: Vec::new(),
        wall_s: 0.0,
    };
    if let Err(e) = drive(row, p, map, perfect, objects, seed, &mut r).await {
        r.why.push(e);
    }
    r.wall_s = t0.elapsed().as_secs_f64();
    r
}

async fn drive(
    row: &crate::scenario::ncap2026::Row,
    p: &Params,
    map: &Arc<Map>,
    perfect: bool,
    objects: &Objects,
    seed: u64,
    r: &mut PointResult,
) -> Result<(), String> {
    let sc = row.instantiate(p, &map.road_network)?;
    r.judged = sc.validity.is_some();
    let setup = Arc::new(
        RunSetup::try_new(sc, Some(map.clone()), Default::default())
            .map_err(|e| format!("{e:#}"))?,
    );
    let mut drives = vec![Drives::Vut];
    for t in &setup.scenario.targets {
        if t.activation != Activation::Static {
            drives.push(Drives::Target(t.id.clone()));
        }
    }
    // A target faster than its kind's platform drives by default is carried, as a test house
    // would, by a high-speed platform (a guided soft target): the same platform with a higher
    // top speed, for the plan and for the simulated object alike.
    let high_speed = |d: &Drives| -> Option<f64> {
        let Drives::Target(id) = d else { return None };
        let t = setup.scenario.targets.iter().find(|t| &t.id == id)?;
        let default = ObjectCapabilities::default_for(object_kind(&setup, d)).max_speed_mps;
        (t.speed_kmh.abs() / 3.6 > default).then_some(HIGH_SPEED_PLATFORM_KMH / 3.6)
    };
    let spec = |i: usize, d: &Drives, address: String| ObjectSpec {
        name: match d {
            Drives::Vut => "vut-robot".into(),
            Drives::Target(t) => format!("{t}-platform-{i}"),
        },
        address,
        drives: d.clone(),
        mobility: None,
        capabilities: high_speed(d)
            .map(|v| CapabilityLayer {
                kind: None,
                source: Source::Configured {
                    by: "the ground series (a high-speed platform)".into(),
                },
                patch: CapabilitiesPatch {
                    max_speed_mps: Some(v),
                    ..Default::default()
                },
            })
            .into_iter()
            .collect(),
    };
    let opts = GroundOptions::default();
    // Where each object starts (planning connects to nothing).
    let mut plan_only = Ground::new(
        drives
            .iter()
            .enumerate()
            .map(|(i, d)| spec(i, d, "127.0.0.1:1".into()))
            .collect(),
        opts.clone(),
    )
    .map_err(|e| e.to_string())?;
    let starts: Vec<Pose> = plan_only
        .prepare(setup.clone())
        .await
        .map_err(|e| e.to_string())?
        .plans
        .iter()
        .map(|p| p.track.start())
        .collect();
    let dynamics = |i: usize, d: &Drives| {
        let realistic = Dynamics::realistic(object_kind(&setup, d));
        Dynamics {
            seed: seed + i as u64,
            max_speed_mps: high_speed(d).unwrap_or(realistic.max_speed_mps),
            ..realistic
        }
    };
    if let Objects::Stock { bin, point } = objects {
        // The stock object ignores MTSP: behind the proxy it is a platform without MTSP, as
        // a test house configures one.
        let no_mtsp = CapabilityLayer {
            kind: None,
            source: Source::Configured {
                by: "the ground series (the stock isoObject ignores MTSP)".into(),
            },
            patch: CapabilitiesPatch {
                honours_mtsp: Some(false),
                ..Default::default()
            },
        };
        let up = stock::start(
            bin,
            *point,
            &starts,
            &drives
                .iter()
                .enumerate()
                .map(|(i, d)| (!perfect).then(|| dynamics(i, d)))
                .collect::<Vec<_>>(),
        )
        .await?;
        let specs = drives
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let mut s = spec(i, d, up.address(i));
                if !perfect {
                    s.capabilities.push(no_mtsp.clone());
                }
                s
            })
            .collect();
        let outcome = judge(&setup, specs, &starts, opts, r).await;
        crate::dispatch::ground::links::close_all().await;
        return up.stop(outcome);
    }
    let mut sims: Vec<SimHandle> = Vec::new();
    let mut objects = Vec::new();
    for (i, (d, at)) in drives.iter().zip(&starts).enumerate() {
        let s = carrier_sim::spawn(SimConfig {
            tcp_port: 0,
            udp_port: 0,
            object: ObjectConfig {
                id: 100 + i as u32,
                dynamics: if perfect {
                    Dynamics::default()
                } else {
                    dynamics(i, d)
                },
                profile: DummyProfile::new(Profile::new(at.x, at.y, at.yaw, 1.0, 1.0)),
                ..Default::default()
            },
            ..Default::default()
        })
        .await
        .map_err(|e| format!("simulated object: {e}"))?;
        objects.push(spec(
            i,
            d,
            format!("127.0.0.1:{}:{}", s.tcp_addr.port(), s.udp_addr.port()),
        ));
        sims.push(s);
    }
    let outcome = judge(&setup, objects, &starts, opts, r).await;
    for s in sims {
        s.shutdown().await;
    }
    outcome
}

async fn judge(
    setup: &Arc<RunSetup>,
    objects: Vec<ObjectSpec>,
    starts: &[Pose],
    opts: GroundOptions,
    r: &mut PointResult,
) -> Result<(), String> {
    let names: Vec<String> = objects.iter().map(|o| o.name.clone()).collect();
    let mut g = Ground::new(objects, opts).map_err(|e| e.to_string())?;
    let prepared = g.prepare(setup.clone()).await.map_err(|e| e.to_string())?;
    for (n, at) in names.iter().zip(starts) {
        g.set_known(n, Some(*at), None);
    }
    let motion = loop {
        match g.arm(&prepared, false).await {
            Ok(m) => break m,
            // A link degraded for a moment (a busy host): the operator waits for it and arms
            // again; any other refusal ends the point.
            Err(e) if is_link_refusal(&e.to_string()) && r.arm_refused.len() < ARM_LINK_RETRIES => {
                r.arm_refused.push(e.to_string());
                tokio::time::sleep(ARM_LINK_WAIT).await;
            }
            Err(e) => return Err(format!("arm: {e}")),
        }
    };
    let rep = g
        .run(motion, &prepared, None, Vec::new())
        .await
        .map_err(|e| format!("run: {e}"))?;
    r.finished = rep.run.error.is_none() && rep.run.aborted.is_none();
    if let Some(e) = &rep.run.error {
        r.why.push(format!("error: {e}"));
    }
    if let Some(a) = &rep.run.aborted {
        r.why.push(format!("aborted: {a}"));
    }
    match &rep.run.validity {
        Some(v) => {
            for c in v.checks.iter().filter(|c| !c.ok) {
                r.why
                    .push(format!("{:?} {:+.3} ({})", c.channel, c.worst, c.limit));
            }
            if !v.valid && v.checks.iter().all(|c| c.ok) {
                r.why.push("no check judged".into());
            }
            r.valid = v.valid && rep.run.aborted.is_none() && rep.run.error.is_none();
        }
        None if r.judged => r.why.push("no verdict".into()),
        None => {}
    }
    r.door_ttc_s = rep
        .run
        .triggers
        .iter()
        .find(|t| t.target == "door")
        .map(|t| t.ttc_s);
    for o in &rep.objects {
        let retimes = rep
            .run
            .carriers
            .iter()
            .flatten()
            .find(|c| c.carrier == o.name)
            .map(|c| c.retimes.clone())
            .unwrap_or_default();
        let mtsp_written = rep
            .run
            .dispatch
            .iter()
            .flat_map(|d| &d.events)
            .filter_map(|e| match &e.kind {
                crate::dispatch::events::EventKind::MtspSent {
                    carrier,
                    origin_s,
                    written_s,
                } if *carrier == o.name => Some([*written_s, *origin_s]),
                _ => None,
            })
            .collect();
        r.objects.push(ObjectResult {
            name: o.name.clone(),
            lag_m: o.lag_m,
            schedule_lag_s: o.schedule_lag_s,
            max_lag_m: o.max_lag_m,
            max_schedule_lag_s: o.max_schedule_lag_s,
            max_lateral_m: o.max_lateral_m,
            retimes,
            mtsp_written,
        });
    }
    for i in &rep.impacts {
        let Some(planned) = i.planned_location else {
            continue;
        };
        let monr = i.monr.as_ref().map(|m| m.location);
        r.impacts.push(ImpactResult {
            target: i.target.clone(),
            planned,
            monr,
            error: monr.map(|m| m - planned),
            on_schedule_error: i.on_schedule_error,
        });
    }
    Ok(())
}

/// How often a point arms again after a refusal for a degraded link, and how long it waits
/// for the link first (the link's measures cover the last second).
const ARM_LINK_RETRIES: usize = 2;
const ARM_LINK_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// An arming refused because a carrier's link measures (MONR loss, rate, latency) are beyond
/// their limits, not because of the objects or the plan.
fn is_link_refusal(e: &str) -> bool {
    e.contains("arming refused: carrier") && e.contains(" link: ")
}

fn line(r: &PointResult) -> String {
    let mut s = format!("{:<8} VUT {:>5.1} km/h", r.row, r.vut_speed_kmh);
    if let Some(t) = r.target_speed_kmh {
        s += &format!(", target {t:.0} km/h");
    }
    if let Some(i) = r.impact {
        s += &format!(", impact {i:.2}");
    }
    if let Some(t) = &r.turn {
        s += &format!(", {t}");
    }
    s += &format!(
        ": {} in {:.0} s",
        match (r.judged, r.valid, r.finished) {
            (true, true, _) => "valid",
            (true, false, _) => "NOT valid",
            (false, _, true) => "not judged (no validity rules)",
            (false, _, false) => "not judged, did NOT run to its end",
        },
        r.wall_s
    );
    if let Some(t) = r.door_ttc_s {
        s += &format!("; door opened at TTC {t:.3} s");
    }
    for i in &r.impacts {
        s += &match (i.monr, i.error) {
            (Some(m), Some(e)) => format!(
                "; {} MONR impact {m:.3} (plan {:.3}, {e:+.3}{})",
                i.target,
                i.planned,
                i.on_schedule_error
                    .map_or(String::new(), |d| format!("; on their schedules {d:+.3}"))
            ),
            _ => format!("; {} no contact on MONR (plan {:.3})", i.target, i.planned),
        };
    }
    if !r.why.is_empty() {
        s += &format!(" [{}]", r.why.join("; "));
    }
    if !r.arm_refused.is_empty() {
        s += &format!(
            " (armed after {} refusal(s) for a degraded link)",
            r.arm_refused.len()
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::is_link_refusal;

    #[test]
    fn only_a_degraded_link_is_waited_for_at_arm() {
        assert!(is_link_refusal(
            "arming refused: carrier vut-robot link: MONR loss 31 % exceeds the limit 25 %: \
             vut-robot: connected, state Disarmed"
        ));
        assert!(!is_link_refusal(
            "arming refused: not every carrier reported ARMED in time"
        ));
        assert!(!is_link_refusal(
            "object vut-robot is 3.20 m and 4.0° from its start"
        ));
    }
}
