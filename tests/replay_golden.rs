//! `scil replay --json` on every shared run gives exactly what the binary gave before the run
//! layer was redesigned (tests/golden/*.json were written by that binary). A change to the
//! engine that moves a trigger on purpose regenerates these files and says so in its commit.

use std::path::{Path, PathBuf};
use std::process::Command;

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel)
}

fn check(name: &str, csv: &str, scenario: &str, extra: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_scil"))
        .arg("replay")
        .arg(shared(csv))
        .arg("--scenario")
        .arg(shared(scenario))
        .args(extra)
        .arg("--json")
        .output()
        .expect("scil runs");
    assert!(
        out.status.success(),
        "{name}: exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let golden_path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.json"));
    let golden = std::fs::read_to_string(&golden_path).expect("golden file");
    let got = String::from_utf8_lossy(&out.stdout);
    assert_eq!(got.trim(), golden.trim(), "{name}: replay JSON changed");
}

#[test]
fn shared_runs_unchanged() {
    for v in [10, 30, 50] {
        let csv = format!("replays/cpna75_{v}kmh.csv");
        let sc = format!("scenarios/cpna75_{v}kmh.toml");
        check(&format!("cpna75_{v}kmh"), &csv, &sc, &[]);
        check(
            &format!("cpna75_{v}kmh_at_sample"),
            &csv,
            &sc,
            &["--trigger-at-sample"],
        );
        check(
            &format!("cpna75_{v}kmh_no_retime"),
            &csv,
            &sc,
            &["--no-retime"],
        );
    }
    check(
        "cpna75_30kmh_wgs84",
        "replays/cpna75_30kmh_wgs84.csv",
        "scenarios/cpna75_30kmh.toml",
        &[],
    );
    check(
        "lap_50kmh",
        "replays/lap_50kmh.csv",
        "scenarios/cpna75_50kmh.toml",
        &[],
    );
}
