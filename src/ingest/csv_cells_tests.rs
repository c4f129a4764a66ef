//! [`cell_f64`] against `str::parse::<f64>` on the trimmed text, bit for bit.
use super::*;
use proptest::prelude::*;

/// What [`cell_f64`] must give: `str::parse::<f64>` of the UTF-8 text, trimmed.
fn reference(bytes: &[u8]) -> Cell {
    match std::str::from_utf8(bytes).map(str::trim) {
        Err(_) => Cell::NotANumber,
        Ok("") => Cell::Empty,
        Ok(s) => s.parse().map_or(Cell::NotANumber, Cell::Number),
    }
}

/// Same outcome; numbers with the same bits (the sign of zero included), NaN as NaN.
fn same(bytes: &[u8]) -> Result<(), String> {
    let (got, want) = (cell_f64(bytes), reference(bytes));
    let ok = match (&got, &want) {
        (Cell::Number(a), Cell::Number(b)) => {
            a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan()
        }
        _ => got == want,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{:?}: got {got:?}, str::parse gives {want:?}",
            String::from_utf8_lossy(bytes)
        ))
    }
}

fn check(bytes: &[u8]) {
    if let Err(e) = same(bytes) {
        panic!("{e}");
    }
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

/// The fast path for plain decimals gives the standard parser's bits on every shape it takes
/// (and declines the rest): random digits, dots, signs and lengths around its limits.
#[test]
fn plain_decimals_match_str_parse_bit_for_bit() {
    let mut next = crate::ingest::xorshift(0x9E37_79B9_7F4A_7C15u64);
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

#[test]
fn fixed_cases() {
    for s in [
        "",
        " ",
        "  \r",
        "\u{a0}",
        "\u{b}1",
        " 387000.040 ",
        "387000.040",
        "-1.7500",
        "0",
        "-0",
        "-0.0",
        "0.",
        "-0.",
        ".5",
        "-.5",
        ".",
        "-.",
        "-",
        "--1",
        "+1",
        "+.5",
        "1e3",
        "1E3",
        "1.5.2",
        "1..5",
        "0x10",
        "1,5",
        "abc",
        "inf",
        "-inf",
        "+inf",
        "Infinity",
        "nan",
        "NaN",
        "-nan",
        "1 2",
        "1\t",
        "\t-2.5\r",
        "\u{a0}2.5",
        "9007199254740992",
        "9007199254740993",
        "900719925474099.3",
        "9007199254740994",
        "90071992547409.93",
        "0.1",
        "0.3",
        "12345678",
        "1234567.8",
        ".12345678",
        "12345678.",
        "123456789",
        "12345678.9",
        "1234567890123456",
        "123456789012345.6",
        "1.234567890123456",
        "12345678901234567",
        "1234567890123456.7",
        "0.0000000000000001",
        "0000000000000000001",
        "1.00000000000000000",
        "99999999999999999999",
        "999999999999999999999",
        "4.9e-324",
        "1e-400",
        "1e400",
        "2.2250738585072014e-308",
        "1_0",
        "١",
        "1.5e",
        "1e+",
        "e5",
        ".e1",
        "1.e1",
    ] {
        check(s.as_bytes());
    }
    check(b"\xff1");
    check(b"1\xff");
    check(b"12345678\xb9");
    assert_eq!(cell_f64(b"387000.040"), Cell::Number(387000.04));
}

/// Every string of up to 5 bytes over a small alphabet: all shapes of short cells.
#[test]
fn all_short_strings() {
    const A: &[u8] = b"019.-+e ";
    let mut buf = Vec::new();
    for len in 1..=5u32 {
        for mut code in 0..A.len().pow(len) {
            buf.clear();
            for _ in 0..len {
                buf.push(A[code % A.len()]);
                code /= A.len();
            }
            check(&buf);
        }
    }
}

/// Digit strings of 1..=25 digits with an optional '-', '.', blanks, exponent.
fn decimal() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        "[0-9]{1,25}",
        proptest::option::of(0usize..26),
        proptest::option::of("[eE][+-]?[0-9]{1,3}"),
        "[ \t]{0,2}",
        "[ \r]{0,2}",
    )
        .prop_map(|(neg, digits, dot, exp, pre, post)| {
            let mut s = digits;
            if let Some(at) = dot {
                s.insert(at.min(s.len()), '.');
            }
            if neg {
                s.insert(0, '-');
            }
            format!("{pre}{s}{}{post}", exp.unwrap_or_default())
        })
}

/// A bare mantissa near 2^53 with a '.' somewhere: the fast path's limit.
fn near_2_53() -> impl Strategy<Value = String> {
    ((1u64 << 53) - 50..(1u64 << 53) + 50, 0usize..17).prop_map(|(m, at)| {
        let mut s = m.to_string();
        s.insert(at.min(s.len()), '.');
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn decimals_parse_like_str_parse(s in decimal()) {
        prop_assert_eq!(same(s.as_bytes()), Ok(()));
    }

    #[test]
    fn limits_parse_like_str_parse(s in near_2_53()) {
        prop_assert_eq!(same(s.as_bytes()), Ok(()));
    }

    #[test]
    fn junk_parses_like_str_parse(
        b in proptest::collection::vec(
            prop_oneof![
                8 => proptest::sample::select(b"0123456789.-+eE ,\t\rxnaifNAIF".to_vec()),
                1 => any::<u8>(),
            ],
            0..24,
        )
    ) {
        prop_assert_eq!(same(&b), Ok(()));
    }

    #[test]
    fn printed_floats_parse_like_str_parse(v in any::<f64>(), places in 0usize..20) {
        prop_assert_eq!(same(format!("{v}").as_bytes()), Ok(()));
        prop_assert_eq!(same(format!("{v:.places$}").as_bytes()), Ok(()));
        prop_assert_eq!(same(format!("{:.places$}", v % 1e6).as_bytes()), Ok(()));
    }
}

/// Every cell of the shared replays.
#[test]
fn shared_replay_cells_parse_like_str_parse() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/replays");
    let mut files = 0;
    let mut cells = 0usize;
    for entry in std::fs::read_dir(dir).expect("shared replays") {
        let path = entry.expect("dir entry").path();
        if path.extension().is_none_or(|e| e != "csv") {
            continue;
        }
        files += 1;
        let bytes = std::fs::read(&path).expect("replay");
        for line in bytes.split(|&b| b == b'\n') {
            for cell in line.split(|&b| b == b',') {
                if let Err(e) = same(cell) {
                    panic!("{}: {e}", path.display());
                }
                cells += 1;
            }
        }
    }
    assert!(files > 0 && cells > 1000, "{files} files, {cells} cells");
}

/// [`cell_f64_at`] of a cell inside a buffer: the same as [`cell_f64`] of the cell alone, whatever
/// follows it (digits, dots, another cell, nothing) — the bytes past the cell are read but
/// must not count.
fn check_at(cell: &[u8]) {
    let want = reference(cell);
    for tail in [
        &b""[..],
        b"9",
        b",1.5",
        b"...............",
        b"0000000000000000",
        b"\xff\xfe",
        b"-",
    ] {
        let mut buf = b"7,".to_vec();
        buf.extend_from_slice(cell);
        let (a, b) = (2, 2 + cell.len());
        buf.extend_from_slice(tail);
        let got = cell_f64_at(&buf, a, b);
        let ok = match (&got, &want) {
            (Cell::Number(x), Cell::Number(y)) => {
                x.to_bits() == y.to_bits() || x.is_nan() && y.is_nan()
            }
            _ => got == want,
        };
        assert!(
            ok,
            "{:?} then {:?}: got {got:?}, want {want:?}",
            String::from_utf8_lossy(cell),
            String::from_utf8_lossy(tail)
        );
    }
}

#[test]
fn cells_in_a_buffer_parse_like_str_parse() {
    for s in [
        "",
        " ",
        "-",
        ".",
        "-.",
        "0",
        "-0",
        "-0.0",
        "0.",
        ".5",
        "-.5",
        "+1",
        "1e3",
        "387000.040",
        "20.3359",
        "-1.7500",
        "90.000",
        "30.208",
        "0.1",
        "12345678",
        "1234567.8",
        ".1234567",
        "1234567.",
        "123456789",
        "12345678.9",
        "1.23456789",
        "123456789.",
        "1234567890123456",
        "123456789012345.6",
        ".123456789012345",
        "-9007199254740992",
        "9007199254740993",
        "900719925474099.3",
        "9999999999999999",
        "99999999.99999999",
        "950000.000",
        "1..5",
        "1.5.",
        "12345678..",
        "1 2",
        " 1",
        "1\r",
        "\u{a0}2.5",
        "inf",
        "nan",
        "12345678901234567",
        "1.2345678901234567",
        "0000000000000001",
        "-00000000.0000001",
    ] {
        check_at(s.as_bytes());
    }
    check_at(b"12\xff4");
    check_at(b"-1\xff");
    // Every digit/dot string of 1..=17 bytes with one or two dots, random digits.
    let mut next = crate::ingest::xorshift(0x2545_F491_4F6C_DD1Du64);
    for _ in 0..100_000 {
        let r = next();
        let len = 1 + (r % 17) as usize;
        let mut s: Vec<u8> = (0..len).map(|_| b'0' + (next() % 10) as u8).collect();
        for bit in [8, 9] {
            if r & (1 << bit) != 0 {
                let at = (next() % len as u64) as usize;
                s[at] = b'.';
            }
        }
        if r & (1 << 10) != 0 {
            s.insert(0, b'-');
        }
        check_at(&s);
    }
}

/// The fast paths' limit m ≤ 2^53: decimals of 16–19 digits whose digits, read as an integer,
/// are just above 2^53 are declined by the fast path (their integer is not exact in an `f64`)
/// and still read bit for bit as `str::parse` reads them; some of them would come out wrong
/// without the limit (rounding m to an `f64` first, then dividing, rounds twice).
#[test]
fn mantissas_just_above_2_53_leave_the_fast_path() {
    let mut twice_rounded_wrong = 0;
    for m in (1u64 << 53) + 1..(1u64 << 53) + 3_000 {
        for extra in 0..4usize {
            // 16 digits, then 17–19 by appending digits (still just above 2^53 · 10^extra).
            let digits = format!("{m}{}", "7".repeat(extra));
            let mant: u64 = digits.parse().expect("digits");
            for at in 1..digits.len() {
                let mut s = digits.clone();
                s.insert(at, '.');
                let want: f64 = s.parse().expect("decimal");
                assert_eq!(plain_decimal(s.as_bytes()), None, "{s} took the fast path");
                match cell_f64(s.as_bytes()) {
                    Cell::Number(v) => assert_eq!(v.to_bits(), want.to_bits(), "{s}"),
                    other => panic!("{s}: {other:?}"),
                }
                check_at(s.as_bytes());
                if let Some(p) = POW10.get(digits.len() - at) {
                    twice_rounded_wrong +=
                        usize::from((mant as f64 / p).to_bits() != want.to_bits());
                }
            }
        }
    }
    assert!(twice_rounded_wrong > 0, "no case would have gone wrong");
}

/// The padded path needs no 2^53 limit (see [`plain_decimal_padded`]): its integer m' = m ·
/// 10^p is exact whenever p ≥ 1 (even, below 2^54), and with p = 0 the value is m' rounded
/// once. Checked where it would matter: 16-byte cells whose padded integer is just above 2^53
/// (15 digits and a `.`: p = 1) and 16-digit integers above 2^53 (p = 0), bit for bit.
#[test]
fn padded_mantissas_above_2_53_read_exactly() {
    let word = |w: &[u8]| u64::from_le_bytes(w.try_into().expect("8 bytes"));
    let padded = |s: &str| {
        let (w0, w1) = s.as_bytes().split_at(8);
        plain_decimal_padded(word(w0), word(w1), 16)
    };
    let limit = (1u64 << 53) / 10; // 10 · limit ≤ 2^53 < 10 · (limit + 1)
    for m in limit - 2_000..limit + 4_000 {
        let digits = m.to_string();
        for at in 0..=digits.len() {
            let mut s = digits.clone();
            s.insert(at, '.');
            let want: f64 = s.parse().expect("decimal");
            assert_eq!(padded(&s).map(f64::to_bits), Some(want.to_bits()), "{s}");
            check_at(s.as_bytes());
        }
    }
    for m in (1u64 << 53) - 100..(1u64 << 53) + 4_000 {
        let s = m.to_string();
        let want: f64 = s.parse().expect("integer");
        assert_eq!(padded(&s).map(f64::to_bits), Some(want.to_bits()), "{s}");
        check_at(s.as_bytes());
    }
    for s in [
        "9999999999999999",
        "99999999999999.9",
        ".999999999999999",
        "999999999999999.",
    ] {
        let want: f64 = s.parse().expect("decimal");
        assert_eq!(padded(s).map(f64::to_bits), Some(want.to_bits()), "{s}");
    }
}
