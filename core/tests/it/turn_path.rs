//! The Euro NCAP turning path (clothoid – arc – clothoid) checked against an independent
//! evaluation: Fresnel integrals (power series) for the clothoids, the circle for the arc. The
//! path scil places and drives (`turning_segments`, evaluated by the path geometry) must be on
//! it to the rounding of its start (1e-6 m), with the curve's heading.

use scil_core::scenario::turn::{turning_segments, Turn, TurnGeometry};

/// Fresnel integrals C(x), S(x) (∫ cos/sin(π t²/2) dt from 0 to x) by their power series.
fn fresnel(x: f64) -> (f64, f64) {
    let h = std::f64::consts::FRAC_PI_2;
    let (mut c, mut s) = (0.0, 0.0);
    let mut fact = 1.0; // k!
    for k in 0..60 {
        if k > 0 {
            fact *= k as f64;
        }
        let n = k / 2;
        let sign = if n % 2 == 0 { 1.0 } else { -1.0 };
        let term = sign * h.powi(k) * x.powi(2 * k + 1) / (fact * (2 * k + 1) as f64);
        if k % 2 == 0 {
            c += term;
        } else {
            s += term;
        }
    }
    (c, s)
}

/// ∫0^u exp(i(κ0 t + c t²/2)) dt for c ≠ 0, as (x, y).
fn clothoid(k0: f64, c: f64, u: f64) -> (f64, f64) {
    let pi = std::f64::consts::PI;
    let a = (c.abs() / pi).sqrt();
    let (t0, t1) = (a * (k0 / c), a * (u + k0 / c));
    let (c0, s0) = fresnel(t0.abs());
    let (c1, s1) = fresnel(t1.abs());
    let (c0, s0) = (c0 * t0.signum(), s0 * t0.signum());
    let (c1, s1) = (c1 * t1.signum(), s1 * t1.signum());
    let (dc, ds) = (c1 - c0, s1 - s0);
    // θ = (c/2)(t + κ0/c)² − κ0²/(2c); for c < 0 the Fresnel phase turns the other way.
    let phase = -k0 * k0 / (2.0 * c);
    let (re, im) = if c > 0.0 { (dc, ds) } else { (dc, -ds) };
    let (cp, sp) = (phase.cos(), phase.sin());
    ((re * cp - im * sp) / a, (re * sp + im * cp) / a)
}

/// The curve at arc length u from its start (start at the origin heading +x, turning left).
fn independent(g: &TurnGeometry, u: f64) -> (f64, f64) {
    let (k1, k2) = (1.0 / g.r1_m, 1.0 / g.r2_m);
    let lc = g.clothoid_length();
    let la = g.arc_length();
    let c = (k2 - k1) / lc;
    let rot = |(x, y): (f64, f64), h: f64| (x * h.cos() - y * h.sin(), x * h.sin() + y * h.cos());
    if u <= lc {
        return clothoid(k1, c, u);
    }
    let p1 = clothoid(k1, c, lc);
    let h1 = k1 * lc + 0.5 * c * lc * lc;
    let ua = (u - lc).min(la);
    // Arc of radius R2 from p1 heading h1.
    let r = g.r2_m;
    let arc = rot((r * (ua / r).sin(), r * (1.0 - (ua / r).cos())), h1);
    let p2 = (p1.0 + arc.0, p1.1 + arc.1);
    if u <= lc + la {
        return p2;
    }
    let h2 = h1 + la / r;
    let q = clothoid(k2, -c, u - lc - la);
    let q = rot(q, h2);
    (p2.0 + q.0, p2.1 + q.1)
}

#[test]
fn turning_paths_match_the_fresnel_evaluation() {
    assert!((fresnel(1.0).0 - 0.779_893_400_376_823).abs() < 1e-12);
    assert!((fresnel(1.0).1 - 0.438_259_147_390_355).abs() < 1e-12);
    for (turn, v) in [
        (Turn::Farside, 10.0),
        (Turn::Farside, 15.0),
        (Turn::Farside, 20.0),
        (Turn::Nearside, 10.0),
    ] {
        let g = TurnGeometry::protocol(turn, v);
        let (x0, y0, yaw0) = (250.0, -1.75, 0.3);
        let path = turning_segments(&g, turn, (x0, y0, yaw0), 20.0, 10.0)
            .geometry()
            .expect("segments");
        let total = g.curve_length();
        let n = 400;
        let (mut worst, mut worst_yaw): (f64, f64) = (0.0, 0.0);
        for k in 0..=n {
            let u = total * k as f64 / n as f64;
            let (ix, iy) = independent(&g, u);
            let iy = iy * turn.sign();
            let (mx, my) = (
                x0 + ix * yaw0.cos() - iy * yaw0.sin(),
                y0 + ix * yaw0.sin() + iy * yaw0.cos(),
            );
            let (px, py, yaw) = path.pose(20.0 + u);
            worst = worst.max((px - mx).hypot(py - my));
            worst_yaw = worst_yaw.max((yaw - yaw0 - turn.sign() * g.heading(u)).abs());
        }
        assert!(worst <= 2e-6, "{turn:?} {v} km/h: {worst} m");
        assert!(worst_yaw <= 1e-9, "{turn:?} {v} km/h: {worst_yaw} rad");
    }
}
