//! The test house's logger files against independent writers: python-can writes the bundled
//! candump log as Vector BLF, ASC and MDF4 bus logging; asammdf writes the bundled replay as
//! MDF4 physical channels; a VBOX file is written from the OxTS export following Racelogic's
//! format. scil decodes, replays and converts them; files of the wrong kind are refused.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use crate::support::{python, shared, tempdir};
use scil::ingest::csv::BadRowPolicy;
use scil::run::{replay_csv, RunReport, RunSetup};
use scil::scenario::engine::EngineConfig;

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
    p.to_str().unwrap()
}

/// python-can writes the bundled candump log as `out` (kind by extension).
const WRITE_CAN: &str = r#"
import sys, can
msgs = list(can.LogReader(sys.argv[1]))
with can.Logger(sys.argv[2]) as w:
    for m in msgs:
        w.on_message_received(m)
print(len(msgs))
"#;

/// (time, frame id, message, signal, value) rows of a decode.
fn rows(text: &str) -> Vec<(f64, u32, String, String, f64)> {
    text.lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (
                c[0].parse().unwrap(),
                c[1].parse().unwrap(),
                c[2].to_string(),
                c[3].to_string(),
                c[4].parse().unwrap(),
            )
        })
        .collect()
}

/// Every value of the reference decode, in order; times equal to the reference's up to one
/// offset for the whole file (BLF and ASC keep the start time to the millisecond or less:
/// python-can writes the first frame's time that way), within 1 µs frame to frame.
fn assert_decodes_like_reference(kind: &str, got: &str, max_offset: f64) {
    let mut want = rows(&std::fs::read_to_string(shared("can/cpna75_30kmh.decoded.csv")).unwrap());
    let mut got = rows(got);
    assert_eq!(got.len(), want.len(), "{kind}: rows");
    let offset = got[0].0 - want[0].0;
    // The signals of one frame in name order (the DBC's order is not the reference's).
    let key = |r: &(f64, u32, String, String, f64), off: f64| {
        (((r.0 - off) * 1e5).round() as i64, r.1, r.3.clone())
    };
    got.sort_by_key(|r| key(r, offset));
    want.sort_by_key(|r| key(r, 0.0));
    assert!(offset.abs() <= max_offset, "{kind}: time offset {offset}");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!((g.1, &g.2, &g.3), (w.1, &w.2, &w.3), "{kind}");
        assert!((g.4 - w.4).abs() < 1e-9, "{kind}: {g:?} vs {w:?}");
        assert!(
            (g.0 - offset - w.0).abs() < 1.5e-6,
            "{kind}: time {g:?} vs {w:?} (offset {offset})"
        );
    }
}

#[test]
fn python_can_logs_decode_to_the_reference() {
    let dir = tempdir("loggers-can");
    let dbc = shared("can/vut.dbc");
    let log = shared("can/cpna75_30kmh.log");
    // BLF: python-can leaves the header's start time empty for a time before 1990 (the log
    // is in GPS seconds of the week), so the times are offsets from the first frame's.
    // ASC: the trigger block's date carries the start to the second and a tenth.
    // MDF4: the header's start time plus the master channel: the times as logged.
    for (ext, max_offset) in [("blf", 387_001.0), ("asc", 0.001), ("mf4", 1e-6)] {
        let out = dir.join(format!("log.{ext}"));
        if python::run("can", WRITE_CAN, &[s(&log), s(&out)]).is_none() {
            return;
        }
        // Not told by the name: the file is renamed.
        let renamed = dir.join(format!("{ext}.data"));
        std::fs::rename(&out, &renamed).unwrap();
        let (code, got, err) = scil(&["can", "decode", s(&dbc), s(&renamed)]);
        assert_eq!(code, 0, "{ext}: {err}");
        assert!(err.contains("0 malformed"), "{ext}: {err}");
        assert_decodes_like_reference(ext, &got, max_offset);
    }
}

#[test]
fn a_file_of_the_wrong_kind_is_refused_naming_it() {
    let dir = tempdir("loggers-refuse");
    let dbc = shared("can/vut.dbc");
    let log = shared("can/cpna75_30kmh.log");
    let csv = shared("replays/cpna75_30kmh.csv");
    let sc = shared("scenarios/cpna75_30kmh.toml");
    let blf = dir.join("log.blf");
    if python::run("can", WRITE_CAN, &[s(&log), s(&blf)]).is_none() {
        return;
    }
    // A BLF where a recording is read.
    let (code, _, err) = scil(&["replay", s(&blf), "--scenario", s(&sc)]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("log.blf is a Vector BLF file: give it as a CAN log"),
        "{err}"
    );
    // A recording where a CAN log is read.
    let (code, _, err) = scil(&["can", "decode", s(&dbc), s(&csv)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cpna75_30kmh.csv is a CSV file"), "{err}");
    // A log with no frame the DBC knows: an error, not an empty table.
    let empty = dir.join("empty.log");
    std::fs::write(&empty, "(1.0) can0 7FF#00\n").unwrap();
    let (code, _, err) = scil(&["can", "decode", s(&dbc), s(&empty)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no frame decoded"), "{err}");
    // A recording with no sample: an error.
    let header_only = dir.join("header.csv");
    std::fs::write(&header_only, "Time,PosX,PosY,Heading,Velocity\n").unwrap();
    let (code, _, err) = scil(&["replay", s(&header_only), "--scenario", s(&sc)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no sample"), "{err}");
}

fn replay(path: &Path) -> RunReport {
    let setup = Arc::new(
        RunSetup::load(
            &shared("scenarios/cpna75_30kmh.toml"),
            None,
            EngineConfig::default(),
        )
        .expect("scenario"),
    );
    let r = replay_csv(setup, path, BadRowPolicy::Stop).expect("replay");
    assert!(r.error.is_none(), "{:?}", r.error);
    r
}

/// asammdf writes the replay's columns as channels (units as MDF units), `Time` as master.
const WRITE_MDF: &str = r#"
import sys, csv
import numpy as np
from asammdf import MDF, Signal
rows = list(csv.DictReader(open(sys.argv[1])))
t = np.array([float(r["Time"]) for r in rows])
units = {"PosX": "m", "PosY": "m", "Heading": "deg", "Velocity": "km/h",
         "Steering_Angle": "deg", "Brake_Light": ""}
sigs = []
for name, unit in units.items():
    v = np.array([float(r[name]) for r in rows])
    if name == "Brake_Light":
        v = v.astype(np.uint8)
    sigs.append(Signal(v, t, name=name, unit=unit))
m = MDF(version=sys.argv[3])
m.append(sigs, comment="scil replay")
m.save(sys.argv[2], overwrite=True, compression=int(sys.argv[4]))
"#;

#[test]
fn an_asammdf_replay_triggers_and_impacts_as_its_csv() {
    let dir = tempdir("loggers-mdf");
    let csv = shared("replays/cpna75_30kmh.csv");
    let base = replay(&csv);
    assert!(!base.triggers.is_empty() && !base.impacts.is_empty());
    // 4.10 plain, 4.10 deflate, 4.20 transposed deflate.
    for (version, compression) in [("4.10", "0"), ("4.10", "1"), ("4.20", "2")] {
        let mf4 = dir.join(format!("run-{version}-{compression}.mf4"));
        if python::run(
            "asammdf",
            WRITE_MDF,
            &[s(&csv), s(&mf4), version, compression],
        )
        .is_none()
        {
            return;
        }
        let r = replay(&mf4);
        let what = format!("MDF {version}, compression {compression}");
        assert_eq!(r.samples, base.samples, "{what}");
        assert_eq!(r.triggers.len(), base.triggers.len(), "{what}");
        for (a, b) in r.triggers.iter().zip(&base.triggers) {
            assert!(
                (a.time_s - b.time_s).abs() < 1e-6,
                "{what}: trigger {a:?} vs {b:?}"
            );
            assert!((a.ttc_s - b.ttc_s).abs() < 1e-6, "{what}");
        }
        for (a, b) in r.impacts.iter().zip(&base.impacts) {
            let (ta, tb) = (a.time_s.unwrap(), b.time_s.unwrap());
            assert!((ta - tb).abs() < 1e-6, "{what}: impact {ta} vs {tb}");
            let (da, db) = (a.dummy_travel_m.unwrap(), b.dummy_travel_m.unwrap());
            assert!((da - db).abs() < 1e-3, "{what}: impact place {da} vs {db}");
        }
    }
}

/// A VBOX file from the OxTS export, following Racelogic's format: lat/long in minutes,
/// longitude positive west, UTC hhmmss.ss, km/h, degrees. Prints the values written.
const WRITE_VBO: &str = r#"
import sys, csv
rows = list(csv.reader(open(sys.argv[1])))
head = [h.strip() for h in rows[0]]
col = {h: i for i, h in enumerate(head)}
out = open(sys.argv[2], "w", newline="\r\n")
out.write("File created on 27/11/2026 at 10:00:00\n\n[header]\nsatellites\ntime\nlatitude\nlongitude\nvelocity kmh\nheading\nheight\n\n")
out.write("[channel units]\n\n\n\nkmh\ndeg\nm\n\n[comments]\nOxTS drive, CPNA-75 30 km/h\n\n[column names]\nsats time lat long velocity heading height\n\n[data]\n")
print("time,lat,lon,speed_kmh,heading")
for r in rows[1:]:
    t = float(r[col["Time()"]])
    tod = t % 86400.0
    hh, rem = divmod(tod, 3600.0); mm, ss = divmod(rem, 60.0)
    lat = float(r[col["Latitude(deg)"]]); lon = float(r[col["Longitude(deg)"]])
    v = float(r[col["Speed horizontal(m/s)"]]) * 3.6
    hdg = float(r[col["Heading(deg)"]]); h = float(r[col["Altitude(m)"]])
    out.write("011 %02d%02d%05.2f %+012.7f %+013.7f %07.3f %06.2f %+09.2f\n" % (hh, mm, ss, lat * 60.0, -lon * 60.0, v, hdg, h))
    print("%r,%r,%r,%r,%r" % (tod, float("%.7f" % (lat * 60.0)) / 60.0, -float("%.7f" % (-lon * 60.0)) / 60.0, float("%.3f" % v), float("%.2f" % hdg)))
"#;

#[test]
fn a_vbo_converts_to_the_positions_written() {
    let dir = tempdir("loggers-vbo");
    let src = shared("replays/cpna75_30kmh_wgs84.csv");
    let vbo = dir.join("drive.vbo");
    let Some(written) = python::run("csv", WRITE_VBO, &[s(&src), s(&vbo)]) else {
        return;
    };
    let out = dir.join("drive.csv");
    let (code, _, err) = scil(&["convert", s(&vbo), "-o", s(&out)]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| head.iter().position(|h| h.starts_with(n)).unwrap();
    let (ti, la, lo, v, h) = (
        col("Time"),
        col("Latitude"),
        col("Longitude"),
        col("Velocity"),
        col("Heading"),
    );
    let want: Vec<Vec<f64>> = written
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect();
    let got: Vec<Vec<f64>> = lines
        .map(|l| {
            l.split(',')
                .map(|c| c.parse().unwrap_or(f64::NAN))
                .collect()
        })
        .collect();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!((g[ti] - w[0]).abs() < 0.006, "time {} vs {}", g[ti], w[0]);
        assert!((g[la] - w[1]).abs() < 1e-6, "lat {} vs {}", g[la], w[1]);
        assert!((g[lo] - w[2]).abs() < 1e-6, "lon {} vs {}", g[lo], w[2]);
        assert!((g[v] - w[3]).abs() < 1e-9, "speed {} vs {}", g[v], w[3]);
        assert!((g[h] - w[4]).abs() < 1e-9, "heading {} vs {}", g[h], w[4]);
    }
    // The VBOX file replays like the export it came from (same trigger within a sample).
    let a = replay(&vbo);
    let b = replay(&src);
    assert_eq!(a.triggers.len(), b.triggers.len());
}
