//! Message payloads (TLV sequences) and their encoders/decoders.

use super::error::DecodeError;
use serde::{Deserialize, Serialize};

pub mod id {
    pub const TRAJ: u16 = 0x0001;
    pub const OSEM: u16 = 0x0002;
    pub const OSTM: u16 = 0x0003;
    pub const STRT: u16 = 0x0004;
    pub const HEAB: u16 = 0x0005;
    pub const MONR: u16 = 0x0006;
    pub const MTSP: u16 = 0x000C;
}

mod vid {
    pub const OSEM_IDS: u16 = 0x0020;
    pub const OSEM_ORIGIN: u16 = 0x0021;
    pub const OSEM_DATETIME: u16 = 0x0022;
    pub const OSEM_LIMITS: u16 = 0x0023;
    pub const OSEM_TIME_SERVER: u16 = 0x0024;
    pub const OSTM_COMMAND: u16 = 0x0064;
    pub const STRT_TIME: u16 = 0x0002;
    pub const STRT_WEEK: u16 = 0x0003;
    pub const HEAB: u16 = 0x0090;
    pub const MONR: u16 = 0x0080;
    pub const TRAJ_ID: u16 = 0x0101;
    pub const TRAJ_NAME: u16 = 0x0102;
    pub const TRAJ_INFO: u16 = 0x0104;
    pub const TRAJ_POINT: u16 = 0x0001;
    pub const TRAJ_END: u16 = 0x0053;
    pub const MTSP_TIME: u16 = 0x0001;
}

/// Value-ID/length pairs for content of fixed size.
const MONR_LEN: usize = 36;
const MONR_LEN_SHORT: usize = 34; // without the trailing error code
const TRAJ_POINT_LEN: usize = 30;
const TRAJ_NAME_LEN: usize = 64;
const TRAJ_END_MARKER: u8 = 0x04;

/// Object (test object / carrier) state as reported in MONR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ObjectState {
    Off,
    Init,
    Armed,
    Disarmed,
    Running,
    Postrun,
    RemoteControlled,
    Aborting,
    PreArming,
    PreRunning,
    Unknown(u8),
}

impl ObjectState {
    pub fn from_u8(v: u8) -> Self {
        match v {
            0 => Self::Off,
            1 => Self::Init,
            2 => Self::Armed,
            3 => Self::Disarmed,
            4 => Self::Running,
            5 => Self::Postrun,
            6 => Self::RemoteControlled,
            7 => Self::Aborting,
            8 => Self::PreArming,
            9 => Self::PreRunning,
            x => Self::Unknown(x),
        }
    }
    pub fn to_u8(self) -> u8 {
        match self {
            Self::Off => 0,
            Self::Init => 1,
            Self::Armed => 2,
            Self::Disarmed => 3,
            Self::Running => 4,
            Self::Postrun => 5,
            Self::RemoteControlled => 6,
            Self::Aborting => 7,
            Self::PreArming => 8,
            Self::PreRunning => 9,
            Self::Unknown(x) => x,
        }
    }
}

/// OSTM commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OstmCommand {
    Arm,
    Disarm,
    RemoteControl,
    AllClear,
    Other(u8),
}

impl OstmCommand {
    pub fn from_u8(v: u8) -> Self {
        match v {
            0x02 => Self::Arm,
            0x03 => Self::Disarm,
            0x06 => Self::RemoteControl,
            0x0A => Self::AllClear,
            x => Self::Other(x),
        }
    }
    pub fn to_u8(self) -> u8 {
        match self {
            Self::Arm => 0x02,
            Self::Disarm => 0x03,
            Self::RemoteControl => 0x06,
            Self::AllClear => 0x0A,
            Self::Other(x) => x,
        }
    }
}

/// Control-centre status carried in HEAB.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CcStatus {
    Init,
    Ready,
    Abort,
    Running,
    TestDone,
    NormalStop,
    Other(u8),
}

impl CcStatus {
    pub fn from_u8(v: u8) -> Self {
        match v {
            0 => Self::Init,
            1 => Self::Ready,
            2 => Self::Abort,
            3 => Self::Running,
            4 => Self::TestDone,
            5 => Self::NormalStop,
            x => Self::Other(x),
        }
    }
    pub fn to_u8(self) -> u8 {
        match self {
            Self::Init => 0,
            Self::Ready => 1,
            Self::Abort => 2,
            Self::Running => 3,
            Self::TestDone => 4,
            Self::NormalStop => 5,
            Self::Other(x) => x,
        }
    }
}

/// OSEM 0x0020.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OsemIds {
    /// Id the object adopts as its transmitter id.
    pub device_id: u32,
    pub sub_device_id: u32,
    pub control_centre_id: u32,
}

/// OSEM 0x0021: origin of the local frame. i48 values on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OsemOrigin {
    /// Latitude, 1e-10 degrees (i48 on the wire).
    pub lat_e10: i64,
    /// Longitude, 1e-10 degrees (i48 on the wire).
    pub lon_e10: i64,
    pub alt_cm: i32,
    /// Rotation of the local frame, 0.01 degrees.
    pub rotation_cdeg: u16,
    /// Coordinate system (3 = WGS84 in the reference implementation).
    pub coordinate_system: u8,
}

impl OsemOrigin {
    pub const WGS84: u8 = 3;

    pub fn from_degrees(lat_deg: f64, lon_deg: f64, alt_m: f64, rotation_deg: f64) -> Self {
        Self {
            lat_e10: (lat_deg * 1e10).round() as i64,
            lon_e10: (lon_deg * 1e10).round() as i64,
            alt_cm: (alt_m * 100.0).round() as i32,
            rotation_cdeg: ((rotation_deg.rem_euclid(360.0)) * 100.0).round() as u16 % 36000,
            coordinate_system: Self::WGS84,
        }
    }
    pub fn lat_deg(&self) -> f64 {
        self.lat_e10 as f64 * 1e-10
    }
    pub fn lon_deg(&self) -> f64 {
        self.lon_e10 as f64 * 1e-10
    }
}

/// OSEM 0x0022.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OsemDateTime {
    pub date_yyyymmdd: u32,
    pub gps_week: u16,
    pub gps_qms_of_week: u32,
    pub leap_seconds: u8,
}

/// OSEM 0x0023.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OsemLimits {
    pub max_way_deviation_mm: u16,
    pub max_lateral_deviation_mm: u16,
    pub max_yaw_deviation_cdeg: u16,
    pub max_position_error_cm: u16,
    /// Heartbeat timeout in units of 10 ms (0 = object default: 10 HEAB periods).
    pub heab_timeout_10ms: u16,
    pub test_mode: u8,
    pub monr_rate_hz: u8,
    pub monr2_rate_hz: u8,
    pub heab_rate_hz: u8,
    pub max_message_length: u32,
}

/// OSEM: object settings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Osem {
    pub ids: OsemIds,
    pub origin: Option<OsemOrigin>,
    pub date_time: Option<OsemDateTime>,
    pub limits: Option<OsemLimits>,
    /// Time server IPv4 (as u32, LE on the wire) and port.
    pub time_server: Option<(u32, u16)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ostm {
    pub command: OstmCommand,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strt {
    /// GPS qms of week, [`super::STRT_NOW`] = immediately.
    pub start_qms_of_week: u32,
    pub gps_week: Option<u16>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heab {
    pub time_qms_of_week: u32,
    pub status: CcStatus,
}

/// MONR: object monitoring data (wire units).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Monr {
    pub time_qms_of_week: u32,
    pub x_mm: i32,
    pub y_mm: i32,
    pub z_mm: i32,
    pub yaw_cdeg: u16,
    pub pitch_cdeg: i16,
    pub roll_cdeg: i16,
    pub speed_lon_cm_s: i16,
    pub speed_lat_cm_s: i16,
    pub acc_lon_mm_s2: i16,
    pub acc_lat_mm_s2: i16,
    pub drive_direction: u8,
    pub state: u8,
    pub ready_to_arm: u8,
    pub error_status: u8,
    pub error_code: u16,
}

impl Monr {
    pub fn object_state(&self) -> ObjectState {
        ObjectState::from_u8(self.state)
    }
    pub fn x_m(&self) -> f64 {
        self.x_mm as f64 / 1000.0
    }
    pub fn y_m(&self) -> f64 {
        self.y_mm as f64 / 1000.0
    }
    pub fn speed_mps(&self) -> f64 {
        self.speed_lon_cm_s as f64 / 100.0
    }
    /// Yaw in degrees (map convention, see module docs of `dispatch`).
    pub fn yaw_deg(&self) -> f64 {
        self.yaw_cdeg as f64 / 100.0
    }
    pub fn ready(&self) -> bool {
        self.ready_to_arm == 1
    }
    /// The readyToArm field: 0 not ready, 1 ready, 2 (and other values) unavailable.
    pub fn readiness(&self) -> Readiness {
        match self.ready_to_arm {
            0 => Readiness::NotReady,
            1 => Readiness::Ready,
            _ => Readiness::Unavailable,
        }
    }
}

/// MONR readyToArm (ISO 22133: 0 not ready, 1 ready, 2 unavailable). The RI-SE isoObject
/// reports 2 until its application sets it and clears it to 0 when it leaves Disarmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Readiness {
    NotReady,
    Ready,
    Unavailable,
}

impl From<bool> for Readiness {
    fn from(ready: bool) -> Self {
        if ready {
            Readiness::Ready
        } else {
            Readiness::NotReady
        }
    }
}

/// MONR error-status bits.
pub mod error_bits {
    pub const ABORT_REQUEST: u8 = 0x80;
    pub const OUTSIDE_GEOFENCE: u8 = 0x40;
    pub const BAD_POSITIONING: u8 = 0x20;
}

/// One TRAJ point (wire units).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TrajPoint {
    pub rel_time_ms: u32,
    pub x_mm: i32,
    pub y_mm: i32,
    pub z_mm: i32,
    pub yaw_cdeg: u16,
    pub speed_lon_cm_s: i16,
    pub speed_lat_cm_s: i16,
    pub acc_lon_mm_s2: i16,
    pub acc_lat_mm_s2: i16,
    pub curvature: f32,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Traj {
    pub id: u16,
    pub info: u8,
    /// Up to 64 bytes; NUL-padded on the wire.
    pub name: String,
    pub points: Vec<TrajPoint>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mtsp {
    pub estimated_sync_qms_of_week: u32,
}

/// Every message scil speaks; others are kept raw.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Osem(Osem),
    Ostm(Ostm),
    Strt(Strt),
    Heab(Heab),
    Monr(Monr),
    Traj(Traj),
    Mtsp(Mtsp),
    Unknown { message_id: u16, payload: Vec<u8> },
}

impl Message {
    pub fn message_id(&self) -> u16 {
        match self {
            Message::Osem(_) => id::OSEM,
            Message::Ostm(_) => id::OSTM,
            Message::Strt(_) => id::STRT,
            Message::Heab(_) => id::HEAB,
            Message::Monr(_) => id::MONR,
            Message::Traj(_) => id::TRAJ,
            Message::Mtsp(_) => id::MTSP,
            Message::Unknown { message_id, .. } => *message_id,
        }
    }
    pub fn name(&self) -> &'static str {
        match self {
            Message::Osem(_) => "OSEM",
            Message::Ostm(_) => "OSTM",
            Message::Strt(_) => "STRT",
            Message::Heab(_) => "HEAB",
            Message::Monr(_) => "MONR",
            Message::Traj(_) => "TRAJ",
            Message::Mtsp(_) => "MTSP",
            Message::Unknown { .. } => "UNKNOWN",
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Encoding

struct W<'a>(&'a mut Vec<u8>);

impl W<'_> {
    fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn i16(&mut self, v: i16) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn i32(&mut self, v: i32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// i48, saturated to its range.
    fn i48(&mut self, v: i64) -> &mut Self {
        let v = v.clamp(-(1i64 << 47), (1i64 << 47) - 1);
        self.0.extend_from_slice(&v.to_le_bytes()[..6]);
        self
    }
    fn tlv(&mut self, value_id: u16, len: u16) -> &mut Self {
        self.u16(value_id).u16(len)
    }
}

pub(super) fn encode_payload(message: &Message, out: &mut Vec<u8>) {
    let mut w = W(out);
    match message {
        Message::Osem(m) => {
            w.tlv(vid::OSEM_IDS, 12)
                .u32(m.ids.device_id)
                .u32(m.ids.sub_device_id)
                .u32(m.ids.control_centre_id);
            if let Some(o) = &m.origin {
                w.tlv(vid::OSEM_ORIGIN, 19)
                    .i48(o.lat_e10)
                    .i48(o.lon_e10)
                    .i32(o.alt_cm)
                    .u16(o.rotation_cdeg)
                    .u8(o.coordinate_system);
            }
            if let Some(d) = &m.date_time {
                w.tlv(vid::OSEM_DATETIME, 11)
                    .u32(d.date_yyyymmdd)
                    .u16(d.gps_week)
                    .u32(d.gps_qms_of_week)
                    .u8(d.leap_seconds);
            }
            if let Some(l) = &m.limits {
                w.tlv(vid::OSEM_LIMITS, 18)
                    .u16(l.max_way_deviation_mm)
                    .u16(l.max_lateral_deviation_mm)
                    .u16(l.max_yaw_deviation_cdeg)
                    .u16(l.max_position_error_cm)
                    .u16(l.heab_timeout_10ms)
                    .u8(l.test_mode)
                    .u8(l.monr_rate_hz)
                    .u8(l.monr2_rate_hz)
                    .u8(l.heab_rate_hz)
                    .u32(l.max_message_length);
            }
            if let Some((ip, port)) = m.time_server {
                w.tlv(vid::OSEM_TIME_SERVER, 6).u32(ip).u16(port);
            }
        }
        Message::Ostm(m) => {
            w.tlv(vid::OSTM_COMMAND, 1).u8(m.command.to_u8());
        }
        Message::Strt(m) => {
            w.tlv(vid::STRT_TIME, 4).u32(m.start_qms_of_week);
            if let Some(week) = m.gps_week {
                w.tlv(vid::STRT_WEEK, 2).u16(week);
            }
        }
        Message::Heab(m) => {
            w.tlv(vid::HEAB, 5)
                .u32(m.time_qms_of_week)
                .u8(m.status.to_u8());
        }
        Message::Monr(m) => {
            w.tlv(vid::MONR, MONR_LEN as u16)
                .u32(m.time_qms_of_week)
                .i32(m.x_mm)
                .i32(m.y_mm)
                .i32(m.z_mm)
                .u16(m.yaw_cdeg)
                .i16(m.pitch_cdeg)
                .i16(m.roll_cdeg)
                .i16(m.speed_lon_cm_s)
                .i16(m.speed_lat_cm_s)
                .i16(m.acc_lon_mm_s2)
                .i16(m.acc_lat_mm_s2)
                .u8(m.drive_direction)
                .u8(m.state)
                .u8(m.ready_to_arm)
                .u8(m.error_status)
                .u16(m.error_code);
        }
        Message::Traj(m) => {
            w.tlv(vid::TRAJ_ID, 2).u16(m.id);
            w.tlv(vid::TRAJ_INFO, 1).u8(m.info);
            w.tlv(vid::TRAJ_NAME, TRAJ_NAME_LEN as u16);
            let mut name = [0u8; TRAJ_NAME_LEN];
            let bytes = m.name.as_bytes();
            let n = bytes.len().min(TRAJ_NAME_LEN);
            name[..n].copy_from_slice(&bytes[..n]);
            w.0.extend_from_slice(&name);
            for p in &m.points {
                w.tlv(vid::TRAJ_POINT, TRAJ_POINT_LEN as u16)
                    .u32(p.rel_time_ms)
                    .i32(p.x_mm)
                    .i32(p.y_mm)
                    .i32(p.z_mm)
                    .u16(p.yaw_cdeg)
                    .i16(p.speed_lon_cm_s)
                    .i16(p.speed_lat_cm_s)
                    .i16(p.acc_lon_mm_s2)
                    .i16(p.acc_lat_mm_s2)
                    .u32(p.curvature.to_bits());
            }
            w.tlv(vid::TRAJ_END, 1).u8(TRAJ_END_MARKER);
        }
        Message::Mtsp(m) => {
            w.tlv(vid::MTSP_TIME, 4).u32(m.estimated_sync_qms_of_week);
        }
        Message::Unknown { payload, .. } => {
            w.0.extend_from_slice(payload);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Decoding

/// Reads fixed-size fields from a TLV's content whose length was already checked.
struct R<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> R<'a> {
    fn new(b: &'a [u8]) -> Self {
        Self { b, i: 0 }
    }
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut a = [0u8; N];
        // Content lengths are checked before reading; a short read leaves zeros, never panics.
        if let Some(s) = self.b.get(self.i..self.i + N) {
            a.copy_from_slice(s);
        }
        self.i += N;
        a
    }
    fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take())
    }
    fn i16(&mut self) -> i16 {
        i16::from_le_bytes(self.take())
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn i32(&mut self) -> i32 {
        i32::from_le_bytes(self.take())
    }
    fn i48(&mut self) -> i64 {
        let b: [u8; 6] = self.take();
        let mut e = [0u8; 8];
        e[..6].copy_from_slice(&b);
        if b[5] & 0x80 != 0 {
            e[6] = 0xFF;
            e[7] = 0xFF;
        }
        i64::from_le_bytes(e)
    }
}

/// Iterates over `(value_id, content)` pairs, rejecting lengths that overrun the payload.
struct Tlvs<'a> {
    b: &'a [u8],
}

impl<'a> Iterator for Tlvs<'a> {
    type Item = Result<(u16, &'a [u8]), DecodeError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.b.is_empty() {
            return None;
        }
        if self.b.len() < 4 {
            let left = self.b.len();
            self.b = &[];
            return Some(Err(DecodeError::TlvTruncated { left }));
        }
        let value_id = u16::from_le_bytes([self.b[0], self.b[1]]);
        let len = u16::from_le_bytes([self.b[2], self.b[3]]) as usize;
        let left = self.b.len() - 4;
        if len > left {
            self.b = &[];
            return Some(Err(DecodeError::TlvOverrun {
                value_id,
                len,
                left,
            }));
        }
        let content = &self.b[4..4 + len];
        self.b = &self.b[4 + len..];
        Some(Ok((value_id, content)))
    }
}

fn expect_len(
    value_id: u16,
    content: &[u8],
    n: usize,
    what: &'static str,
) -> Result<(), DecodeError> {
    if content.len() != n {
        return Err(DecodeError::BadTlvLength {
            value_id,
            len: content.len(),
            expected: what,
        });
    }
    Ok(())
}

fn missing(message_id: u16, value_id: u16) -> DecodeError {
    DecodeError::MissingValue {
        message_id,
        value_id,
    }
}

pub(super) fn decode_payload(message_id: u16, payload: &[u8]) -> Result<Message, DecodeError> {
    let tlvs = || Tlvs { b: payload };
    match message_id {
        id::OSEM => {
            let mut ids = None;
            let mut m = Osem::default();
            for t in tlvs() {
                let (v, c) = t?;
                let mut r = R::new(c);
                match v {
                    vid::OSEM_IDS => {
                        expect_len(v, c, 12, "12")?;
                        ids = Some(OsemIds {
                            device_id: r.u32(),
                            sub_device_id: r.u32(),
                            control_centre_id: r.u32(),
                        });
                    }
                    vid::OSEM_ORIGIN => {
                        expect_len(v, c, 19, "19")?;
                        m.origin = Some(OsemOrigin {
                            lat_e10: r.i48(),
                            lon_e10: r.i48(),
                            alt_cm: r.i32(),
                            rotation_cdeg: r.u16(),
                            coordinate_system: r.u8(),
                        });
                    }
                    vid::OSEM_DATETIME => {
                        expect_len(v, c, 11, "11")?;
                        m.date_time = Some(OsemDateTime {
                            date_yyyymmdd: r.u32(),
                            gps_week: r.u16(),
                            gps_qms_of_week: r.u32(),
                            leap_seconds: r.u8(),
                        });
                    }
                    vid::OSEM_LIMITS => {
                        expect_len(v, c, 18, "18")?;
                        m.limits = Some(OsemLimits {
                            max_way_deviation_mm: r.u16(),
                            max_lateral_deviation_mm: r.u16(),
                            max_yaw_deviation_cdeg: r.u16(),
                            max_position_error_cm: r.u16(),
                            heab_timeout_10ms: r.u16(),
                            test_mode: r.u8(),
                            monr_rate_hz: r.u8(),
                            monr2_rate_hz: r.u8(),
                            heab_rate_hz: r.u8(),
                            max_message_length: r.u32(),
                        });
                    }
                    vid::OSEM_TIME_SERVER => {
                        expect_len(v, c, 6, "6")?;
                        m.time_server = Some((r.u32(), r.u16()));
                    }
                    _ => {} // unknown/optional values are skipped
                }
            }
            m.ids = ids.ok_or_else(|| missing(message_id, vid::OSEM_IDS))?;
            Ok(Message::Osem(m))
        }
        id::OSTM => {
            let mut cmd = None;
            for t in tlvs() {
                let (v, c) = t?;
                if v == vid::OSTM_COMMAND {
                    expect_len(v, c, 1, "1")?;
                    cmd = Some(OstmCommand::from_u8(c[0]));
                }
            }
            let command = cmd.ok_or_else(|| missing(message_id, vid::OSTM_COMMAND))?;
            Ok(Message::Ostm(Ostm { command }))
        }
        id::STRT => {
            let mut time = None;
            let mut week = None;
            for t in tlvs() {
                let (v, c) = t?;
                let mut r = R::new(c);
                match v {
                    vid::STRT_TIME => {
                        expect_len(v, c, 4, "4")?;
                        time = Some(r.u32());
                    }
                    vid::STRT_WEEK => {
                        expect_len(v, c, 2, "2")?;
                        week = Some(r.u16());
                    }
                    _ => {}
                }
            }
            let start_qms_of_week = time.ok_or_else(|| missing(message_id, vid::STRT_TIME))?;
            Ok(Message::Strt(Strt {
                start_qms_of_week,
                gps_week: week,
            }))
        }
        id::HEAB => {
            let mut heab = None;
            for t in tlvs() {
                let (v, c) = t?;
                if v == vid::HEAB {
                    expect_len(v, c, 5, "5")?;
                    let mut r = R::new(c);
                    heab = Some(Heab {
                        time_qms_of_week: r.u32(),
                        status: CcStatus::from_u8(r.u8()),
                    });
                }
            }
            heab.map(Message::Heab)
                .ok_or_else(|| missing(message_id, vid::HEAB))
        }
        id::MONR => {
            let mut monr = None;
            for t in tlvs() {
                let (v, c) = t?;
                if v == vid::MONR {
                    if c.len() != MONR_LEN && c.len() != MONR_LEN_SHORT {
                        return Err(DecodeError::BadTlvLength {
                            value_id: v,
                            len: c.len(),
                            expected: "36 or 34",
                        });
                    }
                    let mut r = R::new(c);
                    monr = Some(Monr {
                        time_qms_of_week: r.u32(),
                        x_mm: r.i32(),
                        y_mm: r.i32(),
                        z_mm: r.i32(),
                        yaw_cdeg: r.u16(),
                        pitch_cdeg: r.i16(),
                        roll_cdeg: r.i16(),
                        speed_lon_cm_s: r.i16(),
                        speed_lat_cm_s: r.i16(),
                        acc_lon_mm_s2: r.i16(),
                        acc_lat_mm_s2: r.i16(),
                        drive_direction: r.u8(),
                        state: r.u8(),
                        ready_to_arm: r.u8(),
                        error_status: r.u8(),
                        error_code: if c.len() == MONR_LEN { r.u16() } else { 0 },
                    });
                }
            }
            monr.map(Message::Monr)
                .ok_or_else(|| missing(message_id, vid::MONR))
        }
        id::TRAJ => {
            let mut traj = Traj::default();
            let mut have_id = false;
            let mut ended = false;
            for t in tlvs() {
                let (v, c) = t?;
                if ended {
                    return Err(DecodeError::InvalidValue("TRAJ value after end marker"));
                }
                let mut r = R::new(c);
                match v {
                    vid::TRAJ_ID => {
                        expect_len(v, c, 2, "2")?;
                        traj.id = r.u16();
                        have_id = true;
                    }
                    vid::TRAJ_INFO => {
                        expect_len(v, c, 1, "1")?;
                        traj.info = r.u8();
                    }
                    vid::TRAJ_NAME => {
                        if c.len() > TRAJ_NAME_LEN {
                            return Err(DecodeError::BadTlvLength {
                                value_id: v,
                                len: c.len(),
                                expected: "<= 64",
                            });
                        }
                        let end = c.iter().position(|&b| b == 0).unwrap_or(c.len());
                        traj.name = String::from_utf8_lossy(&c[..end]).into_owned();
                    }
                    vid::TRAJ_POINT => {
                        expect_len(v, c, TRAJ_POINT_LEN, "30")?;
                        traj.points.push(TrajPoint {
                            rel_time_ms: r.u32(),
                            x_mm: r.i32(),
                            y_mm: r.i32(),
                            z_mm: r.i32(),
                            yaw_cdeg: r.u16(),
                            speed_lon_cm_s: r.i16(),
                            speed_lat_cm_s: r.i16(),
                            acc_lon_mm_s2: r.i16(),
                            acc_lat_mm_s2: r.i16(),
                            curvature: f32::from_bits(r.u32()),
                        });
                    }
                    vid::TRAJ_END => {
                        expect_len(v, c, 1, "1")?;
                        ended = true;
                    }
                    _ => {}
                }
            }
            if !have_id {
                return Err(missing(message_id, vid::TRAJ_ID));
            }
            if !ended {
                return Err(missing(message_id, vid::TRAJ_END));
            }
            Ok(Message::Traj(traj))
        }
        id::MTSP => {
            let mut time = None;
            for t in tlvs() {
                let (v, c) = t?;
                if v == vid::MTSP_TIME {
                    expect_len(v, c, 4, "4")?;
                    time = Some(R::new(c).u32());
                }
            }
            let estimated_sync_qms_of_week =
                time.ok_or_else(|| missing(message_id, vid::MTSP_TIME))?;
            Ok(Message::Mtsp(Mtsp {
                estimated_sync_qms_of_week,
            }))
        }
        other => Ok(Message::Unknown {
            message_id: other,
            payload: payload.to_vec(),
        }),
    }
}
