//! Racelogic VBOX `.vbo` files, streamed row by row.
//!
//! ```text
//! File created on 31/07/2026 at 09:55:20
//!
//! [header]
//! satellites
//! time
//! latitude
//! longitude
//! velocity kmh
//! heading
//! height
//!
//! [column names]
//! sats time lat long velocity heading height
//!
//! [data]
//! 008 095520.00 +02807.95938 -01010.74622 030.012 090.00 +00150.00
//! ```
//!
//! Sections `[header]`, `[channel units]`, `[comments]`, `[column names]`, `[data]`; data
//! columns are separated by spaces. Following Racelogic's format: latitude and longitude are in
//! minutes (degrees × 60), longitude positive to the **west**; time is UTC `hhmmss.ss`;
//! velocity is km/h, heading degrees, height metres. Column names are matched like CSV headers
//! after the VBOX names (`lat`, `long`, `velocity`, `heading`, `height`, `time`, and their long
//! forms) are recognised; a day change (time wrapping past midnight) is carried on.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use super::csv::{
    build_sample, BadRowPolicy, ColumnMapping, ColumnSpec, CsvError, Field, RowFault, Slot,
};
use crate::sample::{InsSample, VUT};

/// How a VBOX column's text becomes the value the mapping reads.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// `hhmmss.ss` UTC → seconds of the day (days carried on).
    Time,
    /// Minutes → degrees.
    LatMinutes,
    /// Minutes, positive west → degrees, positive east.
    LonMinutesWest,
    Plain,
}

/// The header name a VBOX column is given for the mapping, and how it is read.
fn vbox_column(name: &str) -> (String, Kind) {
    let n: String = name
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    match n.as_str() {
        "time" | "utctime" | "utc" => ("Time [s]".into(), Kind::Time),
        "lat" | "latitude" => ("Latitude [deg]".into(), Kind::LatMinutes),
        "long" | "lon" | "longitude" => ("Longitude [deg]".into(), Kind::LonMinutesWest),
        "velocity" | "velocitykmh" | "speed" | "speedkmh" | "vel" => {
            ("Velocity [km/h]".into(), Kind::Plain)
        }
        "heading" | "headingdeg" | "course" => ("Heading [deg]".into(), Kind::Plain),
        "height" | "heightm" | "altitude" | "alt" => ("Altitude [m]".into(), Kind::Plain),
        _ => (name.to_string(), Kind::Plain),
    }
}

/// Streams [`InsSample`]s from a `.vbo` file.
pub struct VboSource<R: BufRead = BufReader<File>> {
    file: PathBuf,
    r: R,
    line: u64,
    names: Vec<String>,
    kinds: Vec<Kind>,
    mapping: ColumnMapping,
    plan: Vec<(Field, usize, super::csv::Unit)>,
    policy: BadRowPolicy,
    vehicle: crate::sample::VehicleId,
    last_time: Option<f64>,
    /// Seconds added for days passed (time wrapped past midnight).
    day_offset: f64,
    last_tod: Option<f64>,
    plausibility: Option<super::plausibility::Plausibility>,
    pub rows: u64,
    pub skipped: u64,
    pub skipped_errors: Vec<CsvError>,
    done: bool,
    buf: String,
}

impl VboSource<BufReader<File>> {
    pub fn open_as(
        path: &Path,
        display: &Path,
        explicit: &[ColumnSpec],
        policy: BadRowPolicy,
    ) -> Result<Self, CsvError> {
        let f = File::open(path).map_err(|e| CsvError {
            file: display.to_path_buf(),
            line: 0,
            reason: format!("cannot open: {e}"),
        })?;
        Self::from_reader(
            display,
            BufReader::with_capacity(1 << 16, f),
            explicit,
            policy,
        )
    }
}

impl<R: BufRead> VboSource<R> {
    /// Reads the sections up to `[data]`.
    pub fn from_reader(
        name: &Path,
        mut r: R,
        explicit: &[ColumnSpec],
        policy: BadRowPolicy,
    ) -> Result<Self, CsvError> {
        let err = |line: u64, reason: String| CsvError {
            file: name.to_path_buf(),
            line,
            reason,
        };
        let mut line = 0u64;
        let mut section = String::new();
        let mut columns: Option<(u64, Vec<String>)> = None;
        let mut buf = String::new();
        loop {
            buf.clear();
            let n = read_line(&mut r, &mut buf).map_err(|e| err(line + 1, e))?;
            if n == 0 {
                return Err(err(line, "no [data] section".into()));
            }
            line += 1;
            let l = buf.trim();
            if l.starts_with('[') && l.ends_with(']') {
                section = l.to_ascii_lowercase();
                if section == "[data]" {
                    break;
                }
                continue;
            }
            if section == "[column names]" && !l.is_empty() && columns.is_none() {
                columns = Some((line, l.split_whitespace().map(str::to_string).collect()));
            }
        }
        let Some((cline, cols)) = columns else {
            return Err(err(line, "no [column names] before [data]".into()));
        };
        let (names, kinds): (Vec<String>, Vec<Kind>) = cols.iter().map(|c| vbox_column(c)).unzip();
        let refs: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        let mapping = ColumnMapping::from_header(&refs, explicit).map_err(|e| err(cline, e))?;
        Ok(VboSource {
            file: name.to_path_buf(),
            r,
            line,
            names: cols,
            kinds,
            plan: mapping.read_plan(),
            mapping,
            policy,
            vehicle: VUT.into(),
            last_time: None,
            day_offset: 0.0,
            last_tod: None,
            plausibility: Some(super::plausibility::Plausibility::new(Default::default())),
            rows: 0,
            skipped: 0,
            skipped_errors: Vec::new(),
            done: false,
            buf: String::new(),
        })
    }

    pub fn with_plausibility(
        mut self,
        limits: Option<super::plausibility::PlausibilityLimits>,
    ) -> Self {
        self.plausibility = limits.map(super::plausibility::Plausibility::new);
        self
    }

    /// Which field is read from which column, for messages.
    pub fn describe(&self) -> String {
        let refs: Vec<&str> = self.names.iter().map(|s| s.as_str()).collect();
        self.mapping.describe(&refs)
    }

    /// Next sample; `None` at the end of the data.
    pub fn next_sample(&mut self) -> Option<Result<InsSample, CsvError>> {
        while !self.done {
            self.buf.clear();
            let line = self.line + 1;
            match read_line(&mut self.r, &mut self.buf) {
                Ok(0) => self.done = true,
                Err(e) => {
                    self.done = true;
                    return Some(Err(self.err(line, e)));
                }
                Ok(_) => {
                    self.line = line;
                    let l = self.buf.trim();
                    if l.is_empty() {
                        continue;
                    }
                    if l.starts_with('[') {
                        // A section after [data] ends the data.
                        self.done = true;
                        continue;
                    }
                    let r = self.parse_row().and_then(|s| {
                        match self.plausibility.as_mut().map(|p| p.admit(&s)) {
                            Some(Err(reason)) => Err(reason),
                            _ => Ok(s),
                        }
                    });
                    match r {
                        Ok(s) => {
                            self.rows += 1;
                            self.last_time = Some(s.time_s);
                            return Some(Ok(s));
                        }
                        Err(reason) => {
                            let e = self.err(line, reason);
                            match self.policy {
                                BadRowPolicy::Stop => {
                                    self.done = true;
                                    return Some(Err(e));
                                }
                                BadRowPolicy::Skip => {
                                    self.skipped += 1;
                                    if self.skipped_errors.len() < 100 {
                                        self.skipped_errors.push(e);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        None
    }

    fn err(&self, line: u64, reason: String) -> CsvError {
        CsvError {
            file: self.file.clone(),
            line,
            reason,
        }
    }

    fn parse_row(&mut self) -> Result<InsSample, String> {
        let cells: Vec<&str> = self.buf.split_whitespace().collect();
        if cells.len() != self.kinds.len() {
            return Err(format!(
                "row has {} values, [column names] has {}",
                cells.len(),
                self.kinds.len()
            ));
        }
        let mut slots = [Slot::Empty; Field::ALL.len()];
        let mut tod = None;
        for &(f, idx, unit) in &self.plan {
            let text = cells[idx];
            let Ok(v) = text.parse::<f64>() else {
                return Err(format!(
                    "column '{}': '{text}' is not a number",
                    self.names[idx]
                ));
            };
            if !v.is_finite() {
                return Err(format!(
                    "column '{}': '{text}' is not finite",
                    self.names[idx]
                ));
            }
            let v = match self.kinds[idx] {
                Kind::Time => {
                    let t = hhmmss(v).ok_or_else(|| {
                        format!(
                            "column '{}': '{text}' is not a time hhmmss.ss",
                            self.names[idx]
                        )
                    })?;
                    tod = Some(t);
                    t
                }
                Kind::LatMinutes => v / 60.0,
                Kind::LonMinutesWest => -v / 60.0,
                Kind::Plain => v,
            };
            slots[f as usize] = Slot::Value(unit.to_si(v));
        }
        if let (Some(t), Some(prev)) = (tod, self.last_tod) {
            // Past midnight: the time of day starts again.
            if t + 43_200.0 < prev {
                self.day_offset += 86_400.0;
            }
        }
        if let Some(t) = tod {
            self.last_tod = Some(t);
            slots[Field::Time as usize] = Slot::Value(t + self.day_offset);
        }
        build_sample(&slots, &self.mapping, self.last_time, &self.vehicle).map_err(|f| match f {
            RowFault::Other(s) => s,
            RowFault::Empty(f) => format!("no value for {}", f.name()),
            RowFault::NotFinite(i) | RowFault::NotANumber(i) => {
                format!(
                    "column '{}' is not a number",
                    self.names.get(i).map_or("?", |s| s.as_str())
                )
            }
            RowFault::FieldCount => "bad row".into(),
        })
    }
}

/// `hhmmss.ss` → seconds of the day.
fn hhmmss(v: f64) -> Option<f64> {
    if !(0.0..240_000.0).contains(&v) {
        return None;
    }
    let h = (v / 10_000.0).floor();
    let m = ((v - h * 10_000.0) / 100.0).floor();
    let s = v - h * 10_000.0 - m * 100.0;
    (h < 24.0 && m < 60.0 && s < 61.0).then_some(h * 3600.0 + m * 60.0 + s)
}

/// One line as text; a line that is not UTF-8 is an error naming it.
fn read_line<R: BufRead>(r: &mut R, out: &mut String) -> Result<usize, String> {
    let mut raw = Vec::new();
    let n = r
        .read_until(b'\n', &mut raw)
        .map_err(|e| format!("cannot read: {e}"))?;
    match std::str::from_utf8(&raw) {
        Ok(s) => {
            out.push_str(s);
            Ok(n)
        }
        Err(e) => Err(format!("not UTF-8 (byte {})", e.valid_up_to() + 1)),
    }
}

impl<R: BufRead> Iterator for VboSource<R> {
    type Item = Result<InsSample, CsvError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_sample()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VBO: &str = "File created on 27/11/2026 at 10:00:00\r\n\r\n[header]\r\nsatellites\r\ntime\r\nlatitude\r\nlongitude\r\nvelocity kmh\r\nheading\r\nheight\r\n\r\n[comments]\r\nfrom a test\r\n\r\n[column names]\r\nsats time lat long velocity heading height\r\n\r\n[data]\r\n011 235959.96 +02807.95938 -01010.74622 030.000 090.00 +00150.00\r\n011 000000.00 +02807.95940 -01010.74500 030.000 090.00 +00150.00\r\n";

    #[test]
    fn minutes_west_and_midnight() {
        let mut s =
            VboSource::from_reader(Path::new("t.vbo"), VBO.as_bytes(), &[], BadRowPolicy::Stop)
                .unwrap()
                .with_plausibility(None);
        let a = s.next_sample().unwrap().unwrap();
        let b = s.next_sample().unwrap().unwrap();
        assert!(s.next_sample().is_none());
        assert!((a.time_s - 86_399.96).abs() < 1e-9);
        assert!((b.time_s - 86_400.0).abs() < 1e-9);
        match a.position {
            crate::sample::InsPosition::Wgs84 {
                lat_deg,
                lon_deg,
                alt_m,
            } => {
                assert!((lat_deg - 2807.95938 / 60.0).abs() < 1e-12);
                // Negative minutes west = east.
                assert!((lon_deg - 1010.74622 / 60.0).abs() < 1e-12);
                assert_eq!(alt_m, Some(150.0));
            }
            other => panic!("{other:?}"),
        }
        assert!((a.speed_mps - 30.0 / 3.6).abs() < 1e-12);
        assert_eq!(a.heading_deg, 90.0);
    }

    #[test]
    fn bad_rows_name_the_line() {
        let bad = VBO.replace("+02807.95940", "x");
        let mut s =
            VboSource::from_reader(Path::new("t.vbo"), bad.as_bytes(), &[], BadRowPolicy::Stop)
                .unwrap();
        assert!(s.next_sample().unwrap().is_ok());
        let e = s.next_sample().unwrap().unwrap_err();
        assert_eq!(e.line, 20);
        assert!(e.reason.contains("'x' is not a number"), "{e}");
    }
}
