//! A site of one's own: a layout placed at a proving ground, or a road made from a survey drive.
//!
//! Placing is `opendrive::place` (the layout's plan view turned and moved, a geoReference
//! added). Surveying reads a recording with WGS84 positions (an OxTS NcomToCsv export, a CSV
//! with latitude/longitude, an NCOM capture), keeps the samples where the car moved forward,
//! projects them onto a transverse Mercator plane about the first one and fits the reference
//! line with `opendrive::survey`.

use std::path::Path;

use anyhow::Context;
use opendrive::geo::Projection;
use opendrive::place::tmerc_at;
use opendrive::survey::{Fit, Lanes};

use crate::sample::{InsPosition, InsSample};

/// Slower than this (m/s) a sample counts as standing still.
pub const STANDING_MPS: f64 = 0.3;

/// `LAT,LON[,ALT]` as numbers.
pub fn parse_origin(s: &str) -> anyhow::Result<(f64, f64, Option<f64>)> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if !(2..=3).contains(&parts.len()) {
        anyhow::bail!("origin '{s}': expected LAT,LON or LAT,LON,ALT");
    }
    let num = |what: &str, v: &str| {
        v.parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .ok_or_else(|| anyhow::anyhow!("origin '{s}': {what} '{v}' is not a number"))
    };
    let alt = match parts.get(2) {
        Some(v) => Some(num("altitude", v)?),
        None => None,
    };
    Ok((num("latitude", parts[0])?, num("longitude", parts[1])?, alt))
}

/// Reads a recording: an NCOM capture (by its sync byte) or any CSV the replay reader takes.
pub fn read_recording(path: &Path) -> anyhow::Result<Vec<InsSample>> {
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    if bytes.first() == Some(&crate::ingest::ncom::SYNC) {
        let mut stream = crate::ingest::ncom::NcomStreamDecoder::new();
        let mut dec = crate::ingest::ncom::NcomDecoder::new("vut");
        stream.push(&bytes);
        let mut out = Vec::new();
        while let Some(p) = stream.next_packet() {
            if let Ok(fix) = dec.handle_packet(&p) {
                out.push(fix.sample);
            }
        }
        return Ok(out);
    }
    crate::sim::ins::read_replay_csv(path).with_context(|| format!("{}", path.display()))
}

/// Transverse Mercator about (lat, lon) on WGS84 with scale 1: the frame of [`tmerc_at`].
fn wgs84_tmerc(lat: f64, lon: f64) -> Projection {
    Projection::tmerc(6_378_137.0, 1.0 / 298.257_223_563, lat, lon, 1.0, 0.0, 0.0)
}

/// The positions of a drive the road is made from.
#[derive(Debug, Clone)]
pub struct Drive {
    /// (lat, lon) in degrees of each kept sample, in drive order.
    pub wgs84: Vec<(f64, f64)>,
    /// Source time of each kept sample.
    pub time_s: Vec<f64>,
    /// Samples dropped because the car stood (slower than [`STANDING_MPS`]).
    pub standing: usize,
    /// Samples dropped because the car moved against its heading.
    pub reversing: usize,
}

/// The samples where the car moved forward. A recording without WGS84 positions is refused.
pub fn moving(samples: &[InsSample]) -> anyhow::Result<Drive> {
    let mut d = Drive {
        wgs84: Vec::new(),
        time_s: Vec::new(),
        standing: 0,
        reversing: 0,
    };
    let mut local = 0usize;
    // A plane about the first position measures the moves (metres east/north).
    let mut plane: Option<Projection> = None;
    let mut last: Option<(f64, f64)> = None;
    for s in samples {
        let (lat, lon) = match s.position {
            InsPosition::Wgs84 {
                lat_deg, lon_deg, ..
            } => (lat_deg, lon_deg),
            InsPosition::Local { .. } => {
                local += 1;
                continue;
            }
        };
        if s.speed_mps < STANDING_MPS {
            d.standing += 1;
            continue;
        }
        if !(lat.is_finite() && lon.is_finite()) {
            anyhow::bail!(
                "sample at time {:.3}: latitude/longitude not finite",
                s.time_s
            );
        }
        let pl = plane.get_or_insert_with(|| wgs84_tmerc(lat, lon));
        let (e, n) = pl.forward(lat, lon);
        if let Some((le, ln)) = last {
            let (de, dn) = (e - le, n - ln);
            // INS heading: 0 = north, clockwise, so its direction is (sin h, cos h) east/north.
            let (sh, ch) = s.heading_deg.to_radians().sin_cos();
            if de * sh + dn * ch < 0.0 {
                d.reversing += 1;
                continue;
            }
        }
        last = Some((e, n));
        d.wgs84.push((lat, lon));
        d.time_s.push(s.time_s);
    }
    if d.wgs84.is_empty() {
        if local > 0 {
            anyhow::bail!(
                "the recording has map x/y positions, not WGS84 latitude/longitude: a survey needs \
                 the INS's own positions"
            );
        }
        if samples.is_empty() {
            anyhow::bail!("the recording holds no positions");
        }
        anyhow::bail!(
            "the car never moved (all {} samples slower than {STANDING_MPS} m/s)",
            samples.len()
        );
    }
    Ok(d)
}

/// A surveyed road.
#[derive(Debug, Clone)]
pub struct Survey {
    /// The OpenDRIVE document.
    pub xodr: String,
    /// The fit (its distances are in the order of [`Drive::wgs84`]).
    pub fit: Fit,
    /// The positions it was made from.
    pub drive: Drive,
    /// The geoReference (tmerc about the first kept sample).
    pub geo_reference: String,
}

/// Makes a road from a recording: see the module documentation.
pub fn survey(
    samples: &[InsSample],
    lanes: &Lanes,
    tolerance: f64,
    name: &str,
) -> anyhow::Result<Survey> {
    if !(lanes.width.is_finite() && lanes.width > 0.0 && lanes.width <= 20.0) {
        anyhow::bail!("lane width {} m is not within (0, 20]", lanes.width);
    }
    if lanes.left + lanes.right == 0 {
        anyhow::bail!("a road needs at least one lane (--lanes-left or --lanes-right)");
    }
    if !(tolerance.is_finite() && tolerance > 0.0) {
        anyhow::bail!("tolerance {tolerance} m must be a positive number");
    }
    let drive = moving(samples)?;
    let (lat0, lon0) = drive.wgs84[0];
    let geo_reference = tmerc_at(lat0, lon0);
    let plane = Projection::from_proj4(&geo_reference)?;
    let pts: Vec<(f64, f64)> = drive
        .wgs84
        .iter()
        .map(|&(lat, lon)| plane.forward(lat, lon))
        .collect();
    let fit = opendrive::survey::fit(&pts, tolerance).map_err(|e| match e {
        opendrive::survey::FitError::Tolerance { index, .. } => anyhow::anyhow!(
            "{e} (the sample at time {:.3})",
            drive.time_s.get(index).copied().unwrap_or(f64::NAN)
        ),
        _ => anyhow::anyhow!("{e}"),
    })?;
    let xodr = opendrive::survey::write_xodr(&fit, lanes, &geo_reference, name);
    Ok(Survey {
        xodr,
        fit,
        drive,
        geo_reference,
    })
}
