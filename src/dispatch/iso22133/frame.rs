//! Header, footer and stream framing.

use super::crc::crc16_xmodem;
use super::error::DecodeError;
use super::messages::{decode_payload, encode_payload, Message};

pub const SYNC_WORD: u16 = 0x7E7F;
pub const HEADER_LEN: usize = 18;
pub const FOOTER_LEN: usize = 2;
pub const PROTOCOL_VERSION: u8 = 2;
/// Largest payload accepted (guards allocations against a corrupted length field).
pub const MAX_PAYLOAD_LEN: usize = 1 << 20;

/// Header fields a sender chooses (sync, version, length and message id are derived).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    pub ack_request: bool,
    pub transmitter_id: u32,
    pub receiver_id: u32,
    pub message_counter: u8,
}

/// A decoded frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub header: Header,
    pub message: Message,
}

/// Encode one frame into a new buffer.
pub fn encode_frame(header: &Header, message: &Message) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    encode_frame_into(header, message, &mut out);
    out
}

/// Append one encoded frame to `out` (no allocation if `out` has capacity).
pub fn encode_frame_into(header: &Header, message: &Message, out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(&SYNC_WORD.to_le_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]); // length placeholder
    let ack = if header.ack_request { 0x80 } else { 0 };
    out.push(ack | PROTOCOL_VERSION);
    out.extend_from_slice(&header.transmitter_id.to_le_bytes());
    out.extend_from_slice(&header.receiver_id.to_le_bytes());
    out.push(header.message_counter);
    out.extend_from_slice(&message.message_id().to_le_bytes());
    encode_payload(message, out);
    let payload_len = (out.len() - start - HEADER_LEN) as u32;
    out[start + 2..start + 6].copy_from_slice(&payload_len.to_le_bytes());
    let crc = crc16_xmodem(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
}

fn u16_at(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[i], b[i + 1]])
}
fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

/// Check the fixed header part; returns the total frame length it announces.
fn check_header(buf: &[u8]) -> Result<usize, DecodeError> {
    if buf.len() < HEADER_LEN {
        return Err(DecodeError::Truncated {
            need: HEADER_LEN,
            have: buf.len(),
        });
    }
    let sync = u16_at(buf, 0);
    if sync != SYNC_WORD {
        return Err(DecodeError::BadSync(sync));
    }
    let version = buf[6] & 0x7F;
    if version != PROTOCOL_VERSION {
        return Err(DecodeError::BadVersion(version));
    }
    let payload_len = u32_at(buf, 2);
    if payload_len as usize > MAX_PAYLOAD_LEN {
        return Err(DecodeError::PayloadTooLong(payload_len));
    }
    Ok(HEADER_LEN + payload_len as usize + FOOTER_LEN)
}

/// Decode exactly one frame occupying all of `buf` (a UDP datagram).
pub fn decode_frame(buf: &[u8]) -> Result<Frame, DecodeError> {
    let total = check_header(buf)?;
    if buf.len() < total {
        return Err(DecodeError::Truncated {
            need: total,
            have: buf.len(),
        });
    }
    if buf.len() != total {
        return Err(DecodeError::LengthMismatch {
            frame: total,
            buffer: buf.len(),
        });
    }
    decode_checked(buf)
}

/// `buf` is exactly one frame whose header passed [`check_header`].
fn decode_checked(buf: &[u8]) -> Result<Frame, DecodeError> {
    let body_end = buf.len() - FOOTER_LEN;
    let frame_crc = u16_at(buf, body_end);
    if frame_crc != 0 {
        let computed = crc16_xmodem(&buf[..body_end]);
        if computed != frame_crc {
            return Err(DecodeError::BadCrc {
                frame: frame_crc,
                computed,
            });
        }
    }
    let header = Header {
        ack_request: buf[6] & 0x80 != 0,
        transmitter_id: u32_at(buf, 7),
        receiver_id: u32_at(buf, 11),
        message_counter: buf[15],
    };
    let message_id = u16_at(buf, 16);
    let message = decode_payload(message_id, &buf[HEADER_LEN..body_end])?;
    Ok(Frame { header, message })
}

/// Splits a TCP byte stream into frames.
///
/// Feed bytes with [`StreamFramer::push`], then call [`StreamFramer::next_frame`] until it
/// returns `None`. A bad sync word or header makes the framer skip one byte and search for the
/// next sync word (counted in [`StreamFramer::skipped_bytes`]); a frame with a bad CRC or bad
/// content is consumed whole and reported as an error.
#[derive(Debug, Default)]
pub struct StreamFramer {
    buf: Vec<u8>,
    skipped: u64,
    malformed: u64,
}

impl StreamFramer {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, data: &[u8]) {
        self.buf.extend_from_slice(data);
    }

    /// Bytes skipped while resynchronising.
    pub fn skipped_bytes(&self) -> u64 {
        self.skipped
    }

    /// Frames (or header candidates) rejected so far.
    pub fn malformed_frames(&self) -> u64 {
        self.malformed
    }

    /// Bytes buffered but not yet forming a complete frame.
    pub fn pending(&self) -> usize {
        self.buf.len()
    }

    /// Next complete frame, an error for a malformed one, or `None` if more bytes are needed.
    pub fn next_frame(&mut self) -> Option<Result<Frame, DecodeError>> {
        if self.buf.len() < HEADER_LEN {
            // Drop leading bytes that cannot start a sync word.
            self.resync_prefix();
            return None;
        }
        match check_header(&self.buf) {
            Ok(total) => {
                if self.buf.len() < total {
                    return None;
                }
                let result = decode_checked(&self.buf[..total]);
                self.buf.drain(..total);
                if result.is_err() {
                    self.malformed += 1;
                }
                Some(result)
            }
            Err(e) => {
                // Bad sync/version/length: skip a byte and look for the next sync word.
                self.malformed += 1;
                self.buf.drain(..1);
                self.skipped += 1;
                self.resync_prefix();
                Some(Err(e))
            }
        }
    }

    fn resync_prefix(&mut self) {
        let sync = SYNC_WORD.to_le_bytes();
        let mut i = 0;
        while i < self.buf.len() {
            if self.buf[i] == sync[0] && (i + 1 >= self.buf.len() || self.buf[i + 1] == sync[1]) {
                break;
            }
            i += 1;
        }
        if i > 0 {
            self.skipped += i as u64;
            self.buf.drain(..i);
        }
    }
}
