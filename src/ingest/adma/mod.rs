//! GeneSys ADMA over ADMAnet: the UDP data stream of format versions 3.3.3, 3.3.4 and 3.3.5.
//!
//! Every packet is 856 bytes, little-endian: a 96-byte header (static: the ASCII id `GBIN`, the
//! header and format versions, the serial number; dynamic: the configuration) and 760 bytes of
//! data. Where each channel lies and how it is scaled is generated from GeneSys's own header
//! structs ([`layout`], by `tools/adma_layout.py`); [`decode_packet`] reads a packet through that
//! table and [`encode_packet`] writes one through the same table.
//!
//! scil takes the INS channels, not the raw GNSS ones: INS latitude/longitude (1e-7°), INS
//! height (0.01 m), INS yaw (0.01°, clockwise from north), horizontal INS velocity (0.005 m/s;
//! speed is its x/y magnitude), body-frame acceleration (0.0004 g) and rates (0.01 °/s) and INS
//! time (GPS week and milliseconds of week). GeneSys's body frame is x forward, y right, z down:
//! a positive z rate turns clockwise seen from above, so scil's counter-clockwise
//! `yaw_rate_rps` is its negative.

pub mod file;
pub mod layout;
pub mod udp;

use crate::sample::{InsPosition, InsSample};

/// Bytes of an ADMAnet packet (header and data).
pub const PACKET_LEN: usize = 856;
/// The GeneSys id at the start of every packet.
pub const GENESYS_ID: [u8; 4] = *b"GBIN";
/// GeneSys's default ADMAnet port.
pub const DEFAULT_PORT: u16 = 1040;
/// Standard gravity, m/s² per g.
pub const G: f64 = 9.80665;
const SECONDS_PER_WEEK: f64 = 604_800.0;

/// The integer type of a channel's raw value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Raw {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
}

impl Raw {
    fn len(self) -> usize {
        match self {
            Raw::U8 | Raw::I8 => 1,
            Raw::U16 | Raw::I16 => 2,
            Raw::U32 | Raw::I32 => 4,
        }
    }

    fn range(self) -> (i64, i64) {
        match self {
            Raw::U8 => (0, u8::MAX.into()),
            Raw::I8 => (i8::MIN.into(), i8::MAX.into()),
            Raw::U16 => (0, u16::MAX.into()),
            Raw::I16 => (i16::MIN.into(), i16::MAX.into()),
            Raw::U32 => (0, u32::MAX.into()),
            Raw::I32 => (i32::MIN.into(), i32::MAX.into()),
        }
    }
}

/// One channel: where it lies, its raw type, and the factor from raw to physical units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Channel {
    pub offset: usize,
    pub raw: Raw,
    pub scale: f64,
}

impl Channel {
    /// The raw integer, or `None` past the end of `b`.
    pub fn read_raw(&self, b: &[u8]) -> Option<i64> {
        let s = b.get(self.offset..self.offset + self.raw.len())?;
        Some(match self.raw {
            Raw::U8 => s[0].into(),
            Raw::I8 => i8::from_le_bytes([s[0]]).into(),
            Raw::U16 => u16::from_le_bytes([s[0], s[1]]).into(),
            Raw::I16 => i16::from_le_bytes([s[0], s[1]]).into(),
            Raw::U32 => u32::from_le_bytes([s[0], s[1], s[2], s[3]]).into(),
            Raw::I32 => i32::from_le_bytes([s[0], s[1], s[2], s[3]]).into(),
        })
    }

    /// The physical value (raw × scale).
    pub fn read(&self, b: &[u8]) -> Option<f64> {
        self.read_raw(b).map(|r| r as f64 * self.scale)
    }

    /// Writes a raw integer, saturated to the type's range.
    pub fn write_raw(&self, b: &mut [u8], raw: i64) {
        let (lo, hi) = self.raw.range();
        let v = raw.clamp(lo, hi);
        let n = self.raw.len();
        if let Some(s) = b.get_mut(self.offset..self.offset + n) {
            s.copy_from_slice(&v.to_le_bytes()[..n]);
        }
    }

    /// Writes a physical value, rounded to the nearest step (NaN writes 0).
    pub fn write(&self, b: &mut [u8], value: f64) {
        let raw = (value / self.scale).round();
        self.write_raw(b, if raw.is_finite() { raw as i64 } else { 0 });
    }
}

/// The channels scil reads, for one format version (generated: see [`layout`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    pub version: (u8, u8, u8),
    pub packet_len: usize,
    pub header_len: usize,
    pub genesys_id: Channel,
    pub format_version: Channel,
    pub gnss_status: Channel,
    pub signal_in_status: Channel,
    pub misc_status: Channel,
    pub kf_status: Channel,
    pub data_error1: Channel,
    pub data_error2: Channel,
    pub data_warn1: Channel,
    pub data_error3: Channel,
    pub rate_body_x: Channel,
    pub rate_body_y: Channel,
    pub rate_body_z: Channel,
    pub acc_body_x: Channel,
    pub acc_body_y: Channel,
    pub acc_body_z: Channel,
    pub ins_roll: Channel,
    pub ins_pitch: Channel,
    pub ins_yaw: Channel,
    pub ins_height: Channel,
    pub ins_time_msec: Channel,
    pub ins_time_week: Channel,
    pub leap_seconds: Channel,
    pub ins_lat_abs: Channel,
    pub ins_lon_abs: Channel,
    pub ins_vel_hor_x: Channel,
    pub ins_vel_hor_y: Channel,
    pub ins_vel_hor_z: Channel,
}

/// The format versions scil reads.
pub const LAYOUTS: [&Layout; 3] = [&layout::V3_3_3, &layout::V3_3_4, &layout::V3_3_5];

/// Why a datagram is not an ADMAnet packet scil reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AdmaError {
    #[error("too short: {0} bytes, an ADMAnet packet has 856")]
    TooShort(usize),
    #[error("other id: {0:02x?}, not GeneSys \"GBIN\"")]
    OtherId([u8; 4]),
    #[error("unknown version: ADMAnet format {0}.{1}.{2} (scil reads 3.3.3, 3.3.4 and 3.3.5)")]
    UnknownVersion(u8, u8, u8),
}

impl AdmaError {
    /// `too_short`, `other_id`, `unknown_version`: the name health counts it under.
    pub fn kind(&self) -> &'static str {
        match self {
            AdmaError::TooShort(_) => "too_short",
            AdmaError::OtherId(_) => "other_id",
            AdmaError::UnknownVersion(..) => "unknown_version",
        }
    }
}

/// The format version of the static header: four bytes, the first three major, minor and patch.
/// Each is read as a number (3) or as an ASCII digit ('3'); the fourth is not used.
pub fn format_version(b: &[u8]) -> Option<(u8, u8, u8)> {
    let at = layout::V3_3_3.format_version.offset;
    let v = b.get(at..at + 3)?;
    let digit = |x: u8| if x.is_ascii_digit() { x - b'0' } else { x };
    Some((digit(v[0]), digit(v[1]), digit(v[2])))
}

/// The layout of a packet's version, after checking its length and id.
pub fn layout_of(b: &[u8]) -> Result<&'static Layout, AdmaError> {
    if b.len() < PACKET_LEN {
        return Err(AdmaError::TooShort(b.len()));
    }
    let id = [b[0], b[1], b[2], b[3]];
    if id != GENESYS_ID {
        return Err(AdmaError::OtherId(id));
    }
    let v = format_version(b).ok_or(AdmaError::TooShort(b.len()))?;
    LAYOUTS
        .iter()
        .copied()
        .find(|l| l.version == v)
        .ok_or(AdmaError::UnknownVersion(v.0, v.1, v.2))
}

/// GNSS mode of the GNSS status byte (bits 0–3, one of them set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GnssMode {
    Out,
    Single,
    RtkCoarse,
    RtkPrecise,
    Unknown,
}

/// The data of one packet, in physical units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdmaPacket {
    pub version: (u8, u8, u8),
    pub gnss_status: u8,
    pub signal_in_status: u8,
    pub misc_status: u8,
    pub kf_status: u8,
    /// Error byte 1, error byte 2, warning byte 1, error byte 3.
    pub errors: [u8; 4],
    /// Body rates x, y, z, °/s (z down: positive turns clockwise).
    pub rate_body_dps: [f64; 3],
    /// Body acceleration x, y, z, g.
    pub acc_body_g: [f64; 3],
    pub roll_deg: f64,
    pub pitch_deg: f64,
    /// Yaw, 0–360° clockwise from north.
    pub yaw_deg: f64,
    pub height_m: f64,
    pub week: u16,
    pub msec: u32,
    /// GPS − UTC, s, as the unit reports it.
    pub leap_seconds: i16,
    pub lat_deg: f64,
    pub lon_deg: f64,
    /// Horizontal velocity: x along the heading, y to the right, z down, m/s.
    pub vel_hor_mps: [f64; 3],
}

/// Error bits of the error and warning bytes, as GeneSys's parser names them.
const ERROR_BITS: [(usize, u8, &str); 15] = [
    (0, 0, "gyro hardware"),
    (0, 1, "accelerometer hardware"),
    (0, 2, "external speed hardware"),
    (0, 3, "GNSS hardware"),
    (0, 4, "data bus checksum"),
    (0, 5, "EEPROM"),
    (0, 6, "transmit"),
    (0, 7, "command"),
    (1, 0, "data bus"),
    (1, 1, "CAN bus"),
    (1, 3, "numeric"),
    (1, 5, "reduced accuracy"),
    (1, 6, "range maximum"),
    (3, 0, "hardware (sticky)"),
    (2, 0, "GNSS: no solution"),
];

impl AdmaPacket {
    pub fn gnss_mode(&self) -> GnssMode {
        let s = self.gnss_status;
        if s & 1 != 0 {
            GnssMode::Out
        } else if s & 8 != 0 {
            GnssMode::RtkPrecise
        } else if s & 4 != 0 {
            GnssMode::RtkCoarse
        } else if s & 2 != 0 {
            GnssMode::Single
        } else {
            GnssMode::Unknown
        }
    }

    /// Kalman filter settled (KF status bit 0).
    pub fn kf_settled(&self) -> bool {
        self.kf_status & 1 != 0
    }

    /// The errors the unit reports, by name (empty: none).
    pub fn errors(&self) -> Vec<&'static str> {
        ERROR_BITS
            .iter()
            .filter(|(byte, bit, _)| self.errors[*byte] >> bit & 1 != 0)
            .map(|(_, _, name)| *name)
            .collect()
    }

    /// GPS seconds of week (the replays' time base).
    pub fn time_of_week_s(&self) -> f64 {
        f64::from(self.msec) / 1000.0
    }

    /// Seconds since the GPS epoch.
    pub fn gps_time_s(&self) -> f64 {
        f64::from(self.week) * SECONDS_PER_WEEK + self.time_of_week_s()
    }
}

/// Reads a packet (its version told by its header).
pub fn decode_packet(b: &[u8]) -> Result<AdmaPacket, AdmaError> {
    let l = layout_of(b)?;
    // Every channel lies inside the 856 bytes checked above; 0 cannot be read.
    let f = |c: &Channel| c.read(b).unwrap_or(0.0);
    let u = |c: &Channel| c.read_raw(b).unwrap_or(0);
    Ok(AdmaPacket {
        version: l.version,
        gnss_status: u(&l.gnss_status) as u8,
        signal_in_status: u(&l.signal_in_status) as u8,
        misc_status: u(&l.misc_status) as u8,
        kf_status: u(&l.kf_status) as u8,
        errors: [
            u(&l.data_error1) as u8,
            u(&l.data_error2) as u8,
            u(&l.data_warn1) as u8,
            u(&l.data_error3) as u8,
        ],
        rate_body_dps: [f(&l.rate_body_x), f(&l.rate_body_y), f(&l.rate_body_z)],
        acc_body_g: [f(&l.acc_body_x), f(&l.acc_body_y), f(&l.acc_body_z)],
        roll_deg: f(&l.ins_roll),
        pitch_deg: f(&l.ins_pitch),
        yaw_deg: f(&l.ins_yaw),
        height_m: f(&l.ins_height),
        week: u(&l.ins_time_week) as u16,
        msec: u(&l.ins_time_msec) as u32,
        leap_seconds: u(&l.leap_seconds) as i16,
        lat_deg: f(&l.ins_lat_abs),
        lon_deg: f(&l.ins_lon_abs),
        vel_hor_mps: [
            f(&l.ins_vel_hor_x),
            f(&l.ins_vel_hor_y),
            f(&l.ins_vel_hor_z),
        ],
    })
}

/// Writes a packet of `l`'s version; channels scil does not read are zero.
pub fn encode_packet(p: &AdmaPacket, l: &Layout) -> Vec<u8> {
    let mut b = vec![0u8; l.packet_len];
    b[..4].copy_from_slice(&GENESYS_ID);
    let at = l.format_version.offset;
    b[at..at + 3].copy_from_slice(&[l.version.0, l.version.1, l.version.2]);
    let raw = |c: &Channel, b: &mut [u8], v: u8| c.write_raw(b, v.into());
    raw(&l.gnss_status, &mut b, p.gnss_status);
    raw(&l.signal_in_status, &mut b, p.signal_in_status);
    raw(&l.misc_status, &mut b, p.misc_status);
    raw(&l.kf_status, &mut b, p.kf_status);
    raw(&l.data_error1, &mut b, p.errors[0]);
    raw(&l.data_error2, &mut b, p.errors[1]);
    raw(&l.data_warn1, &mut b, p.errors[2]);
    raw(&l.data_error3, &mut b, p.errors[3]);
    for (c, v) in [
        (&l.rate_body_x, p.rate_body_dps[0]),
        (&l.rate_body_y, p.rate_body_dps[1]),
        (&l.rate_body_z, p.rate_body_dps[2]),
        (&l.acc_body_x, p.acc_body_g[0]),
        (&l.acc_body_y, p.acc_body_g[1]),
        (&l.acc_body_z, p.acc_body_g[2]),
        (&l.ins_roll, p.roll_deg),
        (&l.ins_pitch, p.pitch_deg),
        (&l.ins_yaw, p.yaw_deg.rem_euclid(360.0)),
        (&l.ins_height, p.height_m),
        (&l.ins_lat_abs, p.lat_deg),
        (&l.ins_lon_abs, p.lon_deg),
        (&l.ins_vel_hor_x, p.vel_hor_mps[0]),
        (&l.ins_vel_hor_y, p.vel_hor_mps[1]),
        (&l.ins_vel_hor_z, p.vel_hor_mps[2]),
    ] {
        c.write(&mut b, v);
    }
    l.ins_time_week.write_raw(&mut b, p.week.into());
    l.ins_time_msec.write_raw(&mut b, p.msec.into());
    l.leap_seconds.write_raw(&mut b, p.leap_seconds.into());
    b
}

/// A decoded ADMA fix.
#[derive(Debug, Clone, PartialEq)]
pub struct AdmaFix {
    pub sample: InsSample,
    pub packet: AdmaPacket,
    /// Kalman filter settled and GNSS not out.
    pub locked: bool,
}

/// Why a packet gave no sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoFix {
    /// INS time not set yet (GPS week 0).
    TimeUnknown,
    /// Latitude or longitude outside the earth, or exactly 0/0 (no solution yet).
    InvalidPosition,
    /// At or before the previous packet's time.
    OutOfOrder,
}

/// Stateful decoding: time order, conversion to [`InsSample`].
#[derive(Debug, Clone)]
pub struct AdmaDecoder {
    pub vehicle: crate::sample::VehicleId,
    last_gps_ms: Option<u64>,
}

impl AdmaDecoder {
    pub fn new(vehicle: impl Into<crate::sample::VehicleId>) -> Self {
        Self {
            vehicle: vehicle.into(),
            last_gps_ms: None,
        }
    }

    pub fn handle_packet(&mut self, p: &AdmaPacket) -> Result<AdmaFix, NoFix> {
        if p.week == 0 {
            return Err(NoFix::TimeUnknown);
        }
        if !(p.lat_deg.abs() <= 90.0 && p.lon_deg.abs() <= 180.0)
            || (p.lat_deg == 0.0 && p.lon_deg == 0.0)
        {
            return Err(NoFix::InvalidPosition);
        }
        let ms = u64::from(p.week) * 604_800_000 + u64::from(p.msec);
        if self.last_gps_ms.is_some_and(|last| ms <= last) {
            return Err(NoFix::OutOfOrder);
        }
        self.last_gps_ms = Some(ms);
        let sample = InsSample {
            time_s: p.time_of_week_s(),
            vehicle: self.vehicle.clone(),
            position: InsPosition::Wgs84 {
                lat_deg: p.lat_deg,
                lon_deg: p.lon_deg,
                alt_m: Some(p.height_m),
            },
            heading_deg: p.yaw_deg,
            speed_mps: p.vel_hor_mps[0].hypot(p.vel_hor_mps[1]),
            steering_wheel_deg: None,
            brake_light: None,
            accel_mps2: Some(p.acc_body_g[0] * G),
            // Body z is down: a positive rate is clockwise; scil's yaw rate is counter-clockwise.
            yaw_rate_rps: Some(-p.rate_body_dps[2].to_radians()),
            wheel_speed_mps: None,
            fcw: None,
        };
        let locked = p.kf_settled() && p.gnss_mode() != GnssMode::Out;
        Ok(AdmaFix {
            sample,
            packet: *p,
            locked,
        })
    }
}

/// Decodes one datagram, updating health: the live listener's and the recordings' step.
pub fn handle_datagram(
    decoder: &mut AdmaDecoder,
    health: &super::health::SourceHealth,
    data: &[u8],
) -> Option<AdmaFix> {
    health.message();
    let packet = match decode_packet(data) {
        Ok(p) => p,
        Err(e) => {
            health.rejected(e.kind(), e);
            return None;
        }
    };
    let errors = packet.errors();
    if !errors.is_empty() {
        health.error(format!("ADMA reports errors: {}", errors.join(", ")));
    }
    match decoder.handle_packet(&packet) {
        Ok(fix) => {
            if !fix.locked {
                health.not_locked();
            }
            health.sample(fix.sample.time_s);
            Some(fix)
        }
        Err(NoFix::OutOfOrder) => {
            health.out_of_order();
            None
        }
        Err(_) => {
            health.no_fix();
            None
        }
    }
}

/// What the simulator sends for one INS state: a settled, RTK-precise, error-free unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdmaState {
    /// GPS time since 1980-01-06 in integer milliseconds.
    pub gps_time_ms: i64,
    pub lat_deg: f64,
    pub lon_deg: f64,
    pub alt_m: f64,
    pub heading_deg: f64,
    pub speed_mps: f64,
    pub accel_mps2: Option<f64>,
    /// Counter-clockwise positive, as scil's samples.
    pub yaw_rate_rps: Option<f64>,
    pub leap_seconds: i16,
}

impl AdmaState {
    pub fn packet(&self) -> AdmaPacket {
        let week = self.gps_time_ms.div_euclid(604_800_000);
        let msec = self.gps_time_ms.rem_euclid(604_800_000);
        AdmaPacket {
            version: (3, 3, 3),
            gnss_status: 8,
            signal_in_status: 0,
            misc_status: 0,
            kf_status: 1,
            errors: [0; 4],
            rate_body_dps: [0.0, 0.0, -self.yaw_rate_rps.unwrap_or(0.0).to_degrees()],
            acc_body_g: [self.accel_mps2.unwrap_or(0.0) / G, 0.0, 0.0],
            roll_deg: 0.0,
            pitch_deg: 0.0,
            yaw_deg: self.heading_deg,
            height_m: self.alt_m,
            week: u16::try_from(week).unwrap_or(0),
            msec: u32::try_from(msec).unwrap_or(0),
            leap_seconds: self.leap_seconds,
            lat_deg: self.lat_deg,
            lon_deg: self.lon_deg,
            vel_hor_mps: [self.speed_mps, 0.0, 0.0],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet() -> AdmaPacket {
        AdmaState {
            gps_time_ms: 2400 * 604_800_000 + 387_000_040,
            lat_deg: 46.893_084_258,
            lon_deg: 16.839_966_849,
            alt_m: 212.4,
            heading_deg: 90.0,
            speed_mps: 8.3912,
            accel_mps2: Some(-0.29),
            yaw_rate_rps: Some(0.1),
            leap_seconds: 18,
        }
        .packet()
    }

    #[test]
    fn every_version_lays_out_the_same_ins_channels_within_856_bytes() {
        for l in LAYOUTS {
            assert_eq!(l.packet_len, PACKET_LEN);
            assert_eq!(l.header_len, 96);
            assert!(l.ins_vel_hor_z.offset + 2 <= PACKET_LEN);
        }
        assert_eq!(layout::V3_3_3.ins_lat_abs, layout::V3_3_5.ins_lat_abs);
    }

    #[test]
    fn round_trip_within_one_step() {
        for l in LAYOUTS {
            let p = packet();
            let b = encode_packet(&p, l);
            assert_eq!(b.len(), PACKET_LEN);
            let q = decode_packet(&b).expect("decodes");
            assert_eq!(q.version, l.version);
            assert!((q.lat_deg - p.lat_deg).abs() <= 0.5e-7);
            assert!((q.yaw_deg - 90.0).abs() < 1e-9);
            assert_eq!((q.week, q.msec, q.leap_seconds), (2400, 387_000_040, 18));
            let mut d = AdmaDecoder::new("vut");
            let fix = d.handle_packet(&q).expect("fix");
            assert!(fix.locked);
            assert!((fix.sample.time_s - 387_000.04).abs() < 1e-9);
            let r = fix.sample.yaw_rate_rps.expect("rate");
            assert!((r - 0.1).abs() <= 0.01f64.to_radians());
        }
    }

    #[test]
    fn bad_packets_are_named() {
        let b = encode_packet(&packet(), &layout::V3_3_3);
        assert_eq!(decode_packet(&b[..100]), Err(AdmaError::TooShort(100)));
        let mut other = b.clone();
        other[..4].copy_from_slice(b"NCOM");
        assert_eq!(
            decode_packet(&other).map(|_| ()).unwrap_err().kind(),
            "other_id"
        );
        let mut old = b.clone();
        old[28..31].copy_from_slice(&[3, 2, 0]);
        assert_eq!(decode_packet(&old), Err(AdmaError::UnknownVersion(3, 2, 0)));
        let mut ascii = b;
        ascii[28..31].copy_from_slice(b"335");
        assert_eq!(decode_packet(&ascii).map(|p| p.version), Ok((3, 3, 5)));
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut rng = crate::ingest::xorshift(7);
        let mut b = encode_packet(&packet(), &layout::V3_3_4);
        for _ in 0..2000 {
            let i = (rng() % PACKET_LEN as u64) as usize;
            b[i] = rng() as u8;
            let n = (rng() % (PACKET_LEN as u64 + 10)) as usize;
            let mut d = AdmaDecoder::new("vut");
            if let Ok(p) = decode_packet(&b[..n.min(b.len())]) {
                let _ = d.handle_packet(&p);
            }
        }
    }
}
