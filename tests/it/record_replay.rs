//! MCAP in and out through the CLI: `scil replay RUN.csv --mcap OUT.mcap` records
//! the run; `scil replay OUT.mcap` replays the recording's VUT channel and gives the same
//! triggers, impacts and sample count as the CSV it came from, on every shared run (paper
//! columns in a local frame, and the WGS84 export whose samples were projected through the
//! map's geoReference: the recording holds map coordinates, which are not moved twice).

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn shared(p: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/")).join(p)
}

fn replay(input: &std::path::Path, scenario: &str, extra: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_scil"))
        .arg("replay")
        .arg(input)
        .arg("--scenario")
        .arg(shared(scenario))
        .arg("--json")
        .args(extra)
        .output()
        .expect("runs scil");
    assert!(
        out.status.success(),
        "{}: {}",
        input.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

fn close(a: &Value, b: &Value, what: &str) {
    let (x, y) = (a.as_f64(), b.as_f64());
    match (x, y) {
        (Some(x), Some(y)) => assert!((x - y).abs() < 1e-9, "{what}: {x} vs {y}"),
        _ => assert_eq!(a, b, "{what}"),
    }
}

#[test]
fn an_mcap_recording_replays_to_the_same_triggers() {
    let dir = std::env::temp_dir().join(format!("scil-mcap-rt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tempdir");
    let runs = [
        ("replays/cpna75_10kmh.csv", "scenarios/cpna75_10kmh.toml"),
        ("replays/cpna75_30kmh.csv", "scenarios/cpna75_30kmh.toml"),
        ("replays/cpna75_50kmh.csv", "scenarios/cpna75_50kmh.toml"),
        (
            "replays/cpna75_30kmh_wgs84.csv",
            "scenarios/cpna75_30kmh.toml",
        ),
    ];
    for (i, (csv, sc)) in runs.iter().enumerate() {
        let mcap = dir.join(format!("run{i}.mcap"));
        let a = replay(
            &shared(csv),
            sc,
            &["--mcap", mcap.to_str().expect("utf-8 path")],
        );
        let rec = &a["recording"];
        assert_eq!(
            rec["samples"], a["samples"],
            "{csv}: one VUT message per sample"
        );
        assert!(rec["bytes"].as_u64().unwrap_or(0) > 1000, "{csv}: {rec}");
        assert!(rec.get("error").is_none(), "{csv}: {rec}");

        let b = replay(&mcap, sc, &[]);
        assert_eq!(a["samples"], b["samples"], "{csv}");
        let (ta, tb) = (
            a["triggers"].as_array().expect("triggers"),
            b["triggers"].as_array().expect("triggers"),
        );
        assert_eq!(ta.len(), 1, "{csv}: the CPNA run fires once");
        assert_eq!(ta.len(), tb.len(), "{csv}");
        for (x, y) in ta.iter().zip(tb) {
            assert_eq!(x["target"], y["target"]);
            for k in ["time_s", "fired_at_s", "ttc_s", "d_long_m", "vut_speed_kmh"] {
                close(&x[k], &y[k], &format!("{csv} trigger {k}"));
            }
        }
        let (ia, ib) = (
            a["impacts"].as_array().expect("impacts"),
            b["impacts"].as_array().expect("impacts"),
        );
        assert_eq!(ia.len(), ib.len(), "{csv}");
        for (x, y) in ia.iter().zip(ib) {
            for k in ["time_s", "dummy_travel_m"] {
                if x.get(k).is_some() {
                    close(&x[k], &y[k], &format!("{csv} impact {k}"));
                }
            }
        }
    }
}

#[test]
fn a_bad_recording_is_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("scil-mcap-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tempdir");
    // MCAP magic, then garbage: detected as MCAP, rejected with the file named.
    let bad = dir.join("bad.mcap");
    let mut bytes = b"\x89MCAP0\r\n".to_vec();
    bytes.extend_from_slice(&[0xff; 64]);
    std::fs::write(&bad, &bytes).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_scil"))
        .args(["replay"])
        .arg(&bad)
        .arg("--scenario")
        .arg(shared("scenarios/cpna75_30kmh.toml"))
        .output()
        .expect("runs scil");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.mcap"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
