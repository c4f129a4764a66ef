//! The Euro NCAP turning path: clothoid – arc – clothoid between two straights, the path of the
//! VUT's control point (front-axle centre) in the turn-across-path tests.
//!
//! Curvature runs linearly from κ1 = 1/R1 to κ2 = 1/R2 over the first clothoid, which turns the
//! heading by α; the arc of radius R2 turns it by β; the second clothoid mirrors the first.
//! Clothoid length L = 2α / (κ1 + κ2), arc length β·R2 (2α + β = 90° for a right-angle turn).
//! The protocol's geometry per test speed is [`TurnGeometry::protocol`].

use serde::{Deserialize, Serialize};

/// Which way the VUT turns (right-hand traffic: farside = left, across the oncoming lane).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Turn {
    Farside,
    Nearside,
}

impl Turn {
    /// +1 turning left (counter-clockwise), −1 turning right.
    pub fn sign(self) -> f64 {
        match self {
            Turn::Farside => 1.0,
            Turn::Nearside => -1.0,
        }
    }
}

impl std::str::FromStr for Turn {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "farside" | "far" | "f" | "left" => Ok(Turn::Farside),
            "nearside" | "near" | "n" | "right" => Ok(Turn::Nearside),
            _ => Err(format!("turn must be farside or nearside, got '{s}'")),
        }
    }
}

/// One turn's geometry.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TurnGeometry {
    /// Radius at the clothoids' straight ends, m (1500: practically straight).
    pub r1_m: f64,
    /// Radius of the arc, m.
    pub r2_m: f64,
    /// Heading change over each clothoid, degrees.
    pub alpha_deg: f64,
    /// Heading change over the arc, degrees.
    pub beta_deg: f64,
}

impl TurnGeometry {
    /// The protocol's path for a turn at `vut_speed_kmh`: farside radii 9 / 11.75 / 14.75 m at
    /// 10 / 15 / 20 km/h (25 km/h uses the 20 km/h path), nearside 8 m.
    pub fn protocol(turn: Turn, vut_speed_kmh: f64) -> TurnGeometry {
        let (r2, a, b) = match turn {
            Turn::Nearside => (8.0, 22.85, 44.3),
            Turn::Farside if vut_speed_kmh < 12.5 => (9.0, 20.62, 48.76),
            Turn::Farside if vut_speed_kmh < 17.5 => (11.75, 20.93, 48.14),
            Turn::Farside => (14.75, 21.79, 46.42),
        };
        TurnGeometry {
            r1_m: 1500.0,
            r2_m: r2,
            alpha_deg: a,
            beta_deg: b,
        }
    }

    pub fn clothoid_length(&self) -> f64 {
        2.0 * self.alpha_deg.to_radians() / (1.0 / self.r1_m + 1.0 / self.r2_m)
    }

    pub fn arc_length(&self) -> f64 {
        self.beta_deg.to_radians() * self.r2_m
    }

    /// Length of the curved part (clothoid, arc, clothoid).
    pub fn curve_length(&self) -> f64 {
        2.0 * self.clothoid_length() + self.arc_length()
    }

    /// Curvature at `u` metres into the curved part (unsigned; 0 outside it).
    pub fn curvature(&self, u: f64) -> f64 {
        let (k1, k2) = (1.0 / self.r1_m, 1.0 / self.r2_m);
        let (lc, la) = (self.clothoid_length(), self.arc_length());
        if u < 0.0 || u > 2.0 * lc + la {
            0.0
        } else if u < lc {
            k1 + (k2 - k1) * u / lc
        } else if u <= lc + la {
            k2
        } else {
            k2 + (k1 - k2) * (u - lc - la) / lc
        }
    }

    /// Heading change (unsigned, rad) from the start of the curved part to `u`: the exact
    /// integral of [`TurnGeometry::curvature`].
    pub fn heading(&self, u: f64) -> f64 {
        let (k1, k2) = (1.0 / self.r1_m, 1.0 / self.r2_m);
        let (lc, la) = (self.clothoid_length(), self.arc_length());
        let u = u.clamp(0.0, 2.0 * lc + la);
        let clothoid = |x: f64| k1 * x + 0.5 * (k2 - k1) * x * x / lc;
        if u < lc {
            clothoid(u)
        } else if u <= lc + la {
            clothoid(lc) + k2 * (u - lc)
        } else {
            let x = u - lc - la;
            clothoid(lc) + k2 * la + k2 * x + 0.5 * (k1 - k2) * x * x / lc
        }
    }

    /// Points of the curved part from (0, 0) heading +x, every `step` metres of arc length
    /// (plus the exact end), turning by `sign` (+1 left). Positions are integrated with
    /// 8-point Gauss–Legendre quadrature per step on the exact heading.
    pub fn curve_points(&self, sign: f64, step: f64) -> Vec<(f64, f64, f64)> {
        let total = self.curve_length();
        let n = (total / step).ceil().max(1.0) as usize;
        let mut out = Vec::with_capacity(n + 1);
        let (mut x, mut y) = (0.0, 0.0);
        out.push((0.0, 0.0, 0.0));
        for k in 0..n {
            let (a, b) = (
                total * k as f64 / n as f64,
                total * (k + 1) as f64 / n as f64,
            );
            let (mut dx, mut dy) = (0.0, 0.0);
            for (xi, wi) in GAUSS8 {
                let u = 0.5 * (a + b) + 0.5 * (b - a) * xi;
                let h = sign * self.heading(u);
                dx += wi * h.cos();
                dy += wi * h.sin();
            }
            x += 0.5 * (b - a) * dx;
            y += 0.5 * (b - a) * dy;
            out.push((x, y, sign * self.heading(b)));
        }
        out
    }
}

/// 8-point Gauss–Legendre nodes and weights on [−1, 1].
const GAUSS8: [(f64, f64); 8] = [
    (-0.960_289_856_497_536_3, 0.101_228_536_290_376_26),
    (-0.796_666_477_413_626_7, 0.222_381_034_453_374_47),
    (-0.525_532_409_916_329, 0.313_706_645_877_887_3),
    (-0.183_434_642_495_649_8, 0.362_683_783_378_362),
    (0.183_434_642_495_649_8, 0.362_683_783_378_362),
    (0.525_532_409_916_329, 0.313_706_645_877_887_3),
    (0.796_666_477_413_626_7, 0.222_381_034_453_374_47),
    (0.960_289_856_497_536_3, 0.101_228_536_290_376_26),
];

/// A turning path in the map frame: `straight_in` metres of straight ending at (x0, y0) heading
/// `yaw0` (the start of the curve), the curve, then `straight_out` metres of straight.
/// Points every `step` metres.
pub fn turning_path(
    g: &TurnGeometry,
    turn: Turn,
    (x0, y0, yaw0): (f64, f64, f64),
    straight_in: f64,
    straight_out: f64,
    step: f64,
) -> Vec<(f64, f64)> {
    let (c, s) = (yaw0.cos(), yaw0.sin());
    let to_map = |u: f64, v: f64| (x0 + u * c - v * s, y0 + u * s + v * c);
    let mut pts = Vec::new();
    let n_in = (straight_in / step).ceil().max(1.0) as usize;
    for k in 0..n_in {
        let u = -straight_in + straight_in * k as f64 / n_in as f64;
        pts.push(to_map(u, 0.0));
    }
    let curve = g.curve_points(turn.sign(), step);
    for &(u, v, _) in &curve {
        pts.push(to_map(u, v));
    }
    let &(ue, ve, he) = curve.last().unwrap_or(&(0.0, 0.0, 0.0));
    let n_out = (straight_out / step).ceil().max(1.0) as usize;
    for k in 1..=n_out {
        let d = straight_out * k as f64 / n_out as f64;
        pts.push(to_map(ue + d * he.cos(), ve + d * he.sin()));
    }
    pts
}

/// [`turning_path`] as the segments it is made of: the straight in, clothoid, arc, clothoid
/// and the straight out (curvature positive to the left). The start is rounded to 1e-6 m and
/// its heading to 1e-9°, as a scenario file writes them.
pub fn turning_segments(
    g: &TurnGeometry,
    turn: Turn,
    (x0, y0, yaw0): (f64, f64, f64),
    straight_in: f64,
    straight_out: f64,
) -> super::path::SegmentsPath {
    use super::path::SegmentSpec;
    let sign = turn.sign();
    let (k1, k2) = (sign / g.r1_m, sign / g.r2_m);
    let (lc, la) = (g.clothoid_length(), g.arc_length());
    let r = |v: f64, f: f64| (v * f).round() / f;
    super::path::SegmentsPath {
        start: super::Point {
            x: r(x0 - straight_in * yaw0.cos(), 1e6),
            y: r(y0 - straight_in * yaw0.sin(), 1e6),
        },
        heading_deg: r(crate::frame::yaw_to_heading(yaw0), 1e9),
        segments: vec![
            SegmentSpec::line(straight_in),
            SegmentSpec::clothoid(lc, k1, k2),
            SegmentSpec::arc(la, k2),
            SegmentSpec::clothoid(lc, k2, k1),
            SegmentSpec::line(straight_out),
        ],
    }
}

/// Where the curve ends relative to its start (start at the origin heading +x): (x, y, heading).
pub fn curve_end(g: &TurnGeometry, turn: Turn) -> (f64, f64, f64) {
    g.curve_points(turn.sign(), 0.05)
        .last()
        .copied()
        .unwrap_or((0.0, 0.0, 0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turning_segments_are_the_turning_path() {
        for (turn, v) in [(Turn::Farside, 10.0), (Turn::Nearside, 20.0)] {
            let g = TurnGeometry::protocol(turn, v);
            let q = (12.0, -3.0, 0.7);
            let pts = turning_path(&g, turn, q, 50.0, 20.0, 0.25);
            let path = turning_segments(&g, turn, q, 50.0, 20.0)
                .geometry()
                .expect("segments");
            let line =
                crate::scenario::path::Path::from_xy(pts.iter().copied(), 1e-9).expect("points");
            assert!((path.length() - line.length()).abs() < 1e-3);
            // Every point of the polyline lies on the segments (to the rounding of the start).
            for &(x, y) in &pts {
                let s = path.project(x, y);
                let (px, py, _) = path.pose(s);
                assert!((px - x).hypot(py - y) < 1e-5, "{turn:?} {x} {y}");
            }
        }
    }

    #[test]
    fn protocol_turns_are_right_angles() {
        for (turn, v) in [
            (Turn::Farside, 10.0),
            (Turn::Farside, 15.0),
            (Turn::Farside, 20.0),
            (Turn::Nearside, 10.0),
        ] {
            let g = TurnGeometry::protocol(turn, v);
            let total = g.heading(g.curve_length());
            // The protocol's angles are given to 0.01°.
            assert!(
                (total.to_degrees() - 90.0).abs() < 0.02,
                "{turn:?} {v}: {}",
                total.to_degrees()
            );
            let (_, _, h) = curve_end(&g, turn);
            assert!((h - turn.sign() * total).abs() < 1e-12);
        }
    }
}
