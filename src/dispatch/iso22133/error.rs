//! Why bytes are not a valid ISO 22133 frame or message: what every decoder returns instead
//! of panicking.

/// Why bytes are not a valid frame. Every decoder returns one of these instead of panicking.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("truncated: need {need} bytes, have {have}")]
    Truncated { need: usize, have: usize },
    #[error("bad sync word {0:#06x}")]
    BadSync(u16),
    #[error("unsupported protocol version {0}")]
    BadVersion(u8),
    #[error("payload length {0} exceeds limit")]
    PayloadTooLong(u32),
    #[error("frame length {frame} does not match buffer length {buffer}")]
    LengthMismatch { frame: usize, buffer: usize },
    #[error("bad CRC: frame says {frame:#06x}, computed {computed:#06x}")]
    BadCrc { frame: u16, computed: u16 },
    #[error("TLV {value_id:#06x} claims {len} bytes, {left} left in payload")]
    TlvOverrun {
        value_id: u16,
        len: usize,
        left: usize,
    },
    #[error("TLV header truncated ({left} bytes left)")]
    TlvTruncated { left: usize },
    #[error("TLV {value_id:#06x} has length {len}, expected {expected}")]
    BadTlvLength {
        value_id: u16,
        len: usize,
        expected: &'static str,
    },
    #[error("message {message_id:#06x} lacks required value {value_id:#06x}")]
    MissingValue { message_id: u16, value_id: u16 },
    #[error("invalid value: {0}")]
    InvalidValue(&'static str),
}
