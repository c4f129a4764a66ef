//! The row splitter against the `csv` crate's reader on the same bytes: records, cells, line
//! numbers, byte offsets and the UTF-8 verdict must be the same, whatever the chunk size and
//! however the stream hands its bytes out.
use std::io::{self, Read};
use std::path::Path;

use super::*;
use crate::ingest::csv::{BadRowPolicy, CsvError, CsvSource};
use crate::sample::InsSample;

/// Hands out at most `k` bytes per read.
struct Trickle<'a> {
    data: &'a [u8],
    k: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.k.min(out.len()).min(self.data.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// One record as seen by a caller: line, cells, UTF-8 verdict, byte offset after it.
type Seen = (u64, Vec<Vec<u8>>, Result<(), usize>, u64);

fn builder() -> csv::ReaderBuilder {
    let mut b = csv::ReaderBuilder::new();
    b.has_headers(false)
        .flexible(true)
        .trim(csv::Trim::None)
        .terminator(csv::Terminator::Any(b'\n'));
    b
}

/// The `csv` crate's reader: a first record read as the header, then byte records.
fn with_csv(bytes: &[u8]) -> Option<Vec<Seen>> {
    let mut r = builder().from_reader(bytes);
    let mut header = csv::StringRecord::new();
    if !r.read_record(&mut header).ok()? {
        return None;
    }
    let mut out = Vec::new();
    let mut rec = csv::ByteRecord::new();
    while r.read_byte_record(&mut rec).ok()? {
        let line = rec.position().map(|p| p.line()).unwrap_or(0);
        let utf8 = std::str::from_utf8(rec.as_slice())
            .map(|_| ())
            .map_err(|e| e.valid_up_to());
        let cells = rec.iter().map(|c| c.to_vec()).collect();
        out.push((line, cells, utf8, r.position().byte()));
    }
    Some(out)
}

/// The same header read, then [`RowReader`] over a stream handing out `k` bytes a read.
fn with_rows(bytes: &[u8], k: usize, chunk: usize) -> Option<Vec<Seen>> {
    let mut r = builder().from_reader(Tee {
        inner: Trickle { data: bytes, k },
        seen: Vec::new(),
    });
    let mut header = csv::StringRecord::new();
    if !r.read_record(&mut header).ok()? {
        return None;
    }
    let (line, byte) = (r.position().line(), r.position().byte());
    let tee = r.into_inner();
    let mut rows = RowReader::resume(tee.inner, &tee.seen[byte as usize..], line, byte, chunk);
    let mut out = Vec::new();
    while rows.read_record().ok()? {
        let cells = (0..rows.len())
            .map(|i| rows.get(i).unwrap_or_default().to_vec())
            .collect();
        let utf8 = rows.check_utf8();
        out.push((rows.record_line(), cells, utf8, rows.byte_offset()));
    }
    assert!(!rows.read_record().ok()?, "a record after the end");
    Some(out)
}

fn same(bytes: &[u8]) {
    let want = with_csv(bytes);
    // (Not 3 bytes a read: a first read of exactly a BOM ends the `csv` crate's header read —
    // its quirk, before any row, the same with or without this splitter.)
    for (k, chunk) in [
        (1 << 20, CHUNK),
        (1, 1),
        (4, 2),
        (7, 5),
        (1 << 20, 3),
        (2, 64),
    ] {
        assert_eq!(
            with_rows(bytes, k, chunk),
            want,
            "k {k} chunk {chunk}: {:?}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn edge_cases_split_as_the_csv_crate_does() {
    let cases: &[&[u8]] = &[
        b"h,i\n1,2\n3,4\n",
        b"h,i\n1,2\n3,4",                               // last row without '\n'
        b"h,i\r\n1,2\r\n3,4\r\n",                       // CRLF: '\r' stays on the last cell
        b"h,i\n1,\"2\"\n3,4\n",                         // a quote in the middle of the file
        b"h,i\n1,\"a\nb\nc\"\n3,4\n",                   // a quoted cell over lines
        b"h,i\n1,\"a,\"\"b\"\"\"\n3,4\n",               // quoted comma and "" escapes
        b"h,i\n1,ab\"c\n3,4\n",                         // a quote inside an unquoted cell
        b"h,i\n1,\"unterminated\n3,4\n",                // an unterminated quote to the end
        b"h,i\n,,,\n3,4\n",                             // a row of only commas
        b"h,i\n\n\n1,2\n\n3,4\n\n",                     // blank lines before and after rows
        b"\n\nh,i\n1,2\n",                              // blank lines before the header
        b"h,i\n\r\n  \n1,2\n",                          // lines of only '\r' or spaces
        b"h,i\n1\n1,2,3,4\n",                           // short and long rows
        b"h,i\n1,\xff\xfe\n2,\xc3,\xa9\n3,\xc3\xa9\n",  // invalid UTF-8, split and whole
        b"h,i\n\xef\xbb\xbf1,\"2\"\n\xef\xbb\xbf3,4\n", // a BOM mid-file stays
        b"\xef\xbb\xbfh,i\n1,2\n",                      // a BOM before the header goes
        b"h,\"i\nj\"\n1,2\n",                           // a quoted header cell over lines
        b"h,i\n\"\"\n\"\n\"\n",                         // quotes alone
        b"h,i",                                         // a header only
        b"",
    ];
    for text in cases {
        same(text);
    }
}

/// Random bytes from the alphabet that matters: the splitter and the `csv` crate never differ.
#[test]
fn random_bytes_split_as_the_csv_crate_does() {
    let alphabet = b"a1,,,\"\n\n\r \xc3\xa9\xff";
    let mut next = crate::ingest::xorshift(0x2545_F491_4F6C_DD1Du64);
    for _ in 0..3000 {
        let len = (next() % 60) as usize;
        let bytes: Vec<u8> = (0..len)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect();
        same(&bytes);
    }
}

/// A rows larger than the chunk (the buffer grows) and many chunk boundaries in a long file.
#[test]
fn long_rows_and_many_chunks() {
    let mut text = String::from("a,b,c\n");
    for i in 0..2000 {
        match i % 7 {
            0 => text.push_str(&format!("{i},\"q\n{i}\",x\n")),
            1 => text.push_str(&format!("{i},{},y\r\n", "9".repeat(300))),
            _ => text.push_str(&format!("{i},{}.5,z\n", i * 3)),
        }
    }
    same(text.as_bytes());
}

type All = (Vec<Result<InsSample, CsvError>>, u64, Vec<CsvError>, u64);

fn all(text: &[u8], k: usize, chunk: usize) -> All {
    let mut s = CsvSource::from_reader_chunked(
        Path::new("t.csv"),
        Trickle { data: text, k },
        &[],
        BadRowPolicy::Skip,
        chunk,
    )
    .unwrap();
    let got: Vec<_> = s.by_ref().collect();
    (got, s.skipped, s.skipped_errors.clone(), s.byte_offset())
}

/// Through the whole source: a shared replay with a quoted row, a multi-line quoted cell and a
/// bad row in the middle gives the same samples, errors and lines at every chunk size.
#[test]
fn source_reads_the_same_at_any_chunk_size() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/replays/cpna75_30kmh.csv"
    );
    let base = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<String> = base.lines().map(str::to_string).collect();
    assert!(lines.len() > 100);
    // A quoted cell, a quoted cell spanning lines (not a number: a bad row), a junk row.
    let mut cells: Vec<String> = lines[20].split(',').map(str::to_string).collect();
    cells[1] = format!("\"{}\"", cells[1]);
    lines[20] = cells.join(",");
    lines[40] = lines[40].replacen(',', ",\"1\n2\",", 1);
    lines[60] = "x,y".to_string();
    let text = lines.join("\r\n");
    let want = all(text.as_bytes(), 1 << 20, CHUNK);
    assert_eq!(want.0.len(), lines.len() - 1 - 2);
    assert_eq!(want.1, 2, "{:?}", want.2);
    assert_eq!(want.2[0].line, 41, "{}", want.2[0]);
    assert_eq!(want.2[1].line, 62, "{}", want.2[1]);
    assert_eq!(want.3, text.len() as u64);
    for (k, chunk) in [(5, 3), (64, 17), (1, 1)] {
        assert!(
            all(text.as_bytes(), k, chunk) == want,
            "k {k} chunk {chunk}"
        );
    }
    // The quoted cell was read as a number: that row is a sample.
    let stop = CsvSource::from_reader(Path::new("t.csv"), text.as_bytes(), &[], BadRowPolicy::Stop)
        .unwrap();
    let e = stop.filter_map(Result::err).next().unwrap();
    assert_eq!(e.line, 41, "{e}");
    assert!(e.reason.contains("row has 8 fields, header has 7"), "{e}");
}
