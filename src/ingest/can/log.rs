//! A recorded CAN log of any kind scil reads — candump, Vector ASC, Vector BLF, MDF4 bus
//! logging — told by its content and streamed as frames. A file of another kind is refused
//! with what it is.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use super::asc::AscParser;
use super::blf::BlfReader;
use super::{candump, CanFrame};
use crate::ingest::detect::{self, FileKind};
use crate::ingest::mdf4::Mdf4CanFrames;

/// The kinds of CAN log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogKind {
    Candump,
    Asc,
    Blf,
    Mdf4,
}

impl LogKind {
    pub fn name(self) -> &'static str {
        match self {
            LogKind::Candump => "candump",
            LogKind::Asc => "asc",
            LogKind::Blf => "blf",
            LogKind::Mdf4 => "mf4",
        }
    }
}

/// A bad line of a text log, or what broke a binary log.
#[derive(Debug, Clone, PartialEq)]
pub struct LogError {
    /// 1-based line of a text log.
    pub line: Option<u64>,
    pub reason: String,
}

impl std::fmt::Display for LogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(n) => write!(f, "line {n}: {}", self.reason),
            None => write!(f, "{}", self.reason),
        }
    }
}

fn at(line: u64, reason: String) -> LogError {
    LogError {
        line: Some(line),
        reason,
    }
}

/// Frames of a CAN log, in file order. An `Err` is a bad line (text logs: reading goes on) or
/// a broken file (binary logs: it is the last item); its text says where.
pub struct CanLog {
    pub kind: LogKind,
    inner: Box<dyn Iterator<Item = Result<CanFrame, LogError>> + Send>,
}

impl std::fmt::Debug for CanLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CanLog({:?})", self.kind)
    }
}

/// The hint for a file that is a recording, not a CAN log.
pub fn not_a_can_log(path: &Path, kind: FileKind) -> String {
    let hint = match kind {
        FileKind::Csv | FileKind::Vbo | FileKind::Mcap | FileKind::Adma => {
            "give it as the recording (scil replay FILE), not as a CAN log"
        }
        _ => "scil reads CAN logs written by candump, Vector ASC and BLF, and MDF4 bus logging",
    };
    detect::wrong_kind(path, kind, hint)
}

/// Text lines of a file as bytes, numbered from 1 (a line that is not UTF-8 stays a line).
fn lines(path: &Path) -> Result<impl Iterator<Item = (u64, Result<String, String>)>, String> {
    let f = File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut r = BufReader::with_capacity(1 << 16, f);
    let mut n = 0u64;
    let mut buf = Vec::new();
    Ok(std::iter::from_fn(move || {
        buf.clear();
        match r.read_until(b'\n', &mut buf) {
            Ok(0) => None,
            Ok(_) => {
                n += 1;
                let raw = buf.strip_suffix(b"\n").unwrap_or(&buf);
                let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
                Some((
                    n,
                    std::str::from_utf8(raw)
                        .map(str::to_string)
                        .map_err(|e| format!("not UTF-8 (byte {})", e.valid_up_to() + 1)),
                ))
            }
            Err(e) => {
                n += 1;
                Some((n, Err(format!("cannot read: {e}"))))
            }
        }
    }))
}

impl CanLog {
    /// Opens `path` as a CAN log, whatever its kind; any other file is refused naming it.
    pub fn open(path: &Path) -> Result<CanLog, String> {
        let kind =
            detect::sniff_path(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        match kind {
            FileKind::Candump => {
                let it = lines(path)?.filter_map(|(n, l)| {
                    let l = match l {
                        Ok(l) => l,
                        Err(e) => return Some(Err(at(n, e))),
                    };
                    let t = l.trim();
                    if t.is_empty() || t.starts_with('#') {
                        return None;
                    }
                    Some(
                        candump::parse_line(t)
                            .map_err(|e| at(n, format!("malformed candump line: {e}"))),
                    )
                });
                Ok(CanLog {
                    kind: LogKind::Candump,
                    inner: Box::new(it),
                })
            }
            FileKind::Asc => {
                let mut p = AscParser::new();
                let it = lines(path)?.filter_map(move |(n, l)| match l {
                    Ok(l) => p
                        .line(&l)
                        .map_err(|e| at(n, format!("malformed ASC line: {e}")))
                        .transpose(),
                    Err(e) => Some(Err(at(n, e))),
                });
                Ok(CanLog {
                    kind: LogKind::Asc,
                    inner: Box::new(it),
                })
            }
            FileKind::Blf => {
                let f =
                    File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
                let r = BlfReader::new(BufReader::with_capacity(1 << 16, f))
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                Ok(CanLog {
                    kind: LogKind::Blf,
                    inner: Box::new(r.map(binary_err)),
                })
            }
            FileKind::Mdf4 => {
                let (_, tree) = crate::ingest::mdf4::open_tree(path, path)?;
                if !crate::ingest::mdf4::is_bus_logging(&tree) {
                    return Err(detect::wrong_kind(
                        path,
                        kind,
                        "its channels are physical values, not CAN bus logging: give it as the recording (scil replay FILE)",
                    ));
                }
                let r = Mdf4CanFrames::open(path)?;
                Ok(CanLog {
                    kind: LogKind::Mdf4,
                    inner: Box::new(r.map(binary_err)),
                })
            }
            other => Err(not_a_can_log(path, other)),
        }
    }
}

fn binary_err(r: Result<CanFrame, String>) -> Result<CanFrame, LogError> {
    r.map_err(|reason| LogError { line: None, reason })
}

impl Iterator for CanLog {
    type Item = Result<CanFrame, LogError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next()
    }
}
