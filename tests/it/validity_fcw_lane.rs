//! End to end through `scil replay --json`: an FCW column in a recorded CSV
//! closes the validity window (`"closed_by": "fcw"`), and a scenario whose lead vehicle follows
//! an OpenDRIVE lane path is resolved against the map at setup (and refused without one).

use std::fmt::Write as _;
use std::process::Command;

use crate::support;
use support::{shared, tempdir};

fn replay(args: &[&str]) -> (bool, serde_json::Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_scil"))
        .arg("replay")
        .args(args)
        .arg("--json")
        .output()
        .expect("scil runs");
    let v = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.success(),
        v,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// VUT at 30 km/h along y = −1.75 from x = 130 at 100 Hz (paper columns, km/h), FCW from
/// `fcw_from_s` on when given; 1.5 km/h faster from `fast_from_s` (+0.3 s ramp).
fn csv(fcw_from_s: Option<f64>, fast_from_s: f64) -> String {
    let mut s = String::from("Time,PosX,PosY,Heading,Velocity,Steering_Angle,Brake_Light,FCW\n");
    let mut x = 130.0;
    for k in 0..1000 {
        let t = k as f64 * 0.01;
        // Ramped over 0.3 s: a step would be an implausible acceleration for the source.
        let kmh = 30.0 + 1.5 * ((t - fast_from_s) / 0.3).clamp(0.0, 1.0);
        let fcw = fcw_from_s.is_some_and(|f| t >= f - 1e-9) as u8;
        writeln!(s, "{t:.3},{x:.5},-1.75000,90.000,{kmh:.3},0.0,0,{fcw}").expect("fmt");
        x += kmh / 3.6 * 0.01;
    }
    s
}

const CPNA: &str = r#"name = "cpna fcw"
[vut]
width_m = 1.855
length_m = 4.6
reference_to_front_m = 2.3
speed_kmh = 30.0
[validity]
[[targets]]
id = "dummy"
kind = "pedestrian"
start = { x = 200.0, y = -5.75 }
heading_deg = 0.0
lateral_start_m = 4.0
accel_distance_m = 1.0
speed_kmh = 5.0
overlap = 0.75
"#;

#[test]
fn fcw_column_closes_the_window_in_replay_json() {
    let d = tempdir("fcw");
    let sc = d.join("cpna.toml");
    std::fs::write(&sc, CPNA).expect("write");
    // Front at 132.3 + 8.333·t reaches x = 200 at t = 8.124 s; FCW at 7.0 s (TTC 1.12 s),
    // 1.5 km/h over nominal from 7.5 s: after FCW, so not inside the window.
    let (with, without) = (d.join("fcw.csv"), d.join("nofcw.csv"));
    std::fs::write(&with, csv(Some(7.0), 7.5)).expect("write");
    std::fs::write(&without, csv(None, 7.5)).expect("write");
    let s = sc.to_str().expect("utf8");
    let (ok, v, err) = replay(&[with.to_str().expect("utf8"), "--scenario", s]);
    assert!(ok, "{err}");
    let val = &v["validity"];
    assert_eq!(val["closed_by"], "fcw", "{val}");
    assert_eq!(val["valid"], true, "{val}");
    let to = val["window"]["to_s"].as_f64().expect("to_s");
    assert!((to - 7.0).abs() < 1e-9, "window end {to}");
    let (ok, v, err) = replay(&[without.to_str().expect("utf8"), "--scenario", s]);
    assert!(ok, "{err}");
    let val = &v["validity"];
    assert_eq!(val["closed_by"], "impact", "{val}");
    assert_eq!(val["valid"], false, "{val}");
}

#[test]
fn lane_path_scenario_needs_and_uses_the_map() {
    let d = tempdir("lane");
    let sc = d.join("ccrm_lane.toml");
    // A lead vehicle at 20 km/h along lane −1 from s = 150; the VUT (30 km/h, front at 132.3
    // at t = 0) closes in on it and hits its rear.
    std::fs::write(
        &sc,
        r#"name = "ccrm lane path"
[vut]
width_m = 1.855
length_m = 4.6
reference_to_front_m = 2.3
speed_kmh = 30.0
[validity]
[[targets]]
id = "lead"
kind = "vehicle"
activation = "begin"
lateral_start_m = 0.0
accel_distance_m = 0.0
speed_kmh = 20.0
overlap = 1.0
length_m = 4.0
path = { road = "1", lane = -1, s_from = 150.0, s_to = 600.0 }
"#,
    )
    .expect("write");
    let run = d.join("vut.csv");
    std::fs::write(&run, csv(None, 99.0)).expect("write");
    let (r, s) = (run.to_str().expect("utf8"), sc.to_str().expect("utf8"));
    let (ok, _, err) = replay(&[r, "--scenario", s]);
    assert!(!ok, "replayed without a map");
    assert!(err.contains("lead") && err.contains("needs a map"), "{err}");
    let map = shared("opendrive/proving_ground.xodr");
    let (ok, v, err) = replay(&[r, "--scenario", s, "--map", map.to_str().expect("utf8")]);
    assert!(ok, "{err}");
    // Gap 150 − 132.3 = 17.7 m closing at 10/3.6 m/s: impact at 6.372 s, rear end at
    // x = 150 + 20/3.6 · 6.372 on the lane centre y = −1.75.
    let t_imp = 17.7 / (10.0 / 3.6);
    let imp = &v["impacts"][0];
    assert_eq!(imp["target"], "lead", "{v}");
    let t = imp["time_s"].as_f64().expect("impact time");
    assert!((t - t_imp).abs() < 0.01, "impact at {t} vs {t_imp}");
    let p = &imp["impact_point"];
    let (x, y) = (p["x"].as_f64().expect("x"), p["y"].as_f64().expect("y"));
    // The point is the target's position at the first sample past the impact (≤ 10 ms).
    assert!((x - (150.0 + 20.0 / 3.6 * t_imp)).abs() < 0.06, "{p}");
    assert!((y + 1.75).abs() < 1e-6, "{p}");
    let (ok, _, err) = replay(&[
        r,
        "--scenario",
        s,
        "--map",
        shared("opendrive/esmini/offset.xodr")
            .to_str()
            .expect("utf8"),
    ]);
    assert!(!ok);
    assert!(err.contains("road '1' lane -1"), "{err}");
}

/// A DBC with the driver-assistance status frame that carries the FCW (Intel, bit 0).
const ADAS_DBC: &str = r#"VERSION ""

NS_ :

BS_:

BU_: ADAS

BO_ 1280 ADAS_STATUS: 8 ADAS
 SG_ FCW : 0|1@1+ (1,0) [0|1] "" Vector__XXX
 SG_ AEB_ACTIVE : 1|1@1+ (1,0) [0|1] "" Vector__XXX
"#;

#[test]
fn fcw_from_can_closes_the_window_at_the_first_sample_after_the_frame() {
    let d = tempdir("fcw-can");
    let sc = d.join("cpna.toml");
    std::fs::write(&sc, CPNA).expect("write");
    let run = d.join("vut.csv");
    // No FCW column: CAN fills only what the INS source does not carry.
    let rows: String = csv(None, 7.5)
        .lines()
        .map(|l| format!("{}\n", l.rsplit_once(',').map_or(l, |(head, _)| head)))
        .collect();
    std::fs::write(&run, rows).expect("write");
    let dbc = d.join("adas.dbc");
    std::fs::write(&dbc, ADAS_DBC).expect("write");
    // ADAS_STATUS at 50 Hz, offset 5 ms from the INS samples; FCW issued from 7.005 s on. Bit 1
    // (AEB) stays 0, so only the FCW can close the window.
    let mut log = String::new();
    for k in 0..500 {
        let t = 0.005 + 0.02 * k as f64;
        let byte = u8::from(t >= 7.005 - 1e-9);
        writeln!(log, "({t:017.6}) can0 500#{byte:02X}00000000000000").expect("fmt");
    }
    let can = d.join("adas.log");
    std::fs::write(&can, log).expect("write");
    let (r, s) = (run.to_str().expect("utf8"), sc.to_str().expect("utf8"));
    let (c, b) = (can.to_str().expect("utf8"), dbc.to_str().expect("utf8"));
    let (ok, v, err) = replay(&[
        r,
        "--scenario",
        s,
        "--can-log",
        c,
        "--dbc",
        b,
        "--can-fcw",
        "ADAS_STATUS.FCW",
    ]);
    assert!(ok, "{err}");
    let val = &v["validity"];
    assert_eq!(val["closed_by"], "fcw", "{val}");
    // The frame at 7.005 s is held into the next INS sample, at 7.01 s.
    let to = val["window"]["to_s"].as_f64().expect("to_s");
    assert!((to - 7.01).abs() < 1e-9, "window end {to}");
    // Without the mapping the same log closes nothing: the run ends at the impact.
    let (ok, v, err) = replay(&[r, "--scenario", s, "--can-log", c, "--dbc", b]);
    assert!(ok, "{err}");
    assert_eq!(v["validity"]["closed_by"], "impact", "{}", v["validity"]);
    // A mapping naming a signal the DBC lacks is refused before anything runs.
    let (ok, _, err) = replay(&[
        r,
        "--scenario",
        s,
        "--can-log",
        c,
        "--dbc",
        b,
        "--can-fcw",
        "ADAS_STATUS.FCW_LEVEL",
    ]);
    assert!(!ok, "ran with a missing signal");
    assert!(err.contains("ADAS_STATUS.FCW_LEVEL"), "{err}");
    let (ok, _, err) = replay(&[
        r,
        "--scenario",
        s,
        "--can-log",
        c,
        "--dbc",
        b,
        "--can-fcw",
        "FCW",
    ]);
    assert!(!ok && err.contains("MESSAGE.SIGNAL"), "{err}");
}
