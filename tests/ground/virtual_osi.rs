//! Mixed reality on stock isoObjects: the VUT's robot drives the pedestrian crossing for real
//! while its pedestrian exists only in the twin (a virtual target), and the twin goes out live
//! as ASAM OSI over TCP. The run finishes valid with the impact where it was planned; the OSI
//! stream shows the pedestrian where the results put it at impact and the host vehicle on the
//! robot's MONR; `GET /runs/{id}/osi` holds the very messages the stream sent.

use std::time::Duration;

use prost::Message;
use reqwest::StatusCode;
use serde_json::json;
use tokio::io::AsyncReadExt;

use crate::service::cpnco_service;
use crate::support;
use crate::{demo_bin, one_at_a_time, stand_in_day, SERIAL};
use scil::osi::osi3::SensorView;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_virtual_pedestrian_against_the_real_robot_streams_osi() {
    let _alone = one_at_a_time();
    let Some(bin) = demo_bin() else { return };
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let ips = ["127.0.0.61"];
    stand_in_day(&bin, &ips, "virtual pedestrian", move || virtual_day(ips)).await;
}

/// Reads length-prefixed messages until the server closes the connection.
async fn read_stream(mut s: tokio::net::TcpStream) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let mut len = [0u8; 4];
        if s.read_exact(&mut len).await.is_err() {
            return out;
        }
        let mut m = vec![0u8; u32::from_le_bytes(len) as usize];
        s.read_exact(&mut m).await.expect("a whole message");
        out.push(m);
    }
}

fn secs(sv: &SensorView) -> f64 {
    scil::osi::seconds(sv.timestamp.as_ref().expect("timestamp"))
}

/// The pedestrian's (x, y) in `sv`.
fn pedestrian(sv: &SensorView) -> Option<(f64, f64)> {
    let gt = sv.global_ground_truth.as_ref()?;
    let o = gt.moving_object.iter().find(|o| {
        o.source_reference
            .iter()
            .any(|r| r.identifier.first().map(String::as_str) == Some("dummy"))
    })?;
    assert_eq!(
        o.r#type,
        Some(scil::osi::osi3::moving_object::Type::Pedestrian as i32)
    );
    assert!(
        o.source_reference[0]
            .identifier
            .iter()
            .any(|i| i == "virtual"),
        "the dummy is marked virtual: {:?}",
        o.source_reference
    );
    let p = o.base.as_ref()?.position?;
    Some((p.x?, p.y?))
}

async fn virtual_day(ips: [&'static str; 1]) {
    let dir = support::tempdir("ground-virtual");
    let (_server, c) = cpnco_service(&dir).await;
    let mobility = json!({"min_turn_radius_m": 5.5, "may_reverse": true,
                          "speed_mps": 12.0, "accel_mps2": 4.0});
    let body = json!({
        "scenario_id": "cpnco-20", "map_id": "proving_ground",
        "source": {"kind": "monr", "carrier": "robot"},
        "carriers": [{"name": "robot", "address": ips[0], "drives": "vut", "mobility": mobility}],
        "virtual": ["dummy"],
        "osi": {"tcp": "127.0.0.1:0"}
    });
    let (st, run) = c.post("/runs", body).await;
    assert_eq!(st, StatusCode::CREATED, "{run}");
    let id = run["id"].as_str().expect("id").to_string();
    assert_eq!(run["source"]["virtual"], json!(["dummy"]), "{run}");
    let addr = run["osi"]["tcp"]
        .as_str()
        .expect("the OSI address")
        .to_string();
    let sock = tokio::net::TcpStream::connect(&addr)
        .await
        .expect("OSI stream");
    let stream = tokio::spawn(read_stream(sock));
    let (st, v) = c.post_empty(&format!("/runs/{id}/arm")).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let (_, v) = c.get(&format!("/runs/{id}")).await;
    let objects = v["objects"].as_array().expect("objects").clone();
    assert_eq!(objects.len(), 2, "{v}");
    assert_eq!(objects[0]["state"], "armed", "{v}");
    assert_eq!(
        (&objects[1]["drives"], &objects[1]["virtual"]),
        (&json!("dummy"), &json!(true)),
        "{v}"
    );
    let (st, v) = c.post_empty(&format!("/runs/{id}/start")).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let done = c.wait_terminal(&id, Duration::from_secs(90)).await;
    assert_eq!(done["state"], "finished", "{done}");
    // The stream ends with the run.
    let msgs = tokio::time::timeout(Duration::from_secs(10), stream)
        .await
        .expect("the OSI stream closes when the run ends")
        .expect("reader");
    let (_, res) = c.get(&format!("/runs/{id}/results")).await;
    assert_eq!(res["validity"]["valid"], true, "{res}");
    let imp = res["impacts"]
        .as_array()
        .and_then(|a| a.iter().find(|i| i["target"] == "dummy"))
        .unwrap_or_else(|| panic!("an impact on the dummy: {res}"))
        .clone();
    assert_eq!(imp["virtual"], true, "{imp}");
    let location = imp["location"].as_f64().expect("impact location");
    println!("virtual pedestrian: impact {imp}");
    assert!(
        (location - 0.5).abs() <= 0.05,
        "impact at {location}, planned 0.5"
    );

    // Every message decodes, one per stored VUT sample, and the stored trace is the stream.
    let views: Vec<SensorView> = msgs
        .iter()
        .map(|m| SensorView::decode(m.as_slice()).expect("a SensorView"))
        .collect();
    assert!(views.len() > 100, "{} messages", views.len());
    let r = c
        .http
        .get(c.url(&format!("/runs/{id}/osi")))
        .send()
        .await
        .expect("GET osi");
    assert_eq!(r.status(), StatusCode::OK);
    let stored = r.bytes().await.expect("body").to_vec();
    let mut streamed = Vec::new();
    for m in &msgs {
        streamed.extend_from_slice(&(m.len() as u32).to_le_bytes());
        streamed.extend_from_slice(m);
    }
    assert_eq!(
        scil::osi::trace::split(&stored)
            .expect("stored trace")
            .len(),
        msgs.len()
    );
    assert!(
        stored == streamed,
        "GET /runs/{{id}}/osi differs from the stream"
    );

    // The host vehicle sits on the robot's MONR (the run's VUT telemetry).
    let (_, rows) = c.get(&format!("/runs/{id}/telemetry")).await;
    let vut: Vec<&serde_json::Value> = rows
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["kind"] == "vut")
        .collect();
    assert_eq!(vut.len(), views.len());
    let scenario = {
        let (_, s) = c.get("/scenarios/cpnco-20").await;
        scil::scenario::Scenario::from_toml(s["toml"].as_str().expect("toml")).expect("scenario")
    };
    let forward = scenario.vut.reference_to_front_m - 0.5 * scenario.vut.length_m;
    let mut worst = 0.0f64;
    for (sv, row) in views.iter().zip(&vut) {
        assert!((secs(sv) - row["t"].as_f64().unwrap()).abs() < 1e-6);
        let gt = sv.global_ground_truth.as_ref().expect("ground truth");
        let host = gt
            .moving_object
            .iter()
            .find(|o| o.id == sv.host_vehicle_id)
            .expect("host");
        let b = host.base.as_ref().expect("base");
        let (p, yaw) = (b.position.unwrap(), b.orientation.unwrap().yaw.unwrap());
        let x = p.x.unwrap() - forward * yaw.cos();
        let y = p.y.unwrap() - forward * yaw.sin();
        let d = (x - row["x"].as_f64().unwrap()).hypot(y - row["y"].as_f64().unwrap());
        worst = worst.max(d);
    }
    println!("virtual pedestrian: host vs MONR worst {:.6} m", worst);
    assert!(worst < 0.001, "host off the robot's MONR by {worst} m");

    // The pedestrian where the results put it at impact: its position at the impact time
    // (between the two messages around it) against the engine's own dummy at impact.
    let t_imp = imp["time_s"].as_f64().expect("impact time");
    let k = views
        .iter()
        .position(|v| secs(v) >= t_imp)
        .expect("a message after the impact");
    assert!(k > 0);
    let (a, b) = (&views[k - 1], &views[k]);
    let w = (t_imp - secs(a)) / (secs(b) - secs(a));
    let (pa, pb) = (pedestrian(a).expect("dummy"), pedestrian(b).expect("dummy"));
    let at = (pa.0 + w * (pb.0 - pa.0), pa.1 + w * (pb.1 - pa.1));
    let want = impact_position(&scenario, &imp);
    let d = (at.0 - want.0).hypot(at.1 - want.1);
    println!(
        "virtual pedestrian: OSI at impact ({:.3}, {:.3}), results ({:.3}, {:.3}): {d:.4} m",
        at.0, at.1, want.0, want.1
    );
    assert!(d <= 0.05, "pedestrian {d} m from where the results put it");
}

/// Where the results put the dummy at impact: the impact's map-frame point (the dummy's
/// position on its path then), else its start plus its travel along its walking direction.
fn impact_position(sc: &scil::scenario::Scenario, imp: &serde_json::Value) -> (f64, f64) {
    if let (Some(x), Some(y)) = (
        imp["impact_point"]["x"].as_f64(),
        imp["impact_point"]["y"].as_f64(),
    ) {
        return (x, y);
    }
    let t = sc.targets.iter().find(|t| t.id == "dummy").expect("dummy");
    let travel = imp["dummy_travel_m"]
        .as_f64()
        .expect("dummy travel at impact");
    let yaw = scil::frame::heading_to_yaw(t.heading_deg);
    (
        t.start.x + travel * yaw.cos(),
        t.start.y + travel * yaw.sin(),
    )
}
