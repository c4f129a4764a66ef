//! `report.html`: self-contained (inline SVG from `plotters`' SVG backend, inline CSS, no
//! script, no network): box plots of fire error and travel error per grid cell, each metric
//! against each varied key, the per-cell summary and the Table 2 of Toth & Szalay (2023)
//! per VUT speed (source) and trigger method.

use std::fmt::Write as _;

use plotters::prelude::*;
use serde::Serialize;

use super::grid::Grid;
use super::results::{summary, Row, Summary};
use super::Outcome;

/// One plot of the report (the dashboard's Analysis page shows the same SVGs).
#[derive(Debug, Clone, Serialize)]
pub struct Plot {
    pub id: String,
    pub title: String,
    pub svg: String,
}

/// Metrics plotted against each varied key: (column, axis label).
const KEY_METRICS: [(&str, &str); 4] = [
    ("fire_error_ms", "fire error [ms]"),
    ("travel_error_m", "dummy travel error [m]"),
    ("ttc_s", "TTC at trigger [s]"),
    ("d_long_m", "d_long at trigger [m]"),
];

/// HTML-escapes `s`.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A box plot of `groups` (label, values); `None` when no group has a value.
pub fn box_plot(title: &str, y_desc: &str, groups: &[(String, Vec<f64>)]) -> Option<String> {
    let all: Vec<f64> = groups
        .iter()
        .flat_map(|g| g.1.iter().copied())
        .filter(|v| v.is_finite())
        .collect();
    if all.is_empty() {
        return None;
    }
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let pad = ((hi - lo) * 0.08).max(1e-6 * (1.0 + hi.abs()));
    let (lo, hi) = ((lo - pad) as f32, (hi + pad) as f32);
    let n = groups.len();
    let w = (140 + 90 * n as u32).clamp(480, 1600);
    let mut svg = String::new();
    let drawn: Result<(), String> = (|| {
        let root = SVGBackend::with_string(&mut svg, (w, 340)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(46)
            .y_label_area_size(64)
            .build_cartesian_2d((0..n).into_segmented(), lo..hi)
            .map_err(|e| e.to_string())?;
        let label = |v: &SegmentValue<usize>| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => {
                groups.get(*i).map(|g| g.0.clone()).unwrap_or_default()
            }
            SegmentValue::Last => String::new(),
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .x_label_formatter(&label)
            .y_desc(y_desc)
            .draw()
            .map_err(|e| e.to_string())?;
        let boxes: Vec<_> = groups
            .iter()
            .enumerate()
            .filter_map(|(i, (_, v))| {
                let v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
                (!v.is_empty()).then(|| {
                    Boxplot::new_vertical(SegmentValue::CenterOf(i), &Quartiles::new(&v))
                        .width(24)
                        .style(BLUE)
                })
            })
            .collect();
        chart.draw_series(boxes).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
        Ok(())
    })();
    drawn.ok().map(|_| svg)
}

/// A short label of a cell for a plot axis: its values, or `cN` when that is long.
fn cell_tick(row: &Row) -> String {
    let v: Vec<String> = row.values.iter().map(|(_, v)| v.to_string()).collect();
    let s = v.join("/");
    // A tick gets about 90 px: longer labels would overlap; the per-cell table maps cN.
    if s.is_empty() || s.chars().count() > 14 {
        format!("c{}", row.cell)
    } else {
        s
    }
}

/// Rows grouped by cell, in cell order: (tick label, full label, rows).
fn by_cell<'a>(grid: &Grid, rows: &'a [Row]) -> Vec<(String, String, Vec<&'a Row>)> {
    let mut out: Vec<(String, String, Vec<&Row>)> = Vec::new();
    for c in 0..grid.cells() {
        let rs: Vec<&Row> = rows.iter().filter(|r| r.cell == c).collect();
        if let Some(first) = rs.first() {
            out.push((cell_tick(first), grid.cell(c).label(), rs));
        }
    }
    out
}

/// Every plot of the report for these rows.
pub fn plots(grid: &Grid, rows: &[Row]) -> Vec<Plot> {
    let mut out = Vec::new();
    let cells = by_cell(grid, rows);
    for (metric, desc, what) in [
        (
            "fire_error_ms",
            "fire error [ms]",
            "Fire error per grid cell",
        ),
        (
            "travel_error_m",
            "dummy travel error [m]",
            "Travel error per grid cell",
        ),
    ] {
        let groups: Vec<(String, Vec<f64>)> = cells
            .iter()
            .map(|(tick, _, rs)| {
                (
                    tick.clone(),
                    rs.iter().filter_map(|r| r.metric(metric)).collect(),
                )
            })
            .collect();
        if let Some(svg) = box_plot(what, desc, &groups) {
            out.push(Plot {
                id: format!("cell-{metric}"),
                title: what.into(),
                svg,
            });
        }
    }
    for axis in &grid.axes {
        if axis.values.len() < 2 {
            continue;
        }
        for (metric, desc) in KEY_METRICS {
            let groups: Vec<(String, Vec<f64>)> = axis
                .values
                .iter()
                .map(|v| {
                    let xs = rows
                        .iter()
                        .filter(|r| r.value(axis.key) == Some(v))
                        .filter_map(|r| r.metric(metric))
                        .collect();
                    (v.to_string(), xs)
                })
                .collect();
            let title = format!("{desc} vs {}", axis.key);
            if let Some(svg) = box_plot(&title, desc, &groups) {
                out.push(Plot {
                    id: format!("key-{}-{metric}", axis.key),
                    title,
                    svg,
                });
            }
        }
    }
    out
}

/// One row of the Table 2 comparison: medians per source (VUT speed) and method.
#[derive(Debug, Clone, Serialize)]
pub struct Table2Row {
    /// The source: replay label or simulated VUT speed.
    pub source: String,
    pub method: String,
    pub runs: usize,
    pub vut_speed_kmh: Option<f64>,
    pub ttc_s: Option<f64>,
    pub d_long_m: Option<f64>,
    /// Dummy travel when the VUT reaches the dummy's path (TTC ≈ 0).
    pub dummy_travel_m: Option<f64>,
    pub travel_error_m: Option<f64>,
    pub fire_error_ms: Option<Summary>,
}

/// Table 2 quantities (medians) per source and method, in the sources' order.
pub fn table2(grid: &Grid, rows: &[Row]) -> Vec<Table2Row> {
    let source_key = grid.keys().into_iter().find(|k| k.is_source());
    let sources: Vec<String> = match source_key.and_then(|k| grid.axis(k)) {
        Some(a) => a.values.iter().map(|v| v.to_string()).collect(),
        None => vec![String::new()],
    };
    let mut out = Vec::new();
    for s in &sources {
        for m in ["predicted", "at_sample"] {
            let rs: Vec<&Row> = rows
                .iter()
                .filter(|r| r.method == m)
                .filter(|r| match source_key {
                    Some(k) => r.value(k).map(|v| v.to_string()).as_deref() == Some(s),
                    None => true,
                })
                .collect();
            if rs.is_empty() {
                continue;
            }
            let med = |c: &str| summary(rs.iter().filter_map(|r| r.metric(c))).map(|s| s.median);
            out.push(Table2Row {
                source: s.clone(),
                method: m.into(),
                runs: rs.len(),
                vut_speed_kmh: med("vut_speed_kmh"),
                ttc_s: med("ttc_s"),
                d_long_m: med("d_long_m"),
                dummy_travel_m: med("dummy_travel_m"),
                travel_error_m: med("travel_error_m"),
                fire_error_ms: summary(rs.iter().filter_map(|r| r.fire_error_ms)),
            });
        }
    }
    out
}

fn f(v: Option<f64>, d: usize) -> String {
    v.map_or("—".into(), |x| format!("{x:.d$}"))
}

fn iqr(s: Option<Summary>, d: usize) -> String {
    s.map_or("—".into(), |s| {
        format!("{:.d$} [{:.d$}, {:.d$}]", s.median, s.q1, s.q3)
    })
}

/// The whole report.
pub fn html(grid: &Grid, scenario_name: &str, out: &Outcome) -> String {
    let rows = &out.rows;
    let failed = rows.iter().filter(|r| r.error.is_some()).count();
    let mut h = String::with_capacity(64 * 1024);
    let _ = write!(
        h,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>scil sweep — {}</title>\n\
<style>body{{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}}table{{border-collapse:collapse;margin:8px 0 20px}}\
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}}th{{background:#f3f3f3}}td.l,th.l{{text-align:left}}\
.plots{{display:flex;flex-wrap:wrap;gap:12px}}figure{{margin:0}}.warn{{color:#a00}}</style></head><body>\n",
        esc(scenario_name)
    );
    let _ = write!(
        h,
        "<h1>Sweep: {}</h1>\n<p>{} of {} runs ({} cells × {} seeds from {}), {} failed, {} jobs, {:.1} s ({:.1} runs/s).</p>\n",
        esc(scenario_name),
        rows.len(),
        out.total,
        grid.cells(),
        grid.repeat,
        grid.seed,
        failed,
        out.jobs,
        out.elapsed_s,
        out.runs_per_s()
    );
    if out.cancelled {
        h.push_str(
            "<p class=\"warn\"><b>Interrupted:</b> the report covers the runs that finished.</p>\n",
        );
    }
    h.push_str("<p>Varied: ");
    for a in &grid.axes {
        let vs: Vec<String> = a.values.iter().map(|v| v.to_string()).collect();
        let _ = write!(
            h,
            "<code>{}={}</code> ",
            esc(a.key.name()),
            esc(&vs.join(","))
        );
    }
    h.push_str("</p>\n<h2>Table 2 quantities per VUT speed (medians)</h2>\n<table id=\"table2\"><tr><th class=\"l\">source</th><th class=\"l\">method</th><th>runs</th><th>VUT speed [km/h]</th><th>TTC at trigger [s]</th><th>d_long at trigger [m]</th><th>dummy travel at TTC≈0 [m]</th><th>travel error [m]</th><th>fire error [ms] median [q1, q3]</th></tr>\n");
    for t in table2(grid, rows) {
        let _ = writeln!(
            h,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&t.source),
            esc(&t.method),
            t.runs,
            f(t.vut_speed_kmh, 2),
            f(t.ttc_s, 4),
            f(t.d_long_m, 3),
            f(t.dummy_travel_m, 4),
            f(t.travel_error_m, 4),
            iqr(t.fire_error_ms, 2)
        );
    }
    h.push_str("</table>\n<h2>Per grid cell</h2>\n<table id=\"cells\"><tr><th>cell</th><th class=\"l\">settings</th><th>runs</th><th>failed</th><th>fire error [ms] median [q1, q3]</th><th>travel error [m] median [q1, q3]</th></tr>\n");
    for (tick, label, rs) in by_cell(grid, rows) {
        let fe = summary(rs.iter().filter_map(|r| r.fire_error_ms));
        let te = summary(rs.iter().filter_map(|r| r.travel_error_m));
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&tick),
            esc(&label),
            rs.len(),
            rs.iter().filter(|r| r.error.is_some()).count(),
            iqr(fe, 2),
            iqr(te, 4)
        );
    }
    h.push_str("</table>\n<h2>Plots</h2>\n<div class=\"plots\">\n");
    for p in plots(grid, rows) {
        let _ = writeln!(h, "<figure id=\"{}\">{}</figure>", esc(&p.id), p.svg);
    }
    h.push_str("</div>\n<p>Rows: <code>results.csv</code> and <code>results.parquet</code> beside this file.</p>\n</body></html>\n");
    h
}
