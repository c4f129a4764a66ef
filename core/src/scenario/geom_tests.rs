//! Tests of the path geometry engine ([`super`]).

use super::*;

/// Deterministic pseudo-random numbers in [0, 1).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Every segment in index order, the first at the smallest distance: the reference the
/// box tree must reproduce exactly.
fn scan(p: &Path, x: f64, y: f64, i0: usize, i1: usize, extend: bool) -> (f64, f64, f64) {
    let last = p.segs.len() - 1;
    let mut best = (f64::INFINITY, 0.0, 0.0);
    for i in i0..=i1 {
        let len = p.cum[i + 1] - p.cum[i];
        let lo = if extend && i == 0 {
            f64::NEG_INFINITY
        } else {
            0.0
        };
        let hi = if extend && i == last {
            f64::INFINITY
        } else {
            len
        };
        let (d, u, side) = p.segs[i].nearest(x, y, lo, hi);
        if d < best.0 {
            best = (d, p.cum[i] + u, side);
        }
    }
    best
}

#[test]
fn tree_search_is_the_scan_exactly() {
    let mut r = Lcg(7);
    for case in 0..40 {
        // A wandering polyline that folds back over itself, some with repeated points.
        let n = 2 + (r.next() * 400.0) as usize;
        let (mut x, mut y, mut h) = (0.0, 0.0, 0.0);
        let mut pts = vec![(x, y)];
        for _ in 0..n {
            h += (r.next() - 0.5) * if case % 3 == 0 { 3.0 } else { 0.3 };
            let l = if r.next() < 0.05 { 0.0 } else { 0.1 + r.next() };
            x += l * f64::cos(h);
            y += l * f64::sin(h);
            pts.push((x, y));
        }
        let Some(p) = Path::from_xy(pts, 1e-9) else {
            continue;
        };
        let last = p.segs.len() - 1;
        for _ in 0..200 {
            let (qx, qy) = (
                x * r.next() * 1.4 - 5.0,
                y * r.next() * 1.4 - 5.0 + r.next(),
            );
            for extend in [true, false] {
                let want = scan(&p, qx, qy, 0, last, extend);
                assert_eq!(p.nearest(qx, qy, 0, last, extend), want, "case {case}");
            }
            let (a, b) = (
                (r.next() * last as f64) as usize,
                (r.next() * last as f64) as usize,
            );
            let (i0, i1) = (a.min(b), a.max(b));
            assert_eq!(
                p.nearest(qx, qy, i0, i1, true),
                scan(&p, qx, qy, i0, i1, true)
            );
        }
    }
}

/// The segment lookup that starts from the last answer finds what a binary search finds,
/// in any order of queries, inside the path, at its joints and beyond its ends.
#[test]
fn segment_lookup_is_the_binary_search() {
    let mut r = Lcg(11);
    let pts: Vec<(f64, f64)> = (0..300)
        .map(|k| (k as f64 * 0.25 + 0.1 * r.next(), (k as f64 * 0.1).sin()))
        .collect();
    let p = Path::from_xy(pts, 1e-9).expect("path");
    let n = p.segs.len();
    let search = |s: f64| match p.cum.binary_search_by(|c| c.total_cmp(&s)) {
        Ok(i) => i.min(n - 1),
        Err(i) => i.saturating_sub(1).min(n - 1),
    };
    let mut queries: Vec<f64> = p.cum.clone();
    queries.extend([-5.0, -0.0, 0.0, p.length(), p.length() + 3.0, f64::NAN]);
    for _ in 0..2000 {
        queries.push((r.next() * 1.2 - 0.1) * p.length());
    }
    for (k, &s) in queries.iter().enumerate() {
        // Now and then a step along from the previous query, as a moving point.
        let s = if k % 3 == 0 { s } else { queries[k - 1] + 0.02 };
        assert_eq!(p.segment(s), search(s), "s = {s}");
    }
}

/// The turn between two arc lengths bounds how far the heading turns between them.
#[test]
fn turn_between_bounds_the_heading_change() {
    let p = Path::from_pieces(
        0.0,
        0.0,
        0.3,
        &[
            Piece::Line { length: 5.0 },
            Piece::Clothoid {
                length: 6.0,
                curvature_start: 0.0,
                curvature_end: 0.2,
            },
            Piece::Arc {
                length: 4.0,
                curvature: 0.2,
            },
            Piece::Clothoid {
                length: 6.0,
                curvature_start: 0.2,
                curvature_end: -0.1,
            },
        ],
    )
    .expect("path");
    let mut r = Lcg(5);
    for _ in 0..2000 {
        let (a, b) = (r.next() * 25.0 - 2.0, r.next() * 25.0 - 2.0);
        let (lo, hi) = (a.min(b), a.max(b));
        // Total variation of the heading, summed over fine steps.
        let n = 400;
        let mut var = 0.0;
        for k in 0..n {
            let (u, v) = (
                lo + (hi - lo) * k as f64 / n as f64,
                lo + (hi - lo) * (k + 1) as f64 / n as f64,
            );
            var += wrap_pi(p.pose(v).2 - p.pose(u).2).abs();
        }
        assert!(p.turn_between(a, b) >= var - 1e-9, "{a} {b}");
    }
    assert_eq!(p.turn_between(0.5, 4.5), 0.0, "along the line");
}

#[test]
fn polyline_pose_projection_and_lateral() {
    let p = Path::from_xy([(0.0, 0.0), (10.0, 0.0), (10.0, 10.0)], 1e-9).expect("path");
    assert_eq!(p.length(), 20.0);
    let (x, y, yaw) = p.pose(15.0);
    assert!((x - 10.0).abs() < 1e-12 && (y - 5.0).abs() < 1e-12);
    assert!((yaw - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
    assert!((p.project(4.0, 1.0) - 4.0).abs() < 1e-12);
    assert!(
        (p.project(-3.0, 0.5) + 3.0).abs() < 1e-12,
        "extends before the start"
    );
    assert_eq!(p.project_clamped(-3.0, 0.5), 0.0);
    assert!(
        (p.project(10.2, 13.0) - 23.0).abs() < 1e-12,
        "extends past the end"
    );
    assert!((p.lateral(5.0, 0.3) - 0.3).abs() < 1e-12);
    assert!((p.lateral(10.4, 5.0) + 0.4).abs() < 1e-12);
    assert!(Path::from_xy([(1.0, 1.0), (1.0, 1.0)], 1e-9).is_none());
    assert!(Path::from_xy([(1.0, 1.0), (f64::NAN, 1.0)], 1e-9).is_none());
}

#[test]
fn arc_and_clothoid_are_exact() {
    // A quarter circle of radius 10 from the origin heading +x, turning left.
    let r = 10.0;
    let len = 0.5 * std::f64::consts::PI * r;
    let p = Path::from_pieces(
        0.0,
        0.0,
        0.0,
        &[Piece::Arc {
            length: len,
            curvature: 0.1,
        }],
    )
    .expect("arc");
    assert!(p.segments() > 1, "split into pieces");
    let (x, y, h) = p.pose(len);
    assert!(
        (x - 10.0).abs() < 1e-12 && (y - 10.0).abs() < 1e-12,
        "{x} {y}"
    );
    assert!((h - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
    // A point 2 m outside the circle at 30° projects to arc length r·30°, 2 m to the right.
    let a = 30f64.to_radians();
    let (qx, qy) = (12.0 * a.sin(), 10.0 - 12.0 * a.cos());
    assert!((p.project(qx, qy) - r * a).abs() < 1e-9);
    assert!((p.lateral(qx, qy) + 2.0).abs() < 1e-9);
    // Straight on past the end.
    let (x, y, _) = p.pose(len + 5.0);
    assert!((x - 10.0).abs() < 1e-12 && (y - 15.0).abs() < 1e-9);

    // A clothoid from curvature 0 to 0.2 over 10 m: heading k1·L/2 = 1 rad at its end,
    // its positions the Fresnel integrals (dense midpoint sum as the reference).
    let c = Path::from_pieces(
        1.0,
        2.0,
        0.5,
        &[Piece::Clothoid {
            length: 10.0,
            curvature_start: 0.0,
            curvature_end: 0.2,
        }],
    )
    .expect("clothoid");
    let n = 200_000;
    let (mut x, mut y) = (1.0, 2.0);
    for i in 0..n {
        let u = 10.0 * (i as f64 + 0.5) / n as f64;
        let h = 0.5 + 0.01 * u * u;
        x += 10.0 / n as f64 * h.cos();
        y += 10.0 / n as f64 * h.sin();
    }
    let (ex, ey, eh) = c.pose(10.0);
    assert!(
        (ex - x).abs() < 1e-8 && (ey - y).abs() < 1e-8,
        "{ex} {ey} vs {x} {y}"
    );
    assert!((eh - 1.5).abs() < 1e-12);
    // Projection of points beside the curve finds where they were placed.
    for s in [0.3, 2.0, 5.5, 9.9] {
        let (px, py, h) = c.pose(s);
        let (qx, qy) = (px - 0.7 * h.sin(), py + 0.7 * h.cos());
        assert!((c.project(qx, qy) - s).abs() < 1e-9, "{s}");
        assert!((c.lateral(qx, qy) - 0.7).abs() < 1e-9, "{s}");
    }
}

#[test]
fn bad_segments_are_refused() {
    let e = Path::from_pieces(0.0, 0.0, 0.0, &[Piece::Line { length: -1.0 }]).unwrap_err();
    assert!(e.contains("segment 1"), "{e}");
    let e = Path::from_pieces(
        0.0,
        0.0,
        0.0,
        &[Piece::Arc {
            length: 1.0,
            curvature: 5.0,
        }],
    )
    .unwrap_err();
    assert!(e.contains("radius"), "{e}");
    assert!(Path::from_pieces(0.0, 0.0, 0.0, &[]).is_err());
    assert!(Path::from_pieces(f64::NAN, 0.0, 0.0, &[Piece::Line { length: 1.0 }]).is_err());
}

#[test]
fn curvature_of_segments() {
    let p = Path::from_pieces(
        0.0,
        0.0,
        0.0,
        &[
            Piece::Line { length: 10.0 },
            Piece::Clothoid {
                length: 8.0,
                curvature_start: 0.0,
                curvature_end: 0.2,
            },
            Piece::Arc {
                length: 5.0,
                curvature: 0.2,
            },
        ],
    )
    .expect("path");
    assert_eq!(p.curvature(-1.0), 0.0);
    assert_eq!(p.curvature(5.0), 0.0);
    assert!((p.curvature(14.0) - 0.1).abs() < 1e-12);
    assert!((p.curvature(17.0) - 0.175).abs() < 1e-12);
    assert!((p.curvature(20.0) - 0.2).abs() < 1e-12);
    assert_eq!(p.curvature(24.0), 0.0);
    // The curvature is the heading's derivative.
    for s in [11.0, 13.5, 16.25, 19.0] {
        let h = 1e-4;
        let d = (p.pose(s + h).2 - p.pose(s - h).2) / (2.0 * h);
        assert!((d - p.curvature(s)).abs() < 1e-6, "{s}: {d}");
    }
}

/// A path of lines, arcs and clothoids, its pieces evaluated from their power series, agrees
/// with a fine numerical integration of the heading along the whole path (within 1e-8 m,
/// the integration's own error).
#[test]
fn curve_series_agree_with_integration() {
    let mut r = Lcg(7);
    for _ in 0..200 {
        let k = |r: &mut Lcg| (2.0 * r.next() - 1.0) * 0.2;
        let pieces = [
            Piece::Line {
                length: 5.0 * r.next(),
            },
            Piece::Clothoid {
                length: 1.0 + 20.0 * r.next(),
                curvature_start: 0.0,
                curvature_end: k(&mut r),
            },
            Piece::Arc {
                length: 1.0 + 20.0 * r.next(),
                curvature: k(&mut r),
            },
            Piece::Clothoid {
                length: 1.0 + 20.0 * r.next(),
                curvature_start: k(&mut r),
                curvature_end: k(&mut r),
            },
        ];
        let yaw0 = (2.0 * r.next() - 1.0) * 3.2;
        let path = Path::from_pieces(1.0, 2.0, yaw0, &pieces).expect("path");
        // Piece by piece: the heading exactly (quadratic in the arc length), the position by
        // the midpoint rule in steps of about 0.1 mm, checked every 0.1 m or so.
        let (mut x, mut y, mut h, mut at) = (1.0, 2.0, yaw0, 0.0);
        let mut worst: f64 = 0.0;
        for p in &pieces {
            let (len, a, b) = p.shape();
            let n = (len / 1e-4).ceil().max(1.0) as usize;
            let ds = len / n as f64;
            let head = |t: f64| h + a * t + 0.5 * (b - a) * t * t / len;
            for j in 0..n {
                let hm = head((j as f64 + 0.5) * ds);
                x += ds * hm.cos();
                y += ds * hm.sin();
                if j % 1000 == 999 || j == n - 1 {
                    let (px, py, _) = path.pose(at + (j + 1) as f64 * ds);
                    worst = worst.max((px - x).hypot(py - y));
                }
            }
            h = head(len);
            at += len;
        }
        let total = path.length();
        assert!(worst < 1e-8, "{worst} over {total} m");
    }
}
