//! The columnar form of a finished run's telemetry: one chunk per run and vehicle, every column
//! stored apart and encoded for what it holds, then deflated.
//!
//! # Why this form
//! The chunk must give back every row bit for bit (the CSV, the exports and the record's seal
//! read it), and take well under 20 bytes a sample. Parquet (even with zstd) stores a sample's
//! dozen doubles as raw 8-byte values and leaves the compressor to find their structure: about
//! 21–23 bytes a sample. Here each double column is first turned into small integers:
//! - a column whose every value is a decimal with at most 9 digits after the point (what a CSV
//!   logger writes: `20.3359`) is stored as those integers, `n / 10^k`, checked value by value
//!   to give back the very same bits;
//! - any other column is stored as the exact bit patterns of its doubles;
//!
//! and then as differences (first or second order, whichever is smaller: positions and times
//! move smoothly) in zig-zag varints, which deflate (flate2, already a dependency; no C
//! library) packs further. Nothing is rounded: a value that does not survive the decimal check
//! makes its whole column fall back to bit patterns.
//!
//! # Layout
//! A run is one blob: `SCR1`, the number of vehicles, then for each its chunk (length, bytes).
//! A vehicle's chunk, before deflate: `SCT1`, row count, the vehicle, then the columns in the order of [`TelemetryRow`]: seq, t,
//! kind (dictionary), x, y, yaw, speed, steering (optional), brake light (0 none, 1 off, 2 on),
//! road id (dictionary, 0 none), lane (optional), road s, road t, wheel speed (optional).
//! Optional columns carry a presence byte per row and values for the present rows only.

use std::io::{Read, Write};

use super::TelemetryRow;

const MAGIC: &[u8; 4] = b"SCT1";
const RUN_MAGIC: &[u8; 4] = b"SCR1";

/// A chunk that cannot be decoded (corrupt or of an unknown form).
#[derive(Debug, thiserror::Error)]
#[error("telemetry chunk: {0}")]
pub struct ChunkError(String);

fn bad(s: impl Into<String>) -> ChunkError {
    ChunkError(s.into())
}

// ---- primitives ----

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn varint(&mut self) -> Result<u64, ChunkError> {
        let mut v = 0u64;
        let mut shift = 0u32;
        loop {
            let Some(&byte) = self.b.get(self.pos) else {
                return Err(bad("truncated"));
            };
            self.pos += 1;
            if shift > 63 {
                return Err(bad("varint too long"));
            }
            v |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Ok(v);
            }
            shift += 7;
        }
    }

    fn byte(&mut self) -> Result<u8, ChunkError> {
        let b = *self.b.get(self.pos).ok_or_else(|| bad("truncated"))?;
        self.pos += 1;
        Ok(b)
    }

    fn bytes(&mut self, n: usize) -> Result<&'a [u8], ChunkError> {
        let end = self.pos.checked_add(n).ok_or_else(|| bad("truncated"))?;
        let s = self.b.get(self.pos..end).ok_or_else(|| bad("truncated"))?;
        self.pos = end;
        Ok(s)
    }

    fn string(&mut self) -> Result<String, ChunkError> {
        let n = self.len()?;
        let s = self.bytes(n)?;
        String::from_utf8(s.to_vec()).map_err(|_| bad("string not UTF-8"))
    }

    /// A count, bounded by what is left to read (a corrupt count never allocates wildly).
    fn len(&mut self) -> Result<usize, ChunkError> {
        let n = self.varint()?;
        if n > (self.b.len() as u64).saturating_mul(8) + 64 {
            return Err(bad("count out of range"));
        }
        Ok(n as usize)
    }
}

// ---- integer sequences: differences of order 0, 1 or 2, zig-zag varints ----

fn diffs(v: &[i64], order: u8) -> Vec<i64> {
    let mut cur = v.to_vec();
    for _ in 0..order {
        let mut prev = 0i64;
        for x in cur.iter_mut() {
            let d = x.wrapping_sub(prev);
            prev = *x;
            *x = d;
        }
    }
    cur
}

fn put_ints(out: &mut Vec<u8>, v: &[i64]) {
    let mut best: Option<(u8, Vec<u8>)> = None;
    for order in 0..=2u8 {
        let mut buf = Vec::with_capacity(v.len() * 2);
        for d in diffs(v, order) {
            put_varint(&mut buf, zigzag(d));
        }
        if best.as_ref().is_none_or(|(_, b)| buf.len() < b.len()) {
            best = Some((order, buf));
        }
    }
    let (order, buf) = best.unwrap_or((0, Vec::new()));
    out.push(order);
    out.extend_from_slice(&buf);
}

fn get_ints(r: &mut Reader<'_>, n: usize) -> Result<Vec<i64>, ChunkError> {
    let order = r.byte()?;
    if order > 2 {
        return Err(bad("unknown difference order"));
    }
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(unzigzag(r.varint()?));
    }
    for _ in 0..order {
        let mut acc = 0i64;
        for x in v.iter_mut() {
            acc = acc.wrapping_add(*x);
            *x = acc;
        }
    }
    Ok(v)
}

// ---- doubles ----

/// Decimal places `k` (0..=9) such that every value is exactly `n / 10^k` for an integer `n`
/// (checked bit for bit), with the integers; None: some value is not such a decimal.
fn as_decimals(v: &[f64]) -> Option<(u8, Vec<i64>)> {
    'k: for k in 0..=9u8 {
        let scale = 10f64.powi(i32::from(k));
        let mut ints = Vec::with_capacity(v.len());
        for &x in v {
            let n = (x * scale).round();
            if !n.is_finite() || n.abs() >= 9.0e15 {
                continue 'k;
            }
            let n = n as i64;
            if ((n as f64) / scale).to_bits() != x.to_bits() {
                continue 'k;
            }
            ints.push(n);
        }
        return Some((k, ints));
    }
    None
}

fn put_f64s(out: &mut Vec<u8>, v: &[f64]) {
    match as_decimals(v) {
        Some((k, ints)) => {
            out.push(k);
            put_ints(out, &ints);
        }
        None => {
            out.push(0xff);
            let bits: Vec<i64> = v.iter().map(|x| x.to_bits() as i64).collect();
            put_ints(out, &bits);
        }
    }
}

fn get_f64s(r: &mut Reader<'_>, n: usize) -> Result<Vec<f64>, ChunkError> {
    let mode = r.byte()?;
    let ints = get_ints(r, n)?;
    match mode {
        0xff => Ok(ints.into_iter().map(|b| f64::from_bits(b as u64)).collect()),
        k @ 0..=9 => {
            let scale = 10f64.powi(i32::from(k));
            Ok(ints.into_iter().map(|i| (i as f64) / scale).collect())
        }
        _ => Err(bad("unknown double encoding")),
    }
}

fn put_opt_f64s(out: &mut Vec<u8>, v: impl Iterator<Item = Option<f64>>) {
    let v: Vec<Option<f64>> = v.collect();
    out.extend(v.iter().map(|x| u8::from(x.is_some())));
    let present: Vec<f64> = v.iter().flatten().copied().collect();
    put_f64s(out, &present);
}

fn presence(r: &mut Reader<'_>, n: usize) -> Result<Vec<bool>, ChunkError> {
    let p = r.bytes(n)?;
    p.iter()
        .map(|&b| match b {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(bad("bad presence flag")),
        })
        .collect()
}

fn get_opt_f64s(r: &mut Reader<'_>, n: usize) -> Result<Vec<Option<f64>>, ChunkError> {
    let p = presence(r, n)?;
    let k = p.iter().filter(|x| **x).count();
    let mut vals = get_f64s(r, k)?.into_iter();
    p.into_iter()
        .map(|here| {
            if here {
                vals.next().map(Some).ok_or_else(|| bad("missing value"))
            } else {
                Ok(None)
            }
        })
        .collect()
}

/// A dictionary column: the distinct strings, then one index per row (0: none).
fn put_dict<'a>(out: &mut Vec<u8>, v: impl Iterator<Item = Option<&'a str>>) {
    let mut dict: Vec<&str> = Vec::new();
    let mut idx = Vec::new();
    for s in v {
        idx.push(match s {
            None => 0,
            Some(s) => match dict.iter().position(|d| *d == s) {
                Some(i) => i as i64 + 1,
                None => {
                    dict.push(s);
                    dict.len() as i64
                }
            },
        });
    }
    put_varint(out, dict.len() as u64);
    for s in &dict {
        put_str(out, s);
    }
    put_ints(out, &idx);
}

fn get_dict(r: &mut Reader<'_>, n: usize) -> Result<Vec<Option<String>>, ChunkError> {
    let k = r.len()?;
    let mut dict = Vec::with_capacity(k);
    for _ in 0..k {
        dict.push(r.string()?);
    }
    get_ints(r, n)?
        .into_iter()
        .map(|i| match i {
            0 => Ok(None),
            i => dict
                .get((i - 1) as usize)
                .cloned()
                .map(Some)
                .ok_or_else(|| bad("dictionary index out of range")),
        })
        .collect()
}

// ---- chunks ----

/// Encodes the rows of one vehicle (in `seq` order) as a deflated columnar chunk.
pub fn encode(vehicle: &str, rows: &[TelemetryRow]) -> Vec<u8> {
    let mut out = Vec::with_capacity(rows.len() * 24 + 64);
    out.extend_from_slice(MAGIC);
    put_varint(&mut out, rows.len() as u64);
    put_str(&mut out, vehicle);
    let seq: Vec<i64> = rows.iter().map(|r| r.seq).collect();
    put_ints(&mut out, &seq);
    let col = |f: fn(&TelemetryRow) -> f64| rows.iter().map(f).collect::<Vec<f64>>();
    put_f64s(&mut out, &col(|r| r.t));
    put_dict(&mut out, rows.iter().map(|r| Some(r.kind.as_str())));
    put_f64s(&mut out, &col(|r| r.x));
    put_f64s(&mut out, &col(|r| r.y));
    put_f64s(&mut out, &col(|r| r.yaw));
    put_f64s(&mut out, &col(|r| r.speed_mps));
    put_opt_f64s(&mut out, rows.iter().map(|r| r.steering_wheel_deg));
    out.extend(rows.iter().map(|r| match r.brake_light {
        None => 0u8,
        Some(false) => 1,
        Some(true) => 2,
    }));
    put_dict(&mut out, rows.iter().map(|r| r.road_id.as_deref()));
    out.extend(rows.iter().map(|r| u8::from(r.lane_id.is_some())));
    let lanes: Vec<i64> = rows
        .iter()
        .filter_map(|r| r.lane_id)
        .map(i64::from)
        .collect();
    put_ints(&mut out, &lanes);
    put_opt_f64s(&mut out, rows.iter().map(|r| r.road_s));
    put_opt_f64s(&mut out, rows.iter().map(|r| r.road_t));
    put_opt_f64s(&mut out, rows.iter().map(|r| r.wheel_speed_mps));
    let mut z = flate2::write::DeflateEncoder::new(
        Vec::with_capacity(out.len() / 3),
        flate2::Compression::best(),
    );
    // Writing to a Vec cannot fail.
    let _ = z.write_all(&out);
    z.finish().unwrap_or_default()
}

/// Decodes a chunk of run `run_id` back into its rows (in `seq` order).
pub fn decode(run_id: &str, chunk: &[u8]) -> Result<Vec<TelemetryRow>, ChunkError> {
    let mut raw = Vec::with_capacity(chunk.len() * 4);
    flate2::read::DeflateDecoder::new(chunk)
        .read_to_end(&mut raw)
        .map_err(|e| bad(format!("inflate: {e}")))?;
    let mut r = Reader { b: &raw, pos: 0 };
    if r.bytes(4)? != MAGIC {
        return Err(bad("not a telemetry chunk"));
    }
    let n = r.len()?;
    let vehicle = r.string()?;
    let seq = get_ints(&mut r, n)?;
    let t = get_f64s(&mut r, n)?;
    let kind = get_dict(&mut r, n)?;
    let x = get_f64s(&mut r, n)?;
    let y = get_f64s(&mut r, n)?;
    let yaw = get_f64s(&mut r, n)?;
    let speed = get_f64s(&mut r, n)?;
    let steer = get_opt_f64s(&mut r, n)?;
    let brake = r
        .bytes(n)?
        .iter()
        .map(|b| match b {
            0 => Ok(None),
            1 => Ok(Some(false)),
            2 => Ok(Some(true)),
            _ => Err(bad("bad brake light")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let road = get_dict(&mut r, n)?;
    let lane_here = presence(&mut r, n)?;
    let k = lane_here.iter().filter(|x| **x).count();
    let mut lanes = get_ints(&mut r, k)?.into_iter();
    let s = get_opt_f64s(&mut r, n)?;
    let tt = get_opt_f64s(&mut r, n)?;
    let wheel = get_opt_f64s(&mut r, n)?;
    if r.pos != raw.len() {
        return Err(bad("trailing bytes"));
    }
    let mut rows = Vec::with_capacity(n);
    for i in 0..n {
        let lane_id = if lane_here[i] {
            let l = lanes.next().ok_or_else(|| bad("missing lane"))?;
            Some(i32::try_from(l).map_err(|_| bad("lane out of range"))?)
        } else {
            None
        };
        rows.push(TelemetryRow {
            run_id: run_id.to_string(),
            seq: seq[i],
            t: t[i],
            vehicle: vehicle.clone(),
            kind: kind[i].clone().ok_or_else(|| bad("missing kind"))?,
            x: x[i],
            y: y[i],
            yaw: yaw[i],
            speed_mps: speed[i],
            steering_wheel_deg: steer[i],
            brake_light: brake[i],
            road_id: road[i].clone(),
            lane_id,
            road_s: s[i],
            road_t: tt[i],
            wheel_speed_mps: wheel[i],
        });
    }
    Ok(rows)
}

/// Encodes a run's rows (any order) as one blob: a chunk per vehicle, by vehicle name.
pub fn encode_run(rows: &[TelemetryRow]) -> Vec<u8> {
    let mut by_vehicle: std::collections::BTreeMap<&str, Vec<TelemetryRow>> = Default::default();
    for r in rows {
        by_vehicle
            .entry(r.vehicle.as_str())
            .or_default()
            .push(r.clone());
    }
    let mut out = Vec::new();
    out.extend_from_slice(RUN_MAGIC);
    put_varint(&mut out, by_vehicle.len() as u64);
    for (vehicle, mut v) in by_vehicle {
        v.sort_by_key(|r| r.seq);
        let c = encode(vehicle, &v);
        put_varint(&mut out, c.len() as u64);
        out.extend_from_slice(&c);
    }
    out
}

/// Decodes a run's blob into its rows, in `seq` order.
pub fn decode_run(run_id: &str, blob: &[u8]) -> Result<Vec<TelemetryRow>, ChunkError> {
    let mut r = Reader { b: blob, pos: 0 };
    if r.bytes(4)? != RUN_MAGIC {
        return Err(bad("not a run's telemetry"));
    }
    let n = r.len()?;
    let mut parts = Vec::with_capacity(n);
    for _ in 0..n {
        let len = r.len()?;
        parts.push(decode(run_id, r.bytes(len)?)?);
    }
    if r.pos != blob.len() {
        return Err(bad("trailing bytes"));
    }
    Ok(merge_by_seq(parts))
}

/// Merges lists each in `seq` order into one (a k-way merge: a run has a few vehicles).
fn merge_by_seq(parts: Vec<Vec<TelemetryRow>>) -> Vec<TelemetryRow> {
    if parts.len() == 1 {
        return parts.into_iter().next().unwrap_or_default();
    }
    let total = parts.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(total);
    let mut its: Vec<std::iter::Peekable<std::vec::IntoIter<TelemetryRow>>> = parts
        .into_iter()
        .map(|p| p.into_iter().peekable())
        .collect();
    loop {
        let mut best: Option<(usize, i64)> = None;
        for (i, it) in its.iter_mut().enumerate() {
            if let Some(r) = it.peek() {
                if best.is_none_or(|(_, s)| r.seq < s) {
                    best = Some((i, r.seq));
                }
            }
        }
        let Some((i, _)) = best else {
            return out;
        };
        if let Some(r) = its[i].next() {
            out.push(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(seq: i64, t: f64, x: f64) -> TelemetryRow {
        TelemetryRow {
            run_id: "r".into(),
            seq,
            t,
            vehicle: "vut".into(),
            kind: "vut".into(),
            x,
            y: -1.75,
            yaw: std::f64::consts::FRAC_PI_2,
            speed_mps: 30.25 / 3.6,
            steering_wheel_deg: if seq % 3 == 0 { None } else { Some(-0.2) },
            brake_light: [None, Some(false), Some(true)][(seq % 3) as usize],
            road_id: (seq % 5 != 0).then(|| format!("road{}", seq % 2)),
            lane_id: (seq % 4 != 0).then_some(-1 - (seq % 2) as i32),
            road_s: Some(x * 0.1 + 1e-9),
            road_t: (seq % 7 != 0).then_some(-0.0),
            wheel_speed_mps: Some(f64::from_bits(0x7ff8_0000_0000_0001)),
        }
    }

    #[test]
    fn chunks_round_trip_bit_for_bit() {
        let rows: Vec<TelemetryRow> = (0..1000)
            .map(|i| {
                row(
                    i * 3 + 1,
                    387000.0 + i as f64 * 0.04,
                    20.0 + i as f64 * 0.3359,
                )
            })
            .collect();
        let c = encode("vut", &rows);
        let back = decode("r", &c).expect("decode");
        assert_eq!(back.len(), rows.len());
        for (a, b) in rows.iter().zip(&back) {
            // Bitwise: NaN payloads and -0.0 survive.
            assert_eq!(format!("{a:?}"), format!("{b:?}"));
            assert_eq!(
                a.wheel_speed_mps.map(f64::to_bits),
                b.wheel_speed_mps.map(f64::to_bits)
            );
            assert_eq!(a.road_t.map(f64::to_bits), b.road_t.map(f64::to_bits));
        }
        assert!(decode("r", &encode("vut", &[])).expect("empty").is_empty());
        // A run: two vehicles interleaved by seq come back interleaved.
        let mut two = rows.clone();
        for r in &rows[..500] {
            let mut t = r.clone();
            t.vehicle = "target".into();
            t.kind = "target".into();
            t.seq += 1;
            two.push(t);
        }
        two.sort_by_key(|r| r.seq);
        let back = decode_run("r", &encode_run(&two)).expect("run");
        assert_eq!(format!("{back:?}"), format!("{two:?}"));
    }

    #[test]
    fn corrupt_chunks_are_errors_not_panics() {
        let rows: Vec<TelemetryRow> = (0..50).map(|i| row(i, i as f64, i as f64)).collect();
        let c = encode("vut", &rows);
        for cut in [0, 1, c.len() / 2, c.len() - 1] {
            assert!(decode("r", &c[..cut]).is_err());
        }
        let mut raw = Vec::new();
        flate2::read::DeflateDecoder::new(&c[..])
            .read_to_end(&mut raw)
            .unwrap();
        for i in (4..raw.len()).step_by(7) {
            let mut m = raw.clone();
            m[i] ^= 0xa5;
            let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
            z.write_all(&m).unwrap();
            let _ = decode("r", &z.finish().unwrap());
        }
    }
}
