//! Recorded sources: a CSV file read row by row as the driver asks, optionally fused by
//! timestamp with a candump log of the same run (same time base).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{CanSpec, SourceError};
use crate::ingest::can::log::CanLog;
use crate::ingest::can::{CanFrame, CanMapping, DbcDecoder};
use crate::ingest::csv::{BadRowPolicy, ColumnSpec, CsvError};
use crate::ingest::fusion::{Fusion, FusionMode};
use crate::ingest::health::SourceHealth;
use crate::ingest::recording::Recording;
use crate::sample::InsSample;

/// How far past an INS sample's time CAN is read before the sample is released (covers the
/// interpolation mode's look-ahead; the hold mode needs none).
const CAN_LOOKAHEAD_S: f64 = 0.2;

pub(super) struct Recorded {
    csv: Recording,
    path: PathBuf,
    size: u64,
    can: Option<RecordedCan>,
    /// Fused samples ready to go (end-of-file flush).
    ready: std::collections::VecDeque<InsSample>,
    ins_done: bool,
}

/// A CAN log (candump, ASC, BLF, MDF4 bus logging), decoded and mapped lazily as the INS time
/// advances.
struct RecordedCan {
    name: String,
    frames: CanLog,
    dbc: Arc<DbcDecoder>,
    mapping: CanMapping,
    fusion: Fusion,
    /// The next frame read but not yet due.
    next: Option<CanFrame>,
    /// Time up to which CAN has been fed into the fusion.
    fed_until: f64,
    done: bool,
    health: SourceHealth,
}

impl Recorded {
    pub(super) fn open(
        path: &Path,
        columns: &[ColumnSpec],
        on_bad_row: BadRowPolicy,
        can: Option<(&CanSpec, Arc<DbcDecoder>)>,
        fusion: FusionMode,
        mapping: CanMapping,
    ) -> Result<Recorded, SourceError> {
        let csv = Recording::open(path, columns, on_bad_row)?;
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let can = match can {
            None => None,
            Some((CanSpec::Candump { path: log, .. }, dbc)) => {
                let frames = CanLog::open(log).map_err(SourceError::Other)?;
                let name = format!("{}:{}", frames.kind.name(), file_name(log));
                Some(RecordedCan {
                    health: SourceHealth::new(name.clone()),
                    name,
                    frames,
                    dbc,
                    mapping,
                    fusion: Fusion::new(fusion),
                    next: None,
                    fed_until: f64::NEG_INFINITY,
                    done: false,
                })
            }
            Some((other, _)) => {
                return Err(SourceError::Other(format!(
                    "a recorded CSV cannot fuse with a live CAN source ({other:?})"
                )))
            }
        };
        Ok(Recorded {
            csv,
            path: path.to_path_buf(),
            size,
            can,
            ready: Default::default(),
            ins_done: false,
        })
    }

    pub(super) fn name(&self) -> String {
        let mut n = format!("{}:{}", self.csv.kind(), file_name(&self.path));
        if let Some(c) = &self.can {
            n.push_str(" + ");
            n.push_str(&c.name);
        }
        n
    }

    pub(super) fn health(&self) -> Vec<SourceHealth> {
        self.can.iter().map(|c| c.health.clone()).collect()
    }

    pub(super) fn skipped(&self) -> (u64, Vec<String>) {
        let (n, errors) = self.csv.skipped();
        (n, errors.iter().map(|e| e.to_string()).collect())
    }

    pub(super) fn progress(&self) -> (u64, u64) {
        (self.csv.byte_offset(), self.size)
    }

    pub(super) fn next_sample(&mut self) -> Option<Result<InsSample, SourceError>> {
        let Some(can) = self.can.as_mut() else {
            return self.next_ins().map(|r| r.map_err(SourceError::from));
        };
        loop {
            if let Some(s) = self.ready.pop_front() {
                return Some(Ok(s));
            }
            if let Some(s) = can.fusion.poll() {
                return Some(Ok(s));
            }
            if self.ins_done {
                return None;
            }
            match next_ins(&mut self.csv, &self.path, &mut self.ins_done) {
                Some(Ok(s)) => {
                    can.feed_until(s.time_s + CAN_LOOKAHEAD_S);
                    can.fusion.push_ins(s);
                }
                Some(Err(e)) => return Some(Err(e.into())),
                None => {
                    self.ins_done = true;
                    can.feed_until(f64::INFINITY);
                    self.ready.extend(can.fusion.flush());
                }
            }
        }
    }
}

impl Recorded {
    fn next_ins(&mut self) -> Option<Result<InsSample, CsvError>> {
        if self.ins_done {
            return None;
        }
        let r = next_ins(&mut self.csv, &self.path, &mut self.ins_done);
        if r.is_none() {
            self.ins_done = true;
        }
        r
    }
}

/// The recording's next sample; at its end, a recording that gave no sample (and skipped
/// none) is an error: a replay of nothing is not a run.
fn next_ins(
    rec: &mut Recording,
    path: &Path,
    done: &mut bool,
) -> Option<Result<InsSample, CsvError>> {
    let r = rec.next_sample();
    if r.is_none() && !*done && rec.rows() == 0 && rec.skipped().0 == 0 {
        *done = true;
        return Some(Err(CsvError {
            file: path.to_path_buf(),
            line: 0,
            reason: "no sample in the recording".into(),
        }));
    }
    r
}

impl RecordedCan {
    /// Decodes frames into the fusion until a frame later than `t` is seen.
    fn feed_until(&mut self, t: f64) {
        if t <= self.fed_until {
            return;
        }
        loop {
            if let Some(f) = self.next.take() {
                let ft = f.time_s.unwrap_or(f64::NEG_INFINITY);
                if ft > t {
                    self.next = Some(f);
                    break;
                }
                self.apply(&f);
                continue;
            }
            if self.done {
                break;
            }
            match self.frames.next() {
                None => self.done = true,
                Some(Ok(f)) => self.next = Some(f),
                Some(Err(e)) => self.health.malformed(e),
            }
        }
        self.fed_until = t;
    }

    fn apply(&mut self, f: &CanFrame) {
        self.health.message();
        match self.dbc.decode(f) {
            Ok(m) => {
                let t = f.time_s.unwrap_or(0.0);
                let u = self.mapping.apply(t, &m);
                if !u.is_empty() {
                    self.health.sample(t);
                    self.fusion.push_can(&u);
                }
            }
            Err(_) => self.health.unknown_id(),
        }
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}
