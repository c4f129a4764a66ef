//! DBC signal decoding (parsing by the `can-dbc` crate) and mapping of signals to twin fields.
//!
//! Handles Intel (little-endian) and Motorola (big-endian, DBC "sawtooth" start bit = MSB) byte
//! order, signed values, factor/offset, IEEE float/double signals (`SIG_VALTYPE_`), extended ids
//! (DBC writes them with bit 31 set) and simple multiplexing (`M` / `mN`).

use std::collections::HashMap;
use std::path::Path;

use can_dbc::{ByteOrder, MessageId, MultiplexIndicator, SignalExtendedValueType, ValueType};
use serde::{Deserialize, Serialize};

use super::CanFrame;

#[derive(Debug, thiserror::Error)]
pub enum DbcError {
    #[error("cannot read DBC {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// The parser stopped at `line` (1-based).
    #[error("DBC parse error at line {line}: {reason}")]
    Parse { line: usize, reason: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("CAN id {id:#x} (extended {extended}) not in the DBC")]
    UnknownId { id: u32, extended: bool },
    #[error("remote or error frame carries no signals")]
    NoData,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Int { signed: bool },
    F32,
    F64,
}

#[derive(Debug, Clone)]
struct SignalDef {
    name: String,
    start: u32,
    size: u32,
    big_endian: bool,
    kind: Kind,
    factor: f64,
    offset: f64,
    mux: MultiplexIndicator,
}

#[derive(Debug, Clone)]
struct MessageDef {
    name: String,
    signals: Vec<SignalDef>,
}

/// A decoded frame: message name and `(signal, physical value)` in DBC order.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedMessage<'a> {
    pub name: &'a str,
    /// Identifier without flag bits (what `candump` prints).
    pub id: u32,
    pub extended: bool,
    pub signals: Vec<(&'a str, f64)>,
    /// Some signals did not fit in the frame's data and were skipped.
    pub truncated: bool,
}

impl DecodedMessage<'_> {
    pub fn get(&self, signal: &str) -> Option<f64> {
        self.signals
            .iter()
            .find(|(n, _)| *n == signal)
            .map(|(_, v)| *v)
    }
}

/// Decoder built from a DBC.
#[derive(Debug, Clone)]
pub struct DbcDecoder {
    messages: HashMap<(u32, bool), MessageDef>,
}

fn key(id: MessageId) -> (u32, bool) {
    match id {
        MessageId::Standard(i) => (u32::from(i), false),
        MessageId::Extended(i) => (i, true),
    }
}

impl DbcDecoder {
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, DbcError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| DbcError::Io {
            path: path.display().to_string(),
            source,
        })?;
        // DBC files are often Windows-1252; non-UTF-8 bytes only occur in comments in practice.
        let text = String::from_utf8_lossy(&bytes);
        Self::parse(&text)
    }

    pub fn parse(text: &str) -> Result<Self, DbcError> {
        let line_of = |rest: &str| {
            text[..text.len().saturating_sub(rest.len())]
                .matches('\n')
                .count()
                + 1
        };
        let dbc = can_dbc::Dbc::try_from(text).map_err(|e| match e {
            can_dbc::Error::Incomplete(_, rest) => DbcError::Parse {
                line: line_of(rest),
                reason: format!(
                    "cannot parse {:?}",
                    rest.lines()
                        .next()
                        .unwrap_or("")
                        .chars()
                        .take(60)
                        .collect::<String>()
                ),
            },
            other => DbcError::Parse {
                line: 1,
                reason: format!("{other:?}").chars().take(200).collect(),
            },
        })?;
        if dbc.messages().is_empty() && !text.trim().is_empty() && !text.contains("BO_ ") {
            return Err(DbcError::Parse {
                line: 1,
                reason: "no message definitions (BO_) found".into(),
            });
        }
        let mut messages = HashMap::new();
        for m in dbc.messages() {
            let signals = m
                .signals()
                .iter()
                .map(|s| {
                    let kind = match dbc.extended_value_type_for_signal(*m.id(), s.name()) {
                        Some(SignalExtendedValueType::IEEEfloat32Bit) => Kind::F32,
                        Some(SignalExtendedValueType::IEEEdouble64bit) => Kind::F64,
                        _ => Kind::Int {
                            signed: *s.value_type() == ValueType::Signed,
                        },
                    };
                    SignalDef {
                        name: s.name().clone(),
                        start: s.start_bit as u32,
                        size: s.size as u32,
                        big_endian: *s.byte_order() == ByteOrder::BigEndian,
                        kind,
                        factor: s.factor,
                        offset: s.offset,
                        mux: *s.multiplexer_indicator(),
                    }
                })
                .collect();
            messages.insert(
                key(*m.id()),
                MessageDef {
                    name: m.name().clone(),
                    signals,
                },
            );
        }
        Ok(Self { messages })
    }

    /// Whether message `message` (by name) defines signal `signal`.
    pub fn has_signal(&self, message: &str, signal: &str) -> bool {
        self.messages
            .values()
            .any(|m| m.name == message && m.signals.iter().any(|s| s.name == signal))
    }

    /// Number of messages the DBC defines.
    pub fn message_count(&self) -> usize {
        self.messages.len()
    }

    /// Message name for an id, if known.
    pub fn message_name(&self, id: u32, extended: bool) -> Option<&str> {
        self.messages.get(&(id, extended)).map(|m| m.name.as_str())
    }

    pub fn decode(&self, frame: &CanFrame) -> Result<DecodedMessage<'_>, DecodeError> {
        let m = self
            .messages
            .get(&(frame.id, frame.extended))
            .ok_or(DecodeError::UnknownId {
                id: frame.id,
                extended: frame.extended,
            })?;
        if frame.remote || frame.error {
            return Err(DecodeError::NoData);
        }
        let data = &frame.data;
        let mut truncated = false;
        let mux_value = m
            .signals
            .iter()
            .find(|s| {
                matches!(
                    s.mux,
                    MultiplexIndicator::Multiplexor
                        | MultiplexIndicator::MultiplexorAndMultiplexedSignal(_)
                )
            })
            .and_then(|s| extract(data, s.start, s.size, s.big_endian));
        let mut signals = Vec::with_capacity(m.signals.len());
        for s in &m.signals {
            match s.mux {
                MultiplexIndicator::MultiplexedSignal(v)
                | MultiplexIndicator::MultiplexorAndMultiplexedSignal(v)
                    if mux_value != Some(v) =>
                {
                    continue;
                }
                _ => {}
            }
            let Some(raw) = extract(data, s.start, s.size, s.big_endian) else {
                truncated = true;
                continue;
            };
            let base = match s.kind {
                Kind::Int { signed: true } if s.size > 0 && s.size < 64 => {
                    let shift = 64 - s.size;
                    (((raw << shift) as i64) >> shift) as f64
                }
                Kind::Int { signed: true } => raw as i64 as f64,
                Kind::Int { signed: false } => raw as f64,
                Kind::F32 => f32::from_bits(raw as u32) as f64,
                Kind::F64 => f64::from_bits(raw),
            };
            signals.push((s.name.as_str(), base * s.factor + s.offset));
        }
        Ok(DecodedMessage {
            name: &m.name,
            id: frame.id,
            extended: frame.extended,
            signals,
            truncated,
        })
    }
}

/// Raw bits of a signal, None if it does not fit in `data`.
fn extract(data: &[u8], start: u32, size: u32, big_endian: bool) -> Option<u64> {
    if size == 0 || size > 64 {
        return None;
    }
    let bit = |pos: u32| -> Option<u64> {
        let byte = data.get((pos / 8) as usize)?;
        Some(u64::from((byte >> (pos % 8)) & 1))
    };
    let mut raw: u64 = 0;
    if big_endian {
        // Start bit is the MSB; walk towards the LSB in sawtooth order.
        let mut pos = start;
        for i in 0..size {
            raw = (raw << 1) | bit(pos)?;
            if i + 1 < size {
                pos = if pos & 7 == 0 { pos + 15 } else { pos - 1 };
            }
        }
    } else {
        for i in 0..size {
            raw |= bit(start + i)? << i;
        }
    }
    Some(raw)
}

/// A DBC signal by message and signal name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignalRef {
    pub message: String,
    pub signal: String,
}

impl SignalRef {
    pub fn new(message: &str, signal: &str) -> Self {
        Self {
            message: message.into(),
            signal: signal.into(),
        }
    }
}

/// Which DBC signals feed which twin fields (TOML/JSON configurable). Defaults fit `vut.dbc`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CanMapping {
    /// Steering-wheel angle, degrees positive left after `steering_factor`.
    pub steering_wheel_deg: Option<SignalRef>,
    /// Multiplier applied to the steering signal (e.g. -1 if the DBC counts positive right).
    pub steering_factor: f64,
    /// Brake light: signal value ≠ 0 means on.
    pub brake_light: Option<SignalRef>,
    /// Forward collision warning: signal value ≠ 0 means issued (its onset closes the Euro NCAP
    /// validity window). None by default: `vut.dbc` has no such signal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fcw: Option<SignalRef>,
    /// Wheel speeds averaged into `wheel_speed_mps`.
    pub wheel_speeds: Vec<SignalRef>,
    /// Multiplier from the wheel-speed unit to m/s (1/3.6 for km/h).
    pub wheel_speed_factor: f64,
}

impl Default for CanMapping {
    fn default() -> Self {
        Self {
            steering_wheel_deg: Some(SignalRef::new("STEERING_SENSORS", "STEER_ANGLE")),
            steering_factor: 1.0,
            brake_light: Some(SignalRef::new("LIGHTS_STATUS", "BRAKE_LIGHT")),
            fcw: None,
            wheel_speeds: ["FL", "FR", "RL", "RR"]
                .iter()
                .map(|w| SignalRef::new("WHEEL_SPEEDS", &format!("WHEEL_SPEED_{w}")))
                .collect(),
            wheel_speed_factor: 1.0 / 3.6,
        }
    }
}

/// Twin-relevant values carried by one CAN frame (fields the frame does not carry are None).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct CanUpdate {
    pub time_s: f64,
    pub steering_wheel_deg: Option<f64>,
    pub brake_light: Option<bool>,
    /// Mean of the mapped wheel speeds, m/s.
    pub wheel_speed_mps: Option<f64>,
    pub fcw: Option<bool>,
}

impl CanUpdate {
    pub fn is_empty(&self) -> bool {
        self.steering_wheel_deg.is_none()
            && self.brake_light.is_none()
            && self.wheel_speed_mps.is_none()
            && self.fcw.is_none()
    }
}

/// Latest CAN values of one vehicle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct CanState {
    pub steering_wheel_deg: Option<f64>,
    pub brake_light: Option<bool>,
    pub wheel_speed_mps: Option<f64>,
    pub fcw: Option<bool>,
}

impl CanMapping {
    /// Every mapped signal the DBC does not define, as `MESSAGE.SIGNAL (field)`: a mapping that
    /// names a missing signal would silently never fire. The defaults are not checked (a DBC
    /// need not carry all of them); an explicitly mapped FCW is.
    pub fn missing_in(&self, dbc: &DbcDecoder) -> Vec<String> {
        self.fcw
            .iter()
            .filter(|r| !dbc.has_signal(&r.message, &r.signal))
            .map(|r| format!("{}.{} (fcw)", r.message, r.signal))
            .collect()
    }

    /// Extracts the mapped values from a decoded message.
    pub fn apply(&self, time_s: f64, m: &DecodedMessage<'_>) -> CanUpdate {
        let get = |r: &SignalRef| (r.message == m.name).then(|| m.get(&r.signal)).flatten();
        let wheel: Vec<f64> = self.wheel_speeds.iter().filter_map(get).collect();
        CanUpdate {
            time_s,
            steering_wheel_deg: self
                .steering_wheel_deg
                .as_ref()
                .and_then(get)
                .map(|v| v * self.steering_factor),
            brake_light: self.brake_light.as_ref().and_then(get).map(|v| v != 0.0),
            wheel_speed_mps: (!wheel.is_empty())
                .then(|| wheel.iter().sum::<f64>() / wheel.len() as f64 * self.wheel_speed_factor),
            fcw: self.fcw.as_ref().and_then(get).map(|v| v != 0.0),
        }
    }
}

impl CanState {
    pub fn update(&mut self, u: &CanUpdate) {
        if u.steering_wheel_deg.is_some() {
            self.steering_wheel_deg = u.steering_wheel_deg;
        }
        if u.brake_light.is_some() {
            self.brake_light = u.brake_light;
        }
        if u.wheel_speed_mps.is_some() {
            self.wheel_speed_mps = u.wheel_speed_mps;
        }
        if u.fcw.is_some() {
            self.fcw = u.fcw;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DBC: &str = r#"VERSION ""

NS_ :

BS_:

BU_: A

BO_ 256 MUXED: 8 A
 SG_ MUX M : 0|8@1+ (1,0) [0|255] "" Vector__XXX
 SG_ SIG_A m0 : 8|16@1- (0.5,10) [0|0] "" Vector__XXX
 SG_ SIG_B m1 : 8|12@0+ (1,0) [0|0] "" Vector__XXX
 SG_ F : 32|32@1- (1,0) [0|0] "" Vector__XXX

SIG_VALTYPE_ 256 F : 1;
"#;

    #[test]
    fn multiplexing_intel_motorola_float() {
        let d = DbcDecoder::parse(DBC).unwrap();
        let mut data = [0u8; 8];
        data[0] = 0;
        data[1..3].copy_from_slice(&(-4i16).to_le_bytes());
        data[4..8].copy_from_slice(&1.5f32.to_le_bytes());
        let m = d.decode(&CanFrame::new(256, false, &data)).unwrap();
        assert_eq!(m.get("SIG_A"), Some(-4.0 * 0.5 + 10.0));
        assert_eq!(m.get("SIG_B"), None);
        assert_eq!(m.get("F"), Some(1.5));
        data[0] = 1;
        // Motorola 12 bits from bit 8 (MSB = bit 0 of byte 1... start bit 8 is byte1 bit0):
        // MSB at byte1 bit0, then byte2 bits 7..=0, then byte3 bits 7..5.
        data[1] = 0x01;
        data[2] = 0x23;
        data[3] = 0x40;
        let m = d.decode(&CanFrame::new(256, false, &data)).unwrap();
        assert_eq!(m.get("SIG_A"), None);
        // bits: 1 | 0010 0011 | 010 → 0b1_0010_0011_010 = 0x91A
        assert_eq!(m.get("SIG_B"), Some(0x91A as f64));
        assert!(matches!(
            d.decode(&CanFrame::new(257, false, &data)),
            Err(DecodeError::UnknownId { .. })
        ));
        // Short frame: signals that do not fit are skipped, no panic.
        let m = d.decode(&CanFrame::new(256, false, &[0, 1])).unwrap();
        assert!(m.truncated);
    }
}
