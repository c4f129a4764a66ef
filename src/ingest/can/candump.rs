//! `candump -l` log files: `(1436509052.249713) can0 123#DEADBEEF`.
//!
//! 3 hex digits = 11-bit id, 8 = 29-bit id; `123#R` (optionally `123#R5`) remote frame;
//! `123##<flags><data>` CAN FD; data may contain `.` separators; trailing tokens (`R`/`T` from
//! `-x`) are ignored. Error frames (`20000080#...`) are flagged.

use std::time::Duration;

use tokio::sync::mpsc;

use super::CanFrame;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CandumpError {
    #[error("missing '(timestamp)'")]
    Timestamp,
    #[error("missing interface or frame")]
    Fields,
    #[error("missing '#' in frame {0:?}")]
    NoHash(String),
    #[error("bad CAN id {0:?}")]
    Id(String),
    #[error("bad data {0:?}")]
    Data(String),
    #[error("line is not valid UTF-8 (byte {0})")]
    Utf8(usize),
}

fn hex_bytes(s: &str) -> Result<Vec<u8>, CandumpError> {
    let digits: Vec<u8> = s.bytes().filter(|b| *b != b'.').collect();
    if digits.len() & 1 == 1 {
        return Err(CandumpError::Data(s.into()));
    }
    digits
        .chunks(2)
        .map(|c| {
            let hi = (c[0] as char).to_digit(16);
            let lo = (c[1] as char).to_digit(16);
            match (hi, lo) {
                (Some(h), Some(l)) => Ok((h * 16 + l) as u8),
                _ => Err(CandumpError::Data(s.into())),
            }
        })
        .collect()
}

/// Parses the `ID#DATA` token.
pub fn parse_frame(tok: &str) -> Result<CanFrame, CandumpError> {
    let (id_s, rest) = tok
        .split_once('#')
        .ok_or_else(|| CandumpError::NoHash(tok.into()))?;
    if id_s.is_empty() || id_s.len() > 8 || !id_s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(CandumpError::Id(id_s.into()));
    }
    let raw = u32::from_str_radix(id_s, 16).map_err(|_| CandumpError::Id(id_s.into()))?;
    let extended = id_s.len() > 3;
    let error = extended && raw & 0x2000_0000 != 0;
    let id = if extended { raw & 0x1FFF_FFFF } else { raw };
    if !extended && id > 0x7FF {
        return Err(CandumpError::Id(id_s.into()));
    }
    let mut f = CanFrame::new(id, extended, &[]);
    f.error = error;
    if let Some(fd) = rest.strip_prefix('#') {
        let mut chars = fd.chars();
        let flags = chars
            .next()
            .and_then(|c| c.to_digit(16))
            .ok_or_else(|| CandumpError::Data(fd.into()))?;
        f.fd = true;
        f.fd_flags = flags as u8;
        f.data = hex_bytes(chars.as_str())?;
        if f.data.len() > 64 {
            return Err(CandumpError::Data(fd.into()));
        }
    } else if let Some(r) = rest.strip_prefix('R').or_else(|| rest.strip_prefix('r')) {
        if !r.is_empty() && !r.bytes().all(|b| b.is_ascii_digit()) {
            return Err(CandumpError::Data(rest.into()));
        }
        f.remote = true;
    } else {
        f.data = hex_bytes(rest)?;
        if f.data.len() > 8 {
            return Err(CandumpError::Data(rest.into()));
        }
    }
    Ok(f)
}

/// Parses one log line.
pub fn parse_line(line: &str) -> Result<CanFrame, CandumpError> {
    let line = line.trim();
    let rest = line.strip_prefix('(').ok_or(CandumpError::Timestamp)?;
    let (ts, rest) = rest.split_once(')').ok_or(CandumpError::Timestamp)?;
    let time: f64 = ts.trim().parse().map_err(|_| CandumpError::Timestamp)?;
    if !time.is_finite() {
        return Err(CandumpError::Timestamp);
    }
    let mut toks = rest.split_whitespace();
    let iface = toks.next().ok_or(CandumpError::Fields)?;
    let frame = toks.next().ok_or(CandumpError::Fields)?;
    let mut f = parse_frame(frame)?;
    f.time_s = Some(time);
    f.iface = Some(iface.to_string());
    Ok(f)
}

/// Parses a whole log; blank lines and `#` comments are skipped; malformed lines are returned as
/// errors with their 1-based line number so the caller can count and log them.
pub fn parse_log(text: &str) -> impl Iterator<Item = (usize, Result<CanFrame, CandumpError>)> + '_ {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#')
        })
        .map(|(i, l)| (i + 1, parse_line(l)))
}

/// Like [`parse_log`] on raw bytes: a line that is not valid UTF-8 is one malformed line
/// ([`CandumpError::Utf8`] with its line number), the rest of the log still decodes.
pub fn parse_log_bytes(
    bytes: &[u8],
) -> impl Iterator<Item = (usize, Result<CanFrame, CandumpError>)> + '_ {
    bytes
        .split(|b| *b == b'\n')
        .enumerate()
        .filter_map(|(i, raw)| {
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            match std::str::from_utf8(raw) {
                Ok(l) => {
                    let t = l.trim();
                    (!t.is_empty() && !t.starts_with('#')).then(|| (i + 1, parse_line(l)))
                }
                Err(e) => Some((i + 1, Err(CandumpError::Utf8(e.valid_up_to() + 1)))),
            }
        })
}

/// Formats a frame as a candump log line (inverse of [`parse_line`]).
pub fn format_line(f: &CanFrame) -> String {
    let id = if f.extended || f.error {
        format!("{:08X}", f.linux_id() & 0x3FFF_FFFF)
    } else {
        format!("{:03X}", f.id)
    };
    let data: String = f.data.iter().map(|b| format!("{b:02X}")).collect();
    let body = if f.fd {
        format!("#{:X}{data}", f.fd_flags & 0xF)
    } else if f.remote {
        "R".into()
    } else {
        data
    };
    format!(
        "({:.6}) {} {id}#{body}",
        f.time_s.unwrap_or(0.0),
        f.iface.as_deref().unwrap_or("can0")
    )
}

/// Sends timestamped frames at their recorded pace (divided by `speed`; `speed <= 0` = as fast as
/// possible), like the CSV replay. Returns when done or when the receiver is dropped.
pub async fn replay_paced(frames: Vec<CanFrame>, speed: f64, tx: mpsc::Sender<CanFrame>) {
    let start = tokio::time::Instant::now();
    let t0 = frames.iter().find_map(|f| f.time_s);
    for f in frames {
        if let (Some(t0), Some(t), true) = (t0, f.time_s, speed > 0.0) {
            let offset = ((t - t0) / speed).max(0.0);
            tokio::time::sleep_until(start + Duration::from_secs_f64(offset)).await;
        }
        if tx.send(f).await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        let f = parse_line("(1436509052.249713) can0 123#DE.AD.BE.EF").unwrap();
        assert_eq!((f.id, f.extended, f.data.len()), (0x123, false, 4));
        assert_eq!(f.time_s, Some(1436509052.249713));
        let f = parse_line("(0000387000.003000) can0 18F20002#D18BE845F4227A01").unwrap();
        assert_eq!((f.id, f.extended), (0x18F20002, true));
        let f = parse_line("(1.0) vcan0 7FF#R").unwrap();
        assert!(f.remote && f.data.is_empty());
        let f = parse_line("(1.0) can1 00000123##311223344 T").unwrap();
        assert!(f.fd && f.extended);
        assert_eq!(f.fd_flags, 3);
        assert_eq!(f.data, vec![0x11, 0x22, 0x33, 0x44]);
        let f = parse_line("(1.0) can0 20000080#0000000000000000").unwrap();
        assert!(f.error);
        assert!(parse_line("(1.0) can0 800#00").is_err());
        assert!(parse_line("(1.0) can0 123#0").is_err());
        assert!(parse_line("can0 123#00").is_err());
        assert!(parse_line("(x) can0 123#00").is_err());
        assert!(parse_line("(1.0) can0 123#001122334455667788").is_err());
    }

    #[test]
    fn non_utf8_line_is_one_bad_line() {
        let mut log = b"(1.0) can0 123#00\n(1.1) can0 1".to_vec();
        log.push(0xFF);
        log.extend_from_slice(b"2#00\r\n\n# c\n(1.2) can0 124#0102\n");
        let got: Vec<_> = parse_log_bytes(&log).collect();
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].1.as_ref().map(|f| f.id), Ok(0x123));
        assert_eq!(got[1], (2, Err(CandumpError::Utf8(13))));
        assert_eq!(got[2].0, 5);
        assert_eq!(got[2].1.as_ref().map(|f| f.data.clone()), Ok(vec![1, 2]));
    }

    #[test]
    fn format_round_trip() {
        for l in [
            "(387000.000249) can0 156#000200000000",
            "(387000.003000) can0 18F20002#D18BE845F4227A01",
            "(1.000000) can0 7DF#R",
            "(1.000000) can0 123##1AABB",
        ] {
            let f = parse_line(l).unwrap();
            assert_eq!(format_line(&f), l.to_uppercase().replace("CAN0", "can0"));
        }
    }
}
