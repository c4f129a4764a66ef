//! `scil replay --noise … --dropout … --seed N`: same seed → byte-identical JSON; zero
//! injection → exactly the plain replay.

use std::process::Command;

fn replay(extra: &[&str]) -> Option<String> {
    let shared = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared");
    let csv = format!("{shared}/replays/cpna75_30kmh.csv");
    if !std::path::Path::new(&csv).exists() {
        return None;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_scil"))
        .args([
            "replay",
            &csv,
            "--scenario",
            &format!("{shared}/scenarios/cpna75_30kmh.toml"),
            "--json",
        ])
        .args(extra)
        .output()
        .expect("runs");
    assert!(
        out.status.success() || out.status.code() == Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).expect("utf-8"))
}

#[test]
fn seeded_injection_repeats_and_zero_is_plain() {
    let Some(plain) = replay(&[]) else { return };
    assert_eq!(
        plain,
        replay(&["--seed", "5", "--noise", "pos=0,speed=0"]).expect("zero")
    );
    let args = [
        "--noise",
        "pos=0.05,speed=0.05,heading=0.2",
        "--dropout",
        "0.02",
        "--latency-ms",
        "20",
        "--seed",
        "9",
    ];
    let a = replay(&args).expect("noisy");
    let b = replay(&args).expect("noisy");
    assert_eq!(a, b, "same seed, same JSON");
    assert_ne!(a, plain);
    let c = replay(&[
        "--noise",
        "pos=0.05,speed=0.05,heading=0.2",
        "--dropout",
        "0.02",
        "--latency-ms",
        "20",
        "--seed",
        "10",
    ])
    .expect("noisy");
    assert_ne!(a, c, "another seed, another run");
}
