//! What a file is, told by its content (magic bytes and section markers), never by its name:
//! every command that takes a recording or a CAN log looks here first and refuses a file of the
//! wrong kind with a message naming what it is.

use std::io::Read;
use std::path::Path;

/// The kinds of file scil reads, and a few it does not but can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Text with a header row: scil's CSV or an OxTS NcomToCsv-style export.
    Csv,
    /// ASAM MDF 4.x (`MDF     ` or `UnFinMF ` at byte 0); physical channels or bus logging.
    Mdf4,
    /// ASAM MDF 3.x: an older version scil does not read.
    Mdf3,
    /// Racelogic VBOX `.vbo` text (`[header]` … `[data]` sections).
    Vbo,
    /// scil's own MCAP recording.
    Mcap,
    /// `candump -l` log lines `(secs) iface ID#DATA`.
    Candump,
    /// Vector ASC text log (`base hex|dec`, `Begin Triggerblock`).
    Asc,
    /// Vector BLF binary log (`LOGG`).
    Blf,
    /// GeneSys ADMAnet packets one after another (`GBIN` at byte 0).
    Adma,
    /// Apache Parquet (`PAR1`): an export, not a recording scil replays.
    Parquet,
    /// A file of none of the kinds above that is not text.
    Binary,
    /// Nothing in it.
    Empty,
}

impl FileKind {
    /// "a Vector BLF file", for messages.
    pub fn describe(self) -> &'static str {
        match self {
            FileKind::Csv => "a CSV file",
            FileKind::Mdf4 => "an ASAM MDF4 file",
            FileKind::Mdf3 => "an ASAM MDF 3 file (scil reads MDF 4.00–4.20)",
            FileKind::Vbo => "a Racelogic VBOX (.vbo) file",
            FileKind::Mcap => "an MCAP recording",
            FileKind::Candump => "a candump log",
            FileKind::Asc => "a Vector ASC log",
            FileKind::Blf => "a Vector BLF file",
            FileKind::Adma => "a GeneSys ADMAnet recording",
            FileKind::Parquet => "a Parquet file (an export, not a recording)",
            FileKind::Binary => "a binary file of no kind scil reads",
            FileKind::Empty => "empty",
        }
    }

    /// CAN logs: candump, ASC, BLF (MDF4 may be either; see [`crate::ingest::mdf4`]).
    pub fn is_can_log(self) -> bool {
        matches!(self, FileKind::Candump | FileKind::Asc | FileKind::Blf)
    }
}

/// How many bytes of the head are looked at.
const HEAD: usize = 8192;

/// Reads the head of `path` and tells its kind.
pub fn sniff_path(path: &Path) -> std::io::Result<FileKind> {
    let mut f = std::fs::File::open(path)?;
    let mut head = Vec::with_capacity(HEAD);
    f.by_ref().take(HEAD as u64).read_to_end(&mut head)?;
    Ok(sniff(&head))
}

/// Tells a file's kind from its first bytes (up to 8 KiB are enough).
pub fn sniff(head: &[u8]) -> FileKind {
    if head.is_empty() {
        return FileKind::Empty;
    }
    if head.starts_with(b"MDF     ") || head.starts_with(b"UnFinMF ") {
        // The version string follows the file id: "4.10    ", "3.30    ".
        return match head.get(8) {
            Some(b'4') => FileKind::Mdf4,
            _ => FileKind::Mdf3,
        };
    }
    if head.starts_with(b"LOGG") {
        return FileKind::Blf;
    }
    if head.starts_with(b"\x89MCAP") {
        return FileKind::Mcap;
    }
    if head.starts_with(&super::adma::GENESYS_ID) {
        return FileKind::Adma;
    }
    if head.starts_with(b"PAR1") {
        return FileKind::Parquet;
    }
    // Text kinds. A stray byte that is not UTF-8 (one bad line of a log) keeps a file text;
    // NUL bytes or many invalid bytes make it binary.
    let text = String::from_utf8_lossy(head);
    let invalid = text.chars().filter(|c| *c == '\u{FFFD}').count();
    if text.contains('\0') || invalid > head.len() / 64 + 1 {
        return FileKind::Binary;
    }
    let lower = text.to_ascii_lowercase();
    if lower.contains("[column names]") || (lower.contains("[header]") && lower.contains("[data]"))
    {
        return FileKind::Vbo;
    }
    let first_lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .take(8)
        .collect();
    if first_lines.iter().any(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("begin triggerblock")
            || ((l.starts_with("base hex") || l.starts_with("base dec"))
                && l.contains("timestamps"))
    }) {
        return FileKind::Asc;
    }
    if let Some(first) = first_lines.iter().find(|l| !l.starts_with('#')) {
        if first.starts_with('(') && super::can::candump::parse_line(first).is_ok() {
            return FileKind::Candump;
        }
    }
    FileKind::Csv
}

/// The error when a file is not what the command reads: "log.blf is a Vector BLF file: give it
/// as a CAN log".
pub fn wrong_kind(path: &Path, kind: FileKind, hint: &str) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    if hint.is_empty() {
        format!("{name} is {}", kind.describe())
    } else {
        format!("{name} is {}: {hint}", kind.describe())
    }
}

/// Where a file of this kind goes, for a file given where another kind was expected
/// ("upload it as a replay"); `None` for text that may be what was expected after all.
pub fn belongs(kind: FileKind) -> Option<&'static str> {
    match kind {
        FileKind::Mdf4 | FileKind::Vbo | FileKind::Mcap | FileKind::Adma => {
            Some("a recording: upload it as a replay")
        }
        FileKind::Candump | FileKind::Asc | FileKind::Blf => {
            Some("a CAN log: give it with a replay or a run (its CAN source)")
        }
        FileKind::Parquet => Some("scil's export of a run, not an input"),
        FileKind::Mdf3 | FileKind::Binary | FileKind::Empty => Some("not what is read here"),
        FileKind::Csv => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(sniff(b"MDF     4.10    amdf"), FileKind::Mdf4);
        assert_eq!(sniff(b"MDF     3.30    "), FileKind::Mdf3);
        assert_eq!(sniff(b"LOGG\x90\0\0\0"), FileKind::Blf);
        assert_eq!(sniff(b"\x89MCAP0\r\n"), FileKind::Mcap);
        assert_eq!(sniff(b"GBIN\x03\x03\x03\0"), FileKind::Adma);
        assert_eq!(
            sniff(b"(387000.000249) can0 156#000200000000\n"),
            FileKind::Candump
        );
        assert_eq!(
            sniff(b"date Fri Nov 27 2026\nbase hex  timestamps absolute\n"),
            FileKind::Asc
        );
        assert_eq!(
            sniff(b"File created on 01/01/2020\n\n[header]\nsats\n[data]\n"),
            FileKind::Vbo
        );
        assert_eq!(sniff(b"Time,PosX,PosY\n1,2,3\n"), FileKind::Csv);
        assert_eq!(sniff(b"\x00\x01\x02\xff\xfe"), FileKind::Binary);
        assert_eq!(sniff(b""), FileKind::Empty);
    }
}
