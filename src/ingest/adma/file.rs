//! A raw ADMAnet recording: the UDP payloads one after another, as a capture tool or
//! `scil feed --adma … --save` writes them. Each packet starts with `GBIN`; bytes that are not
//! a packet are skipped up to the next `GBIN`, counted and named like a malformed datagram, and
//! the recording goes on.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use super::{AdmaDecoder, AdmaError, NoFix, GENESYS_ID, PACKET_LEN};
use crate::ingest::csv::{BadRowPolicy, CsvError};
use crate::ingest::health::SourceHealth;
use crate::ingest::plausibility::{Plausibility, PlausibilityLimits};
use crate::sample::InsSample;

/// A packet's bytes, or where bytes that are not one start and why.
type Packet = Result<Vec<u8>, (u64, AdmaError)>;

/// An ADMAnet recording read packet by packet.
pub struct AdmaFile {
    file: PathBuf,
    r: BufReader<Box<dyn Read + Send>>,
    buf: Vec<u8>,
    /// Byte offset of `buf[0]` in the file.
    at: u64,
    eof: bool,
    packets: u64,
    decoder: AdmaDecoder,
    policy: BadRowPolicy,
    plausibility: Option<Plausibility>,
    /// Counts per kind of refused packet, as a live source's.
    pub health: SourceHealth,
    pub rows: u64,
    /// Packets skipped (malformed, no fix, out of order, or implausible under `Skip`), with the
    /// first 100 reasons.
    pub skipped: u64,
    pub skipped_errors: Vec<CsvError>,
    done: bool,
}

impl AdmaFile {
    pub fn open_as(path: &Path, display: &Path, policy: BadRowPolicy) -> Result<Self, CsvError> {
        let f = File::open(path).map_err(|e| CsvError {
            file: display.to_path_buf(),
            line: 0,
            reason: format!("cannot open: {e}"),
        })?;
        Ok(Self::from_reader(Box::new(f), display, policy))
    }

    /// Reads packets from any byte source, named `display` in errors.
    pub fn from_reader(r: Box<dyn Read + Send>, display: &Path, policy: BadRowPolicy) -> Self {
        AdmaFile {
            file: display.to_path_buf(),
            r: BufReader::with_capacity(64 * 1024, r),
            buf: Vec::with_capacity(2 * PACKET_LEN),
            at: 0,
            eof: false,
            packets: 0,
            decoder: AdmaDecoder::new("vut"),
            policy,
            plausibility: Some(Plausibility::new(PlausibilityLimits::default())),
            health: SourceHealth::new(format!("adma:{}", display.display())),
            rows: 0,
            skipped: 0,
            skipped_errors: Vec::new(),
            done: false,
        }
    }

    pub fn with_plausibility(mut self, limits: Option<PlausibilityLimits>) -> Self {
        self.plausibility = limits.map(Plausibility::new);
        self
    }

    pub fn describe(&self) -> String {
        "GeneSys ADMAnet packets (INS position, height, yaw, horizontal velocity, body acceleration and rates, INS time)".into()
    }

    /// Fills `buf` up to `n` bytes (fewer at the end of the file).
    fn fill(&mut self, n: usize) -> std::io::Result<()> {
        while self.buf.len() < n && !self.eof {
            let mut chunk = [0u8; 8192];
            let want = (n - self.buf.len()).min(chunk.len());
            let got = self.r.read(&mut chunk[..want])?;
            if got == 0 {
                self.eof = true;
            }
            self.buf.extend_from_slice(&chunk[..got]);
        }
        Ok(())
    }

    fn consume(&mut self, n: usize) {
        let n = n.min(self.buf.len());
        self.buf.drain(..n);
        self.at += n as u64;
    }

    fn skip(&mut self, reason: String) -> Option<CsvError> {
        let e = CsvError {
            file: self.file.clone(),
            line: self.packets,
            reason,
        };
        self.skipped += 1;
        if self.skipped_errors.len() < 100 {
            self.skipped_errors.push(e.clone());
        }
        (self.policy == BadRowPolicy::Stop).then_some(e)
    }

    /// The next packet's bytes, or why the bytes here are not one.
    fn next_packet(&mut self) -> std::io::Result<Option<Packet>> {
        self.fill(PACKET_LEN)?;
        if self.buf.is_empty() {
            return Ok(None);
        }
        let start = self.at;
        if self.buf.starts_with(&GENESYS_ID) {
            // A packet cut short by the next one's id, or by the end of the file.
            let end = self.buf[4..]
                .windows(4)
                .position(|w| w == GENESYS_ID)
                .map_or(self.buf.len(), |p| p + 4)
                .min(PACKET_LEN);
            let bytes = self.buf[..end].to_vec();
            self.consume(end);
            return Ok(Some(if end < PACKET_LEN {
                Err((start, AdmaError::TooShort(end)))
            } else {
                Ok(bytes)
            }));
        }
        let id = [0, 1, 2, 3].map(|i| self.buf.get(i).copied().unwrap_or(0));
        let next = self.buf.windows(4).position(|w| w == GENESYS_ID);
        match next {
            Some(p) => self.consume(p),
            // Keep three bytes: an id may straddle the refill.
            None => self.consume(self.buf.len().saturating_sub(3).max(1)),
        }
        self.health.skipped_bytes(self.at - start);
        Ok(Some(Err((start, AdmaError::OtherId(id)))))
    }

    /// Next sample; `None` at the end.
    pub fn next_sample(&mut self) -> Option<Result<InsSample, CsvError>> {
        while !self.done {
            let bytes = match self.next_packet() {
                Ok(None) => {
                    self.done = true;
                    return None;
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(CsvError {
                        file: self.file.clone(),
                        line: self.packets,
                        reason: format!("cannot read: {e}"),
                    }));
                }
                Ok(Some(b)) => b,
            };
            self.packets += 1;
            let (at, bytes) = match bytes {
                Ok(b) => (self.at - b.len() as u64, b),
                Err((at, e)) => {
                    self.health.message();
                    self.health.rejected(e.kind(), e);
                    // Malformed bytes are counted and skipped whatever the policy.
                    self.skipped += 1;
                    if self.skipped_errors.len() < 100 {
                        self.skipped_errors.push(CsvError {
                            file: self.file.clone(),
                            line: self.packets,
                            reason: format!("packet {} at byte {at}: {e}", self.packets),
                        });
                    }
                    continue;
                }
            };
            let packet = match super::decode_packet(&bytes) {
                Ok(p) => p,
                Err(e) => {
                    self.health.message();
                    self.health.rejected(e.kind(), e);
                    self.skipped += 1;
                    if self.skipped_errors.len() < 100 {
                        self.skipped_errors.push(CsvError {
                            file: self.file.clone(),
                            line: self.packets,
                            reason: format!("packet {} at byte {at}: {e}", self.packets),
                        });
                    }
                    continue;
                }
            };
            self.health.message();
            let fix = match self.decoder.handle_packet(&packet) {
                Ok(f) => f,
                Err(NoFix::OutOfOrder) => {
                    self.health.out_of_order();
                    if let Some(e) = self.skip(format!(
                        "packet {} at byte {at}: INS time {} ms of week {} is not after the previous packet's",
                        self.packets, packet.msec, packet.week
                    )) {
                        self.done = true;
                        return Some(Err(e));
                    }
                    continue;
                }
                Err(_) => {
                    // No INS solution yet (time not set, position 0/0): not an error.
                    self.health.no_fix();
                    continue;
                }
            };
            if !fix.locked {
                self.health.not_locked();
            }
            if let Some(Err(reason)) = self.plausibility.as_mut().map(|p| p.admit(&fix.sample)) {
                if let Some(e) =
                    self.skip(format!("packet {} at byte {at}: {reason}", self.packets))
                {
                    self.done = true;
                    return Some(Err(e));
                }
                continue;
            }
            self.health.sample(fix.sample.time_s);
            self.rows += 1;
            return Some(Ok(fix.sample));
        }
        None
    }
}
