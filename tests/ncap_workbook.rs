//! The rating-tool round trip with Euro NCAP's own tool (`euroncap-rating-2026`, Python):
//! generate-template, every prediction filled, preprocess; `scil ncap plan` maps the points,
//! `scil ncap rehearse` fills their values, the tool's `compute-score` scores the file, and the
//! values it scored are scil's: each equals a separate `scil sim` run of the point's scenario.
//! Skipped without the tool locally, failing under `CI=true` (`.ci/run` installs it).

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const AEB: &str = "ttc=1.2,decel=8,delay_ms=150";
const FCW: &str = "ttc=2.0";

/// generate-template, fill every grey cell (first colour / VTA / YES, FCW where a row offers
/// it), preprocess; prints {"workbook", "points"} with the points counted by openpyxl.
const PREPARE: &str = r#"
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
const SCORE: &str = r#"
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

fn scil() -> Command {
    Command::new(env!("CARGO_BIN_EXE_scil"))
}

fn run_ok(c: &mut Command) -> String {
    let out = c.output().expect("run scil");
    assert!(
        out.status.success(),
        "{c:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("scil-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// The point's quantity from a `scil sim --json` result, computed here on its own.
fn quantity(run: &Value, expected: &str, nominal: f64) -> f64 {
    if expected == "fcw_ttc" {
        return run["warning"]["ttc_s"].as_f64().unwrap_or(0.0);
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

fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

#[test]
fn rating_tool_plans_rehearses_and_scores_scil_values() {
    let dir = temp_dir("ncap");
    let Some(prep) =
        support::python::run("euroncap_rating_2026", PREPARE, &[dir.to_str().unwrap()])
    else {
        return;
    };
    let prep: Value = serde_json::from_str(prep.trim()).expect("prepare output");
    let wb = PathBuf::from(prep["workbook"].as_str().expect("workbook"));
    let total = prep["points"].as_u64().expect("points") as usize;

    // Plan: every point listed, none dropped; a point without a scenario says why.
    let plan_dir = dir.join("plan");
    let plan: Vec<Value> = serde_json::from_str(&run_ok(
        scil()
            .args(["ncap", "plan"])
            .arg(&wb)
            .arg("--out")
            .arg(&plan_dir)
            .arg("--json"),
    ))
    .expect("plan json");
    assert_eq!(plan.len(), total, "every verification point is in the plan");
    let runnable: Vec<&Value> = plan.iter().filter(|p| p["runnable"] == true).collect();
    for p in &plan {
        if p["runnable"] == false {
            assert!(
                p["reason"].as_str().is_some_and(|r| !r.is_empty()),
                "a point that cannot run names its reason: {p}"
            );
        }
        if p["catalogue_row"].is_null() {
            assert!(p["runnable"] == false, "{p}");
        } else if p["runnable"] == false {
            // A point whose row exists runs, unless the row itself is not placeable yet or its
            // quantity is not measured yet.
            let reason = p["reason"].as_str().unwrap_or_default();
            assert!(
                reason.contains("not placed yet")
                    || reason.contains("junction map")
                    || reason.contains("scil does not measure")
                    || (reason.contains("robustness layer") && reason.contains("not applied yet")),
                "a point of an existing catalogue row did not map: {p}"
            );
        }
    }
    println!("plan: {} of {total} points runnable", runnable.len());
    assert!(!runnable.is_empty(), "some points map to the catalogue");
    let index: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(plan_dir.join("plan.json")).expect("plan.json"),
    )
    .expect("plan.json parses");

    // Rehearse into a copy; the original stays untouched.
    let before = std::fs::read(&wb).expect("workbook");
    let filled = dir.join("filled.xlsx");
    let text = run_ok(
        scil()
            .args(["ncap", "rehearse"])
            .arg(&wb)
            .arg("--out")
            .arg(&filled)
            .args(["--aeb", AEB, "--fcw", FCW, "--assess", "PASS", "--quiet"]),
    );
    println!("{text}");
    assert_eq!(std::fs::read(&wb).expect("workbook"), before);

    // compute-score accepts the file and scores scil's values.
    let score_dir = dir.join("score");
    std::fs::create_dir_all(&score_dir).expect("score dir");
    let Some(scored) = support::python::run(
        "euroncap_rating_2026",
        SCORE,
        &[filled.to_str().unwrap(), score_dir.to_str().unwrap()],
    ) else {
        return;
    };
    let scored: Value = serde_json::from_str(scored.trim()).expect("score output");
    println!("test scores: {}", scored["scores"]);
    let report = scored["points"].as_array().expect("report points");
    assert_eq!(report.len(), total, "the report has every point");

    let mut compared = 0;
    for p in index.iter().filter(|p| p["file"].is_string()) {
        let (sheet, row) = (p["sheet"].as_str().unwrap(), p["row"].as_u64().unwrap());
        let r = report
            .iter()
            .find(|r| r["sheet"] == sheet && r["row"].as_u64() == Some(row))
            .unwrap_or_else(|| panic!("{sheet} row {row} missing from the report"));
        assert_eq!(r["scenario"], p["scenario"], "{sheet} row {row}");
        let scored_value = r["value"]
            .as_f64()
            .unwrap_or_else(|| panic!("{sheet} row {row}: no value scored: {r}"));
        // The same point through a separate `scil sim` run of its scenario file.
        let params = &p["params"];
        let v = params["vut_speed_kmh"].as_f64().expect("vut speed");
        let expected = p["expected"].as_str().expect("expected");
        let fcw = params["function"] == "FCW" || expected == "fcw_ttc";
        let scenario = plan_dir.join(p["file"].as_str().unwrap());
        let mut c = scil();
        c.arg("sim").arg("--scenario").arg(&scenario).args([
            "--vut-speed",
            &v.to_string(),
            "--json",
        ]);
        if fcw {
            c.args(["--fcw", FCW]);
        } else {
            c.args(["--aeb", AEB]);
        }
        let out = c.output().expect("scil sim");
        let sim: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{}: {e}", scenario.display()));
        let q = round6(quantity(&sim, expected, v));
        assert!(
            (q - scored_value).abs() < 1e-9,
            "{sheet} row {row} ({expected}): scored {scored_value}, scil sim {q}"
        );
        compared += 1;
    }
    assert_eq!(compared, runnable.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_workbook_without_verification_sheets_is_a_clear_error() {
    let dir = temp_dir("ncap-bad");
    let f = dir.join("not.xlsx");
    std::fs::write(&f, b"plain text").expect("write");
    let out = scil()
        .args(["ncap", "plan"])
        .arg(&f)
        .output()
        .expect("scil");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not.xlsx"), "{err}");
    let _ = Path::new(&dir).exists() && std::fs::remove_dir_all(&dir).is_ok();
}
