//! Hostile input through the real binary: implausible rows, invalid scenario values,
//! a candump line with a non-UTF-8 byte, errors printed once, `| head` ending quietly.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn shared(rel: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel);
    assert!(p.exists(), "shared data missing: {}", p.display());
    p
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("scil-cli-robust-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

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

fn replay_json(csv: &Path, policy: &str) -> (i32, serde_json::Value, String) {
    let sc = shared("scenarios/cpna75_30kmh.toml");
    let (code, out, err) = scil(&[
        "replay",
        csv.to_str().unwrap(),
        "--scenario",
        sc.to_str().unwrap(),
        "--json",
        "--on-bad-row",
        policy,
    ]);
    (
        code,
        serde_json::from_str(out.trim()).unwrap_or_default(),
        err,
    )
}

/// A copy of the 30 km/h run with column `col` of data row `row` (1-based, after the header)
/// replaced by `value`.
fn with_cell(row: usize, col: &str, value: &str, name: &str) -> PathBuf {
    let text = std::fs::read_to_string(shared("replays/cpna75_30kmh.csv")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let idx = lines[0].split(',').position(|h| h == col).expect("column");
    let mut cells: Vec<String> = lines[row].split(',').map(str::to_string).collect();
    cells[idx] = value.to_string();
    lines[row] = cells.join(",");
    let p = tmp(name);
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

#[test]
fn implausible_rows_are_bad_rows_and_skipping_them_keeps_the_trigger() {
    let (code, base, err) = replay_json(&shared("replays/cpna75_30kmh.csv"), "stop");
    assert_eq!(code, 0, "{err}");
    let trig = |v: &serde_json::Value| {
        (
            v["triggers"][0]["time_s"].as_f64(),
            v["triggers"][0]["d_long_m"].as_f64(),
        )
    };
    let (t0, d0) = trig(&base);
    assert!(t0.is_some() && d0.is_some(), "{base}");
    // Row 200 is well before the trigger; its file line is 201.
    for (col, value, what) in [
        ("Velocity", "1e6", "speed"),
        ("PosX", "1e308", "position"),
        ("Time", "999999999", "time jumps"),
    ] {
        let csv = with_cell(200, col, value, &format!("{col}.csv"));
        let (code, _, err) = replay_json(&csv, "stop");
        assert_ne!(code, 0, "{col}={value} accepted");
        assert!(err.contains(":201:") && err.contains(what), "{col}: {err}");
        let (code, v, err) = replay_json(&csv, "skip");
        assert_eq!(code, 0, "{col}: {err}");
        assert_eq!(v["skipped_rows"], 1, "{col}: {v}");
        assert_eq!(v["samples"], 659, "{col}: {v}");
        let (t, d) = trig(&v);
        assert!(
            (t.unwrap() - t0.unwrap()).abs() < 1e-9 && (d.unwrap() - d0.unwrap()).abs() < 1e-6,
            "{col}={value}: trigger moved: {:?} vs {:?}",
            (t, d),
            (t0, d0)
        );
    }
}

#[test]
fn invalid_scenario_values_exit_non_zero_naming_the_key() {
    let text = std::fs::read_to_string(shared("scenarios/cpna75_30kmh.toml")).unwrap();
    let csv = shared("replays/cpna75_30kmh.csv");
    for (from, to, key) in [
        ("heading_deg = 0.0", "heading_deg = nan", "heading_deg"),
        ("x = 200.0", "x = nan", "start.x"),
    ] {
        if !text.contains(from) {
            panic!("{from:?} not in the shared scenario");
        }
        let p = tmp(&format!("bad-{key}.toml"));
        std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
        let (code, _, err) = scil(&[
            "replay",
            csv.to_str().unwrap(),
            "--scenario",
            p.to_str().unwrap(),
        ]);
        assert_ne!(code, 0, "{to} accepted");
        assert!(err.contains(key), "{err}");
    }
}

#[test]
fn candump_with_a_non_utf8_byte_decodes_the_rest() {
    let log = std::fs::read(shared("can/cpna75_30kmh.log")).unwrap();
    let lines: Vec<&[u8]> = log.split(|b| *b == b'\n').collect();
    let mut bad = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if i == 9 {
            let mut l = l.to_vec();
            l.insert(5, 0xFF);
            bad.extend_from_slice(&l);
        } else {
            bad.extend_from_slice(l);
        }
        if i + 1 < lines.len() {
            bad.push(b'\n');
        }
    }
    let p = tmp("bad.log");
    std::fs::write(&p, &bad).unwrap();
    let dbc = shared("can/vut.dbc");
    let (code, good_out, _) = scil(&[
        "can",
        "decode",
        dbc.to_str().unwrap(),
        shared("can/cpna75_30kmh.log").to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let (code, out, err) = scil(&["can", "decode", dbc.to_str().unwrap(), p.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(":10:") && err.contains("UTF-8"), "{err}");
    assert!(err.contains("1 malformed"), "{err}");
    let (n_good, n_bad) = (good_out.lines().count(), out.lines().count());
    assert!(
        n_bad < n_good && n_bad > n_good - 20,
        "{n_bad} of {n_good} lines decoded"
    );
}

#[test]
fn errors_are_printed_once() {
    let sc = shared("scenarios/cpna75_30kmh.toml");
    let (code, _, err) = scil(&[
        "replay",
        "/nonexistent.csv",
        "--scenario",
        sc.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    let line = err
        .lines()
        .find(|l| l.starts_with("scil: error:"))
        .unwrap_or("");
    let body = line.trim_start_matches("scil: error:").trim();
    // No "X: X": no part of the message appears twice.
    let parts: Vec<&str> = body.split(": ").collect();
    for (i, p) in parts.iter().enumerate() {
        assert!(
            !parts[i + 1..]
                .iter()
                .any(|q| q.contains(p) || p.contains(q)),
            "repeated in {line:?}"
        );
    }
}

#[test]
fn closed_stdout_is_not_an_error() {
    let dbc = shared("can/vut.dbc");
    let log = shared("can/cpna75_30kmh.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_scil"))
        .args([
            "can",
            "decode",
            dbc.to_str().unwrap(),
            log.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut buf = [0u8; 64];
    out.read_exact(&mut buf).unwrap();
    drop(out); // like `| head -c 64`
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    child.wait().unwrap();
    assert!(!err.to_lowercase().contains("broken pipe"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
