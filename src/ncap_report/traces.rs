//! Time-series plots of the series report, from each run result's
//! `"traces"` block (`scil replay --traces`, service runs; see
//! [`crate::scenario::validity::trace`]): per run one SVG per quantity — VUT speed, lateral
//! deviation, filtered yaw rate, filtered steering-wheel rate, TTC per target, target speed,
//! target travel — with the tolerance band shaded over the interval it applies to and the
//! validity window's edges dashed. A run without traces gets a note instead of plots, and a
//! per-run CSV of the traces is offered beside the summary CSV.

use std::fmt::Write as _;

use plotters::prelude::*;
use serde_json::Value;

use super::{esc, num, RunInput};

/// The quantities plotted per run, in order (the `data-quantity` of each figure).
pub const QUANTITIES: [&str; 7] = [
    "vut_speed",
    "vut_lateral",
    "vut_yaw_rate",
    "vut_steering_rate",
    "ttc",
    "target_speed",
    "target_travel",
];

const VUT_COLOR: RGBColor = RGBColor(31, 90, 180);
const TARGET_COLORS: [RGBColor; 4] = [
    RGBColor(200, 100, 0),
    RGBColor(150, 40, 160),
    RGBColor(0, 140, 140),
    RGBColor(90, 90, 90),
];
const BAND_COLOR: RGBColor = RGBColor(60, 170, 60);
/// TTC axis cap (s): a TTC far from the trigger says nothing on the plot.
const TTC_CAP_S: f64 = 10.0;

fn series(v: &Value) -> Vec<Option<f64>> {
    v.as_array()
        .map(|a| a.iter().map(num).collect())
        .unwrap_or_default()
}

/// A band drawn shaded: (lo, hi, from, to).
type Shade = (f64, f64, Option<f64>, Option<f64>);

fn shade(b: &Value) -> Option<Shade> {
    Some((
        num(&b["lo"])?,
        num(&b["hi"])?,
        num(&b["from_s"]),
        num(&b["to_s"]),
    ))
}

struct Line {
    label: String,
    color: RGBColor,
    ys: Vec<Option<f64>>,
}

struct Plot<'a> {
    title: String,
    y_desc: &'a str,
    lines: Vec<Line>,
    bands: Vec<(Shade, RGBColor)>,
    /// Horizontal reference lines (value, colour).
    refs: Vec<(f64, RGBColor)>,
    y_cap: Option<f64>,
}

/// The time axis of a run's plots: instants relative to T0 (or to the first point).
struct Axis {
    t: Vec<f64>,
    origin: f64,
    window: Option<(f64, f64)>,
    desc: &'static str,
}

/// One plot over the run's kept instants; `None` without data.
fn draw(p: &Plot, axis: &Axis) -> Option<String> {
    let o = axis.origin;
    let t: Vec<f64> = axis.t.iter().map(|x| x - o).collect();
    let window = axis.window.map(|(a, b)| (a - o, b - o));
    let cap = p.y_cap.unwrap_or(f64::INFINITY);
    let ok = |y: &Option<f64>| y.filter(|v| v.is_finite() && *v <= cap);
    let (x0, x1) = (*t.first()?, *t.last()?);
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for l in &p.lines {
        for y in l.ys.iter().filter_map(ok) {
            lo = lo.min(y);
            hi = hi.max(y);
        }
    }
    if !lo.is_finite() {
        return None;
    }
    for ((a, b, _, _), _) in &p.bands {
        lo = lo.min(*a);
        hi = hi.max(*b);
    }
    for (r, _) in &p.refs {
        lo = lo.min(*r);
        hi = hi.max(*r);
    }
    let pad = ((hi - lo) * 0.1).max(1e-3);
    let (lo, hi) = (lo - pad, hi + pad);
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    let mut svg = String::new();
    let drawn: Result<(), String> = (|| {
        let root = SVGBackend::with_string(&mut svg, (560, 260)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&p.title, ("sans-serif", 15))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(x0..x1, lo..hi)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(axis.desc)
            .y_desc(p.y_desc)
            .draw()
            .map_err(|e| e.to_string())?;
        for ((a, b, from, to), c) in &p.bands {
            let f = from.map_or(x0, |v| v - o).max(x0);
            let e = to.map_or(x1, |v| v - o).min(x1);
            if e > f {
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(f, *a), (e, *b)],
                        c.mix(0.18).filled(),
                    )))
                    .map_err(|e| e.to_string())?;
            }
        }
        for (r, c) in &p.refs {
            chart
                .draw_series(DashedLineSeries::new(
                    [(x0, *r), (x1, *r)],
                    4,
                    3,
                    c.stroke_width(1),
                ))
                .map_err(|e| e.to_string())?;
        }
        if let Some((a, b)) = window {
            for x in [a, b] {
                chart
                    .draw_series(DashedLineSeries::new(
                        [(x, lo), (x, hi)],
                        6,
                        4,
                        BLACK.stroke_width(1),
                    ))
                    .map_err(|e| e.to_string())?;
            }
        }
        let legend = p.lines.len() > 1;
        for l in &p.lines {
            // Broken where a value is missing.
            let mut segs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
            for (x, y) in t.iter().zip(&l.ys) {
                match (ok(y), segs.last_mut()) {
                    (Some(y), Some(s)) => s.push((*x, y)),
                    _ => segs.push(Vec::new()),
                }
            }
            let c = l.color;
            for (k, seg) in segs.into_iter().filter(|s| !s.is_empty()).enumerate() {
                let a = chart
                    .draw_series(LineSeries::new(seg, c.stroke_width(2)))
                    .map_err(|e| e.to_string())?;
                if legend && k == 0 {
                    a.label(l.label.clone()).legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
                    });
                }
            }
        }
        if legend {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
        Ok(())
    })();
    drawn.ok().map(|_| svg)
}

/// The plots of one run's traces, as (quantity, svg).
fn plots(tr: &Value) -> Vec<(&'static str, String)> {
    let t: Vec<f64> = series(&tr["t_s"]).into_iter().flatten().collect();
    if t.len() != tr["t_s"].as_array().map_or(0, Vec::len) {
        return Vec::new(); // malformed instants: nothing trustworthy to draw
    }
    let window = num(&tr["window"]["from_s"]).zip(num(&tr["window"]["to_s"]));
    let axis = Axis {
        origin: window.map_or(t.first().copied().unwrap_or(0.0), |w| w.0),
        desc: if window.is_some() {
            "t − T0 [s]"
        } else {
            "t from the first sample [s]"
        },
        t,
        window,
    };
    let b = &tr["bands"];
    let vut = |key: &str, band: &str, title: &str, y: &'static str| Plot {
        title: title.into(),
        y_desc: y,
        lines: vec![Line {
            label: "VUT".into(),
            color: VUT_COLOR,
            ys: series(&tr[key]),
        }],
        bands: shade(&b[band])
            .map(|s| (s, BAND_COLOR))
            .into_iter()
            .collect(),
        refs: Vec::new(),
        y_cap: None,
    };
    let mut out = Vec::new();
    let mut push = |q: &'static str, p: Plot| {
        if let Some(svg) = draw(&p, &axis) {
            out.push((q, svg));
        }
    };
    let limit = |band: &str| {
        b[band]["limit"]
            .as_str()
            .map(|l| format!(" (band {l})"))
            .unwrap_or_default()
    };
    push(
        "vut_speed",
        vut(
            "vut_speed_kmh",
            "vut_speed_kmh",
            &format!("VUT speed{}", limit("vut_speed_kmh")),
            "km/h",
        ),
    );
    push(
        "vut_lateral",
        vut(
            "vut_lateral_m",
            "vut_lateral_m",
            "VUT lateral deviation from the intended path",
            "m",
        ),
    );
    push(
        "vut_yaw_rate",
        vut(
            "vut_yaw_rate_dps",
            "vut_yaw_rate_dps",
            "VUT yaw rate (10 Hz phaseless Butterworth)",
            "°/s",
        ),
    );
    push(
        "vut_steering_rate",
        vut(
            "vut_steering_rate_dps",
            "vut_steering_rate_dps",
            "Steering-wheel rate (10 Hz phaseless Butterworth)",
            "°/s",
        ),
    );
    let targets = tr["targets"].as_array().cloned().unwrap_or_default();
    let per_target = |key: &str| -> Vec<Line> {
        targets
            .iter()
            .enumerate()
            .map(|(i, g)| Line {
                label: g["id"].as_str().unwrap_or("target").to_string(),
                color: TARGET_COLORS[i % TARGET_COLORS.len()],
                ys: series(&g[key]),
            })
            .collect()
    };
    push(
        "ttc",
        Plot {
            title: "VUT TTC per target".into(),
            y_desc: "s",
            lines: per_target("ttc_s"),
            bands: Vec::new(),
            refs: num(&tr["t0_ttc_s"])
                .map(|t0| (t0, BLACK))
                .into_iter()
                .collect(),
            y_cap: Some(TTC_CAP_S),
        },
    );
    let speed_bands = targets
        .iter()
        .enumerate()
        .filter_map(|(i, g)| Some((shade(&g["speed_band"])?, TARGET_COLORS[i % 4])))
        .collect();
    push(
        "target_speed",
        Plot {
            title: "Target speed (band after its acceleration)".into(),
            y_desc: "km/h",
            lines: per_target("speed_kmh"),
            bands: speed_bands,
            refs: Vec::new(),
            y_cap: None,
        },
    );
    push(
        "target_travel",
        Plot {
            title: "Target travel (dashed: nominal travel to impact)".into(),
            y_desc: "m",
            lines: per_target("travel_m"),
            bands: Vec::new(),
            refs: targets
                .iter()
                .enumerate()
                .filter_map(|(i, g)| Some((num(&g["nominal_travel_m"])?, TARGET_COLORS[i % 4])))
                .collect(),
            y_cap: None,
        },
    );
    out
}

/// The "Time series" section: per run its plots, or a note when its result has no traces.
pub fn section(runs: &[RunInput]) -> String {
    let mut s = String::from(
        "<h2>Time series</h2><p>Shaded: tolerance band over the interval it applies to; \
dashed vertical lines: the validity window (T0 to its end); T0 − 1 s to the end + 0.5 s, \
at most 100 Hz.</p>",
    );
    for r in runs {
        let name = esc(&r.name);
        let _ = write!(s, "<h3>{name}</h3>");
        let tr = &r.result["traces"];
        if !tr.is_object() {
            let _ = write!(
                s,
                "<p class=\"na\">{name}: this result has no traces — run with --traces \
(<code>scil replay --traces --json</code>; service runs keep them).</p>"
            );
            continue;
        }
        let p = plots(tr);
        if p.is_empty() {
            let _ = write!(s, "<p class=\"na\">{name}: the traces hold no points.</p>");
            continue;
        }
        s.push_str("<div class=\"plots\">");
        for (q, svg) in p {
            let _ = write!(
                s,
                "<figure data-run=\"{name}\" data-quantity=\"{q}\">{svg}</figure>"
            );
        }
        s.push_str("</div>");
    }
    s
}

/// One run's traces as CSV (`None` without traces): t, the VUT columns, then per target its
/// TTC, speed and travel.
pub fn csv(result: &Value) -> Option<String> {
    let tr = result.get("traces").filter(|t| t.is_object())?;
    let t = series(&tr["t_s"]);
    let targets = tr["targets"].as_array().cloned().unwrap_or_default();
    let mut cols: Vec<(String, Vec<Option<f64>>)> = vec![
        ("vut_speed_kmh".into(), series(&tr["vut_speed_kmh"])),
        ("vut_lateral_m".into(), series(&tr["vut_lateral_m"])),
        ("vut_yaw_rate_dps".into(), series(&tr["vut_yaw_rate_dps"])),
        (
            "vut_steering_rate_dps".into(),
            series(&tr["vut_steering_rate_dps"]),
        ),
    ];
    for g in &targets {
        let id: String = g["id"]
            .as_str()
            .unwrap_or("target")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        for (k, unit) in [("ttc", "s"), ("speed", "kmh"), ("travel", "m")] {
            cols.push((
                format!("{id}_{k}_{unit}"),
                series(&g[format!("{k}_{unit}")]),
            ));
        }
    }
    let mut s = String::from("t_s");
    for (h, _) in &cols {
        let _ = write!(s, ",{h}");
    }
    s.push('\n');
    for (i, ti) in t.iter().enumerate() {
        s.push_str(&ti.map(|v| v.to_string()).unwrap_or_default());
        for (_, c) in &cols {
            s.push(',');
            if let Some(v) = c.get(i).copied().flatten() {
                let _ = write!(s, "{v}");
            }
        }
        s.push('\n');
    }
    Some(s)
}
