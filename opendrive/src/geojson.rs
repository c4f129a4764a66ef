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

/// Like [`lanes`] with a chosen maximum sample spacing (m).
pub fn lanes_with_step(map: &OpenDrive, coords: Coords, step: f64) -> Result<Value, GeoError> {
    let frame = match coords {
        Coords::Map => None,
        Coords::Wgs84 => Some(GeoFrame::from_header(&map.header)?.ok_or(GeoError::NoGeoReference)?),
    };
    let conv = |x: f64, y: f64| -> Value {
        match &frame {
            None => json!([x, y]),
            Some(f) => {
                let (lat, lon) = f.to_wgs84(x, y);
                json!([lon, lat])
            }
        }
    };
    let mut features = Vec::new();
    for road in &map.roads {
        for (si, ls) in road.lane_sections.iter().enumerate() {
            let Some((s0, s1)) = section_range(road, si) else { continue };
            // Evaluate just inside the section end so the last sample uses this section.
            let ss: Vec<f64> =
                sample_s(s0, s1, step).into_iter().map(|s| if s >= s1 && s1 > s0 { (s1 - 1e-9).max(s0) } else { s }).collect();
            let mut add = |lane: i32, lane_type: &str, kind: &str, t_of: &dyn Fn(f64) -> Option<f64>| {
                let pts: Vec<Value> = ss
                    .iter()
                    .filter_map(|&s| t_of(s).map(|t| {
                        let (x, y) = road.st_to_xy(s, t);
                        conv(x, y)
                    }))
                    .collect();
                if pts.len() >= 2 {
                    features.push(json!({
                        "type": "Feature",
                        "geometry": {"type": "LineString", "coordinates": pts},
                        "properties": {
                            "road": road.id, "lane": lane, "type": lane_type, "kind": kind,
                            "section": si, "junction": road.junction,
                        }
                    }));
                }
            };
            add(0, "center", "border", &|s| Some(road.lane_offset(s)));
            for lane in ls.left.iter().chain(ls.right.iter()) {
                let id = lane.id;
                add(id, &lane.lane_type, "border", &|s| road.border_t(id, s));
                add(id, &lane.lane_type, "centre", &|s| road.lane_span(id, s).map(|(a, b)| 0.5 * (a + b)));
            }
        }
    }
    Ok(json!({"type": "FeatureCollection", "features": features}))
}
