//! A CAN log on another time base than the telemetry: python-can writes the bundled candump
//! log (GPS seconds of week, like the replay) as Vector BLF, which reads from about 0.00025 s.
//! Alone it is refused naming both spans; moved by --can-offset it fuses as the candump log;
//! --can-align finds the offset from the wheel speed.

use std::path::Path;
use std::process::Command;

use crate::support::{python, shared, tempdir};

fn scil(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_scil"))
        .args(args)
        .output()
        .expect("run scil");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf8 path")
}

const WRITE_BLF: &str = r#"
import sys, can
msgs = list(can.LogReader(sys.argv[1]))
with can.Logger(sys.argv[2]) as w:
    for m in msgs:
        w.on_message_received(m)
"#;

/// `scil replay --json` of the 30 km/h run with the CAN log and `extra` arguments.
fn replay(log: &Path, extra: &[&str]) -> (i32, serde_json::Value, String) {
    let (csv, sc, dbc) = (
        shared("replays/cpna75_30kmh.csv"),
        shared("scenarios/cpna75_30kmh.toml"),
        shared("can/vut.dbc"),
    );
    let mut args = vec![
        "replay",
        s(&csv),
        "--scenario",
        s(&sc),
        "--can-log",
        s(log),
        "--dbc",
        s(&dbc),
        "--json",
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = scil(&args);
    let v = serde_json::from_str(out.trim()).unwrap_or(serde_json::Value::Null);
    (code, v, err)
}

/// The first frame time of a log as scil reads it.
fn first_time(log: &Path) -> f64 {
    let (code, out, err) = scil(&["can", "decode", s(&shared("can/vut.dbc")), s(log)]);
    assert_eq!(code, 0, "{err}");
    out.lines()
        .nth(1)
        .and_then(|l| l.split(',').next())
        .and_then(|t| t.parse().ok())
        .expect("a decoded row")
}

/// The parts of a run's result that the CAN values can change.
fn results(v: &serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "samples": v["samples"], "triggers": v["triggers"], "impacts": v["impacts"],
        "validity": v["validity"], "aborted": v["aborted"],
    })
}

#[test]
fn the_candump_log_s_replay_reports_its_fused_frames() {
    let log = shared("can/cpna75_30kmh.log");
    let (code, v, err) = replay(&log, &[]);
    assert_eq!(code, 0, "{err}");
    let can = &v["can"];
    let frames = can["frames"].as_u64().expect("frames");
    let fused = can["fused"].as_u64().expect("fused");
    assert!(frames > 4000, "{can}");
    assert!(fused > 0 && fused <= frames, "{can}");
    assert_eq!(can["offset_s"], 0.0, "{can}");
    // In words too.
    let (csv, sc, dbc) = (
        shared("replays/cpna75_30kmh.csv"),
        shared("scenarios/cpna75_30kmh.toml"),
        shared("can/vut.dbc"),
    );
    let (code, text, err) = scil(&[
        "replay",
        s(&csv),
        "--scenario",
        s(&sc),
        "--can-log",
        s(&log),
        "--dbc",
        s(&dbc),
    ]);
    assert_eq!(code, 0, "{err}");
    let want = format!("{fused} of {frames} CAN frames of candump:cpna75_30kmh.log fused");
    assert!(text.contains(&want), "{text}");
}

#[test]
fn a_blf_on_its_own_time_base_is_refused_moved_or_matched() {
    let dir = tempdir("can-timebase");
    let candump = shared("can/cpna75_30kmh.log");
    let blf = dir.join("run.blf");
    if python::run("can", WRITE_BLF, &[s(&candump), s(&blf)]).is_none() {
        return;
    }
    let t_blf = first_time(&blf);
    let t_log = first_time(&candump);
    assert!(t_blf < 1.0, "python-can's BLF reads from near 0: {t_blf}");
    let offset = t_log - t_blf;

    // Alone: exit 2, both spans named.
    let (code, _, err) = replay(&blf, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("never overlap"), "{err}");
    assert!(err.contains(&format!("spans {t_blf:.6} – ")), "{err}");
    assert!(err.contains("the telemetry 387000.000000 – "), "{err}");

    // Moved by the offset: the same frames fused as the candump log's, the same results.
    let (code, want, err) = replay(&candump, &[]);
    assert_eq!(code, 0, "{err}");
    let off = format!("{offset}");
    let (code, got, err) = replay(&blf, &["--can-offset", &off]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        got["can"]["frames"], want["can"]["frames"],
        "{}",
        got["can"]
    );
    assert_eq!(got["can"]["fused"], want["can"]["fused"], "{}", got["can"]);
    assert_eq!(results(&got), results(&want));

    // Matched on the front-left wheel speed: the offset within 10 ms.
    let (code, got, err) = replay(&blf, &["--can-align", "speed=WHEEL_SPEEDS.WHEEL_SPEED_FL"]);
    assert_eq!(code, 0, "{err}");
    let found = got["can"]["offset_s"].as_f64().expect("offset");
    assert!(
        (found - offset).abs() <= 0.010,
        "found {found}, true {offset}"
    );
    let conf = got["can"]["align"]["confidence"]
        .as_f64()
        .expect("confidence");
    assert!(conf > 0.9, "{}", got["can"]);
    assert_eq!(got["can"]["align"]["signal"], "WHEEL_SPEEDS.WHEEL_SPEED_FL");

    // A signal the log does not carry, or a malformed request: refused.
    let (code, _, err) = replay(&blf, &["--can-align", "speed=WHEEL_SPEEDS.NOPE"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = replay(&blf, &["--can-align", "WHEEL_SPEEDS.WHEEL_SPEED_FL"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("speed=MESSAGE.SIGNAL"), "{err}");
}
