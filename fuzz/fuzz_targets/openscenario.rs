//! OpenSCENARIO XML (`scil xosc`, scenario import): scenario and variation files, read through
//! the same entry point as files on disk. The input is written where the bundled Euro NCAP
//! scenarios live (a temporary copy of their layout, links to the bundled files), so that its
//! catalog, road network and scenario-file references resolve as they do for real files.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

static INPUT: OnceLock<PathBuf> = OnceLock::new();

fn layout() -> PathBuf {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/osc-ncap");
    let root = std::env::temp_dir().join(format!("scil-fuzz-xosc-{}", std::process::id()));
    let ncap = root.join("OpenSCENARIO/NCAP");
    let here = ncap.join("AEB_VRU_2023");
    std::fs::create_dir_all(&here).expect("temp dir");
    let link = |from: PathBuf, to: PathBuf| {
        let _ = std::os::unix::fs::symlink(from.canonicalize().expect("bundled data"), to);
    };
    link(data.join("OpenDRIVE"), root.join("OpenDRIVE"));
    link(
        data.join("OpenSCENARIO/NCAP/Catalogs"),
        ncap.join("Catalogs"),
    );
    // Variation files name their scenario as `../NAME.xosc`.
    for dir in ["AEB_VRU_2023", "AEB_C2C_2023"] {
        let src = data.join("OpenSCENARIO/NCAP").join(dir);
        for e in std::fs::read_dir(&src)
            .expect("bundled scenarios")
            .flatten()
        {
            if e.path().extension().is_some_and(|x| x == "xosc") {
                link(e.path(), ncap.join(e.file_name()));
            }
        }
    }
    here.join("input.xosc")
}

fuzz_target!(|data: &[u8]| {
    let path = INPUT.get_or_init(layout);
    std::fs::write(path, data).expect("write input");
    let _ = openscenario::import(path, &BTreeMap::new());
});
