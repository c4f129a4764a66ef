//! A recording of any kind scil replays from a file — CSV, ASAM MDF4 physical channels,
//! Racelogic VBOX, GeneSys ADMAnet packets — told by its content. A CAN log or a file of another kind is refused with
//! what it is. (scil's own MCAP recordings are in the map frame and opened apart, see
//! [`crate::record::McapSource`].)

use std::path::{Path, PathBuf};

use super::adma::file::AdmaFile;
use super::csv::{BadRowPolicy, ColumnSpec, CsvError, CsvSource};
use super::detect::{self, FileKind};
use super::mdf4::Mdf4Source;
use super::vbo::VboSource;
use crate::sample::InsSample;

/// An opened recording.
pub enum Recording {
    Csv(Box<CsvSource>),
    Mdf4(Box<Mdf4Source>),
    Vbo(Box<VboSource>),
    Adma(Box<AdmaFile>),
}

/// The hint for a file that is a CAN log, not a recording.
fn hint(kind: FileKind) -> &'static str {
    match kind {
        k if k.is_can_log() => "give it as a CAN log (--can-log with --dbc), not as the recording",
        _ => "scil replays CSV, MDF4, VBOX, ADMAnet and MCAP recordings",
    }
}

impl Recording {
    /// Opens `path`, naming it `display` in errors.
    pub fn open_as(
        path: &Path,
        display: &Path,
        columns: &[ColumnSpec],
        policy: BadRowPolicy,
    ) -> Result<Recording, CsvError> {
        let err = |reason: String| CsvError {
            file: display.to_path_buf(),
            line: 0,
            reason,
        };
        let kind = detect::sniff_path(path).map_err(|e| err(format!("cannot open: {e}")))?;
        match kind {
            FileKind::Csv => CsvSource::open_as(path, display, columns, policy)
                .map(|s| Recording::Csv(Box::new(s))),
            FileKind::Mdf4 => {
                Mdf4Source::open_as(path, display, columns).map(|s| Recording::Mdf4(Box::new(s)))
            }
            FileKind::Vbo => VboSource::open_as(path, display, columns, policy)
                .map(|s| Recording::Vbo(Box::new(s))),
            FileKind::Adma => {
                AdmaFile::open_as(path, display, policy).map(|s| Recording::Adma(Box::new(s)))
            }
            FileKind::Empty => Err(err("empty file: no sample to replay".into())),
            other => Err(CsvError {
                file: PathBuf::new(),
                line: 0,
                reason: detect::wrong_kind(display, other, hint(other)),
            }),
        }
    }

    pub fn open(
        path: &Path,
        columns: &[ColumnSpec],
        policy: BadRowPolicy,
    ) -> Result<Recording, CsvError> {
        Self::open_as(path, path, columns, policy)
    }

    /// `csv`, `mf4`, `vbo`: the kind, for source names.
    pub fn kind(&self) -> &'static str {
        match self {
            Recording::Csv(_) => "csv",
            Recording::Mdf4(_) => "mf4",
            Recording::Vbo(_) => "vbo",
            Recording::Adma(_) => "adma",
        }
    }

    /// Sets the plausibility limits (`None`: none).
    pub fn with_plausibility(
        self,
        limits: Option<super::plausibility::PlausibilityLimits>,
    ) -> Self {
        match self {
            Recording::Csv(s) => Recording::Csv(Box::new(s.with_plausibility(limits))),
            Recording::Mdf4(s) => Recording::Mdf4(Box::new(s.with_plausibility(limits))),
            Recording::Vbo(s) => Recording::Vbo(Box::new(s.with_plausibility(limits))),
            Recording::Adma(s) => Recording::Adma(Box::new(s.with_plausibility(limits))),
        }
    }

    /// Next sample; `None` at the end.
    pub fn next_sample(&mut self) -> Option<Result<InsSample, CsvError>> {
        match self {
            Recording::Csv(s) => s.next_sample(),
            Recording::Mdf4(s) => s.next_sample(),
            Recording::Vbo(s) => s.next_sample(),
            Recording::Adma(s) => s.next_sample(),
        }
    }

    /// Samples read so far.
    pub fn rows(&self) -> u64 {
        match self {
            Recording::Csv(s) => s.rows,
            Recording::Mdf4(s) => s.rows,
            Recording::Vbo(s) => s.rows,
            Recording::Adma(s) => s.rows,
        }
    }

    /// Rows skipped under [`BadRowPolicy::Skip`], and the first errors.
    pub fn skipped(&self) -> (u64, &[CsvError]) {
        match self {
            Recording::Csv(s) => (s.skipped, &s.skipped_errors),
            Recording::Mdf4(_) => (0, &[]),
            Recording::Vbo(s) => (s.skipped, &s.skipped_errors),
            Recording::Adma(s) => (s.skipped, &s.skipped_errors),
        }
    }

    /// Bytes read so far, for progress (CSV only; 0 for the others).
    pub fn byte_offset(&self) -> u64 {
        match self {
            Recording::Csv(s) => s.byte_offset(),
            _ => 0,
        }
    }

    /// Which field is read from which column or channel.
    pub fn describe(&self) -> String {
        match self {
            Recording::Csv(s) => {
                let h: Vec<&str> = s.header().iter().map(|h| h.as_str()).collect();
                s.mapping().describe(&h)
            }
            Recording::Mdf4(s) => s.describe(),
            Recording::Vbo(s) => s.describe(),
            Recording::Adma(s) => s.describe(),
        }
    }
}

impl Iterator for Recording {
    type Item = Result<InsSample, CsvError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_sample()
    }
}
