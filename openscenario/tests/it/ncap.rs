//! Every scenario and variation file of the Euro NCAP set (data/osc-ncap) imports; variation
//! files expand to the product of their distributions; errors name file, line and reason.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use openscenario::{import, read_scenario, read_variation, Error};

fn set_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/osc-ncap/OpenSCENARIO/NCAP")
}

fn xosc_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "xosc"))
        .collect();
    v.sort();
    v
}

pub fn scenario_files() -> Vec<PathBuf> {
    let mut v = xosc_in(&set_dir().join("AEB_VRU_2023"));
    v.extend(xosc_in(&set_dir().join("AEB_C2C_2023")));
    v
}

pub fn variation_files() -> Vec<PathBuf> {
    let mut v = xosc_in(&set_dir().join("AEB_VRU_2023/Variations"));
    v.extend(xosc_in(&set_dir().join("AEB_C2C_2023/Variations")));
    v
}

#[test]
fn every_scenario_file_imports() {
    let files = scenario_files();
    assert_eq!(files.len(), 13);
    for f in files {
        let sc = read_scenario(&f, &BTreeMap::new()).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            sc.entities.iter().any(|e| e.name == "Ego"),
            "{}",
            f.display()
        );
        assert!(!sc.init.is_empty());
        assert!(
            sc.road_network.as_ref().is_some_and(|p| p.exists()),
            "{}",
            f.display()
        );
    }
}

#[test]
fn every_variation_expands_to_the_product_of_its_distributions() {
    let files = variation_files();
    assert_eq!(files.len(), 47);
    let mut total = 0;
    for f in files {
        let v = read_variation(&f).unwrap_or_else(|e| panic!("{e}"));
        let product: usize = v.distribution_sizes.iter().product();
        assert_eq!(v.combinations.len(), product, "{}", f.display());
        let all = import(&f, &BTreeMap::new()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(all.len(), product, "{}", f.display());
        // Each combination's values are the scenario's parameter values.
        for (combo, c) in v.combinations.iter().zip(&all) {
            for (k, val) in combo {
                let got = c.parameters[k].as_string();
                let same = match (got.parse::<f64>(), val.parse::<f64>()) {
                    (Ok(a), Ok(b)) => a == b,
                    _ => &got == val,
                };
                assert!(same, "{}: {k} = {got}, want {val}", f.display());
            }
        }
        total += product;
    }
    assert!(total > 47);
}

#[test]
fn a_range_distribution_counts_its_steps() {
    // CPNA-25 variation: Ego_speed_kph 10..60 step 5 = 11 values.
    let v = read_variation(
        &set_dir().join("AEB_VRU_2023/Variations/NCAP_AEB_VRU_CPNA-25_Variation_2023.xosc"),
    )
    .unwrap();
    assert!(v.distribution_sizes.contains(&11));
    let speeds: std::collections::BTreeSet<String> = v
        .combinations
        .iter()
        .map(|c| c["Ego_speed_kph"].clone())
        .collect();
    assert_eq!(speeds.len(), 11);
    assert!(speeds.contains("10") && speeds.contains("60") && speeds.contains("35"));
}

#[test]
fn parameters_and_expressions_evaluate() {
    let f = set_dir().join("AEB_VRU_2023/NCAP_AEB_VRU_CPNA_2023.xosc");
    let mut o = BTreeMap::new();
    o.insert("Ego_speed_kph".to_string(), "36".to_string());
    let sc = read_scenario(&f, &o).unwrap();
    let p = |n: &str| sc.parameters[n].as_f64().unwrap();
    assert_eq!(p("_Ego_speed"), 10.0);
    assert!((p("_VRU_initS") - (50.0 + 6.0 * 10.0)).abs() < 1e-12);
    assert!((p("VRU_collisionPointOffset") - (0.6 / 2.0 - 0.36)).abs() < 1e-12);
    assert!((p("_Ego_frontBumperLon") - (1.349 + 4.358 / 2.0)).abs() < 1e-12);
}

#[test]
fn a_violated_constraint_names_the_parameter() {
    let f = set_dir().join("AEB_VRU_2023/NCAP_AEB_VRU_CPNA_2023.xosc");
    let mut o = BTreeMap::new();
    o.insert("VRU_trajectoryOrientation".to_string(), "0".to_string());
    let e = read_scenario(&f, &o).unwrap_err().to_string();
    assert!(
        e.contains("VRU_trajectoryOrientation") && e.contains("NCAP_AEB_VRU_CPNA_2023.xosc:"),
        "{e}"
    );
    let mut o = BTreeMap::new();
    o.insert("Ego_initTTC".to_string(), "2".to_string());
    let e = read_scenario(&f, &o).unwrap_err().to_string();
    assert!(
        e.contains("Ego_initTTC") && e.contains("greaterThan"),
        "{e}"
    );
    let mut o = BTreeMap::new();
    o.insert("No_such".to_string(), "2".to_string());
    assert!(read_scenario(&f, &o)
        .unwrap_err()
        .to_string()
        .contains("No_such"));
}

/// Copies the CPNA file next to the catalogs with one edit and reads it.
fn edited(find: &str, replace: &str) -> Result<openscenario::Scenario, Error> {
    let src = set_dir().join("AEB_VRU_2023/NCAP_AEB_VRU_CPNA_2023.xosc");
    let text = std::fs::read_to_string(&src).unwrap();
    assert!(text.contains(find));
    let dir = set_dir().join("AEB_VRU_2023");
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!("_edit_{}_{n}.xosc", std::process::id()));
    std::fs::write(&tmp, text.replacen(find, replace, 1)).unwrap();
    let r = read_scenario(&tmp, &BTreeMap::new());
    std::fs::remove_file(&tmp).unwrap();
    r
}

#[test]
fn unsupported_elements_and_attributes_name_file_and_line() {
    let e = edited(
        "<StandStillCondition duration=\"0.1\" />",
        "<AccelerationCondition value=\"1\" rule=\"greaterThan\" />",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("AccelerationCondition") && e.contains(".xosc:218"),
        "{e}"
    );
    let e = edited("<TeleportAction>", "<TeleportAction bogus=\"1\">")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bogus") && e.contains("<TeleportAction>") && e.contains(".xosc:"),
        "{e}"
    );
    let e = edited("s=\"$Ego_initS\"", "s=\"${$Ego_initS + foo(1)}\"")
        .unwrap_err()
        .to_string();
    assert!(e.contains("foo"), "{e}");
    let e = edited("s=\"$Ego_initS\"", "s=\"$Nope\"")
        .unwrap_err()
        .to_string();
    assert!(e.contains("Nope"), "{e}");
}

/// Further files in the same style (e.g. a newer checkout of the set): every `.xosc` under
/// `$OSC_NCAP_EXTRA` that is a scenario or variation file imports. Skipped when unset.
#[test]
fn extra_files_import_when_given() {
    let Ok(dir) = std::env::var("OSC_NCAP_EXTRA") else {
        return;
    };
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "xosc") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(Path::new(&dir), &mut files);
    files.sort();
    let mut n = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        if text.contains("<Catalog ") {
            continue;
        }
        let all = import(&f, &BTreeMap::new()).unwrap_or_else(|e| panic!("{e}"));
        n += all.len();
    }
    eprintln!("{n} concrete scenarios under {dir}");
}
