//! Vector BLF (binary logging format) CAN logs, streamed.
//!
//! The file is a 144-byte `LOGG` header (start time as a Windows SYSTEMTIME) and `LOBJ`
//! objects; log containers (type 10) hold further objects, zlib-compressed or plain, and an
//! inner object may continue into the next container. CAN objects: CAN_MESSAGE (1),
//! CAN_MESSAGE2 (86), CAN_FD_MESSAGE (100), CAN_FD_MESSAGE_64 (101); other objects (error
//! frames, markers, statistics) are passed over. A frame's time is the header's start time plus
//! the object's timestamp (10 µs or 1 ns units).
//!
//! scil reads BLF itself: the one BLF crate on crates.io (`ablf`) reads whole containers into
//! memory per call and has no CAN FD 64 object, and the format is small enough to read here.

use std::io::Read;

use super::CanFrame;

const LOG_CONTAINER: u32 = 10;
/// Upper bound on one object (real containers are 128 KiB inflated).
const MAX_OBJECT: usize = 64 << 20;

/// Streams the CAN frames of a BLF file.
pub struct BlfReader<R: Read> {
    r: R,
    /// Inner objects' bytes (from containers), not yet parsed.
    buf: Vec<u8>,
    pos: usize,
    /// Absolute time of timestamp 0, seconds since 1970 (0 when the header has none).
    pub start_s: f64,
    /// Objects that are not CAN frames, passed over.
    pub other_objects: u64,
    /// Byte offset in the file (for messages).
    offset: u64,
    done: bool,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    b.get(at..at + 2)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
        .unwrap_or(0)
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        .unwrap_or(0)
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    if let Some(s) = b.get(at..at + 8) {
        a.copy_from_slice(s);
    }
    u64::from_le_bytes(a)
}

/// SYSTEMTIME (year, month, day-of-week, day, hour, minute, second, ms) as Unix seconds (UTC).
fn systemtime(b: &[u8]) -> Option<f64> {
    let f = |i: usize| u16_at(b, 2 * i) as u32;
    let date = chrono::NaiveDate::from_ymd_opt(f(0) as i32, f(1), f(3))?;
    let t = date.and_hms_milli_opt(f(4), f(5), f(6), f(7))?;
    Some(t.and_utc().timestamp_millis() as f64 / 1000.0)
}

impl<R: Read> BlfReader<R> {
    /// Reads the file header.
    pub fn new(mut r: R) -> Result<Self, String> {
        let mut h = [0u8; 144];
        r.read_exact(&mut h[..8])
            .map_err(|_| "too short for a BLF header".to_string())?;
        if &h[..4] != b"LOGG" {
            return Err("not a BLF file (no 'LOGG' signature)".into());
        }
        let hsize = u32_at(&h, 4) as usize;
        if !(72..=4096).contains(&hsize) {
            return Err(format!("BLF header of {hsize} bytes"));
        }
        let mut rest = vec![0u8; hsize - 8];
        r.read_exact(&mut rest)
            .map_err(|_| "BLF header is cut off".to_string())?;
        let n = rest.len().min(136);
        h[8..8 + n].copy_from_slice(&rest[..n]);
        // Start time (SYSTEMTIME) at byte 40; all zeros when the writer had none.
        let start_s = systemtime(&h[40..56]).unwrap_or(0.0);
        Ok(BlfReader {
            r,
            buf: Vec::new(),
            pos: 0,
            start_s,
            other_objects: 0,
            offset: hsize as u64,
            done: false,
        })
    }

    /// Reads the next top-level object into the buffer of inner objects; false at the end.
    fn next_container(&mut self) -> Result<bool, String> {
        let mut base = [0u8; 16];
        match read_full(&mut self.r, &mut base) {
            Ok(0) => return Ok(false),
            Ok(16) => {}
            Ok(_) => return Err(format!("object at byte {} is cut off", self.offset)),
            Err(e) => return Err(e.to_string()),
        }
        if &base[..4] != b"LOBJ" {
            return Err(format!("no 'LOBJ' object at byte {}", self.offset));
        }
        let size = u32_at(&base, 8) as usize;
        let kind = u32_at(&base, 12);
        if !(16..=MAX_OBJECT).contains(&size) {
            return Err(format!("object of {size} bytes at byte {}", self.offset));
        }
        // Read to the size given (and its padding), never allocating more than the file holds.
        let mut body = Vec::new();
        let got = (&mut self.r)
            .take((size - 16 + size % 4) as u64)
            .read_to_end(&mut body)
            .map_err(|e| e.to_string())?;
        // The padding after the last object may be missing.
        if got < size - 16 {
            return Err(format!("object at byte {} is cut off", self.offset));
        }
        self.offset += (16 + got) as u64;
        if kind != LOG_CONTAINER {
            // A top-level object outside a container.
            let mut obj = base.to_vec();
            obj.extend_from_slice(&body[..size - 16]);
            self.buf.drain(..self.pos);
            self.pos = 0;
            self.buf.extend_from_slice(&obj);
            return Ok(true);
        }
        body.truncate(size - 16);
        if body.len() < 16 {
            return Err("log container too short".into());
        }
        let method = u16_at(&body, 0);
        let plain = u32_at(&body, 8) as usize;
        let data = &body[16..];
        self.buf.drain(..self.pos);
        self.pos = 0;
        match method {
            0 => self.buf.extend_from_slice(data),
            2 => {
                if plain > MAX_OBJECT {
                    return Err(format!("log container of {plain} bytes"));
                }
                let old = self.buf.len();
                flate2::read::ZlibDecoder::new(data)
                    .take(plain as u64)
                    .read_to_end(&mut self.buf)
                    .map_err(|e| format!("log container: cannot inflate: {e}"))?;
                if self.buf.len() - old != plain {
                    return Err("log container inflated to the wrong size".into());
                }
            }
            m => return Err(format!("log container compression {m}")),
        }
        Ok(true)
    }

    /// The next CAN frame; `None` at the end.
    pub fn next_frame(&mut self) -> Option<Result<CanFrame, String>> {
        if self.done {
            return None;
        }
        let r = self.next_inner();
        if !matches!(r, Some(Ok(_))) {
            self.done = true;
        }
        r
    }

    fn next_inner(&mut self) -> Option<Result<CanFrame, String>> {
        loop {
            // An object header: signature, header size, version, object size, type.
            if self.buf.len() - self.pos < 16 {
                match self.next_container() {
                    Ok(true) => continue,
                    Ok(false) if self.buf.len() == self.pos => return None,
                    Ok(false) => return Some(Err("the last object is cut off".into())),
                    Err(e) => return Some(Err(e)),
                }
            }
            let b = &self.buf[self.pos..];
            if &b[..4] != b"LOBJ" {
                return Some(Err("no 'LOBJ' inside a log container".into()));
            }
            let hsize = u16_at(b, 4) as usize;
            let hver = u16_at(b, 6);
            let size = u32_at(b, 8) as usize;
            let kind = u32_at(b, 12);
            if size < hsize || hsize < 16 || size > MAX_OBJECT {
                return Some(Err(format!("object of {size} bytes, header {hsize}")));
            }
            let padded = if kind == 101 { size } else { size + size % 4 };
            if self.buf.len() - self.pos < size {
                match self.next_container() {
                    Ok(true) => continue,
                    Ok(false) => return Some(Err("the last object is cut off".into())),
                    Err(e) => return Some(Err(e)),
                }
            }
            let obj = &self.buf[self.pos..self.pos + size];
            self.pos = (self.pos + padded).min(self.buf.len());
            // Timestamp: header v1 flags u32, client u16, version u16, time u64; v2 the same
            // with a status byte in place of the client index.
            let (flags, ts) = match hver {
                1 | 2 => (u32_at(obj, 16), u64_at(obj, 24)),
                _ => {
                    self.other_objects += 1;
                    continue;
                }
            };
            let unit = if flags & 2 != 0 { 1e-9 } else { 1e-5 };
            let time = self.start_s + ts as f64 * unit;
            let p = &obj[hsize.min(obj.len())..];
            let frame = match kind {
                1 | 86 => can_message(p),
                100 => can_fd_message(p),
                101 => can_fd_message_64(p),
                _ => {
                    self.other_objects += 1;
                    continue;
                }
            };
            return Some(frame.map(|mut f| {
                f.time_s = Some(time);
                f
            }));
        }
    }
}

fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

fn id_of(raw: u32) -> Result<(u32, bool), String> {
    let ext = raw & 0x8000_0000 != 0;
    let id = raw & 0x1FFF_FFFF;
    if !ext && id > 0x7FF {
        return Err(format!("standard id {id:#x} out of range"));
    }
    Ok((id, ext))
}

/// CAN_MESSAGE: channel u16, flags u8, dlc u8, id u32, data[8].
fn can_message(p: &[u8]) -> Result<CanFrame, String> {
    if p.len() < 16 {
        return Err("CAN message object too short".into());
    }
    let (id, ext) = id_of(u32_at(p, 4))?;
    let remote = p[2] & 0x80 != 0;
    let n = if remote {
        0
    } else {
        (p[3] & 0x0F).min(8) as usize
    };
    let mut f = CanFrame::new(id, ext, &p[8..8 + n]);
    f.remote = remote;
    f.iface = Some(format!("can{}", u16_at(p, 0).saturating_sub(1)));
    Ok(f)
}

/// CAN_FD_MESSAGE: channel u16, flags u8, dlc u8, id u32, frame length u32, bit count u8,
/// FD flags u8 (EDL 1, BRS 2, ESI 4), valid bytes u8, 5 reserved, data[64].
fn can_fd_message(p: &[u8]) -> Result<CanFrame, String> {
    if p.len() < 84 {
        return Err("CAN FD message object too short".into());
    }
    let (id, ext) = id_of(u32_at(p, 4))?;
    let fdf = p[13];
    let n = (p[14] as usize).min(64);
    let fd = fdf & 1 != 0;
    let remote = p[2] & 0x80 != 0 && !fd;
    let n = if remote {
        0
    } else if fd {
        n
    } else {
        n.min(8)
    };
    let mut f = CanFrame::new(id, ext, &p[20..20 + n]);
    f.fd = fd;
    f.remote = remote;
    f.fd_flags = u8::from(fdf & 2 != 0) | (u8::from(fdf & 4 != 0) << 1);
    f.iface = Some(format!("can{}", u16_at(p, 0).saturating_sub(1)));
    Ok(f)
}

/// CAN_FD_MESSAGE_64: channel u8, dlc u8, valid bytes u8, tx count u8, id u32, frame length
/// u32, flags u32 (remote 0x10, EDL 0x1000, BRS 0x2000, ESI 0x4000), …, data at 40.
fn can_fd_message_64(p: &[u8]) -> Result<CanFrame, String> {
    if p.len() < 40 {
        return Err("CAN FD 64 message object too short".into());
    }
    let (id, ext) = id_of(u32_at(p, 4))?;
    let flags = u32_at(p, 12);
    let fd = flags & 0x1000 != 0;
    let remote = flags & 0x10 != 0;
    let n = if remote {
        0
    } else {
        (p[2] as usize).min(if fd { 64 } else { 8 })
    };
    let data = p
        .get(40..40 + n)
        .ok_or_else(|| "CAN FD 64 message data cut off".to_string())?;
    let mut f = CanFrame::new(id, ext, data);
    f.fd = fd;
    f.remote = remote;
    f.fd_flags = u8::from(flags & 0x2000 != 0) | (u8::from(flags & 0x4000 != 0) << 1);
    f.iface = Some(format!("can{}", (p[0] as u16).saturating_sub(1)));
    Ok(f)
}

impl<R: Read> Iterator for BlfReader<R> {
    type Item = Result<CanFrame, String>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_frame()
    }
}
