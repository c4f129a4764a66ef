//! The records of one data group, streamed: its data blocks (DT, or DZ inflated; a DL list or
//! an HL header of them) are read one at a time by offset, a DT in slices, so a large file is
//! never held whole. Records may cross block boundaries; the bytes between are carried over.

use std::io::{Read, Seek, SeekFrom};

use super::blocks::{read_expect, read_header, show, DataGroup, MdfError, MAX_CHAIN};

/// How much of a DT block is read at once.
const SLICE: usize = 1 << 20;
/// Upper bound on one DZ block inflated (asammdf and loggers write a few MiB each).
const MAX_DZ: u64 = 256 << 20;

/// A data block still to read.
#[derive(Debug, Clone, Copy)]
struct Pending {
    at: u64,
}

/// How long each record id's records are.
#[derive(Debug, Clone, Copy)]
enum RecLen {
    Fixed(usize),
    /// VLSD channel group: a u32 length, then that many bytes.
    Vlsd,
}

/// Streams the records of a data group: `next()` gives (record id, record bytes).
pub struct Records<R> {
    r: R,
    blocks: std::vec::IntoIter<Pending>,
    /// The DT block being read in slices: (next offset, bytes left).
    dt_left: Option<(u64, u64)>,
    buf: Vec<u8>,
    pos: usize,
    id_bytes: usize,
    lens: Vec<(u64, RecLen)>,
    /// Records given so far.
    pub count: u64,
}

impl<R: Read + Seek> Records<R> {
    /// Opens the data of `dg` (its block list is read here; data are read as records are asked).
    pub fn open(mut r: R, dg: &DataGroup) -> Result<Records<R>, MdfError> {
        let mut blocks = Vec::new();
        collect_blocks(&mut r, dg.data, &mut blocks, 0)?;
        let lens = dg
            .groups
            .iter()
            .map(|g| {
                (
                    g.record_id,
                    if g.is_vlsd() {
                        RecLen::Vlsd
                    } else {
                        RecLen::Fixed(g.record_bytes)
                    },
                )
            })
            .collect();
        if !matches!(dg.record_id_bytes, 0 | 1 | 2 | 4 | 8) {
            return Err(format!("record id of {} bytes", dg.record_id_bytes));
        }
        if dg.record_id_bytes == 0 && dg.groups.len() != 1 {
            return Err("a data group of several channel groups without record ids".into());
        }
        Ok(Records {
            r,
            blocks: blocks.into_iter(),
            dt_left: None,
            buf: Vec::new(),
            pos: 0,
            id_bytes: dg.record_id_bytes as usize,
            lens,
            count: 0,
        })
    }

    /// Makes at least `n` bytes available from `pos`; false at the end of the data.
    fn fill(&mut self, n: usize) -> Result<bool, MdfError> {
        while self.buf.len() - self.pos < n {
            if self.pos > 0 {
                self.buf.drain(..self.pos);
                self.pos = 0;
            }
            if let Some((at, left)) = self.dt_left {
                let take = left.min(SLICE as u64) as usize;
                self.r
                    .seek(SeekFrom::Start(at))
                    .map_err(|e| e.to_string())?;
                let old = self.buf.len();
                self.buf.resize(old + take, 0);
                self.r
                    .read_exact(&mut self.buf[old..])
                    .map_err(|_| format!("data block at {at} is cut off (file truncated?)"))?;
                let left = left - take as u64;
                self.dt_left = (left > 0).then_some((at + take as u64, left));
                continue;
            }
            let Some(p) = self.blocks.next() else {
                return Ok(false);
            };
            let (id, len, nlinks) = read_header(&mut self.r, p.at)?;
            let body = p.at + 24 + nlinks * 8;
            let size = len - 24 - nlinks * 8;
            match &id {
                b"DT" | b"RD" => self.dt_left = (size > 0).then_some((body, size)),
                b"DZ" => {
                    let data = read_dz(&mut self.r, p.at, body, size)?;
                    self.buf.extend_from_slice(&data);
                }
                other => {
                    return Err(format!(
                        "data block ##{} at {} (scil reads DT, DZ, DL, HL)",
                        show(other),
                        p.at
                    ))
                }
            }
        }
        Ok(true)
    }

    /// The next record: (record id, bytes without the id). `None` at the end.
    pub fn next_record(&mut self) -> Option<Result<(u64, &[u8]), MdfError>> {
        match self.next_span() {
            Ok(Some((id, a, b))) => Some(Ok((id, &self.buf[a..b]))),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }

    fn next_span(&mut self) -> Result<Option<(u64, usize, usize)>, MdfError> {
        if !self.fill(self.id_bytes.max(1))? {
            if self.buf.len() > self.pos {
                return Err(format!(
                    "{} stray byte(s) after the last record",
                    self.buf.len() - self.pos
                ));
            }
            return Ok(None);
        }
        let mut id = 0u64;
        for (i, b) in self.buf[self.pos..self.pos + self.id_bytes]
            .iter()
            .enumerate()
        {
            id |= (*b as u64) << (8 * i);
        }
        let len = if self.id_bytes == 0 {
            self.lens.first().map(|l| l.1)
        } else {
            self.lens.iter().find(|l| l.0 == id).map(|l| l.1)
        };
        let (a, n) = match len {
            None => {
                return Err(format!(
                    "record {} has the unknown record id {id}",
                    self.count
                ))
            }
            Some(RecLen::Fixed(n)) => (self.id_bytes, n),
            Some(RecLen::Vlsd) => {
                if !self.fill(self.id_bytes + 4)? {
                    return Err("a VLSD record is cut off".into());
                }
                let p = self.pos + self.id_bytes;
                let mut l = [0u8; 4];
                l.copy_from_slice(&self.buf[p..p + 4]);
                (self.id_bytes + 4, u32::from_le_bytes(l) as usize)
            }
        };
        if n == 0 && self.id_bytes == 0 {
            return Err("records of zero bytes".into());
        }
        if !self.fill(a + n)? {
            return Err(format!(
                "record {} is cut off (file truncated?)",
                self.count
            ));
        }
        let s = self.pos + a;
        self.pos = s + n;
        self.count += 1;
        Ok(Some((id, s, s + n)))
    }
}

/// Lists the data blocks of a DG's data link (DT/DZ itself, or a DL chain, or an HL).
fn collect_blocks<R: Read + Seek>(
    r: &mut R,
    at: u64,
    out: &mut Vec<Pending>,
    depth: u8,
) -> Result<(), MdfError> {
    if at == 0 {
        return Ok(());
    }
    let (id, _, _) = read_header(r, at)?;
    match &id {
        b"DT" | b"DZ" | b"RD" => out.push(Pending { at }),
        b"HL" if depth == 0 => {
            let hl = read_expect(r, at, "HL")?;
            collect_blocks(r, hl.link(0), out, depth + 1)?;
        }
        b"DL" => {
            let mut dl_at = at;
            let mut n = 0;
            while dl_at != 0 {
                n += 1;
                if n > MAX_CHAIN {
                    return Err("too many data lists (a loop in the file?)".into());
                }
                let dl = read_expect(r, dl_at, "DL")?;
                for &l in dl.links.iter().skip(1) {
                    if l != 0 {
                        out.push(Pending { at: l });
                    }
                }
                if out.len() > MAX_CHAIN * 16 {
                    return Err("too many data blocks (a loop in the file?)".into());
                }
                dl_at = dl.link(0);
            }
        }
        b"DV" | b"DI" | b"LD" => {
            return Err(
                "column-oriented data (MDF 4.20 DV/LD blocks): scil reads row-oriented data only"
                    .into(),
            )
        }
        other => return Err(format!("unexpected ##{} block as data", show(other))),
    }
    Ok(())
}

/// Inflates a DZ block; with transposition (zip type 1) the bytes are put back in record order.
fn read_dz<R: Read + Seek>(r: &mut R, at: u64, body: u64, size: u64) -> Result<Vec<u8>, MdfError> {
    if size < 24 {
        return Err(format!("DZ block at {at} too short"));
    }
    let mut h = [0u8; 24];
    r.seek(SeekFrom::Start(body)).map_err(|e| e.to_string())?;
    r.read_exact(&mut h)
        .map_err(|_| format!("DZ block at {at} is cut off"))?;
    let zip_type = h[2];
    let columns = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as usize;
    let org_len = u64::from_le_bytes(h[8..16].try_into().unwrap_or_default());
    let zlen = u64::from_le_bytes(h[16..24].try_into().unwrap_or_default());
    if &h[..2] != b"DT" && &h[..2] != b"SD" && &h[..2] != b"RD" {
        return Err(format!("DZ block at {at} holds ##{}", show(&h[..2])));
    }
    if org_len > MAX_DZ || zlen > MAX_DZ || zlen > size - 24 {
        return Err(format!("DZ block at {at} has a bad length"));
    }
    let mut z = Vec::new();
    r.take(zlen)
        .read_to_end(&mut z)
        .map_err(|e| format!("DZ block at {at}: {e}"))?;
    if z.len() as u64 != zlen {
        return Err(format!("DZ block at {at} is cut off (file truncated?)"));
    }
    let mut out = Vec::new();
    flate2::read::ZlibDecoder::new(&z[..])
        .take(org_len + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("DZ block at {at}: cannot inflate: {e}"))?;
    if out.len() as u64 != org_len {
        return Err(format!(
            "DZ block at {at}: inflated to {} bytes, expected {org_len}",
            out.len()
        ));
    }
    match zip_type {
        0 => Ok(out),
        1 if columns > 0 => {
            let rows = out.len() / columns;
            let mut plain = out.clone();
            for c in 0..columns {
                for row in 0..rows {
                    plain[row * columns + c] = out[c * rows + row];
                }
            }
            Ok(plain)
        }
        1 => Err(format!("DZ block at {at}: transposition of 0 columns")),
        t => Err(format!("DZ block at {at}: unknown zip type {t}")),
    }
}
