//! Runs an independent Python reader. Without python3 or the needed package the test is
//! skipped with a printed reason locally, and fails when `CI=true` (`.ci/run` installs them).

use std::process::Command;

/// Runs `python3 -c script args…`; `None` (skip) when `module` cannot be imported outside CI.
#[allow(dead_code)] // not every test crate that includes `support` runs a Python reader
pub fn run(module: &str, script: &str, args: &[&str]) -> Option<String> {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let probe = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output();
    let ok = matches!(&probe, Ok(o) if o.status.success());
    if !ok {
        let why = match probe {
            Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
            Err(e) => format!("python3: {e}"),
        };
        assert!(
            !ci,
            "CI=true but python module {module} is unavailable: {why}"
        );
        println!("SKIPPED: python module {module} unavailable ({why}); pip install {module}");
        return None;
    }
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "python reader failed:\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}
