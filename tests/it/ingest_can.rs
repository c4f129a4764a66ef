//! CAN decoding against the independent reference decode of the shared log.

use std::collections::HashMap;

use scil::ingest::can::{candump, cannelloni, CanMapping, CanState, DbcDecoder};

const DBC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/can/vut.dbc");
const LOG: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/can/cpna75_30kmh.log"
);
const REF: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/can/cpna75_30kmh.decoded.csv"
);

#[test]
fn decode_matches_reference_for_every_frame() {
    let dbc = DbcDecoder::from_file(DBC).expect("dbc");
    let log = std::fs::read_to_string(LOG).expect("log");
    // Reference: (time string, frame id) -> signal -> value.
    let reference = std::fs::read_to_string(REF).expect("ref");
    let mut expected: HashMap<(String, u32), HashMap<String, f64>> = HashMap::new();
    for line in reference.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 5, "{line}");
        expected
            .entry((f[0].to_string(), f[1].parse().unwrap()))
            .or_default()
            .insert(f[3].to_string(), f[4].parse().unwrap());
    }
    let (mut decoded_frames, mut unknown, mut malformed, mut values) = (0, 0, 0, 0);
    for (lineno, r) in candump::parse_log(&log) {
        let frame = match r {
            Ok(f) => f,
            Err(e) => {
                malformed += 1;
                eprintln!("line {lineno}: {e}");
                continue;
            }
        };
        let m = match dbc.decode(&frame) {
            Ok(m) => m,
            Err(_) => {
                unknown += 1;
                continue;
            }
        };
        decoded_frames += 1;
        let key = (format!("{:.6}", frame.time_s.unwrap()), m.id);
        let exp = expected
            .remove(&key)
            .unwrap_or_else(|| panic!("frame {key:?} not in reference"));
        assert_eq!(exp.len(), m.signals.len(), "{key:?}");
        for (name, v) in &m.signals {
            let e = exp[*name];
            // The reference prints up to 6 decimals.
            assert!((v - e).abs() < 1e-6, "{key:?} {name}: {v} vs {e}");
            values += 1;
        }
    }
    assert!(expected.is_empty(), "frames missing: {}", expected.len());
    assert_eq!(malformed, 0);
    assert_eq!(values, 16608);
    assert!(unknown > 0, "the log has a few ids not in the DBC");
    eprintln!("{decoded_frames} frames, {values} values, {unknown} unknown-id frames");
}

#[test]
fn mapping_defaults_fit_vut_dbc() {
    let dbc = DbcDecoder::from_file(DBC).unwrap();
    let map = CanMapping::default();
    let mut st = CanState::default();
    for l in [
        "(0000387000.000249) can0 156#000200000000",
        "(0000387000.003000) can0 18F20002#D18BE845F4227A01",
        "(0000387000.006000) can0 405#0800000000000000",
    ] {
        let f = candump::parse_line(l).unwrap();
        let m = dbc.decode(&f).unwrap();
        st.update(&map.apply(f.time_s.unwrap(), &m));
    }
    assert!((st.steering_wheel_deg.unwrap() + 0.2).abs() < 1e-9);
    assert!((st.wheel_speed_mps.unwrap() - 30.25 / 3.6).abs() < 1e-9);
    assert_eq!(st.brake_light, Some(true));
}

#[tokio::test]
async fn cannelloni_over_udp_loopback() {
    use scil::ingest::health::SourceHealth;
    let log = std::fs::read_to_string(LOG).unwrap();
    let frames: Vec<_> = candump::parse_log(&log)
        .filter_map(|(_, r)| r.ok())
        .take(500)
        .collect();
    let health = SourceHealth::new("cannelloni");
    let src = cannelloni::CannelloniSource::bind("127.0.0.1:0", health.clone())
        .await
        .unwrap();
    let addr = src.local_addr().unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::channel(1024);
    tokio::spawn(src.run(tx));
    let sock = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    sock.send_to(b"garbage", addr).await.unwrap();
    for (seq, chunk) in frames.chunks(10).enumerate() {
        sock.send_to(&cannelloni::encode(seq as u8, chunk), addr)
            .await
            .unwrap();
    }
    for f in &frames {
        let got = rx.recv().await.unwrap();
        assert_eq!(
            (got.id, got.extended, &got.data),
            (f.id, f.extended, &f.data)
        );
    }
    let h = health.snapshot();
    assert_eq!(h.malformed, 1);
    assert_eq!(h.samples, 500);
}
