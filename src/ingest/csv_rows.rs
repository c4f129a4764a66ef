//! The CSV row splitter of the replay reader: the rows after the header, split into cells.
//!
//! Telemetry exports are almost all plain rows — numbers and commas, no quotes — and splitting
//! them through a general CSV state machine cost about 1 000 instructions a row. Here the file
//! is read in large chunks, each searched once for a `"` (`memchr`), and a row before the next
//! quote is split in one pass, 8 bytes at a time, finding `,` and `\n` at once (SWAR), in place
//! (its cells are ranges of the chunk buffer, nothing is copied). (`memchr` per cell was tried:
//! its set-up per call cost nearly as much as csv_core on cells of ~7 bytes.)
//!
//! Anything else goes to `csv_core` — the state machine the `csv` crate runs, configured as
//! [`super::csv::CsvSource`] configured its reader (`,`, `"` quoting, records end at `\n`
//! only) — from the start of that record on, so quoted cells, `""` escapes and quoted cells
//! spanning lines (and chunks) read exactly as before. The two agree on everything else too: an
//! empty line is no record, the `\r` of a CRLF line stays on the last cell, the last line needs
//! no `\n`, and the line number of a record and the byte offset are counted the way the `csv`
//! crate counts them (a record's line is the line after the previous record, so blank lines
//! before a record count to it).

use std::io::{self, Read};

/// Bytes read from the file at a time (the buffer grows for a longer row).
pub(crate) const CHUNK: usize = 1 << 17;

/// Where the current record's cells are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cells {
    /// Ranges of `buf` (a plain row split in place).
    InBuf,
    /// Ranges of `out` (a record `csv_core` read and unquoted).
    InOut,
}

use memchr::memchr;

/// What [`RowReader::split_plain`] found at `pos`.
enum Plain {
    /// A plain row of `len` bytes (and its '\n' if `nl`), split into `cells`.
    Row { len: usize, nl: bool },
    /// A quote: the record is csv_core's to read.
    Quote,
    /// The bytes read end inside the row.
    More,
}

const ONES: u64 = 0x0101_0101_0101_0101;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The top bit of each byte of `w` that equals `b` (exact: the sums never carry into the next
/// byte).
#[inline(always)]
fn eq_mask(w: u64, b: u8) -> u64 {
    let x = w ^ (ONES * u64::from(b));
    !(((x & LOW7) + LOW7) | x) & HIGH
}

/// Reads records (rows) from a byte stream.
pub(crate) struct RowReader<R> {
    rdr: R,
    /// Read but not yet consumed: `buf[pos..end]`.
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// The stream has ended (a read returned 0).
    eof: bool,
    /// No more records (`read_record` returned `Ok(false)` or an I/O error).
    done: bool,
    /// 1-based line at `pos`, as the `csv` crate counts it (one per `\n` consumed).
    line: u64,
    /// Bytes consumed from the start of the stream.
    byte: u64,
    /// The line of the current record.
    rec_line: u64,
    /// The general reader, for records with a quote.
    core: csv_core::Reader,
    out: Vec<u8>,
    ends: Vec<usize>,
    /// The current record: one (start, end) range per cell, in `buf` or `out`.
    cells: Vec<(usize, usize)>,
    cells_in: Cells,
    /// Index in `buf` of the first `"` at or after `pos` (`usize::MAX`: none in the bytes read);
    /// stale (below `pos`) once a record with a quote was read.
    quote_at: usize,
    /// A plain row (cells in `buf`) was all ASCII.
    ascii: bool,
    /// Scratch for the UTF-8 check of a non-ASCII plain row.
    scratch: Vec<u8>,
}

impl<R: Read> RowReader<R> {
    /// Continues a stream of which `byte` bytes (up to line `line`) were consumed already;
    /// `pending` are bytes read from it past that point but not consumed.
    pub(crate) fn resume(rdr: R, pending: &[u8], line: u64, byte: u64, chunk: usize) -> Self {
        let chunk = chunk.max(1);
        let mut buf = vec![0u8; chunk.max(pending.len())];
        buf[..pending.len()].copy_from_slice(pending);
        let mut core = csv_core::ReaderBuilder::new()
            .delimiter(b',')
            .quote(b'"')
            .terminator(csv_core::Terminator::Any(b'\n'))
            .build();
        // The `csv` reader strips a UTF-8 BOM at the very start of the stream only (its
        // header); a first read here marks this one as started so that a record beginning with
        // a BOM keeps it, as it did. An empty line is no record: the state stays "start".
        let _ = core.read_record(b"\n", &mut [0u8; 1], &mut [0usize; 1]);
        RowReader {
            rdr,
            buf,
            pos: 0,
            end: pending.len(),
            eof: false,
            done: false,
            line,
            byte,
            rec_line: line,
            core,
            out: vec![0u8; 1024],
            ends: vec![0usize; 64],
            cells: Vec::with_capacity(64),
            cells_in: Cells::InBuf,
            ascii: true,
            quote_at: memchr(b'"', pending).unwrap_or(usize::MAX),
            scratch: Vec::new(),
        }
    }

    /// Bytes consumed so far (the end of the last record read).
    pub(crate) fn byte_offset(&self) -> u64 {
        self.byte
    }

    /// The line the next record is counted to (as the `csv` crate's `position().line()`).
    pub(crate) fn line(&self) -> u64 {
        self.line
    }

    /// The line of the record last read.
    pub(crate) fn record_line(&self) -> u64 {
        self.rec_line
    }

    /// Cells in the record last read.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.cells.len()
    }

    /// Cell `i` of the record last read.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&[u8]> {
        let &(a, b) = self.cells.get(i)?;
        match self.cells_in {
            Cells::InBuf => self.buf.get(a..b),
            Cells::InOut => self.out.get(a..b),
        }
    }

    /// The record last read: one (start, end) range per cell, and the bytes they index.
    #[inline]
    pub(crate) fn cells(&self) -> (&[(usize, usize)], &[u8]) {
        let bytes = match self.cells_in {
            Cells::InBuf => &self.buf,
            Cells::InOut => &self.out,
        };
        (&self.cells, bytes)
    }

    /// The record's cells joined without separators is valid UTF-8 (`Ok`), or `Err` with the
    /// length of its valid prefix — the check the `csv` crate's `ByteRecord` gets.
    #[inline]
    pub(crate) fn check_utf8(&mut self) -> Result<(), usize> {
        // Noted while splitting: a plain ASCII row is valid, commas or not (the usual row,
        // answered here without a call).
        if self.cells_in == Cells::InBuf && self.ascii {
            return Ok(());
        }
        self.check_utf8_joined()
    }

    /// [`Self::check_utf8`] of a row with a quote or a non-ASCII byte.
    #[inline(never)]
    fn check_utf8_joined(&mut self) -> Result<(), usize> {
        let Some(&(_, last)) = self.cells.last() else {
            return Ok(());
        };
        let joined: &[u8] = match self.cells_in {
            Cells::InOut => self.out.get(..last).unwrap_or_default(),
            Cells::InBuf => {
                // Noted while splitting: an ASCII row is valid, commas or not.
                if self.ascii {
                    return Ok(());
                }
                self.scratch.clear();
                for &(a, b) in &self.cells {
                    self.scratch
                        .extend_from_slice(self.buf.get(a..b).unwrap_or_default());
                }
                &self.scratch
            }
        };
        if joined.is_ascii() {
            return Ok(());
        }
        std::str::from_utf8(joined)
            .map(|_| ())
            .map_err(|e| e.valid_up_to())
    }

    /// Reads the next record; `Ok(false)` at the end. An I/O error ends the stream.
    pub(crate) fn read_record(&mut self) -> io::Result<bool> {
        if self.done {
            return Ok(false);
        }
        self.rec_line = self.line;
        let r = self.read_inner();
        if !matches!(r, Ok(true)) {
            self.done = true;
        }
        r
    }

    fn read_inner(&mut self) -> io::Result<bool> {
        loop {
            // Empty lines are no record (csv_core discards a terminator at a record's start).
            while self.pos < self.end && self.buf[self.pos] == b'\n' {
                self.pos += 1;
                self.line += 1;
                self.byte += 1;
            }
            if self.pos == self.end {
                if self.eof || !self.refill()? {
                    return Ok(false);
                }
                continue;
            }
            match self.split_plain() {
                Plain::Row { len, nl } => {
                    let used = len + usize::from(nl);
                    self.pos += used;
                    self.byte += used as u64;
                    self.line += u64::from(nl);
                    self.cells_in = Cells::InBuf;
                    return Ok(true);
                }
                Plain::Quote => return self.read_general(),
                // The row goes on past the bytes read: read more (the buffer grows when the
                // row fills it) and split it again; at the end it is the last row, without
                // '\n'.
                Plain::More => {
                    self.refill()?;
                }
            }
        }
    }

    /// Splits the row at `pos` on commas, in one pass over 8 bytes at a time finding `,` and
    /// `\n` at once (and noting any non-ASCII byte on the way). Quotes were looked for once
    /// per chunk (`quote_at`): a row reaching past the next quote is not plain.
    #[inline]
    fn split_plain(&mut self) -> Plain {
        if self.quote_at < self.pos {
            self.find_quote();
        }
        let buf = &self.buf[..self.end];
        let start = self.pos;
        self.cells.clear();
        let mut a = start;
        let mut p = start;
        let mut high = 0u64;
        while let Some(word) = buf.get(p..).and_then(|b| b.first_chunk::<8>()) {
            let w = u64::from_le_bytes(*word);
            let commas = eq_mask(w, b',');
            let nls = eq_mask(w, b'\n');
            if nls == 0 {
                let mut m = commas;
                while m != 0 {
                    let i = p + (m.trailing_zeros() / 8) as usize;
                    self.cells.push((a, i));
                    a = i + 1;
                    m &= m - 1;
                }
                high |= w;
                p += 8;
                continue;
            }
            let nl = nls & nls.wrapping_neg();
            let mut m = commas & (nl - 1);
            while m != 0 {
                let i = p + (m.trailing_zeros() / 8) as usize;
                self.cells.push((a, i));
                a = i + 1;
                m &= m - 1;
            }
            let k = (nl.trailing_zeros() / 8) as usize;
            let e = p + k;
            if self.quote_at < e {
                return Plain::Quote;
            }
            self.cells.push((a, e));
            high |= w & ((1u64 << (8 * k)) - 1);
            self.ascii = high & HIGH == 0;
            return Plain::Row {
                len: e - start,
                nl: true,
            };
        }
        for (i, &b) in buf.iter().enumerate().skip(p) {
            match b {
                b',' => {
                    self.cells.push((a, i));
                    a = i + 1;
                }
                b'\n' => {
                    if self.quote_at < i {
                        return Plain::Quote;
                    }
                    self.cells.push((a, i));
                    self.ascii = high & HIGH == 0;
                    return Plain::Row {
                        len: i - start,
                        nl: true,
                    };
                }
                _ => high |= u64::from(b),
            }
        }
        if !self.eof {
            return Plain::More;
        }
        if self.quote_at < buf.len() {
            return Plain::Quote;
        }
        self.cells.push((a, buf.len()));
        self.ascii = high & HIGH == 0;
        Plain::Row {
            len: buf.len() - start,
            nl: false,
        }
    }

    /// `quote_at`: the first `"` at or after `pos` in the bytes read (`usize::MAX`: none).
    fn find_quote(&mut self) {
        self.quote_at =
            memchr(b'"', &self.buf[self.pos..self.end]).map_or(usize::MAX, |i| self.pos + i);
    }

    /// The record at `pos` through `csv_core`, reading on as long as it needs.
    fn read_general(&mut self) -> io::Result<bool> {
        use csv_core::ReadRecordResult;
        let (mut nout_all, mut nend_all) = (0usize, 0usize);
        loop {
            let before = self.core.line();
            let (res, nin, nout, nend) = self.core.read_record(
                &self.buf[self.pos..self.end],
                &mut self.out[nout_all..],
                &mut self.ends[nend_all..],
            );
            self.pos += nin;
            self.byte += nin as u64;
            self.line += self.core.line() - before;
            nout_all += nout;
            nend_all += nend;
            match res {
                ReadRecordResult::InputEmpty => {
                    if !self.eof {
                        // At the end of the stream the next call gets an empty input, which
                        // is how csv_core is told the input ended.
                        self.refill()?;
                    }
                }
                ReadRecordResult::OutputFull => {
                    let n = self.out.len().max(1) * 2;
                    self.out.resize(n, 0);
                }
                ReadRecordResult::OutputEndsFull => {
                    let n = self.ends.len().max(1) * 2;
                    self.ends.resize(n, 0);
                }
                ReadRecordResult::Record => {
                    self.cells.clear();
                    let mut a = 0;
                    for &e in &self.ends[..nend_all] {
                        self.cells.push((a, e));
                        a = e;
                    }
                    self.cells_in = Cells::InOut;
                    return Ok(true);
                }
                ReadRecordResult::End => return Ok(false),
            }
        }
    }

    /// Reads more bytes after `end`, first moving the unconsumed ones to the front (and growing
    /// the buffer when they fill it). `false` at the end of the stream.
    fn refill(&mut self) -> io::Result<bool> {
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
        if self.end == self.buf.len() {
            let n = self.buf.len() * 2;
            self.buf.resize(n, 0);
        }
        loop {
            match self.rdr.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    // The bytes may have moved: `quote_at` is found again.
                    self.find_quote();
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    self.find_quote();
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

/// A reader that keeps a copy of every byte read through it: the header is read by the `csv`
/// crate's reader, which reads ahead; the bytes it read past the header are handed to
/// [`RowReader::resume`].
pub(crate) struct Tee<R> {
    pub(crate) inner: R,
    pub(crate) seen: Vec<u8>,
}

impl<R: Read> Read for Tee<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(out)?;
        self.seen
            .extend_from_slice(out.get(..n).unwrap_or_default());
        Ok(n)
    }
}

#[cfg(test)]
#[path = "csv_rows_tests.rs"]
mod tests;
