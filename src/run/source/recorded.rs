//! Recorded sources: a CSV file read row by row as the driver asks, optionally fused by
//! timestamp with a CAN log of the same run, its times moved onto the recording's first
//! (see [`crate::ingest::can::timebase`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::{CanSpec, SourceError};
use crate::ingest::can::log::CanLog;
use crate::ingest::can::timebase::{self, Alignment, CanFusionReport, CanTimebase};
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
    /// Seconds added to every frame's time.
    offset_s: f64,
    /// The telemetry's first and last time (`None`: the recording gave no sample).
    ins_span: Option<[f64; 2]>,
    tally: CanTally,
}

/// The fusion's counts, shared with the reader thread's owner.
#[derive(Debug, Clone)]
pub(super) struct CanTally(Arc<Mutex<CanFusionReport>>);

impl CanTally {
    pub(super) fn snapshot(&self) -> CanFusionReport {
        self.0.lock().map(|g| g.clone()).unwrap_or_default()
    }

    fn add(&self, frame: bool, fused: bool) {
        if let Ok(mut g) = self.0.lock() {
            g.frames += u64::from(frame);
            g.fused += u64::from(fused);
        }
    }
}

/// The telemetry's time span and speed trace, read ahead of the run.
fn ins_trace(path: &Path, columns: &[ColumnSpec]) -> Result<Vec<(f64, f64)>, SourceError> {
    let rec = Recording::open(path, columns, BadRowPolicy::Skip)?;
    Ok(rec
        .filter_map(Result::ok)
        .map(|s| (s.time_s, s.speed_mps))
        .collect())
}

/// A log's first and last frame time, and a signal's (time, value) trace.
type LogTrace = ([f64; 2], Vec<(f64, f64)>);

/// The log's first and last frame time, and the trace of `signal` (MESSAGE, SIGNAL).
fn can_trace(
    log: &Path,
    dbc: &DbcDecoder,
    signal: Option<&(String, String)>,
) -> Result<LogTrace, SourceError> {
    let frames = CanLog::open(log).map_err(SourceError::Other)?;
    let (mut first, mut last) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut trace: Vec<(f64, f64)> = Vec::new();
    for f in frames.flatten() {
        let Some(t) = f.time_s else { continue };
        first = first.min(t);
        last = last.max(t);
        let Some((m, s)) = signal else { continue };
        let Ok(d) = dbc.decode(&f) else { continue };
        if d.name != m.as_str() {
            continue;
        }
        if let Some((_, v)) = d.signals.iter().find(|(n, _)| *n == s.as_str()) {
            if trace.last().is_none_or(|(tl, _)| t > *tl) {
                trace.push((t, *v));
            }
        }
    }
    if first > last {
        return Err(SourceError::Other(format!(
            "the CAN log {} has no frame with a time",
            log.display()
        )));
    }
    Ok(([first, last], trace))
}

/// Fixes the log's offset (given, matched, or 0) and refuses a log that never overlaps the
/// telemetry. Also returns the telemetry's span (`None`: no sample).
fn place_log(
    name: &str,
    recording: &Path,
    columns: &[ColumnSpec],
    log: &Path,
    dbc: &DbcDecoder,
    tb: &CanTimebase,
) -> Result<(CanFusionReport, Option<[f64; 2]>), SourceError> {
    let signal = tb.align_signal().map_err(SourceError::Other)?;
    let ins = ins_trace(recording, columns)?;
    let (Some(first), Some(last)) = (ins.first(), ins.last()) else {
        // No sample: the run itself says so.
        let report = CanFusionReport {
            log: name.to_string(),
            offset_s: tb.offset_s.unwrap_or(0.0),
            ..Default::default()
        };
        return Ok((report, None));
    };
    let ins_span = [first.0, last.0];
    let (log_span, trace) = can_trace(log, dbc, signal.as_ref())?;
    let (offset_s, align) = match &signal {
        None => (tb.offset_s.unwrap_or(0.0), None),
        Some((m, s)) => {
            if trace.len() < 20 {
                return Err(SourceError::Other(format!(
                    "the CAN log {name} has {} values of {m}.{s}: too few to match to the INS speed",
                    trace.len()
                )));
            }
            let (off, r) = timebase::align(&ins, &trace).ok_or_else(|| {
                SourceError::Other(format!(
                    "{m}.{s} of {name} could not be matched to the INS speed (no overlap of half the shorter trace, or a flat trace)"
                ))
            })?;
            if r < 0.5 {
                return Err(SourceError::Other(format!(
                    "{m}.{s} of {name} does not match the INS speed: best correlation {r:.3} (at an offset of {off:+.3} s); give --can-offset SECONDS"
                )));
            }
            (
                off,
                Some(Alignment {
                    signal: format!("{m}.{s}"),
                    confidence: r,
                }),
            )
        }
    };
    if let Some(e) = timebase::no_overlap(name, log_span, ins_span, offset_s) {
        return Err(SourceError::Other(e));
    }
    let report = CanFusionReport {
        log: name.to_string(),
        frames: 0,
        fused: 0,
        offset_s,
        log_span_s: log_span,
        ins_span_s: ins_span,
        align,
    };
    Ok((report, Some(ins_span)))
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
            Some((
                CanSpec::Candump {
                    path: log,
                    offset_s,
                    align,
                    ..
                },
                dbc,
            )) => {
                let frames = CanLog::open(log).map_err(SourceError::Other)?;
                let name = format!("{}:{}", frames.kind.name(), file_name(log));
                let tb = CanTimebase {
                    offset_s: *offset_s,
                    align: align.clone(),
                };
                let (placed, ins_span) = place_log(&name, path, columns, log, &dbc, &tb)?;
                Some(RecordedCan {
                    offset_s: placed.offset_s,
                    ins_span,
                    tally: CanTally(Arc::new(Mutex::new(placed))),
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

    pub(super) fn can_tally(&self) -> Option<CanTally> {
        self.can.as_ref().map(|c| c.tally.clone())
    }

    pub(super) fn can_report(&self) -> Option<CanFusionReport> {
        self.can.as_ref().map(|c| c.tally.snapshot())
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
                Some(Ok(mut f)) => {
                    f.time_s = f.time_s.map(|t| t + self.offset_s);
                    self.next = Some(f);
                }
                Some(Err(e)) => self.health.malformed(e),
            }
        }
        self.fed_until = t;
    }

    fn apply(&mut self, f: &CanFrame) {
        self.health.message();
        let mut fused = false;
        match self.dbc.decode(f) {
            Ok(m) => {
                let t = f.time_s.unwrap_or(0.0);
                let u = self.mapping.apply(t, &m);
                if !u.is_empty() {
                    self.health.sample(t);
                    self.fusion.push_can(&u);
                    fused = self.ins_span.is_none_or(|[a, b]| t >= a && t <= b);
                }
            }
            Err(_) => self.health.unknown_id(),
        }
        self.tally.add(true, fused);
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}
