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
    let mut reversing = 0;
    for f in scenario_files() {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let sc = scil::xosc::load_scenario_file(&f).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        mapped += 1;
        assert!(sc.vut.path.is_some(), "{name}");
        let vut_speed = sc.vut.speed_kmh.unwrap();
        // CCFhol's overtaken vehicle (SOV) keeps its distance ahead of the GVT: it shares the
        // GVT's start and profile but is never hit (see the CCFhol test).
        let conflict: Vec<_> = sc
            .targets
            .iter()
            .filter(|t| t.activation == Activation::Conflict && t.id != "SOV")
            .map(|t| t.id.clone())
            .collect();
        let opts = scil::sim::SimOptions {
            vut_speed_kmh: vut_speed,
            ..Default::default()
        };
        if sc.vut.reverse && conflict.is_empty() {
            // Reversing onto a standing dummy: the simulated VUT, rear first, hits it.
            let setup = Arc::new(RunSetup::load(&f, None, EngineConfig::default()).unwrap());
            let report = scil::sim::run_sim(setup, &opts);
            assert!(report.error.is_none(), "{name}: {:?}", report.error);
            assert!(
                report.impacts.iter().any(|i| i.time_s.is_some()),
                "{name}: no impact: {:?}",
                report.impacts
            );
            reversing += 1;
            continue;
        }
        if conflict.is_empty() {
            continue;
        }
        let setup = Arc::new(RunSetup::load(&f, None, EngineConfig::default()).unwrap());
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
    assert_eq!(mapped, 13);
    assert_eq!(reversing, 1, "the stationary reversing test was driven");
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

/// `scil export RUN --xosc` writes a stored run that reads back (map beside it) to the same
/// trajectories within 1 cm.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exported_run_imports_to_the_same_trajectories() {
    use scil::store::{MapRow, RunRow, ScenarioRow, Store, TelemetryRow};
    let dir = std::env::temp_dir().join(format!("scil-xosc-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}", dir.join("t.db").display());
    let store = Store::connect(&url).await.unwrap();
    let now = chrono::Utc::now();
    let xodr_path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/osc-ncap/OpenDRIVE/NCAP/StraightRoad_NCAP_noRoadmarks.xodr");
    let xodr = std::fs::read_to_string(&xodr_path).unwrap();
    store
        .upsert_map(&MapRow {
            id: "ncap-straight".into(),
            name: "ncap-straight".into(),
            file_name: "StraightRoad_NCAP_noRoadmarks.xodr".into(),
            bytes: xodr.len() as i64,
            xodr,
            roads: 1,
            geo_reference: None,
            bundled: false,
            created_at: now,
        })
        .await
        .unwrap();
    let sc =
        scil::xosc::load_scenario_file(&set_dir().join("AEB_VRU_2023/NCAP_AEB_VRU_CPNA_2023.xosc"))
            .unwrap();
    store
        .upsert_scenario(&ScenarioRow {
            id: "cpna".into(),
            name: sc.name.clone(),
            map_id: Some("ncap-straight".into()),
            toml: toml::to_string(&sc).unwrap(),
            bundled: false,
            created_at: now,
        })
        .await
        .unwrap();
    let id = "run-xosc-1";
    store
        .insert_run(&RunRow {
            id: id.into(),
            state: "finished".into(),
            scenario_id: "cpna".into(),
            map_id: Some("ncap-straight".into()),
            source: "{}".into(),
            speed: None,
            error: None,
            abort: None,
            created_at: now,
            armed_at: None,
            started_at: Some(now),
            finished_at: Some(now),
            track: None,
            demo: false,
            instance: None,
        })
        .await
        .unwrap();
    let mut rows = Vec::new();
    let mut want: BTreeMap<String, Vec<(f64, f64, f64)>> = BTreeMap::new();
    for k in 0..800 {
        let t = 0.01 * k as f64;
        let row = |vehicle: &str, kind: &str, x: f64, y: f64, yaw: f64| TelemetryRow {
            run_id: id.into(),
            seq: 0,
            t,
            vehicle: vehicle.into(),
            kind: kind.into(),
            x,
            y,
            yaw,
            speed_mps: 8.33,
            steering_wheel_deg: None,
            brake_light: None,
            road_id: None,
            lane_id: None,
            road_s: None,
            road_t: None,
            wheel_speed_mps: None,
        };
        let (vx, vy) = (50.0 + 8.33 * t, -14.0 + 0.05 * (t * 1.3).sin());
        let (px, py) = (100.0, -18.0 + 1.39 * (t - 2.0).max(0.0));
        rows.push(row("vut", "vut", vx, vy, 0.0));
        rows.push(row("VRU", "target", px, py, std::f64::consts::FRAC_PI_2));
        want.entry("vut".into()).or_default().push((t, vx, vy));
        want.entry("VRU".into()).or_default().push((t, px, py));
    }
    for (i, r) in rows.iter_mut().enumerate() {
        r.seq = i as i64;
    }
    store.insert_telemetry(&rows).await.unwrap();
    store.close().await;
    let out = dir.join("run.xosc");
    let st = std::process::Command::new(env!("CARGO_BIN_EXE_scil"))
        .args(["export", id, "--xosc"])
        .arg(&out)
        .arg("--database-url")
        .arg(&url)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let back = openscenario::read_scenario(&out, &BTreeMap::new()).unwrap();
    assert!(back.road_network.as_ref().unwrap().exists());
    let vru = back.entities.iter().find(|e| e.name == "VRU").unwrap();
    assert_eq!(vru.kind, openscenario::model::EntityKind::Pedestrian);
    let mut checked = 0;
    for g in &back.stories[0].acts[0].groups {
        let name = &g.actors[0];
        let openscenario::model::Action::FollowTrajectory { trajectory, .. } =
            &g.maneuvers[0].events[0].actions[0].action
        else {
            panic!()
        };
        let openscenario::model::Shape::Polyline { vertices } = &trajectory.shape else {
            panic!()
        };
        let w = &want[name];
        assert_eq!(vertices.len(), w.len());
        for (v, (t, x, y)) in vertices.iter().zip(w) {
            let openscenario::model::Position::World { x: vx, y: vy, .. } = v.position else {
                panic!()
            };
            assert!((vx - x).hypot(vy - y) <= 0.01);
            assert!((v.time.unwrap() - t).abs() < 1e-9);
        }
        checked += 1;
    }
    assert_eq!(checked, 2);
    std::fs::remove_dir_all(&dir).ok();
}

/// `scil scenario import`: TOML to stdout, `--json`, `--param`, and `--out DIR` for a variation.
#[test]
fn the_import_command_writes_toml_json_and_one_file_per_combination() {
    let bin = env!("CARGO_BIN_EXE_scil");
    let f = set_dir().join("AEB_VRU_2023/NCAP_AEB_VRU_CPNA_2023.xosc");
    let out = std::process::Command::new(bin)
        .args(["scenario", "import"])
        .arg(&f)
        .args(["--param", "Ego_speed_kph=40", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["parameters"]["Ego_speed_kph"], 40.0);
    assert_eq!(v["scenario"]["vut"]["speed_kmh"], 40.0);
    // A violated constraint is an error naming the parameter.
    let out = std::process::Command::new(bin)
        .args(["scenario", "import"])
        .arg(&f)
        .args(["--param", "Ego_initTTC=1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Ego_initTTC"));
    let var = set_dir().join("AEB_VRU_2023/Variations/NCAP_AEB_VRU_CPNA-25_Variation_2023.xosc");
    let n = openscenario::read_variation(&var)
        .unwrap()
        .combinations
        .len();
    let dir = std::env::temp_dir().join(format!("scil-xosc-out-{}", std::process::id()));
    let out = std::process::Command::new(bin)
        .args(["scenario", "import"])
        .arg(&var)
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(files.len(), n);
    // Every written file is a scenario scil loads.
    for e in &files {
        let p = e.as_ref().unwrap().path();
        scil::scenario::Scenario::from_path(&p).unwrap();
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// CCFhol: the overtaken vehicle keeps its free-space distance ahead of the GVT (a continuous
/// LongitudinalDistanceAction): it starts with the GVT, at its distance, moves with the same
/// profile along its own lane, and the GVT's lane change meets the VUT; what cannot be honoured
/// is an error naming the element, attribute and line.
#[test]
fn ccfhol_keeps_the_overtaken_vehicle_at_its_distance() {
    let f = set_dir().join("AEB_C2C_2023/NCAP_AEB_C2C_CCFhol_2023.xosc");
    let all = scil::xosc::import(&f, &BTreeMap::new()).unwrap();
    let c = &all[0];
    let gap = c.parameters["GVT_followingDistance"].as_f64().unwrap();
    let sc = &c.scenario;
    let gvt = sc.targets.iter().find(|t| t.id == "GVT").unwrap();
    let sov = sc.targets.iter().find(|t| t.id == "SOV").unwrap();
    assert_eq!(sov.activation, Activation::Conflict);
    assert_eq!(
        (sov.speed_kmh, sov.accel_distance_m),
        (gvt.speed_kmh, gvt.accel_distance_m)
    );
    assert_eq!(sov.conflict, gvt.conflict);
    assert_ne!(sov.carrier, gvt.carrier);
    let first = |t: &scil::scenario::TargetSpec| match t.path.as_ref().unwrap() {
        scil::scenario::PathSpec::Points(p) => p.points.clone(),
        other => panic!("{other:?}"),
    };
    let (pg, ps) = (first(gvt), first(sov));
    // Bounding-box centres: half the GVT, the free space, half the SOV apart, the SOV ahead
    // (toward the VUT) in the GVT's lane.
    let want = 0.5 * gvt.length_m.unwrap() + gap + 0.5 * sov.length_m.unwrap();
    let d = (ps[0].x - pg[0].x).hypot(ps[0].y - pg[0].y);
    assert!((d - want).abs() < 0.01, "{d} vs {want}");
    assert!((ps[0].y - pg[0].y).abs() < 1e-6 && ps[0].x < pg[0].x);
    // The SOV stays in its lane; the GVT changes into the VUT's.
    assert!(ps.iter().all(|p| (p.y - ps[0].y).abs() < 1e-6));
    let vut_y = match sc.vut.path.as_ref().unwrap() {
        scil::scenario::PathSpec::Points(p) => p.points[0].y,
        other => panic!("{other:?}"),
    };
    assert!((pg.last().unwrap().y - vut_y).abs() < 0.1);

    // It simulates: both start at the same instant, the GVT meets the VUT on time.
    let setup = Arc::new(RunSetup::load(&f, None, EngineConfig::default()).unwrap());
    let opts = scil::sim::SimOptions {
        vut_speed_kmh: sc.vut.speed_kmh.unwrap(),
        ..Default::default()
    };
    let report = scil::sim::run_sim(setup, &opts);
    assert!(report.error.is_none(), "{:?}", report.error);
    let t = |id: &str| {
        report
            .triggers
            .iter()
            .find(|t| t.target == id)
            .unwrap()
            .time_s
    };
    assert_eq!(t("GVT"), t("SOV"));
    let hit = report.impacts.iter().find(|i| i.target == "GVT").unwrap();
    assert!(hit.arrival_error_s.unwrap().abs() <= 0.1, "{hit:?}");
    let o = hit.location.expect("the GVT is hit");
    assert!((o - 0.5).abs() < 0.1, "overlap {o}");
    let sov_hit = report.impacts.iter().find(|i| i.target == "SOV").unwrap();
    assert!(sov_hit.time_s.is_none());

    // What cannot be honoured names the element, the attribute and the line.
    let text = std::fs::read_to_string(&f).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("<LongitudinalDistanceAction"))
        .unwrap()
        + 1;
    let err = |from: &str, to: &str| {
        let t = text.replacen(from, to, 1);
        assert_ne!(t, text);
        let e = scil::xosc::import_text(&t, "CCFhol.xosc", &BTreeMap::new()).unwrap_err();
        format!("{e:#}")
    };
    let e = err(
        r#"coordinateSystem="road""#,
        r#"coordinateSystem="trajectory""#,
    );
    assert!(
        e.contains(&format!("CCFhol.xosc:{line}"))
            && e.contains("<LongitudinalDistanceAction>")
            && e.contains("'coordinateSystem'"),
        "{e}"
    );
    let e = err(
        r#"coordinateSystem="road""#,
        r#"coordinateSystem="sideways""#,
    );
    assert!(
        e.contains(&format!(":{line}")) && e.contains("'coordinateSystem'"),
        "{e}"
    );
    let e = err(
        r#"distance="$GVT_followingDistance" />"#,
        r#"distance="$GVT_followingDistance"><DynamicConstraints maxAcceleration="0.5" /></LongitudinalDistanceAction>"#,
    );
    assert!(
        e.contains(&format!(":{line}"))
            && e.contains("<DynamicConstraints>")
            && e.contains("'maxAcceleration'"),
        "{e}"
    );
    let e = err(
        r#"entityRef="GVT" displacement"#,
        r#"entityRef="Ego" displacement"#,
    );
    assert!(
        e.contains(&format!(":{line}")) && e.contains("'entityRef'") && e.contains("VUT"),
        "{e}"
    );
    // Generous constraints are honoured.
    let t = text.replacen(
        r#"distance="$GVT_followingDistance" />"#,
        r#"distance="$GVT_followingDistance"><DynamicConstraints maxAcceleration="5" maxDeceleration="5" maxSpeed="40" /></LongitudinalDistanceAction>"#,
        1,
    );
    scil::xosc::import_text(&t, "CCFhol.xosc", &BTreeMap::new()).unwrap();
}

/// Vector's braking-lead files keep their time headway and final speed: the 2026 CCRb and CMRb
/// (`Target_time_headway` 1 s, `Target_deceleration` 4 m/s² after `Target_braking_delay` 3 s,
/// `Target_final_speed_kph` 2) and the 2023 CCRb (`GVT_headway` 40 m at 50 km/h, 2 m/s²). The
/// imported CCRb, simulated without AEB, meets the closed form: relative impact speed
/// √(2·a·h·v) = 37.9 km/h at 50 km/h. A braking the engine cannot honour is an error naming
/// the element and its line.
#[test]
fn rear_braking_files_keep_their_headway_and_final_speed() {
    for (f, h, decel) in [
        (
            "CA-FC_2026/Variations/SingleExecution/CCRb_50kph.xosc",
            1.0,
            4.0,
        ),
        (
            "CA-FC_2026/Variations/SingleExecution/CMRb_50kph.xosc",
            1.0,
            4.0,
        ),
        (
            "AEB_C2C_2023/Variations/NCAP_AEB_C2C_CCRb_40m_2ms2_2023.xosc",
            40.0 / (50.0 / 3.6),
            2.0,
        ),
    ] {
        let all = scil::xosc::import(&set_dir().join(f), &BTreeMap::new())
            .unwrap_or_else(|e| panic!("{f}: {e:#}"));
        assert_eq!(all.len(), 1, "{f}");
        let t = &all[0].scenario.targets[0];
        assert_eq!(t.activation, Activation::Headway, "{f}");
        let hw = t.headway.expect("headway");
        assert!((hw.time_s - h).abs() < 1e-6, "{f}: headway {}", hw.time_s);
        let b = t.brake.expect("brake");
        assert!((b.decel_mps2 - decel).abs() < 1e-9, "{f}: {b:?}");
        assert!((b.after_s - 3.0).abs() < 1e-9, "{f}: {b:?}");
        assert!((b.final_kmh - 2.0).abs() < 1e-9, "{f}: {b:?}");
        assert!((t.speed_kmh - 50.0).abs() < 1e-9, "{f}");
    }
    // Simulated: the closed form.
    let f = set_dir().join("CA-FC_2026/Variations/SingleExecution/CCRb_50kph.xosc");
    let sc = scil::xosc::import(&f, &BTreeMap::new())
        .unwrap()
        .remove(0)
        .scenario;
    let map = Arc::new(scil::map::Map::load(Path::new(sc.map.as_deref().unwrap())).unwrap());
    let setup = Arc::new(RunSetup::try_new(sc, Some(map), EngineConfig::default()).unwrap());
    let opts = scil::sim::SimOptions {
        vut_speed_kmh: 50.0,
        ..Default::default()
    };
    let report = scil::sim::run_sim(setup, &opts);
    assert!(report.error.is_none(), "{:?}", report.error);
    let hit = report
        .impacts
        .iter()
        .find(|i| i.time_s.is_some())
        .expect("the lead is hit");
    let v: f64 = 50.0 / 3.6;
    let want = (2.0 * 4.0 * 1.0 * v).sqrt() * 3.6;
    let got = hit.relative_speed_kmh.unwrap();
    assert!((got - want).abs() < 0.3, "{got} km/h vs {want}");

    // A braking shape the engine cannot honour: the element and its line.
    let dir = std::env::temp_dir().join(format!("scil-test-xosc-brake-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(set_dir().join("CA-FC_2026/CCRs.xosc")).unwrap();
    let base = set_dir().join("CA-FC_2026");
    let text = text
        .replace(
            "../Catalogs/",
            &format!("{}/", base.join("../Catalogs").display()),
        )
        .replace(
            "../../../OpenDRIVE/",
            &format!("{}/", base.join("../../../OpenDRIVE").display()),
        )
        .replace(
            "<SpeedActionDynamics dynamicsDimension=\"rate\" dynamicsShape=\"linear\"",
            "<SpeedActionDynamics dynamicsDimension=\"rate\" dynamicsShape=\"cubic\"",
        );
    let line = text
        .lines()
        .position(|l| l.contains("<Action name=\"Target_BrakingAction\""))
        .unwrap()
        + 1;
    let path = dir.join("CCRb_cubic.xosc");
    std::fs::write(&path, text).unwrap();
    let mut o = BTreeMap::new();
    o.insert("isTargetbraking".to_string(), "true".to_string());
    o.insert("Ego_speed_kph".to_string(), "50".to_string());
    o.insert("Target_init_speed_kph".to_string(), "50".to_string());
    let e = format!("{:#}", scil::xosc::import(&path, &o).unwrap_err());
    assert!(
        e.contains("SpeedAction") && e.contains(&format!("CCRb_cubic.xosc:{line}")),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
