//! CAN sources: recorded logs ([`log`]: candump, Vector ASC and BLF, MDF4 bus logging),
//! cannelloni over UDP, live SocketCAN; DBC decoding and the mapping of DBC signals to twin fields.

pub mod asc;
pub mod blf;
pub mod candump;
pub mod cannelloni;
pub mod dbc;
pub mod log;
pub mod socketcan;
pub mod timebase;

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

/// Decodes frames from any CAN source with a DBC and maps them to twin fields: the glue between a
/// frame source (candump replay, cannelloni, SocketCAN) and [`crate::ingest::fusion`]. Unknown ids
/// are counted in `health` (not errors). Runs until either channel closes.
pub async fn decode_task(
    mut frames: tokio::sync::mpsc::Receiver<CanFrame>,
    dbc: std::sync::Arc<DbcDecoder>,
    mapping: CanMapping,
    health: crate::ingest::health::SourceHealth,
    tx: tokio::sync::mpsc::Sender<CanUpdate>,
) {
    while let Some(f) = frames.recv().await {
        match dbc.decode(&f) {
            Ok(m) => {
                let Some(t) = f.time_s else { continue };
                let u = mapping.apply(t, &m);
                if !u.is_empty() && tx.send(u).await.is_err() {
                    return;
                }
            }
            Err(dbc::DecodeError::UnknownId { id, .. }) => {
                tracing::trace!(id, "CAN id not in DBC");
                health.unknown_id();
            }
            Err(dbc::DecodeError::NoData) => {}
        }
    }
}
