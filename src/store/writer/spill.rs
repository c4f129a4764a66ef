//! Spill files: telemetry rows the writer cannot hold in memory while the database fails go to
//! an append-only file in the configured spill directory instead of being dropped, and are
//! written back, in order, once the database takes writes again.
//!
//! Format (one file per writer outage, `telemetry-<pid>-<ms>-<n>.spill`):
//!
//! * an 8-byte header `SCILSPL` + version byte 1;
//! * records: payload length (u32 LE), CRC-32/IEEE of the payload (u32 LE), payload;
//! * a payload is one telemetry row: strings as u32 LE length + UTF-8, `seq` as i64 LE, floats
//!   as f64 LE bits, optional fields behind a tag byte (bool: 0 none, 1 false, 2 true).
//!
//! A torn tail (a record cut short by a crash or a full disk) or a record whose checksum does
//! not match ends the readable part of a file: the rows before it are kept, the rest is reported
//! (file, record number, byte offset, reason), never a panic.
//!
//! Each file is locked (`flock`) by the writer that owns it; at startup, files in the directory
//! that no live writer holds are left over from a process that stopped, and are written back
//! into the database like this writer's own.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::store::TelemetryRow;

pub const MAGIC: &[u8; 8] = b"SCILSPL\x01";
pub const EXTENSION: &str = "spill";
/// A record longer than this is not one the writer wrote (a row is ~100 bytes).
const MAX_RECORD: u32 = 1 << 20;

/// Encodes one row as a record (length, checksum, payload).
pub fn encode_record(row: &TelemetryRow, out: &mut Vec<u8>) {
    let mut p = Vec::with_capacity(128);
    let s = |p: &mut Vec<u8>, v: &str| {
        p.extend_from_slice(&(v.len() as u32).to_le_bytes());
        p.extend_from_slice(v.as_bytes());
    };
    let f = |p: &mut Vec<u8>, v: f64| p.extend_from_slice(&v.to_bits().to_le_bytes());
    let of = |p: &mut Vec<u8>, v: Option<f64>| match v {
        None => p.push(0),
        Some(v) => {
            p.push(1);
            p.extend_from_slice(&v.to_bits().to_le_bytes());
        }
    };
    s(&mut p, &row.run_id);
    p.extend_from_slice(&row.seq.to_le_bytes());
    f(&mut p, row.t);
    s(&mut p, &row.vehicle);
    s(&mut p, &row.kind);
    f(&mut p, row.x);
    f(&mut p, row.y);
    f(&mut p, row.yaw);
    f(&mut p, row.speed_mps);
    of(&mut p, row.steering_wheel_deg);
    p.push(match row.brake_light {
        None => 0,
        Some(false) => 1,
        Some(true) => 2,
    });
    match &row.road_id {
        None => p.push(0),
        Some(r) => {
            p.push(1);
            s(&mut p, r);
        }
    }
    match row.lane_id {
        None => p.push(0),
        Some(l) => {
            p.push(1);
            p.extend_from_slice(&l.to_le_bytes());
        }
    }
    of(&mut p, row.road_s);
    of(&mut p, row.road_t);
    of(&mut p, row.wheel_speed_mps);
    out.extend_from_slice(&(p.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&p).to_le_bytes());
    out.extend_from_slice(&p);
}

/// Reads a payload back (the checksum already matched).
fn decode_payload(p: &[u8]) -> Result<TelemetryRow, String> {
    struct Cur<'a>(&'a [u8], usize);
    impl Cur<'_> {
        fn take(&mut self, n: usize) -> Result<&[u8], String> {
            let end = self.1.checked_add(n).filter(|&e| e <= self.0.len());
            let Some(end) = end else {
                return Err(format!(
                    "payload ends at byte {} of {}",
                    self.1,
                    self.0.len()
                ));
            };
            let b = &self.0[self.1..end];
            self.1 = end;
            Ok(b)
        }
        fn u8(&mut self) -> Result<u8, String> {
            Ok(self.take(1)?[0])
        }
        fn arr<const N: usize>(&mut self) -> Result<[u8; N], String> {
            let mut a = [0u8; N];
            a.copy_from_slice(self.take(N)?);
            Ok(a)
        }
        fn f64(&mut self) -> Result<f64, String> {
            Ok(f64::from_bits(u64::from_le_bytes(self.arr()?)))
        }
        fn str(&mut self) -> Result<String, String> {
            let n = u32::from_le_bytes(self.arr()?) as usize;
            String::from_utf8(self.take(n)?.to_vec()).map_err(|_| "a string is not UTF-8".into())
        }
        fn opt<T>(
            &mut self,
            f: impl FnOnce(&mut Self) -> Result<T, String>,
        ) -> Result<Option<T>, String> {
            match self.u8()? {
                0 => Ok(None),
                1 => f(self).map(Some),
                t => Err(format!("bad option tag {t}")),
            }
        }
    }
    let mut c = Cur(p, 0);
    let row = TelemetryRow {
        run_id: c.str()?,
        seq: i64::from_le_bytes(c.arr()?),
        t: c.f64()?,
        vehicle: c.str()?,
        kind: c.str()?,
        x: c.f64()?,
        y: c.f64()?,
        yaw: c.f64()?,
        speed_mps: c.f64()?,
        steering_wheel_deg: c.opt(Cur::f64)?,
        brake_light: match c.u8()? {
            0 => None,
            1 => Some(false),
            2 => Some(true),
            t => return Err(format!("bad brake_light tag {t}")),
        },
        road_id: c.opt(Cur::str)?,
        lane_id: c.opt(|c| Ok(i32::from_le_bytes(c.arr()?)))?,
        road_s: c.opt(Cur::f64)?,
        road_t: c.opt(Cur::f64)?,
        wheel_speed_mps: c.opt(Cur::f64)?,
    };
    if c.1 != p.len() {
        return Err(format!("{} bytes after the row", p.len() - c.1));
    }
    Ok(row)
}

/// Reads records from `r` (positioned at byte `pos`) until `limit` rows or the byte `end`.
/// Returns the rows, the byte offset after the last good record and, when a record is torn or
/// corrupt, why (the rows before it are still returned).
pub fn read_records(
    r: &mut impl Read,
    mut pos: u64,
    end: Option<u64>,
    limit: usize,
    first_record: u64,
) -> (Vec<TelemetryRow>, u64, Option<String>) {
    let mut rows = Vec::new();
    while rows.len() < limit && end.is_none_or(|e| pos < e) {
        let n = first_record + rows.len() as u64 + 1;
        let at = |why: String| format!("record {n} at byte {pos}: {why}");
        let mut head = [0u8; 8];
        match read_full(r, &mut head) {
            Ok(0) => break,
            Ok(8) => {}
            Ok(k) => return (rows, pos, Some(at(format!("torn: {k} of 8 header bytes")))),
            Err(e) => return (rows, pos, Some(at(format!("read error: {e}")))),
        }
        let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        let crc = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
        if len > MAX_RECORD {
            return (rows, pos, Some(at(format!("implausible length {len}"))));
        }
        let mut p = vec![0u8; len as usize];
        match read_full(r, &mut p) {
            Ok(k) if k == p.len() => {}
            Ok(k) => {
                return (
                    rows,
                    pos,
                    Some(at(format!("torn: {k} of {len} payload bytes"))),
                )
            }
            Err(e) => return (rows, pos, Some(at(format!("read error: {e}")))),
        }
        if crc32fast::hash(&p) != crc {
            return (rows, pos, Some(at("checksum mismatch".into())));
        }
        match decode_payload(&p) {
            Ok(row) => rows.push(row),
            Err(e) => return (rows, pos, Some(at(format!("not a telemetry row: {e}")))),
        }
        pos += 8 + len as u64;
    }
    (rows, pos, None)
}

/// Like `read_exact`, but answers how many bytes there were (fewer at the end of the file).
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// What a whole spill file holds: its good rows per run, where they end, and what is wrong
/// after them.
#[derive(Debug)]
pub struct Scan {
    pub rows: u64,
    pub per_run: BTreeMap<String, u64>,
    pub end: u64,
    pub file_len: u64,
    pub problem: Option<String>,
}

/// Reads a spill file through, checking every record.
pub fn scan(path: &Path) -> Result<Scan, String> {
    let f = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file_len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut r = BufReader::new(f);
    let mut head = [0u8; 8];
    match read_full(&mut r, &mut head) {
        Ok(8) if &head == MAGIC => {}
        Ok(_) => return Err(format!("{}: not a scil spill file", path.display())),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    }
    let mut s = Scan {
        rows: 0,
        per_run: BTreeMap::new(),
        end: 8,
        file_len,
        problem: None,
    };
    loop {
        let (rows, pos, problem) = read_records(&mut r, s.end, None, 10_000, s.rows);
        let done = rows.is_empty() || problem.is_some();
        s.rows += rows.len() as u64;
        for row in rows {
            *s.per_run.entry(row.run_id).or_default() += 1;
        }
        s.end = pos;
        if let Some(p) = problem {
            s.problem = Some(format!(
                "{}: {p}; {} bytes after it ignored",
                path.display(),
                file_len.saturating_sub(pos)
            ));
        }
        if done {
            return Ok(s);
        }
    }
}

/// One spill file: its good bytes, and how far they have been written back.
struct Segment {
    path: PathBuf,
    /// Held for the lock (and, for this writer's file, to append).
    file: File,
    /// This writer appends to it (false: a file left by a previous process, or sealed).
    open: bool,
    /// End of the good records; the records before `read` are in the database.
    end: u64,
    read: u64,
    records_read: u64,
    /// Rows not yet written back, per run.
    per_run: BTreeMap<String, u64>,
    /// Rows written back, per run (reported for files of a previous process).
    replayed: BTreeMap<String, u64>,
    orphan: bool,
}

impl Segment {
    fn pending(&self) -> u64 {
        self.per_run.values().sum()
    }
}

/// Rows read back from the oldest file, to be written to the database.
pub struct Batch {
    pub rows: Vec<TelemetryRow>,
    end: u64,
    /// Rows read (including those of discarded runs, left out of `rows`), per run.
    read: BTreeMap<String, u64>,
    records: u64,
    pub problem: Option<String>,
}

/// A spill file written back completely and removed.
pub struct Done {
    pub path: PathBuf,
    pub orphan: bool,
    pub replayed: BTreeMap<String, u64>,
    /// Rows lost to a corrupt record (per run), with the reason.
    pub lost: BTreeMap<String, u64>,
    pub problem: Option<String>,
}

pub struct Spill {
    dir: PathBuf,
    segs: VecDeque<Segment>,
    /// Runs given up: their rows are skipped when read back.
    skip: BTreeSet<String>,
    created: u64,
}

impl Spill {
    /// Uses `dir` (created if missing) and takes over the spill files no live writer holds.
    /// Returns the problems found in them (torn or corrupt tails, unreadable files).
    pub fn open(dir: &Path) -> Result<(Spill, Vec<String>), String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == EXTENSION))
            .collect();
        names.sort();
        let mut spill = Spill {
            dir: dir.to_path_buf(),
            segs: VecDeque::new(),
            skip: BTreeSet::new(),
            created: 0,
        };
        let mut problems = Vec::new();
        for path in names {
            let Ok(file) = File::open(&path) else {
                continue;
            };
            if file.metadata().is_ok_and(|m| m.len() == 0) && file.try_lock().is_ok() {
                // Created by a process that stopped before it wrote the header: nothing in it.
                let _ = std::fs::remove_file(&path);
                continue;
            }
            if file.try_lock().is_err() {
                continue; // a live writer's
            }
            match scan(&path) {
                Ok(s) => {
                    if let Some(p) = s.problem {
                        problems.push(p);
                    }
                    spill.segs.push_back(Segment {
                        path,
                        file,
                        open: false,
                        end: s.end,
                        read: MAGIC.len() as u64,
                        records_read: 0,
                        per_run: s.per_run,
                        replayed: BTreeMap::new(),
                        orphan: true,
                    });
                }
                Err(e) => problems.push(e),
            }
        }
        Ok((spill, problems))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Spill files not yet written back completely.
    pub fn has_segments(&self) -> bool {
        !self.segs.is_empty()
    }

    /// Rows in spill files not yet written back (runs given up excluded).
    pub fn pending(&self) -> u64 {
        self.segs.iter().map(Segment::pending).sum()
    }

    /// Appends rows (in order, after every row already spilled) and syncs them to disk. On an
    /// error nothing of them counts as spilled.
    pub fn append(&mut self, rows: &[TelemetryRow]) -> Result<(), String> {
        if self.segs.back().is_none_or(|s| !s.open) {
            self.new_segment()?;
        }
        let Some(seg) = self.segs.back_mut() else {
            return Err("no spill file".into());
        };
        let mut buf = Vec::with_capacity(rows.len() * 128);
        for r in rows {
            encode_record(r, &mut buf);
        }
        let res = (&seg.file)
            .write_all(&buf)
            .and_then(|()| seg.file.sync_data());
        if let Err(e) = res {
            // Cut the partial record off; if that fails too, this file takes no more rows.
            if seg.file.set_len(seg.end).is_err() {
                seg.open = false;
            }
            return Err(format!("{}: {e}", seg.path.display()));
        }
        seg.end += buf.len() as u64;
        for r in rows {
            *seg.per_run.entry(r.run_id.clone()).or_default() += 1;
        }
        Ok(())
    }

    fn new_segment(&mut self) -> Result<(), String> {
        self.created += 1;
        let ms = chrono::Utc::now().timestamp_millis();
        let path = self.dir.join(format!(
            "telemetry-{}-{ms}-{}.{EXTENSION}",
            std::process::id(),
            self.created
        ));
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .read(true)
            .open(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let _ = file.try_lock();
        let res = (&file).write_all(MAGIC).and_then(|()| file.sync_all());
        if let Err(e) = res {
            drop(file);
            let _ = std::fs::remove_file(&path);
            return Err(format!("{}: {e}", path.display()));
        }
        self.segs.push_back(Segment {
            path,
            file,
            open: true,
            end: MAGIC.len() as u64,
            read: MAGIC.len() as u64,
            records_read: 0,
            per_run: BTreeMap::new(),
            replayed: BTreeMap::new(),
            orphan: false,
        });
        Ok(())
    }

    /// Reads up to `limit` rows from the oldest file (None when nothing is spilled).
    pub fn next_batch(&mut self, limit: usize) -> Option<Batch> {
        let seg = self.segs.front()?;
        let f = File::open(&seg.path).and_then(|mut f| {
            f.seek(SeekFrom::Start(seg.read))?;
            Ok(f)
        });
        let (rows, end, problem) = match f {
            Ok(f) => read_records(
                &mut BufReader::new(f),
                seg.read,
                Some(seg.end),
                limit,
                seg.records_read,
            ),
            Err(e) => (
                Vec::new(),
                seg.read,
                Some(format!("{}: {e}", seg.path.display())),
            ),
        };
        let problem = problem.map(|p| {
            if p.starts_with(&*seg.path.to_string_lossy()) {
                p
            } else {
                format!("{}: {p}", seg.path.display())
            }
        });
        let mut read = BTreeMap::new();
        for r in &rows {
            *read.entry(r.run_id.clone()).or_default() += 1;
        }
        let records = rows.len() as u64;
        let rows = rows
            .into_iter()
            .filter(|r| !self.skip.contains(&r.run_id))
            .collect();
        Some(Batch {
            rows,
            end,
            read,
            records,
            problem,
        })
    }

    /// The batch is in the database: advances past it. A file written back completely (or
    /// ending in a corrupt record) is removed and returned.
    pub fn commit(&mut self, b: Batch) -> Option<Done> {
        let seg = self.segs.front_mut()?;
        seg.read = b.end;
        seg.records_read += b.records;
        for (run, n) in b.read {
            if let Some(p) = seg.per_run.get_mut(&run) {
                *p = p.saturating_sub(n);
            }
            if !self.skip.contains(&run) {
                *seg.replayed.entry(run).or_default() += n;
            }
        }
        seg.per_run.retain(|_, n| *n > 0);
        let finished = b.problem.is_some() || seg.read >= seg.end;
        if !finished {
            return None;
        }
        let seg = self.segs.pop_front()?;
        let _ = std::fs::remove_file(&seg.path);
        let lost = if b.problem.is_some() {
            seg.per_run
        } else {
            BTreeMap::new()
        };
        Some(Done {
            path: seg.path,
            orphan: seg.orphan,
            replayed: seg.replayed,
            lost,
            problem: b.problem,
        })
    }

    /// Gives up the spilled rows of a run: they are skipped when read back. Answers how many.
    pub fn discard_run(&mut self, run_id: &str) -> u64 {
        let mut n = 0;
        for seg in &mut self.segs {
            n += seg.per_run.remove(run_id).unwrap_or(0);
        }
        if n > 0 {
            self.skip.insert(run_id.to_string());
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(run: &str, seq: i64) -> TelemetryRow {
        TelemetryRow {
            run_id: run.into(),
            seq,
            t: seq as f64 * 0.01,
            vehicle: "vut".into(),
            kind: if seq % 2 == 0 { "vut" } else { "target" }.into(),
            x: seq as f64 * 0.25,
            y: -1.75,
            yaw: 0.1,
            speed_mps: 8.3,
            steering_wheel_deg: (seq % 3 == 0).then_some(1.5),
            brake_light: [None, Some(false), Some(true)][(seq % 3) as usize],
            road_id: (seq % 2 == 0).then(|| "1".into()),
            lane_id: Some(-1),
            road_s: Some(seq as f64),
            road_t: None,
            wheel_speed_mps: Some(f64::NAN).filter(|_| seq == 7),
        }
    }

    fn tmp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "scil-spill-{tag}-{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn same(a: &TelemetryRow, b: &TelemetryRow) -> bool {
        // NaN compares by its bits.
        format!("{a:?}") == format!("{b:?}")
    }

    #[test]
    fn rows_round_trip_in_order_and_the_file_goes() {
        let dir = tmp("roundtrip");
        let (mut s, problems) = Spill::open(&dir).unwrap();
        assert!(problems.is_empty());
        let rows: Vec<_> = (0..25)
            .map(|i| row(if i < 10 { "a" } else { "b" }, i))
            .collect();
        s.append(&rows[..10]).unwrap();
        s.append(&rows[10..]).unwrap();
        assert_eq!(s.pending(), 25);
        let mut back = Vec::new();
        let mut done = None;
        while let Some(b) = s.next_batch(7) {
            back.extend(b.rows.clone());
            if let Some(d) = s.commit(b) {
                done = Some(d);
            }
        }
        assert_eq!(back.len(), 25);
        assert!(rows.iter().zip(&back).all(|(a, b)| same(a, b)));
        let done = done.expect("file written back");
        assert!(!done.path.exists());
        assert_eq!(done.replayed["a"], 10);
        assert_eq!(s.pending(), 0);
    }

    /// A file left by a process that stopped mid-write: the good records are taken over and
    /// the torn or corrupt tail is reported with its record and byte offset.
    #[test]
    fn a_torn_or_corrupt_tail_is_reported_and_the_good_rows_kept() {
        for (case, damage) in [
            ("torn", 0usize),
            ("flipped", 1),
            ("garbage-length", 2),
            ("half-header", 3),
        ] {
            let dir = tmp(case);
            {
                let (mut s, _) = Spill::open(&dir).unwrap();
                s.append(&(0..6).map(|i| row("r", i)).collect::<Vec<_>>())
                    .unwrap();
                // Dropped without writing back: a crash.
                drop(s);
            }
            let path = std::fs::read_dir(&dir)
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .path();
            let mut bytes = std::fs::read(&path).unwrap();
            let len = bytes.len();
            let mut first5 = Vec::new();
            for i in 0..5 {
                encode_record(&row("r", i), &mut first5);
            }
            let last = MAGIC.len() + first5.len();
            match damage {
                0 => bytes.truncate(len - 5),
                1 => bytes[len - 3] ^= 0x40,
                2 => bytes.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]),
                _ => bytes.extend_from_slice(&[1, 0, 0]),
            }
            std::fs::write(&path, &bytes).unwrap();
            let (mut s, problems) = Spill::open(&dir).unwrap();
            assert_eq!(problems.len(), 1, "{case}: {problems:?}");
            let p = &problems[0];
            let kept = if damage < 2 { 5 } else { 6 };
            assert!(p.contains(&format!("record {}", kept + 1)), "{case}: {p}");
            if damage < 2 {
                assert!(p.contains(&format!("at byte {last}")), "{case}: {p}");
            }
            let why = [
                "torn",
                "checksum mismatch",
                "implausible length",
                "torn: 3 of 8",
            ];
            assert!(p.contains(why[damage]), "{case}: {p}");
            assert_eq!(s.pending(), kept, "{case}");
            let b = s.next_batch(100).unwrap();
            assert_eq!(b.rows.len() as u64, kept);
            assert!(b.problem.is_none(), "{case}: the good part reads clean");
            let done = s.commit(b).expect("done");
            assert!(done.orphan && !path.exists());
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    #[test]
    fn not_a_spill_file_is_an_error_not_a_panic() {
        let dir = tmp("foreign");
        std::fs::write(dir.join("x.spill"), b"hello").unwrap();
        std::fs::write(dir.join("empty.spill"), b"").unwrap();
        let (s, problems) = Spill::open(&dir).unwrap();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("x.spill: not a scil spill file"),
            "{problems:?}"
        );
        assert_eq!(s.pending(), 0);
        assert!(
            !dir.join("empty.spill").exists(),
            "an empty file is removed"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_discarded_run_is_skipped_on_write_back() {
        let dir = tmp("discard");
        let (mut s, _) = Spill::open(&dir).unwrap();
        let rows: Vec<_> = (0..8)
            .map(|i| row(if i % 2 == 0 { "a" } else { "b" }, i))
            .collect();
        s.append(&rows).unwrap();
        assert_eq!(s.discard_run("a"), 4);
        assert_eq!(s.pending(), 4);
        let b = s.next_batch(100).unwrap();
        assert!(b.rows.iter().all(|r| r.run_id == "b") && b.rows.len() == 4);
        let d = s.commit(b).unwrap();
        assert_eq!(d.replayed.get("a"), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
