//! A CSV cell read as a number: the reader thread's per-cell cost of a replay.
//!
//! A telemetry cell is almost always a short plain decimal (`387000.040`, `-1.7500`, `0`). Such
//! a cell is read here without a byte-at-a-time loop: its bytes are loaded as one or two
//! little-endian `u64` words, right-aligned and padded with `'0'`, the `.` is found with a SWAR
//! compare and squeezed out, all bytes are checked to be digits at once, and each word's eight
//! digits are combined with three multiply-shift steps (the "parse eight digits" technique of
//! fast_float / simdjson). The value is then m / 10^k with m ≤ 2^53 and k ≤ 22 — one IEEE
//! division of two exact numbers, hence correctly rounded (Clinger's fast path): the same bits
//! as `str::parse::<f64>`. Anything else goes to the general parsers, so the accepted inputs and
//! their values are exactly those of `str::parse::<f64>` on the trimmed text.
//!
//! The replay reads its cells with [`cell_f64_at`]: a cell inside the row buffer is loaded as
//! whole words from its start (the bytes after it are masked off), left-aligned, and the
//! padding is added to the exponent instead of shifted away ([`plain_decimal_padded`]); a cell
//! that path does not take (blanks, a sign other than `-`, an exponent, more than 16 digits, the
//! end of the buffer) goes to [`cell_f64`] as above.

/// A cell read as a number.
#[derive(Debug, PartialEq)]
pub(super) enum Cell {
    Empty,
    Number(f64),
    NotANumber,
}

/// Parses a cell's bytes as `f64` without building a string: ASCII blanks (and the '\r' of a
/// CRLF line) are trimmed and the rest goes to a fast, correctly rounded float parser. Anything
/// it does not take goes the old way (UTF-8, `str::trim`, `str::parse`), so the accepted inputs
/// and their values are exactly those of `str::parse::<f64>` on the trimmed text.
#[inline]
pub(super) fn cell_f64(bytes: &[u8]) -> Cell {
    // No blank at either end (the usual cell): nothing to trim. ASCII whitespace is ≤ b' '.
    let t = match (bytes.first(), bytes.last()) {
        (Some(&a), Some(&z)) if a > b' ' && z > b' ' => bytes,
        _ => bytes.trim_ascii(),
    };
    if t.is_empty() {
        return Cell::Empty;
    }
    if let Some(v) = plain_decimal(t) {
        return Cell::Number(v);
    }
    general(bytes, t)
}

/// [`cell_f64`] of `bytes[a..b]`, reading the bytes after the cell too when the buffer has them:
/// a plain decimal of up to 16 digits (and a `-`) is then loaded as whole words from the
/// buffer, left-aligned, without a load shaped by its length (see [`plain_decimal_padded`]).
/// The same results as [`cell_f64`] of the cell: the fast path takes only digits, one `.` and
/// a leading `-` (no blank to trim), everything else goes to [`cell_f64`].
#[inline]
pub(super) fn cell_f64_at(bytes: &[u8], a: usize, b: usize) -> Cell {
    let n = b.wrapping_sub(a);
    if let Some(w) = bytes
        .get(a..a.wrapping_add(17))
        .and_then(|r| r.first_chunk::<17>())
    {
        let (w0, rest) = w.split_at(8);
        let (w1, w2) = rest.split_at(8);
        let mut first = u64::from_le_bytes(w0.try_into().unwrap_or_default());
        let mut second = u64::from_le_bytes(w1.try_into().unwrap_or_default());
        let neg = first & 0xff == u64::from(b'-');
        let mut len = n;
        if neg {
            // The digits start one byte on.
            let third = w2.first().map_or(0, |&x| u64::from(x));
            first = (first >> 8) | (second << 56);
            second = (second >> 8) | (third << 56);
            len = n.wrapping_sub(1);
        }
        if let Some(v) = plain_decimal_padded(first, second, len) {
            return Cell::Number(if neg { -v } else { v });
        }
    }
    cell_f64(bytes.get(a..b).unwrap_or_default())
}

/// The digits (at most one `.`) of a cell's first `n` bytes — 16 bytes from its start in
/// `first` then `second` (little-endian); the bytes past `n` are the next cell's and are
/// ignored — as a number; `None` when they are not such digits, or 0 or more than 16 bytes.
///
/// The `n` bytes are read left-aligned and padded with `'0'` to 8 or 16 digits: the integer m'
/// is the cell's digits m times 10^p, p the padding (and 1 for a `.`), and the value m / 10^k
/// is m' / 10^(k+p), k + p ≤ 16. m' is exact in an `f64` whenever p ≥ 1: it is a multiple of
/// 10 (even) below 10^16 < 2^54, where every even integer is an `f64`. With p = 0 (16 digits,
/// no `.`) the value is m' itself, rounded once by the conversion. Either way one correctly
/// rounded operation on exact operands: the same bits as `str::parse::<f64>` — no 2^53 limit
/// is needed here (unlike [`plain_decimal`], which reads m right-aligned).
#[inline(always)]
fn plain_decimal_padded(mut first: u64, second: u64, n: usize) -> Option<f64> {
    match n {
        1..=8 => {
            // Keep the first n bytes, '0' above them.
            let keep = u64::MAX >> (8 * (8 - n as u32)); // n ≥ 1: shift ≤ 56
            first = (first & keep) | (ZEROS & !keep);
            let dots = eq_mask(first, b'.');
            let mut frac = 0;
            if dots != 0 {
                let k = dots.trailing_zeros() / 8;
                first = squeeze_down(first, k, ZEROS);
                frac = n - 1 - k as usize;
                if n == 1 {
                    return None; // "." alone
                }
            }
            // A second '.', a sign or any other byte is not a digit here.
            if !all_digits(first) {
                return None;
            }
            // frac ≤ 7, padding 8 - n (+ 1 for the dot): at most 15 → in POW10.
            let p = 8 - n + usize::from(dots != 0);
            Some(eight_digits(first) as f64 / *POW10.get(frac + p)?)
        }
        9..=16 => {
            let keep = u64::MAX >> (8 * (16 - n as u32)); // n ≥ 9: shift ≤ 56
            let mut second = (second & keep) | (ZEROS & !keep);
            let mut frac = 0;
            let dots_a = eq_mask(first, b'.');
            let dots_b = eq_mask(second, b'.');
            if dots_a != 0 {
                let k = dots_a.trailing_zeros() / 8;
                // The first byte of `second` moves into the top of `first`.
                first = squeeze_down(first, k, (second & 0xff) << 56);
                second = (second >> 8) | (u64::from(b'0') << 56);
                frac = n - 1 - k as usize;
            } else if dots_b != 0 {
                let k = dots_b.trailing_zeros() / 8;
                second = squeeze_down(second, k, ZEROS);
                frac = n - 9 - k as usize;
            }
            if !all_digits(first) || !all_digits(second) {
                return None;
            }
            // m' < 10^16 < 2^54 and need not be ≤ 2^53 (see the note above).
            let m = eight_digits(first) * 100_000_000 + eight_digits(second);
            let p = 16 - n + usize::from(dots_a | dots_b != 0);
            Some(m as f64 / *POW10.get(frac + p)?)
        }
        _ => None,
    }
}

/// `w` without its byte `k` (a `.`): the bytes above it move down by one and the top byte of
/// `fill` comes in at the top.
#[inline(always)]
fn squeeze_down(w: u64, k: u32, fill: u64) -> u64 {
    let below = (1u64 << (8 * k)) - 1; // k ≤ 7
    let above = !((below << 8) | 0xff);
    (w & below) | ((w & above) >> 8) | (fill & 0xff00_0000_0000_0000)
}

/// The cells [`plain_decimal`] does not take (kept out of line: rare).
#[cold]
#[inline(never)]
fn general(bytes: &[u8], t: &[u8]) -> Cell {
    if let Ok(v) = fast_float2::parse::<f64, _>(t) {
        return Cell::Number(v);
    }
    match std::str::from_utf8(bytes).map(str::trim) {
        Ok("") => Cell::Empty,
        Ok(s) => s.parse().map_or(Cell::NotANumber, Cell::Number),
        Err(_) => Cell::NotANumber,
    }
}

/// 10^0 ..= 10^22: every one exactly representable as an `f64`.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

const ONES: u64 = 0x0101_0101_0101_0101;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const HIGH: u64 = 0x8080_8080_8080_8080;
/// Eight ASCII `'0'`s.
const ZEROS: u64 = 0x3030_3030_3030_3030;

/// The top bit of each byte of `w` that equals `b` (exact: the sums never carry into the next
/// byte).
#[inline(always)]
fn eq_mask(w: u64, b: u8) -> u64 {
    let x = w ^ (ONES * u64::from(b));
    !(((x & LOW7) + LOW7) | x) & HIGH
}

/// All eight bytes of `w` are ASCII digits.
#[inline(always)]
fn all_digits(w: u64) -> bool {
    (w & 0xF0F0_F0F0_F0F0_F0F0)
        | ((w.wrapping_add(0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) >> 4)
        == 0x3333_3333_3333_3333
}

/// The value of eight ASCII digits, the first (most significant) in the lowest byte.
#[inline(always)]
fn eight_digits(w: u64) -> u64 {
    const MASK: u64 = 0x0000_00FF_0000_00FF;
    const MUL1: u64 = 0x000F_4240_0000_0064; // 100 + (1_000_000 << 32)
    const MUL2: u64 = 0x0000_2710_0000_0001; // 1 + (10_000 << 32)
    let mut v = w.wrapping_sub(ZEROS);
    v = v.wrapping_mul(10).wrapping_add(v >> 8);
    ((v & MASK)
        .wrapping_mul(MUL1)
        .wrapping_add(((v >> 16) & MASK).wrapping_mul(MUL2)))
        >> 32
}

/// 1..=8 bytes as a little-endian word, right-aligned (the last byte in the top byte) and
/// padded with `'0'` below: the same digits with leading zeros.
#[inline(always)]
fn load_right(s: &[u8]) -> u64 {
    let n = s.len();
    let w = if let Some(w) = s.first_chunk::<8>() {
        return u64::from_le_bytes(*w);
    } else if let (Some(a), Some(z)) = (s.first_chunk::<4>(), s.last_chunk::<4>()) {
        // Two overlapping loads; the overlap holds the same bytes in both.
        u64::from(u32::from_le_bytes(*a)) | u64::from(u32::from_le_bytes(*z)) << (8 * (n - 4))
    } else if let (Some(a), Some(z)) = (s.first_chunk::<2>(), s.last_chunk::<2>()) {
        u64::from(u16::from_le_bytes(*a)) | u64::from(u16::from_le_bytes(*z)) << (8 * (n - 2))
    } else {
        s.first().map_or(0, |&b| u64::from(b))
    };
    // 1 ≤ n ≤ 7 here: the shift is 8..=56 bits.
    let shift = 8 * (8 - n as u32);
    (w << shift) | (ZEROS & ((1u64 << shift) - 1))
}

/// `w` without its byte `k` (a `.`): the bytes below it move up by one and a `'0'` comes in at
/// the bottom (`carry_in`, a byte value, when given).
#[inline(always)]
fn squeeze(w: u64, k: u32, carry_in: u64) -> u64 {
    let below = (1u64 << (8 * k)) - 1; // k ≤ 7
    let above = !((below << 8) | 0xff);
    ((w & below) << 8) | (w & above) | carry_in
}

/// The common shape of a telemetry cell — an optional `-`, digits, an optional `.` and digits,
/// no exponent — read without a byte loop (see the module note): the digits form an integer
/// m ≤ 2^53 and the value is m / 10^k, one IEEE division of two exact numbers, hence correctly
/// rounded — the same bits `str::parse::<f64>` gives. Anything else is `None` and goes to the
/// general parser.
#[inline]
fn plain_decimal(t: &[u8]) -> Option<f64> {
    let (neg, d) = match t.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, t),
    };
    let (m, frac) = match d.len() {
        1..=8 => short_digits(d)?,
        9..=16 => long_digits(d)?,
        _ => return long_decimal(neg, d),
    };
    let v = m as f64 / *POW10.get(frac)?;
    Some(if neg { -v } else { v })
}

/// 1..=8 bytes of digits with at most one `.` in one word: (the digits as an integer, how many
/// follow the `.`). The integer is below 10^8.
#[inline(always)]
fn short_digits(d: &[u8]) -> Option<(u64, usize)> {
    let mut w = load_right(d);
    let dots = eq_mask(w, b'.');
    let mut frac = 0;
    if dots != 0 {
        let k = dots.trailing_zeros() / 8;
        w = squeeze(w, k, u64::from(b'0'));
        frac = 7 - k as usize;
        if d.len() == 1 {
            return None; // "." alone
        }
    }
    // A second '.', a sign or any other byte is not a digit here.
    if !all_digits(w) {
        return None;
    }
    Some((eight_digits(w), frac))
}

/// [`short_digits`] for 9..=16 bytes, in two words; `None` past 2^53 (not exact).
#[inline]
fn long_digits(d: &[u8]) -> Option<(u64, usize)> {
    // The cell as 16 right-aligned bytes: `hi` (the first len-8, padded) then `lo` (the last 8).
    let (a, b) = d.split_at(d.len().checked_sub(8)?);
    let mut hi = load_right(a);
    let mut lo = u64::from_le_bytes(*b.first_chunk::<8>()?);
    let dots_a = eq_mask(lo, b'.');
    let frac = if dots_a != 0 {
        let k = dots_a.trailing_zeros() / 8;
        // The last byte of `hi` moves into `lo`.
        lo = squeeze(lo, k, hi >> 56);
        hi = (hi << 8) | u64::from(b'0');
        7 - k as usize
    } else {
        let dots_b = eq_mask(hi, b'.');
        if dots_b != 0 {
            let k = dots_b.trailing_zeros() / 8;
            hi = squeeze(hi, k, u64::from(b'0'));
            15 - k as usize
        } else {
            0
        }
    };
    // A second '.', a sign or any other byte is not a digit here. (At least 8 digits remain.)
    if !all_digits(lo) || !all_digits(hi) {
        return None;
    }
    let m = eight_digits(hi) * 100_000_000 + eight_digits(lo);
    if m > (1u64 << 53) {
        return None;
    }
    Some((m, frac))
}

/// [`plain_decimal`] for 17..=20 bytes (or none), a byte at a time: at most 19 digits.
#[cold]
#[inline(never)]
fn long_decimal(neg: bool, digits: &[u8]) -> Option<f64> {
    if digits.len() > 20 {
        return None;
    }
    let mut m: u64 = 0;
    let mut dot = usize::MAX;
    for (i, &b) in digits.iter().enumerate() {
        let d = b.wrapping_sub(b'0');
        if d < 10 {
            // Wrapping only past 19 digits, which are refused below.
            m = m.wrapping_mul(10).wrapping_add(u64::from(d));
        } else if b == b'.' && dot == usize::MAX {
            dot = i;
        } else {
            return None;
        }
    }
    let (n, frac) = match dot {
        usize::MAX => (digits.len(), 0),
        d => (digits.len() - 1, digits.len() - 1 - d),
    };
    if n == 0 || n > 19 || m > (1u64 << 53) {
        return None;
    }
    let v = m as f64 / *POW10.get(frac)?;
    Some(if neg { -v } else { v })
}

#[cfg(test)]
#[path = "csv_cells_tests.rs"]
mod tests;
