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
/// by path.
pub fn import_text(
    text: &str,
    name: &str,
    overrides: &BTreeMap<String, String>,
) -> anyhow::Result<Imported> {
    let lib = bundled_library();
    let tmp = std::env::temp_dir().join(format!("scil-xosc-{}", uuid::Uuid::new_v4()));
    let result = (|| {
        let folder = tmp.join("OpenSCENARIO/NCAP/upload");
        std::fs::create_dir_all(&folder)?;
        for (link, target) in [
            (
                tmp.join("OpenSCENARIO/NCAP/Catalogs"),
                lib.join("OpenSCENARIO/NCAP/Catalogs"),
            ),
            (tmp.join("OpenDRIVE"), lib.join("OpenDRIVE")),
        ] {
            let target = target.canonicalize().unwrap_or(target);
            std::os::unix::fs::symlink(&target, &link)
                .with_context(|| format!("linking {}", link.display()))?;
        }
        let safe: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._-".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let file = folder.join(if is_xosc(Path::new(&safe)) {
            safe
        } else {
            format!("{safe}.xosc")
        });
        std::fs::write(&file, text)?;
        if openscenario::variation::is_variation(&file)? {
            anyhow::bail!(
                "{name}: a variation file names its scenario file by path; upload the concrete scenarios (`scil scenario import FILE --out DIR` expands it)"
            );
        }
        let mut all = import(&file, overrides)?;
        let mut one = all.remove(0);
        // The map by its bundled path, not the temporary folder's.
        if let Some(m) = one.scenario.map.as_deref() {
            let p = Path::new(m);
            if let Ok(rel) = p.strip_prefix(tmp.canonicalize().unwrap_or(tmp.clone())) {
                one.scenario.map = Some(lib.join(rel).to_string_lossy().into_owned());
            } else if let Ok(rel) = p.strip_prefix(lib.canonicalize().unwrap_or(lib.clone())) {
                one.scenario.map = Some(lib.join(rel).to_string_lossy().into_owned());
            }
        }
        Ok(one)
    })();
    let _ = std::fs::remove_dir_all(&tmp);
    // Messages name the upload, not the temporary folder.
    result.map_err(|e: anyhow::Error| {
        let text = format!("{e:#}").replace(&tmp.display().to_string(), "");
        anyhow::anyhow!(text.replace("/OpenSCENARIO/NCAP/upload/", ""))
    })
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
            "{}: a variation file holds {} scenarios; run them as a sweep (`scil sweep --scenario {} --out DIR`) or write them out with `scil scenario import {} --out DIR`",
            path.display(),
            all.len(),
            path.display(),
            path.display()
        );
    }
    Ok(all.remove(0).scenario)
}
