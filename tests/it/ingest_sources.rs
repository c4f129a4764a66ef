//! JSON transports on loopback, and INS + CAN fusion on the shared 30 km/h run.

use futures_util::SinkExt;
use scil::ingest::can::{candump, CanMapping, DbcDecoder};
use scil::ingest::fusion::{Fusion, FusionMode};
use scil::ingest::health::SourceHealth;
use scil::ingest::json;
use scil::sample::{InsPosition, InsSample};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

fn sample(t: f64) -> InsSample {
    InsSample {
        time_s: t,
        vehicle: "vut".into(),
        position: InsPosition::Local {
            x: 20.0 + t,
            y: -1.75,
        },
        heading_deg: 90.0,
        speed_mps: 8.4,
        steering_wheel_deg: Some(0.1),
        brake_light: Some(false),
        accel_mps2: None,
        yaw_rate_rps: None,
        wheel_speed_mps: None,
        fcw: None,
    }
}

async fn recv_n(rx: &mut mpsc::Receiver<InsSample>, n: usize) -> Vec<InsSample> {
    let mut v = Vec::new();
    while v.len() < n {
        match tokio::time::timeout(std::time::Duration::from_secs(5), rx.recv()).await {
            Ok(Some(s)) => v.push(s),
            _ => break,
        }
    }
    v
}

#[tokio::test]
async fn json_over_udp_tcp_ws() {
    let lines: Vec<String> = (0..5)
        .map(|i| json::to_line(&sample(i as f64 * 0.04)))
        .collect();
    let (tx, mut rx) = mpsc::channel(64);

    // UDP: two lines in one datagram, one per datagram, and garbage.
    let hu = SourceHealth::new("json-udp");
    let u = json::JsonUdpSource::bind("127.0.0.1:0", hu.clone())
        .await
        .unwrap();
    let ua = u.local_addr().unwrap();
    tokio::spawn(u.run(tx.clone()));
    let s = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    s.send_to(format!("{}\n{}\n", lines[0], lines[1]).as_bytes(), ua)
        .await
        .unwrap();
    s.send_to(b"{not json", ua).await.unwrap();
    s.send_to(lines[2].as_bytes(), ua).await.unwrap();
    let got = recv_n(&mut rx, 3).await;
    assert_eq!(got, vec![sample(0.0), sample(0.04), sample(0.08)]);
    assert_eq!(hu.snapshot().malformed, 1);

    // TCP server.
    let ht = SourceHealth::new("json-tcp");
    let t = json::JsonTcpServer::bind("127.0.0.1:0", ht.clone())
        .await
        .unwrap();
    let ta = t.local_addr().unwrap();
    tokio::spawn(t.run(tx.clone()));
    let mut c = tokio::net::TcpStream::connect(ta).await.unwrap();
    let mut all = lines.join("\n");
    all.push('\n');
    // Split writes mid-line: framing must hold.
    let (a, b) = all.split_at(37);
    c.write_all(a.as_bytes()).await.unwrap();
    c.flush().await.unwrap();
    c.write_all(b.as_bytes()).await.unwrap();
    assert_eq!(recv_n(&mut rx, 5).await.len(), 5);

    // WebSocket server, fed by a tungstenite client.
    let hw = SourceHealth::new("json-ws");
    let w = json::JsonWsServer::bind("127.0.0.1:0", hw.clone())
        .await
        .unwrap();
    let wa = w.local_addr().unwrap();
    tokio::spawn(w.run(tx.clone()));
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{wa}/"))
        .await
        .unwrap();
    for l in &lines {
        ws.send(tokio_tungstenite::tungstenite::Message::Text(l.clone()))
            .await
            .unwrap();
    }
    assert_eq!(recv_n(&mut rx, 5).await.len(), 5);
    assert_eq!(hw.snapshot().samples, 5);

    // WebSocket client against a server that pushes lines.
    let srv = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let sa = srv.local_addr().unwrap();
    let pushed = lines.clone();
    tokio::spawn(async move {
        let (st, _) = srv.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(st).await.unwrap();
        ws.send(tokio_tungstenite::tungstenite::Message::Text(
            pushed.join("\n"),
        ))
        .await
        .unwrap();
        let _ = ws.close(None).await;
    });
    let hc = SourceHealth::new("json-ws-client");
    let url = format!("ws://{sa}/");
    let txc = tx.clone();
    let client = tokio::spawn(async move { json::ws_client(&url, hc, txc).await });
    assert_eq!(recv_n(&mut rx, 5).await.len(), 5);
    let _ = client.await;
}

#[test]
fn fusion_with_can_log_reproduces_csv_steering_and_brake() {
    let dbc = DbcDecoder::from_file(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/can/vut.dbc"
    ))
    .unwrap();
    let log = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/can/cpna75_30kmh.log"
    ))
    .unwrap();
    let csv = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/replays/cpna75_30kmh.csv"
    ))
    .unwrap();
    let map = CanMapping::default();
    let updates: Vec<_> = candump::parse_log(&log)
        .filter_map(|(_, r)| r.ok())
        .filter_map(|f| {
            dbc.decode(&f)
                .ok()
                .map(|m| map.apply(f.time_s.unwrap_or(0.0), &m))
        })
        .collect();
    let rows: Vec<(f64, f64, bool)> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let v: Vec<f64> = l.split(',').map(|c| c.parse().unwrap()).collect();
            (v[0], v[5], v[6] != 0.0)
        })
        .collect();
    for mode in [FusionMode::Hold, FusionMode::Interpolate] {
        let mut f = Fusion::new(mode);
        let mut out = Vec::new();
        let mut ui = 0;
        for &(t, _, _) in &rows {
            // CAN arrives up to 20 ms ahead of the INS sample, as on a live bus.
            while ui < updates.len() && updates[ui].time_s <= t + 0.02 {
                f.push_can(&updates[ui]);
                ui += 1;
            }
            let mut s = sample(t);
            s.steering_wheel_deg = None;
            s.brake_light = None;
            f.push_ins(s);
            while let Some(s) = f.poll() {
                out.push(s);
            }
        }
        out.extend(f.flush());
        assert_eq!(out.len(), rows.len());
        let (mut max_err, mut brake_mismatch) = (0.0f64, 0);
        for (s, &(t, steer, brake)) in out.iter().zip(&rows).skip(1) {
            assert_eq!(s.time_s, t);
            max_err = max_err.max((s.steering_wheel_deg.unwrap() - steer).abs());
            if s.brake_light != Some(brake) {
                brake_mismatch += 1;
            }
        }
        eprintln!(
            "{mode:?}: max steering diff {max_err:.3} deg, brake mismatches {brake_mismatch}"
        );
        // The CSV steering is the CAN angle at the row time (0.1° resolution, 100 Hz): interpolation
        // reproduces it, holding lags by up to one 10 ms CAN period.
        let tol = if mode == FusionMode::Interpolate {
            0.05
        } else {
            0.5
        };
        assert!(max_err < tol, "{mode:?}: {max_err}");
        assert!(brake_mismatch <= 3, "{mode:?}: brake light is 10 Hz on CAN");
    }
}

#[tokio::test]
async fn candump_replay_decode_and_fuse_tasks() {
    use scil::ingest::can::decode_task;
    use scil::ingest::fusion::fuse_task;
    use std::sync::Arc;
    let dbc = Arc::new(
        DbcDecoder::from_file(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/can/vut.dbc"
        ))
        .unwrap(),
    );
    let log = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/can/cpna75_30kmh.log"
    ))
    .unwrap();
    let frames: Vec<_> = candump::parse_log(&log)
        .filter_map(|(_, r)| r.ok())
        .collect();
    let health = SourceHealth::new("candump");
    let (ftx, frx) = mpsc::channel(256);
    let (utx, urx) = mpsc::channel(256);
    let (itx, irx) = mpsc::channel(256);
    let (otx, mut orx) = mpsc::channel(256);
    tokio::spawn(candump::replay_paced(frames, 0.0, ftx));
    tokio::spawn(decode_task(
        frx,
        dbc,
        CanMapping::default(),
        health.clone(),
        utx,
    ));
    tokio::spawn(fuse_task(Fusion::new(FusionMode::Hold), irx, urx, otx));
    // INS samples after the CAN log has been consumed (the log is replayed as fast as possible).
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    for t in [387005.0, 387010.0] {
        let mut s = sample(t);
        s.steering_wheel_deg = None;
        s.brake_light = None;
        itx.send(s).await.unwrap();
    }
    drop(itx);
    let a = orx.recv().await.unwrap();
    let b = orx.recv().await.unwrap();
    assert!(a.steering_wheel_deg.is_some() && b.brake_light.is_some());
    for _ in 0..100 {
        if health.snapshot().unknown_id == 35 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(health.snapshot().unknown_id, 35);
}

/// A live NCOM sample carries the instant its datagram left the socket, not the instant the
/// driver took it: the live clock anchors there, so hops and a busy engine do not shift the
/// wall instant of a predicted STRT.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_ncom_samples_carry_their_socket_instant() {
    use scil::ingest::ncom::{encode_packet, NcomState};
    use scil::run::source::{self, dbc_from_path};
    use scil::run::{InsSpec, OpenCtx, SourceSpec};
    use std::time::Duration;
    use tokio::time::Instant;

    let spec = SourceSpec::ins(InsSpec::Ncom {
        bind: "127.0.0.1:0".into(),
    });
    let ctx = OpenCtx {
        vut_id: "vut",
        dbc: &dbc_from_path,
    };
    let mut feed = source::open(&spec, &ctx).await.expect("bind");
    let addr = feed.local_addrs()[0];
    // Before the start: discarded, and nothing to report.
    assert!(feed.received_at().is_none());
    feed.start();
    let tx = std::net::UdpSocket::bind("127.0.0.1:0").expect("sender");
    let mut st = NcomState {
        gps_time_ms: 2400 * 604_800_000 + 387_000_000,
        lat_deg: 48.0,
        lon_deg: 11.0,
        alt_m: 500.0,
        heading_deg: 90.0,
        speed_mps: 8.0,
        accel_mps2: Some(0.0),
        yaw_rate_rps: Some(0.0),
        nav_status: 4,
    };
    // Status channel 0 first (GPS time), then the timed one.
    tx.send_to(&encode_packet(&st.packet(0)), addr)
        .expect("send");
    let first = tokio::time::timeout(Duration::from_secs(5), feed.next())
        .await
        .expect("first sample")
        .expect("open")
        .expect("ok");
    assert_eq!(first.vehicle.as_ref(), "vut");
    st.gps_time_ms += 40;
    let sent = Instant::now();
    tx.send_to(&encode_packet(&st.packet(0)), addr)
        .expect("send");
    // The driver is busy for 200 ms; the sample waits in the channel meanwhile.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let s = tokio::time::timeout(Duration::from_secs(5), feed.next())
        .await
        .expect("second sample")
        .expect("open")
        .expect("ok");
    let taken = Instant::now();
    let at = feed
        .received_at()
        .expect("a live sample has its receive instant");
    assert!((s.time_s - first.time_s - 0.04).abs() < 1e-6);
    assert!(at >= sent, "received before it was sent");
    assert!(
        taken.duration_since(at) >= Duration::from_millis(150),
        "stamped when taken ({:?} after the socket), not when received",
        taken.duration_since(at)
    );
}
