//! WGS84 → map through the PROJ C library (cargo feature `proj`).
//!
//! The default projection is the pure-Rust one in `opendrive::geo`; this one exists to
//! cross-check it (CI builds PROJ and asserts both agree within 1 mm on every shared map) and
//! for sites that want PROJ itself. Only the horizontal part is used: `+geoidgrids` and `+vunits`
//! are dropped (grids are not shipped and heights do not enter the twin).
//!
//! A PROJ context is not thread-safe (`proj::Proj` is not `Send`), so each thread keeps its own
//! transformation per geoReference.

use std::cell::RefCell;
use std::collections::HashMap;

use opendrive::Offset;

/// A geoReference evaluated by PROJ, plus the header `<offset>`.
pub struct ProjGeo {
    target: String,
    offset: Option<Offset>,
}

#[derive(Debug, thiserror::Error)]
#[error("PROJ cannot use geoReference '{georef}': {reason}")]
pub struct ProjGeoError {
    pub georef: String,
    pub reason: String,
}

thread_local! {
    static TRANSFORMS: RefCell<HashMap<String, proj::Proj>> = RefCell::new(HashMap::new());
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
    /// Validates the geoReference with PROJ once (on this thread) and keeps it.
    pub fn new(proj4: &str, offset: Option<Offset>) -> Result<ProjGeo, ProjGeoError> {
        let g = ProjGeo {
            target: horizontal_only(proj4),
            offset,
        };
        g.with_transform(|_| Ok(())).map(|_| g)
    }

    fn projected(&self, lat_deg: f64, lon_deg: f64) -> Result<(f64, f64), ProjGeoError> {
        self.with_transform(|p| p.convert((lon_deg, lat_deg)).map_err(|e| e.to_string()))
    }

    fn with_transform<R>(
        &self,
        f: impl FnOnce(&proj::Proj) -> Result<R, String>,
    ) -> Result<R, ProjGeoError> {
        let err = |reason: String| ProjGeoError {
            georef: self.target.clone(),
            reason,
        };
        TRANSFORMS.with(|cell| {
            let mut map = cell.borrow_mut();
            if !map.contains_key(&self.target) {
                let p = proj::Proj::new_known_crs("EPSG:4326", &self.target, None)
                    .map_err(|e| err(e.to_string()))?;
                map.insert(self.target.clone(), p);
            }
            let p = map
                .get(&self.target)
                .ok_or_else(|| err("transformation missing".into()))?;
            f(p).map_err(err)
        })
    }

    /// Map x/y of a WGS84 point: projected, then the header offset removed
    /// (projected = rotate(map, hdg) + (x, y), so map = rotate(projected − (x, y), −hdg)).
    pub fn to_map(&self, lat_deg: f64, lon_deg: f64) -> Result<(f64, f64), ProjGeoError> {
        let (e, n) = self.projected(lat_deg, lon_deg)?;
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
