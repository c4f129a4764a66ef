//! Running the plan on the simulated VUT ([`crate::sim::run_sim`], the code path of
//! `scil sim`) and turning results into the workbook's `Value` cells.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use super::plan::{Function, Planned};
use super::quantity::{measure, subject, target_for, Quantity};
use super::sheet::Assessment;
use super::xlsx::NewValue;
use crate::map::Map;
use serde_json::Value;

use crate::run::RunSetup;
use crate::scenario::engine::EngineConfig;
use crate::sim::{AebParams, ElkParams, FcwParams, SimOptions};

/// The simulated vehicle's systems for a rehearsal.
#[derive(Debug, Clone, Copy)]
pub struct Systems {
    pub aeb: AebParams,
    pub fcw: FcwParams,
    pub elk: ElkParams,
}

/// The simulation options of a point: AEB points with the AEB; FCW points with the FCW and the
/// protocol's brake robot (no AEB), so the warning is what is measured; road-edge points
/// (`dtle_t_end`) with the lane keeping; the baseline run (`baseline`) with none.
pub fn options(p: &Planned, sys: &Systems, baseline: bool) -> SimOptions {
    sim_options(
        p.params.function,
        p.quantity,
        p.params.vut_speed_kmh.unwrap_or(0.0),
        sys,
        baseline,
    )
}

/// [`options`] from a point's function, quantity and VUT speed (km/h).
pub fn sim_options(
    function: Option<Function>,
    quantity: Option<Quantity>,
    vut_speed_kmh: f64,
    sys: &Systems,
    baseline: bool,
) -> SimOptions {
    let (aeb, fcw) = if baseline {
        (None, None)
    } else {
        match function {
            Some(Function::Fcw) => (None, Some(sys.fcw)),
            _ if quantity == Some(Quantity::FcwTtc) => (None, Some(sys.fcw)),
            _ => (Some(sys.aeb), None),
        }
    };
    let elk = (!baseline && quantity == Some(Quantity::Dtle)).then_some(sys.elk);
    SimOptions {
        vut_speed_kmh,
        aeb,
        fcw,
        elk,
        ..SimOptions::default()
    }
}

/// One point's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct PointResult {
    pub index: usize,
    pub value: Result<f64, String>,
    pub baseline: Option<Result<f64, String>>,
}

/// Measures `p`'s quantity from `report` (and the baseline from `baseline`).
pub fn value_of(p: &Planned, run: &Value) -> Result<f64, String> {
    let (Ok(sc), Some(q)) = (&p.scenario, p.quantity) else {
        return Err(p.reason().unwrap_or_default());
    };
    let target = target_for(q, sc).ok_or("the scenario has no target")?;
    measure(q, run, target, p.params.vut_speed_kmh.unwrap_or(0.0))
}

/// The baseline (`v_impact_baseline`) from the baseline run.
pub fn baseline_of(p: &Planned, run: &Value) -> Result<f64, String> {
    let sc = p.scenario.as_ref().map_err(Clone::clone)?;
    let target = subject(sc).ok_or("the scenario has no target")?;
    measure(
        Quantity::VImpact,
        run,
        target,
        p.params.vut_speed_kmh.unwrap_or(0.0),
    )
}

/// The loaded maps the points run on.
#[derive(Clone)]
pub struct RunMaps {
    pub straight: Option<Arc<Map>>,
    pub junction: Option<Arc<Map>>,
}

/// One simulated run of the point, its result as JSON (as `scil sim --json` prints it).
pub fn run_one(p: &Planned, maps: &RunMaps, opts: &SimOptions) -> Result<Value, String> {
    let sc = p.scenario.clone()?;
    let map = if p.junction {
        maps.junction.clone()
    } else {
        maps.straight.clone()
    };
    let setup =
        RunSetup::try_new(sc, map, EngineConfig::default()).map_err(|e| format!("{e:#}"))?;
    let r = crate::sim::run_sim(Arc::new(setup), opts);
    if let Some(e) = &r.error {
        return Err(e.clone());
    }
    serde_json::to_value(&r).map_err(|e| e.to_string())
}

/// Runs every runnable point (on `threads` threads; results do not depend on the count) and
/// calls `tick` after each.
pub fn rehearse(
    plan: &[Planned],
    map: RunMaps,
    sys: &Systems,
    threads: usize,
    tick: &(dyn Fn() + Sync),
) -> Vec<PointResult> {
    let todo: Vec<usize> = (0..plan.len()).filter(|&i| plan[i].runnable()).collect();
    let next = AtomicUsize::new(0);
    let out = Mutex::new(Vec::with_capacity(todo.len()));
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = todo.get(k) else {
                    break;
                };
                let p = &plan[i];
                let value = run_one(p, &map, &options(p, sys, false)).and_then(|r| value_of(p, &r));
                let baseline = p.point.expected_baseline.as_ref().map(|_| {
                    run_one(p, &map, &options(p, sys, true)).and_then(|r| baseline_of(p, &r))
                });
                if let Ok(mut o) = out.lock() {
                    o.push(PointResult {
                        index: i,
                        value,
                        baseline,
                    });
                }
                tick();
            });
        }
    });
    let mut v = out.into_inner().unwrap_or_default();
    v.sort_by_key(|r| r.index);
    v
}

/// The cells to write: each measured value (rounded to 1e-6) into its point's `Value` (and
/// `Value baseline`), and `assess` (PASS/FAIL) into assessment rows that are still empty.
pub fn edits(
    plan: &[Planned],
    results: &[PointResult],
    assessments: &[Assessment],
    assess: Option<&str>,
) -> BTreeMap<String, BTreeMap<(u32, u32), NewValue>> {
    let mut e: BTreeMap<String, BTreeMap<(u32, u32), NewValue>> = BTreeMap::new();
    for r in results {
        let p = &plan[r.index].point;
        let cells = e.entry(p.sheet.clone()).or_default();
        if let Ok(v) = r.value {
            cells.insert((p.row, p.value_col), NewValue::Number(round6(v)));
        }
        if let (Some(Ok(b)), Some(c)) = (&r.baseline, p.baseline_col) {
            cells.insert((p.row, c), NewValue::Number(round6(*b)));
        }
    }
    if let Some(a) = assess {
        for x in assessments.iter().filter(|x| x.value.is_none()) {
            e.entry(x.sheet.clone())
                .or_default()
                .insert((x.row, x.value_col), NewValue::Text(a.to_string()));
        }
    }
    e
}

/// Rounded to 1e-6 (far below any measurement's resolution; keeps the cells readable).
pub fn round6(v: f64) -> f64 {
    let r = (v * 1e6).round() / 1e6;
    if r == 0.0 {
        0.0
    } else {
        r
    }
}
