//! An uploaded OpenSCENARIO file with the uploader's own files beside it (catalogs, road
//! network): each named by the relative path the scenario file uses (`../Catalogs/Vehicles/
//! Vehicles.xosc`, `../../../OpenDRIVE/NCAP/MyRoad.xodr`). The scenario is read from a scenario
//! folder laid out as the bundled library's (`OpenSCENARIO/NCAP/<folder>/`): the uploader's
//! files are placed at their paths from there, and every directory of the library that the
//! upload does not provide is the bundled one. A directory the uploader provides files in
//! holds the uploader's files only (a catalog directory is read whole).

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context};

use super::{bundled_library, import, is_xosc, Imported};

/// Where the scenario file lies inside the temporary library (three levels below its root,
/// as in the bundled library).
const FOLDER: &str = "OpenSCENARIO/NCAP/upload";

/// One file of an upload: its path relative to the scenario file, and its bytes.
#[derive(Debug, Clone)]
pub struct UploadFile {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// What an upload imports to: the scenario and, when the uploader's road network was used,
/// that network (file name, text) for the service to register as a map.
#[derive(Debug)]
pub struct Uploaded {
    pub imported: Imported,
    pub road_network: Option<(String, String)>,
}

/// The path of an uploaded file inside the temporary library, or why it cannot be there:
/// relative, `/`-separated, no `.` or empty parts, not above the library's root.
fn place(rel: &str) -> anyhow::Result<PathBuf> {
    let bad = |why: &str| anyhow::anyhow!("file '{rel}': {why}");
    if rel.is_empty() || rel.contains('\\') || rel.contains('\0') {
        return Err(bad("not a relative path with '/' separators"));
    }
    let p = Path::new(rel);
    let mut out = PathBuf::from(FOLDER);
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::ParentDir => {
                if !out.pop() {
                    return Err(bad("reaches above the library (at most three '../')"));
                }
            }
            Component::CurDir => {}
            _ => return Err(bad("not a relative path")),
        }
    }
    if out.as_os_str().is_empty() || out == Path::new(FOLDER) {
        return Err(bad("names no file"));
    }
    Ok(out)
}

/// Links every entry of the bundled `lib` directory that `dir` lacks; recurses into
/// directories both have, unless `dir` holds uploaded files directly (then it is the
/// uploader's alone).
fn overlay(lib: &Path, dir: &Path) -> anyhow::Result<()> {
    let holds_files = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .any(|e| e.file_type().is_ok_and(|t| t.is_file()));
    let Ok(rd) = std::fs::read_dir(lib) else {
        return Ok(());
    };
    for e in rd.filter_map(Result::ok) {
        let target = dir.join(e.file_name());
        let is_dir = e.path().is_dir();
        if target.exists() {
            if is_dir && target.is_dir() {
                overlay(&e.path(), &target)?;
            }
            continue;
        }
        if !is_dir && holds_files {
            continue;
        }
        let src = e.path().canonicalize().unwrap_or_else(|_| e.path());
        std::os::unix::fs::symlink(&src, &target)
            .with_context(|| format!("linking {}", target.display()))?;
    }
    Ok(())
}

/// Reads an uploaded scenario file `text` (named `name`) with the uploader's `files` (see the
/// module doc) and parameter `overrides`. A variation file is refused. Messages name the
/// upload's relative paths, never the temporary folder.
pub fn import_upload(
    text: &str,
    name: &str,
    overrides: &BTreeMap<String, String>,
    files: &[UploadFile],
) -> anyhow::Result<Uploaded> {
    let lib = bundled_library();
    let tmp = std::env::temp_dir().join(format!("scil-xosc-{}", uuid::Uuid::new_v4()));
    let result = (|| {
        let folder = tmp.join(FOLDER);
        std::fs::create_dir_all(&folder)?;
        let mut placed = std::collections::BTreeSet::new();
        for f in files {
            let rel = place(&f.path)?;
            if !placed.insert(rel.clone()) {
                bail!("file '{}' is given twice", f.path);
            }
            let at = tmp.join(&rel);
            if let Some(parent) = at.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&at, &f.bytes)?;
        }
        overlay(&lib, &tmp)?;
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
        if file.exists() {
            bail!("file '{name}' is also given as one of the scenario's files");
        }
        std::fs::write(&file, text)?;
        if openscenario::variation::is_variation(&file)? {
            bail!(
                "{name}: a variation file names its scenario file by path; upload the concrete scenarios (`scil scenario import FILE --out DIR` expands it)"
            );
        }
        let mut all = import(&file, overrides)?;
        let mut one = all.remove(0);
        let mut road_network = None;
        if let Some(m) = one.scenario.map.clone() {
            let p = Path::new(&m);
            let root = tmp.canonicalize().unwrap_or(tmp.clone());
            let lib_root = lib.canonicalize().unwrap_or(lib.clone());
            let rel = p
                .strip_prefix(&root)
                .or_else(|_| p.strip_prefix(&tmp))
                .map(Path::to_path_buf);
            if let Ok(rel) = rel {
                if placed.contains(&rel) {
                    // The uploader's road network: registered by the service under its stem.
                    let file_name = rel
                        .file_name()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_else(|| "road.xodr".into());
                    let xodr = std::fs::read_to_string(p)
                        .with_context(|| format!("road network {file_name} is not UTF-8 text"))?;
                    one.scenario.map = Some(file_name.clone());
                    road_network = Some((file_name, xodr));
                } else {
                    one.scenario.map = Some(lib.join(rel).to_string_lossy().into_owned());
                }
            } else if let Ok(rel) = p.strip_prefix(&lib_root) {
                one.scenario.map = Some(lib.join(rel).to_string_lossy().into_owned());
            }
        }
        Ok(Uploaded {
            imported: one,
            road_network,
        })
    })();
    let _ = std::fs::remove_dir_all(&tmp);
    result.map_err(|e: anyhow::Error| {
        let canon = tmp.canonicalize().unwrap_or(tmp.clone());
        let text = format!("{e:#}")
            .replace(&canon.display().to_string(), "")
            .replace(&tmp.display().to_string(), "");
        anyhow::anyhow!(text.replace(&format!("/{FOLDER}/"), ""))
    })
}

#[cfg(test)]
mod tests {
    use super::place;

    #[test]
    fn uploaded_paths_stay_inside_the_library() {
        assert_eq!(
            place("../Catalogs/Vehicles/V.xosc").unwrap(),
            std::path::Path::new("OpenSCENARIO/NCAP/Catalogs/Vehicles/V.xosc")
        );
        assert_eq!(
            place("../../../OpenDRIVE/NCAP/r.xodr").unwrap(),
            std::path::Path::new("OpenDRIVE/NCAP/r.xodr")
        );
        for bad in [
            "../../../../etc/passwd",
            "/etc/passwd",
            "",
            "a\\b",
            "../../..",
        ] {
            assert!(place(bad).is_err(), "{bad}");
        }
    }
}
