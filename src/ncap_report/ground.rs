//! The objects on the ground in the report: per run, each target's impact location from the
//! objects' MONR against the planned one (as driven, the relative drift of the two objects and
//! with that drift taken out), and per object its role, the states it went through, its MONR
//! count, largest lateral distance from its planned path, schedule lag and final pose against
//! the end of its path. Runs without objects add nothing.

use std::fmt::Write as _;

use serde_json::Value;

use super::{f, num, RunInput};
use crate::sweep::report::esc;

/// The CSV columns of the ground block (appended to each run's row).
pub const CSV_HEADER: &str = ",ground_target,ground_planned_location,ground_monr_location,ground_location_error,ground_relative_drift_s,ground_corrected_location,ground_corrected_error,ground_objects";

/// Each object's states in order, without repeats: `DISARMED>ARMED>RUNNING`.
fn states(o: &Value) -> String {
    let mut out: Vec<&str> = Vec::new();
    for s in o["states_seen"].as_array().into_iter().flatten() {
        if let Some(st) = s["state"].as_str() {
            if out.last() != Some(&st) {
                out.push(st);
            }
        }
    }
    out.join(">")
}

fn role(o: &Value) -> String {
    match o["drives"].as_str() {
        Some("vut") => "VUT robot".into(),
        Some(t) => format!("target {t}"),
        None => String::new(),
    }
}

/// The ground columns of one run's CSV row (empty cells for a run without objects).
pub fn csv_cells(result: &Value) -> String {
    let g = &result["ground"];
    if !g.is_object() {
        return ",".repeat(CSV_HEADER.matches(',').count());
    }
    let i = &g["impacts"][0];
    let objects = g["objects"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|o| {
            format!(
                "{} ({}): states {}, MONR {}, max lateral {} m, max schedule lag {} s",
                o["name"].as_str().unwrap_or("?"),
                role(o),
                states(o),
                o["monr_count"].as_u64().unwrap_or(0),
                f(num(&o["max_lateral_m"]), 3),
                f(num(&o["max_schedule_lag_s"]), 3)
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    format!(
        ",{},{},{},{},{},{},{},\"{}\"",
        i["target"].as_str().unwrap_or(""),
        f(num(&i["planned_location"]), 3),
        f(num(&i["monr"]["location"]), 3),
        f(num(&i["error"]), 3),
        f(num(&i["relative_drift_s"]), 4),
        f(num(&i["corrected"]["location"]), 3),
        f(num(&i["corrected_error"]), 3),
        objects.replace('"', "\"\"")
    )
}

/// The report's section on the objects (empty when no run had objects).
pub fn section(runs: &[RunInput]) -> String {
    let with: Vec<&RunInput> = runs
        .iter()
        .filter(|r| r.result["ground"].is_object())
        .collect();
    if with.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "<h2>Objects on the ground</h2><p>Impact location (Euro NCAP, 0 = the VUT's left edge, 1 = its right edge) \
from the objects' MONR against the planned one; relative drift: how much further the target's object fell behind its own \
schedule than the VUT's robot between the target's start and the impact (part of what the objects did, never taken out); \
corrected: the impact with a clock offset between the two objects, measured before the start, taken out.</p>\
<table><tr><th>run</th><th>target</th><th>planned location</th><th>MONR location</th><th>error</th><th>relative drift [ms]</th><th>corrected location</th><th>corrected error</th></tr>",
    );
    for r in &with {
        for i in r.result["ground"]["impacts"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let _ = write!(
                s,
                "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&r.name),
                esc(i["target"].as_str().unwrap_or("?")),
                f(num(&i["planned_location"]), 3),
                f(num(&i["monr"]["location"]), 3),
                f(num(&i["error"]), 3),
                f(num(&i["relative_drift_s"]).map(|d| d * 1000.0), 1),
                f(num(&i["corrected"]["location"]), 3),
                f(num(&i["corrected_error"]), 3)
            );
        }
    }
    s.push_str("</table><table><tr><th>run</th><th>object</th><th>role</th><th>states</th><th>MONR</th><th>max lateral [m]</th><th>max schedule lag [s]</th><th>end of path: distance [m]</th><th>heading [°]</th></tr>");
    for r in &with {
        for o in r.result["ground"]["objects"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let _ = write!(
                s,
                "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&r.name),
                esc(o["name"].as_str().unwrap_or("?")),
                esc(&role(o)),
                esc(&states(o).replace('>', " → ")),
                o["monr_count"].as_u64().unwrap_or(0),
                f(num(&o["max_lateral_m"]), 3),
                f(num(&o["max_schedule_lag_s"]), 3),
                f(num(&o["end_distance_m"]), 2),
                f(num(&o["end_heading_deg"]), 1)
            );
        }
    }
    s.push_str("</table>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ground_run() -> RunInput {
        RunInput {
            name: "run-1".into(),
            result: json!({"ground": {
                "objects": [{"name": "robot", "drives": "vut", "monr_count": 812,
                    "max_lateral_m": 0.0123, "max_schedule_lag_s": 0.041,
                    "end_distance_m": 0.01, "end_heading_deg": 0.2,
                    "states_seen": [{"t_s": 1.0, "state": "DISARMED"}, {"t_s": 2.0, "state": "ARMED"},
                                    {"t_s": 3.0, "state": "RUNNING"}, {"t_s": 3.5, "state": "RUNNING"}]}],
                "impacts": [{"target": "gvt", "planned_location": 0.5, "monr": {"location": 0.531},
                    "error": 0.031, "relative_drift_s": 0.0042, "corrected": {"location": 0.512},
                    "corrected_error": 0.012}]}}),
        }
    }

    #[test]
    fn a_ground_run_shows_its_impact_and_objects() {
        let runs = [ground_run()];
        let html = section(&runs);
        assert!(
            html.contains("<td>0.500</td><td>0.531</td><td>0.031</td><td>4.2</td>"),
            "{html}"
        );
        assert!(html.contains("DISARMED → ARMED → RUNNING"), "{html}");
        assert!(html.contains("VUT robot"), "{html}");
        let cells = csv_cells(&runs[0].result);
        assert!(cells.starts_with(",gvt,0.500,0.531,0.031,0.0042,0.512,0.012,\"robot (VUT robot): states DISARMED>ARMED>RUNNING, MONR 812"), "{cells}");
        assert_eq!(
            cells.matches(',').count(),
            CSV_HEADER.matches(',').count() + 3,
            "{cells}"
        );
    }

    #[test]
    fn a_run_without_objects_adds_empty_cells_and_no_section() {
        let r = RunInput {
            name: "r".into(),
            result: json!({"triggers": []}),
        };
        assert_eq!(section(std::slice::from_ref(&r)), "");
        assert_eq!(
            csv_cells(&r.result).matches(',').count(),
            CSV_HEADER.matches(',').count()
        );
    }
}
