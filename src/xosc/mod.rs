//! OpenSCENARIO files as scil scenarios: `openscenario` reads the file into a plain scenario,
//! [`map::to_scil`] places it on its road network and maps it onto scil's engine (the ego is
//! the VUT with its planned path; the other entities are targets on carriers or static
//! obstructions; synchronize actions and the file's start triggers become start rules).

pub mod export;
pub mod map;
mod plan;

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
pub use openscenario::Value;

use crate::scenario::Scenario;

/// One imported concrete scenario.
#[derive(Debug, Clone)]
pub struct Imported {
    pub parameters: BTreeMap<String, Value>,
    pub scenario: Scenario,
}

/// True for a file scil reads as OpenSCENARIO (`.xosc`, any case).
pub fn is_xosc(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("xosc"))
}

/// Reads an OpenSCENARIO scenario or variation file and maps every concrete scenario onto
/// scil's engine.
pub fn import(path: &Path, overrides: &BTreeMap<String, String>) -> anyhow::Result<Vec<Imported>> {
    let all = openscenario::import(path, overrides)?;
    let many = all.len() > 1;
    let mut out = Vec::with_capacity(all.len());
    for c in all {
        let mut sc = map::to_scil(&c.scenario).with_context(|| {
            format!(
                "{}: cannot map onto scil's engine",
                c.scenario.file.display()
            )
        })?;
        if many {
            sc.name = format!("{}-{}", sc.name, out.len() + 1);
        }
        out.push(Imported {
            parameters: c.parameters,
            scenario: sc,
        });
    }
    Ok(out)
}

/// A scenario file of either format: TOML, or OpenSCENARIO (`.xosc`, one concrete scenario;
/// a variation file must be expanded with `scil scenario import --out`).
pub fn load_scenario_file(path: &Path) -> anyhow::Result<Scenario> {
    if !is_xosc(path) {
        return Ok(Scenario::from_path(path)?);
    }
    let mut all = import(path, &BTreeMap::new())?;
    if all.len() != 1 {
        anyhow::bail!(
            "{}: a variation file holds {} scenarios; write them out with `scil scenario import {} --out DIR`",
            path.display(),
            all.len(),
            path.display()
        );
    }
    Ok(all.remove(0).scenario)
}
