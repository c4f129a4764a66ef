//! GeoJSON export of lane geometry for drawing (web maps, QGIS, foxglove).
//!
//! One `LineString` feature per lane and lane section for the outer border (`kind: "border"`),
//! one for the centre line (`kind: "centre"`), and the centre-lane border (lane 0, at
//! laneOffset). Per-section features keep the properties exact where lanes change type or count.

use serde_json::{json, Value};

use crate::geo::{GeoError, GeoFrame};
use crate::{sample_s, section_range, OpenDrive};

/// Coordinate system of the exported coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coords {
    /// Map inertial x/y in metres (header offset not applied).
    Map,
    /// WGS84 `[lon, lat]` in degrees (RFC 7946 order), through the map's geoReference and offset.
    Wgs84,
}

/// Lanes of `map` as a GeoJSON FeatureCollection, sampled every 0.5 m.
pub fn lanes(map: &OpenDrive, coords: Coords) -> Result<Value, GeoError> {
    lanes_with_step(map, coords, 0.5)
}

/// Like [`lanes`] with a chosen maximum sample spacing (m). Builds the whole document in
/// memory as a [`Value`] (about 1 KB per ten points); large maps should use [`write_lanes`].
pub fn lanes_with_step(map: &OpenDrive, coords: Coords, step: f64) -> Result<Value, GeoError> {
    let mut features = Vec::new();
    visit(map, coords, step, &mut |f: &Feature<'_>| {
        let pts: Vec<Value> = f.points.iter().map(|&(a, b)| json!([a, b])).collect();
        features.push(json!({
            "type": "Feature",
            "geometry": {"type": "LineString", "coordinates": pts},
            "properties": {
                "road": f.road, "lane": f.lane, "type": f.lane_type, "kind": f.kind,
                "section": f.section, "junction": f.junction,
            }
        }));
        Ok(())
    })
    .map_err(|e| match e {
        WriteError::Geo(g) => g,
        WriteError::Io(_) => unreachable!("building a Value does no I/O"),
    })?;
    Ok(json!({"type": "FeatureCollection", "features": features}))
}

/// Error of [`write_lanes`].
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    Geo(#[from] GeoError),
    #[error("writing GeoJSON: {0}")]
    Io(#[from] std::io::Error),
}

/// Streams the same document as [`lanes_with_step`] into `out`, one feature at a time: memory
/// stays at one lane's points whatever the map's size (a 5 MB map took the server from 118 MB
/// to 3.6 GB through the in-memory [`Value`]).
pub fn write_lanes<W: std::io::Write>(
    map: &OpenDrive,
    coords: Coords,
    step: f64,
    mut out: W,
) -> Result<(), WriteError> {
    out.write_all(br#"{"type":"FeatureCollection","features":["#)?;
    let mut first = true;
    visit(map, coords, step, &mut |f: &Feature<'_>| {
        if !first {
            out.write_all(b",")?;
        }
        first = false;
        out.write_all(br#"{"type":"Feature","geometry":{"type":"LineString","coordinates":["#)?;
        for (i, &(a, b)) in f.points.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            out.write_all(b"[")?;
            serde_json::to_writer(&mut out, &a).map_err(std::io::Error::from)?;
            out.write_all(b",")?;
            serde_json::to_writer(&mut out, &b).map_err(std::io::Error::from)?;
            out.write_all(b"]")?;
        }
        out.write_all(br#"]},"properties":"#)?;
        serde_json::to_writer(
            &mut out,
            &json!({
                "road": f.road, "lane": f.lane, "type": f.lane_type, "kind": f.kind,
                "section": f.section, "junction": f.junction,
            }),
        )
        .map_err(std::io::Error::from)?;
        out.write_all(b"}")?;
        Ok(())
    })?;
    out.write_all(b"]}")?;
    out.flush()?;
    Ok(())
}

/// One lane line, as visited.
struct Feature<'a> {
    road: &'a str,
    lane: i32,
    lane_type: &'a str,
    kind: &'static str,
    section: usize,
    junction: &'a str,
    points: &'a [(f64, f64)],
}

fn visit(
    map: &OpenDrive,
    coords: Coords,
    step: f64,
    emit: &mut dyn FnMut(&Feature<'_>) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    let frame = match coords {
        Coords::Map => None,
        Coords::Wgs84 => Some(GeoFrame::from_header(&map.header)?.ok_or(GeoError::NoGeoReference)?),
    };
    let conv = |x: f64, y: f64| -> (f64, f64) {
        match &frame {
            None => (x, y),
            Some(f) => {
                let (lat, lon) = f.to_wgs84(x, y);
                (lon, lat)
            }
        }
    };
    let mut pts: Vec<(f64, f64)> = Vec::new();
    for road in &map.roads {
        for (si, ls) in road.lane_sections.iter().enumerate() {
            let Some((s0, s1)) = section_range(road, si) else {
                continue;
            };
            // Evaluate just inside the section end so the last sample uses this section.
            let ss: Vec<f64> = sample_s(s0, s1, step)
                .into_iter()
                .map(|s| {
                    if s >= s1 && s1 > s0 {
                        (s1 - 1e-9).max(s0)
                    } else {
                        s
                    }
                })
                .collect();
            let mut add = |lane: i32,
                           lane_type: &str,
                           kind: &'static str,
                           t_of: &dyn Fn(f64) -> Option<f64>|
             -> std::io::Result<()> {
                pts.clear();
                pts.extend(ss.iter().filter_map(|&s| {
                    t_of(s).map(|t| {
                        let (x, y) = road.st_to_xy(s, t);
                        conv(x, y)
                    })
                }));
                if pts.len() >= 2 {
                    emit(&Feature {
                        road: &road.id,
                        lane,
                        lane_type,
                        kind,
                        section: si,
                        junction: &road.junction,
                        points: &pts,
                    })?;
                }
                Ok(())
            };
            add(0, "center", "border", &|s| Some(road.lane_offset(s)))?;
            for lane in ls.left.iter().chain(ls.right.iter()) {
                let id = lane.id;
                add(id, &lane.lane_type, "border", &|s| road.border_t(id, s))?;
                add(id, &lane.lane_type, "centre", &|s| {
                    road.lane_span(id, s).map(|(a, b)| 0.5 * (a + b))
                })?;
            }
        }
    }
    Ok(())
}
