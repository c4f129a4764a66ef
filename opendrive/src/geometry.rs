//! Plan-view geometry primitives and their evaluation.
//!
//! Every primitive is evaluated in its own local frame (start at the origin, heading 0) and then
//! rotated by `hdg` and translated to `(x, y)`. Curves without a closed form (spirals, cubic
//! polynomials parameterised by something other than arc length) are integrated numerically with
//! composite Gauss–Legendre quadrature; tables built once at load time keep each query to one
//! short quadrature, so evaluation stays both exact to ~1e-9 m and cheap.

/// 10-point Gauss–Legendre nodes on [-1, 1] (positive half; the rule is symmetric). Written with
/// all published digits; the compiler rounds them to the nearest f64.
#[allow(clippy::excessive_precision)]
const GL_X: [f64; 5] = [
    0.148_874_338_981_631_21,
    0.433_395_394_129_247_19,
    0.679_409_568_299_024_41,
    0.865_063_366_688_984_51,
    0.973_906_528_517_171_72,
];
/// Weights matching [`GL_X`].
#[allow(clippy::excessive_precision)]
const GL_W: [f64; 5] = [
    0.295_524_224_714_752_87,
    0.269_266_719_309_996_36,
    0.219_086_362_515_982_04,
    0.149_451_349_150_580_59,
    0.066_671_344_308_688_14,
];

/// Integrates `f` over `[a, b]` with the 10-point Gauss–Legendre rule (exact for degree ≤ 19).
fn gauss<F: Fn(f64) -> [f64; 2]>(a: f64, b: f64, f: F) -> [f64; 2] {
    let m = 0.5 * (a + b);
    let h = 0.5 * (b - a);
    let mut acc = [0.0; 2];
    for i in 0..5 {
        let d = h * GL_X[i];
        let p = f(m + d);
        let q = f(m - d);
        acc[0] += GL_W[i] * (p[0] + q[0]);
        acc[1] += GL_W[i] * (p[1] + q[1]);
    }
    [acc[0] * h, acc[1] * h]
}

/// How `paramPoly3` parameter p relates to the geometry (`@pRange`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PRange {
    /// p ∈ [0, 1].
    Normalized,
    /// p ∈ [0, @length].
    ArcLength,
}

/// The shape of one `<geometry>` record.
#[derive(Debug, Clone, PartialEq)]
pub enum GeometryKind {
    /// Straight line.
    Line,
    /// Constant curvature (1/m, positive = left).
    Arc {
        /// Curvature.
        curvature: f64,
    },
    /// Clothoid: curvature changes linearly from `curv_start` to `curv_end` over the length.
    Spiral {
        /// Curvature at the start.
        curv_start: f64,
        /// Curvature at the end.
        curv_end: f64,
    },
    /// Deprecated cubic `v(u) = a + b·u + c·u² + d·u³` in the local frame.
    Poly3 {
        /// Coefficients a, b, c, d.
        a: f64,
        /// b
        b: f64,
        /// c
        c: f64,
        /// d
        d: f64,
    },
    /// Parametric cubic `u(p), v(p)`.
    ParamPoly3 {
        /// u coefficients a, b, c, d.
        u: [f64; 4],
        /// v coefficients a, b, c, d.
        v: [f64; 4],
        /// Parameter range.
        p_range: PRange,
    },
}

impl GeometryKind {
    /// Short name used in summaries (`line`, `arc`, `spiral`, `poly3`, `paramPoly3`).
    pub fn name(&self) -> &'static str {
        match self {
            GeometryKind::Line => "line",
            GeometryKind::Arc { .. } => "arc",
            GeometryKind::Spiral { .. } => "spiral",
            GeometryKind::Poly3 { .. } => "poly3",
            GeometryKind::ParamPoly3 { .. } => "paramPoly3",
        }
    }
}

/// Precomputed data for curves without a closed form.
#[derive(Debug, Clone, PartialEq, Default)]
struct Table {
    /// Knots of the independent variable (arc length for spirals, p for cubics).
    knots: Vec<f64>,
    /// For spirals: local (x, y) at each knot. For cubics: cumulative arc length at each knot (in `[0]`).
    values: Vec<[f64; 2]>,
}

/// One `<geometry>` of a road's plan view, ready for evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct Geometry {
    /// Start position along the road reference line.
    pub s: f64,
    /// Start x in the inertial frame.
    pub x: f64,
    /// Start y in the inertial frame.
    pub y: f64,
    /// Start heading (rad).
    pub hdg: f64,
    /// Length along the reference line.
    pub length: f64,
    /// The primitive.
    pub kind: GeometryKind,
    table: Table,
    /// For cubics: the parameter value at the end of the curve and the total arc length of the
    /// parameter range; `s_local` maps to arc length `s_local · arc_total / length`.
    p_end: f64,
    arc_total: f64,
    /// sin and cos of `hdg`, computed once: every evaluation rotates by them, and map matching
    /// evaluates the reference line several times per sample.
    sin_hdg: f64,
    cos_hdg: f64,
}

/// Local evaluation result: position and heading in the geometry's own frame.
#[derive(Debug, Clone, Copy)]
struct Local {
    u: f64,
    v: f64,
    h: f64,
}

fn cubic(c: &[f64; 4], p: f64) -> f64 {
    c[0] + p * (c[1] + p * (c[2] + p * c[3]))
}
fn dcubic(c: &[f64; 4], p: f64) -> f64 {
    c[1] + p * (2.0 * c[2] + p * 3.0 * c[3])
}

impl Geometry {
    /// Builds a geometry and its evaluation tables.
    pub fn new(s: f64, x: f64, y: f64, hdg: f64, length: f64, kind: GeometryKind) -> Geometry {
        let mut g = Geometry {
            s,
            x,
            y,
            hdg,
            length,
            kind,
            table: Table::default(),
            p_end: 0.0,
            arc_total: length,
            sin_hdg: hdg.sin(),
            cos_hdg: hdg.cos(),
        };
        g.prepare();
        g
    }

    fn uv(&self) -> Option<([f64; 4], [f64; 4])> {
        match self.kind {
            GeometryKind::Poly3 { a, b, c, d } => Some(([0.0, 1.0, 0.0, 0.0], [a, b, c, d])),
            GeometryKind::ParamPoly3 { u, v, .. } => Some((u, v)),
            _ => None,
        }
    }

    fn speed(u: &[f64; 4], v: &[f64; 4], p: f64) -> f64 {
        dcubic(u, p).hypot(dcubic(v, p))
    }

    fn prepare(&mut self) {
        let len = self.length.max(0.0);
        match self.kind.clone() {
            GeometryKind::Spiral {
                curv_start,
                curv_end,
            } => {
                // Knot spacing keeps the heading change per quadrature interval ≤ 0.25 rad and the
                // interval ≤ 10 m, where the 10-point rule is accurate to far below 1e-9 m.
                let kmax = curv_start.abs().max(curv_end.abs());
                let n = ((kmax * len / 0.25).ceil().max((len / 10.0).ceil()).max(1.0) as usize)
                    .min(100_000);
                let mut knots = Vec::with_capacity(n + 1);
                let mut values = Vec::with_capacity(n + 1);
                let (mut px, mut py) = (0.0, 0.0);
                knots.push(0.0);
                values.push([0.0, 0.0]);
                for i in 1..=n {
                    let a = len * (i - 1) as f64 / n as f64;
                    let b = len * i as f64 / n as f64;
                    let d = gauss(a, b, |u| {
                        let th = self.spiral_theta(u);
                        [th.cos(), th.sin()]
                    });
                    px += d[0];
                    py += d[1];
                    knots.push(b);
                    values.push([px, py]);
                }
                self.table = Table { knots, values };
            }
            GeometryKind::Poly3 { .. } | GeometryKind::ParamPoly3 { .. } => {
                let Some((u, v)) = self.uv() else { return };
                // Parameter range covered by the table: for paramPoly3 it is given; for poly3
                // (u = p) the arc length is ≥ u, so [0, length] certainly contains the end.
                let p_hi = match self.kind {
                    GeometryKind::ParamPoly3 {
                        p_range: PRange::Normalized,
                        ..
                    } => 1.0,
                    _ => len,
                };
                let n = ((len / 1.0).ceil().max(8.0) as usize).min(200_000);
                let mut knots = Vec::with_capacity(n + 1);
                let mut values = Vec::with_capacity(n + 1);
                let mut acc = 0.0;
                knots.push(0.0);
                values.push([0.0, 0.0]);
                for i in 1..=n {
                    let a = p_hi * (i - 1) as f64 / n as f64;
                    let b = p_hi * i as f64 / n as f64;
                    acc += gauss(a, b, |p| [Self::speed(&u, &v, p), 0.0])[0];
                    knots.push(b);
                    values.push([acc, 0.0]);
                }
                self.table = Table { knots, values };
                match self.kind {
                    GeometryKind::Poly3 { .. } => {
                        // The curve ends where its arc length equals @length.
                        self.arc_total = len;
                        self.p_end = self.invert_arc(len);
                    }
                    _ => {
                        self.arc_total = acc;
                        self.p_end = p_hi;
                    }
                }
            }
            _ => {}
        }
    }

    fn spiral_theta(&self, u: f64) -> f64 {
        if let GeometryKind::Spiral {
            curv_start,
            curv_end,
        } = self.kind
        {
            let c = if self.length > 0.0 {
                (curv_end - curv_start) / self.length
            } else {
                0.0
            };
            curv_start * u + 0.5 * c * u * u
        } else {
            0.0
        }
    }

    /// Parameter p at which the cubic has accumulated arc length `sigma` (Newton on the table,
    /// with bisection as a guard where the speed vanishes).
    fn invert_arc(&self, sigma: f64) -> f64 {
        let Some((u, v)) = self.uv() else {
            return sigma;
        };
        let k = &self.table.knots;
        let a = &self.table.values;
        if k.len() < 2 {
            return 0.0;
        }
        let last = k.len() - 1;
        let total = a[last][0];
        // Non-finite totals come from absurd coefficients (overflow); clamp would panic on NaN.
        if !(total.is_finite() && total >= 0.0 && sigma.is_finite()) {
            return 0.0;
        }
        let sigma = sigma.clamp(0.0, total);
        let i = match a.binary_search_by(|x| x[0].total_cmp(&sigma)) {
            Ok(i) => return k[i],
            Err(0) => 0,
            Err(i) => (i - 1).min(last - 1),
        };
        let (mut lo, mut hi) = (k[i], k[i + 1]);
        let base = a[i][0];
        let f = |p: f64| base + gauss(k[i], p, |q| [Self::speed(&u, &v, q), 0.0])[0] - sigma;
        let span = a[i + 1][0] - base;
        let mut p = if span > 0.0 {
            lo + (hi - lo) * ((sigma - base) / span)
        } else {
            lo
        };
        for _ in 0..40 {
            let fp = f(p);
            if fp.abs() < 1e-13 {
                break;
            }
            if fp > 0.0 {
                hi = p;
            } else {
                lo = p;
            }
            let sp = Self::speed(&u, &v, p);
            let newton = if sp > 1e-12 { p - fp / sp } else { f64::NAN };
            // Newton inside the bracket, bisection otherwise (cusps, zero speed).
            let next = if newton > lo && newton < hi {
                newton
            } else {
                0.5 * (lo + hi)
            };
            if (next - p).abs() < 1e-15 {
                return next;
            }
            p = next;
        }
        p
    }

    fn eval_local(&self, ds: f64) -> Local {
        match self.kind {
            GeometryKind::Line => Local {
                u: ds,
                v: 0.0,
                h: 0.0,
            },
            GeometryKind::Arc { curvature } => {
                let h = curvature * ds;
                if curvature.abs() < 1e-12 {
                    // Series avoids 0/0 for vanishing curvature.
                    Local {
                        u: ds,
                        v: 0.5 * curvature * ds * ds,
                        h,
                    }
                } else {
                    Local {
                        u: h.sin() / curvature,
                        v: (1.0 - h.cos()) / curvature,
                        h,
                    }
                }
            }
            GeometryKind::Spiral { .. } => {
                let k = &self.table.knots;
                let i = match k.binary_search_by(|x| x.total_cmp(&ds)) {
                    Ok(i) => i,
                    Err(0) => 0,
                    Err(i) => i - 1,
                }
                .min(k.len().saturating_sub(1));
                let base = self.table.values.get(i).copied().unwrap_or([0.0, 0.0]);
                let k0 = k.get(i).copied().unwrap_or(0.0);
                let d = gauss(k0, ds, |u| {
                    let th = self.spiral_theta(u);
                    [th.cos(), th.sin()]
                });
                Local {
                    u: base[0] + d[0],
                    v: base[1] + d[1],
                    h: self.spiral_theta(ds),
                }
            }
            GeometryKind::Poly3 { .. } | GeometryKind::ParamPoly3 { .. } => {
                let Some((u, v)) = self.uv() else {
                    return Local {
                        u: ds,
                        v: 0.0,
                        h: 0.0,
                    };
                };
                let sigma = if self.length > 0.0 {
                    ds * self.arc_total / self.length
                } else {
                    0.0
                };
                let p = self.invert_arc(sigma);
                let (du, dv) = (dcubic(&u, p), dcubic(&v, p));
                let h = if du == 0.0 && dv == 0.0 {
                    0.0
                } else {
                    dv.atan2(du)
                };
                Local {
                    u: cubic(&u, p),
                    v: cubic(&v, p),
                    h,
                }
            }
        }
    }

    /// Position and heading at `s` (road coordinate); `s` is clamped to this geometry.
    pub fn eval(&self, s: f64) -> (f64, f64, f64) {
        let ds = (s - self.s).clamp(0.0, self.length.max(0.0));
        let l = self.eval_local(ds);
        let (sn, cs) = (self.sin_hdg, self.cos_hdg);
        (
            self.x + cs * l.u - sn * l.v,
            self.y + sn * l.u + cs * l.v,
            self.hdg + l.h,
        )
    }

    /// [`Geometry::eval`] plus sin and cos of the heading (free on a line, where the heading is
    /// the start heading).
    pub fn eval_sc(&self, s: f64) -> (f64, f64, f64, f64, f64) {
        let (x, y, h) = self.eval(s);
        if matches!(self.kind, GeometryKind::Line) {
            (x, y, h, self.sin_hdg, self.cos_hdg)
        } else {
            let (sn, cs) = h.sin_cos();
            (x, y, h, sn, cs)
        }
    }

    /// Curvature (1/m, positive = left) at road coordinate `s` where it has a closed form (line,
    /// arc, spiral); `None` for the cubics.
    pub fn curvature(&self, s: f64) -> Option<f64> {
        match self.kind {
            GeometryKind::Line => Some(0.0),
            GeometryKind::Arc { curvature } => Some(curvature),
            GeometryKind::Spiral {
                curv_start,
                curv_end,
            } => {
                let ds = (s - self.s).clamp(0.0, self.length.max(0.0));
                Some(if self.length > 0.0 {
                    curv_start + (curv_end - curv_start) * ds / self.length
                } else {
                    curv_start
                })
            }
            _ => None,
        }
    }

    /// The parameter value at the end of a cubic (for diagnostics).
    pub fn param_end(&self) -> f64 {
        self.p_end
    }
}
