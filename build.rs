//! The build commit a run's provenance names (`SCIL_BUILD_COMMIT`): the variable when set
//! (packagers building outside a git checkout), else `git rev-parse HEAD`, else "unknown".
//! No network.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

fn main() {
    println!("cargo:rerun-if-env-changed=SCIL_BUILD_COMMIT");
    let commit = std::env::var("SCIL_BUILD_COMMIT")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .or_else(|| git(&["rev-parse", "HEAD"]))
        .unwrap_or_else(|| "unknown".into());
    // Built again when HEAD moves (a checkout, a commit); only files that exist are named, as
    // cargo rebuilds every time for a missing one.
    let mut watch = vec![git(&["rev-parse", "--git-path", "HEAD"])];
    if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watch.push(git(&["rev-parse", "--git-path", &r]));
    }
    for p in watch.into_iter().flatten() {
        if std::path::Path::new(&p).exists() {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    println!("cargo:rustc-env=SCIL_BUILD_COMMIT={commit}");
}
