//! ASAM MDF 4.00–4.20: physical channels as a recording ([`Mdf4Source`]) and CAN bus logging
//! (`CAN_DataFrame`, [`Mdf4CanFrames`]). Only the metadata tree is read up front; records are
//! streamed block by block ([`records`]).
//!
//! scil reads MDF4 itself. Of the crates on crates.io, mdf4-rs 0.6 needs a newer Rust than the
//! project builds with and reads data blocks out of a memory map; mf4-rs decodes a channel's
//! values whole (`values` → `Vec<f64>`) from a memory-mapped file. A replay reads the records
//! of one group in order, in step with the run, from a file of any size (and a fuzz target from
//! bytes): a reader over `Read + Seek` that yields one record at a time does that.

pub mod blocks;
pub mod records;

use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::{Path, PathBuf};

use blocks::{Channel, Group, Tree};
use records::Records;

use super::can::CanFrame;
use super::csv::{build_sample, ColumnMapping, ColumnSpec, CsvError, Field, RowFault, Slot, Unit};
use crate::sample::{InsSample, VUT};

/// What an MDF4 file holds: bus logging (CAN frames) or physical channels.
pub fn is_bus_logging(tree: &Tree) -> bool {
    tree.data_groups
        .iter()
        .flat_map(|d| &d.groups)
        .any(|g| frame_channel(g).is_some())
}

/// The `CAN_DataFrame` structure channel of a bus-logging group.
fn frame_channel(g: &Group) -> Option<&Channel> {
    g.channels
        .iter()
        .find(|c| c.name == "CAN_DataFrame" && !c.children.is_empty())
}

/// Opens `path` and reads its tree; errors name the file.
pub fn open_tree(path: &Path, display: &Path) -> Result<(BufReader<File>, Tree), String> {
    let f = File::open(path).map_err(|e| format!("{}: cannot open: {e}", display.display()))?;
    let mut r = BufReader::with_capacity(1 << 16, f);
    let tree = blocks::read_tree(&mut r).map_err(|e| format!("{}: {e}", display.display()))?;
    Ok((r, tree))
}

/// Streams [`InsSample`]s from the physical channels of an MDF4 file: the channel group whose
/// channel names map to the fields (as CSV headers do, `--column` for the rest); its master
/// channel is the time.
pub struct Mdf4Source<R: Read + Seek = BufReader<File>> {
    file: PathBuf,
    records: Records<R>,
    record_id: u64,
    filter: bool,
    /// (field, channel, unit) read for each record.
    plan: Vec<(Field, Channel, Unit)>,
    /// Channel names by the mapping's column index (0 = master).
    names: Vec<String>,
    mapping: ColumnMapping,
    vehicle: crate::sample::VehicleId,
    last_time: Option<f64>,
    plausibility: Option<super::plausibility::Plausibility>,
    index: u64,
    pub rows: u64,
    done: bool,
}

impl Mdf4Source<BufReader<File>> {
    /// Opens `path`, naming it `display` in errors.
    pub fn open_as(path: &Path, display: &Path, explicit: &[ColumnSpec]) -> Result<Self, CsvError> {
        let err = |reason: String| CsvError {
            file: display.to_path_buf(),
            line: 0,
            reason,
        };
        let (r, tree) = open_tree(path, display).map_err(|e| CsvError {
            file: display.to_path_buf(),
            line: 0,
            reason: e
                .strip_prefix(&format!("{}: ", display.display()))
                .unwrap_or(&e)
                .to_string(),
        })?;
        Self::from_tree(display, r, &tree, explicit).map_err(err)
    }
}

impl<R: Read + Seek> Mdf4Source<R> {
    /// The source over an opened file whose tree is read.
    pub fn from_tree(
        name: &Path,
        r: R,
        tree: &Tree,
        explicit: &[ColumnSpec],
    ) -> Result<Self, String> {
        if is_bus_logging(tree) {
            return Err(
                "an MDF4 bus logging file (CAN frames): give it as a CAN log with a DBC".into(),
            );
        }
        let mut best: Option<String> = None;
        for dg in &tree.data_groups {
            for g in &dg.groups {
                if g.is_vlsd() || g.cycles == 0 {
                    continue;
                }
                let Some(master) = g.master() else { continue };
                let chans: Vec<&Channel> = std::iter::once(master)
                    .chain(g.channels.iter().filter(|c| !c.is_master()))
                    .collect();
                let header: Vec<String> = chans
                    .iter()
                    .map(|c| {
                        if c.unit.is_empty() {
                            c.name.clone()
                        } else {
                            format!("{} [{}]", c.name, c.unit)
                        }
                    })
                    .collect();
                let refs: Vec<&str> = header.iter().map(|s| s.as_str()).collect();
                let mut specs: Vec<ColumnSpec> = Vec::new();
                if !explicit.iter().any(|s| s.field == Field::Time) {
                    specs.push(ColumnSpec {
                        field: Field::Time,
                        column: header[0].clone(),
                        unit: Some(Unit::Seconds),
                    });
                }
                specs.extend(explicit.iter().cloned());
                let mapping = match ColumnMapping::from_header(&refs, &specs) {
                    Ok(m) => m,
                    Err(e) => {
                        let e = e.replace("header:", "channels:").replace(
                            "--column FIELD=NAME[:UNIT]",
                            "--column FIELD=CHANNEL[:UNIT]",
                        );
                        if best.is_none() {
                            best = Some(format!("channel group '{}': {e}", g.name));
                        }
                        continue;
                    }
                };
                let plan = mapping
                    .read_plan()
                    .into_iter()
                    .filter_map(|(f, i, u)| chans.get(i).map(|c| (f, (*c).clone(), u)))
                    .collect();
                let records = Records::open(r, dg)?;
                return Ok(Mdf4Source {
                    file: name.to_path_buf(),
                    records,
                    record_id: g.record_id,
                    filter: dg.record_id_bytes > 0,
                    plan,
                    names: chans.iter().map(|c| c.name.clone()).collect(),
                    mapping,
                    vehicle: VUT.into(),
                    last_time: None,
                    plausibility: Some(super::plausibility::Plausibility::new(Default::default())),
                    index: 0,
                    rows: 0,
                    done: false,
                });
            }
        }
        Err(best.unwrap_or_else(|| {
            "no channel group with a master (time) channel and samples: no sample to replay".into()
        }))
    }

    /// Sets the plausibility limits (`None`: no plausibility check).
    pub fn with_plausibility(
        mut self,
        limits: Option<super::plausibility::PlausibilityLimits>,
    ) -> Self {
        self.plausibility = limits.map(super::plausibility::Plausibility::new);
        self
    }

    /// Which field is read from which channel, for messages.
    pub fn describe(&self) -> String {
        let names: Vec<&str> = self.names.iter().map(|s| s.as_str()).collect();
        self.mapping.describe(&names)
    }

    /// Records read so far (for progress).
    pub fn records_read(&self) -> u64 {
        self.records.count
    }

    fn err(&self, reason: String) -> CsvError {
        CsvError {
            file: self.file.clone(),
            line: 0,
            reason,
        }
    }

    /// Next sample; `None` at the end. A bad record ends the source with its error (record
    /// number, channel, reason).
    pub fn next_sample(&mut self) -> Option<Result<InsSample, CsvError>> {
        if self.done {
            return None;
        }
        loop {
            let (id, rec) = match self.records.next_record() {
                None => {
                    self.done = true;
                    return None;
                }
                Some(Err(e)) => {
                    self.done = true;
                    return Some(Err(self.err(e)));
                }
                Some(Ok(r)) => r,
            };
            if self.filter && id != self.record_id {
                continue;
            }
            let n = self.index;
            self.index += 1;
            let mut slots = [Slot::Empty; Field::ALL.len()];
            let mut bad: Option<String> = None;
            for (i, (f, ch, unit)) in self.plan.iter().enumerate() {
                // A virtual master's value is the record index through its conversion.
                let v = if ch.cn_type == 3 {
                    ch.conversion.apply(n as f64)
                } else {
                    ch.value(rec)
                };
                let Some(v) = v else {
                    bad = Some(format!(
                        "channel '{}' cannot be read as a number (type {:?}, {} bits, conversion {:?})",
                        ch.name, ch.data_type, ch.bit_count, ch.conversion
                    ));
                    break;
                };
                slots[*f as usize] = if v.is_finite() {
                    Slot::Value(unit.to_si(v))
                } else {
                    Slot::NotFinite(i)
                };
            }
            let result = match bad {
                Some(b) => Err(b),
                None => build_sample(&slots, &self.mapping, self.last_time, &self.vehicle)
                    .map_err(|f| self.describe_fault(f)),
            };
            let result =
                result.and_then(|s| match self.plausibility.as_mut().map(|p| p.admit(&s)) {
                    Some(Err(reason)) => Err(reason),
                    _ => Ok(s),
                });
            return Some(match result {
                Ok(s) => {
                    self.rows += 1;
                    self.last_time = Some(s.time_s);
                    Ok(s)
                }
                Err(reason) => {
                    self.done = true;
                    Err(self.err(format!("record {}: {reason}", n + 1)))
                }
            });
        }
    }

    fn describe_fault(&self, fault: RowFault) -> String {
        let name = |i: usize| {
            self.plan
                .get(i)
                .map(|p| p.1.name.clone())
                .unwrap_or_default()
        };
        match fault {
            RowFault::NotFinite(i) => format!("channel '{}' is not finite", name(i)),
            RowFault::NotANumber(i) => format!("channel '{}' is not a number", name(i)),
            RowFault::Empty(f) => format!("no value for {}", f.name()),
            RowFault::FieldCount => "bad record".into(),
            RowFault::Other(s) => s,
        }
    }
}

impl<R: Read + Seek> Iterator for Mdf4Source<R> {
    type Item = Result<InsSample, CsvError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_sample()
    }
}

/// The CAN frames of an MDF4 bus-logging file (`CAN_DataFrame` groups), in time order across
/// groups. Times are absolute: the header's start time plus the master channel.
pub struct Mdf4CanFrames<R: Read + Seek = BufReader<File>> {
    streams: Vec<FrameStream<R>>,
    /// The next frame of each stream (merge by time).
    heads: Vec<Option<CanFrame>>,
    started: bool,
    /// An error met while reading ahead, given after the frame in hand.
    pending: Option<String>,
}

struct FrameStream<R> {
    records: Records<R>,
    record_id: u64,
    filter: bool,
    master: Channel,
    start_s: f64,
    id: Channel,
    ide: Option<Channel>,
    dlc: Option<Channel>,
    len: Option<Channel>,
    data: Channel,
    bus: Option<Channel>,
    edl: Option<Channel>,
    brs: Option<Channel>,
    index: u64,
}

impl Mdf4CanFrames<BufReader<File>> {
    /// Opens the bus logging of `path` (a second reader per `CAN_DataFrame` group).
    pub fn open(path: &Path) -> Result<Self, String> {
        let (r, tree) = open_tree(path, path)?;
        drop(r);
        Self::from_tree(&tree, || {
            File::open(path)
                .map(|f| BufReader::with_capacity(1 << 16, f))
                .map_err(|e| e.to_string())
        })
        .map_err(|e| format!("{}: {e}", path.display()))
    }
}

impl<R: Read + Seek> Mdf4CanFrames<R> {
    /// The frames of `tree`, each group read through its own reader from `open`.
    pub fn from_tree(
        tree: &Tree,
        mut open: impl FnMut() -> Result<R, String>,
    ) -> Result<Self, String> {
        if !is_bus_logging(tree) {
            return Err("an MDF4 file of physical channels, not CAN bus logging: give it as a recording (scil replay)".into());
        }
        let start_s = tree.start_ns as f64 / 1e9;
        let mut streams = Vec::new();
        for dg in &tree.data_groups {
            for g in &dg.groups {
                let Some(frame) = frame_channel(g) else {
                    continue;
                };
                if g.cycles == 0 {
                    continue;
                }
                let member = |n: &str| {
                    frame
                        .children
                        .iter()
                        .find(|c| c.name.rsplit('.').next() == Some(n))
                        .cloned()
                };
                let master = g
                    .master()
                    .cloned()
                    .ok_or_else(|| format!("CAN group '{}' has no time channel", g.name))?;
                let (Some(id), Some(data)) = (member("ID"), member("DataBytes")) else {
                    return Err(format!(
                        "CAN group '{}': CAN_DataFrame without ID or DataBytes",
                        g.name
                    ));
                };
                if data.cn_type == 1 {
                    return Err("CAN_DataFrame.DataBytes stored as variable-length signal data: scil reads fixed-length DataBytes".into());
                }
                streams.push(FrameStream {
                    records: Records::open(open()?, dg)?,
                    record_id: g.record_id,
                    filter: dg.record_id_bytes > 0,
                    master,
                    start_s,
                    id,
                    ide: member("IDE"),
                    dlc: member("DLC"),
                    len: member("DataLength"),
                    data,
                    bus: member("BusChannel"),
                    edl: member("EDL"),
                    brs: member("BRS"),
                    index: 0,
                });
            }
        }
        let heads = streams.iter().map(|_| None).collect();
        Ok(Mdf4CanFrames {
            streams,
            heads,
            started: false,
            pending: None,
        })
    }
}

/// Bytes of a CAN FD DLC.
fn fd_len(dlc: u8) -> usize {
    match dlc {
        0..=8 => dlc as usize,
        9 => 12,
        10 => 16,
        11 => 20,
        12 => 24,
        13 => 32,
        14 => 48,
        _ => 64,
    }
}

impl<R: Read + Seek> FrameStream<R> {
    fn next_frame(&mut self) -> Option<Result<CanFrame, String>> {
        loop {
            let (rid, rec) = match self.records.next_record()? {
                Ok(x) => x,
                Err(e) => return Some(Err(e)),
            };
            if self.filter && rid != self.record_id {
                continue;
            }
            let n = self.index;
            self.index += 1;
            let get = |c: &Option<Channel>| c.as_ref().and_then(|c| c.raw(rec));
            let t = if self.master.cn_type == 3 {
                self.master.conversion.apply(n as f64)
            } else {
                self.master.value(rec)
            };
            let (Some(t), Some(raw_id)) = (t, self.id.raw(rec)) else {
                return Some(Err(format!(
                    "frame record {}: time or ID unreadable",
                    n + 1
                )));
            };
            let raw_id = raw_id as u64;
            let extended = get(&self.ide).is_some_and(|v| v != 0.0) || raw_id & 0x8000_0000 != 0;
            let id = (raw_id & 0x1FFF_FFFF) as u32;
            let fd = get(&self.edl).is_some_and(|v| v != 0.0);
            let bytes = self.data.bytes(rec).unwrap_or_default();
            let len = match (get(&self.len), get(&self.dlc)) {
                (Some(l), _) => l as usize,
                (None, Some(d)) if fd => fd_len(d as u8),
                (None, Some(d)) => (d as usize).min(8),
                (None, None) => bytes.len(),
            };
            if len > bytes.len() || len > 64 || (!fd && len > 8) || (!extended && id > 0x7FF) {
                return Some(Err(format!(
                    "frame record {}: id {id:#x} with {len} data bytes is not a CAN frame",
                    n + 1
                )));
            }
            let mut f = CanFrame::new(id, extended, &bytes[..len]);
            f.fd = fd;
            f.fd_flags = u8::from(get(&self.brs).is_some_and(|v| v != 0.0));
            f.time_s = Some(self.start_s + t);
            f.iface = get(&self.bus).map(|b| format!("can{}", b as u32));
            return Some(Ok(f));
        }
    }
}

impl<R: Read + Seek> Iterator for Mdf4CanFrames<R> {
    type Item = Result<CanFrame, String>;
    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = self.pending.take() {
            return Some(Err(e));
        }
        if !self.started {
            self.started = true;
            for i in 0..self.streams.len() {
                match self.streams[i].next_frame() {
                    Some(Err(e)) => return Some(Err(e)),
                    h => self.heads[i] = h.and_then(Result::ok),
                }
            }
        }
        let i = self
            .heads
            .iter()
            .enumerate()
            .filter_map(|(i, h)| h.as_ref().map(|f| (i, f.time_s.unwrap_or(0.0))))
            .min_by(|a, b| a.1.total_cmp(&b.1))?
            .0;
        let f = self.heads[i].take();
        match self.streams[i].next_frame() {
            Some(Err(e)) => self.pending = Some(e),
            h => self.heads[i] = h.and_then(Result::ok),
        }
        f.map(Ok)
    }
}
