//! ClothoidSpline paths against an independent evaluation: the clothoid written with the
//! Fresnel integrals C and S (themselves integrated numerically here by Simpson's rule),
//! segment by segment; every sampled point within 1 cm.

use std::collections::BTreeMap;
use std::f64::consts::PI;
use std::path::Path;

use openscenario::geom::{Placer, Pose};
use openscenario::model::{Action, ClothoidSegment, Position, Shape, Trajectory};

/// Fresnel integrals C(t) = ∫₀ᵗ cos(πτ²/2) dτ and S(t), composite Simpson with 20 000 steps.
fn fresnel(t: f64) -> (f64, f64) {
    let n = 20_000;
    let h = t / n as f64;
    let (mut c, mut s) = (0.0, 0.0);
    for i in 0..=n {
        let tau = i as f64 * h;
        let w = if i == 0 || i == n {
            1.0
        } else if i % 2 == 1 {
            4.0
        } else {
            2.0
        };
        c += w * (PI * tau * tau / 2.0).cos();
        s += w * (PI * tau * tau / 2.0).sin();
    }
    (c * h / 3.0, s * h / 3.0)
}

/// The point at `u` along a segment (curvature k0 → k1 over `len`) from (x0, y0, θ0).
fn independent(p: (f64, f64, f64), k0: f64, k1: f64, len: f64, u: f64) -> (f64, f64, f64) {
    let (x0, y0, th0) = p;
    let c = (k1 - k0) / len;
    let th = th0 + k0 * u + 0.5 * c * u * u;
    if c.abs() < 1e-12 {
        if k0.abs() < 1e-12 {
            return (x0 + u * th0.cos(), y0 + u * th0.sin(), th);
        }
        return (
            x0 + ((th0 + k0 * u).sin() - th0.sin()) / k0,
            y0 - ((th0 + k0 * u).cos() - th0.cos()) / k0,
            th,
        );
    }
    // θ(u) = φ + sign(c)·(π/2)·t², t = a·(u + k0/c), a = √(|c|/π).
    let sg = c.signum();
    let a = (c.abs() / PI).sqrt();
    let phi = th0 - k0 * k0 / (2.0 * c);
    let (t0, t1) = (a * (k0 / c), a * (u + k0 / c));
    let ((c0, s0), (c1, s1)) = (fresnel(t0), fresnel(t1));
    let (dc, ds) = (c1 - c0, s1 - s0);
    (
        x0 + (phi.cos() * dc - sg * phi.sin() * ds) / a,
        y0 + (phi.sin() * dc + sg * phi.cos() * ds) / a,
        th,
    )
}

fn check(placer: &Placer, t: &Trajectory, start: Option<Pose>) -> usize {
    let Shape::ClothoidSpline { segments, .. } = &t.shape else {
        panic!("not a clothoid spline")
    };
    let samples = placer.sample_from(t, start).unwrap();
    let p0 = samples[0].pose;
    let mut starts = Vec::new();
    let mut p = (p0.x, p0.y, p0.h);
    let mut s0 = 0.0;
    for g in segments {
        p.2 += g.h_offset;
        starts.push((s0, p));
        p = independent(p, g.curvature_start, g.curvature_end, g.length, g.length);
        s0 += g.length;
    }
    let mut worst: f64 = 0.0;
    for smp in &samples {
        let i = starts
            .iter()
            .rposition(|(s, _)| *s <= smp.s + 1e-9)
            .unwrap();
        let g = &segments[i];
        let (x, y, _) = independent(
            starts[i].1,
            g.curvature_start,
            g.curvature_end,
            g.length,
            smp.s - starts[i].0,
        );
        worst = worst.max((x - smp.pose.x).hypot(y - smp.pose.y));
    }
    assert!(worst <= 0.01, "{}: {worst} m off", t.name);
    samples.len()
}

#[test]
fn imported_clothoid_splines_match_the_fresnel_integrals() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/osc-ncap/OpenSCENARIO/NCAP");
    let mut checked = 0;
    for (file, over) in [
        ("AEB_VRU_2023/NCAP_AEB_VRU_CPTA_2023.xosc", vec![]),
        ("AEB_C2C_2023/NCAP_AEB_C2C_CCFtap_2023.xosc", vec![]),
        (
            "AEB_VRU_2023/NCAP_AEB_VRU_CPTA_2023.xosc",
            vec![("Ego_speed_kph", "20")],
        ),
    ] {
        let o: BTreeMap<String, String> = over
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let sc = openscenario::read_scenario(&dir.join(file), &o).unwrap();
        let od = opendrive::OpenDrive::from_path(sc.road_network.as_ref().unwrap()).unwrap();
        let placer = Placer::new(&od);
        for ia in &sc.init {
            if let Action::FollowTrajectory { trajectory, .. } = &ia.action {
                if matches!(trajectory.shape, Shape::ClothoidSpline { .. }) {
                    assert!(check(&placer, trajectory, None) > 100);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 3);
}

#[test]
fn steep_and_sign_changing_clothoids_match_the_fresnel_integrals() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/osc-ncap/OpenDRIVE/NCAP");
    let od =
        opendrive::OpenDrive::from_path(dir.join("StraightRoad_NCAP_noRoadmarks.xodr")).unwrap();
    let placer = Placer::new(&od);
    let seg = |k0: f64, k1: f64, length: f64, h_offset: f64| ClothoidSegment {
        curvature_start: k0,
        curvature_end: k1,
        length,
        h_offset,
        time_start: None,
        position_start: None,
    };
    let mut segments = vec![
        seg(0.0, 0.2, 30.0, 0.0),
        seg(0.2, 0.2, 10.0, 0.0),
        seg(0.1, -0.15, 25.0, 0.3),
        seg(-0.05, 0.0, 40.0, 0.0),
        seg(0.0, 0.0, 12.5, 0.0),
    ];
    segments[0].position_start = Some(Position::World {
        x: 12.0,
        y: -3.0,
        z: 0.0,
        h: Some(0.7),
    });
    let t = Trajectory {
        name: "synthetic".into(),
        closed: false,
        shape: Shape::ClothoidSpline {
            segments,
            time_end: None,
        },
    };
    assert!(check(&placer, &t, None) > 1000);
    // The comparison is sharp: 1 % more curvature change in the first segment is seen.
    let samples = placer.sample(&t).unwrap();
    let p0 = samples[0].pose;
    let near = samples.iter().find(|s| (s.s - 30.0).abs() < 1e-6).unwrap();
    let (x, y, _) = independent((p0.x, p0.y, p0.h), 0.0, 0.202, 30.0, 30.0);
    assert!((x - near.pose.x).hypot(y - near.pose.y) > 0.01);
    // A spline without a start position starts at the entity.
    let Shape::ClothoidSpline { mut segments, .. } = t.shape.clone() else {
        unreachable!()
    };
    segments[0].position_start = None;
    let t2 = Trajectory {
        shape: Shape::ClothoidSpline {
            segments,
            time_end: None,
        },
        ..t
    };
    let n = check(
        &placer,
        &t2,
        Some(Pose {
            x: -5.0,
            y: 8.0,
            h: -2.0,
        }),
    );
    assert!(n > 1000);
}
