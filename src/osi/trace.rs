//! OSI's binary trace format: each message as a 4-byte unsigned little-endian length, then the
//! serialized message; no separators, no compression. Trace files (`.osi`), the live TCP
//! stream and `GET /runs/{id}/osi` all use it.

use prost::Message;

use super::osi3::SensorView;

/// Appends `msg` to `out`, framed.
pub fn push(out: &mut Vec<u8>, msg: &SensorView) {
    let len = msg.encoded_len();
    out.reserve(4 + len);
    out.extend_from_slice(&(len as u32).to_le_bytes());
    // Encoding into a Vec cannot run out of room.
    let _ = msg.encode(out);
}

/// `msg`, framed.
pub fn frame(msg: &SensorView) -> Vec<u8> {
    let mut out = Vec::new();
    push(&mut out, msg);
    out
}

/// Error reading a trace.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum TraceError {
    #[error("message {index} at byte {offset}: length prefix cut short")]
    ShortPrefix { index: usize, offset: usize },
    #[error("message {index} at byte {offset}: {len} bytes announced, {left} left")]
    ShortMessage {
        index: usize,
        offset: usize,
        len: usize,
        left: usize,
    },
    #[error("message {index} at byte {offset}: not a SensorView: {reason}")]
    Decode {
        index: usize,
        offset: usize,
        reason: String,
    },
}

/// The framed messages of `bytes`, undecoded.
pub fn split(bytes: &[u8]) -> Result<Vec<&[u8]>, TraceError> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let index = out.len();
        let Some(head) = bytes.get(pos..pos + 4) else {
            return Err(TraceError::ShortPrefix { index, offset: pos });
        };
        let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let left = bytes.len() - pos - 4;
        if len > left {
            return Err(TraceError::ShortMessage {
                index,
                offset: pos,
                len,
                left,
            });
        }
        out.push(&bytes[pos + 4..pos + 4 + len]);
        pos += 4 + len;
    }
    Ok(out)
}

/// Every SensorView of a trace.
pub fn read(bytes: &[u8]) -> Result<Vec<SensorView>, TraceError> {
    let mut pos = 0;
    split(bytes)?
        .into_iter()
        .enumerate()
        .map(|(index, m)| {
            let offset = pos;
            pos += 4 + m.len();
            SensorView::decode(m).map_err(|e| TraceError::Decode {
                index,
                offset,
                reason: e.to_string(),
            })
        })
        .collect()
}
