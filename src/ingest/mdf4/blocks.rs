//! ASAM MDF 4.00–4.20 blocks: the file's metadata tree (ID, HD, DG, CG, CN, CC, TX/MD) read by
//! offset, never the whole file. Every block starts `##XX`, reserved u32, length u64, link count
//! u64, then the links (u64 file offsets, 0 = none) and the block's data, little-endian.

use std::io::{Read, Seek, SeekFrom};

/// A malformed or unsupported MDF4 file, in words.
pub type MdfError = String;

/// Upper bound on one metadata block (a CC's value table, a comment): far above real files,
/// so a corrupt length cannot make the reader allocate gigabytes.
const MAX_META_BLOCK: u64 = 16 << 20;
/// Upper bound on the blocks of one kind followed along a chain (a loop in a corrupt file).
pub(crate) const MAX_CHAIN: usize = 1 << 16;

/// One block: its id (`DG`), links and data.
#[derive(Debug)]
pub struct Block {
    pub id: [u8; 2],
    pub links: Vec<u64>,
    pub data: Vec<u8>,
}

impl Block {
    pub fn link(&self, i: usize) -> u64 {
        self.links.get(i).copied().unwrap_or(0)
    }
    pub fn u8(&self, at: usize) -> u8 {
        self.data.get(at).copied().unwrap_or(0)
    }
    pub fn u16(&self, at: usize) -> u16 {
        u16::from_le_bytes(take(&self.data, at))
    }
    pub fn u32(&self, at: usize) -> u32 {
        u32::from_le_bytes(take(&self.data, at))
    }
    pub fn u64(&self, at: usize) -> u64 {
        u64::from_le_bytes(take(&self.data, at))
    }
    pub fn f64(&self, at: usize) -> f64 {
        f64::from_le_bytes(take(&self.data, at))
    }
}

fn take<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    let mut out = [0u8; N];
    if let Some(s) = b.get(at..at + N) {
        out.copy_from_slice(s);
    }
    out
}

/// The 24-byte header of the block at `at`: (id, length, link count).
pub fn read_header<R: Read + Seek>(r: &mut R, at: u64) -> Result<([u8; 2], u64, u64), MdfError> {
    r.seek(SeekFrom::Start(at))
        .map_err(|e| format!("cannot seek to block at {at}: {e}"))?;
    let mut h = [0u8; 24];
    r.read_exact(&mut h)
        .map_err(|_| format!("block at {at} is cut off (file truncated?)"))?;
    if &h[..2] != b"##" {
        return Err(format!("no block at offset {at} (corrupt link)"));
    }
    let len = u64::from_le_bytes(take(&h, 8));
    let links = u64::from_le_bytes(take(&h, 16));
    if len < 24 || links > (len - 24) / 8 {
        return Err(format!(
            "block ##{} at {at} has a bad length",
            show(&h[2..4])
        ));
    }
    Ok(([h[2], h[3]], len, links))
}

/// Reads the whole block at `at` (metadata blocks only; data blocks are streamed).
pub fn read_block<R: Read + Seek>(r: &mut R, at: u64) -> Result<Block, MdfError> {
    let (id, len, nlinks) = read_header(r, at)?;
    if len > MAX_META_BLOCK {
        return Err(format!(
            "block ##{} at {at} is {len} bytes (too large for metadata)",
            show(&id)
        ));
    }
    // Read to the length given, never allocating more than the file holds.
    let mut body = Vec::new();
    r.take(len - 24)
        .read_to_end(&mut body)
        .map_err(|e| format!("block ##{} at {at}: {e}", show(&id)))?;
    if body.len() as u64 != len - 24 {
        return Err(format!(
            "block ##{} at {at} is cut off (file truncated?)",
            show(&id)
        ));
    }
    let nl = nlinks as usize;
    let links = body[..nl * 8]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(take(c, 0)))
        .collect();
    let data = body.split_off(nl * 8);
    Ok(Block { id, links, data })
}

/// Reads the block at `at` and checks it is a `want` block.
pub fn read_expect<R: Read + Seek>(r: &mut R, at: u64, want: &str) -> Result<Block, MdfError> {
    let b = read_block(r, at)?;
    if b.id != want.as_bytes()[..2] {
        return Err(format!(
            "expected a ##{want} block at {at}, found ##{}",
            show(&b.id)
        ));
    }
    Ok(b)
}

pub fn show(id: &[u8]) -> String {
    String::from_utf8_lossy(id).into_owned()
}

/// The text of a TX block, or the visible text of an MD block (its XML tags dropped; the
/// `<TX>` element of a comment holds the text). Empty for link 0.
pub fn read_text<R: Read + Seek>(r: &mut R, at: u64) -> Result<String, MdfError> {
    if at == 0 {
        return Ok(String::new());
    }
    let b = read_block(r, at)?;
    let end = b.data.iter().position(|c| *c == 0).unwrap_or(b.data.len());
    let s = String::from_utf8_lossy(&b.data[..end]).into_owned();
    match &b.id {
        b"TX" => Ok(s.trim().to_string()),
        b"MD" => Ok(xml_text(&s)),
        other => Err(format!(
            "expected a text block at {at}, found ##{}",
            show(other)
        )),
    }
}

/// The text inside `<TX>…</TX>` if there is one, else all text outside tags.
fn xml_text(s: &str) -> String {
    if let (Some(a), Some(b)) = (s.find("<TX>"), s.find("</TX>")) {
        if b > a {
            return s[a + 4..b].trim().to_string();
        }
    }
    let mut out = String::new();
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.trim().to_string()
}

/// A CN's data type (`cn_data_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataType {
    UintLe,
    UintBe,
    IntLe,
    IntBe,
    FloatLe,
    FloatBe,
    /// Strings, byte arrays, MIME, CANopen types: read as bytes only.
    Bytes,
}

impl DataType {
    fn of(code: u8) -> DataType {
        match code {
            0 => DataType::UintLe,
            1 => DataType::UintBe,
            2 => DataType::IntLe,
            3 => DataType::IntBe,
            4 => DataType::FloatLe,
            5 => DataType::FloatBe,
            _ => DataType::Bytes,
        }
    }
}

/// A channel conversion (`CC`) to a physical value.
#[derive(Debug, Clone, PartialEq)]
pub enum Conversion {
    Identity,
    /// p = a + b·x
    Linear(f64, f64),
    /// p = (p1·x² + p2·x + p3) / (p4·x² + p5·x + p6)
    Rational([f64; 6]),
    /// Value-to-value with (cc_type 4) or without (5) interpolation, keys ascending.
    Table {
        keys: Vec<f64>,
        values: Vec<f64>,
        interpolate: bool,
    },
    /// A conversion to text or one scil does not evaluate: named when a value is needed.
    Unsupported(u8),
}

impl Conversion {
    pub fn apply(&self, x: f64) -> Option<f64> {
        Some(match self {
            Conversion::Identity => x,
            Conversion::Linear(a, b) => a + b * x,
            Conversion::Rational(p) => {
                let d = p[3] * x * x + p[4] * x + p[5];
                (p[0] * x * x + p[1] * x + p[2]) / d
            }
            Conversion::Table {
                keys,
                values,
                interpolate,
            } => table(keys, values, *interpolate, x)?,
            Conversion::Unsupported(_) => return None,
        })
    }
}

fn table(keys: &[f64], values: &[f64], interpolate: bool, x: f64) -> Option<f64> {
    let (first, last) = (*keys.first()?, *keys.last()?);
    if x <= first {
        return values.first().copied();
    }
    if x >= last {
        return values.last().copied();
    }
    let i = keys.partition_point(|k| *k <= x);
    let (k0, k1, v0, v1) = (keys[i - 1], keys[i], values[i - 1], values[i]);
    Some(if interpolate {
        v0 + (v1 - v0) * (x - k0) / (k1 - k0)
    } else if x - k0 <= k1 - x {
        v0
    } else {
        v1
    })
}

pub fn read_conversion<R: Read + Seek>(
    r: &mut R,
    at: u64,
) -> Result<(Conversion, String), MdfError> {
    if at == 0 {
        return Ok((Conversion::Identity, String::new()));
    }
    let b = read_expect(r, at, "CC")?;
    let unit = read_text(r, b.link(1)).unwrap_or_default();
    let kind = b.u8(0);
    let nval = b.u16(6) as usize;
    let vals: Vec<f64> = (0..nval).map(|i| b.f64(24 + 8 * i)).collect();
    let conv = match kind {
        0 => Conversion::Identity,
        1 if nval >= 2 => Conversion::Linear(vals[0], vals[1]),
        2 if nval >= 6 => {
            let mut p = [0.0; 6];
            p.copy_from_slice(&vals[..6]);
            Conversion::Rational(p)
        }
        4 | 5 if nval >= 2 => {
            let keys: Vec<f64> = vals.iter().step_by(2).copied().collect();
            let values: Vec<f64> = vals.iter().skip(1).step_by(2).copied().collect();
            if keys.windows(2).any(|w| w[1] < w[0]) {
                return Err(format!("conversion at {at}: table keys not ascending"));
            }
            Conversion::Table {
                keys,
                values,
                interpolate: kind == 4,
            }
        }
        1 | 2 | 4 | 5 => return Err(format!("conversion at {at}: too few parameters")),
        k => Conversion::Unsupported(k),
    };
    Ok((conv, unit))
}

/// A channel (`CN`) as the readers need it.
#[derive(Debug, Clone)]
pub struct Channel {
    pub name: String,
    pub unit: String,
    /// 0 fixed, 1 VLSD, 2 master, 3 virtual master, 4 sync, 5 max length, 6 virtual data.
    pub cn_type: u8,
    /// 0 none, 1 time, 2 angle, 3 distance, 4 index.
    pub sync_type: u8,
    pub data_type: DataType,
    pub byte_offset: usize,
    pub bit_offset: u8,
    pub bit_count: u32,
    pub conversion: Conversion,
    /// The channels of a structure (CAN_DataFrame's ID, DLC, DataBytes, …).
    pub children: Vec<Channel>,
}

impl Channel {
    pub fn is_master(&self) -> bool {
        matches!(self.cn_type, 2 | 3)
    }

    /// The raw value in `rec` (a record without its record id) as a number.
    pub fn raw(&self, rec: &[u8]) -> Option<f64> {
        let nbytes = (self.bit_offset as usize + self.bit_count as usize).div_ceil(8);
        let b = rec.get(self.byte_offset..self.byte_offset + nbytes)?;
        Some(match self.data_type {
            DataType::FloatLe | DataType::FloatBe => {
                let le = self.data_type == DataType::FloatLe;
                match (self.bit_count, self.bit_offset) {
                    (64, 0) => {
                        let a = take::<8>(b, 0);
                        if le {
                            f64::from_le_bytes(a)
                        } else {
                            f64::from_be_bytes(a)
                        }
                    }
                    (32, 0) => {
                        let a = take::<4>(b, 0);
                        (if le {
                            f32::from_le_bytes(a)
                        } else {
                            f32::from_be_bytes(a)
                        }) as f64
                    }
                    _ => return None,
                }
            }
            DataType::UintLe | DataType::IntLe | DataType::UintBe | DataType::IntBe => {
                if self.bit_count == 0 || self.bit_count > 64 || nbytes > 9 {
                    return None;
                }
                let le = matches!(self.data_type, DataType::UintLe | DataType::IntLe);
                // Up to 9 bytes can hold 64 bits at a bit offset: assemble in u128.
                let mut v: u128 = 0;
                if le {
                    for (i, byte) in b.iter().enumerate() {
                        v |= (*byte as u128) << (8 * i);
                    }
                } else {
                    for byte in b {
                        v = (v << 8) | *byte as u128;
                    }
                }
                let v = (v >> self.bit_offset) & ((1u128 << self.bit_count) - 1);
                let signed = matches!(self.data_type, DataType::IntLe | DataType::IntBe);
                if signed && self.bit_count < 128 && v >> (self.bit_count - 1) & 1 == 1 {
                    (v as i128 - (1i128 << self.bit_count)) as f64
                } else {
                    v as f64
                }
            }
            DataType::Bytes => return None,
        })
    }

    /// The physical value in `rec`, through the channel's conversion.
    pub fn value(&self, rec: &[u8]) -> Option<f64> {
        self.conversion.apply(self.raw(rec)?)
    }

    /// The channel's bytes in `rec` (byte arrays: CAN data).
    pub fn bytes<'a>(&self, rec: &'a [u8]) -> Option<&'a [u8]> {
        rec.get(self.byte_offset..self.byte_offset + (self.bit_count as usize).div_ceil(8))
    }
}

/// Reads the chain of channels starting at `at` (and their structure members, one level).
/// Every block of the tree is read once: a block linked twice is a loop in a corrupt file.
fn first_visit(seen: &mut std::collections::HashSet<u64>, at: u64) -> Result<(), MdfError> {
    if !seen.insert(at) || seen.len() > 4 * MAX_CHAIN {
        return Err(format!(
            "block at {at} is linked twice (a loop in the file)"
        ));
    }
    Ok(())
}

fn read_channels<R: Read + Seek>(
    r: &mut R,
    mut at: u64,
    depth: u8,
    seen: &mut std::collections::HashSet<u64>,
) -> Result<Vec<Channel>, MdfError> {
    let mut out = Vec::new();
    while at != 0 {
        first_visit(seen, at)?;
        let b = read_expect(r, at, "CN")?;
        let name = read_text(r, b.link(2))?;
        let (conversion, cc_unit) = read_conversion(r, b.link(4))?;
        let unit = match read_text(r, b.link(6)) {
            Ok(u) if !u.is_empty() => u,
            _ => cc_unit,
        };
        // A composition is a structure (CN chain) or an array (CA): only structures are read.
        let comp = b.link(1);
        let children = if comp != 0 && depth < 2 {
            let (id, _, _) = read_header(r, comp)?;
            if &id == b"CN" {
                read_channels(r, comp, depth + 1, seen)?
            } else {
                Vec::new()
            }
        } else {
            Vec::new()
        };
        out.push(Channel {
            name,
            unit,
            cn_type: b.u8(0),
            sync_type: b.u8(1),
            data_type: DataType::of(b.u8(2)),
            bit_offset: b.u8(3),
            byte_offset: b.u32(4) as usize,
            bit_count: b.u32(8),
            conversion,
            children,
        });
        at = b.link(0);
    }
    Ok(out)
}

/// A channel group (`CG`): one kind of record.
#[derive(Debug, Clone)]
pub struct Group {
    pub name: String,
    pub record_id: u64,
    pub cycles: u64,
    pub flags: u16,
    /// Bytes of one record (data + invalidation bytes), record id not included.
    pub record_bytes: usize,
    pub channels: Vec<Channel>,
}

impl Group {
    /// VLSD channel group (4.10+): its records are u32 length + bytes.
    pub fn is_vlsd(&self) -> bool {
        self.flags & 1 != 0
    }
    /// Bus event (`cg_flags` bit 1): bus logging.
    pub fn is_bus_event(&self) -> bool {
        self.flags & 2 != 0
    }
    pub fn master(&self) -> Option<&Channel> {
        self.channels.iter().find(|c| c.is_master())
    }
}

/// A data group (`DG`): its groups and where its data is.
#[derive(Debug, Clone)]
pub struct DataGroup {
    pub record_id_bytes: u8,
    pub data: u64,
    pub groups: Vec<Group>,
}

/// The file's tree: start time and data groups.
#[derive(Debug, Clone)]
pub struct Tree {
    pub version: u16,
    /// `hd_start_time_ns`: absolute time of time 0 (ns since 1970, UTC).
    pub start_ns: u64,
    pub data_groups: Vec<DataGroup>,
}

/// Reads ID, HD and every DG/CG/CN (no data).
pub fn read_tree<R: Read + Seek>(r: &mut R) -> Result<Tree, MdfError> {
    r.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
    let mut id = [0u8; 64];
    r.read_exact(&mut id)
        .map_err(|_| "file too short for an MDF identification block".to_string())?;
    if &id[..8] == b"UnFinMF " {
        return Err("an unfinalised MDF4 file (the logger did not close it): finalise it with the logger's tool first".into());
    }
    if &id[..8] != b"MDF     " {
        return Err("not an MDF file (no 'MDF' identification)".into());
    }
    let version = u16::from_le_bytes(take(&id, 28));
    if !(400..=420).contains(&version) {
        return Err(format!(
            "MDF version {}.{:02}: scil reads 4.00–4.20",
            version / 100,
            version % 100
        ));
    }
    let hd = read_expect(r, 64, "HD")?;
    let start_ns = hd.u64(0);
    let mut data_groups = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut dg_at = hd.link(0);
    while dg_at != 0 {
        first_visit(&mut seen, dg_at)?;
        let dg = read_expect(r, dg_at, "DG")?;
        let mut groups = Vec::new();
        let mut cg_at = dg.link(1);
        while cg_at != 0 {
            first_visit(&mut seen, cg_at)?;
            let cg = read_expect(r, cg_at, "CG")?;
            let flags = cg.u16(16);
            let channels = if flags & 1 != 0 {
                Vec::new()
            } else {
                read_channels(r, cg.link(1), 0, &mut seen)?
            };
            groups.push(Group {
                name: read_text(r, cg.link(2)).unwrap_or_default(),
                record_id: cg.u64(0),
                cycles: cg.u64(8),
                flags,
                record_bytes: cg.u32(24) as usize + cg.u32(28) as usize,
                channels,
            });
            cg_at = cg.link(0);
        }
        data_groups.push(DataGroup {
            record_id_bytes: dg.u8(0),
            data: dg.link(2),
            groups,
        });
        dg_at = dg.link(0);
    }
    Ok(Tree {
        version,
        start_ns,
        data_groups,
    })
}
