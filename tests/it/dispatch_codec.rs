//! ISO 22133 codec: round trips, golden bytes, and rejection of malformed frames.

use proptest::prelude::*;
use scil::dispatch::iso22133::*;

fn header() -> impl Strategy<Value = Header> {
    (any::<bool>(), any::<u32>(), any::<u32>(), any::<u8>()).prop_map(|(a, t, r, c)| Header {
        ack_request: a,
        transmitter_id: t,
        receiver_id: r,
        message_counter: c,
    })
}

const I48: i64 = 1 << 47;

fn osem() -> impl Strategy<Value = Message> {
    let ids = (any::<u32>(), any::<u32>(), any::<u32>()).prop_map(|(a, b, c)| OsemIds {
        device_id: a,
        sub_device_id: b,
        control_centre_id: c,
    });
    let origin = (
        -I48..I48,
        -I48..I48,
        any::<i32>(),
        any::<u16>(),
        any::<u8>(),
    )
        .prop_map(|(lat, lon, alt, rot, cs)| OsemOrigin {
            lat_e10: lat,
            lon_e10: lon,
            alt_cm: alt,
            rotation_cdeg: rot,
            coordinate_system: cs,
        });
    let dt = (any::<u32>(), any::<u16>(), any::<u32>(), any::<u8>()).prop_map(|(d, w, q, l)| {
        OsemDateTime {
            date_yyyymmdd: d,
            gps_week: w,
            gps_qms_of_week: q,
            leap_seconds: l,
        }
    });
    let limits =
        (any::<[u16; 5]>(), any::<[u8; 4]>(), any::<u32>()).prop_map(|(a, b, m)| OsemLimits {
            max_way_deviation_mm: a[0],
            max_lateral_deviation_mm: a[1],
            max_yaw_deviation_cdeg: a[2],
            max_position_error_cm: a[3],
            heab_timeout_10ms: a[4],
            test_mode: b[0],
            monr_rate_hz: b[1],
            monr2_rate_hz: b[2],
            heab_rate_hz: b[3],
            max_message_length: m,
        });
    (
        ids,
        proptest::option::of(origin),
        proptest::option::of(dt),
        proptest::option::of(limits),
        proptest::option::of((any::<u32>(), any::<u16>())),
    )
        .prop_map(|(ids, origin, date_time, limits, time_server)| {
            Message::Osem(Osem {
                ids,
                origin,
                date_time,
                limits,
                time_server,
            })
        })
}

fn monr() -> impl Strategy<Value = Monr> {
    (
        any::<[u32; 1]>(),
        any::<[i32; 3]>(),
        any::<u16>(),
        any::<[i16; 6]>(),
        any::<[u8; 4]>(),
        any::<u16>(),
    )
        .prop_map(|(t, p, yaw, s, b, e)| Monr {
            time_qms_of_week: t[0],
            x_mm: p[0],
            y_mm: p[1],
            z_mm: p[2],
            yaw_cdeg: yaw,
            pitch_cdeg: s[0],
            roll_cdeg: s[1],
            speed_lon_cm_s: s[2],
            speed_lat_cm_s: s[3],
            acc_lon_mm_s2: s[4],
            acc_lat_mm_s2: s[5],
            drive_direction: b[0],
            state: b[1],
            ready_to_arm: b[2],
            error_status: b[3],
            error_code: e,
        })
}

fn traj_point() -> impl Strategy<Value = TrajPoint> {
    (
        any::<u32>(),
        any::<[i32; 3]>(),
        any::<u16>(),
        any::<[i16; 4]>(),
        -100.0f32..100.0,
    )
        .prop_map(|(t, p, yaw, s, k)| TrajPoint {
            rel_time_ms: t,
            x_mm: p[0],
            y_mm: p[1],
            z_mm: p[2],
            yaw_cdeg: yaw,
            speed_lon_cm_s: s[0],
            speed_lat_cm_s: s[1],
            acc_lon_mm_s2: s[2],
            acc_lat_mm_s2: s[3],
            curvature: k,
        })
}

fn message() -> impl Strategy<Value = Message> {
    prop_oneof![
        osem(),
        any::<u8>().prop_map(|c| Message::Ostm(Ostm {
            command: OstmCommand::from_u8(c)
        })),
        (any::<u32>(), proptest::option::of(any::<u16>())).prop_map(|(t, w)| Message::Strt(Strt {
            start_qms_of_week: t,
            gps_week: w
        })),
        (any::<u32>(), any::<u8>()).prop_map(|(t, s)| Message::Heab(Heab {
            time_qms_of_week: t,
            status: CcStatus::from_u8(s)
        })),
        monr().prop_map(Message::Monr),
        (
            any::<u16>(),
            any::<u8>(),
            "[a-zA-Z0-9 _-]{0,64}",
            proptest::collection::vec(traj_point(), 0..20)
        )
            .prop_map(|(id, info, name, points)| Message::Traj(Traj {
                id,
                info,
                name,
                points
            })),
        any::<u32>().prop_map(|t| Message::Mtsp(Mtsp {
            estimated_sync_qms_of_week: t
        })),
        (
            0x0100u16..0xFFFF,
            proptest::collection::vec(any::<u8>(), 0..40)
        )
            .prop_map(|(message_id, payload)| Message::Unknown {
                message_id,
                payload
            }),
    ]
}

proptest! {
    #[test]
    fn round_trip(h in header(), m in message()) {
        let bytes = encode_frame(&h, &m);
        let f = decode_frame(&bytes).expect("decodes");
        prop_assert_eq!(f.header, h);
        prop_assert_eq!(f.message, m);
    }

    #[test]
    fn truncated_frames_are_errors(h in header(), m in message(), cut in 0usize..1000) {
        let bytes = encode_frame(&h, &m);
        let cut = cut % bytes.len();
        prop_assert!(decode_frame(&bytes[..cut]).is_err());
    }

    #[test]
    fn corrupted_frames_never_panic_and_crc_catches_flips(
        h in header(), m in message(), pos in any::<usize>(), flip in 1u8..=255
    ) {
        let mut bytes = encode_frame(&h, &m);
        let body_end = bytes.len() - 2;
        // ISO 22133 reserves CRC 0 for "not used": the 1 in 65 536 frames whose CRC comes out
        // as 0 go unchecked by design (see `a_zero_crc_is_not_checked`).
        prop_assume!(u16::from_le_bytes([bytes[body_end], bytes[body_end + 1]]) != 0);
        let i = pos % body_end;
        bytes[i] ^= flip;
        // A single corrupted byte anywhere in header+payload is always detected (CRC-16
        // detects all burst errors up to 16 bits), whatever check fires first.
        prop_assert!(decode_frame(&bytes).is_err());
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = decode_frame(&bytes);
        let mut f = StreamFramer::new();
        f.push(&bytes);
        let mut n = 0;
        while f.next_frame().is_some() { n += 1; prop_assert!(n < 1000); }
    }

    #[test]
    fn arbitrary_payload_with_valid_crc_never_panics(
        id in prop_oneof![Just(1u16), 2u16..=6, Just(0x0C)],
        payload in proptest::collection::vec(any::<u8>(), 0..120)
    ) {
        // Build a frame with a valid header and CRC around garbage TLVs: exercises the TLV
        // decoders themselves.
        let mut b = Vec::new();
        b.extend_from_slice(&0x7E7Fu16.to_le_bytes());
        b.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        b.push(2);
        b.extend_from_slice(&[0; 9]);
        b.extend_from_slice(&id.to_le_bytes());
        b.extend_from_slice(&payload);
        let crc = crc16_xmodem(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        let _ = decode_frame(&b);
    }

    #[test]
    fn framer_reassembles_any_split(
        msgs in proptest::collection::vec((header(), message()), 1..6),
        chunk in 1usize..50,
        garbage in proptest::collection::vec(any::<u8>().prop_filter("not sync", |b| *b != 0x7F), 0..10),
    ) {
        let mut stream = garbage.clone();
        for (h, m) in &msgs { stream.extend(encode_frame(h, m)); }
        let mut f = StreamFramer::new();
        let mut got = Vec::new();
        for c in stream.chunks(chunk) {
            f.push(c);
            while let Some(r) = f.next_frame() {
                if let Ok(fr) = r { got.push((fr.header, fr.message)); }
            }
        }
        prop_assert_eq!(got, msgs);
        prop_assert_eq!(f.pending(), 0);
    }
}

#[test]
fn crc_check_value() {
    assert_eq!(crc16_xmodem(b"123456789"), 0x31C3);
}

/// MONR frame with known content (the field values of the RI-SE iso22133 unit test: x 1 m,
/// y -2 m, z 3 m, yaw 2291 cdeg, 1/2 m/s, 1/2 m/s², RUNNING, ready, error 0x6B/0xBEEF at GPS
/// qms 0x6909A600, transmitter 0x1234, receiver 0x5678). Its footer there is 0x8633.
#[test]
fn monr_golden_bytes() {
    let m = Monr {
        time_qms_of_week: 0x6909_A600,
        x_mm: 1000,
        y_mm: -2000,
        z_mm: 3000,
        yaw_cdeg: 2291,
        pitch_cdeg: 0,
        roll_cdeg: 0,
        speed_lon_cm_s: 100,
        speed_lat_cm_s: 200,
        acc_lon_mm_s2: 1000,
        acc_lat_mm_s2: 2000,
        drive_direction: 0,
        state: 4,
        ready_to_arm: 1,
        error_status: 0b0110_1011,
        error_code: 0xBEEF,
    };
    let h = Header {
        ack_request: false,
        transmitter_id: 0x1234,
        receiver_id: 0x5678,
        message_counter: 0,
    };
    let b = encode_frame(&h, &Message::Monr(m));
    assert_eq!(b.len(), 60);
    assert_eq!(&b[0..2], &[0x7F, 0x7E]);
    assert_eq!(&b[2..6], &[0x28, 0, 0, 0]);
    assert_eq!(b[6], 0x02);
    assert_eq!(&b[16..18], &[0x06, 0x00]);
    assert_eq!(&b[18..22], &[0x80, 0x00, 0x24, 0x00]);
    assert_eq!(&b[22..26], &[0x00, 0xA6, 0x09, 0x69]);
    assert_eq!(
        &b[58..60],
        &[0x33, 0x86],
        "CRC matches the reference implementation's vector"
    );
}

#[test]
fn osem_layout_matches_reference_offsets() {
    let osem = Osem {
        ids: OsemIds {
            device_id: 0x1234,
            sub_device_id: 0x5678,
            control_centre_id: 0x9ABC,
        },
        origin: Some(OsemOrigin::from_degrees(
            12.3456789012,
            23.4567890123,
            123.45,
            0.0,
        )),
        date_time: Some(OsemDateTime {
            date_yyyymmdd: 20220429,
            gps_week: 2207,
            gps_qms_of_week: 0x6909A600,
            leap_seconds: 18,
        }),
        limits: Some(OsemLimits {
            monr_rate_hz: 4,
            monr2_rate_hz: 5,
            heab_rate_hz: 6,
            max_message_length: u32::MAX,
            ..Default::default()
        }),
        time_server: None,
    };
    let b = encode_frame(&Header::default(), &Message::Osem(osem));
    // payload length 16 + 23 + 15 + 22 = 76
    assert_eq!(&b[2..6], &[76, 0, 0, 0]);
    let origin = &b[18 + 16..];
    assert_eq!(&origin[0..4], &[0x21, 0x00, 0x13, 0x00]);
    assert_eq!(&origin[4..10], &[0x14, 0x1A, 0x99, 0xBE, 0x1C, 0x00]);
    assert_eq!(&origin[10..16], &[0xCB, 0xF4, 0x55, 0x9D, 0x36, 0x00]);
    assert_eq!(&origin[16..20], &[0x39, 0x30, 0x00, 0x00]);
    let limits = &b[18 + 16 + 23 + 15..];
    assert_eq!(&limits[0..4], &[0x23, 0x00, 0x12, 0x00]);
    assert_eq!(&limits[15..18], &[4, 5, 6]);
}

#[test]
fn specific_rejections() {
    let h = Header::default();
    let good = encode_frame(
        &h,
        &Message::Ostm(Ostm {
            command: OstmCommand::Arm,
        }),
    );
    assert!(decode_frame(&good).is_ok());

    let mut bad_sync = good.clone();
    bad_sync[0] = 0;
    assert!(matches!(
        decode_frame(&bad_sync),
        Err(DecodeError::BadSync(_))
    ));

    let mut bad_crc = good.clone();
    let n = bad_crc.len();
    bad_crc[n - 1] ^= 0x55;
    assert!(matches!(
        decode_frame(&bad_crc),
        Err(DecodeError::BadCrc { .. })
    ));

    let mut bad_len = good.clone();
    bad_len[2] = 200;
    assert!(decode_frame(&bad_len).is_err());
    bad_len[5] = 0xFF;
    assert!(matches!(
        decode_frame(&bad_len),
        Err(DecodeError::PayloadTooLong(_))
    ));

    // TLV length claims more than the payload holds (CRC disabled with 0x0000 to reach the TLV check).
    let mut bad_tlv = good.clone();
    bad_tlv[20] = 9;
    bad_tlv[n - 2] = 0;
    bad_tlv[n - 1] = 0;
    assert!(matches!(
        decode_frame(&bad_tlv),
        Err(DecodeError::TlvOverrun { .. })
    ));

    // no-CRC frames are accepted
    let mut no_crc = good.clone();
    no_crc[n - 2] = 0;
    no_crc[n - 1] = 0;
    assert!(decode_frame(&no_crc).is_ok());

    // wrong content length for a known value
    let mut b = Vec::new();
    b.extend_from_slice(&[
        0x7F, 0x7E, 6, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x05, 0,
    ]);
    b.extend_from_slice(&[0x90, 0x00, 0x02, 0x00, 1, 2]);
    let crc = crc16_xmodem(&b);
    b.extend_from_slice(&crc.to_le_bytes());
    assert!(matches!(
        decode_frame(&b),
        Err(DecodeError::BadTlvLength { .. })
    ));
}

#[test]
fn framer_counts_garbage_and_recovers() {
    let h = Header::default();
    let frame = encode_frame(
        &h,
        &Message::Heab(Heab {
            time_qms_of_week: 5,
            status: CcStatus::Ready,
        }),
    );
    let mut corrupted = frame.clone();
    let n = corrupted.len();
    corrupted[n - 1] ^= 1;
    let mut f = StreamFramer::new();
    f.push(&[0x7F, 0x7E, 0x7F, 1, 2, 3]);
    f.push(&corrupted);
    f.push(&frame);
    let mut ok = 0;
    let mut err = 0;
    while let Some(r) = f.next_frame() {
        match r {
            Ok(_) => ok += 1,
            Err(_) => err += 1,
        }
    }
    assert_eq!(ok, 1);
    assert!(err >= 1);
    assert!(f.malformed_frames() >= 1);
}

/// A frame whose CRC field is 0 is not checked (ISO 22133: 0 means no CRC), so a corrupted
/// byte in it goes through; found by the property above for a frame whose CRC computes to 0.
#[test]
fn a_zero_crc_is_not_checked() {
    let h = Header {
        ack_request: false,
        transmitter_id: 1523998028,
        receiver_id: 2187223802,
        message_counter: 120,
    };
    let m = Message::Unknown {
        message_id: 64921,
        payload: vec![
            178, 207, 141, 248, 254, 167, 108, 128, 55, 129, 106, 134, 129, 147, 28, 66, 69, 33,
            223, 95, 179, 155,
        ],
    };
    let mut bytes = encode_frame(&h, &m);
    let n = bytes.len();
    assert_eq!(&bytes[n - 2..], &[0, 0], "this frame's CRC computes to 0");
    bytes[7] ^= 1;
    assert!(decode_frame(&bytes).is_ok());
    // The same corruption under a non-zero CRC is caught.
    let mut other = encode_frame(
        &Header {
            message_counter: 121,
            ..h
        },
        &m,
    );
    assert_ne!(&other[n - 2..], &[0, 0]);
    other[7] ^= 1;
    assert!(decode_frame(&other).is_err());
}
