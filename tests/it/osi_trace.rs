//! ASAM OSI traces of a replay and a simulated run, read back with ASAM's own Python bindings
//! (`osi3`, `osi3trace` of the `osi-python` package): every message decodes, one per VUT
//! sample, the host vehicle sits on the recorded telemetry once the reference-point shift is
//! undone, and the dummy is a pedestrian.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::support;

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(rel)
}

fn scil(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_scil"))
        .args(args)
        .output()
        .expect("run scil");
    assert!(
        out.status.success(),
        "scil {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object on stdout")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("scil-osi-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).expect("tmp dir");
    d
}

/// The bundled CPNA-75 scenario with the INS reference point `ref_to_front` behind the front
/// bumper of the 4.6 m VUT (the bundled one has it at the centre, which hides the shift).
fn scenario(dir: &Path, ref_to_front: f64) -> PathBuf {
    let text = std::fs::read_to_string(data("scenarios/cpna75_30kmh.toml")).expect("scenario");
    let map = data("opendrive/proving_ground.xodr");
    let text = text
        .replace(
            "map = \"../opendrive/proving_ground.xodr\"",
            &format!("map = {:?}", map.display().to_string()),
        )
        .replace(
            "reference_to_front_m = 2.3",
            &format!("reference_to_front_m = {ref_to_front}"),
        );
    let p = dir.join("scenario.toml");
    std::fs::write(&p, text).expect("write scenario");
    p
}

/// Reads the trace with `osi3trace.OSITrace`; checks each message against the CSV (when one is
/// given) and prints a JSON summary.
const PY_CHECK: &str = r#"
import csv, json, math, sys
from osi3trace.osi_trace import OSITrace
from osi3.osi_object_pb2 import MovingObject

path, csv_path, forward = sys.argv[1], sys.argv[2], float(sys.argv[3])
msgs = list(OSITrace(path, "SensorView"))
rows = list(csv.DictReader(open(csv_path))) if csv_path else None
if rows is not None:
    assert len(msgs) == len(rows), (len(msgs), len(rows))
worst_m, worst_dt, worst_yaw = 0.0, 0.0, 0.0
ids = None
pedestrians = 0
for i, m in enumerate(msgs):
    assert m.version.version_major == 3 and m.version.version_minor >= 7, m.version
    gt = m.global_ground_truth
    assert m.timestamp == gt.timestamp, i
    assert m.host_vehicle_id.value == gt.host_vehicle_id.value, i
    hosts = [o for o in gt.moving_object if o.id.value == m.host_vehicle_id.value]
    assert len(hosts) == 1, i
    h = hosts[0]
    assert h.type == MovingObject.TYPE_VEHICLE, h.type
    assert h.vehicle_classification.type == MovingObject.VehicleClassification.TYPE_CAR
    assert h.vehicle_attributes.HasField("bbcenter_to_rear")
    these = sorted(o.id.value for o in gt.moving_object)
    assert ids is None or these == ids, (i, these, ids)
    ids = these
    for o in gt.moving_object:
        refs = [list(r.identifier) for r in o.source_reference]
        if ["dummy"] in refs:
            assert o.type == MovingObject.TYPE_PEDESTRIAN, (i, o.type)
            pedestrians += 1
    if rows is not None:
        r = rows[i]
        t = m.timestamp.seconds + m.timestamp.nanos * 1e-9
        worst_dt = max(worst_dt, abs(t - float(r["Time"])))
        yaw = h.base.orientation.yaw
        x = h.base.position.x - forward * math.cos(yaw)
        y = h.base.position.y - forward * math.sin(yaw)
        worst_m = max(worst_m, math.hypot(x - float(r["PosX"]), y - float(r["PosY"])))
        d = (yaw - math.radians(90.0 - float(r["Heading"])) + math.pi) % (2 * math.pi) - math.pi
        worst_yaw = max(worst_yaw, abs(d))
first = msgs[0].global_ground_truth
print(json.dumps({
    "messages": len(msgs), "worst_m": worst_m, "worst_dt": worst_dt, "worst_yaw": worst_yaw,
    "pedestrians": pedestrians, "lanes": len(first.lane),
    "boundaries": len(first.lane_boundary),
    "later_lanes": sum(len(m.global_ground_truth.lane) for m in msgs[1:]),
}))
"#;

fn check(trace: &Path, csv: Option<&Path>, forward: f64) -> Option<serde_json::Value> {
    let csv = csv.map(|c| c.display().to_string()).unwrap_or_default();
    let out = support::python::run(
        "osi3trace.osi_trace",
        PY_CHECK,
        &[trace.to_str().unwrap(), &csv, &forward.to_string()],
    )?;
    Some(serde_json::from_str(out.trim()).expect("python summary"))
}

#[test]
fn replay_trace_matches_the_telemetry_in_asams_reader() {
    let dir = tmp("replay");
    // Reference point 3.6 m behind the front of the 4.6 m VUT: the box centre is 1.3 m ahead.
    let sc = scenario(&dir, 3.6);
    let csv = data("replays/cpna75_30kmh.csv");
    let trace = dir.join("run.osi");
    let report = scil(&[
        "replay",
        csv.to_str().unwrap(),
        "--scenario",
        sc.to_str().unwrap(),
        "--osi",
        trace.to_str().unwrap(),
        "--json",
    ]);
    let samples = report["samples"].as_u64().expect("samples");
    assert_eq!(
        report["osi"]["messages"].as_u64(),
        Some(samples),
        "{report}"
    );
    assert_eq!(report["osi"]["version"], "3.8.0");
    // scil's own reader agrees on the framing.
    let bytes = std::fs::read(&trace).expect("trace");
    assert_eq!(report["osi"]["bytes"].as_u64(), Some(bytes.len() as u64));
    assert_eq!(
        scil::osi::trace::read(&bytes).expect("trace").len() as u64,
        samples
    );
    let Some(v) = check(&trace, Some(&csv), 1.3) else {
        return;
    };
    assert_eq!(v["messages"].as_u64(), Some(samples), "{v}");
    assert!(v["worst_m"].as_f64().unwrap() < 0.001, "{v}");
    assert!(v["worst_dt"].as_f64().unwrap() < 1e-6, "{v}");
    assert!(v["worst_yaw"].as_f64().unwrap() < 1e-9, "{v}");
    assert_eq!(v["pedestrians"].as_u64(), Some(samples), "{v}");
    assert!(v["lanes"].as_u64().unwrap() > 0, "{v}");
    assert!(v["boundaries"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["later_lanes"], 0, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sim_trace_decodes_in_asams_reader() {
    let dir = tmp("sim");
    let sc = scenario(&dir, 2.3);
    let trace = dir.join("sim.osi");
    let report = scil(&[
        "sim",
        "--scenario",
        sc.to_str().unwrap(),
        "--vut-speed",
        "30",
        "--osi",
        trace.to_str().unwrap(),
        "--json",
    ]);
    let samples = report["samples"].as_u64().expect("samples");
    assert!(samples > 100, "{report}");
    assert_eq!(
        report["osi"]["messages"].as_u64(),
        Some(samples),
        "{report}"
    );
    let Some(v) = check(&trace, None, 0.0) else {
        return;
    };
    assert_eq!(v["messages"].as_u64(), Some(samples), "{v}");
    assert_eq!(v["pedestrians"].as_u64(), Some(samples), "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reads length-prefixed messages until the server closes the connection.
async fn read_stream(mut s: tokio::net::TcpStream) -> Vec<u8> {
    use tokio::io::AsyncReadExt;
    let mut out = Vec::new();
    loop {
        let mut len = [0u8; 4];
        if s.read_exact(&mut len).await.is_err() {
            return out;
        }
        let mut m = vec![0u8; u32::from_le_bytes(len) as usize];
        s.read_exact(&mut m).await.expect("a whole message");
        out.extend_from_slice(&len);
        out.extend_from_slice(&m);
    }
}

/// Counts the SensorViews of the OSI channel of an MCAP with `osi3trace` (ASAM's reader of
/// multi-channel traces) and checks each against the trace file's message of the same index.
const PY_MCAP: &str = r#"
import json, sys
from osi3trace.osi_trace import OSITrace
mc = list(OSITrace(sys.argv[1], "SensorView"))
tr = list(OSITrace(sys.argv[2], "SensorView"))
same = sum(1 for a, b in zip(mc, tr) if a == b)
print(json.dumps({"mcap": len(mc), "trace": len(tr), "same": same,
                  "lanes": len(mc[0].global_ground_truth.lane) if mc else 0}))
"#;

/// A service run with a live OSI stream: the stream sends one SensorView per VUT sample and
/// closes when the run ends; `GET /runs/{id}/osi` and `scil export --osi` give the very same
/// bytes; the run's MCAP recording carries the same messages on its OSI channel.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn service_run_streams_osi_and_stores_the_same_trace() {
    use reqwest::StatusCode;
    let dir = support::tempdir("osi-service");
    let (_server, base) = support::service::spawn(&dir, "op").await;
    let c = support::http::Api::new(base, "op");
    let (st, run) = c
        .post(
            "/runs",
            serde_json::json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh",
                               "speed": 10, "record": true, "osi": {"tcp": "127.0.0.1:0"}}),
        )
        .await;
    assert_eq!(st, StatusCode::CREATED, "{run}");
    let id = run["id"].as_str().expect("id").to_string();
    let addr = run["osi"]["tcp"]
        .as_str()
        .expect("the stream's address")
        .to_string();
    // A second run cannot take the same address while the first holds it.
    let (st, v) = c
        .post(
            "/runs",
            serde_json::json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh",
                               "osi": {"tcp": addr}}),
        )
        .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let sock = tokio::net::TcpStream::connect(&addr)
        .await
        .expect("connect");
    let reader = tokio::spawn(read_stream(sock));
    for action in ["arm", "start"] {
        let (st, v) = c.post_empty(&format!("/runs/{id}/{action}")).await;
        assert_eq!(st, StatusCode::OK, "{action}: {v}");
    }
    let done = c
        .wait_terminal(&id, std::time::Duration::from_secs(60))
        .await;
    assert_eq!(done["state"], "finished", "{done}");
    let streamed = tokio::time::timeout(std::time::Duration::from_secs(10), reader)
        .await
        .expect("the stream closes when the run ends")
        .expect("reader");
    let (_, res) = c.get(&format!("/runs/{id}/results")).await;
    let samples = res["samples"].as_u64().expect("samples");
    let views = scil::osi::trace::read(&streamed).expect("stream decodes");
    assert_eq!(views.len() as u64, samples);
    let first = views[0].global_ground_truth.as_ref().expect("ground truth");
    assert!(!first.lane.is_empty(), "lanes in the first message");

    let r = c
        .http
        .get(c.url(&format!("/runs/{id}/osi")))
        .send()
        .await
        .expect("GET osi");
    assert_eq!(r.status(), StatusCode::OK);
    let stored = r.bytes().await.expect("body").to_vec();
    assert!(
        stored == streamed,
        "GET /runs/{{id}}/osi differs from the stream"
    );
    let (st, _) = c.get("/runs/nope/osi").await;
    assert_eq!(st, StatusCode::NOT_FOUND);

    let out = dir.join("cli");
    let cli = Command::new(env!("CARGO_BIN_EXE_scil"))
        .args(["export", &id, "--osi", "--database-url"])
        .arg(format!("sqlite://{}", dir.join("scil.db").display()))
        .arg("--out")
        .arg(&out)
        .output()
        .expect("scil export");
    assert!(
        cli.status.success(),
        "{}",
        String::from_utf8_lossy(&cli.stderr)
    );
    let trace = out.join(format!("{id}.osi"));
    assert!(
        std::fs::read(&trace).expect("RUN.osi") == streamed,
        "scil export --osi differs"
    );

    let mcap = dir.join("storage/recordings").join(format!("{id}.mcap"));
    let Some(o) = support::python::run(
        "osi3trace.osi_trace",
        PY_MCAP,
        &[mcap.to_str().unwrap(), trace.to_str().unwrap()],
    ) else {
        return;
    };
    let v: serde_json::Value = serde_json::from_str(o.trim()).expect("python json");
    assert_eq!(v["mcap"].as_u64(), Some(samples), "{v}");
    assert_eq!(v["same"].as_u64(), Some(samples), "{v}");
    assert!(v["lanes"].as_u64().unwrap_or(0) > 0, "{v}");
}
