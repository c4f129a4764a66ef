//! Compares reference-line and lane-border evaluation against the independent high-precision
//! samples in shared/opendrive/reference/*.ref.csv. Run with `--nocapture` to see the per-map
//! maximum deviations.

use crate::common;

use opendrive::{wrap_angle, GeometryKind, OpenDrive};

/// Map file for a reference file name (`<dir>_<name>.ref.csv` ↔ `<dir>/<name>.xodr`).
fn map_for(ref_name: &str) -> String {
    let stem = ref_name.trim_end_matches(".ref.csv");
    if stem == "proving_ground" {
        return "opendrive/proving_ground.xodr".into();
    }
    for dir in ["esmini", "maliput", "carla", "synthetic"] {
        if let Some(rest) = stem.strip_prefix(&format!("{dir}_")) {
            return format!("opendrive/{dir}/{rest}.xodr");
        }
    }
    panic!("cannot map reference file {ref_name} to a map");
}

#[derive(Default, Debug)]
struct Dev {
    n: usize,
    pos_ref: f64,
    pos_lane: f64,
    pos_pp3: f64,
    hdg: f64,
}

fn check(map: &OpenDrive, csv: &str, name: &str) -> Dev {
    let mut d = Dev::default();
    let mut failures = Vec::new();
    for (ln, line) in csv.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 6, "{name}:{}: bad row", ln + 1);
        let road = f[0];
        let lane: i32 = f[1].parse().expect("lane id");
        let v: Vec<f64> = f[2..]
            .iter()
            .map(|x| x.parse::<f64>().expect("number"))
            .collect();
        let (s, x, y, h) = (v[0], v[1], v[2], v[3]);
        let Some(p) = map.lane_border(road, lane, s) else {
            failures.push(format!("{name}: road {road} lane {lane} s {s}: no value"));
            continue;
        };
        let r = map.road(road).expect("road exists");
        let gi = r.plan_view.partition_point(|g| g.s <= s).saturating_sub(1);
        let pp3 = matches!(r.plan_view[gi].kind, GeometryKind::ParamPoly3 { .. });
        let dp = (p.x - x).hypot(p.y - y);
        let dh = wrap_angle(p.hdg - h).abs();
        d.n += 1;
        d.hdg = d.hdg.max(dh);
        let tol = if pp3 {
            d.pos_pp3 = d.pos_pp3.max(dp);
            2e-3
        } else if lane == 0 {
            d.pos_ref = d.pos_ref.max(dp);
            1e-3
        } else {
            d.pos_lane = d.pos_lane.max(dp);
            1e-3
        };
        if dp > tol || dh > 1e-4 {
            failures.push(format!(
                "{name}: road {road} lane {lane} s {s}: dpos {dp:.6} m dhdg {dh:.2e} rad ({})",
                r.plan_view[gi].kind.name()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} deviations, first: {:#?}",
        failures.len(),
        &failures[..failures.len().min(10)]
    );
    d
}

#[test]
fn all_reference_files() {
    let dir = common::shared("opendrive/reference");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("reference dir")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".ref.csv"))
        .collect();
    names.sort();
    assert!(
        names.len() >= 12,
        "expected the 12 reference files, found {}",
        names.len()
    );
    let mut total = 0;
    for n in &names {
        let map = common::load(&map_for(n));
        let csv = std::fs::read_to_string(dir.join(n)).expect("read csv");
        let d = check(&map, &csv, n);
        assert!(d.n > 0, "{n}: no samples");
        total += d.n;
        println!(
            "{n:48} samples {:6}  max dev: ref line {:.3e} m, lane borders {:.3e} m, paramPoly3 {:.3e} m, heading {:.3e} rad",
            d.n, d.pos_ref, d.pos_lane, d.pos_pp3, d.hdg
        );
    }
    println!("checked {total} samples in {} files", names.len());
}
