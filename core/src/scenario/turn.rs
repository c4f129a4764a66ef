//! The Euro NCAP turning path: clothoid – arc – clothoid between two straights, the path of the
//! VUT's control point (front-axle centre) in the turn-across-path tests.
//!
//! Curvature runs linearly from κ1 = 1/R1 to κ2 = 1/R2 over the first clothoid, which turns the
//! heading by α; the arc of radius R2 turns it by β; the second clothoid mirrors the first.
//! Clothoid length L = 2α / (κ1 + κ2), arc length β·R2 (2α + β = 90° for a right-angle turn).
//! The protocol's geometry per test speed is [`TurnGeometry::protocol`].

use serde::{Deserialize, Serialize};

use super::geom::{Path, Piece};
use super::path::{SegmentSpec, SegmentsPath};

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

    /// The curved part as pieces (clothoid, arc, clothoid), turning by `sign` (+1 left).
    pub fn curve_pieces(&self, sign: f64) -> [Piece; 3] {
        let (k1, k2) = (sign / self.r1_m, sign / self.r2_m);
        let lc = self.clothoid_length();
        [
            Piece::Clothoid {
                length: lc,
                curvature_start: k1,
                curvature_end: k2,
            },
            Piece::Arc {
                length: self.arc_length(),
                curvature: k2,
            },
            Piece::Clothoid {
                length: lc,
                curvature_start: k2,
                curvature_end: k1,
            },
        ]
    }
}

/// A turning path in the map frame as the segments it is made of: `straight_in` metres of
/// straight ending at (x0, y0) heading `yaw0` (the start of the curve), clothoid, arc,
/// clothoid, then `straight_out` metres of straight (curvature positive to the left). The start
/// is rounded to 1e-6 m and its heading to 1e-9°, as a scenario file writes them.
pub fn turning_segments(
    g: &TurnGeometry,
    turn: Turn,
    (x0, y0, yaw0): (f64, f64, f64),
    straight_in: f64,
    straight_out: f64,
) -> SegmentsPath {
    let spec = |p: Piece| match p {
        Piece::Line { length } => SegmentSpec::line(length),
        Piece::Arc { length, curvature } => SegmentSpec::arc(length, curvature),
        Piece::Clothoid {
            length,
            curvature_start,
            curvature_end,
        } => SegmentSpec::clothoid(length, curvature_start, curvature_end),
    };
    let r = |v: f64, f: f64| (v * f).round() / f;
    let mut segments = vec![SegmentSpec::line(straight_in)];
    segments.extend(g.curve_pieces(turn.sign()).map(spec));
    segments.push(SegmentSpec::line(straight_out));
    SegmentsPath {
        start: super::Point {
            x: r(x0 - straight_in * yaw0.cos(), 1e6),
            y: r(y0 - straight_in * yaw0.sin(), 1e6),
        },
        heading_deg: r(crate::frame::yaw_to_heading(yaw0), 1e9),
        segments,
    }
}

/// Where the curve ends relative to its start (start at the origin heading +x): (x, y,
/// heading), evaluated by the path geometry.
pub fn curve_end(g: &TurnGeometry, turn: Turn) -> Result<(f64, f64, f64), String> {
    let curve = Path::from_pieces(0.0, 0.0, 0.0, &g.curve_pieces(turn.sign()))
        .map_err(|e| format!("turn geometry {g:?}: {e}"))?;
    Ok(curve.pose(curve.length()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turning_segments_turn_at_the_given_pose() {
        for (turn, v) in [(Turn::Farside, 10.0), (Turn::Nearside, 20.0)] {
            let g = TurnGeometry::protocol(turn, v);
            let q = (12.0, -3.0, 0.7);
            let path = turning_segments(&g, turn, q, 50.0, 20.0)
                .geometry()
                .expect("segments");
            assert!((path.length() - (70.0 + g.curve_length())).abs() < 1e-9);
            // The curve begins at q (to the rounding of the start) with q's heading …
            let (x, y, yaw) = path.pose(50.0);
            assert!((x - q.0).hypot(y - q.1) < 1e-6, "{turn:?} {x} {y}");
            assert!((yaw - q.2).abs() < 1e-9);
            // … and ends where the curve alone ends, turned by its whole heading change.
            let (ue, ve, he) = curve_end(&g, turn).expect("curve");
            let (c, s) = (q.2.cos(), q.2.sin());
            let (x, y, yaw) = path.pose(50.0 + g.curve_length());
            let (ex, ey) = (q.0 + ue * c - ve * s, q.1 + ue * s + ve * c);
            assert!((x - ex).hypot(y - ey) < 1e-6, "{turn:?}");
            assert!((yaw - q.2 - he).abs() < 1e-9);
            assert!((he - turn.sign() * g.heading(g.curve_length())).abs() < 1e-12);
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
            let (_, _, h) = curve_end(&g, turn).expect("curve");
            assert!((h - turn.sign() * total).abs() < 1e-12);
        }
    }
}
