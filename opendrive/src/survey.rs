//! A road from a survey drive: a reference line fitted to points driven along a lane centre,
//! written as an OpenDRIVE road.
//!
//! The line is a clothoid spline: pieces of equal length whose curvature changes linearly along
//! each piece and continuously from one piece to the next, so each piece is an OpenDRIVE
//! `<spiral>` (an `<arc>` or `<line>` where its curvature is constant or zero). Position,
//! heading and curvature are continuous by construction; every geometry has a closed meaning
//! that any OpenDRIVE reader evaluates the same way (unlike paramPoly3, whose parameterisation
//! readers differ on).
//!
//! The fit minimises the squared distances of the points from the line (Levenberg–Marquardt on
//! the start pose and the knot curvatures, each point projected onto the line every iteration).
//! It starts with few pieces and adds pieces, never more than one per 10 m, until the worst
//! point is within the tolerance.

use crate::geometry::{Geometry, GeometryKind};

/// The shortest road a survey makes (shorter drives do not define a direction well enough).
pub const MIN_LENGTH_M: f64 = 10.0;
/// Longest piece count per metre: at most one geometry per 10 m of road.
pub const MIN_PIECE_M: f64 = 10.0;
/// Road added before the first and after the last point, so both lie inside the road.
const MARGIN_M: f64 = 1.0;

/// A fitted reference line.
#[derive(Debug, Clone)]
pub struct Fit {
    /// The plan view, chained: each geometry starts where the previous one ends.
    pub geometries: Vec<Geometry>,
    /// Total length (m).
    pub length: f64,
    /// Distance of each point from the line (m), in input order.
    pub distances: Vec<f64>,
}

impl Fit {
    /// Largest point distance (m) and its index.
    pub fn worst(&self) -> (f64, usize) {
        self.distances.iter().enumerate().fold(
            (0.0, 0),
            |acc, (i, &d)| if d > acc.0 { (d, i) } else { acc },
        )
    }

    /// Mean point distance (m).
    pub fn mean(&self) -> f64 {
        self.distances.iter().sum::<f64>() / self.distances.len().max(1) as f64
    }
}

/// Why a drive could not be made a road.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    /// Too few points or too short a path.
    #[error("the drive is too short to fit: {0}")]
    TooShort(String),
    /// The best line allowed misses some point by more than the tolerance.
    #[error(
        "no reference line within {tolerance} m with at most one geometry per {MIN_PIECE_M} m: \
         the best one misses point {index} by {worst:.3} m (drive more smoothly, or give a larger tolerance)"
    )]
    Tolerance {
        /// The requested tolerance.
        tolerance: f64,
        /// Worst distance of the best fit.
        worst: f64,
        /// Index of the worst point.
        index: usize,
    },
}

/// The curve model: start pose, piece length and knot curvatures.
#[derive(Debug, Clone)]
struct Spline {
    x0: f64,
    y0: f64,
    h0: f64,
    piece: f64,
    kappa: Vec<f64>,
}

impl Spline {
    fn params(&self) -> Vec<f64> {
        let mut p = vec![self.x0, self.y0, self.h0];
        p.extend_from_slice(&self.kappa);
        p
    }

    fn with_params(&self, p: &[f64]) -> Spline {
        Spline {
            x0: p[0],
            y0: p[1],
            h0: p[2],
            piece: self.piece,
            kappa: p[3..].to_vec(),
        }
    }

    /// The chained geometries.
    fn geometries(&self) -> Vec<Geometry> {
        let n = self.kappa.len() - 1;
        let mut out = Vec::with_capacity(n);
        let (mut x, mut y, mut h) = (self.x0, self.y0, self.h0);
        for k in 0..n {
            let (a, b) = (self.kappa[k], self.kappa[k + 1]);
            let kind = if a == 0.0 && b == 0.0 {
                GeometryKind::Line
            } else if a == b {
                GeometryKind::Arc { curvature: a }
            } else {
                GeometryKind::Spiral {
                    curv_start: a,
                    curv_end: b,
                }
            };
            let g = Geometry::new(k as f64 * self.piece, x, y, h, self.piece, kind);
            (x, y, h) = g.eval(g.s + g.length);
            out.push(g);
        }
        out
    }
}

/// Position and heading on chained geometries at `s`.
fn eval(geoms: &[Geometry], s: f64) -> (f64, f64, f64) {
    let i = geoms.partition_point(|g| g.s <= s).saturating_sub(1);
    geoms[i.min(geoms.len() - 1)].eval(s)
}

/// The arc length of each point's nearest position on the line, searched near the previous
/// point's (the points are in drive order), refined by Newton steps on the tangent.
fn project(geoms: &[Geometry], length: f64, pts: &[(f64, f64)], guess: &[f64]) -> Vec<f64> {
    pts.iter()
        .zip(guess)
        .map(|(&(px, py), &s0)| {
            let mut s = s0.clamp(0.0, length);
            for _ in 0..20 {
                let (x, y, h) = eval(geoms, s);
                let along = (px - x) * h.cos() + (py - y) * h.sin();
                let next = (s + along).clamp(0.0, length);
                let done = (next - s).abs() < 1e-9;
                s = next;
                if done {
                    break;
                }
            }
            s
        })
        .collect()
}

/// Signed normal distance (left positive) of each point from the line at its projection.
fn residuals(geoms: &[Geometry], pts: &[(f64, f64)], s: &[f64]) -> Vec<f64> {
    pts.iter()
        .zip(s)
        .map(|(&(px, py), &si)| {
            let (x, y, h) = eval(geoms, si);
            -(px - x) * h.sin() + (py - y) * h.cos()
        })
        .collect()
}

/// Solves the small symmetric positive definite system `a x = b` (Cholesky); `None` if singular.
// Index loops are the textbook form of the factorisation; iterators would hide it.
#[allow(clippy::needless_range_loop)]
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for j in 0..n {
        let mut d = a[j][j];
        for k in 0..j {
            d -= a[j][k] * a[j][k];
        }
        if d <= 0.0 || !d.is_finite() {
            return None;
        }
        let d = d.sqrt();
        a[j][j] = d;
        for i in j + 1..n {
            let mut v = a[i][j];
            for k in 0..j {
                v -= a[i][k] * a[j][k];
            }
            a[i][j] = v / d;
        }
    }
    for i in 0..n {
        let mut v = b[i];
        for k in 0..i {
            v -= a[i][k] * b[k];
        }
        b[i] = v / a[i][i];
    }
    for i in (0..n).rev() {
        let mut v = b[i];
        for k in i + 1..n {
            v -= a[k][i] * b[k];
        }
        b[i] = v / a[i][i];
    }
    Some(b)
}

/// Cumulative path length of the points.
fn path_length(pts: &[(f64, f64)]) -> Vec<f64> {
    let mut d = Vec::with_capacity(pts.len());
    let mut acc = 0.0;
    for (i, p) in pts.iter().enumerate() {
        if i > 0 {
            acc += (p.0 - pts[i - 1].0).hypot(p.1 - pts[i - 1].1);
        }
        d.push(acc);
    }
    d
}

/// The point of the path at path length `at` (linear between points).
fn at_length(pts: &[(f64, f64)], d: &[f64], at: f64) -> (f64, f64) {
    let i = d.partition_point(|&v| v <= at).clamp(1, pts.len() - 1);
    let (a, b) = (pts[i - 1], pts[i]);
    let span = d[i] - d[i - 1];
    let f = if span > 0.0 {
        ((at - d[i - 1]) / span).clamp(-10.0, 10.0)
    } else {
        0.0
    };
    (a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1))
}

/// Heading of the path at path length `at`, from the chord over ±`half` metres.
fn chord_heading(pts: &[(f64, f64)], d: &[f64], at: f64, half: f64) -> f64 {
    let total = d[d.len() - 1];
    let a = at_length(pts, d, (at - half).max(0.0));
    let b = at_length(pts, d, (at + half).min(total));
    (b.1 - a.1).atan2(b.0 - a.0)
}

/// A first spline with `n` pieces from the path's own headings.
fn initial(pts: &[(f64, f64)], d: &[f64], n: usize) -> Spline {
    let total = d[d.len() - 1];
    let length = total + 2.0 * MARGIN_M;
    let piece = length / n as f64;
    let half = 2.5_f64.min(total / 4.0);
    let h0 = chord_heading(pts, d, 0.0, half);
    let kappa = (0..=n)
        .map(|k| {
            let at = k as f64 * piece - MARGIN_M;
            let lo = (at - half).clamp(0.0, total - 2.0 * half);
            let ha = chord_heading(pts, d, lo, half);
            let hb = chord_heading(pts, d, lo + 2.0 * half, half);
            crate::wrap_angle(hb - ha) / (2.0 * half)
        })
        .collect();
    Spline {
        x0: pts[0].0 - MARGIN_M * h0.cos(),
        y0: pts[0].1 - MARGIN_M * h0.sin(),
        h0,
        piece,
        kappa,
    }
}

/// Levenberg–Marquardt refinement of a spline; returns it with the point distances.
// The normal equations are filled and mirrored by index, as the method is written.
#[allow(clippy::needless_range_loop)]
fn refine(mut sp: Spline, pts: &[(f64, f64)], d: &[f64]) -> (Spline, Vec<f64>, Vec<f64>) {
    let length = sp.piece * (sp.kappa.len() - 1) as f64;
    let mut geoms = sp.geometries();
    let guess: Vec<f64> = d.iter().map(|v| v + MARGIN_M).collect();
    let mut s = project(&geoms, length, pts, &guess);
    let mut r = residuals(&geoms, pts, &s);
    let cost = |r: &[f64]| r.iter().map(|v| v * v).sum::<f64>();
    let mut c = cost(&r);
    let mut lambda = 1e-3;
    for _ in 0..60 {
        let p = sp.params();
        let m = p.len();
        // Jacobian by forward differences at fixed projections (the tangential term of a moved
        // projection is orthogonal to the normal residual).
        let mut jac = vec![vec![0.0; m]; pts.len()];
        for j in 0..m {
            let step = if j < 2 {
                1e-4
            } else if j == 2 {
                1e-6
            } else {
                1e-7
            };
            let mut q = p.clone();
            q[j] += step;
            let rq = residuals(&sp.with_params(&q).geometries(), pts, &s);
            for i in 0..pts.len() {
                jac[i][j] = (rq[i] - r[i]) / step;
            }
        }
        let mut jtj = vec![vec![0.0; m]; m];
        let mut jtr = vec![0.0; m];
        for (row, ri) in jac.iter().zip(&r) {
            for a in 0..m {
                jtr[a] -= row[a] * ri;
                for b in 0..=a {
                    jtj[a][b] += row[a] * row[b];
                }
            }
        }
        let mut improved = false;
        for _ in 0..8 {
            let mut a = jtj.clone();
            for i in 0..m {
                for k in 0..i {
                    a[k][i] = a[i][k];
                }
                a[i][i] *= 1.0 + lambda;
                a[i][i] += 1e-12;
            }
            let Some(delta) = solve(a, jtr.clone()) else {
                lambda *= 10.0;
                continue;
            };
            let q: Vec<f64> = p.iter().zip(&delta).map(|(a, b)| a + b).collect();
            let cand = sp.with_params(&q);
            let cg = cand.geometries();
            let cs = project(&cg, length, pts, &s);
            let cr = residuals(&cg, pts, &cs);
            let cc = cost(&cr);
            if cc < c {
                let gain = (c - cc) / c.max(1e-30);
                (sp, geoms, s, r, c) = (cand, cg, cs, cr, cc);
                lambda = (lambda / 3.0).max(1e-9);
                improved = gain > 1e-10;
                break;
            }
            lambda *= 10.0;
        }
        if !improved {
            break;
        }
    }
    let _ = geoms;
    let dist = r.iter().map(|v| v.abs()).collect();
    (sp, dist, s)
}

/// Fits a reference line to `pts` (metres, in drive order, standing and reversing samples
/// already removed) so that every point is within `tolerance` metres.
pub fn fit(pts: &[(f64, f64)], tolerance: f64) -> Result<Fit, FitError> {
    if pts.len() < 10 {
        return Err(FitError::TooShort(format!(
            "{} moving positions (at least 10 are needed)",
            pts.len()
        )));
    }
    let d = path_length(pts);
    let total = d[d.len() - 1];
    if total < MIN_LENGTH_M {
        return Err(FitError::TooShort(format!(
            "{total:.1} m driven (at least {MIN_LENGTH_M} m are needed)"
        )));
    }
    let length = total + 2.0 * MARGIN_M;
    let max_pieces = ((length / MIN_PIECE_M).floor() as usize).max(1);
    // Piece counts tried, coarse to fine.
    let mut counts: Vec<usize> = [40.0, 20.0, MIN_PIECE_M]
        .iter()
        .map(|per| ((length / per).floor() as usize).clamp(1, max_pieces))
        .collect();
    counts.dedup();
    let mut best: Option<(Spline, Vec<f64>)> = None;
    for n in counts {
        let (sp, dist, _) = refine(initial(pts, &d, n), pts, &d);
        let worst = dist.iter().cloned().fold(0.0, f64::max);
        let better = best
            .as_ref()
            .is_none_or(|(_, b)| worst < b.iter().cloned().fold(0.0, f64::max));
        if better {
            best = Some((sp, dist));
        }
        if worst <= tolerance {
            break;
        }
    }
    let Some((sp, distances)) = best else {
        return Err(FitError::TooShort("nothing to fit".into()));
    };
    let (worst, index) =
        distances.iter().enumerate().fold(
            (0.0, 0),
            |acc, (i, &v)| if v > acc.0 { (v, i) } else { acc },
        );
    if worst > tolerance {
        return Err(FitError::Tolerance {
            tolerance,
            worst,
            index,
        });
    }
    Ok(Fit {
        geometries: sp.geometries(),
        length: sp.piece * (sp.kappa.len() - 1) as f64,
        distances,
    })
}

/// Lanes beside a surveyed reference line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lanes {
    /// Lane width (m).
    pub width: f64,
    /// Lanes left of the reference line.
    pub left: u32,
    /// Lanes right of the reference line.
    pub right: u32,
}

/// An OpenDRIVE 1.6 document with one road: the fitted reference line, the given lanes (driving
/// lanes of constant width, solid outer marks, broken marks between lanes) and `geo_reference`.
pub fn write_xodr(fit: &Fit, lanes: &Lanes, geo_reference: &str, name: &str) -> String {
    use std::fmt::Write;
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    let mut x = String::new();
    let _ = writeln!(x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    let _ = writeln!(x, "<OpenDRIVE>");
    let _ = writeln!(
        x,
        "    <header revMajor=\"1\" revMinor=\"6\" name=\"{}\" version=\"1\" vendor=\"scil\">",
        esc(name)
    );
    let _ = writeln!(
        x,
        "        <geoReference><![CDATA[{geo_reference}]]></geoReference>"
    );
    let _ = writeln!(x, "    </header>");
    let _ = writeln!(
        x,
        "    <road name=\"{}\" length=\"{}\" id=\"1\" junction=\"-1\">",
        esc(name),
        fit.length
    );
    let _ = writeln!(x, "        <type s=\"0\" type=\"town\"/>");
    let _ = writeln!(x, "        <planView>");
    for g in &fit.geometries {
        let _ = write!(
            x,
            "            <geometry s=\"{}\" x=\"{}\" y=\"{}\" hdg=\"{}\" length=\"{}\">",
            g.s, g.x, g.y, g.hdg, g.length
        );
        let _ = match g.kind {
            GeometryKind::Line => write!(x, "<line/>"),
            GeometryKind::Arc { curvature } => write!(x, "<arc curvature=\"{curvature}\"/>"),
            GeometryKind::Spiral {
                curv_start,
                curv_end,
            } => write!(
                x,
                "<spiral curvStart=\"{curv_start}\" curvEnd=\"{curv_end}\"/>"
            ),
            // The fit makes only the three above.
            _ => Ok(()),
        };
        let _ = writeln!(x, "</geometry>");
    }
    let _ = writeln!(x, "        </planView>");
    let _ = writeln!(x, "        <elevationProfile/>");
    let _ = writeln!(x, "        <lateralProfile/>");
    let _ = writeln!(x, "        <lanes>");
    let _ = writeln!(x, "            <laneSection s=\"0\">");
    let lane = |x: &mut String, id: i64, outer: bool| {
        let mark = if outer { "solid" } else { "broken" };
        let _ = writeln!(
            x,
            "                    <lane id=\"{id}\" type=\"driving\" level=\"false\">\n\
             \x20                       <width sOffset=\"0\" a=\"{}\" b=\"0\" c=\"0\" d=\"0\"/>\n\
             \x20                       <roadMark sOffset=\"0\" type=\"{mark}\" weight=\"standard\" color=\"standard\" width=\"0.12\"/>\n\
             \x20                   </lane>",
            lanes.width
        );
    };
    if lanes.left > 0 {
        let _ = writeln!(x, "                <left>");
        for id in (1..=lanes.left as i64).rev() {
            lane(&mut x, id, id == lanes.left as i64);
        }
        let _ = writeln!(x, "                </left>");
    }
    let centre_mark = if lanes.left > 0 && lanes.right > 0 {
        "broken"
    } else {
        "solid"
    };
    let _ = writeln!(
        x,
        "                <center>\n                    <lane id=\"0\" type=\"none\" level=\"false\">\n\
         \x20                       <roadMark sOffset=\"0\" type=\"{centre_mark}\" weight=\"standard\" color=\"standard\" width=\"0.12\"/>\n\
         \x20                   </lane>\n                </center>"
    );
    if lanes.right > 0 {
        let _ = writeln!(x, "                <right>");
        for id in 1..=lanes.right as i64 {
            lane(&mut x, -id, id == lanes.right as i64);
        }
        let _ = writeln!(x, "                </right>");
    }
    let _ = writeln!(x, "            </laneSection>");
    let _ = writeln!(x, "        </lanes>");
    let _ = writeln!(x, "    </road>");
    let _ = writeln!(x, "</OpenDRIVE>");
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points along a known clothoid path with a deterministic wobble of ±`noise` metres.
    fn path(noise: f64) -> Vec<(f64, f64)> {
        let truth = Spline {
            x0: 0.0,
            y0: 0.0,
            h0: 0.3,
            piece: 30.0,
            kappa: vec![0.0, 0.004, 0.012, -0.006, 0.0, 0.0],
        };
        let g = truth.geometries();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        (0..600)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let u = (state % 2001) as f64 / 1000.0 - 1.0;
                let (x, y, h) = eval(&g, 1.0 + i as f64 * 0.245);
                (x - noise * u * h.sin(), y + noise * u * h.cos())
            })
            .collect()
    }

    #[test]
    fn fits_a_clothoid_drive_within_tolerance() {
        let pts = path(0.02);
        let f = fit(&pts, 0.10).unwrap();
        assert!(f.worst().0 <= 0.10, "worst {}", f.worst().0);
        assert!(f.mean() < 0.03, "mean {}", f.mean());
        assert!(f.geometries.len() as f64 <= f.length / MIN_PIECE_M);
        // Chained: each geometry starts where the previous one ends, heading included.
        for w in f.geometries.windows(2) {
            let (x, y, h) = w[0].eval(w[0].s + w[0].length);
            assert!((x - w[1].x).hypot(y - w[1].y) < 1e-12);
            assert!(crate::wrap_angle(h - w[1].hdg).abs() < 1e-12);
        }
        // The written document loads and its line is the fitted one.
        let doc = write_xodr(
            &f,
            &Lanes {
                width: 3.5,
                left: 1,
                right: 2,
            },
            "+proj=tmerc +lat_0=47 +lon_0=17",
            "survey",
        );
        let od = crate::OpenDrive::from_str(&doc).unwrap();
        let road = od.road("1").unwrap();
        assert_eq!(road.plan_view.len(), f.geometries.len());
        for &(px, py) in &pts {
            let p = od.locate(px, py, None).expect("on the road");
            assert!(p.t.abs() <= 0.10, "t {}", p.t);
        }
    }

    #[test]
    fn short_or_impossible_drives_are_refused() {
        let pts: Vec<_> = (0..30).map(|i| (i as f64 * 0.2, 0.0)).collect();
        assert!(matches!(fit(&pts, 0.1), Err(FitError::TooShort(_))));
        // A zig-zag of ±1 m every 2 m cannot be followed with 10 m pieces.
        let zig: Vec<_> = (0..200)
            .map(|i| (i as f64 * 0.5, if (i / 4) % 2 == 0 { 1.0 } else { -1.0 }))
            .collect();
        assert!(matches!(fit(&zig, 0.1), Err(FitError::Tolerance { .. })));
    }
}
