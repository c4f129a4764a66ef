//! Targets along an OpenDRIVE lane over an s range. The resolved polyline is
//! checked against an independent evaluator's lane borders (shared/opendrive/reference), and
//! the engine's target on a curved road against the map's own lane-centre evaluation and its
//! speed profile's travel.

use std::path::PathBuf;

use scil_core::sample::Sample;
use scil_core::scenario::engine::{Engine, EngineConfig};
use scil_core::scenario::path::{lane_polyline, LanePath, Polyline};
use scil_core::scenario::{PathSpec, Scenario};
use scil_core::twin::Twin;

fn shared(rel: &str) -> PathBuf {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/")).join(rel);
    assert!(p.exists(), "shared test data missing: {}", p.display());
    p
}

fn load(rel: &str) -> opendrive::OpenDrive {
    opendrive::OpenDrive::from_path(shared(rel)).expect("map parses")
}

const VUT: &str = "[vut]\nwidth_m = 1.855\nlength_m = 4.6\nreference_to_front_m = 2.3\n";

fn lead(path: &str, extra: &str) -> String {
    format!(
        "name = \"lane path\"\n{VUT}speed_kmh = 50.0\n[[targets]]\nid = \"lead\"\nkind = \"vehicle\"\n\
         activation = \"begin\"\nlateral_start_m = 0.0\naccel_distance_m = 10.0\nspeed_kmh = 20.0\n\
         overlap = 1.0\nlength_m = 4.0\npath = {path}\n{extra}"
    )
}

/// Lane −2 of esmini's curves road (line, spirals, arcs): the resolved centre line equals the
/// midpoint of the reference evaluator's outer borders of lanes −1 and −2 at the same s.
#[test]
fn resolved_lane_centre_matches_the_independent_reference() {
    let od = load("opendrive/esmini/curves_elevation.xodr");
    let text = std::fs::read_to_string(shared(
        "opendrive/reference/esmini_curves_elevation.ref.csv",
    ))
    .expect("reference");
    let mut borders: std::collections::HashMap<(i32, i64), (f64, f64)> = Default::default();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f[0] != "1" {
            continue;
        }
        let lane: i32 = f[1].parse().expect("lane");
        let s: f64 = f[2].parse().expect("s");
        let (x, y): (f64, f64) = (f[3].parse().expect("x"), f[4].parse().expect("y"));
        borders.insert((lane, (s * 1000.0).round() as i64), (x, y));
    }
    // s 40.5 .. 440.5: line, spiral, arc (κ 0.007), spirals, arc (κ −0.01).
    let lp = LanePath {
        road: "1".into(),
        lane: -2,
        s_from: 40.5,
        s_to: 440.5,
        t_offset: 0.0,
    };
    let pts = lane_polyline(&od, &lp).expect("resolves");
    assert_eq!(pts.len(), 801);
    let mut worst: f64 = 0.0;
    let mut compared = 0;
    for (k, p) in pts.iter().enumerate().step_by(2) {
        let s = 40.5 + 0.5 * k as f64;
        let key = (s * 1000.0).round() as i64;
        let (Some(a), Some(b)) = (borders.get(&(-1, key)), borders.get(&(-2, key))) else {
            continue;
        };
        let (cx, cy) = (0.5 * (a.0 + b.0), 0.5 * (a.1 + b.1));
        worst = worst.max((p.x - cx).hypot(p.y - cy));
        compared += 1;
    }
    assert!(compared >= 390, "compared {compared} points");
    assert!(worst < 1e-3, "worst deviation from the reference {worst} m");
    // Backwards (s_to < s_from) gives the same points reversed; t_offset shifts sideways.
    let back = lane_polyline(
        &od,
        &LanePath {
            s_from: 440.5,
            s_to: 40.5,
            ..lp.clone()
        },
    )
    .expect("resolves");
    let (f, l) = (pts[0], back[back.len() - 1]);
    assert!((f.x - l.x).abs() < 1e-9 && (f.y - l.y).abs() < 1e-9);
    let shifted = lane_polyline(
        &od,
        &LanePath {
            t_offset: 0.5,
            ..lp.clone()
        },
    )
    .expect("resolves");
    let line = Polyline::new(&pts).expect("line");
    for q in shifted.iter().step_by(50) {
        // Left of the driving direction along +s.
        assert!((line.lateral(q.x, q.y) - 0.5).abs() < 2e-3, "{q:?}");
    }
}

#[test]
fn missing_road_lane_s_or_map_is_a_clear_error() {
    let od = load("opendrive/proving_ground.xodr");
    let mut sc = Scenario::from_toml(&lead(
        r#"{ road = "7", lane = -1, s_from = 10.0, s_to = 50.0 }"#,
        "",
    ))
    .expect("loads");
    let e = sc.clone().resolve_paths(Some(&od)).unwrap_err();
    assert!(e.contains("lead") && e.contains("no road '7'"), "{e}");
    let e = sc.clone().resolve_paths(None).unwrap_err();
    assert!(e.contains("needs a map"), "{e}");
    if let Some(PathSpec::Lane(l)) = &mut sc.targets[0].path {
        l.road = "1".into();
        l.lane = -5;
    }
    let e = sc.clone().resolve_paths(Some(&od)).unwrap_err();
    assert!(e.contains("no lane -5 at s = 10"), "{e}");
    if let Some(PathSpec::Lane(l)) = &mut sc.targets[0].path {
        l.lane = -1;
        l.s_to = 700.0;
    }
    let e = sc.clone().resolve_paths(Some(&od)).unwrap_err();
    assert!(e.contains("s = 700 is outside road '1'"), "{e}");
    // A crossing target cannot have a path; a target without a path needs a start.
    let crossing = lead(
        r#"{ road = "1", lane = -1, s_from = 10.0, s_to = 50.0 }"#,
        "",
    )
    .replace("activation = \"begin\"\n", "");
    let e = Scenario::from_toml(&crossing).unwrap_err().to_string();
    assert!(e.contains("targets.lead.path"), "{e}");
    let bare = lead("{ points = [] }", "").replace("path = { points = [] }\n", "");
    let e = Scenario::from_toml(&bare).unwrap_err().to_string();
    assert!(e.contains("targets.lead.start.x"), "{e}");
}

/// A lead vehicle along lane −1 of the proving ground from the straight through the spiral into
/// the r = 50 m arc: every simulated position lies on the map's lane centre, and the arc length
/// it travelled is its profile's travel.
#[test]
fn engine_moves_a_lane_target_along_the_curve() {
    let od = load("opendrive/proving_ground.xodr");
    let mut sc = Scenario::from_toml(&lead(
        r#"{ road = "1", lane = -1, s_from = 280.0, s_to = 420.0 }"#,
        "",
    ))
    .expect("loads");
    sc.resolve_paths(Some(&od)).expect("resolves");
    // Resolution is idempotent and the resolved scenario round-trips through TOML.
    let again = sc.clone();
    sc.resolve_paths(Some(&od)).expect("again");
    assert_eq!(again, sc);
    let text = toml::to_string(&sc).expect("serialises");
    assert_eq!(Scenario::from_toml(&text).expect("reloads"), sc);
    let start = od.lane_center("1", -1, 280.0).expect("lane centre");
    assert!((sc.targets[0].start.x - start.x).abs() < 1e-9);
    assert!((sc.targets[0].heading_deg - 90.0).abs() < 1e-9, "east");

    let mut e = Engine::new(&sc, EngineConfig::default(), Twin::new(None));
    e.arm(0.0);
    let (v, s_acc) = (20.0 / 3.6, 10.0);
    let t_acc = 2.0 * s_acc / v;
    let travel = |t: f64| {
        if t < t_acc {
            0.5 * v / t_acc * t * t
        } else {
            s_acc + v * (t - t_acc)
        }
    };
    let mut prev: Option<(f64, f64)> = None;
    let (mut arc, mut worst_off, mut worst_arc): (f64, f64, f64) = (0.0, 0.0, 0.0);
    // 100 Hz for 20 s: 106 m of lane, past the spiral (s 300–340) into the arc.
    for k in 0..=2000 {
        let t = k as f64 * 0.01;
        e.handle_sample(&Sample::vut(t, 0.0, -1.75, 0.0, 0.0));
        let o = e.twin().get("lead").expect("lead in twin");
        if let Some((px, py)) = prev {
            arc += (o.x - px).hypot(o.y - py);
        }
        prev = Some((o.x, o.y));
        let m = od.locate(o.x, o.y, Some(o.yaw_rad)).expect("on the map");
        assert_eq!((&*m.road_id, m.lane_id), ("1", -1), "at {t}");
        let centre = od.lane_center("1", -1, m.s).expect("centre");
        worst_off = worst_off.max((o.x - centre.x).hypot(o.y - centre.y));
        worst_arc = worst_arc.max((arc - travel(t)).abs());
    }
    let end = prev.expect("moved");
    let m = od.locate(end.0, end.1, None).expect("on the map");
    assert!(m.s > 345.0, "reached the arc: s = {}", m.s);
    assert!(worst_off < 2e-3, "off the lane centre by {worst_off} m");
    assert!(
        worst_arc < 5e-3,
        "arc length vs profile travel {worst_arc} m"
    );
    println!(
        "lane path: {:.3} m travelled, worst offset from the lane centre {:.2} mm, arc-length error {:.2} mm",
        arc,
        worst_off * 1e3,
        worst_arc * 1e3
    );
}

/// The catalogue's longitudinal and moving rear targets follow the VUT's lane: the lane path
/// resolves to the point the catalogue computed, with the overlap's sideways offset.
#[test]
fn catalogue_longitudinal_and_rear_targets_use_the_lane_path() {
    use scil_core::scenario::catalogue::{Catalogue, Params};
    let od = load("opendrive/proving_ground.xodr");
    let cat = Catalogue::bundled();
    for (id, overlap) in [("CPLA-25", 0.25), ("CCRm", -0.5), ("CCRs", 1.0)] {
        let entry = cat.get(id).expect("entry");
        let mut p = Params::new(50.0, 150.0, -1);
        p.overlap = Some(overlap);
        let sc = entry.instantiate(&p, &od).expect("instantiates");
        let t = &sc.targets[0];
        if id == "CCRs" {
            assert!(t.path.is_none(), "a static target has no path");
            continue;
        }
        let Some(PathSpec::Lane(l)) = &t.path else {
            panic!("{id}: no lane path: {t:?}");
        };
        assert_eq!((l.road.as_str(), l.lane), ("1", -1));
        assert!((l.s_from - 150.0).abs() < 1e-6 && (l.s_to - 608.539816).abs() < 1e-6);
        let before = (t.start.x, t.start.y);
        let mut r = sc.clone();
        r.resolve_paths(Some(&od)).expect("resolves");
        let after = &r.targets[0];
        assert!(
            (after.start.x - before.0).abs() < 1e-5 && (after.start.y - before.1).abs() < 1e-5,
            "{id}: {before:?} vs {:?}",
            after.start
        );
        // Lane −1 centre is y = −1.75 on the straight; the offset is to the VUT's right.
        let w = 1.855;
        let right = if id == "CCRm" {
            -(1.0 - 0.5) * w
        } else {
            (0.5 - overlap) * w
        };
        assert!(
            (after.start.y - (-1.75 - right)).abs() < 1e-5,
            "{id}: {:?}",
            after.start
        );
    }
}
