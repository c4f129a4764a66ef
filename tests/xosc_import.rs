//! OpenSCENARIO import onto scil's engine: every scenario file of the Euro NCAP set maps (or
//! errors naming what scil cannot honour); each mapped scenario, driven through by the
//! simulated VUT without AEB, brings VUT and target to their synchronisation positions within
//! ±0.1 s; variation files expand to one scenario per combination; `.xosc` loads wherever a
//! scenario file does.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use scil::run::setup::RunSetup;
use scil::scenario::engine::EngineConfig;
use scil::scenario::Activation;

fn set_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/osc-ncap/OpenSCENARIO/NCAP")
}

fn scenario_files() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for d in ["AEB_VRU_2023", "AEB_C2C_2023"] {
        for e in std::fs::read_dir(set_dir().join(d)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|e| e == "xosc") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

#[test]
fn every_scenario_maps_and_meets_its_synchronisation_point() {
    let mut mapped = 0;
    for f in scenario_files() {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let sc = match scil::xosc::load_scenario_file(&f) {
            Ok(sc) => sc,
            Err(e) => {
                // What the engine cannot honour is an error naming the action.
                let msg = format!("{e:#}");
                assert!(name.contains("CCFhol"), "{name}: {msg}");
                assert!(msg.contains("LongitudinalDistanceAction"), "{msg}");
                continue;
            }
        };
        mapped += 1;
        assert!(sc.vut.path.is_some(), "{name}");
        let vut_speed = sc.vut.speed_kmh.unwrap();
        let conflict: Vec<_> = sc
            .targets
            .iter()
            .filter(|t| t.activation == Activation::Conflict)
            .map(|t| t.id.clone())
            .collect();
        if sc.vut.reverse || conflict.is_empty() {
            continue; // the simulated VUT drives forwards only
        }
        let setup = Arc::new(RunSetup::load(&f, None, EngineConfig::default()).unwrap());
        let opts = scil::sim::SimOptions {
            vut_speed_kmh: vut_speed,
            ..Default::default()
        };
        let report = scil::sim::run_sim(setup, &opts);
        assert!(report.error.is_none(), "{name}: {:?}", report.error);
        for id in &conflict {
            let imp = report
                .impacts
                .iter()
                .find(|i| &i.target == id)
                .unwrap_or_else(|| panic!("{name}: no record for {id}"));
            let err = imp
                .arrival_error_s
                .unwrap_or_else(|| panic!("{name}: {id} has no arrival error: {imp:?}"));
            assert!(err.abs() <= 0.1, "{name}: {id} arrives {err:.3} s off");
            assert!(imp.location.is_some(), "{name}: {id} was not hit");
        }
    }
    assert_eq!(mapped, 12);
}

#[test]
fn the_impact_location_follows_the_overlap_parameter() {
    let f = set_dir().join("AEB_VRU_2023/NCAP_AEB_VRU_CPNA_2023.xosc");
    for overlap in [25.0, 75.0] {
        let mut o = BTreeMap::new();
        o.insert("Overlap".to_string(), overlap.to_string());
        let all = scil::xosc::import(&f, &o).unwrap();
        let t = &all[0].scenario.targets[0];
        // The file's impact point: the overlap, moved by its collision-point offset (-0.06 m).
        let w = 1.815;
        let want = overlap / 100.0 - (0.6 / 2.0 - 0.36) / w;
        assert!((t.overlap - want).abs() < 1e-6, "{} vs {want}", t.overlap);
    }
}

#[test]
fn a_variation_file_expands_to_one_scenario_per_combination() {
    let f = set_dir().join("AEB_C2C_2023/Variations/NCAP_AEB_C2C_CCRb_Variation_2023.xosc");
    let v = openscenario::read_variation(&f).unwrap();
    let all = scil::xosc::import(&f, &BTreeMap::new()).unwrap();
    assert_eq!(all.len(), v.distribution_sizes.iter().product::<usize>());
    // CCRb: the lead vehicle brakes at the file's delay with its deceleration.
    for c in &all {
        let gvt = &c.scenario.targets[0];
        let b = gvt.brake.expect("CCRb brakes");
        let decel = c.parameters["GVT_deceleration"].as_f64().unwrap();
        assert!((b.decel_mps2 - decel.abs()).abs() < 1e-9);
    }
    // A variation file is not one scenario.
    let e = scil::xosc::load_scenario_file(&f).unwrap_err().to_string();
    assert!(e.contains("--out"), "{e}");
}

#[test]
fn ccrs_maps_a_static_target_and_ccrm_a_moving_one() {
    let f = set_dir().join("AEB_C2C_2023/NCAP_AEB_C2C_CCR_2023.xosc");
    let mut o = BTreeMap::new();
    o.insert("GVT_init_speed_kph".to_string(), "0".to_string());
    let s = &scil::xosc::import(&f, &o).unwrap()[0].scenario;
    assert_eq!(s.targets[0].activation, Activation::Static);
    o.insert("GVT_init_speed_kph".to_string(), "20".to_string());
    let s = &scil::xosc::import(&f, &o).unwrap()[0].scenario;
    assert_eq!(s.targets[0].activation, Activation::Begin);
    assert!((s.targets[0].speed_kmh - 20.0).abs() < 1e-9);
}
