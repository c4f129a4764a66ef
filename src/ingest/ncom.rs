//! OxTS NCOM: sans-IO decoder, stream resynchroniser and encoder.
//!
//! Layout (72 bytes, little-endian, see `shared/docs/protocols.md`):
//! * batch A, bytes 1..=21 (time in the GPS minute, accelerations, angular rates, navigation
//!   status), protected by checksum 1 (byte 22);
//! * batch B, bytes 23..=60 (position, velocity, orientation), checksum 2 (byte 61) covers
//!   bytes 1..=60, i.e. batch A, checksum 1 and batch B;
//! * status channel, bytes 62..=70, checksum 3 (byte 71) covers bytes 1..=70.
//!
//! What a packet gives depends on which checksums hold (the reference decoder's rule):
//! * checksum 3 valid → everything;
//! * else checksum 2 valid → batch A and batch B, status channel dropped;
//! * else checksum 1 valid → batch A only (time, accelerations, rates, status);
//! * else the packet is rejected ([`NcomError::Checksum`]).
//!
//! The checksums are plain 8-bit sums, so a packet that fails checksum 1 but passes checksum 2 is
//! treated as rejected too: the batch-A bytes cannot be trusted without checksum 1.
//!
//! Pose gating is done by the stateful [`NcomDecoder`]: no pose before navigation status ≥ 2
//! (and only for status 2..=6, the navigation statuses proper), `locked` only for status 4, and
//! no [`InsSample`] until status channel 0 has given the GPS minute.

use crate::sample::{InsPosition, InsSample};

/// NCOM packet length.
pub const PACKET_LEN: usize = 72;
/// NCOM sync byte.
pub const SYNC: u8 = 0xE7;
/// i24 value meaning "invalid".
pub const I24_INVALID: i32 = -0x80_0000;
/// Seconds in a GPS week.
pub const SECONDS_PER_WEEK: i64 = 604_800;
/// A backwards jump of the millisecond field larger than this is a minute wrap, smaller ones are
/// out-of-order packets.
const WRAP_THRESHOLD_MS: u16 = 30_000;

/// Scale factors.
const ACC_SCALE: f64 = 1e-4;
const RATE_SCALE: f64 = 1e-5;
const VEL_SCALE: f64 = 1e-4;
const ANGLE_SCALE: f64 = 1e-6;

/// Why a packet was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NcomError {
    #[error("NCOM packet has {0} bytes, expected 72")]
    Length(usize),
    #[error("NCOM sync byte is {0:#04x}, expected 0xE7")]
    Sync(u8),
    #[error("NCOM checksum 1 (batch A) failed")]
    Checksum,
}

/// Navigation status byte meanings (subset).
pub mod nav_status {
    pub const NONE: u8 = 0;
    pub const RAW_IMU: u8 = 1;
    pub const INITIALISING: u8 = 2;
    pub const LOCKING: u8 = 3;
    pub const LOCKED: u8 = 4;
    pub const UNLOCKED: u8 = 5;
    pub const EXPIRED: u8 = 6;
    pub const STATUS_ONLY: u8 = 10;
}

/// Which checksums of a packet held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Validity {
    /// Only checksum 1: batch A.
    BatchA,
    /// Checksum 2: batch A + B.
    BatchAB,
    /// Checksum 3: the whole packet.
    Full,
}

/// Batch B: navigation solution.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NavBatch {
    pub lat_rad: f64,
    pub lon_rad: f64,
    pub alt_m: f32,
    /// North, east, down, m/s.
    pub vel_ned_mps: [Option<f64>; 3],
    /// Heading in [0, 2π) (0 = north, clockwise), pitch, roll, rad.
    pub heading_rad: Option<f64>,
    pub pitch_rad: Option<f64>,
    pub roll_rad: Option<f64>,
}

/// Decoded status channel (only the channels scil uses are decoded).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StatusChannel {
    /// Channel 0: GPS minutes since 1980-01-06 (plus the rest of the payload, unused).
    GpsTime { minutes: i32 },
    /// Channel 3: position accuracy north/east/down (m); `age_valid` = age byte < 150.
    PositionAccuracy { ned_m: [f64; 3], age: u8 },
    /// Channel 4: velocity accuracy north/east/down (m/s).
    VelocityAccuracy { ned_mps: [f64; 3], age: u8 },
    /// Channel 5: heading/pitch/roll accuracy (rad).
    OrientationAccuracy { hpr_rad: [f64; 3], age: u8 },
    /// Any other channel, raw.
    Other { channel: u8, payload: [u8; 8] },
}

impl StatusChannel {
    pub fn channel(&self) -> u8 {
        match self {
            StatusChannel::GpsTime { .. } => 0,
            StatusChannel::PositionAccuracy { .. } => 3,
            StatusChannel::VelocityAccuracy { .. } => 4,
            StatusChannel::OrientationAccuracy { .. } => 5,
            StatusChannel::Other { channel, .. } => *channel,
        }
    }

    fn decode(channel: u8, p: &[u8; 8]) -> Self {
        let u16at = |i: usize| u16::from_le_bytes([p[i], p[i + 1]]) as f64;
        match channel {
            0 => StatusChannel::GpsTime {
                minutes: i32::from_le_bytes([p[0], p[1], p[2], p[3]]),
            },
            3 => StatusChannel::PositionAccuracy {
                ned_m: [u16at(0) * 1e-3, u16at(2) * 1e-3, u16at(4) * 1e-3],
                age: p[6],
            },
            4 => StatusChannel::VelocityAccuracy {
                ned_mps: [u16at(0) * 1e-3, u16at(2) * 1e-3, u16at(4) * 1e-3],
                age: p[6],
            },
            5 => StatusChannel::OrientationAccuracy {
                hpr_rad: [u16at(0) * 1e-5, u16at(2) * 1e-5, u16at(4) * 1e-5],
                age: p[6],
            },
            _ => StatusChannel::Other {
                channel,
                payload: *p,
            },
        }
    }

    fn encode(&self) -> (u8, [u8; 8]) {
        let mut p = [0u8; 8];
        let put3 = |p: &mut [u8; 8], v: [f64; 3], scale: f64, age: u8| {
            for (i, x) in v.iter().enumerate() {
                let raw = (x / scale).round().clamp(0.0, 65535.0) as u16;
                p[2 * i..2 * i + 2].copy_from_slice(&raw.to_le_bytes());
            }
            p[6] = age;
        };
        match *self {
            StatusChannel::GpsTime { minutes } => {
                p[0..4].copy_from_slice(&minutes.to_le_bytes());
                (0, p)
            }
            StatusChannel::PositionAccuracy { ned_m, age } => {
                put3(&mut p, ned_m, 1e-3, age);
                (3, p)
            }
            StatusChannel::VelocityAccuracy { ned_mps, age } => {
                put3(&mut p, ned_mps, 1e-3, age);
                (4, p)
            }
            StatusChannel::OrientationAccuracy { hpr_rad, age } => {
                put3(&mut p, hpr_rad, 1e-5, age);
                (5, p)
            }
            StatusChannel::Other { channel, payload } => (channel, payload),
        }
    }
}

/// One NCOM packet, as far as its checksums allow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NcomPacket {
    /// Milliseconds into the current GPS minute.
    pub ms: u16,
    /// Vehicle-frame acceleration x, y, z (m/s²).
    pub accel_mps2: [Option<f64>; 3],
    /// Vehicle-frame angular rate x, y, z (rad/s, z down: positive = clockwise from above).
    pub rate_rps: [Option<f64>; 3],
    pub nav_status: u8,
    /// Batch B, present iff checksum 2 (or 3) held.
    pub nav: Option<NavBatch>,
    /// Status channel, present iff checksum 3 held.
    pub status: Option<StatusChannel>,
}

impl NcomPacket {
    pub fn validity(&self) -> Validity {
        match (self.nav.is_some(), self.status.is_some()) {
            (_, true) => Validity::Full,
            (true, false) => Validity::BatchAB,
            _ => Validity::BatchA,
        }
    }
}

fn sum(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0u8, |a, b| a.wrapping_add(*b))
}

fn get_i24(b: &[u8], off: usize) -> Option<i32> {
    let lo = b.get(off..off + 3)?;
    let raw = i32::from_le_bytes([0, lo[0], lo[1], lo[2]]) >> 8;
    (raw != I24_INVALID).then_some(raw)
}

fn scaled(b: &[u8], off: usize, scale: f64) -> Option<f64> {
    get_i24(b, off).map(|v| v as f64 * scale)
}

fn put_i24(b: &mut [u8], off: usize, v: Option<f64>, scale: f64) {
    let raw = match v {
        Some(x) if x.is_finite() => {
            let r = (x / scale).round();
            if r > -8_388_608.0 && r <= 8_388_607.0 {
                r as i32
            } else {
                I24_INVALID
            }
        }
        _ => I24_INVALID,
    };
    let bytes = raw.to_le_bytes();
    b[off..off + 3].copy_from_slice(&bytes[0..3]);
}

fn f64_at(b: &[u8], off: usize) -> f64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[off..off + 8]);
    f64::from_le_bytes(a)
}

/// Which checksums of a 72-byte buffer hold (None if checksum 1 fails).
fn checksum_level(b: &[u8; PACKET_LEN]) -> Option<Validity> {
    if sum(&b[1..=21]) != b[22] {
        return None;
    }
    if sum(&b[1..=70]) == b[71] {
        // Checksum 3 covers batch B too; require checksum 2 as well so that a packet whose
        // batch-B checksum byte alone was corrupted is not taken as fully valid.
        if sum(&b[1..=60]) == b[61] {
            return Some(Validity::Full);
        }
        return Some(Validity::BatchA);
    }
    if sum(&b[1..=60]) == b[61] {
        return Some(Validity::BatchAB);
    }
    Some(Validity::BatchA)
}

/// Decodes one datagram. Pure: no state, no panics on any input.
pub fn decode_packet(buf: &[u8]) -> Result<NcomPacket, NcomError> {
    let b: &[u8; PACKET_LEN] = buf.try_into().map_err(|_| NcomError::Length(buf.len()))?;
    if b[0] != SYNC {
        return Err(NcomError::Sync(b[0]));
    }
    let level = checksum_level(b).ok_or(NcomError::Checksum)?;
    let ms = u16::from_le_bytes([b[1], b[2]]);
    let accel_mps2 = [3, 6, 9].map(|o| scaled(b, o, ACC_SCALE));
    let rate_rps = [12, 15, 18].map(|o| scaled(b, o, RATE_SCALE));
    let nav_status = b[21];
    let nav = (level >= Validity::BatchAB).then(|| {
        let mut alt = [0u8; 4];
        alt.copy_from_slice(&b[39..43]);
        NavBatch {
            lat_rad: f64_at(b, 23),
            lon_rad: f64_at(b, 31),
            alt_m: f32::from_le_bytes(alt),
            vel_ned_mps: [43, 46, 49].map(|o| scaled(b, o, VEL_SCALE)),
            heading_rad: scaled(b, 52, ANGLE_SCALE).map(|h| {
                if h < 0.0 {
                    h + std::f64::consts::TAU
                } else {
                    h
                }
            }),
            pitch_rad: scaled(b, 55, ANGLE_SCALE),
            roll_rad: scaled(b, 58, ANGLE_SCALE),
        }
    });
    let status = (level == Validity::Full).then(|| {
        let mut p = [0u8; 8];
        p.copy_from_slice(&b[63..71]);
        StatusChannel::decode(b[62], &p)
    });
    Ok(NcomPacket {
        ms,
        accel_mps2,
        rate_rps,
        nav_status,
        nav,
        status,
    })
}

/// Encodes a packet with all three checksums valid. Values outside the i24 range and `None`s
/// become the invalid marker; headings are sent in (-π, π] like OxTS devices do. A missing batch B
/// is sent as zeros (and the receiver will still see checksum 2 valid: use `nav_status` to gate).
pub fn encode_packet(p: &NcomPacket) -> [u8; PACKET_LEN] {
    let mut b = [0u8; PACKET_LEN];
    b[0] = SYNC;
    b[1..3].copy_from_slice(&p.ms.to_le_bytes());
    for (i, o) in [3, 6, 9].into_iter().enumerate() {
        put_i24(&mut b, o, p.accel_mps2[i], ACC_SCALE);
    }
    for (i, o) in [12, 15, 18].into_iter().enumerate() {
        put_i24(&mut b, o, p.rate_rps[i], RATE_SCALE);
    }
    b[21] = p.nav_status;
    b[22] = sum(&b[1..=21]);
    if let Some(n) = &p.nav {
        b[23..31].copy_from_slice(&n.lat_rad.to_le_bytes());
        b[31..39].copy_from_slice(&n.lon_rad.to_le_bytes());
        b[39..43].copy_from_slice(&n.alt_m.to_le_bytes());
        for (i, o) in [43, 46, 49].into_iter().enumerate() {
            put_i24(&mut b, o, n.vel_ned_mps[i], VEL_SCALE);
        }
        let heading = n.heading_rad.map(|h| {
            let w = h.rem_euclid(std::f64::consts::TAU);
            if w > std::f64::consts::PI {
                w - std::f64::consts::TAU
            } else {
                w
            }
        });
        put_i24(&mut b, 52, heading, ANGLE_SCALE);
        put_i24(&mut b, 55, n.pitch_rad, ANGLE_SCALE);
        put_i24(&mut b, 58, n.roll_rad, ANGLE_SCALE);
    } else {
        for o in [43, 46, 49, 52, 55, 58] {
            put_i24(&mut b, o, None, 1.0);
        }
    }
    b[61] = sum(&b[1..=60]);
    if let Some(s) = &p.status {
        let (ch, payload) = s.encode();
        b[62] = ch;
        b[63..71].copy_from_slice(&payload);
    } else {
        b[62] = 0xFF; // unused channel number
    }
    b[71] = sum(&b[1..=70]);
    b
}

/// Byte-stream decoder (capture files, serial/TCP streams): skips one byte at a time until a sync
/// byte with a valid checksum 1 is found, then consumes 72 bytes.
#[derive(Debug, Default)]
pub struct NcomStreamDecoder {
    buf: Vec<u8>,
    start: usize,
    /// Bytes skipped while resynchronising.
    pub skipped_bytes: u64,
}

impl NcomStreamDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends received bytes.
    pub fn push(&mut self, data: &[u8]) {
        if self.start > 0 && self.start >= self.buf.len() / 2 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        self.buf.extend_from_slice(data);
    }

    /// Next complete packet, or None when more bytes are needed.
    pub fn next_packet(&mut self) -> Option<NcomPacket> {
        loop {
            let rest = self.buf.get(self.start..)?;
            if rest.len() < PACKET_LEN {
                return None;
            }
            if rest[0] == SYNC {
                if let Ok(p) = decode_packet(&rest[..PACKET_LEN]) {
                    // A partly valid candidate is taken only if no sync byte inside it starts a
                    // fully valid packet (a packet cut short by a transmission gap).
                    let cut = p.validity() != Validity::Full
                        && (1..PACKET_LEN).any(|i| {
                            rest.get(i..i + PACKET_LEN).is_some_and(|c| {
                                decode_packet(c).is_ok_and(|q| q.validity() == Validity::Full)
                            })
                        });
                    if !cut {
                        self.start += PACKET_LEN;
                        return Some(p);
                    }
                }
            }
            self.start += 1;
            self.skipped_bytes += 1;
        }
    }

    /// Bytes buffered but not yet consumed.
    pub fn pending(&self) -> usize {
        self.buf.len() - self.start
    }
}

/// A decoded navigation fix (what the stateful decoder yields).
#[derive(Debug, Clone, PartialEq)]
pub struct NcomFix {
    pub sample: InsSample,
    pub nav_status: u8,
    /// Navigation status 4.
    pub locked: bool,
    /// Full GPS time (seconds since 1980-01-06).
    pub gps_time_s: f64,
    pub vel_ned_mps: [Option<f64>; 3],
    pub pitch_rad: Option<f64>,
    pub roll_rad: Option<f64>,
}

/// Why a packet produced no sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoFix {
    /// GPS minute not yet known (status channel 0 not seen).
    TimeUnknown,
    /// Navigation status < 2 or not a navigation status.
    NotNavigating,
    /// Checksum 2 failed: only batch A.
    NoBatchB,
    /// Position, heading or velocity invalid.
    InvalidFields,
    /// The millisecond field went backwards by a little: an out-of-order packet, dropped.
    OutOfOrder,
}

/// Latest accuracies from status channels 3/4/5.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Accuracy {
    pub position_ned_m: Option<[f64; 3]>,
    pub velocity_ned_mps: Option<[f64; 3]>,
    pub orientation_hpr_rad: Option<[f64; 3]>,
}

/// Stateful decoder: GPS minute tracking, pose gating, conversion to [`InsSample`].
#[derive(Debug, Clone)]
pub struct NcomDecoder {
    pub vehicle: crate::sample::VehicleId,
    minutes: Option<i32>,
    last_ms: Option<u16>,
    pub accuracy: Accuracy,
}

impl NcomDecoder {
    pub fn new(vehicle: impl Into<crate::sample::VehicleId>) -> Self {
        Self {
            vehicle: vehicle.into(),
            minutes: None,
            last_ms: None,
            accuracy: Accuracy::default(),
        }
    }

    /// GPS minutes currently assumed.
    pub fn minutes(&self) -> Option<i32> {
        self.minutes
    }

    /// Updates time and status state from a packet and returns the fix it carries.
    pub fn handle_packet(&mut self, p: &NcomPacket) -> Result<NcomFix, NoFix> {
        // Minute tracking: a large backwards jump of ms is the minute wrap.
        // A small backwards step, or a large forward jump (a late packet from before the wrap), is
        // an out-of-order packet: dropped without touching the state, unless it carries channel 0,
        // which re-anchors the time base.
        let has_time = matches!(p.status, Some(StatusChannel::GpsTime { .. }));
        if let Some(last) = self.last_ms {
            if p.ms < last && last - p.ms > WRAP_THRESHOLD_MS {
                if let Some(m) = self.minutes.as_mut() {
                    *m = m.wrapping_add(1);
                }
            } else if (p.ms < last || p.ms - last > WRAP_THRESHOLD_MS) && !has_time {
                return Err(NoFix::OutOfOrder);
            }
        }
        self.last_ms = Some(p.ms);
        match p.status {
            Some(StatusChannel::GpsTime { minutes }) => self.minutes = Some(minutes),
            Some(StatusChannel::PositionAccuracy { ned_m, age }) if age < 150 => {
                self.accuracy.position_ned_m = Some(ned_m)
            }
            Some(StatusChannel::VelocityAccuracy { ned_mps, age }) if age < 150 => {
                self.accuracy.velocity_ned_mps = Some(ned_mps)
            }
            Some(StatusChannel::OrientationAccuracy { hpr_rad, age }) if age < 150 => {
                self.accuracy.orientation_hpr_rad = Some(hpr_rad)
            }
            _ => {}
        }
        if !(nav_status::INITIALISING..=nav_status::EXPIRED).contains(&p.nav_status) {
            return Err(NoFix::NotNavigating);
        }
        let nav = p.nav.ok_or(NoFix::NoBatchB)?;
        let minutes = self.minutes.ok_or(NoFix::TimeUnknown)?;
        let (Some(vn), Some(ve), Some(heading)) =
            (nav.vel_ned_mps[0], nav.vel_ned_mps[1], nav.heading_rad)
        else {
            return Err(NoFix::InvalidFields);
        };
        if !(nav.lat_rad.is_finite() && nav.lon_rad.is_finite())
            || nav.lat_rad.abs() > std::f64::consts::FRAC_PI_2
            || nav.lon_rad.abs() > std::f64::consts::TAU
        {
            return Err(NoFix::InvalidFields);
        }
        let whole = minutes as i64 * 60;
        let gps_time_s = whole as f64 + p.ms as f64 / 1000.0;
        let tow = whole.rem_euclid(SECONDS_PER_WEEK) as f64 + p.ms as f64 / 1000.0;
        let alt = nav.alt_m as f64;
        let sample = InsSample {
            time_s: tow,
            vehicle: self.vehicle.clone(),
            position: InsPosition::Wgs84 {
                lat_deg: nav.lat_rad.to_degrees(),
                lon_deg: nav.lon_rad.to_degrees(),
                alt_m: alt.is_finite().then_some(alt),
            },
            heading_deg: heading.to_degrees(),
            speed_mps: vn.hypot(ve),
            steering_wheel_deg: None,
            brake_light: None,
            accel_mps2: p.accel_mps2[0],
            // NCOM z is down: positive rate = clockwise; map convention is counter-clockwise.
            yaw_rate_rps: p.rate_rps[2].map(|r| -r),
            wheel_speed_mps: None,
            fcw: None,
        };
        Ok(NcomFix {
            sample,
            nav_status: p.nav_status,
            locked: p.nav_status == nav_status::LOCKED,
            gps_time_s,
            vel_ned_mps: nav.vel_ned_mps,
            pitch_rad: nav.pitch_rad,
            roll_rad: nav.roll_rad,
        })
    }
}

/// Builds a packet for an INS state (used by the simulator and tests).
#[derive(Debug, Clone, Copy)]
pub struct NcomState {
    /// GPS time since 1980-01-06 in integer milliseconds.
    pub gps_time_ms: i64,
    pub lat_deg: f64,
    pub lon_deg: f64,
    pub alt_m: f64,
    pub heading_deg: f64,
    pub speed_mps: f64,
    pub accel_mps2: Option<f64>,
    pub yaw_rate_rps: Option<f64>,
    pub nav_status: u8,
}

impl NcomState {
    /// Packet for this state carrying the given status channel.
    pub fn packet(&self, channel: u8) -> NcomPacket {
        let minutes = self.gps_time_ms.div_euclid(60_000);
        let ms = self.gps_time_ms.rem_euclid(60_000) as u16;
        let h = self.heading_deg.to_radians();
        let status = match channel {
            0 => StatusChannel::GpsTime {
                minutes: minutes as i32,
            },
            3 => StatusChannel::PositionAccuracy {
                ned_m: [0.01, 0.01, 0.02],
                age: 0,
            },
            4 => StatusChannel::VelocityAccuracy {
                ned_mps: [0.02, 0.02, 0.02],
                age: 0,
            },
            5 => StatusChannel::OrientationAccuracy {
                hpr_rad: [0.001, 0.0005, 0.0005],
                age: 0,
            },
            c => StatusChannel::Other {
                channel: c,
                payload: [0; 8],
            },
        };
        NcomPacket {
            ms,
            accel_mps2: [self.accel_mps2, Some(0.0), Some(0.0)],
            rate_rps: [Some(0.0), Some(0.0), self.yaw_rate_rps.map(|r| -r)],
            nav_status: self.nav_status,
            nav: Some(NavBatch {
                lat_rad: self.lat_deg.to_radians(),
                lon_rad: self.lon_deg.to_radians(),
                alt_m: self.alt_m as f32,
                vel_ned_mps: [
                    Some(self.speed_mps * h.cos()),
                    Some(self.speed_mps * h.sin()),
                    Some(0.0),
                ],
                heading_rad: Some(h),
                pitch_rad: Some(0.0),
                roll_rad: Some(0.0),
            }),
            status: Some(status),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(ms: i64) -> NcomState {
        NcomState {
            gps_time_ms: ms,
            lat_deg: 46.893084258,
            lon_deg: 16.839962441,
            alt_m: 212.4,
            heading_deg: 270.5,
            speed_mps: 8.4028,
            accel_mps2: Some(-1.5),
            yaw_rate_rps: Some(0.01),
            nav_status: 4,
        }
    }

    #[test]
    fn round_trip_full_packet() {
        let gps_ms = (2400i64 * 604_800 + 387_000) * 1000 + 40;
        let s = state(gps_ms);
        let bytes = encode_packet(&s.packet(0));
        let p = decode_packet(&bytes).expect("valid");
        assert_eq!(p.validity(), Validity::Full);
        let mut d = NcomDecoder::new("vut");
        let fix = d.handle_packet(&p).expect("fix");
        assert!((fix.sample.time_s - 387_000.040).abs() < 1e-9);
        assert!(fix.locked);
        let InsPosition::Wgs84 {
            lat_deg, lon_deg, ..
        } = fix.sample.position
        else {
            panic!()
        };
        assert!((lat_deg - s.lat_deg).abs() < 1e-12);
        assert!((lon_deg - s.lon_deg).abs() < 1e-12);
        assert!((fix.sample.heading_deg - 270.5).abs() < 1e-4);
        assert!((fix.sample.speed_mps - 8.4028).abs() < 2e-4);
        assert!((fix.sample.yaw_rate_rps.unwrap() - 0.01).abs() < 1e-5);
    }

    #[test]
    fn checksum_levels() {
        let s = state(1000);
        let good = encode_packet(&s.packet(0));
        // Corrupt the status channel: batch A+B remain.
        let mut b = good;
        b[65] ^= 0x10;
        let p = decode_packet(&b).unwrap();
        assert_eq!(p.validity(), Validity::BatchAB);
        assert!(p.status.is_none() && p.nav.is_some());
        // Corrupt batch B: only batch A (checksum 3 also fails).
        let mut b = good;
        b[30] ^= 0x01;
        let p = decode_packet(&b).unwrap();
        assert_eq!(p.validity(), Validity::BatchA);
        assert!(p.nav.is_none() && p.status.is_none());
        assert_eq!(p.ms, 1000);
        // Batch A corrupted: rejected.
        let mut b = good;
        b[5] ^= 0x01;
        assert_eq!(decode_packet(&b), Err(NcomError::Checksum));
        // Wrong sync, wrong length.
        let mut b = good;
        b[0] = 0;
        assert_eq!(decode_packet(&b), Err(NcomError::Sync(0)));
        assert_eq!(decode_packet(&good[..71]), Err(NcomError::Length(71)));
    }

    #[test]
    fn invalid_marker_and_negative_heading() {
        let mut p = state(0).packet(3);
        if let Some(n) = p.nav.as_mut() {
            n.heading_rad = Some(-0.5);
            n.pitch_rad = None;
        }
        let b = encode_packet(&p);
        assert_eq!(&b[55..58], &[0x00, 0x00, 0x80]);
        let d = decode_packet(&b).unwrap();
        let n = d.nav.unwrap();
        assert!(n.pitch_rad.is_none());
        assert!((n.heading_rad.unwrap() - (std::f64::consts::TAU - 0.5)).abs() < 1e-6);
    }

    #[test]
    fn gating_and_time() {
        let mut d = NcomDecoder::new("vut");
        // Status 1: no pose.
        let mut s = state(60_000 * 100 + 59_980);
        s.nav_status = 1;
        let p = decode_packet(&encode_packet(&s.packet(0))).unwrap();
        assert_eq!(d.handle_packet(&p), Err(NoFix::NotNavigating));
        assert_eq!(d.minutes(), Some(100));
        // Status 3: pose, not locked.
        s.nav_status = 3;
        s.gps_time_ms += 10;
        let fix = d
            .handle_packet(&decode_packet(&encode_packet(&s.packet(3))).unwrap())
            .unwrap();
        assert!(!fix.locked);
        assert_eq!(d.accuracy.position_ned_m, Some([0.01, 0.01, 0.02]));
        // Minute wrap before channel 0 arrives: ms 59_990 -> 0.
        s.gps_time_ms += 10;
        let fix = d
            .handle_packet(&decode_packet(&encode_packet(&s.packet(4))).unwrap())
            .unwrap();
        assert_eq!(d.minutes(), Some(101));
        assert!((fix.gps_time_s - 101.0 * 60.0).abs() < 1e-9);
        // Out of order (small step back) is dropped.
        s.gps_time_ms -= 20;
        let p = decode_packet(&encode_packet(&s.packet(5))).unwrap();
        assert_eq!(d.handle_packet(&p), Err(NoFix::OutOfOrder));
        assert_eq!(d.minutes(), Some(101));
    }

    #[test]
    fn time_unknown_before_channel_0() {
        let mut d = NcomDecoder::new("vut");
        let p = decode_packet(&encode_packet(&state(5_000).packet(3))).unwrap();
        assert_eq!(d.handle_packet(&p), Err(NoFix::TimeUnknown));
    }

    #[test]
    fn week_modulo() {
        let mut d = NcomDecoder::new("vut");
        let gps_ms = (2345i64 * 604_800 + 604_799) * 1000 + 500;
        let p = decode_packet(&encode_packet(&state(gps_ms).packet(0))).unwrap();
        let fix = d.handle_packet(&p).unwrap();
        assert!((fix.sample.time_s - 604_799.5).abs() < 1e-9);
    }

    #[test]
    fn stream_resync() {
        let mut bytes = vec![0xE7, 1, 2, 3];
        for k in 0..5 {
            bytes.extend_from_slice(&encode_packet(&state(k * 10).packet(0)));
            bytes.extend_from_slice(&[0xE7; 3]);
        }
        let mut s = NcomStreamDecoder::new();
        let mut n = 0;
        for chunk in bytes.chunks(7) {
            s.push(chunk);
            while let Some(p) = s.next_packet() {
                assert_eq!(p.validity(), Validity::Full);
                n += 1;
            }
        }
        assert_eq!(n, 5);
        assert_eq!(s.skipped_bytes, 4 + 12);
        assert_eq!(s.pending(), 3);
    }
}
