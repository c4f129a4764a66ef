//! CAN sources: candump logs, cannelloni over UDP, live SocketCAN; DBC decoding and the mapping of
//! DBC signals to twin fields.

pub mod candump;
pub mod cannelloni;
pub mod dbc;
pub mod socketcan;

/// One CAN (or CAN FD) frame.
#[derive(Debug, Clone, PartialEq)]
pub struct CanFrame {
    /// Source time (candump timestamp); None for sources without timestamps (cannelloni).
    pub time_s: Option<f64>,
    /// 11- or 29-bit identifier, without flag bits.
    pub id: u32,
    pub extended: bool,
    pub remote: bool,
    /// Error frame (Linux `CAN_ERR_FLAG`).
    pub error: bool,
    pub fd: bool,
    /// CAN FD flags byte (BRS, ESI), 0 for classic frames.
    pub fd_flags: u8,
    /// Payload (empty for remote frames); up to 8 bytes classic, 64 FD.
    pub data: Vec<u8>,
    /// Interface name if known (`can0`).
    pub iface: Option<String>,
}

impl CanFrame {
    pub fn new(id: u32, extended: bool, data: &[u8]) -> Self {
        Self {
            time_s: None,
            id,
            extended,
            remote: false,
            error: false,
            fd: false,
            fd_flags: 0,
            data: data.to_vec(),
            iface: None,
        }
    }

    /// Linux-style id with flag bits (`0x8000_0000` extended, `0x4000_0000` remote, `0x2000_0000` error).
    pub fn linux_id(&self) -> u32 {
        let mut id = self.id;
        if self.extended {
            id |= 0x8000_0000;
        }
        if self.remote {
            id |= 0x4000_0000;
        }
        if self.error {
            id |= 0x2000_0000;
        }
        id
    }
}

pub use dbc::{CanMapping, CanState, CanUpdate, DbcDecoder, DecodedMessage, SignalRef};
