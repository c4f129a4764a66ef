//! GeneSys ADMAnet: a raw v3.3.3 recording of a real drive, written by an encoder of its own
//! (`tests/peers/adma_pack.py`: ctypes lays out GeneSys's published structs), read back by
//! `scil convert` and, sent packet by packet, by `scil listen --adma`.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{free_udp_port, shared, tempdir};

const PACK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/adma_pack.py");

/// Writes the recording (with three malformed packets among the drive's when `malformed`);
/// returns the expected rows: time, lat, lon, alt, heading, speed, accel, clockwise rate °/s.
fn pack(dir: &Path, malformed: bool) -> Option<Vec<[f64; 8]>> {
    let drive = shared("replays/cpna75_30kmh_wgs84.csv");
    let (out, exp) = (dir.join("drive.adma"), dir.join("expected.csv"));
    let mut args = vec![
        drive.to_str()?.to_string(),
        out.to_str()?.to_string(),
        exp.to_str()?.to_string(),
    ];
    if malformed {
        args.push("--malformed".into());
    }
    let script = format!("import runpy, sys; sys.argv = [{PACK:?}] + sys.argv[1:]; runpy.run_path({PACK:?}, run_name='__main__')");
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    crate::support::python::run("ctypes", &script, &refs)?;
    let text = std::fs::read_to_string(exp).expect("expected csv");
    Some(
        text.lines()
            .skip(1)
            .map(|l| {
                let v: Vec<f64> = l.split(',').map(|c| c.parse().expect("number")).collect();
                [v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]]
            })
            .collect(),
    )
}

fn scil() -> Command {
    Command::new(env!("CARGO_BIN_EXE_scil"))
}

fn close(what: &str, i: usize, got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol,
        "row {i} {what}: got {got}, want {want} (tolerance {tol})"
    );
}

fn heading_diff(a: f64, b: f64) -> f64 {
    (a - b + 540.0).rem_euclid(360.0) - 180.0
}

#[test]
fn a_recording_converts_to_the_drive_within_the_format_s_resolution() {
    let dir = tempdir("adma-convert");
    let Some(want) = pack(&dir, true) else { return };
    let out = dir.join("out.csv");
    let o = scil()
        .args(["convert"])
        .arg(dir.join("drive.adma"))
        .arg("-o")
        .arg(&out)
        .output()
        .expect("scil runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).expect("converted");
    let mut lines = text.lines();
    assert!(lines
        .next()
        .expect("header")
        .starts_with("Time,Latitude(deg)"));
    let rows: Vec<Vec<f64>> = lines
        .map(|l| {
            l.split(',')
                .take(6)
                .map(|c| c.parse().expect("number"))
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), want.len(), "every good packet is a sample");
    for (i, (r, w)) in rows.iter().zip(&want).enumerate() {
        close("time", i, r[0], w[0], 0.001);
        // 1e-7° steps: half a step, plus the decimal printing of the drive.
        close("latitude", i, r[1], w[1], 0.5e-7 + 1e-12);
        close("longitude", i, r[2], w[2], 0.5e-7 + 1e-12);
        close("altitude", i, r[3], w[3], 0.01);
        close("heading", i, heading_diff(r[4], w[4]), 0.0, 0.01);
        close("speed", i, r[5] / 3.6, w[5], 0.005);
    }
}

#[test]
fn listen_gives_the_same_samples_and_counts_the_malformed_packets() {
    let dir = tempdir("adma-listen");
    let Some(want) = pack(&dir, true) else { return };
    let hex = std::fs::read_to_string(dir.join("drive.adma.hex")).expect("hex");
    let datagrams: Vec<Vec<u8>> = hex
        .lines()
        .map(|l| {
            (0..l.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&l[i..i + 2], 16).expect("hex"))
                .collect()
        })
        .collect();
    assert_eq!(datagrams.len(), want.len() + 3);
    let port = free_udp_port();
    let mut child = scil()
        .args(["listen", "--adma", &format!("127.0.0.1:{port}")])
        .args(["--count", &want.len().to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("scil listen");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    stderr.read_line(&mut line).expect("listening line");
    assert!(line.contains("adma-udp"), "{line}");
    // Samples reach the output once the source is started, just after that line.
    std::thread::sleep(Duration::from_millis(300));
    let sock = std::net::UdpSocket::bind("127.0.0.1:0").expect("bind");
    let stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map(|l| l.expect("line"))
            .collect::<Vec<String>>()
    });
    for d in &datagrams {
        sock.send_to(d, ("127.0.0.1", port)).expect("send");
        // Paced so a loaded machine does not drop datagrams from the socket buffer.
        std::thread::sleep(Duration::from_micros(300));
    }
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if t0.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("listen did not stop after its count");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    let lines = reader.join().expect("reader");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).expect("summary");
    let health: serde_json::Value =
        serde_json::from_str(rest.lines().last().expect("summary line")).expect("json");
    let h = &health[0];
    assert_eq!(h["malformed"], 3, "{h}");
    for kind in ["too_short", "other_id", "unknown_version"] {
        assert_eq!(h["rejected"][kind], 1, "{kind}: {h}");
    }
    assert_eq!(lines.len(), want.len());
    for (i, (l, w)) in lines.iter().zip(&want).enumerate() {
        let v: serde_json::Value = serde_json::from_str(l).expect("json line");
        let f = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k} in {l}"));
        close("time", i, f("t"), w[0], 0.001);
        close("latitude", i, f("lat"), w[1], 0.5e-7 + 1e-12);
        close("longitude", i, f("lon"), w[2], 0.5e-7 + 1e-12);
        close(
            "heading",
            i,
            heading_diff(f("heading_deg"), w[4]),
            0.0,
            0.01,
        );
        close("speed", i, f("speed_mps"), w[5], 0.005);
        // One step: 0.0004 g; 0.01 °/s (clockwise in the packet, counter-clockwise in scil).
        close(
            "acceleration",
            i,
            f("accel_mps2"),
            w[6],
            0.0004 * 9.80665 + 1e-9,
        );
        close(
            "yaw rate",
            i,
            f("yaw_rate_rps").to_degrees(),
            -w[7],
            0.01 + 1e-9,
        );
    }
}

#[test]
fn feed_sends_a_replay_as_admanet_that_converts_back_to_it() {
    let dir = tempdir("adma-feed");
    let drive = shared("replays/cpna75_30kmh_wgs84.csv");
    let saved = dir.join("fed.adma");
    let sink = std::net::UdpSocket::bind("127.0.0.1:0").expect("bind");
    let to = sink.local_addr().expect("addr").to_string();
    let o = scil()
        .arg("feed")
        .arg(&drive)
        .args(["--adma", &to, "--speed", "0", "--save"])
        .arg(&saved)
        .output()
        .expect("scil feed");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(&saved).expect("saved");
    assert_eq!(bytes.len() % 856, 0);
    assert_eq!(&bytes[..4], b"GBIN");
    let out = dir.join("back.csv");
    let o = scil()
        .arg("convert")
        .arg(&saved)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("scil convert");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let parse = |text: &str| -> Vec<Vec<f64>> {
        text.lines()
            .skip(1)
            .map(|l| {
                l.split(',')
                    .take(3)
                    .map(|c| c.trim().parse().expect("number"))
                    .collect()
            })
            .collect()
    };
    let back = parse(&std::fs::read_to_string(&out).expect("converted"));
    let want = parse(&std::fs::read_to_string(&drive).expect("drive"));
    // The feed sends at 100 Hz, the drive is at 25 Hz: every drive row is one of the packets.
    let mut matched = 0;
    for w in &want {
        if let Some(b) = back.iter().find(|b| (b[0] - w[0]).abs() < 5e-4) {
            close("latitude", matched, b[1], w[1], 0.5e-7 + 1e-9);
            close("longitude", matched, b[2], w[2], 0.5e-7 + 1e-9);
            matched += 1;
        }
    }
    assert_eq!(matched, want.len());
}
