//! The map the twin lives on: an OpenDRIVE road network plus its geo frame.
//!
//! The road manager itself is the `opendrive` crate; this module only adapts it to the twin's
//! seams ([`crate::twin::MapMatcher`], [`crate::frame::GeoToMap`]).

use std::path::Path;
use std::sync::Arc;

use opendrive::geo::GeoFrame;
use opendrive::OpenDrive;

use crate::twin::{LaneMatch, MapMatcher};

/// A loaded map.
pub struct Map {
    pub road_network: Arc<OpenDrive>,
    pub geo: Option<Arc<GeoFrame>>,
    /// Why there is no geo frame when the header has a geoReference we could not use.
    pub geo_warning: Option<String>,
}

impl Map {
    pub fn load(path: &Path) -> anyhow::Result<Map> {
        let od =
            OpenDrive::from_path(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok(Self::from_road_network(od))
    }

    pub fn from_road_network(od: OpenDrive) -> Map {
        let (geo, geo_warning) = match GeoFrame::from_header(&od.header) {
            Ok(g) => (g.map(Arc::new), None),
            Err(e) => (None, Some(e.to_string())),
        };
        Map {
            road_network: Arc::new(od),
            geo,
            geo_warning,
        }
    }

    pub fn matcher(&self) -> Arc<dyn MapMatcher> {
        Arc::new(RoadMatcher(self.road_network.clone()))
    }
}

fn lane_match(p: opendrive::LanePosition) -> LaneMatch {
    LaneMatch {
        road_id: p.road_id,
        lane_id: p.lane_id,
        s: p.s,
        t: p.t,
        heading_rel_rad: p.heading_rel,
    }
}

/// Map matching through the OpenDRIVE spatial index.
pub struct RoadMatcher(pub Arc<OpenDrive>);

impl MapMatcher for RoadMatcher {
    fn locate(&self, x: f64, y: f64, yaw_rad: f64) -> Option<LaneMatch> {
        self.0.locate(x, y, Some(yaw_rad)).map(lane_match)
    }

    fn locate_hinted(
        &self,
        x: f64,
        y: f64,
        yaw_rad: f64,
        hint: &mut opendrive::MatchHint,
    ) -> Option<LaneMatch> {
        self.0
            .locate_hinted(x, y, Some(yaw_rad), hint)
            .map(lane_match)
    }

    fn lane_span(&self, road: &str, lane: i32, s: f64) -> Option<(f64, f64)> {
        self.0.road(road)?.lane_span(lane, s)
    }
}

/// Lanes of a map as a GeoJSON FeatureCollection, in map coordinates or (with `wgs84`) lon/lat.
pub fn lanes_geojson(od: &OpenDrive, wgs84: bool) -> anyhow::Result<serde_json::Value> {
    let coords = if wgs84 {
        opendrive::geojson::Coords::Wgs84
    } else {
        opendrive::geojson::Coords::Map
    };
    opendrive::geojson::lanes(od, coords).map_err(|e| anyhow::anyhow!("{e}"))
}

/// Streams [`lanes_geojson`]'s document into `out` one feature at a time (bounded memory on
/// large maps). An I/O error (a closed pipe) is returned as such.
pub fn write_lanes_geojson<W: std::io::Write>(
    od: &OpenDrive,
    wgs84: bool,
    out: W,
) -> Result<(), opendrive::geojson::WriteError> {
    let coords = if wgs84 {
        opendrive::geojson::Coords::Wgs84
    } else {
        opendrive::geojson::Coords::Map
    };
    opendrive::geojson::write_lanes(od, coords, 0.5, out)
}
