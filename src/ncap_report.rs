//! The Euro NCAP test-series report: `scil report RUN.json…` and
//! `GET /api/v1/reports?runs=…`. Input is each run's result JSON (`scil replay --json`, the
//! service's `/results`: one type); output a self-contained HTML page (inline CSS, inline SVG
//! from `plotters`, no script, no network) and a CSV with one row per run.
//!
//! Per run: the verdict per validity channel, the Table 2 quantities of Toth & Szalay (2023)
//! (TTC, d_long and VUT speed at the trigger, the start command's error, dummy travel at
//! TTC ≈ 0 against nominal), impact speed and speed reduction. Plots: each channel's worst
//! deviation per run inside its tolerance band, and the dummy travel error per run; per run,
//! the time series of its `"traces"` block ([`traces`]; `scil replay --traces`, service runs).

use std::fmt::Write as _;

use plotters::prelude::*;
use serde_json::Value;

use crate::sweep::report::esc;

pub mod ground;
pub mod traces;

const CHANNELS: [&str; 6] = [
    "vut_speed",
    "vut_lateral",
    "vut_yaw_rate",
    "vut_steering_rate",
    "target_speed",
    "target_lateral",
];

/// One run of the series.
pub struct RunInput {
    pub name: String,
    pub result: Value,
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64().filter(|x| x.is_finite())
}

fn f(v: Option<f64>, d: usize) -> String {
    v.map(|x| format!("{x:.d$}")).unwrap_or_default()
}

/// The tolerance band of a check, from its channel and limit text.
fn band(channel: &str, limit: &str) -> Option<(f64, f64)> {
    if channel == "vut_speed" {
        return Some((0.0, 1.0));
    }
    let rest = limit.split('±').nth(1)?;
    let v: f64 = rest.split_whitespace().next()?.parse().ok()?;
    Some((-v, v))
}

/// One validity check of a run: name, pass, value, unit, limit.
type CheckCell = (String, Option<bool>, Option<f64>, String, Option<f64>);

/// The per-run row of the CSV and the table.
struct Row {
    name: String,
    valid: Option<bool>,
    checks: Vec<CheckCell>,
    ttc: Option<f64>,
    d_long: Option<f64>,
    vut_kmh: Option<f64>,
    fire_ms: Option<f64>,
    travel: Option<f64>,
    nominal: Option<f64>,
    impact_kmh: Option<f64>,
    reduction_kmh: Option<f64>,
    aborted: Option<String>,
    /// The validity window, what closed it and the T0 rule when not plain TTC.
    window: Option<(f64, f64)>,
    closed_by: String,
    t0_rule: String,
    /// Why there is no verdict (empty when there is one).
    no_verdict_why: String,
    /// Why impact speed and speed reduction are empty (empty when they are given).
    no_impact_speed_why: String,
}

fn row(r: &RunInput) -> Row {
    let v = &r.result;
    let t = &v["triggers"][0];
    let i = &v["impacts"][0];
    let val = &v["validity"];
    let checks = val["checks"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| {
                    (
                        c["channel"].as_str().unwrap_or("?").to_string(),
                        c["ok"].as_bool(),
                        num(&c["worst"]),
                        c["limit"].as_str().unwrap_or("").to_string(),
                        num(&c["first_violation_s"]),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    Row {
        name: r.name.clone(),
        valid: val["valid"].as_bool(),
        checks,
        ttc: num(&t["ttc_s"]),
        d_long: num(&t["d_long_m"]),
        vut_kmh: num(&t["vut_speed_kmh"]),
        fire_ms: num(&t["fire_error_ms"]),
        travel: num(&i["dummy_travel_m"]),
        nominal: num(&i["nominal_travel_m"]),
        impact_kmh: num(&i["impact_speed_kmh"]),
        reduction_kmh: num(&i["speed_reduction_kmh"]),
        // The abort in words where the result says it, else its reason as stored.
        aborted: v["abort"]["text"]
            .as_str()
            .or(v["aborted"].as_str())
            .map(str::to_string),
        window: num(&val["window"]["from_s"]).zip(num(&val["window"]["to_s"])),
        closed_by: val["closed_by"].as_str().unwrap_or("").to_string(),
        t0_rule: val["t0_rule"]
            .as_str()
            .unwrap_or(if val["window"].is_object() { "ttc" } else { "" })
            .to_string(),
        no_verdict_why: no_verdict_why(v),
        no_impact_speed_why: if !i.is_object() {
            "no impact".into()
        } else if num(&i["impact_speed_kmh"]).is_none() {
            "the scenario names no test speed (vut.speed_kmh)".into()
        } else {
            String::new()
        },
    }
}

/// Why a run's result carries no verdict: the scenario judges none, or the run ended first.
fn no_verdict_why(v: &Value) -> String {
    let val = &v["validity"];
    if val["valid"].is_boolean() {
        String::new()
    } else if val.is_null() {
        "the scenario has no [validity] section: nothing is judged".into()
    } else if val["window"].is_null() {
        "the validity window never opened (the VUT did not reach T0)".into()
    } else {
        "the run ended before its validity window closed".into()
    }
}

/// A table cell: the value, else why there is none (greyed).
fn or_why(value: String, why: &str) -> String {
    if value.is_empty() && !why.is_empty() {
        format!("<span class=\"na\">{}</span>", esc(why))
    } else {
        value
    }
}

/// CSV: one row per run.
pub fn csv(runs: &[RunInput]) -> String {
    let mut s = String::from("run,valid,first_broken,ttc_s,d_long_m,vut_speed_kmh,fire_error_ms,dummy_travel_m,nominal_travel_m,travel_error_m,impact_speed_kmh,speed_reduction_kmh");
    for c in CHANNELS {
        let _ = write!(s, ",{c}_ok,{c}_worst,{c}_first_violation_s");
    }
    s.push_str(",window_from_s,window_to_s,closed_by,t0_rule");
    s.push_str(ground::CSV_HEADER);
    s.push('\n');
    for (input, r) in runs.iter().zip(runs.iter().map(row)) {
        let first = r
            .checks
            .iter()
            .filter_map(|c| c.4.map(|t| (t, c.0.clone())))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|x| x.1)
            .unwrap_or_default();
        let q = |x: &str| format!("\"{}\"", x.replace('"', "\"\""));
        let _ = write!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{}",
            q(&r.name),
            r.valid.map(|b| b.to_string()).unwrap_or_default(),
            first,
            f(r.ttc, 5),
            f(r.d_long, 4),
            f(r.vut_kmh, 3),
            f(r.fire_ms, 3),
            f(r.travel, 4),
            f(r.nominal, 5),
            f(r.travel.zip(r.nominal).map(|(a, b)| a - b), 4),
            or_why(f(r.impact_kmh, 2), &r.no_impact_speed_why),
            or_why(f(r.reduction_kmh, 2), &r.no_impact_speed_why)
        );
        for c in CHANNELS {
            match r.checks.iter().find(|k| k.0 == c) {
                Some(k) => {
                    let _ = write!(
                        s,
                        ",{},{},{}",
                        k.1.map(|b| b.to_string()).unwrap_or_default(),
                        f(k.2, 4),
                        f(k.4, 3)
                    );
                }
                None => s.push_str(",,,"),
            }
        }
        let (from, to) = r.window.unzip();
        let _ = writeln!(
            s,
            ",{},{},{},{}{}",
            f(from, 3),
            f(to, 3),
            r.closed_by,
            r.t0_rule,
            ground::csv_cells(&input.result)
        );
    }
    s
}

/// Points (run index, value) inside a band drawn as lines; `None` without points. A `judged`
/// band is the check's tolerance (red, points outside it red); otherwise a grey reference and
/// every point blue.
fn band_plot(
    title: &str,
    y_desc: &str,
    names: &[String],
    pts: &[(usize, f64)],
    band: Option<(f64, f64)>,
    judged: bool,
) -> Option<String> {
    if pts.is_empty() {
        return None;
    }
    let mut lo = pts.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let mut hi = pts.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    if let Some((a, b)) = band {
        lo = lo.min(a);
        hi = hi.max(b);
    }
    let pad = ((hi - lo) * 0.12).max(1e-6);
    let (lo, hi) = (lo - pad, hi + pad);
    let n = names.len().max(1);
    let w = (160 + 80 * n as u32).clamp(420, 1400);
    let mut svg = String::new();
    let drawn: Result<(), String> = (|| {
        let root = SVGBackend::with_string(&mut svg, (w, 280)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 15))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), lo..hi)
            .map_err(|e| e.to_string())?;
        let label = |x: &f64| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .x_label_formatter(&label)
            .y_desc(y_desc)
            .draw()
            .map_err(|e| e.to_string())?;
        if let Some((a, b)) = band {
            for y in [a, b] {
                chart
                    .draw_series(LineSeries::new(
                        [(-0.5, y), (n as f64 - 0.5, y)],
                        if judged { RED } else { RGBColor(150, 150, 150) }.stroke_width(1),
                    ))
                    .map_err(|e| e.to_string())?;
            }
        }
        chart
            .draw_series(pts.iter().map(|(i, v)| {
                let inside = !judged || band.is_none_or(|(a, b)| *v >= a && *v <= b);
                Circle::new(
                    (*i as f64, *v),
                    5,
                    if inside { BLUE.filled() } else { RED.filled() },
                )
            }))
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
        Ok(())
    })();
    drawn.ok().map(|_| svg)
}

/// The self-contained HTML report.
pub fn html(title: &str, runs: &[RunInput]) -> String {
    let rows: Vec<Row> = runs.iter().map(row).collect();
    let names: Vec<String> = rows.iter().map(|r| r.name.clone()).collect();
    let mut s = String::new();
    let _ = write!(
        s,
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{t}</title><style>\
body{{font-family:sans-serif;margin:24px;color:#222}}table{{border-collapse:collapse;margin:12px 0}}\
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right;font-size:13px}}th{{background:#f3f3f3}}\
td.l{{text-align:left}}.ok{{color:#0a0}}.bad{{color:#c00;font-weight:bold}}.na{{color:#999}}\
.plots svg{{margin:6px;border:1px solid #eee}}.plots figure{{display:inline-block;margin:0}}</style></head><body><h1>{t}</h1>\
<p>{n} run(s). Validity per Euro NCAP Crash Avoidance – Frontal Collisions v1.1 §1.5/§4.3.2: window from T0 to the first of impact, AEB onset or FCW; \
yaw and steering-wheel rates 12-pole phaseless Butterworth at 10 Hz; position and speed raw.</p>",
        t = esc(title),
        n = rows.len()
    );
    s.push_str("<h2>Verdicts</h2><table><tr><th>run</th><th>verdict</th>");
    for c in CHANNELS {
        let _ = write!(s, "<th>{c}</th>");
    }
    s.push_str("</tr>");
    for r in &rows {
        let verdict = match (r.valid, &r.aborted) {
            (Some(true), _) => "<span class=\"ok\">VALID</span>".to_string(),
            (Some(false), _) => "<span class=\"bad\">INVALID</span>".to_string(),
            (None, Some(a)) => format!("<span class=\"bad\">aborted: {}</span>", esc(a)),
            (None, None) => format!(
                "<span class=\"na\">no verdict</span><br><small>{}</small>",
                esc(&r.no_verdict_why)
            ),
        };
        let verdict = match r.window {
            Some((a, b)) => format!(
                "{verdict}<br><small>window {a:.2}–{b:.2} s, T0 rule {}{}</small>",
                esc(&r.t0_rule),
                if r.closed_by.is_empty() {
                    String::new()
                } else {
                    format!(", closed by {}", esc(&r.closed_by))
                }
            ),
            None => verdict,
        };
        let _ = write!(
            s,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{verdict}</td>",
            esc(&r.name)
        );
        for c in CHANNELS {
            match r.checks.iter().find(|k| k.0 == c) {
                Some(k) => {
                    let cls = if k.1 == Some(true) { "ok" } else { "bad" };
                    let _ = write!(
                        s,
                        "<td title=\"limit {}\"><span class=\"{cls}\">{}</span> worst {}{}</td>",
                        esc(&k.3),
                        if k.1 == Some(true) { "ok" } else { "FAIL" },
                        f(k.2, 3),
                        k.4.map(|t| format!("<br>first {t:.3} s"))
                            .unwrap_or_default()
                    );
                }
                None => s.push_str("<td class=\"na\">–</td>"),
            }
        }
        s.push_str("</tr>");
    }
    s.push_str("</table><h2>Table 2 (Toth &amp; Szalay 2023) and impact</h2><table><tr><th>run</th><th>TTC at trigger [s]</th><th>d_long at trigger [m]</th><th>VUT at trigger [km/h]</th><th>start command error [ms]</th><th>dummy travel at TTC≈0 [m]</th><th>nominal [m]</th><th>travel error [mm]</th><th>impact speed [km/h]</th><th>speed reduction [km/h]</th></tr>");
    for r in &rows {
        let _ = write!(
            s,
            "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&r.name),
            f(r.ttc, 4),
            f(r.d_long, 3),
            f(r.vut_kmh, 2),
            f(r.fire_ms, 2),
            f(r.travel, 4),
            f(r.nominal, 5),
            f(r.travel.zip(r.nominal).map(|(a, b)| (a - b) * 1000.0), 1),
            or_why(f(r.impact_kmh, 2), &r.no_impact_speed_why),
            or_why(f(r.reduction_kmh, 2), &r.no_impact_speed_why)
        );
    }
    s.push_str("</table><h2>Worst deviation per channel, tolerance band</h2><div class=\"plots\">");
    for c in CHANNELS {
        let mut pts = Vec::new();
        let mut b = None;
        for (i, r) in rows.iter().enumerate() {
            if let Some(k) = r.checks.iter().find(|k| k.0 == c) {
                if let Some(w) = k.2 {
                    pts.push((i, w));
                }
                b = b.or_else(|| band(c, &k.3));
            }
        }
        if let Some(svg) = band_plot(c, "worst deviation", &names, &pts, b, true) {
            s.push_str(&svg);
        }
    }
    let travel: Vec<(usize, f64)> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| Some((i, (r.travel? - r.nominal?) * 1000.0)))
        .collect();
    // ±20 mm is the seed paper's reference for the trigger's accuracy, not a protocol
    // check: drawn for scale, nothing outside it is marked as a failure.
    if let Some(svg) = band_plot(
        "dummy travel error at impact (±20 mm reference, not judged)",
        "mm",
        &names,
        &travel,
        Some((-20.0, 20.0)),
        false,
    ) {
        s.push_str(&svg);
    }
    s.push_str("</div>");
    s.push_str(&ground::section(runs));
    s.push_str(&traces::section(runs));
    s.push_str("</body></html>\n");
    s
}
