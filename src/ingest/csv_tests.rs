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

/// An implausible row is a bad row with its line: skipped and counted under Skip (the next
/// good row is read and counted), the end of the source under Stop.
#[test]
fn implausible_rows_follow_the_policy_with_their_line() {
    let text = "Time,PosX,PosY,Heading,Velocity\n0.00,0,0,90,36\n0.04,0.4,0,90,3600000\n\n0.08,0.8,0,90,36\n";
    let mut s = src(text, BadRowPolicy::Skip).unwrap();
    assert_eq!(s.next().unwrap().unwrap().time_s, 0.0);
    assert_eq!(s.next().unwrap().unwrap().time_s, 0.08);
    assert!(s.next().is_none());
    assert_eq!((s.rows, s.skipped, s.implausible()), (2, 1, 1));
    assert_eq!(s.skipped_errors[0].line, 3);
    assert!(
        s.skipped_errors[0].reason.contains("implausible speed"),
        "{:?}",
        s.skipped_errors
    );

    let mut s = src(text, BadRowPolicy::Stop).unwrap();
    assert!(s.next().unwrap().is_ok());
    let e = s.next().unwrap().unwrap_err();
    assert_eq!((e.line, e.file.as_path()), (3, Path::new("t.csv")));
    assert!(e.reason.starts_with("implausible speed"), "{e}");
    assert!(s.next().is_none());
    assert_eq!(s.rows, 1);
}

/// Every name a missing-column error lists is one the header detection takes for that field.
#[test]
fn accepted_names_are_the_detected_ones() {
    for (list, field) in [
        (ACCEPTED_TIME, Field::Time),
        (ACCEPTED_X, Field::X),
        (ACCEPTED_Y, Field::Y),
        (ACCEPTED_LAT, Field::Lat),
        (ACCEPTED_LON, Field::Lon),
        (ACCEPTED_HEADING, Field::Heading),
        (ACCEPTED_SPEED, Field::Speed),
    ] {
        for name in list.split(", ").flat_map(|n| n.split(" or ")) {
            let (norm, _) = split_header(name);
            assert_eq!(auto_field(&norm), Some(field), "{name}");
        }
    }
    let e = ColumnMapping::from_header(&["Time", "PosX", "PosY", "Heading", "VelocityKmh"], &[])
        .err()
        .unwrap_or_default();
    assert!(e.contains("speed (a column named Velocity, Speed"), "{e}");
}
