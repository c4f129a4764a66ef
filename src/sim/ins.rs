//! Simulated INS: turns recorded samples (a replay CSV) into an OxTS NCOM stream.
//!
//! The recorded rows (25 Hz in the shared replays) are interpolated to `rate_hz` (100 Hz like an
//! RT3000), each packet carries navigation status 4 (locked) and a status channel that cycles
//! 0, 3, 4, 5, 3, 4, 5, … (channel 0 — the GPS minute — every 10th packet, as real devices do
//! roughly). Local x/y samples need a [`MapToGeo`] (the map's geoReference, inverse direction) to
//! become latitude/longitude; WGS84 samples are sent as they are.

use std::net::SocketAddr;
use std::path::Path;

use anyhow::Context;
use std::time::Duration;

use crate::ingest::can::{cannelloni, CanFrame};
use crate::ingest::ncom::{self, NcomState, PACKET_LEN, SECONDS_PER_WEEK};
use crate::sample::{InsPosition, InsSample};

/// Map x/y → WGS84, the inverse of the interface block's geo transform.
pub trait MapToGeo: Send + Sync {
    /// Returns (lat_deg, lon_deg).
    fn to_wgs84(&self, x: f64, y: f64) -> (f64, f64);
    /// Degrees to add to a map-grid heading to get the true-north heading an INS reports at
    /// this point (the grid convergence); 0 by default.
    fn grid_to_true_deg(&self, _lat_deg: f64, _lon_deg: f64) -> f64 {
        0.0
    }
}

impl<F: Fn(f64, f64) -> (f64, f64) + Send + Sync> MapToGeo for F {
    fn to_wgs84(&self, x: f64, y: f64) -> (f64, f64) {
        self(x, y)
    }
}

#[derive(Debug, Clone)]
pub struct FeedOptions {
    /// Output rate, Hz (the tick is rounded to whole milliseconds).
    pub rate_hz: f64,
    /// GPS week the samples' seconds-of-week belong to (for the absolute GPS minute).
    pub gps_week: i64,
    /// Altitude used when a sample has none, m.
    pub default_alt_m: f64,
    pub nav_status: u8,
}

impl Default for FeedOptions {
    fn default() -> Self {
        Self {
            rate_hz: 100.0,
            gps_week: 2400,
            default_alt_m: 0.0,
            nav_status: ncom::nav_status::LOCKED,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FeedError {
    #[error("sample at t={0} has a local position but no map geoReference was given (--map)")]
    NoGeo(f64),
    #[error("fewer than one sample")]
    Empty,
    #[error("bad rate {0}")]
    Rate(f64),
}

#[derive(Debug, Clone, Copy)]
struct Pt {
    t_ms: i64,
    lat: f64,
    lon: f64,
    alt: f64,
    heading: f64,
    speed: f64,
    accel: Option<f64>,
}

fn shortest(a: f64, b: f64) -> f64 {
    (b - a + 540.0).rem_euclid(360.0) - 180.0
}

/// One timed packet of the simulated stream.
#[derive(Debug, Clone, Copy)]
pub struct TimedPacket {
    /// Seconds of week of this packet.
    pub time_s: f64,
    pub bytes: [u8; PACKET_LEN],
}

/// Builds the NCOM packet stream for `samples`.
pub fn ncom_stream(
    samples: &[InsSample],
    geo: Option<&dyn MapToGeo>,
    opts: &FeedOptions,
) -> Result<Vec<TimedPacket>, FeedError> {
    Ok(ins_states(samples, geo, opts)?
        .into_iter()
        .enumerate()
        .map(|(k, state)| {
            let channel = match k % 10 {
                0 => 0,
                r => [3, 4, 5][(r - 1) % 3],
            };
            TimedPacket {
                time_s: state.gps_time_ms.rem_euclid(SECONDS_PER_WEEK * 1000) as f64 / 1000.0,
                bytes: ncom::encode_packet(&state.packet(channel)),
            }
        })
        .collect())
}

/// Builds the GeneSys ADMAnet (v3.3.3) packet stream for `samples`, on the same ticks as the
/// NCOM stream: (seconds of week, packet).
pub fn adma_stream(
    samples: &[InsSample],
    geo: Option<&dyn MapToGeo>,
    opts: &FeedOptions,
) -> Result<Vec<(f64, Vec<u8>)>, FeedError> {
    use crate::ingest::adma;
    Ok(ins_states(samples, geo, opts)?
        .into_iter()
        .map(|st| {
            let state = adma::AdmaState {
                gps_time_ms: st.gps_time_ms,
                lat_deg: st.lat_deg,
                lon_deg: st.lon_deg,
                alt_m: st.alt_m,
                heading_deg: st.heading_deg,
                speed_mps: st.speed_mps,
                accel_mps2: st.accel_mps2,
                yaw_rate_rps: st.yaw_rate_rps,
                leap_seconds: 18,
            };
            (
                st.gps_time_ms.rem_euclid(SECONDS_PER_WEEK * 1000) as f64 / 1000.0,
                adma::encode_packet(&state.packet(), &adma::layout::V3_3_3),
            )
        })
        .collect())
}

/// The INS states of the simulated stream, one per tick of `opts.rate_hz`.
fn ins_states(
    samples: &[InsSample],
    geo: Option<&dyn MapToGeo>,
    opts: &FeedOptions,
) -> Result<Vec<NcomState>, FeedError> {
    if !(opts.rate_hz > 0.0 && opts.rate_hz <= 1000.0) {
        return Err(FeedError::Rate(opts.rate_hz));
    }
    let step_ms = (1000.0 / opts.rate_hz).round().max(1.0) as i64;
    let mut pts = Vec::with_capacity(samples.len());
    for s in samples {
        let (lat, lon, alt, heading) = match s.position {
            InsPosition::Wgs84 {
                lat_deg,
                lon_deg,
                alt_m,
            } => (
                lat_deg,
                lon_deg,
                alt_m.unwrap_or(opts.default_alt_m),
                s.heading_deg,
            ),
            InsPosition::Local { x, y } => {
                let g = geo.ok_or(FeedError::NoGeo(s.time_s))?;
                let (lat, lon) = g.to_wgs84(x, y);
                let h = s.heading_deg + g.grid_to_true_deg(lat, lon);
                (lat, lon, opts.default_alt_m, h)
            }
        };
        pts.push(Pt {
            t_ms: (s.time_s * 1000.0).round() as i64,
            lat,
            lon,
            alt,
            heading,
            speed: s.speed_mps,
            accel: s.accel_mps2,
        });
    }
    let (first, last) = match (pts.first(), pts.last()) {
        (Some(f), Some(l)) => (f.t_ms, l.t_ms),
        _ => return Err(FeedError::Empty),
    };
    let week_ms = opts.gps_week * SECONDS_PER_WEEK * 1000;
    let mut out = Vec::new();
    let mut seg = 0usize;
    let mut t = first.div_euclid(step_ms) * step_ms;
    if t < first {
        t += step_ms;
    }
    while t <= last {
        while seg + 1 < pts.len() && pts[seg + 1].t_ms <= t {
            seg += 1;
        }
        let a = pts[seg];
        let b = pts.get(seg + 1).copied().unwrap_or(a);
        let dt = (b.t_ms - a.t_ms) as f64;
        let w = if dt > 0.0 {
            (t - a.t_ms) as f64 / dt
        } else {
            0.0
        };
        let lerp = |x: f64, y: f64| x + w * (y - x);
        let dh = shortest(a.heading, b.heading);
        let state = NcomState {
            gps_time_ms: week_ms + t,
            lat_deg: lerp(a.lat, b.lat),
            lon_deg: lerp(a.lon, b.lon),
            alt_m: lerp(a.alt, b.alt),
            heading_deg: (a.heading + w * dh).rem_euclid(360.0),
            speed_mps: lerp(a.speed, b.speed),
            accel_mps2: a
                .accel
                .or_else(|| (dt > 0.0).then(|| (b.speed - a.speed) / (dt / 1000.0))),
            // Heading increases clockwise; map yaw rate is counter-clockwise positive.
            yaw_rate_rps: (dt > 0.0).then(|| -dh.to_radians() / (dt / 1000.0)),
            nav_status: opts.nav_status,
        };
        out.push(state);
        t += step_ms;
    }
    Ok(out)
}

/// Sends packets to `target` at their recorded pace divided by `speed` (`speed <= 0`: as fast as
/// possible). Returns the number of datagrams sent.
pub async fn send_udp(
    packets: &[TimedPacket],
    target: SocketAddr,
    speed: f64,
) -> std::io::Result<u64> {
    let bind: SocketAddr = if target.is_ipv4() {
        "0.0.0.0:0"
    } else {
        "[::]:0"
    }
    .parse()
    .map_err(std::io::Error::other)?;
    let sock = tokio::net::UdpSocket::bind(bind).await?;
    let start = tokio::time::Instant::now();
    let t0 = packets.first().map(|p| p.time_s).unwrap_or(0.0);
    let mut n = 0;
    for p in packets {
        if speed > 0.0 {
            let due = start + Duration::from_secs_f64(((p.time_s - t0) / speed).max(0.0));
            if due > tokio::time::Instant::now() {
                tokio::time::sleep_until(due).await;
            }
        }
        sock.send_to(&p.bytes, target).await?;
        n += 1;
    }
    Ok(n)
}

/// Like [`send_udp`] for packets of any length: (seconds of week, datagram).
pub async fn send_udp_datagrams(
    packets: &[(f64, Vec<u8>)],
    target: SocketAddr,
    speed: f64,
) -> std::io::Result<u64> {
    let bind: SocketAddr = if target.is_ipv4() {
        "0.0.0.0:0"
    } else {
        "[::]:0"
    }
    .parse()
    .map_err(std::io::Error::other)?;
    let sock = tokio::net::UdpSocket::bind(bind).await?;
    let start = tokio::time::Instant::now();
    let t0 = packets.first().map(|p| p.0).unwrap_or(0.0);
    let mut n = 0;
    for (t, bytes) in packets {
        if speed > 0.0 {
            let due = start + Duration::from_secs_f64(((t - t0) / speed).max(0.0));
            if due > tokio::time::Instant::now() {
                tokio::time::sleep_until(due).await;
            }
        }
        sock.send_to(bytes, target).await?;
        n += 1;
    }
    Ok(n)
}

/// Reads a replay CSV with the replay core's reader (column auto-detection, units, bad-row
/// reporting).
pub fn read_replay_csv(path: &Path) -> anyhow::Result<Vec<InsSample>> {
    let src =
        crate::ingest::csv::CsvSource::open(path, &[], crate::ingest::csv::BadRowPolicy::Stop)?;
    Ok(src.collect::<Result<Vec<_>, _>>()?)
}

/// The map's geo frame, inverse direction, with the grid convergence for headings.
struct GeoInverse(std::sync::Arc<opendrive::geo::GeoFrame>);

impl MapToGeo for GeoInverse {
    fn to_wgs84(&self, x: f64, y: f64) -> (f64, f64) {
        self.0.to_wgs84(x, y)
    }
    fn grid_to_true_deg(&self, lat_deg: f64, lon_deg: f64) -> f64 {
        // yaw = π/2 − heading_true + convergence (frame.rs), so heading_true = heading_grid + conv.
        crate::frame::GeoToMap::convergence(self.0.as_ref(), lat_deg, lon_deg).to_degrees()
    }
}

/// Loads `map` and returns its geo inverse.
pub fn map_geo(map: Option<&Path>) -> anyhow::Result<Option<Box<dyn MapToGeo>>> {
    let Some(p) = map else { return Ok(None) };
    let m = crate::map::Map::load(p)?;
    let geo = m.geo.clone().with_context(|| {
        format!(
            "{} has no usable geoReference{}",
            p.display(),
            m.geo_warning
                .as_deref()
                .map(|w| format!(": {w}"))
                .unwrap_or_default()
        )
    })?;
    Ok(Some(Box::new(GeoInverse(geo))))
}

/// Reads a CAN log (candump, Vector ASC or BLF, MDF4 bus logging; told by content): frames
/// with their timestamps. Malformed lines (also lines that are not UTF-8) are skipped with a
/// warning naming them; a file that is no CAN log is refused naming what it is.
pub fn read_candump(path: &Path) -> anyhow::Result<Vec<CanFrame>> {
    let log = crate::ingest::can::log::CanLog::open(path).map_err(anyhow::Error::msg)?;
    let mut out = Vec::new();
    let mut bad = 0u64;
    for r in log {
        match r {
            Ok(f) if f.time_s.is_some() => out.push(f),
            Ok(_) => bad += 1,
            Err(e) => {
                bad += 1;
                tracing::warn!("{}: {e}", path.display());
            }
        }
    }
    if bad > 0 {
        eprintln!("{}: {bad} malformed lines skipped", path.display());
    }
    Ok(out)
}

/// Sends the NCOM packets to `target` and the CAN frames as cannelloni datagrams to
/// `can_target`, both on the shared time base (the CSV's and the candump log's), at the
/// recorded pace divided by `speed` (`speed <= 0`: as fast as possible). Frames due within the
/// same millisecond share a datagram. Returns (NCOM datagrams, CAN frames) sent.
pub async fn send_udp_with_can(
    packets: &[TimedPacket],
    target: SocketAddr,
    frames: &[CanFrame],
    can_target: SocketAddr,
    speed: f64,
) -> std::io::Result<(u64, u64)> {
    let any: SocketAddr = if target.is_ipv4() {
        "0.0.0.0:0"
    } else {
        "[::]:0"
    }
    .parse()
    .map_err(std::io::Error::other)?;
    let sock = tokio::net::UdpSocket::bind(any).await?;
    let start = tokio::time::Instant::now();
    // The time origin: the NCOM stream's first packet (CAN before it is sent at once).
    let t0 = packets.first().map(|p| p.time_s).unwrap_or(0.0);
    let (mut i, mut j, mut seq) = (0usize, 0usize, 0u8);
    let (mut n_ncom, mut n_can) = (0u64, 0u64);
    while i < packets.len() || j < frames.len() {
        let tn = packets.get(i).map_or(f64::INFINITY, |p| p.time_s);
        let tc = frames
            .get(j)
            .and_then(|f| f.time_s)
            .unwrap_or(f64::INFINITY);
        let t = tn.min(tc);
        if speed > 0.0 {
            let due = start + Duration::from_secs_f64(((t - t0) / speed).max(0.0));
            if due > tokio::time::Instant::now() {
                tokio::time::sleep_until(due).await;
            }
        }
        if tn <= tc {
            sock.send_to(&packets[i].bytes, target).await?;
            i += 1;
            n_ncom += 1;
        } else {
            let mut k = j;
            while k < frames.len() && frames[k].time_s.unwrap_or(f64::INFINITY) < tc + 1e-3 {
                k += 1;
            }
            sock.send_to(&cannelloni::encode(seq, &frames[j..k]), can_target)
                .await?;
            seq = seq.wrapping_add(1);
            n_can += (k - j) as u64;
            j = k;
        }
    }
    Ok((n_ncom, n_can))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::ncom::{decode_packet, NcomDecoder};

    #[test]
    fn interpolates_to_100hz_and_decodes() {
        let mk = |t: f64, lon: f64, h: f64| InsSample {
            time_s: t,
            vehicle: "vut".into(),
            position: InsPosition::Wgs84 {
                lat_deg: 46.9,
                lon_deg: lon,
                alt_m: Some(200.0),
            },
            heading_deg: h,
            speed_mps: 8.0,
            steering_wheel_deg: None,
            brake_light: None,
            accel_mps2: None,
            yaw_rate_rps: None,
            wheel_speed_mps: None,
            fcw: None,
        };
        let s = [mk(100.0, 16.0, 359.0), mk(100.04, 16.0004, 1.0)];
        let pk = ncom_stream(&s, None, &FeedOptions::default()).unwrap();
        assert_eq!(pk.len(), 5);
        let mut d = NcomDecoder::new("vut");
        let fixes: Vec<_> = pk
            .iter()
            .map(|p| d.handle_packet(&decode_packet(&p.bytes).unwrap()).unwrap())
            .collect();
        assert!((fixes[2].sample.time_s - 100.02).abs() < 1e-9);
        assert!(fixes[2].sample.heading_deg.abs() < 1e-4 || fixes[2].sample.heading_deg > 359.9999);
        let InsPosition::Wgs84 { lon_deg, .. } = fixes[2].sample.position else {
            panic!()
        };
        assert!((lon_deg - 16.0002).abs() < 1e-12);
        // Local positions need a geo inverse.
        let mut l = s[0].clone();
        l.position = InsPosition::Local { x: 1.0, y: 2.0 };
        assert!(matches!(
            ncom_stream(&[l], None, &FeedOptions::default()),
            Err(FeedError::NoGeo(_))
        ));
    }
}
