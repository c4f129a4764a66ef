//! The rating-tool round trip with Euro NCAP's own tool (`euroncap-rating-2026`, Python):
//! generate-template, every prediction filled, preprocess; `scil ncap plan` maps the points,
//! `scil ncap rehearse` fills their values, the tool's `compute-score` scores the file, and the
//! values it scored are scil's: each equals a separate `scil sim` run of the point's scenario.
//! Skipped without the tool locally, failing under `CI=true` (`.ci/run` installs it).

use crate::support;

use support::rating_tool::{quantity, SCORE};

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const AEB: &str = "ttc=1.2,decel=8,delay_ms=150";
const FCW: &str = "ttc=2.0";
const ELK: &str = "tlc=0.3,lat_accel=3,delay_ms=100";

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

fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

#[test]
fn rating_tool_plans_rehearses_and_scores_scil_values() {
    let dir = temp_dir("ncap");
    let Some((wb, total)) = support::rating_tool::prepared_workbook(&dir) else {
        return;
    };

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
            .args(["--aeb", AEB, "--fcw", FCW, "--elk", ELK])
            .args(["--assess", "PASS", "--quiet"]),
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
        // Low-speed points without a VUT speed (CPMRCm) run their scenario's launch.
        let v = params["vut_speed_kmh"].as_f64().unwrap_or(0.0);
        let expected = p["expected"].as_str().expect("expected");
        let fcw = params["function"] == "FCW" || expected == "fcw_ttc";
        let scenario = plan_dir.join(p["file"].as_str().unwrap());
        // Each file fits on a screen: straights by their ends, turns as segments.
        let lines = std::fs::read_to_string(&scenario)
            .expect("scenario file")
            .lines()
            .count();
        assert!(lines <= 120, "{}: {lines} lines", scenario.display());
        let mut c = scil();
        c.arg("sim").arg("--scenario").arg(&scenario).args([
            "--vut-speed",
            &v.to_string(),
            "--json",
        ]);
        if fcw {
            c.args(["--fcw", FCW]);
        } else if expected == "dtle_t_end" {
            c.args(["--elk", ELK]);
        } else {
            c.args(["--aeb", AEB]);
        }
        let out = c.output().expect("scil sim");
        let sim: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{}: {e}", scenario.display()));
        let q = round6(quantity(&sim, expected, v));
        // Within a few units of the sixth decimal the workbook is written with: the two runs
        // (two threads in process, one `scil sim`) have been seen to differ by up to 4e-6 on
        // one impact speed, a nondeterminism still to be found; far below anything scored.
        assert!(
            (q - scored_value).abs() < 1e-5,
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
