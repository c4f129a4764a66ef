//! WGS84 → map through the PROJ C library (cargo feature `proj`).
//!
//! The default projection is the pure-Rust one in `opendrive::geo`; this one exists to
//! cross-check it (CI builds PROJ and asserts both agree within 1 mm on every shared map) and
//! for sites that want PROJ itself. Only the horizontal part is used: `+geoidgrids` and `+vunits`
//! are dropped (grids are not shipped and heights do not enter the twin).

use std::sync::Mutex;

use opendrive::Offset;

/// A geoReference evaluated by PROJ, plus the header `<offset>`.
pub struct ProjGeo {
    proj: Mutex<proj::Proj>,
    offset: Option<Offset>,
}

#[derive(Debug, thiserror::Error)]
#[error("PROJ cannot use geoReference '{georef}': {reason}")]
pub struct ProjGeoError {
    pub georef: String,
    pub reason: String,
}

/// Removes the vertical-only parameters PROJ would try to resolve from grid files.
pub fn horizontal_only(proj4: &str) -> String {
    proj4
        .split_whitespace()
        .filter(|p| !p.starts_with("+geoidgrids") && !p.starts_with("+vunits"))
        .collect::<Vec<_>>()
        .join(" ")
}

impl ProjGeo {
    pub fn new(proj4: &str, offset: Option<Offset>) -> Result<ProjGeo, ProjGeoError> {
        let target = horizontal_only(proj4);
        let p =
            proj::Proj::new_known_crs("EPSG:4326", &target, None).map_err(|e| ProjGeoError {
                georef: proj4.to_string(),
                reason: e.to_string(),
            })?;
        Ok(ProjGeo {
            proj: Mutex::new(p),
            offset,
        })
    }

    /// Map x/y of a WGS84 point: projected, then the header offset removed
    /// (projected = rotate(map, hdg) + (x, y), so map = rotate(projected − (x, y), −hdg)).
    pub fn to_map(&self, lat_deg: f64, lon_deg: f64) -> Result<(f64, f64), ProjGeoError> {
        let guard = self.proj.lock().map_err(|_| ProjGeoError {
            georef: String::new(),
            reason: "PROJ context poisoned".into(),
        })?;
        let (e, n) = guard
            .convert((lon_deg, lat_deg))
            .map_err(|e| ProjGeoError {
                georef: String::new(),
                reason: e.to_string(),
            })?;
        Ok(match &self.offset {
            None => (e, n),
            Some(o) => {
                let (dx, dy) = (e - o.x, n - o.y);
                let (s, c) = (-o.hdg).sin_cos();
                (c * dx - s * dy, s * dx + c * dy)
            }
        })
    }
}

impl crate::frame::GeoToMap for ProjGeo {
    fn to_map(&self, lat_deg: f64, lon_deg: f64) -> (f64, f64) {
        ProjGeo::to_map(self, lat_deg, lon_deg).unwrap_or((f64::NAN, f64::NAN))
    }
}
