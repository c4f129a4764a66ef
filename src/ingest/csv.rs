//! Streaming CSV replay source.
//!
//! Reads recorded INS exports row by row (never the whole file), maps columns to fields either
//! by auto-detection or explicitly, and reports every bad row with file, line and reason.
//!
//! Auto-detection knows the seed paper's Table 1 names (`Time, PosX, PosY, Heading, Velocity,
//! Steering_Angle, Brake_Light`) and OxTS NcomToCsv-style headers (` Time(), Latitude(deg),
//! Longitude(deg), Altitude(m), Heading(deg), Speed horizontal(m/s)`): names are trimmed, a UTF-8
//! BOM is dropped, matching ignores case, spaces and underscores, and a unit in brackets is
//! honoured. A speed column without a unit is km/h (the paper's `Velocity`); heading without a
//! unit is degrees.

use std::fmt;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use super::csv_cells::{cell_f64_at, Cell};
use super::csv_rows::{RowReader, Tee, CHUNK};
use crate::sample::{InsPosition, InsSample, VUT};

/// Fields a CSV column can feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    Time,
    X,
    Y,
    Lat,
    Lon,
    Alt,
    Heading,
    Speed,
    Steering,
    Brake,
    /// Forward collision warning (0/1): its onset closes the validity window.
    Fcw,
}

impl Field {
    pub const ALL: [Field; 11] = [
        Field::Time,
        Field::X,
        Field::Y,
        Field::Lat,
        Field::Lon,
        Field::Alt,
        Field::Heading,
        Field::Speed,
        Field::Steering,
        Field::Brake,
        Field::Fcw,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Field::Time => "time",
            Field::X => "x",
            Field::Y => "y",
            Field::Lat => "lat",
            Field::Lon => "lon",
            Field::Alt => "alt",
            Field::Heading => "heading",
            Field::Speed => "speed",
            Field::Steering => "steering",
            Field::Brake => "brake",
            Field::Fcw => "fcw",
        }
    }

    pub fn parse(s: &str) -> Option<Field> {
        Field::ALL
            .into_iter()
            .find(|f| f.name() == s.trim().to_ascii_lowercase())
    }
}

/// Units a column can carry; values are converted to SI (s, m, m/s, deg for angles).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Seconds,
    Milliseconds,
    Metres,
    Degrees,
    Radians,
    MetresPerSecond,
    KilometresPerHour,
    MilesPerHour,
    /// Dimensionless (flags, counts).
    One,
}

impl Unit {
    /// Parses a unit as written in a header bracket or on the command line.
    pub fn parse(s: &str) -> Option<Unit> {
        let u = s.trim().to_ascii_lowercase();
        Some(match u.as_str() {
            "s" | "sec" => Unit::Seconds,
            "ms" => Unit::Milliseconds,
            "m" => Unit::Metres,
            "deg" | "°" | "degrees" => Unit::Degrees,
            "rad" | "radians" => Unit::Radians,
            "m/s" | "mps" | "ms-1" => Unit::MetresPerSecond,
            "km/h" | "kmh" | "kph" | "km/hr" => Unit::KilometresPerHour,
            "mph" | "mi/h" => Unit::MilesPerHour,
            "" | "-" | "1" | "bool" => Unit::One,
            _ => return None,
        })
    }

    pub(crate) fn to_si(self, v: f64) -> f64 {
        match self {
            Unit::Milliseconds => v / 1000.0,
            Unit::Radians => v.to_degrees(),
            Unit::KilometresPerHour => v / 3.6,
            Unit::MilesPerHour => v * 0.44704,
            _ => v,
        }
    }
}

/// Which column feeds which field, with its unit.
#[derive(Debug, Clone, Default)]
pub struct ColumnMapping {
    /// (field, column index, unit)
    columns: Vec<(Field, usize, Unit)>,
    /// The same, indexed by field: every row looks its fields up here.
    by_field: [Option<(usize, Unit)>; Field::ALL.len()],
}

/// An explicit mapping entry given by the user: field ← header name, optional unit.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnSpec {
    pub field: Field,
    pub column: String,
    pub unit: Option<Unit>,
}

impl std::str::FromStr for ColumnSpec {
    type Err = String;
    /// `FIELD=COLUMN[:UNIT]`, e.g. `speed=Speed horizontal(m/s)` or `speed=v:km/h`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (field, rest) = s
            .split_once('=')
            .ok_or_else(|| format!("column mapping '{s}' must look like FIELD=COLUMN[:UNIT]"))?;
        let field = Field::parse(field).ok_or_else(|| {
            let names: Vec<_> = Field::ALL.iter().map(|f| f.name()).collect();
            format!("unknown field '{field}' (known: {})", names.join(", "))
        })?;
        let (column, unit) = match rest.rsplit_once(':') {
            Some((c, u)) if Unit::parse(u).is_some() => (c.to_string(), Unit::parse(u)),
            _ => (rest.to_string(), None),
        };
        Ok(ColumnSpec {
            field,
            column,
            unit,
        })
    }
}

/// Split a header cell into a normalised name and an optional unit: ` Speed horizontal(m/s)`
/// → (`speedhorizontal`, Some("m/s")).
fn split_header(cell: &str) -> (String, Option<String>) {
    let cell = cell.trim_start_matches('\u{feff}').trim();
    let (name, unit) = match (cell.find(['(', '[']), cell.rfind([')', ']'])) {
        (Some(open), Some(close)) if close > open => (
            &cell[..open],
            Some(cell[open + 1..close].trim().to_string()),
        ),
        _ => (cell, None),
    };
    let norm: String = name
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '_' && *c != '-' && *c != '.')
        .flat_map(|c| c.to_lowercase())
        .collect();
    (norm, unit.filter(|u| !u.is_empty()))
}

/// The names [`auto_field`] takes for each required field, as a missing-column error lists them.
const ACCEPTED_TIME: &str = "Time, T, Timestamp, GPSTime, TimeGPS or TimeS";
const ACCEPTED_X: &str = "PosX, X, PositionX, XPos or MapX";
const ACCEPTED_Y: &str = "PosY, Y, PositionY, YPos or MapY";
const ACCEPTED_LAT: &str = "Latitude or Lat";
const ACCEPTED_LON: &str = "Longitude, Lon, Long or Lng";
const ACCEPTED_HEADING: &str = "Heading, Hdg, HeadingAngle or Course";
const ACCEPTED_SPEED: &str = "Velocity, Speed, Speed horizontal, HorizontalSpeed, V or Vel";

fn auto_field(name: &str) -> Option<Field> {
    Some(match name {
        "time" | "t" | "timestamp" | "gpstime" | "timegps" | "times" => Field::Time,
        "posx" | "x" | "positionx" | "xpos" | "mapx" => Field::X,
        "posy" | "y" | "positiony" | "ypos" | "mapy" => Field::Y,
        "latitude" | "lat" => Field::Lat,
        "longitude" | "lon" | "long" | "lng" => Field::Lon,
        "altitude" | "alt" | "height" => Field::Alt,
        "heading" | "hdg" | "headingangle" | "course" => Field::Heading,
        "velocity" | "speed" | "speedhorizontal" | "horizontalspeed" | "v" | "vel" => Field::Speed,
        "steeringangle" | "steering" | "steeringwheelangle" | "swa" | "steerangle" => {
            Field::Steering
        }
        "brakelight" | "brake" | "brakelamp" | "brakeswitch" => Field::Brake,
        "fcw" | "fcwactive" | "forwardcollisionwarning" | "fcwwarning" => Field::Fcw,
        _ => return None,
    })
}

fn default_unit(field: Field) -> Unit {
    match field {
        Field::Time => Unit::Seconds,
        Field::X | Field::Y | Field::Alt => Unit::Metres,
        Field::Lat | Field::Lon | Field::Heading | Field::Steering => Unit::Degrees,
        // The seed paper's `Velocity` column is km/h; exports that use m/s say so in brackets.
        Field::Speed => Unit::KilometresPerHour,
        Field::Brake | Field::Fcw => Unit::One,
    }
}

impl ColumnMapping {
    /// Builds the mapping from a header row: explicit specs first, auto-detection for the rest.
    pub fn from_header(header: &[&str], explicit: &[ColumnSpec]) -> Result<Self, String> {
        let parsed: Vec<(String, Option<String>)> =
            header.iter().map(|h| split_header(h)).collect();
        let mut columns: Vec<(Field, usize, Unit)> = Vec::new();
        for spec in explicit {
            let want = split_header(&spec.column).0;
            let idx = header
                .iter()
                .position(|h| h.trim() == spec.column.trim())
                .or_else(|| parsed.iter().position(|(n, _)| *n == want))
                .ok_or_else(|| {
                    format!(
                        "column '{}' for field {} not in header [{}]",
                        spec.column,
                        spec.field.name(),
                        header.join(",")
                    )
                })?;
            let unit = match spec.unit {
                Some(u) => u,
                None => unit_of(&parsed[idx].1, spec.field)?,
            };
            columns.retain(|(f, _, _)| *f != spec.field);
            columns.push((spec.field, idx, unit));
        }
        for (idx, (name, unit)) in parsed.iter().enumerate() {
            let Some(field) = auto_field(name) else {
                continue;
            };
            if columns.iter().any(|(f, _, _)| *f == field)
                || columns.iter().any(|(_, i, _)| *i == idx)
            {
                continue;
            }
            columns.push((field, idx, unit_of(unit, field)?));
        }
        let mut by_field = [None; Field::ALL.len()];
        for &(f, i, u) in &columns {
            by_field[f as usize] = Some((i, u));
        }
        let m = ColumnMapping { columns, by_field };
        let has = |f| m.index(f).is_some();
        let mut missing = Vec::new();
        if !has(Field::Time) {
            missing.push(format!("time (a column named {})", ACCEPTED_TIME));
        }
        if !(has(Field::X) && has(Field::Y) || has(Field::Lat) && has(Field::Lon)) {
            missing.push(format!(
                "position (x: {ACCEPTED_X}; y: {ACCEPTED_Y}; or latitude: {ACCEPTED_LAT} and longitude: {ACCEPTED_LON})"
            ));
        }
        if !has(Field::Heading) {
            missing.push(format!("heading (a column named {ACCEPTED_HEADING})"));
        }
        if !has(Field::Speed) {
            missing.push(format!("speed (a column named {ACCEPTED_SPEED})"));
        }
        if !missing.is_empty() {
            return Err(format!(
                "missing column(s): {} (header: [{}]; names compare without case, spaces, '_', '-' and '.', a unit in brackets after them; map explicitly with --column FIELD=NAME[:UNIT])",
                missing.join("; "),
                header.iter().map(|h| h.trim()).collect::<Vec<_>>().join(", ")
            ));
        }
        Ok(m)
    }

    pub(crate) fn index(&self, f: Field) -> Option<(usize, Unit)> {
        self.by_field.get(f as usize).copied().flatten()
    }

    /// The mapped fields a row's sample is built from (the position from PosX+PosY when both are
    /// mapped, else from latitude, longitude and altitude), with their columns and units, in
    /// column order: each row's cells are read in one pass along it.
    pub(crate) fn read_plan(&self) -> Vec<(Field, usize, Unit)> {
        let local = self.index(Field::X).is_some() && self.index(Field::Y).is_some();
        let mut plan: Vec<(Field, usize, Unit)> = self
            .columns
            .iter()
            .copied()
            .filter(|(f, _, _)| match f {
                Field::X | Field::Y => local,
                Field::Lat | Field::Lon | Field::Alt => !local,
                _ => true,
            })
            .collect();
        plan.sort_by_key(|&(_, i, _)| i);
        plan
    }

    /// Human-readable description, e.g. for `--verbose` reports.
    pub fn describe(&self, header: &[&str]) -> String {
        self.columns
            .iter()
            .map(|(f, i, u)| {
                format!(
                    "{}←'{}' ({u:?})",
                    f.name(),
                    header.get(*i).map(|h| h.trim()).unwrap_or("?")
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn unit_of(unit: &Option<String>, field: Field) -> Result<Unit, String> {
    match unit {
        None => Ok(default_unit(field)),
        Some(u) if u.is_empty() => Ok(default_unit(field)),
        Some(u) => match Unit::parse(u) {
            Some(Unit::One) if field == Field::Time => Ok(Unit::Seconds), // OxTS writes "Time()"
            Some(unit) => Ok(unit),
            None => Err(format!("unknown unit '{u}' for field {}", field.name())),
        },
    }
}

/// What to do with a row that cannot be read.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum BadRowPolicy {
    /// Stop the replay with an error naming file and line.
    #[default]
    Stop,
    /// Skip the row, count it, and go on.
    Skip,
}

/// A CSV problem: which file, which line, what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvError {
    pub file: PathBuf,
    /// 1-based line number in the file (0 when the file could not be opened).
    pub line: u64,
    pub reason: String,
}

impl fmt::Display for CsvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.file.as_os_str().is_empty() {
            write!(f, "{}", self.reason)
        } else if self.line == 0 {
            write!(f, "{}: {}", self.file.display(), self.reason)
        } else {
            write!(f, "{}:{}: {}", self.file.display(), self.line, self.reason)
        }
    }
}

impl std::error::Error for CsvError {}

/// Streams [`InsSample`]s from a CSV file.
pub struct CsvSource<R: Read = BufReader<File>> {
    file: PathBuf,
    /// The rows after the header; the current row's cells are bytes, parsed without building
    /// strings (see [`cell_f64`]).
    splitter: RowReader<R>,
    header: Vec<String>,
    mapping: ColumnMapping,
    /// The cells a row is read from — (field, column, unit) of every mapped field
    /// [`Self::parse_cells`] uses — in column order (see [`ColumnMapping::read_plan`]).
    plan: Vec<(Field, usize, Unit)>,
    policy: BadRowPolicy,
    vehicle: crate::sample::VehicleId,
    last_time: Option<f64>,
    /// Physical plausibility (on by default): an implausible row is a bad row.
    plausibility: Option<super::plausibility::Plausibility>,
    /// Rows read successfully.
    pub rows: u64,
    /// Rows skipped under [`BadRowPolicy::Skip`], with their errors (the first 100 kept).
    pub skipped: u64,
    pub skipped_errors: Vec<CsvError>,
    done: bool,
}

impl CsvSource<BufReader<File>> {
    /// Opens a CSV file and reads its header.
    pub fn open(
        path: &Path,
        explicit: &[ColumnSpec],
        policy: BadRowPolicy,
    ) -> Result<Self, CsvError> {
        let file = File::open(path).map_err(|e| CsvError {
            file: path.to_path_buf(),
            line: 0,
            reason: format!("cannot open: {e}"),
        })?;
        Self::from_reader(
            path,
            BufReader::with_capacity(1 << 16, file),
            explicit,
            policy,
        )
    }
}

impl CsvSource<BufReader<File>> {
    /// Opens `path` but names the file `display` in every error (an uploaded file is stored
    /// under a generated name; errors must name the file the user uploaded).
    pub fn open_as(
        path: &Path,
        display: &Path,
        explicit: &[ColumnSpec],
        policy: BadRowPolicy,
    ) -> Result<Self, CsvError> {
        let file = File::open(path).map_err(|e| CsvError {
            file: display.to_path_buf(),
            line: 0,
            reason: format!("cannot open: {e}"),
        })?;
        Self::from_reader(
            display,
            BufReader::with_capacity(1 << 16, file),
            explicit,
            policy,
        )
    }
}

impl<R: Read> CsvSource<R> {
    /// Reads from any byte stream; `name` is used in error messages.
    pub fn from_reader(
        name: &Path,
        rdr: R,
        explicit: &[ColumnSpec],
        policy: BadRowPolicy,
    ) -> Result<Self, CsvError> {
        Self::from_reader_chunked(name, rdr, explicit, policy, CHUNK)
    }

    /// [`Self::from_reader`] reading the rows `chunk` bytes at a time (tests use tiny chunks).
    pub(crate) fn from_reader_chunked(
        name: &Path,
        rdr: R,
        explicit: &[ColumnSpec],
        policy: BadRowPolicy,
        chunk: usize,
    ) -> Result<Self, CsvError> {
        let err = |line: u64, reason: String| CsvError {
            file: name.to_path_buf(),
            line,
            reason,
        };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .trim(csv::Trim::None)
            // Split on '\n' only so that line numbers stay right in CRLF files (the default
            // terminator miscounts them); the '\r' left on the last cell is trimmed like spaces.
            .terminator(csv::Terminator::Any(b'\n'))
            // The header is read by the `csv` crate; the rows after it by [`RowReader`],
            // which takes over the bytes this reader read ahead (kept by the `Tee`).
            .from_reader(Tee {
                inner: rdr,
                seen: Vec::new(),
            });
        let mut record = csv::StringRecord::new();
        // Skip leading blank lines; the first non-empty record is the header.
        loop {
            match reader.read_record(&mut record) {
                Ok(false) => return Err(err(1, "empty file: no header row".into())),
                Ok(true) => {
                    if record.iter().all(|c| c.trim().is_empty()) {
                        continue;
                    }
                    break;
                }
                Err(e) => {
                    return Err(err(
                        line_of(&e).unwrap_or(1),
                        format!("unreadable header: {e}"),
                    ))
                }
            }
        }
        let header_line = record.position().map(|p| p.line()).unwrap_or(1);
        let header: Vec<String> = record.iter().map(|s| s.to_string()).collect();
        let refs: Vec<&str> = header.iter().map(|s| s.as_str()).collect();
        let mapping =
            ColumnMapping::from_header(&refs, explicit).map_err(|r| err(header_line, r))?;
        let (line, byte) = (reader.position().line(), reader.position().byte());
        let tee = reader.into_inner();
        let pending = usize::try_from(byte)
            .ok()
            .and_then(|b| tee.seen.get(b..))
            .unwrap_or_default();
        let splitter = RowReader::resume(tee.inner, pending, line, byte, chunk);
        Ok(CsvSource {
            file: name.to_path_buf(),
            splitter,
            header,
            plan: mapping.read_plan(),
            mapping,
            policy,
            vehicle: VUT.into(),
            last_time: None,
            plausibility: Some(super::plausibility::Plausibility::new(Default::default())),
            rows: 0,
            skipped: 0,
            skipped_errors: Vec::new(),
            done: false,
        })
    }

    /// Sets the vehicle id the samples are tagged with (default `vut`).
    pub fn with_vehicle(mut self, id: &str) -> Self {
        self.vehicle = id.into();
        self
    }

    /// Sets the plausibility limits (`None`: no plausibility check, only the format rules).
    pub fn with_plausibility(
        mut self,
        limits: Option<super::plausibility::PlausibilityLimits>,
    ) -> Self {
        self.plausibility = limits.map(super::plausibility::Plausibility::new);
        self
    }

    /// Rows rejected as physically implausible so far (also counted in `skipped` under Skip).
    pub fn implausible(&self) -> u64 {
        self.plausibility.as_ref().map_or(0, |p| p.dropped)
    }

    pub fn header(&self) -> &[String] {
        &self.header
    }

    pub fn mapping(&self) -> &ColumnMapping {
        &self.mapping
    }

    /// Bytes consumed so far (for progress display).
    pub fn byte_offset(&self) -> u64 {
        self.splitter.byte_offset()
    }

    pub fn path(&self) -> &Path {
        &self.file
    }

    /// Next sample; `None` at end of file. With [`BadRowPolicy::Skip`] bad rows are counted
    /// and skipped; with `Stop` the first bad row is returned as an error and the source ends.
    pub fn next_sample(&mut self) -> Option<Result<InsSample, CsvError>> {
        if self.done {
            return None;
        }
        loop {
            let line = self.splitter.line();
            match self.splitter.read_record() {
                Ok(false) => {
                    self.done = true;
                    return None;
                }
                Ok(true) => {
                    let line = self.splitter.record_line();
                    if self.splitter.len() <= 1 && self.splitter.get(0).is_none_or(blank_cell) {
                        continue; // blank line
                    }
                    // Rows are text: invalid UTF-8 anywhere in the row is a row error (as when
                    // rows were read as strings), following the policy.
                    if let Err(valid_up_to) = self.splitter.check_utf8() {
                        let e = CsvError {
                            file: self.file.clone(),
                            line,
                            reason: format!(
                                "unreadable row: invalid UTF-8 near byte {valid_up_to} of the row"
                            ),
                        };
                        if let Some(r) = self.on_bad(e) {
                            return Some(Err(r));
                        }
                        continue;
                    }
                    // The sample is checked where it is built and moved out once.
                    let fault = match self.parse_record(line) {
                        Ok(s) => match self.plausibility.as_mut().map(|p| p.admit(&s)) {
                            Some(Err(reason)) => CsvError {
                                file: self.file.clone(),
                                line,
                                reason,
                            },
                            _ => {
                                self.rows += 1;
                                self.last_time = Some(s.time_s);
                                return Some(Ok(s));
                            }
                        },
                        Err(e) => e,
                    };
                    if let Some(r) = self.on_bad(fault) {
                        return Some(Err(r));
                    }
                }
                Err(err) => {
                    // An I/O error leaves the reader unable to continue: stop whatever the
                    // policy. (With flexible rows, the only error reading a byte record.)
                    self.done = true;
                    return Some(Err(CsvError {
                        file: self.file.clone(),
                        line,
                        reason: format!("unreadable row: {err}"),
                    }));
                }
            }
        }
    }

    fn on_bad(&mut self, e: CsvError) -> Option<CsvError> {
        match self.policy {
            BadRowPolicy::Stop => {
                self.done = true;
                Some(e)
            }
            BadRowPolicy::Skip => {
                self.skipped += 1;
                if self.skipped_errors.len() < 100 {
                    self.skipped_errors.push(e);
                }
                None
            }
        }
    }

    fn parse_record(&self, line: u64) -> Result<InsSample, CsvError> {
        self.parse_cells().map_err(|fault| CsvError {
            file: self.file.clone(),
            line,
            reason: self.describe_fault(fault),
        })
    }

    /// The row as a sample; a refusal carries only what is needed to word it (built by
    /// [`Self::describe_fault`] on the error path, not per cell). The cells of the plan are read
    /// first, in one pass in column order; their faults are raised below in the order the fields
    /// are checked, so a row with several bad cells is refused for the same one as ever.
    fn parse_cells(&self) -> Result<InsSample, RowFault> {
        if self.splitter.len() != self.header.len() {
            return Err(RowFault::FieldCount);
        }
        let mut slots = [Slot::Empty; Field::ALL.len()];
        let (ranges, bytes) = self.splitter.cells();
        for &(f, idx, unit) in &self.plan {
            let (a, b) = ranges.get(idx).copied().unwrap_or_default();
            let slot = match cell_f64_at(bytes, a, b) {
                Cell::Empty => Slot::Empty,
                Cell::Number(v) if v.is_finite() => Slot::Value(unit.to_si(v)),
                Cell::Number(_) => Slot::NotFinite(idx),
                Cell::NotANumber => Slot::NotANumber(idx),
            };
            if let Some(s) = slots.get_mut(f as usize) {
                *s = slot;
            }
        }
        build_sample(&slots, &self.mapping, self.last_time, &self.vehicle)
    }

    /// The reason of a refused row, in words.
    fn describe_fault(&self, fault: RowFault) -> String {
        let cell = |idx: usize| {
            (
                self.header.get(idx).map(|h| h.trim()).unwrap_or("?"),
                String::from_utf8_lossy(self.splitter.get(idx).unwrap_or(b""))
                    .trim()
                    .to_string(),
            )
        };
        match fault {
            RowFault::FieldCount if self.splitter.len() < self.header.len() => format!(
                "row has {} field(s), header has {} (truncated row?)",
                self.splitter.len(),
                self.header.len()
            ),
            RowFault::FieldCount => format!(
                "row has {} fields, header has {}",
                self.splitter.len(),
                self.header.len()
            ),
            RowFault::NotANumber(idx) => {
                let (col, text) = cell(idx);
                format!("column '{col}': '{text}' is not a number")
            }
            RowFault::NotFinite(idx) => {
                let (col, text) = cell(idx);
                format!("column '{col}': '{text}' is not finite")
            }
            RowFault::Empty(f) => {
                let col = self
                    .mapping
                    .index(f)
                    .and_then(|(i, _)| self.header.get(i))
                    .map(|h| h.trim().to_string())
                    .unwrap_or_default();
                format!("column '{col}' ({}) is empty", f.name())
            }
            RowFault::Other(reason) => reason,
        }
    }
}

/// A sample from a row's cells (read into `slots`, SI units), checked as every recording's rows
/// are: time rising, position, speed, flags. Shared by the CSV, MDF4 and VBOX readers.
pub(crate) fn build_sample(
    slots: &[Slot; Field::ALL.len()],
    mapping: &ColumnMapping,
    last_time: Option<f64>,
    vehicle: &crate::sample::VehicleId,
) -> Result<InsSample, RowFault> {
    // The cell of field `f` in SI units; `None` when the field is not mapped or the cell
    // empty.
    let get = |f: Field| -> Result<Option<f64>, RowFault> {
        match slots.get(f as usize).copied().unwrap_or(Slot::Empty) {
            Slot::Empty => Ok(None),
            Slot::Value(v) => Ok(Some(v)),
            Slot::NotFinite(idx) => Err(RowFault::NotFinite(idx)),
            Slot::NotANumber(idx) => Err(RowFault::NotANumber(idx)),
        }
    };
    // `get` for a field the row must have.
    let need = |f: Field| get(f)?.ok_or(RowFault::Empty(f));
    let time_s = need(Field::Time)?;
    if let Some(prev) = last_time {
        if time_s <= prev {
            return Err(RowFault::Other(format!(
                "time {time_s} does not increase (previous row {prev})"
            )));
        }
    }
    let position = if mapping.index(Field::X).is_some() && mapping.index(Field::Y).is_some() {
        InsPosition::Local {
            x: need(Field::X)?,
            y: need(Field::Y)?,
        }
    } else {
        let lat_deg = need(Field::Lat)?;
        let lon_deg = need(Field::Lon)?;
        if !(-90.0..=90.0).contains(&lat_deg) || !(-180.0..=360.0).contains(&lon_deg) {
            return Err(RowFault::Other(format!(
                "latitude/longitude {lat_deg}, {lon_deg} out of range"
            )));
        }
        InsPosition::Wgs84 {
            lat_deg,
            lon_deg,
            alt_m: get(Field::Alt)?,
        }
    };
    let speed_mps = need(Field::Speed)?;
    if speed_mps < -0.5 {
        // Speed over ground is not negative; a small negative value is sensor noise at standstill.
        return Err(RowFault::Other(format!(
            "negative speed {speed_mps:.3} m/s"
        )));
    }
    let brake_light = match get(Field::Brake)? {
        None => None,
        Some(0.0) => Some(false),
        Some(1.0) => Some(true),
        Some(v) => {
            return Err(RowFault::Other(format!(
                "brake light must be 0 or 1, got {v}"
            )))
        }
    };
    let fcw = match get(Field::Fcw)? {
        None => None,
        Some(0.0) => Some(false),
        Some(1.0) => Some(true),
        Some(v) => return Err(RowFault::Other(format!("FCW must be 0 or 1, got {v}"))),
    };
    Ok(InsSample {
        time_s,
        vehicle: vehicle.clone(),
        position,
        heading_deg: need(Field::Heading)?,
        speed_mps: speed_mps.max(0.0),
        steering_wheel_deg: get(Field::Steering)?,
        brake_light,
        accel_mps2: None,
        yaw_rate_rps: None,
        wheel_speed_mps: None,
        fcw,
    })
}

/// A planned cell of the current row, read; a fault is kept until its field is checked.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Slot {
    /// Empty, or the field is not read.
    Empty,
    /// The value in SI units.
    Value(f64),
    /// Not a number (column index).
    NotANumber(usize),
    /// A number but not finite (column index).
    NotFinite(usize),
}

/// Why a row was refused; worded by [`CsvSource::describe_fault`].
pub(crate) enum RowFault {
    /// More or fewer fields than the header.
    FieldCount,
    /// The cell in this column is not a number.
    NotANumber(usize),
    /// The cell in this column is a number but not finite.
    NotFinite(usize),
    /// A required field's cell is empty.
    Empty(Field),
    /// Any other reason, already worded.
    Other(String),
}

impl<R: Read> Iterator for CsvSource<R> {
    type Item = Result<InsSample, CsvError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_sample()
    }
}

fn blank_cell(c: &[u8]) -> bool {
    match std::str::from_utf8(c) {
        Ok(s) => s.trim().is_empty(),
        Err(_) => false,
    }
}

fn line_of(e: &csv::Error) -> Option<u64> {
    e.position().map(|p| p.line())
}

#[cfg(test)]
#[path = "csv_tests.rs"]
mod tests;
