//! Tests of the CSV source (kept beside it, out of the source file for its size).
use super::*;

fn src(text: &str, policy: BadRowPolicy) -> Result<CsvSource<&[u8]>, CsvError> {
    CsvSource::from_reader(Path::new("t.csv"), text.as_bytes(), &[], policy)
}

#[test]
fn fcw_column_is_detected_and_checked() {
    let mut s = src(
        "Time,PosX,PosY,Heading,Velocity,FCW\n1.0,2,3,90,36,0\n1.01,2,3,90,36,1\n1.02,2,3,90,36,2\n",
        BadRowPolicy::Stop,
    )
    .unwrap();
    assert_eq!(s.next().unwrap().unwrap().fcw, Some(false));
    assert_eq!(s.next().unwrap().unwrap().fcw, Some(true));
    let e = s.next().unwrap().unwrap_err().to_string();
    assert!(e.contains("FCW must be 0 or 1"), "{e}");
}

#[test]
fn header_split_handles_oxts_names() {
    assert_eq!(
        split_header(" Speed horizontal(m/s)"),
        ("speedhorizontal".into(), Some("m/s".into()))
    );
    assert_eq!(split_header(" Time()"), ("time".into(), None));
    assert_eq!(
        split_header("\u{feff}Steering_Angle"),
        ("steeringangle".into(), None)
    );
}

#[test]
fn paper_columns_convert_kmh() {
    let mut s = src(
        "Time,PosX,PosY,Heading,Velocity,Steering_Angle,Brake_Light\n1.0,2,3,90,36,1.5,1\n",
        BadRowPolicy::Stop,
    )
    .unwrap();
    let r = s.next().unwrap().unwrap();
    assert!((r.speed_mps - 10.0).abs() < 1e-12);
    assert_eq!(r.position, InsPosition::Local { x: 2.0, y: 3.0 });
    assert_eq!(r.brake_light, Some(true));
    assert!(s.next().is_none());
}

#[test]
fn explicit_mapping_overrides() {
    let spec: Vec<ColumnSpec> = vec![
        "speed=v:mph".parse().unwrap(),
        "time=stamp:ms".parse().unwrap(),
    ];
    let text = "stamp,PosX,PosY,Heading,v\n1000,0,0,0,10\n";
    let mut s = CsvSource::from_reader(
        Path::new("t.csv"),
        text.as_bytes(),
        &spec,
        BadRowPolicy::Stop,
    )
    .unwrap();
    let r = s.next().unwrap().unwrap();
    assert!((r.time_s - 1.0).abs() < 1e-12);
    assert!((r.speed_mps - 4.4704).abs() < 1e-9);
}

#[test]
fn bad_rows_name_line_and_skip_counts() {
    let text = "Time,PosX,PosY,Heading,Velocity\n0,0,0,90,10\n0.04,abc,0,90,10\n0.08,1,0,90,10\n";
    let mut s = src(text, BadRowPolicy::Stop).unwrap();
    assert!(s.next().unwrap().is_ok());
    let e = s.next().unwrap().unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.reason.contains("'abc' is not a number"), "{e}");
    assert!(s.next().is_none());

    let mut s = src(text, BadRowPolicy::Skip).unwrap();
    let ok: Vec<_> = s.by_ref().collect();
    assert_eq!(ok.len(), 2);
    assert!(ok.iter().all(|r| r.is_ok()));
    assert_eq!(s.skipped, 1);
    assert_eq!(s.skipped_errors[0].line, 3);
}

#[test]
fn invalid_utf8_row_is_a_row_error() {
    let mut bytes = b"Time,PosX,PosY,Heading,Velocity\n0,0,0,90,10\n".to_vec();
    bytes.extend_from_slice(b"0.04,\xff\xfe,0,90,10\n0.08,1,0,90,10\n");
    let mut s =
        CsvSource::from_reader(Path::new("u.csv"), &bytes[..], &[], BadRowPolicy::Skip).unwrap();
    let ok: Vec<_> = s.by_ref().collect();
    assert_eq!(ok.len(), 2, "{ok:?}");
    assert_eq!(s.skipped, 1);
    assert_eq!(s.skipped_errors[0].line, 3, "{}", s.skipped_errors[0]);
}

#[test]
fn cells_parse_like_str_parse() {
    for (cell, want) in [
        ("", Cell::Empty),
        ("  \r", Cell::Empty),
        ("\u{a0}", Cell::Empty),
        (" 387000.040 ", Cell::Number(387000.04)),
        ("-1.75\r", Cell::Number(-1.75)),
        ("1e3", Cell::Number(1000.0)),
        ("+.5", Cell::Number(0.5)),
        ("\u{a0}2.5", Cell::Number(2.5)),
        ("0x10", Cell::NotANumber),
        ("1,5", Cell::NotANumber),
        ("abc", Cell::NotANumber),
        ("1.5.2", Cell::NotANumber),
    ] {
        assert_eq!(cell_f64(cell.as_bytes()), want, "{cell:?}");
    }
    // Same value, bit for bit, as the standard parser on awkward inputs.
    for s in [
        "0.1",
        "387000.123456789",
        "2.2250738585072014e-308",
        "1e-400",
        "9007199254740993",
    ] {
        let std: f64 = s.parse().unwrap();
        assert_eq!(cell_f64(s.as_bytes()), Cell::Number(std), "{s}");
    }
    assert!(matches!(cell_f64(b"nan"), Cell::Number(v) if v.is_nan()));
    assert_eq!(cell_f64(b"\xff1"), Cell::NotANumber);
}

#[test]
fn crlf_rows_and_non_finite_cells() {
    let text = "Time,PosX,PosY,Heading,Velocity\r\n0,0,0,90,10\r\n0.04,inf,0,90,10\r\n";
    let mut s = src(text, BadRowPolicy::Stop).unwrap();
    assert!((s.next().unwrap().unwrap().speed_mps - 10.0 / 3.6).abs() < 1e-12);
    let e = s.next().unwrap().unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.reason.contains("'inf' is not finite"), "{e}");
}

#[test]
fn time_must_increase() {
    let text = "Time,PosX,PosY,Heading,Velocity\n1,0,0,90,10\n1,0,0,90,10\n";
    let mut s = src(text, BadRowPolicy::Stop).unwrap();
    s.next();
    let e = s.next().unwrap().unwrap_err();
    assert!(e.reason.contains("does not increase"));
}

/// The fast path for plain decimals gives the standard parser's bits on every shape it takes
/// (and declines the rest): random digits, dots, signs and lengths around its limits.
#[test]
fn plain_decimals_match_str_parse_bit_for_bit() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut fast = 0;
    for i in 0..200_000 {
        let r = next();
        let len = 1 + (r % 24) as usize;
        let mut s = String::new();
        if r & (1 << 40) != 0 {
            s.push('-');
        }
        let dot_at = (r >> 8) as usize % (len + 2);
        for k in 0..len {
            if k == dot_at {
                s.push('.');
            }
            let d = (next() % 10) as u8;
            // Runs of zeros and nines are where rounding goes wrong.
            let d = match i % 3 {
                0 => d,
                1 if d < 5 => 0,
                _ if d < 5 => 9,
                _ => d,
            };
            s.push((b'0' + d) as char);
        }
        let want: f64 = s.parse().unwrap_or_else(|e| panic!("{s}: {e}"));
        match plain_decimal(s.as_bytes()) {
            Some(v) => {
                fast += 1;
                assert_eq!(v.to_bits(), want.to_bits(), "{s}");
            }
            None => assert!(
                s.trim_start_matches('-').replace('.', "").len() > 15,
                "{s} declined"
            ),
        }
        assert_eq!(cell_f64(s.as_bytes()), Cell::Number(want), "{s}");
    }
    assert!(fast > 100_000, "only {fast} took the fast path");
    for s in [
        "-0",
        "-0.0",
        "0.",
        ".5",
        "-.5",
        "007.50",
        "9007199254740992",
        "1e5",
        "+1",
        ".",
    ] {
        if let Some(v) = plain_decimal(s.as_bytes()) {
            assert_eq!(v.to_bits(), s.parse::<f64>().unwrap().to_bits(), "{s}");
        }
    }
    assert_eq!(plain_decimal(b"9007199254740993"), None);
    assert_eq!(plain_decimal(b"."), None);
    assert_eq!(plain_decimal(b"1e5"), None);
    assert_eq!(plain_decimal(b"1.2.3"), None);
}
