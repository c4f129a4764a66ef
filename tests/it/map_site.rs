//! `scil map place` and `scil map survey`, checked by readers other than scil's: libOpenDRIVE
//! evaluates the written maps, pyproj does the WGS84 side.

use std::path::Path;
use std::process::Command;

use crate::support::{self, data, odr_peer, python};

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

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

fn num(s: &str) -> f64 {
    s.trim().parse().expect("number")
}

/// Reference-line points of every road as libOpenDRIVE evaluates them: (road, s) → (x, y).
fn peer_ref(bin: &Path, map: &Path, step: &str) -> Vec<(String, f64, f64, f64)> {
    odr_peer::rows(bin, map, &["ref", step])
        .into_iter()
        .map(|r| (r[0].clone(), num(&r[1]), num(&r[2]), num(&r[3])))
        .collect()
}

/// scil's reference-line points (`scil map eval`, lane 0) at the same (road, s).
fn scil_ref(map: &Path, pts: &[(String, f64, f64, f64)], dir: &Path) -> Vec<(f64, f64)> {
    let q = dir.join("eval.csv");
    let mut text = String::from("road_id,lane_id,s\n");
    for (road, s, _, _) in pts {
        text.push_str(&format!("{road},0,{s}\n"));
    }
    std::fs::write(&q, text).expect("write");
    let (code, out, err) = scil(&["map", "eval", p(map), "--points", p(&q)]);
    assert_eq!(code, 0, "{err}");
    out.lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (num(c[3]), num(c[4]))
        })
        .collect()
}

/// The proj4 string libOpenDRIVE reads from a map's header.
fn peer_proj4(bin: &Path, map: &Path) -> String {
    let rows = odr_peer::rows(bin, map, &["info"]);
    assert_eq!(rows[0][0], "proj4");
    rows[0][1..].join(",")
}

#[test]
fn placed_x_intersection_is_where_the_site_says() {
    let Some(bin) = odr_peer::binary() else {
        return;
    };
    let dir = support::tempdir("map-place");
    let src = data("osc-ncap/OpenDRIVE/NCAP/X-Intersection_NCAP.xodr");
    let out = dir.join("placed.xodr");
    let (lat, lon, heading) = (51.4816, -1.3108, 33.5);
    let origin = format!("{lat},{lon},112.5");
    let (code, _, err) = scil(&[
        "map",
        "place",
        p(&src),
        "--origin",
        &origin,
        "--heading",
        &heading.to_string(),
        "-o",
        p(&out),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, info, err) = scil(&["map", "info", p(&out)]);
    assert_eq!(code, 0, "{err}");
    assert!(info.contains("+proj=tmerc"), "{info}");
    assert!(
        info.contains("site         51.4816, -1.3108, 112.5 m; +x axis at heading 33.5°"),
        "{info}"
    );

    // Both readers load the placed file and agree on it within 1 mm.
    let orig = peer_ref(&bin, &src, "7");
    let placed = peer_ref(&bin, &out, "7");
    let roads: std::collections::BTreeSet<_> = placed.iter().map(|r| r.0.clone()).collect();
    assert!(roads.len() >= 4, "several roads: {roads:?}");
    assert_eq!(orig.len(), placed.len());
    let ours = scil_ref(&out, &placed, &dir);
    let worst_readers = placed
        .iter()
        .zip(&ours)
        .map(|(a, b)| (a.2 - b.0).hypot(a.3 - b.1))
        .fold(0.0, f64::max);
    assert!(
        worst_readers <= 1e-3,
        "libOpenDRIVE vs scil: {worst_readers} m"
    );

    // The header's bounds, recomputed: every placed reference-line point within them, and the
    // rectangle no larger than the roads (within a lane's width or two of the points).
    let text = std::fs::read_to_string(&out).expect("read");
    let header = text
        .lines()
        .find(|l| l.contains("<header"))
        .expect("header line");
    let bound = |k: &str| -> f64 {
        let at = header.find(&format!(" {k}=\"")).expect(k) + k.len() + 3;
        num(&header[at..at + header[at..].find('"').expect("quote")])
    };
    let (n, so, e, w) = (bound("north"), bound("south"), bound("east"), bound("west"));
    let (mut lo_x, mut hi_x, mut lo_y, mut hi_y) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for r in &placed {
        (lo_x, hi_x, lo_y, hi_y) = (lo_x.min(r.2), hi_x.max(r.2), lo_y.min(r.3), hi_y.max(r.3));
    }
    assert!(
        w <= lo_x && e >= hi_x && so <= lo_y && n >= hi_y,
        "{header}"
    );
    assert!(
        lo_x - w < 15.0 && e - hi_x < 15.0 && lo_y - so < 15.0 && n - hi_y < 15.0,
        "{header} vs x {lo_x}..{hi_x} y {lo_y}..{hi_y}"
    );

    // pyproj: each placed point taken through the output's geoReference lands where the original
    // point turned by the heading and moved to the origin is (a geodesic from the origin).
    let proj4 = peer_proj4(&bin, &out);
    let pts = dir.join("pairs.csv");
    let mut text = String::new();
    for (a, b) in orig.iter().zip(&placed) {
        assert_eq!((&a.0, a.1), (&b.0, b.1));
        text.push_str(&format!("{},{},{},{}\n", a.2, a.3, b.2, b.3));
    }
    std::fs::write(&pts, text).expect("write");
    let script = r#"
import math, sys
from pyproj import Geod, Transformer
proj4, lat0, lon0, hdg, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
to_wgs = Transformer.from_crs(proj4, "EPSG:4326", always_xy=True)
g = Geod(ellps="WGS84")
worst = 0.0
n = 0
for line in open(path):
    ox, oy, px, py = map(float, line.split(","))
    lon, lat = to_wgs.transform(px, py)
    # Compass azimuth of the original point seen from (0,0), with +x at the heading.
    az = hdg - math.degrees(math.atan2(oy, ox))
    elon, elat, _ = g.fwd(lon0, lat0, az, math.hypot(ox, oy))
    _, _, d = g.inv(lon, lat, elon, elat)
    worst = max(worst, d)
    n += 1
print(n, worst)
"#;
    let Some(res) = python::run(
        "pyproj",
        script,
        &[
            &proj4,
            &lat.to_string(),
            &lon.to_string(),
            &heading.to_string(),
            p(&pts),
        ],
    ) else {
        return;
    };
    let v: Vec<f64> = res.split_whitespace().map(num).collect();
    println!(
        "placed X-intersection: {} points, readers agree within {:.2e} m, worst geodesic miss {:.2e} m",
        v[0], worst_readers, v[1]
    );
    assert!(v[0] >= 50.0 && v[1] <= 0.01, "{res}");

    // Everything but the placed poses and the header is as it was.
    let a = std::fs::read_to_string(&src).expect("read");
    let b = std::fs::read_to_string(&out).expect("read");
    let changed = a
        .lines()
        .zip(b.lines().filter(|l| {
            !l.contains("geoReference")
                && !l.contains("<offset")
                && !l.contains("<userData code=\"scil:site\"")
                && !l.contains("</header>")
        }))
        .filter(|(x, y)| x != y)
        .filter(|(x, _)| !x.contains("<geometry") && !x.contains("<header"))
        .count();
    assert_eq!(changed, 0);
}

/// The survey drive and its positions in the output map's frame (pyproj, through the geoReference
/// libOpenDRIVE reads): every recorded position, standing and rolling back included.
fn drive_xy(proj4: &str, drive: &Path, out: &Path) -> Option<usize> {
    let script = r#"
import csv, sys
from pyproj import Transformer
t = Transformer.from_crs("EPSG:4326", sys.argv[1], always_xy=True)
rows = list(csv.reader(open(sys.argv[2])))[1:]
with open(sys.argv[3], "w") as f:
    f.write("x,y\n")
    for r in rows:
        x, y = t.transform(float(r[2]), float(r[1]))
        f.write(f"{x:.6f},{y:.6f}\n")
print(len(rows))
"#;
    python::run("pyproj", script, &[proj4, p(drive), p(out)]).map(|s| s.trim().parse().expect("n"))
}

#[test]
fn surveyed_road_follows_the_drive() {
    let Some(bin) = odr_peer::binary() else {
        return;
    };
    let dir = support::tempdir("map-survey");
    let drive = data("replays/survey_drive_wgs84.csv");
    let out = dir.join("survey.xodr");
    let (code, report, err) = scil(&[
        "map",
        "survey",
        p(&drive),
        "-o",
        p(&out),
        "--lane-width",
        "3.5",
        "--lanes-right",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    println!("{report}");
    assert!(
        report.contains("standing dropped") && report.contains("worst"),
        "{report}"
    );
    let (code, info, err) = scil(&["map", "info", p(&out)]);
    assert_eq!(code, 0, "{err}");
    assert!(info.contains("spiral"), "{info}");

    // libOpenDRIVE: one road, at most one geometry per 10 m.
    let peer_info = odr_peer::rows(&bin, &out, &["info"]);
    let road = &peer_info[1];
    let (length, geometries) = (num(&road[1]), num(&road[2]));
    assert!(length > 140.0 && length < 170.0, "length {length}");
    assert!(
        geometries <= length / 10.0,
        "{geometries} geometries on {length} m"
    );
    // Both readers agree on the reference line within 1 mm.
    let line = peer_ref(&bin, &out, "0.5");
    let ours = scil_ref(&out, &line, &dir);
    let worst_readers = line
        .iter()
        .zip(&ours)
        .map(|(a, b)| (a.2 - b.0).hypot(a.3 - b.1))
        .fold(0.0, f64::max);
    assert!(
        worst_readers <= 1e-3,
        "libOpenDRIVE vs scil: {worst_readers} m"
    );

    // Every recorded position is within 0.10 m of the line as libOpenDRIVE evaluates it.
    let proj4 = peer_proj4(&bin, &out);
    let xy = dir.join("xy.csv");
    let Some(n) = drive_xy(&proj4, &drive, &xy) else {
        return;
    };
    let matched = odr_peer::rows(&bin, &out, &["match", p(&xy)]);
    assert_eq!(matched.len(), n);
    let d: Vec<f64> = matched.iter().map(|r| num(&r[4])).collect();
    let worst = d.iter().cloned().fold(0.0, f64::max);
    let mean = d.iter().sum::<f64>() / d.len() as f64;
    println!(
        "survey: {n} positions, libOpenDRIVE distance worst {worst:.4} m mean {mean:.4} m; {geometries} geometries on {length:.1} m; readers agree within {worst_readers:.2e} m"
    );
    assert!(worst <= 0.10, "worst {worst}");

    // scil map locate: every position on the road, |t| ≤ 0.10 m.
    let (code, located, err) = scil(&["map", "locate", p(&out), "--points", p(&xy)]);
    assert_eq!(code, 0, "{err}");
    let mut count = 0;
    for l in located.lines().skip(1) {
        let c: Vec<&str> = l.split(',').collect();
        assert!(!c[2].is_empty(), "off the road: {l}");
        assert!(num(c[5]).abs() <= 0.10, "{l}");
        count += 1;
    }
    assert_eq!(count, n);
}

#[test]
fn survey_reads_ncom_and_refuses_what_it_cannot_fit() {
    let dir = support::tempdir("map-survey-bad");
    let drive = data("replays/survey_drive_wgs84.csv");
    // The same drive as an NCOM capture (the simulated INS).
    let ncom = dir.join("drive.ncom");
    let (code, _, err) = scil(&["feed", p(&drive), "--save", p(&ncom), "--rate", "25"]);
    assert_eq!(code, 0, "{err}");
    let out = dir.join("from_ncom.xodr");
    let (code, report, err) = scil(&[
        "map",
        "survey",
        p(&ncom),
        "-o",
        p(&out),
        "--lane-width",
        "3.5",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(report.contains("reversing dropped"), "{report}");
    let worst: f64 = report
        .lines()
        .find_map(|l| l.strip_prefix("distance     worst "))
        .and_then(|l| l.split_whitespace().next())
        .map(num)
        .expect("worst in the report");
    assert!(worst <= 0.10, "{report}");

    // Map x/y instead of positions.
    let (code, _, err) = scil(&[
        "map",
        "survey",
        p(&data("replays/cpna75_30kmh.csv")),
        "-o",
        p(&dir.join("x.xodr")),
        "--lane-width",
        "3.5",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("WGS84"), "{err}");
    // Too short: the first 20 rows.
    let text = std::fs::read_to_string(&drive).expect("read");
    let short = dir.join("short.csv");
    std::fs::write(
        &short,
        text.lines().take(80).collect::<Vec<_>>().join("\n") + "\n",
    )
    .expect("write");
    let (code, _, err) = scil(&[
        "map",
        "survey",
        p(&short),
        "-o",
        p(&dir.join("y.xodr")),
        "--lane-width",
        "3.5",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("too short"), "{err}");
    // A bad origin is refused with the reason.
    let (code, _, err) = scil(&[
        "map",
        "place",
        p(&data("opendrive/proving_ground.xodr")),
        "--origin",
        "47.1",
        "--heading",
        "0",
        "-o",
        p(&dir.join("z.xodr")),
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("LAT,LON"), "{err}");
    // A scenario is turned by the site a placed map records; a map without one needs --heading.
    let (code, _, err) = scil(&[
        "scenario",
        "place",
        p(&data("scenarios/cpna75_30kmh.toml")),
        "--map",
        p(&data("opendrive/proving_ground.xodr")),
        "-o",
        p(&dir.join("s.toml")),
    ]);
    assert_ne!(code, 0);
    assert!(
        err.contains("records no site") && err.contains("--heading"),
        "{err}"
    );
}
