//! ISO 22133 wire codec (sans-IO, pure functions).
//!
//! Frame = 18-byte header | TLV payload | u16 CRC-16/XMODEM footer, all little-endian.
//! Message structs hold the *wire units* (mm, 0.01°, qms of week, 1e-10 deg …) so that
//! `decode(encode(x)) == x` exactly; helpers convert to SI units.
//!
//! * [`encode_frame`] / [`decode_frame`]: one complete frame (a UDP datagram).
//! * [`StreamFramer`]: TCP byte stream → frames (partial frames, several per read, resync on
//!   garbage). Decoders return [`DecodeError`]; they never panic on any input.

mod crc;
mod error;
mod frame;
mod messages;

pub use crc::crc16_xmodem;
pub use error::DecodeError;
pub use frame::{
    decode_frame, encode_frame, encode_frame_into, Frame, Header, StreamFramer, FOOTER_LEN,
    HEADER_LEN, MAX_PAYLOAD_LEN, PROTOCOL_VERSION, SYNC_WORD,
};
pub use messages::*;

/// Default TCP port of a test object (control channel: OSEM, OSTM, STRT, TRAJ).
pub const DEFAULT_TCP_PORT: u16 = 53241;
/// Default UDP port of a test object (process channel: HEAB in, MONR out).
pub const DEFAULT_UDP_PORT: u16 = 53240;

/// GPS epoch (1980-01-06T00:00:00Z) as Unix seconds.
pub const GPS_EPOCH_UNIX_S: f64 = 315_964_800.0;
/// GPS − UTC leap seconds (valid since 2017).
pub const GPS_LEAP_SECONDS: u8 = 18;
/// Seconds per GPS week.
pub const WEEK_S: f64 = 604_800.0;
/// "Start now" marker in STRT.
pub const STRT_NOW: u32 = 0xFFFF_FFFF;

/// Quarter-milliseconds in a GPS week.
pub const QMS_PER_WEEK: f64 = WEEK_S * 4000.0;

/// Seconds from the instant `from_qms` to the instant `qms` (both GPS quarter-milliseconds of
/// week), the nearer way round the week.
pub fn qms_delta_s(qms: u32, from_qms: f64) -> f64 {
    let mut d = qms as f64 - from_qms;
    if d > QMS_PER_WEEK / 2.0 {
        d -= QMS_PER_WEEK;
    } else if d < -QMS_PER_WEEK / 2.0 {
        d += QMS_PER_WEEK;
    }
    d / 4000.0
}

/// GPS week and quarter-milliseconds of week for a Unix time in seconds.
pub fn gps_week_qms(unix_s: f64) -> (u16, u32) {
    let gps = (unix_s - GPS_EPOCH_UNIX_S + GPS_LEAP_SECONDS as f64).max(0.0);
    let week = (gps / WEEK_S).floor();
    let sow = gps - week * WEEK_S;
    (
        week as u16,
        ((sow * 4000.0) as u64).min(u32::MAX as u64 - 1) as u32,
    )
}

/// GPS week and qms of week for the current wall clock.
pub fn gps_now() -> (u16, u32) {
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    gps_week_qms(unix)
}
