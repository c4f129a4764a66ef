//! cannelloni: CAN over UDP (default port 20000).
//!
//! Datagram (big-endian): `u8 version (2) | u8 opcode (0 DATA, 1 ACK, 2 NACK) | u8 sequence |
//! u16 frame count`, then per frame `u32 can_id` (Linux flag bits) `| u8 len` (bit 0x80 = CAN FD,
//! followed by `u8 flags`) `| data` (absent for remote frames). No timestamps: the receiver stamps
//! frames with its own clock.

use std::io;
use std::net::SocketAddr;

use tokio::net::{ToSocketAddrs, UdpSocket};
use tokio::sync::mpsc;

use super::CanFrame;
use crate::ingest::health::SourceHealth;

pub const DEFAULT_PORT: u16 = 20000;
pub const VERSION: u8 = 2;
const FD_BIT: u8 = 0x80;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CannelloniError {
    #[error("datagram shorter than the 5-byte header")]
    Short,
    #[error("unsupported cannelloni version {0}")]
    Version(u8),
    #[error("opcode {0} is not DATA")]
    Opcode(u8),
    #[error("frame {0} truncated")]
    Truncated(u16),
    #[error("frame {index} length {len} too large")]
    Length { index: u16, len: u8 },
    #[error("{0} trailing bytes after the announced frames")]
    Trailing(usize),
}

/// A decoded DATA datagram.
#[derive(Debug, Clone, PartialEq)]
pub struct CannelloniPacket {
    pub sequence: u8,
    pub frames: Vec<CanFrame>,
}

/// Decodes one datagram. Never panics.
pub fn decode(buf: &[u8]) -> Result<CannelloniPacket, CannelloniError> {
    let h = buf.get(..5).ok_or(CannelloniError::Short)?;
    if h[0] != VERSION {
        return Err(CannelloniError::Version(h[0]));
    }
    if h[1] != 0 {
        return Err(CannelloniError::Opcode(h[1]));
    }
    let sequence = h[2];
    let count = u16::from_be_bytes([h[3], h[4]]);
    let mut pos = 5usize;
    let mut frames = Vec::with_capacity(usize::from(count).min(256));
    for index in 0..count {
        let take = |pos: &mut usize, n: usize| -> Result<&[u8], CannelloniError> {
            let s = buf
                .get(*pos..*pos + n)
                .ok_or(CannelloniError::Truncated(index))?;
            *pos += n;
            Ok(s)
        };
        let idb = take(&mut pos, 4)?;
        let raw_id = u32::from_be_bytes([idb[0], idb[1], idb[2], idb[3]]);
        let len_byte = take(&mut pos, 1)?[0];
        let fd = len_byte & FD_BIT != 0;
        let len = len_byte & !FD_BIT;
        let fd_flags = if fd { take(&mut pos, 1)?[0] } else { 0 };
        if len > if fd { 64 } else { 8 } {
            return Err(CannelloniError::Length { index, len });
        }
        let extended = raw_id & 0x8000_0000 != 0;
        let remote = raw_id & 0x4000_0000 != 0;
        let error = raw_id & 0x2000_0000 != 0;
        let data = if remote {
            Vec::new()
        } else {
            take(&mut pos, usize::from(len))?.to_vec()
        };
        frames.push(CanFrame {
            time_s: None,
            id: raw_id & if extended { 0x1FFF_FFFF } else { 0x7FF },
            extended,
            remote,
            error,
            fd,
            fd_flags,
            data,
            iface: None,
        });
    }
    if pos != buf.len() {
        return Err(CannelloniError::Trailing(buf.len() - pos));
    }
    Ok(CannelloniPacket { sequence, frames })
}

/// Encodes frames as one DATA datagram.
pub fn encode(sequence: u8, frames: &[CanFrame]) -> Vec<u8> {
    let mut out = vec![VERSION, 0, sequence];
    out.extend_from_slice(&(frames.len().min(u16::MAX as usize) as u16).to_be_bytes());
    for f in frames.iter().take(u16::MAX as usize) {
        out.extend_from_slice(&f.linux_id().to_be_bytes());
        let len = f.data.len().min(if f.fd { 64 } else { 8 }) as u8;
        if f.fd {
            out.push(len | FD_BIT);
            out.push(f.fd_flags);
        } else {
            out.push(len);
        }
        if !f.remote {
            out.extend_from_slice(&f.data[..usize::from(len)]);
        }
    }
    out
}

/// A bound cannelloni UDP listener.
#[derive(Debug)]
pub struct CannelloniSource {
    socket: UdpSocket,
    health: SourceHealth,
    /// Source time for received frames: seconds since this instant + `time_offset_s`.
    epoch: std::time::Instant,
    pub time_offset_s: f64,
}

impl CannelloniSource {
    pub async fn bind(addr: impl ToSocketAddrs, health: SourceHealth) -> io::Result<Self> {
        Ok(Self {
            socket: UdpSocket::bind(addr).await?,
            health,
            epoch: std::time::Instant::now(),
            time_offset_s: 0.0,
        })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    /// Receives until `tx` is closed; frames are stamped with receive time (seconds since bind plus
    /// `time_offset_s`). Sequence gaps are counted as out-of-order.
    pub async fn run(self, tx: mpsc::Sender<CanFrame>) -> io::Result<()> {
        let mut buf = vec![0u8; 65536];
        let mut last_seq: Option<u8> = None;
        loop {
            let n = match self.socket.recv(&mut buf).await {
                Ok(n) => n,
                Err(e) => {
                    tracing::warn!(error = %e, "cannelloni recv error");
                    self.health.error(&e);
                    continue;
                }
            };
            self.health.message();
            let t = self.epoch.elapsed().as_secs_f64() + self.time_offset_s;
            match decode(&buf[..n]) {
                Ok(p) => {
                    if let Some(l) = last_seq {
                        if p.sequence != l.wrapping_add(1) {
                            self.health.out_of_order();
                        }
                    }
                    last_seq = Some(p.sequence);
                    for mut f in p.frames {
                        f.time_s = Some(t);
                        self.health.sample(t);
                        if tx.send(f).await.is_err() {
                            return Ok(());
                        }
                    }
                }
                Err(e) => {
                    tracing::debug!(error = %e, "malformed cannelloni datagram");
                    self.health.malformed(e);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let mut fd = CanFrame::new(0x18F20002, true, &[1; 12]);
        fd.fd = true;
        fd.fd_flags = 1;
        let mut rtr = CanFrame::new(0x7DF, false, &[]);
        rtr.remote = true;
        let frames = vec![CanFrame::new(0x156, false, &[0, 2, 0, 0, 0, 0]), fd, rtr];
        let bytes = encode(7, &frames);
        assert_eq!(&bytes[..5], &[2, 0, 7, 0, 3]);
        assert_eq!(&bytes[5..10], &[0, 0, 1, 0x56, 6]);
        let p = decode(&bytes).unwrap();
        assert_eq!(p.sequence, 7);
        assert_eq!(p.frames, frames);
        assert_eq!(
            decode(&bytes[..bytes.len() - 1]),
            Err(CannelloniError::Truncated(2))
        );
        assert_eq!(decode(&[2, 1, 0, 0, 0]), Err(CannelloniError::Opcode(1)));
    }
}
