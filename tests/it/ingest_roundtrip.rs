//! NCOM round trip on loopback: replay CSV → simulated INS (NCOM/UDP) → listener → InsSamples.

use scil::ingest::health::SourceHealth;
use scil::ingest::udp::NcomUdpSource;
use scil::sample::{InsPosition, InsSample};
use scil::sim::ins::{self as feed, FeedOptions};

const WGS84_CSV: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/replays/cpna75_30kmh_wgs84.csv"
);

/// ` Time(), Latitude(deg), Longitude(deg), Altitude(m), Heading(deg), Speed horizontal(m/s)`
fn read_wgs84(path: &str) -> Vec<InsSample> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let v: Vec<f64> = l.split(',').map(|c| c.trim().parse().unwrap()).collect();
            InsSample {
                time_s: v[0],
                vehicle: "vut".into(),
                position: InsPosition::Wgs84 {
                    lat_deg: v[1],
                    lon_deg: v[2],
                    alt_m: Some(v[3]),
                },
                heading_deg: v[4],
                speed_mps: v[5],
                steering_wheel_deg: None,
                brake_light: None,
                accel_mps2: None,
                yaw_rate_rps: None,
                wheel_speed_mps: None,
                fcw: None,
            }
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ncom_udp_round_trip_reproduces_csv() {
    let rows = read_wgs84(WGS84_CSV);
    let packets = feed::ncom_stream(&rows, None, &FeedOptions::default()).unwrap();
    assert_eq!(packets.len(), (rows.len() - 1) * 4 + 1, "25 Hz → 100 Hz");

    let health = SourceHealth::new("ncom");
    let src = NcomUdpSource::bind("127.0.0.1:0", "vut", health.clone())
        .await
        .unwrap();
    let addr = src.local_addr().unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::channel(8192);
    tokio::spawn(src.run(tx));
    // A malformed datagram first: counted, not fatal.
    let junk = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    junk.send_to(&[0xE7, 1, 2, 3], addr).await.unwrap();

    let sent = feed::send_udp(&packets, addr, 20.0).await.unwrap();
    assert_eq!(sent as usize, packets.len());

    let mut got = Vec::new();
    while got.len() < packets.len() {
        match tokio::time::timeout(std::time::Duration::from_secs(5), rx.recv()).await {
            Ok(Some(s)) => got.push(s),
            _ => break,
        }
    }
    assert_eq!(
        got.len(),
        packets.len(),
        "no packet loss on loopback at ×20"
    );
    // Every CSV row is reproduced by the packet at its time (every 4th packet).
    let mut max_dpos_m: f64 = 0.0;
    for (i, r) in rows.iter().enumerate() {
        let s = &got[i * 4];
        assert!(
            (s.time_s - r.time_s).abs() < 1e-6,
            "time {} vs {}",
            s.time_s,
            r.time_s
        );
        let (
            InsPosition::Wgs84 {
                lat_deg: a,
                lon_deg: b,
                alt_m: Some(h),
            },
            InsPosition::Wgs84 {
                lat_deg: c,
                lon_deg: d,
                alt_m: Some(h0),
            },
        ) = (s.position, r.position)
        else {
            panic!("positions")
        };
        let dn = (a - c).to_radians() * 6_378_137.0;
        let de = (b - d).to_radians() * 6_378_137.0 * c.to_radians().cos();
        max_dpos_m = max_dpos_m.max(dn.hypot(de));
        assert!((h - h0).abs() < 1e-3);
        assert!(
            (s.speed_mps - r.speed_mps).abs() < 2e-4,
            "speed {} vs {}",
            s.speed_mps,
            r.speed_mps
        );
        let dh = (s.heading_deg - r.heading_deg + 540.0).rem_euclid(360.0) - 180.0;
        assert!(
            dh.abs() < 1e-4,
            "heading {} vs {}",
            s.heading_deg,
            r.heading_deg
        );
    }
    assert!(max_dpos_m < 0.001, "position error {max_dpos_m} m");
    let h = health.snapshot();
    assert_eq!(h.malformed, 1);
    assert_eq!(h.samples as usize, packets.len());
    assert_eq!(h.not_locked, 0);
}

mod engine_path {
    use super::*;
    use scil::run::{run_source, Feed, RunSetup as ReplaySetup, Session, SourceSpec};
    use scil::scenario::engine::EngineConfig;
    use scil::sim::ins::{map_geo, read_replay_csv};
    use std::path::Path;
    use std::sync::Arc;

    fn shared(rel: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared")
            .join(rel)
    }

    /// Local-frame CSV → map geoReference inverse → NCOM/UDP → listener → interface block →
    /// engine: same trigger as the CSV replay, positions within millimetres.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn ncom_path_triggers_like_csv_replay() {
        let csv = shared("replays/cpna75_30kmh.csv");
        let scenario = shared("scenarios/cpna75_30kmh.toml");
        let setup = Arc::new(ReplaySetup::load(&scenario, None, EngineConfig::default()).unwrap());
        let csv_result = run_source(
            setup.clone(),
            &SourceSpec::csv(&csv),
            Default::default(),
            Vec::new(),
        )
        .await
        .unwrap();
        let t_csv = csv_result
            .triggers
            .first()
            .expect("CSV replay triggers")
            .time_s;

        let rows = read_replay_csv(&csv).unwrap();
        let geo = map_geo(Some(&shared("opendrive/proving_ground.xodr"))).unwrap();
        let packets = feed::ncom_stream(&rows, geo.as_deref(), &FeedOptions::default()).unwrap();
        let health = SourceHealth::new("ncom");
        let src = NcomUdpSource::bind("127.0.0.1:0", "vut", health.clone())
            .await
            .unwrap();
        let addr = src.local_addr().unwrap();
        let (tx, mut rx) = tokio::sync::mpsc::channel(8192);
        tokio::spawn(src.run(tx));
        feed::send_udp(&packets, addr, 20.0).await.unwrap();
        let mut got = Vec::new();
        while got.len() < packets.len() {
            match tokio::time::timeout(std::time::Duration::from_secs(5), rx.recv()).await {
                Ok(Some(s)) => got.push(s),
                _ => break,
            }
        }
        assert_eq!(got.len(), packets.len(), "no loss");

        // Map-frame agreement at the CSV rows (every 4th packet).
        let (mut dpos, mut dyaw) = (0.0f64, 0.0f64);
        for (i, r) in rows.iter().enumerate() {
            let a = setup.interface.to_map(r).unwrap();
            let b = setup.interface.to_map(&got[i * 4]).unwrap();
            assert!((a.time_s - b.time_s).abs() < 1e-6);
            dpos = dpos.max((a.x - b.x).hypot(a.y - b.y));
            dyaw = dyaw.max(scil::frame::wrap_pi(a.yaw_rad - b.yaw_rad).abs());
            assert!((a.speed_mps - b.speed_mps).abs() < 2e-4);
        }
        eprintln!(
            "map-frame round trip: max position error {:.3} mm, max yaw error {:.2e} rad",
            dpos * 1e3,
            dyaw
        );
        assert!(dpos < 0.005, "position error {dpos} m");
        assert!(dyaw < 1e-5, "yaw error {dyaw} rad");

        // Same engine, samples from the NCOM path (100 Hz).
        let feed = Feed::from_iter("ncom", got.into_iter().map(Ok));
        let ncom_result = Session::new(setup.clone(), feed, Default::default())
            .run()
            .await;
        let t_ncom = ncom_result
            .triggers
            .first()
            .expect("NCOM path triggers")
            .time_s;
        eprintln!(
            "trigger: CSV {t_csv:.4} s, NCOM path {t_ncom:.4} s, diff {:.3} ms",
            (t_ncom - t_csv) * 1e3
        );
        assert!(
            (t_ncom - t_csv).abs() <= 0.002,
            "CSV {t_csv} vs NCOM {t_ncom}"
        );
    }
}
