//! MCAP out ([`McapRecorder`]) and in ([`McapSource`]) through Foxglove's `mcap` crate.
//!
//! A recording holds the [`CHANNELS`] with JSON messages and JSON Schemas; log and publish
//! times are the sample time base in nanoseconds. The VUT channel (`/scil/vut`) carries one
//! message per VUT sample in the map frame, which is what [`McapSource`] reads back.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Seek, Write};
use std::path::Path;

use anyhow::Context;
use serde_json::Value;

use super::messages::{
    ch, log_message, Encoder, Message, Snapshot, VehicleSnap, CHANNELS, MESSAGE_ENCODING,
    SCHEMA_ENCODING,
};
use crate::osi::OsiEncoder;
use crate::sample::{InsPosition, InsSample, Sample};
use crate::scenario::engine::{Engine, Output};
use crate::store::{EventRow, TelemetryRow};

/// Writes a run as MCAP. Feed it [`McapRecorder::sample`] after the engine handled each VUT
/// sample and [`McapRecorder::output`] for every engine output; [`McapRecorder::finish`] at
/// the end writes the summary (an unfinished file is still readable up to its last chunk).
pub struct McapRecorder<W: Write + Seek> {
    writer: mcap::Writer<W>,
    ids: [u16; CHANNELS.len()],
    seq: [u32; CHANNELS.len()],
    enc: Encoder,
    last_t: Option<f64>,
    samples: u64,
    /// The OSI channel ([`OSI_TOPIC`]) and its encoder, when the recording has one.
    osi: Option<(u16, u32, OsiEncoder)>,
}

/// The topic of the OSI channel: `osi3.SensorView`, protobuf, one message per VUT sample.
pub const OSI_TOPIC: &str = "/osi/sensor_view";

impl McapRecorder<BufWriter<File>> {
    /// Creates (truncates) `path`.
    pub fn create(path: &Path, enc: Encoder) -> anyhow::Result<Self> {
        let f = File::create(path).with_context(|| format!("{}: cannot create", path.display()))?;
        Self::new(BufWriter::new(f), enc)
    }
}

impl<W: Write + Seek> McapRecorder<W> {
    pub fn new(w: W, enc: Encoder) -> anyhow::Result<Self> {
        let opts = mcap::WriteOptions::new()
            .compression(None)
            .profile("")
            .library(concat!("scil ", env!("CARGO_PKG_VERSION")));
        let mut writer = opts.create(w)?;
        let mut ids = [0u16; CHANNELS.len()];
        let mut schema_ids: BTreeMap<&str, u16> = BTreeMap::new();
        for (i, c) in CHANNELS.iter().enumerate() {
            let sid = match schema_ids.get(c.schema_name) {
                Some(id) => *id,
                None => {
                    let id =
                        writer.add_schema(c.schema_name, SCHEMA_ENCODING, c.schema.as_bytes())?;
                    schema_ids.insert(c.schema_name, id);
                    id
                }
            };
            ids[i] = writer.add_channel(sid, c.topic, MESSAGE_ENCODING, &BTreeMap::new())?;
        }
        Ok(McapRecorder {
            writer,
            ids,
            seq: [0; CHANNELS.len()],
            enc,
            last_t: None,
            samples: 0,
            osi: None,
        })
    }

    /// Adds the OSI channel ([`OSI_TOPIC`], schema `osi3.SensorView` as its protobuf
    /// FileDescriptorSet): every VUT sample then also goes out as a SensorView from `osi`.
    pub fn with_osi(mut self, osi: OsiEncoder) -> anyhow::Result<Self> {
        let sid = self.writer.add_schema(
            crate::osi::MESSAGE_NAME,
            "protobuf",
            crate::osi::FILE_DESCRIPTOR_SET,
        )?;
        let cid = self
            .writer
            .add_channel(sid, OSI_TOPIC, "protobuf", &BTreeMap::new())?;
        self.osi = Some((cid, 0, osi));
        Ok(self)
    }

    /// One SensorView on the OSI channel (none without one).
    fn osi_frame(&mut self, frame: &crate::osi::Frame) -> anyhow::Result<()> {
        let Some((cid, seq, enc)) = self.osi.as_mut() else {
            return Ok(());
        };
        let data = prost::Message::encode_to_vec(&enc.sensor_view(frame));
        *seq = seq.wrapping_add(1);
        let t = super::messages::time_ns(frame.time_s);
        self.writer.write_to_known_channel(
            &mcap::records::MessageHeader {
                channel_id: *cid,
                sequence: *seq,
                log_time: t,
                publish_time: t,
            },
            &data,
        )?;
        Ok(())
    }

    /// Writes one encoded message.
    pub fn write(&mut self, m: &Message) -> anyhow::Result<()> {
        let i = m.channel.min(CHANNELS.len() - 1);
        self.seq[i] = self.seq[i].wrapping_add(1);
        self.writer.write_to_known_channel(
            &mcap::records::MessageHeader {
                channel_id: self.ids[i],
                sequence: self.seq[i],
                log_time: m.log_time_ns,
                publish_time: m.log_time_ns,
            },
            &m.data,
        )?;
        Ok(())
    }

    /// The engine's state after it handled VUT sample `s`.
    pub fn sample(&mut self, engine: &Engine, s: &Sample) -> anyhow::Result<()> {
        if let Some((_, _, osi)) = &self.osi {
            if *s.vehicle == *engine.config().vut_id {
                let frame = crate::osi::Frame::from_engine(engine, s, &osi.target_ids());
                self.osi_frame(&frame)?;
            }
        }
        self.snapshot(&Snapshot::from_engine(engine, s))
    }

    /// One VUT sample's messages (the lanes go out once, with the first sample).
    pub fn snapshot(&mut self, snap: &Snapshot) -> anyhow::Result<()> {
        if self.samples == 0 {
            if let Some(m) = self.enc.lanes_message(snap.vut.time_s) {
                self.write(&m)?;
            }
        }
        for m in self.enc.sample(snap) {
            self.write(&m)?;
        }
        self.samples += 1;
        self.last_t = Some(snap.vut.time_s);
        Ok(())
    }

    /// One engine output as a `foxglove.Log`.
    pub fn output(&mut self, o: &Output) -> anyhow::Result<()> {
        let m = self.enc.output(self.last_t.unwrap_or(0.0), o);
        self.write(&m)
    }

    /// VUT samples recorded so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Writes the summary and returns the underlying writer.
    pub fn finish(mut self) -> anyhow::Result<W> {
        self.writer.finish()?;
        Ok(self.writer.into_inner())
    }
}

/// MCAP in: the VUT channel of a scil (or compatible) recording as INS samples in the map
/// frame (`InsPosition::Local`; replay with an interface without origin shift or rotation).
pub struct McapSource {
    samples: std::vec::IntoIter<InsSample>,
}

impl McapSource {
    pub fn open(path: &Path) -> anyhow::Result<McapSource> {
        let bytes =
            std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
        let samples = read_vut_samples(&bytes).with_context(|| format!("{}", path.display()))?;
        Ok(McapSource {
            samples: samples.into_iter(),
        })
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.len() == 0
    }
}

impl Iterator for McapSource {
    type Item = anyhow::Result<InsSample>;
    fn next(&mut self) -> Option<Self::Item> {
        self.samples.next().map(Ok)
    }
}

/// True when `path` starts with the MCAP magic (`\x89MCAP0\r\n`): lets a source factory pick
/// [`McapSource`] for `scil replay FILE` without relying on the extension.
pub fn is_mcap(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 8];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|_| &magic[..] == mcap::MAGIC)
}

/// Reads every message of the VUT channel (topic `/scil/vut` or schema `scil.VutSample`),
/// ordered by log time.
pub fn read_vut_samples(bytes: &[u8]) -> anyhow::Result<Vec<InsSample>> {
    let bytes = complete_records(bytes)?;
    // Second line of defence: the reader must not take the process down on a record it
    // trips over (it has overflowed on a crafted length in debug builds).
    std::panic::catch_unwind(|| read_vut_records(bytes))
        .unwrap_or_else(|_| Err(anyhow::anyhow!("corrupt MCAP: the reader gave up")))
}

/// The file up to its last complete top-level record. Every record's length must fit in the
/// file; a recording cut short (a crash before the summary) keeps what was completely written.
fn complete_records(bytes: &[u8]) -> anyhow::Result<&[u8]> {
    let magic = mcap::MAGIC;
    if bytes.len() < magic.len() || &bytes[..magic.len()] != magic {
        anyhow::bail!("not an MCAP file (no magic)");
    }
    let mut pos = magic.len();
    while pos < bytes.len() {
        if bytes.len() - pos == magic.len() && &bytes[pos..] == magic {
            return Ok(bytes);
        }
        let Some(head) = bytes.get(pos..pos + 9) else {
            break;
        };
        let mut len = [0u8; 8];
        len.copy_from_slice(&head[1..9]);
        let len = u64::from_le_bytes(len);
        let rest = (bytes.len() - pos - 9) as u64;
        if len > rest {
            if pos == magic.len() {
                anyhow::bail!(
                    "corrupt MCAP: record at offset {pos} (opcode {:#04x}) is {len} bytes long, beyond the end of the file",
                    head[0]
                );
            }
            tracing::warn!("MCAP: record at offset {pos} cut short; reading the records before it");
            break;
        }
        pos += 9 + len as usize;
    }
    Ok(&bytes[..pos.min(bytes.len())])
}

fn read_vut_records(bytes: &[u8]) -> anyhow::Result<Vec<InsSample>> {
    let vut = &CHANNELS[ch::VUT];
    let mut out: Vec<(u64, InsSample)> = Vec::new();
    for m in mcap::MessageStream::new(bytes).context("not an MCAP file")? {
        let m = m.context("corrupt MCAP record")?;
        let is_vut = m.channel.topic == vut.topic
            || m.channel
                .schema
                .as_ref()
                .is_some_and(|s| s.name == vut.schema_name);
        if !is_vut {
            continue;
        }
        let v: Value = serde_json::from_slice(&m.data)
            .with_context(|| format!("{} message {}: not JSON", vut.topic, m.sequence))?;
        out.push((
            m.log_time,
            vut_sample(&v).with_context(|| format!("{} message {}", vut.topic, m.sequence))?,
        ));
    }
    if out.is_empty() {
        anyhow::bail!("no messages on the VUT channel {}", vut.topic);
    }
    out.sort_by_key(|(t, _)| *t);
    Ok(out.into_iter().map(|(_, s)| s).collect())
}

fn vut_sample(v: &Value) -> anyhow::Result<InsSample> {
    let num = |k: &str| -> anyhow::Result<f64> {
        v.get(k)
            .and_then(Value::as_f64)
            .filter(|x| x.is_finite())
            .ok_or_else(|| anyhow::anyhow!("field {k} missing or not a finite number"))
    };
    let opt = |k: &str| v.get(k).and_then(Value::as_f64).filter(|x| x.is_finite());
    let heading_deg = match opt("heading_deg") {
        Some(h) => h,
        None => crate::frame::yaw_to_heading(num("yaw_rad")?),
    };
    Ok(InsSample {
        time_s: num("time_s")?,
        vehicle: v
            .get("vehicle")
            .and_then(Value::as_str)
            .unwrap_or(crate::sample::VUT)
            .into(),
        position: InsPosition::Local {
            x: num("x")?,
            y: num("y")?,
        },
        heading_deg,
        speed_mps: num("speed_mps")?,
        steering_wheel_deg: opt("steering_wheel_deg"),
        brake_light: v.get("brake_light").and_then(Value::as_bool),
        accel_mps2: opt("accel_mps2"),
        yaw_rate_rps: opt("yaw_rate_rps"),
        wheel_speed_mps: opt("wheel_speed_mps"),
        fcw: v.get("fcw").and_then(Value::as_bool),
    })
}

/// An MCAP of a stored run: telemetry rows (VUT rows and the target rows at the same instant)
/// and events, in log-time order. The state channel carries speeds only (TTC is not stored).
///
/// With `osi`, the recording also has the OSI channel ([`OSI_TOPIC`]), one SensorView per
/// VUT row ([`crate::osi::Frame::from_rows`]).
pub fn mcap_from_store(
    rows: &[TelemetryRow],
    events: &[EventRow],
    enc: Encoder,
    osi: Option<OsiEncoder>,
) -> anyhow::Result<Vec<u8>> {
    let key = |t: f64| (t * 1e6).round() as i64;
    let mut targets: BTreeMap<i64, Vec<VehicleSnap>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.kind != "vut") {
        targets.entry(key(r.t)).or_default().push(VehicleSnap {
            id: r.vehicle.clone(),
            x: r.x,
            y: r.y,
            yaw_rad: r.yaw,
            speed_mps: r.speed_mps,
        });
    }
    let mut msgs: Vec<Message> = Vec::new();
    let mut first_t = None;
    for r in rows.iter().filter(|r| r.kind == "vut") {
        let snap = Snapshot {
            vut: Sample {
                time_s: r.t,
                vehicle: r.vehicle.as_str().into(),
                x: r.x,
                y: r.y,
                yaw_rad: r.yaw,
                speed_mps: r.speed_mps,
                steering_wheel_deg: r.steering_wheel_deg,
                road_wheel_deg: None,
                brake_light: r.brake_light,
                accel_mps2: None,
                yaw_rate_rps: None,
                wheel_speed_mps: None,
                fcw: None,
            },
            targets: targets.remove(&key(r.t)).unwrap_or_default(),
            status: Vec::new(),
        };
        if first_t.is_none() {
            first_t = Some(r.t);
            msgs.extend(enc.lanes_message(r.t));
        }
        msgs.extend(enc.sample(&snap));
    }
    for e in events {
        let t = e.t.or(first_t).unwrap_or(0.0);
        let level = if e.kind.contains("abort") { 4 } else { 2 };
        let text: Cow<str> = if e.payload.is_empty() {
            Cow::Borrowed(&e.kind)
        } else {
            Cow::Owned(e.payload.clone())
        };
        msgs.push(log_message(t, level, &format!("scil.{}", e.kind), &text));
    }
    msgs.sort_by_key(|m| m.log_time_ns);
    let mut rec = McapRecorder::new(std::io::Cursor::new(Vec::new()), enc)?;
    if let Some(osi) = osi {
        rec = rec.with_osi(osi)?;
        for f in crate::osi::Frame::from_rows(rows) {
            rec.osi_frame(&f)?;
        }
    }
    for m in &msgs {
        rec.write(m)?;
    }
    Ok(rec.finish()?.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert!(read_vut_samples(b"not an mcap file at all").is_err());
        assert!(read_vut_samples(&[]).is_err());
        // A valid MCAP without VUT messages.
        let rec = McapRecorder::new(std::io::Cursor::new(Vec::new()), Encoder::new(None, None))
            .expect("recorder");
        let empty = rec.finish().expect("finish").into_inner();
        let e = read_vut_samples(&empty).expect_err("no VUT messages");
        assert!(e.to_string().contains("no messages"), "{e}");
        // A VUT message without a position.
        let mut rec =
            McapRecorder::new(std::io::Cursor::new(Vec::new()), Encoder::new(None, None)).unwrap();
        rec.write(&Message {
            channel: ch::VUT,
            log_time_ns: 1,
            data: br#"{"time_s": 1.0, "speed_mps": 2.0, "yaw_rad": 0.0}"#.to_vec(),
        })
        .unwrap();
        let bytes = rec.finish().unwrap().into_inner();
        let e = read_vut_samples(&bytes).expect_err("missing x");
        assert!(format!("{e:#}").contains("field x"), "{e:#}");
        // Truncated file: the stream reports an error.
        assert!(read_vut_samples(&bytes[..bytes.len() / 2]).is_err());
    }

    #[test]
    fn detects_mcap_by_magic() {
        let dir = std::env::temp_dir().join(format!("scil-is-mcap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let m = dir.join("a.bin");
        let rec = McapRecorder::create(&m, Encoder::new(None, None)).unwrap();
        use std::io::Write as _;
        rec.finish().unwrap().flush().unwrap();
        assert!(is_mcap(&m));
        let c = dir.join("b.csv");
        std::fs::write(&c, "Time,PosX\n").unwrap();
        assert!(!is_mcap(&c));
        assert!(!is_mcap(&dir.join("missing")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
