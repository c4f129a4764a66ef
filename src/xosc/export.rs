//! A finished run as OpenSCENARIO 1.3 (`scil export RUN --xosc OUT.xosc`): every recorded actor
//! replays its recorded motion on the run's map.

use std::path::Path;

use openscenario::write::{Actor, Recording};

use crate::scenario::{Scenario, TargetKind};
use crate::store::{RunRow, TelemetryRow};

/// The recording of a stored run; `map` is the map file as the written file names it.
pub fn recording(
    run: &RunRow,
    rows: &[TelemetryRow],
    scenario: Option<&Scenario>,
    map: Option<&str>,
) -> Recording {
    let mut actors: Vec<Actor> = Vec::new();
    for r in rows {
        if !(r.t.is_finite() && r.x.is_finite() && r.y.is_finite() && r.yaw.is_finite()) {
            continue;
        }
        let i = match actors.iter().position(|a| a.name == r.vehicle) {
            Some(i) => i,
            None => {
                actors.push(actor(&r.vehicle, &r.kind, scenario));
                actors.len() - 1
            }
        };
        let a = &mut actors[i];
        // Keep time order; a repeated time stamp keeps the first sample.
        if a.samples.last().is_none_or(|s| r.t > s.0) {
            a.samples.push((r.t, r.x, r.y, r.yaw));
        }
    }
    let date = run
        .started_at
        .unwrap_or(run.created_at)
        .format("%Y-%m-%dT%H:%M:%S")
        .to_string();
    Recording {
        description: format!("scil run {} (scenario {})", run.id, run.scenario_id),
        date,
        map: map.map(str::to_string),
        actors,
    }
}

fn actor(name: &str, kind: &str, scenario: Option<&Scenario>) -> Actor {
    let mut a = Actor {
        name: name.to_string(),
        pedestrian: false,
        category: "car".into(),
        length: 4.5,
        width: 1.8,
        height: 1.5,
        samples: Vec::new(),
    };
    if kind == "vut" {
        if let Some(sc) = scenario {
            a.length = sc.vut.length_m;
            a.width = sc.vut.width_m;
        }
        return a;
    }
    if let Some(t) = scenario.and_then(|s| s.targets.iter().find(|t| t.id == name)) {
        let (l, w) = t.footprint();
        a.length = l;
        a.width = w;
        match t.kind {
            TargetKind::Pedestrian => {
                a.pedestrian = true;
                a.category = "pedestrian".into();
                a.height = 1.8;
            }
            TargetKind::Cyclist => a.category = "bicycle".into(),
            TargetKind::Motorcycle => a.category = "motorbike".into(),
            TargetKind::Vehicle => {}
        }
    }
    a
}

/// Writes the document and, beside it, the run's map (`OUT.xodr`) when there is one.
pub fn write_files(
    out: &Path,
    run: &RunRow,
    rows: &[TelemetryRow],
    scenario: Option<&Scenario>,
    xodr: Option<&str>,
) -> anyhow::Result<usize> {
    let map_name = match xodr {
        Some(text) => {
            let p = out.with_extension("xodr");
            std::fs::write(&p, text).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
            p.file_name().map(|f| f.to_string_lossy().into_owned())
        }
        None => None,
    };
    let rec = recording(run, rows, scenario, map_name.as_deref());
    let n = rec.actors.len();
    std::fs::write(out, openscenario::write::write(&rec))
        .map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
    Ok(n)
}
