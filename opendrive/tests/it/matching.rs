//! Map matching: points 0.3 m inside both borders of every lane map back to that lane.
//!
//! Where lanes of different roads overlap (junction connecting roads lie on top of each other
//! and of the approaches' ends), one point genuinely belongs to several lanes; there the test
//! accepts any answer whose lane really contains the point (checked by re-evaluating the
//! returned (s, t) and the lane's borders) *and* wins by the documented preference (driving
//! lanes first, then the nearest lane centre), and counts it separately. Town03 has many such
//! points because sidewalks and shoulders of the approaches run under the junctions' driving
//! lanes; cloverleaf's ramps overlap their neighbours where they merge.

use crate::common;

use opendrive::OpenDrive;

struct Tally {
    exact: usize,
    overlap: usize,
    checked: usize,
}

fn run(map: &OpenDrive, name: &str) -> Tally {
    let mut tally = Tally {
        exact: 0,
        overlap: 0,
        checked: 0,
    };
    let mut failures = Vec::new();
    for road in &map.roads {
        for (si, ls) in road.lane_sections.iter().enumerate() {
            let s0 = ls.s;
            let s1 = road
                .lane_sections
                .get(si + 1)
                .map(|n| n.s)
                .unwrap_or(road.length);
            if s1 - s0 < 0.5 {
                continue;
            }
            for frac in [0.1, 0.3, 0.5, 0.7, 0.9] {
                let s = s0 + (s1 - s0) * frac;
                for lane in ls.left.iter().chain(ls.right.iter()) {
                    let Some((inner, outer)) = road.lane_span(lane.id, s) else {
                        continue;
                    };
                    if (outer - inner).abs() < 0.8 {
                        continue; // too narrow for two points 0.3 m inside its borders
                    }
                    let sign = (outer - inner).signum();
                    for t in [inner + 0.3 * sign, outer - 0.3 * sign] {
                        let (x, y) = road.st_to_xy(s, t);
                        tally.checked += 1;
                        let Some(got) = map.locate(x, y, None) else {
                            failures.push(format!(
                                "road {} lane {} s {s:.2} t {t:.2}: off map",
                                road.id, lane.id
                            ));
                            continue;
                        };
                        if *got.road_id == *road.id && got.lane_id == lane.id {
                            if (got.s - s).abs() > 1e-6 || (got.t - t).abs() > 1e-6 {
                                failures.push(format!(
                                    "road {} lane {}: s/t {:.6}/{:.6} vs {s:.6}/{t:.6}",
                                    road.id, lane.id, got.s, got.t
                                ));
                            }
                            tally.exact += 1;
                            continue;
                        }
                        // Another lane: it must really contain the point.
                        let r2 = map.road(&got.road_id).expect("returned road exists");
                        let (x2, y2) = r2.st_to_xy(got.s, got.t);
                        let span = r2
                            .lane_span(got.lane_id, got.s)
                            .expect("returned lane exists");
                        let (lo, hi) = if span.0 < span.1 {
                            span
                        } else {
                            (span.1, span.0)
                        };
                        let contains = (x2 - x).hypot(y2 - y) < 1e-3
                            && got.t >= lo - 1e-9
                            && got.t <= hi + 1e-9;
                        // The point lies in both lanes; the documented preference must explain the
                        // choice: a driving lane beats a non-driving one, otherwise the lane whose
                        // centre is nearer wins.
                        let got_lane = r2.lane_sections[r2.section_index(got.s).expect("section")]
                            .lane(got.lane_id)
                            .expect("lane");
                        let got_driving = got_lane.lane_type == "driving";
                        let exp_driving = lane.lane_type == "driving";
                        let got_cd = (got.t - 0.5 * (lo + hi)).abs();
                        let exp_cd = (t - 0.5 * (inner + outer)).abs();
                        let plausible = (got_driving && !exp_driving)
                            || (got_driving == exp_driving && got_cd <= exp_cd + 1e-6);
                        if contains && plausible {
                            tally.overlap += 1;
                        } else {
                            failures.push(format!(
                                "road {} lane {} s {s:.2} t {t:.2} → road {} lane {} s {:.2} t {:.2} (contains {contains}, preference {plausible})",
                                road.id, lane.id, got.road_id, got.lane_id, got.s, got.t
                            ));
                        }
                    }
                }
            }
        }
    }
    println!(
        "{name:28} {} points: {} exact road+lane, {} in overlapping lanes ({:.2} %), {} failures",
        tally.checked,
        tally.exact,
        tally.overlap,
        100.0 * tally.overlap as f64 / tally.checked.max(1) as f64,
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{name}: {} failures, first: {:#?}",
        failures.len(),
        &failures[..failures.len().min(10)]
    );
    assert!(tally.checked > 20, "{name}: too few points");
    tally
}

#[test]
fn proving_ground_exact() {
    let map = common::load("opendrive/proving_ground.xodr");
    let t = run(&map, "proving_ground");
    assert_eq!(t.overlap, 0, "a single road has no overlaps");
}

#[test]
fn fabriksgatan() {
    run(
        &common::load("opendrive/esmini/fabriksgatan.xodr"),
        "fabriksgatan",
    );
}

#[test]
fn cloverleaf() {
    run(
        &common::load("opendrive/maliput/cloverleaf.xodr"),
        "cloverleaf",
    );
}

#[test]
fn town03() {
    let map = common::load("opendrive/carla/Town03.xodr");
    let t = run(&map, "Town03");
    assert!(
        t.exact as f64 > 0.7 * t.checked as f64,
        "too many overlaps: {} of {}",
        t.overlap,
        t.checked
    );
}

#[test]
fn off_map_and_heading() {
    let map = common::load("opendrive/proving_ground.xodr");
    // 0.3 m outside the outermost right border (t = -7.3) on the straight: off the map.
    assert_eq!(map.locate(100.0, -7.3, None), None);
    assert_eq!(map.locate(100.0, 7.3, None), None);
    assert_eq!(map.locate(-5.0, -1.75, None), None, "before the road start");
    assert_eq!(map.locate(1e6, 1e6, None), None);
    assert_eq!(map.locate(f64::NAN, 0.0, None), None);
    let p = map.locate(100.0, -1.75, Some(0.1)).expect("on lane -1");
    assert_eq!((&*p.road_id, p.lane_id), ("1", -1));
    assert!((p.s - 100.0).abs() < 1e-9 && (p.t + 1.75).abs() < 1e-9);
    assert!(
        (p.heading_rel - 0.1).abs() < 1e-6,
        "heading_rel {}",
        p.heading_rel
    );
    // In the arc (s ≈ 380) the lane centre heading follows the curve.
    let c = map.lane_center("1", -1, 380.0).expect("centre");
    let q = map.locate(c.x, c.y, Some(c.hdg)).expect("on lane");
    assert_eq!(q.lane_id, -1);
    assert!(q.heading_rel.abs() < 1e-3, "heading_rel {}", q.heading_rel);
}

#[test]
fn index_agrees_with_brute_force() {
    let map = common::load("opendrive/carla/Town03.xodr");
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut on = 0;
    for _ in 0..60 {
        let r = &map.roads[(next() * map.roads.len() as f64) as usize % map.roads.len()];
        let (x, y) = r.st_to_xy(next() * r.length, (next() - 0.5) * 30.0);
        let a = map.locate(x, y, None);
        let b = map.locate_brute_force(x, y, None);
        assert_eq!(a, b, "at ({x}, {y})");
        on += usize::from(a.is_some());
    }
    assert!(on > 15, "too few on-map points: {on}");
}

/// The warm start gives exactly `locate`'s answer: vehicles driving every lane of every shared
/// map (0.4 m steps, a lateral wobble, and jumps to another road between lanes), with the hint
/// carried from sample to sample.
#[test]
fn hinted_locate_equals_locate() {
    let mut warm_total = 0usize;
    for name in [
        "opendrive/proving_ground.xodr",
        "opendrive/esmini/fabriksgatan.xodr",
        "opendrive/maliput/cloverleaf.xodr",
        "opendrive/carla/Town03.xodr",
        "opendrive/esmini/curves_elevation.xodr",
    ] {
        let map = common::load(name);
        let mut hint = opendrive::MatchHint::default();
        let mut n = 0usize;
        for road in &map.roads {
            for ls in &road.lane_sections {
                for lane in ls.left.iter().chain(ls.right.iter()) {
                    let mut s = ls.s;
                    let mut k = 0u32;
                    while s < road.length && k < 400 {
                        let Some((i, o)) = road.lane_span(lane.id, s) else {
                            break;
                        };
                        let wobble = 0.3 * ((k as f64) * 0.7).sin();
                        let t = 0.5 * (i + o) + wobble;
                        let (x, y) = road.st_to_xy(s, t);
                        let yaw = road.reference(s).2;
                        let a = map.locate(x, y, Some(yaw));
                        let b = map.locate_hinted(x, y, Some(yaw), &mut hint);
                        assert_eq!(a, b, "{name}: road {} lane {} s {s}", road.id, lane.id);
                        n += 1;
                        s += 0.4;
                        k += 1;
                    }
                }
            }
        }
        warm_total += n;
        println!("{name}: {n} hinted matches equal to locate");
    }
    assert!(warm_total > 10_000);
}

/// The lane centre heading from the closed forms (used by every map match) agrees with a
/// central difference of the lane centre points on every lane of every shared map, away from
/// geometry and lane-section boundaries.
#[test]
fn lane_center_heading_closed_form_matches_finite_difference() {
    let mut checked = 0;
    let mut worst: f64 = 0.0;
    for file in [
        "opendrive/proving_ground.xodr",
        "opendrive/esmini/curves_elevation.xodr",
        "opendrive/esmini/fabriksgatan.xodr",
        "opendrive/esmini/offset.xodr",
        "opendrive/maliput/Road2_20.xodr",
        "opendrive/maliput/cloverleaf.xodr",
        "opendrive/carla/Town03.xodr",
        "opendrive/synthetic/sg_mixed_geometry.xodr",
    ] {
        let map = common::load(file);
        for r in &map.roads {
            let mut cuts: Vec<f64> = r.plan_view.iter().map(|g| g.s).collect();
            cuts.extend(r.lane_sections.iter().map(|l| l.s));
            cuts.push(r.length);
            let n = 40;
            for k in 1..n {
                let s = r.length * k as f64 / n as f64;
                let h = 1e-4;
                if cuts.iter().any(|c| (c - s).abs() < 2.0 * h) {
                    continue;
                }
                for ls in &r.lane_sections {
                    for lane in ls.left.iter().chain(ls.right.iter()) {
                        let Some(analytic) = r.lane_center_heading(lane.id, s) else {
                            continue;
                        };
                        let p = |s: f64| {
                            r.lane_span(lane.id, s)
                                .map(|(i, o)| r.st_to_xy(s, 0.5 * (i + o)))
                        };
                        let (Some(a), Some(b)) = (p(s - h), p(s + h)) else {
                            continue;
                        };
                        let fd = (b.1 - a.1).atan2(b.0 - a.0);
                        let d = (analytic - fd + std::f64::consts::PI)
                            .rem_euclid(std::f64::consts::TAU)
                            - std::f64::consts::PI;
                        if d.abs() > 1e-6 {
                            panic!(
                                "{file} road {} lane {} s {s}: closed form {analytic}, finite difference {fd}",
                                r.id, lane.id
                            );
                        }
                        worst = worst.max(d.abs());
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 5_000, "only {checked} points");
    eprintln!("lane centre heading: {checked} points, worst |closed form − finite difference| {worst:.2e} rad");
}

/// A match's `heading_rel` is the query yaw minus exactly what [`opendrive::Road::lane_center_heading`]
/// gives at the returned road, lane and s (map matching takes the geometry, lane section and
/// reference heading from its foot-point search instead of looking them up again: the bits must
/// not change). Points on lane centres, wobbling, some of them exactly on lane-section starts.
#[test]
fn heading_rel_equals_lane_center_heading() {
    let mut checked = 0usize;
    for name in [
        "opendrive/carla/Town03.xodr",
        "opendrive/esmini/fabriksgatan.xodr",
        "opendrive/maliput/cloverleaf.xodr",
        "opendrive/proving_ground.xodr",
    ] {
        let map = common::load(name);
        for road in &map.roads {
            for ls in &road.lane_sections {
                for lane in ls.left.iter().chain(ls.right.iter()) {
                    for k in 0..60u32 {
                        let s = ls.s + 0.7 * k as f64;
                        if s >= road.length {
                            break;
                        }
                        let Some((i, o)) = road.lane_span(lane.id, s) else {
                            break;
                        };
                        let t = 0.5 * (i + o) + 0.2 * ((k as f64) * 1.3).sin();
                        let (x, y) = road.st_to_xy(s, t);
                        let yaw = road.reference(s).2 + 0.1;
                        let Some(m) = map.locate(x, y, Some(yaw)) else {
                            continue;
                        };
                        let Some(r) = map.road(&m.road_id) else {
                            panic!("{name}: unknown road {}", m.road_id);
                        };
                        let Some(hc) = r.lane_center_heading(m.lane_id, m.s) else {
                            continue;
                        };
                        let want = opendrive::wrap_angle(yaw - hc);
                        assert_eq!(
                            m.heading_rel.to_bits(),
                            want.to_bits(),
                            "{name}: road {} lane {} s {}: {} vs {want}",
                            m.road_id,
                            m.lane_id,
                            m.s,
                            m.heading_rel
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 5_000, "only {checked} matches checked");
}
