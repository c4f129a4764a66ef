//! The pure-Rust projection agrees with PROJ within 1 mm on every shared map's geoReference.
//! Runs only with `--features proj` (CI builds PROJ from source for it).
#![cfg(feature = "proj")]

use std::path::Path;

use opendrive::geo::GeoFrame;
use opendrive::OpenDrive;
use scil::proj_geo::ProjGeo;

#[test]
fn pure_rust_projection_matches_proj_within_1mm() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/opendrive");
    assert!(root.is_dir(), "shared maps missing at {}", root.display());
    let mut checked = 0;
    let mut files = Vec::new();
    for dir in [
        root.clone(),
        root.join("esmini"),
        root.join("maliput"),
        root.join("carla"),
        root.join("synthetic"),
    ] {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "xodr") {
                files.push(p);
            }
        }
    }
    files.sort();
    for p in files {
        let Ok(od) = OpenDrive::from_path(&p) else {
            continue;
        }; // malformed maps are tested elsewhere
        let Some(georef) = od.header.geo_reference.clone() else {
            continue;
        };
        if !georef.contains("+proj") {
            println!(
                "{}: no +proj in geoReference, PROJ not applicable",
                p.display()
            );
            continue;
        }
        let ours = GeoFrame::from_header(&od.header)
            .expect("geo frame")
            .expect("georeferenced");
        let theirs = ProjGeo::new(&georef, od.header.offset).expect("PROJ accepts it");
        // Points over the map's extent: take reference-line points of every road.
        let mut worst: f64 = 0.0;
        for road in od.roads.iter().take(60) {
            for k in 0..=4 {
                let s = road.length * k as f64 / 4.0;
                let Some(pose) = od.reference_pose(&road.id, s) else {
                    continue;
                };
                let (lat, lon) = ours.to_wgs84(pose.x, pose.y);
                let (x1, y1) = ours.to_map(lat, lon);
                let (x2, y2) = theirs.to_map(lat, lon).unwrap();
                worst = worst.max((x1 - x2).hypot(y1 - y2));
                // And the round trip of our own inverse.
                assert!((x1 - pose.x).hypot(y1 - pose.y) < 1e-6);
            }
        }
        println!(
            "{}: max |pure-Rust − PROJ| = {:.3} µm",
            p.display(),
            worst * 1e6
        );
        assert!(worst < 1e-3, "{}: {worst} m", p.display());
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} georeferenced maps checked");
}

/// The WGS84 export replayed through PROJ instead of the pure-Rust projection: same trigger.
#[test]
fn wgs84_replay_through_proj_gives_the_same_trigger() {
    use scil::ingest::csv::BadRowPolicy;
    use scil::run::{replay_csv, RunSetup as ReplaySetup};
    use scil::scenario::engine::EngineConfig;
    use std::sync::Arc;
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let sc = shared.join("scenarios/cpna75_30kmh.toml");
    let csv = shared.join("replays/cpna75_30kmh_wgs84.csv");
    let rust = ReplaySetup::load(&sc, None, EngineConfig::default()).unwrap();
    let mut with_proj = ReplaySetup::load(&sc, None, EngineConfig::default()).unwrap();
    let header = &with_proj.map.as_ref().unwrap().road_network.header;
    let georef = header.geo_reference.clone().unwrap();
    with_proj.interface.geo = Some(Arc::new(ProjGeo::new(&georef, header.offset).unwrap()));
    let a = replay_csv(Arc::new(rust), &csv, BadRowPolicy::Stop).unwrap();
    let b = replay_csv(Arc::new(with_proj), &csv, BadRowPolicy::Stop).unwrap();
    let d_us = (a.triggers[0].time_s - b.triggers[0].time_s) * 1e6;
    println!("WGS84 replay trigger, pure-Rust vs PROJ: {d_us:+.3} µs");
    assert!(d_us.abs() < 1.0);
}
