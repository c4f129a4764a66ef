//! Scripts driving Euro NCAP's rating tool (`euroncap-rating-2026`, Python) through
//! [`super::python::run`]: make a preprocessed workbook, score a filled one; and the
//! quantity a point asks for, computed from a run's result on its own (not with scil's code).

use serde_json::Value;

/// generate-template, fill every grey cell (first colour / VTA / YES, FCW where a row offers
/// it), preprocess; prints {"workbook", "points"} with the points counted by openpyxl.
pub const PREPARE: &str = r#"
import json, os, subprocess, sys
import openpyxl
from openpyxl.utils.cell import range_boundaries
d = sys.argv[1]
def tool(*a):
    r = subprocess.run([sys.executable, "-m", "euroncap_rating_2026", "crash_avoidance", *a],
                       cwd=d, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{a[0]} failed: {r.stdout}\n{r.stderr}")
tool("generate-template")
path = os.path.join(d, "ca_template.xlsx")
wb = openpyxl.load_workbook(path)
for ws in wb.worksheets:
    for dv in ws.data_validations.dataValidation:
        if dv.type != "list" or not dv.formula1:
            continue
        opts = [o.strip() for o in dv.formula1.strip('"').split(",")]
        if ws.title.endswith("pred.") and "Green" in opts and "N/A" not in opts:
            continue  # the legend above a grid
        if ws.title == "Input parameters":
            choice = "VTA" if "VTA" in opts else ("Retention" if "Retention" in opts else
                     next(o for o in opts if o and o != "N/A"))
        elif "robust" in ws.title:
            choice = "YES"
        elif sorted(opts) == ["AEB", "FCW"]:
            choice = "FCW"
        else:
            choice = next(o for o in opts if o and o not in ("N/A", "NO", "No"))
        for rng in str(dv.sqref).split():
            c1, r1, c2, r2 = range_boundaries(rng)
            for r in range(r1, r2 + 1):
                for c in range(c1, c2 + 1):
                    if ws.cell(row=r, column=c).value in (None, ""):
                        ws.cell(row=r, column=c).value = choice
wb.save(path)
tool("preprocess", "-i", "ca_template.xlsx", "-o", d)
out = os.path.join(d, "ca_preprocessed_template.xlsx")
wb = openpyxl.load_workbook(out)
n = 0
for ws in wb.worksheets:
    if ws.title.endswith("verif."):
        rows = list(ws.iter_rows(values_only=True))
        h = next(i for i, r in enumerate(rows) if "Test point" in r)
        n += sum(1 for r in rows[h + 1:] if r[0] not in (None, ""))
print(json.dumps({"workbook": out, "points": n}))
"#;

/// compute-score on the filled file; prints every verification row of the report (sheet, row,
/// Scenario, Test point, Value, Colour) and the test scores.
pub const SCORE: &str = r#"
import glob, json, os, subprocess, sys
import openpyxl
filled, d = sys.argv[1], sys.argv[2]
r = subprocess.run([sys.executable, "-m", "euroncap_rating_2026", "crash_avoidance",
                    "compute-score", "-i", filled, "-o", d], cwd=d, capture_output=True, text=True)
reports = glob.glob(os.path.join(d, "ca_*_report.xlsx"))
if r.returncode != 0 or not reports:
    sys.exit(f"compute-score failed: {r.stdout}\n{r.stderr}")
wb = openpyxl.load_workbook(reports[0])
points = []
for ws in wb.worksheets:
    if not ws.title.endswith("verif."):
        continue
    rows = list(ws.iter_rows(values_only=True))
    h = next(i for i, r in enumerate(rows) if "Test point" in r)
    hdr = rows[h]
    for i, r in enumerate(rows[h + 1:], start=h + 2):
        if r[0] in (None, ""):
            continue
        c = dict(zip(hdr, r))
        points.append({"sheet": ws.title, "row": i, "scenario": c["Scenario"],
                       "test_point": c["Test point"], "value": c["Value"],
                       "colour": c.get("Colour")})
scores = [list(r) for r in wb["Test Scores"].iter_rows(values_only=True)]
print(json.dumps({"points": points, "scores": scores}, default=str))
"#;

/// The rating tool's preprocessed workbook, made once per test process (generate-template
/// and preprocess take about 16 s of CPU), copied into `dir`; with the number of verification
/// points openpyxl counts. `None`: the tool is missing, skip.
#[allow(dead_code)] // not every test crate that includes `support` scores a workbook
pub fn prepared_workbook(dir: &std::path::Path) -> Option<(std::path::PathBuf, usize)> {
    static ONCE: std::sync::OnceLock<Option<(std::path::PathBuf, usize)>> =
        std::sync::OnceLock::new();
    let (made, points) = ONCE
        .get_or_init(|| {
            let d = std::env::temp_dir().join(format!("scil-rating-tool-{}", std::process::id()));
            std::fs::create_dir_all(&d).expect("rating tool dir");
            let out = super::python::run("euroncap_rating_2026", PREPARE, &[d.to_str()?])?;
            let v: Value = serde_json::from_str(out.trim()).expect("prepare output");
            let wb = std::path::PathBuf::from(v["workbook"].as_str().expect("workbook"));
            let points = v["points"].as_u64().expect("points") as usize;
            Some((wb, points))
        })
        .clone()?;
    std::fs::create_dir_all(dir).expect("test dir");
    let wb = dir.join(made.file_name()?);
    std::fs::copy(&made, &wb).expect("copy the prepared workbook");
    Some((wb, points))
}

/// The point's quantity from a `scil sim --json` result, computed here on its own.
pub fn quantity(run: &Value, expected: &str, nominal: f64) -> f64 {
    if expected == "fcw_ttc" {
        return run["warning"]["ttc_s"].as_f64().unwrap_or(0.0);
    }
    if expected == "TTC" {
        // Dooring: the cyclist's TTC when the door opened (the trigger of target `door`).
        return run["triggers"]
            .as_array()
            .and_then(|ts| ts.iter().find(|t| t["target"] == "door"))
            .and_then(|t| t["ttc_s"].as_f64())
            .expect("the door's trigger");
    }
    if expected == "dtle_t_end" {
        return run["lane_departure"]["dtle_m"]
            .as_f64()
            .expect("the run's lane departure");
    }
    let impacts = run["impacts"].as_array().expect("impacts");
    let subject = impacts
        .iter()
        .find(|i| {
            !i["target"]
                .as_str()
                .unwrap_or_default()
                .starts_with("obstruction")
        })
        .expect("an impact record for the target");
    let hit = subject["time_s"].as_f64().is_some();
    let v_imp = subject["impact_speed_kmh"]
        .as_f64()
        .or(subject["vut_speed_kmh"].as_f64());
    match (expected, hit) {
        ("impact_occurred", h) => f64::from(u8::from(h)),
        ("v_reduction", false) => nominal,
        (_, false) => 0.0,
        ("v_rel_impact", true) => subject["relative_speed_kmh"]
            .as_f64()
            .or(v_imp)
            .expect("speed"),
        ("v_impact", true) => v_imp.expect("impact speed"),
        ("v_reduction", true) => subject["speed_reduction_kmh"]
            .as_f64()
            .or(v_imp.map(|v| nominal - v))
            .expect("reduction"),
        (other, _) => panic!("unexpected quantity {other}"),
    }
}
