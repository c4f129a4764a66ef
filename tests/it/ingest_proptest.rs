//! Property tests: parsers never panic on arbitrary input; NCOM encode → decode round trip.

use proptest::prelude::*;
use scil::ingest::can::{candump, cannelloni, CanFrame};
use scil::ingest::ncom::{self, NcomDecoder, NcomState, NcomStreamDecoder};

proptest! {
    #[test]
    fn ncom_decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = ncom::decode_packet(&bytes);
        let mut d = NcomDecoder::new("vut");
        if let Ok(p) = ncom::decode_packet(&bytes) { let _ = d.handle_packet(&p); }
        let mut s = NcomStreamDecoder::new();
        s.push(&bytes);
        while let Some(p) = s.next_packet() { let _ = d.handle_packet(&p); }
    }

    #[test]
    fn ncom_72_bytes_with_sync_never_panics(mut bytes in proptest::collection::vec(any::<u8>(), 72)) {
        bytes[0] = ncom::SYNC;
        // Make checksum 1 valid so the deeper paths run.
        bytes[22] = bytes[1..=21].iter().fold(0u8, |a, b| a.wrapping_add(*b));
        let mut d = NcomDecoder::new("vut");
        if let Ok(p) = ncom::decode_packet(&bytes) { let _ = d.handle_packet(&p); }
    }

    #[test]
    fn ncom_round_trip(
        minutes in 0i64..20_000_000,
        ms in 0i64..60_000,
        lat in -89.9f64..89.9,
        lon in -180.0f64..180.0,
        alt in -500.0f64..9000.0,
        heading in 0.0f64..360.0,
        speed in 0.0f64..80.0,
        accel in -50.0f64..50.0,
        status in 2u8..=6,
        channel in prop_oneof![Just(0u8), Just(3u8), Just(4u8), Just(5u8)],
    ) {
        let st = NcomState {
            gps_time_ms: minutes * 60_000 + ms,
            lat_deg: lat, lon_deg: lon, alt_m: alt, heading_deg: heading, speed_mps: speed,
            accel_mps2: Some(accel), yaw_rate_rps: Some(0.1), nav_status: status,
        };
        let p = st.packet(channel);
        let q = ncom::decode_packet(&ncom::encode_packet(&p)).unwrap();
        prop_assert_eq!(q.ms as i64, ms);
        prop_assert_eq!(q.nav_status, status);
        prop_assert_eq!(q.status.map(|s| s.channel()), Some(channel));
        let (n, m) = (q.nav.unwrap(), p.nav.unwrap());
        prop_assert_eq!(n.lat_rad, m.lat_rad);
        prop_assert_eq!(n.lon_rad, m.lon_rad);
        for i in 0..3 {
            prop_assert!((n.vel_ned_mps[i].unwrap() - m.vel_ned_mps[i].unwrap()).abs() <= 0.5e-4 + 1e-12);
        }
        let dh = (n.heading_rad.unwrap() - heading.to_radians()).rem_euclid(std::f64::consts::TAU);
        prop_assert!(dh.min(std::f64::consts::TAU - dh) <= 0.5e-6 + 1e-12);
        prop_assert!((q.accel_mps2[0].unwrap() - accel).abs() <= 0.5e-4 + 1e-12);
        if channel == 0 {
            let mut d = NcomDecoder::new("vut");
            let fix = d.handle_packet(&q).unwrap();
            let tow = (minutes * 60).rem_euclid(604_800) as f64 + ms as f64 / 1000.0;
            prop_assert!((fix.sample.time_s - tow).abs() < 1e-6);
            prop_assert_eq!(fix.locked, status == 4);
        }
    }

    #[test]
    fn candump_never_panics(s in "\\PC*") {
        let _ = candump::parse_line(&s);
    }

    #[test]
    fn candump_structured_never_panics(
        ts in "[0-9.]{0,20}", iface in "[a-z0-9]{0,6}", id in "[0-9A-Fa-fxR#]{0,10}", data in "[0-9A-Fa-f.#R]{0,140}"
    ) {
        let _ = candump::parse_line(&format!("({ts}) {iface} {id}#{data}"));
    }

    #[test]
    fn cannelloni_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = cannelloni::decode(&bytes);
        let mut b = bytes.clone();
        if b.len() >= 2 { b[0] = 2; b[1] = 0; }
        let _ = cannelloni::decode(&b);
    }

    #[test]
    fn cannelloni_round_trip(frames in proptest::collection::vec(
        (0u32..0x2000_0000, any::<bool>(), any::<bool>(), proptest::collection::vec(any::<u8>(), 0..=8)), 0..20), seq in any::<u8>()
    ) {
        let frames: Vec<CanFrame> = frames.into_iter().map(|(id, ext, rtr, data)| {
            let id = if ext { id } else { id & 0x7FF };
            let mut f = CanFrame::new(id, ext, if rtr { &[] } else { &data });
            f.remote = rtr;
            f
        }).collect();
        let p = cannelloni::decode(&cannelloni::encode(seq, &frames)).unwrap();
        prop_assert_eq!(p.sequence, seq);
        prop_assert_eq!(p.frames, frames);
    }
}
