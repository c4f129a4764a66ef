//! libOpenDRIVE, an OpenDRIVE reader that is not scil's, through its small front end
//! `odr_points` (tests/peers/libopendrive, built by `.ci/run`). Found through `SCIL_ODR_PEER`,
//! else at `target/libopendrive/odr_points`. Missing: the test is skipped with a printed reason
//! locally and fails when `CI=true`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `odr_points` binary, or `None` (skip) outside CI.
pub fn binary() -> Option<PathBuf> {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let p = std::env::var_os("SCIL_ODR_PEER")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/target/libopendrive/odr_points"
            ))
        });
    if p.is_file() {
        return Some(p);
    }
    assert!(
        !ci,
        "CI=true but the libOpenDRIVE peer {} is missing",
        p.display()
    );
    println!(
        "SKIPPED: libOpenDRIVE peer {} missing (cmake -S tests/peers/libopendrive -B target/libopendrive && cmake --build target/libopendrive)",
        p.display()
    );
    None
}

/// Runs `odr_points MAP args…` and returns its CSV rows (header dropped), split on commas.
pub fn rows(bin: &Path, map: &Path, args: &[&str]) -> Vec<Vec<String>> {
    let out = Command::new(bin)
        .arg(map)
        .args(args)
        .output()
        .expect("run odr_points");
    assert!(
        out.status.success(),
        "odr_points {} {args:?} failed: {}",
        map.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(usize::from(args.first() != Some(&"info")))
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}
