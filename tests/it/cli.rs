//! The command-line contract other tools depend on, exercised through the real binary.

use std::path::{Path, PathBuf};
use std::process::Command;

fn shared(rel: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel);
    assert!(p.exists(), "shared data missing: {}", p.display());
    p
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

#[test]
fn replay_json_contract() {
    let csv = shared("replays/cpna75_30kmh.csv");
    let sc = shared("scenarios/cpna75_30kmh.toml");
    let (code, out, err) = scil(&[
        "replay",
        csv.to_str().unwrap(),
        "--scenario",
        sc.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object on stdout");
    assert_eq!(v["samples"], 660);
    assert_eq!(v["skipped_rows"], 0);
    let t = &v["triggers"][0];
    assert_eq!(t["target"], "dummy");
    for k in ["time_s", "ttc_s", "d_long_m", "vut_speed_kmh"] {
        assert!(t[k].is_f64(), "{k} in {t}");
    }
    let i = &v["impacts"][0];
    assert_eq!(i["target"], "dummy");
    assert!(i["time_s"].is_f64() && i["dummy_travel_m"].is_f64());
    assert!(i.get("stopped_short_m").is_some());

    // Readable mode names the trigger; a missing file is a clear error with exit code 2.
    let (code, out, _) = scil(&[
        "replay",
        csv.to_str().unwrap(),
        "--scenario",
        sc.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("trigger  dummy"), "{out}");
    let (code, _, err) = scil(&[
        "replay",
        "/nonexistent.csv",
        "--scenario",
        sc.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("/nonexistent.csv") && err.contains("cannot open"),
        "{err}"
    );
}

#[test]
fn map_eval_reproduces_the_reference() {
    let xodr = shared("opendrive/proving_ground.xodr");
    let refcsv = shared("opendrive/reference/proving_ground.ref.csv");
    let text = std::fs::read_to_string(&refcsv).unwrap();
    let dir = std::env::temp_dir().join(format!("scil-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pts = dir.join("points.csv");
    let mut input = String::from("road_id,lane_id,s\n");
    let mut expect = Vec::new();
    for l in text.lines().skip(1) {
        let c: Vec<&str> = l.split(',').collect();
        input.push_str(&format!("{},{},{}\n", c[0], c[1], c[2]));
        expect.push((c[3].parse::<f64>().unwrap(), c[4].parse::<f64>().unwrap()));
    }
    std::fs::write(&pts, input).unwrap();
    let (code, out, err) = scil(&[
        "map",
        "eval",
        xodr.to_str().unwrap(),
        "--points",
        pts.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("road_id,lane_id,s,x,y,hdg"));
    let mut worst: f64 = 0.0;
    let mut n = 0;
    for (l, (ex, ey)) in lines.zip(&expect) {
        let c: Vec<&str> = l.split(',').collect();
        let (x, y): (f64, f64) = (c[3].parse().unwrap(), c[4].parse().unwrap());
        worst = worst.max((x - ex).hypot(y - ey));
        n += 1;
    }
    assert_eq!(n, expect.len());
    println!(
        "scil map eval proving_ground: {n} points, max deviation {:.4} mm",
        worst * 1000.0
    );
    assert!(worst <= 1e-3);

    // locate: lane -1 centre points come back as road 1 lane -1, t = -1.75.
    let loc = dir.join("xy.csv");
    std::fs::write(&loc, "x,y\n100,-1.75\n250,-1.75\n100,500\n").unwrap();
    let (code, out, err) = scil(&[
        "map",
        "locate",
        xodr.to_str().unwrap(),
        "--points",
        loc.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<&str> = out.lines().collect();
    assert_eq!(rows[0], "x,y,road_id,lane_id,s,t");
    assert!(rows[1].starts_with("100,-1.75,1,-1,100.0"), "{}", rows[1]);
    assert!(rows[3].starts_with("100,500,,"), "off the map: {}", rows[3]);

    let (code, out, _) = scil(&["map", "info", xodr.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        out.contains("roads        1") && out.contains("+proj=tmerc"),
        "{out}"
    );

    let (code, out, _) = scil(&["map", "geojson", xodr.to_str().unwrap(), "--wgs84"]);
    assert_eq!(code, 0);
    let gj: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(gj["type"], "FeatureCollection");
    let lon = gj["features"][0]["geometry"]["coordinates"][0][0]
        .as_f64()
        .unwrap();
    assert!((16.0..18.0).contains(&lon), "lon {lon}");
}
