//! OpenSCENARIO files as scil scenarios: `openscenario` reads the file into a plain scenario,
//! [`map::to_scil`] places it on its road network and maps it onto scil's engine (the ego is
//! the VUT with its planned path; the other entities are targets on carriers or static
//! obstructions; synchronize actions and the file's start triggers become start rules).

pub mod export;
pub mod map;
mod plan;
pub mod upload;

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

impl Imported {
    /// The scenario as TOML, headed by the parameter values it was imported with (comments).
    pub fn to_toml(&self) -> anyhow::Result<String> {
        let mut s = String::from("# Imported from OpenSCENARIO with parameters:\n");
        for (k, v) in &self.parameters {
            s.push_str(&format!("#   {k} = {}\n", v.as_string()));
        }
        s.push_str(&toml::to_string(&self.scenario)?);
        Ok(s)
    }
}

/// The OpenSCENARIO library bundled with scil: Euro NCAP scenario files with their catalogs
/// and road networks (`osc-ncap/` in the data directory).
pub fn bundled_library() -> std::path::PathBuf {
    crate::data_dir().join("osc-ncap")
}

/// Reads an uploaded OpenSCENARIO scenario file (its text, without the files beside it): its
/// relative references (catalog directories, the road network) resolve as if it lay in a
/// scenario folder of the bundled library (`OpenSCENARIO/NCAP/<folder>/`), so a file written
/// against the Euro NCAP catalogs and road networks reads as it does there. `name` is the
/// upload's file name (for messages). A variation file is refused: it names its scenario file
/// by path. [`upload::import_upload`] takes the uploader's own catalogs and road network too.
pub fn import_text(
    text: &str,
    name: &str,
    overrides: &BTreeMap<String, String>,
) -> anyhow::Result<Imported> {
    Ok(upload::import_upload(text, name, overrides, &[])?.imported)
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

/// The error for a scenario path that does not exist: the command line takes a file, where
/// the service takes a registered id; a bare name that is a bundled scenario's id gets its path.
pub fn missing_scenario_file(path: &Path) -> String {
    let shown = path.display();
    let bare = path.components().count() == 1 && path.extension().is_none();
    if bare {
        let bundled = crate::data_dir()
            .join("scenarios")
            .join(format!("{shown}.toml"));
        if bundled.is_file() {
            return format!(
                "{shown}: no such file. The command line takes a scenario file (TOML or .xosc), not an id as the service does: --scenario {}",
                bundled.display()
            );
        }
        return format!(
            "{shown}: no such file. The command line takes a scenario file (TOML or .xosc), not an id as the service does (the bundled ones are in {})",
            crate::data_dir().join("scenarios").display()
        );
    }
    format!("{shown}: no such scenario file")
}

/// A scenario file of either format: TOML, or OpenSCENARIO (`.xosc`, one concrete scenario;
/// a variation file must be expanded with `scil scenario import --out`).
pub fn load_scenario_file(path: &Path) -> anyhow::Result<Scenario> {
    if !path.exists() {
        anyhow::bail!("{}", missing_scenario_file(path));
    }
    if !is_xosc(path) {
        return Ok(Scenario::from_path(path)?);
    }
    let mut all = import(path, &BTreeMap::new())?;
    if all.len() != 1 {
        anyhow::bail!(
            "{}: a variation file holds {} scenarios; run them as a sweep (`scil sweep --scenario {} --out DIR`) or write them out with `scil scenario import {} --out DIR`",
            path.display(),
            all.len(),
            path.display(),
            path.display()
        );
    }
    Ok(all.remove(0).scenario)
}
