//! Pure-Rust Transverse Mercator / UTM projection and the map ↔ WGS84 frame of a map.
//!
//! The projection is the exact Poder/Engsager formulation of the Krüger series (order 6 in the
//! third flattening n) that PROJ uses by default for `+proj=tmerc` and `+proj=utm` ("etmerc"
//! algorithm): geodetic → Gaussian (conformal) latitude, complex spherical transverse Mercator,
//! then the complex Clenshaw series to the ellipsoidal northing/easting. Within a few thousand
//! km of the central meridian it agrees with PROJ to nanometres, so maps georeferenced with PROJ
//! round-trip without drift.

use thiserror::Error;

use crate::model::{Header, Offset};

/// Error interpreting a geoReference PROJ string.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum GeoError {
    /// A projection other than tmerc/utm.
    #[error("unsupported projection \"+proj={0}\" (only tmerc and utm are implemented)")]
    UnsupportedProjection(String),
    /// An ellipsoid or datum this crate does not know.
    #[error("unsupported ellipsoid/datum \"{0}\" (WGS84 and GRS80 are implemented)")]
    UnsupportedEllipsoid(String),
    /// A parameter value that is not a number or out of range.
    #[error("invalid value for +{param}: \"{value}\"")]
    InvalidParameter {
        /// Parameter name without '+'.
        param: String,
        /// Raw value.
        value: String,
    },
    /// `+proj=utm` without a usable `+zone`.
    #[error("+proj=utm needs +zone=1..60")]
    MissingZone,
    /// Geodetic output was requested for a map without `<geoReference>`.
    #[error("the map has no <geoReference>")]
    NoGeoReference,
    /// Non-metre units.
    #[error("unsupported units \"{0}\" (only metres)")]
    UnsupportedUnits(String),
}

/// A Transverse Mercator projection on an ellipsoid.
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    a: f64,
    lon0: f64,
    x0: f64,
    y0: f64,
    qn: f64,
    zb: f64,
    cgb: [f64; 6],
    cbg: [f64; 6],
    utg: [f64; 6],
    gtu: [f64; 6],
    /// True when the string had no `+proj` and tmerc was assumed (see [`Projection::from_proj4`]).
    pub assumed: bool,
    /// The string the projection was built from.
    pub definition: String,
}

fn gatg(p: &[f64; 6], b: f64) -> f64 {
    let cos_2b = 2.0 * (2.0 * b).cos();
    let mut h1 = p[5];
    let mut h2 = 0.0;
    let mut h = 0.0;
    for &c in p[..5].iter().rev() {
        h = -h2 + cos_2b * h1 + c;
        h2 = h1;
        h1 = h;
    }
    b + h * (2.0 * b).sin()
}

fn clens(a: &[f64; 6], arg: f64) -> f64 {
    let r = 2.0 * arg.cos();
    let mut hr1 = 0.0;
    let mut hr = a[5];
    for &c in a[..5].iter().rev() {
        let hr2 = hr1;
        hr1 = hr;
        hr = -hr2 + r * hr1 + c;
    }
    arg.sin() * hr
}

/// Complex Clenshaw summation of Σ a_k sin(k(arg_r + i·arg_i)); returns (real, imag).
fn clens_c(a: &[f64; 6], arg_r: f64, arg_i: f64) -> (f64, f64) {
    let (sin_r, cos_r) = arg_r.sin_cos();
    let (sinh_i, cosh_i) = (arg_i.sinh(), arg_i.cosh());
    let r = 2.0 * cos_r * cosh_i;
    let i = -2.0 * sin_r * sinh_i;
    let (mut hr, mut hi, mut hr1, mut hi1) = (a[5], 0.0, 0.0, 0.0);
    for &c in a[..5].iter().rev() {
        let (hr2, hi2) = (hr1, hi1);
        hr1 = hr;
        hi1 = hi;
        hr = -hr2 + r * hr1 - i * hi1 + c;
        hi = -hi2 + i * hr1 + r * hi1;
    }
    let r = sin_r * cosh_i;
    let i = cos_r * sinh_i;
    (r * hr - i * hi, r * hi + i * hr)
}

impl Projection {
    /// Transverse Mercator with explicit parameters (degrees, metres).
    pub fn tmerc(
        a: f64,
        f: f64,
        lat0_deg: f64,
        lon0_deg: f64,
        k0: f64,
        x0: f64,
        y0: f64,
    ) -> Projection {
        let n = f / (2.0 - f);
        let mut cgb = [0.0; 6];
        let mut cbg = [0.0; 6];
        let mut utg = [0.0; 6];
        let mut gtu = [0.0; 6];
        // Gaussian ↔ geodetic latitude (König & Weise; Engsager & Poder 2007).
        let mut np = n;
        cgb[0] = n
            * (2.0
                + n * (-2.0 / 3.0
                    + n * (-2.0 + n * (116.0 / 45.0 + n * (26.0 / 45.0 + n * (-2854.0 / 675.0))))));
        cbg[0] = n
            * (-2.0
                + n * (2.0 / 3.0
                    + n * (4.0 / 3.0
                        + n * (-82.0 / 45.0 + n * (32.0 / 45.0 + n * (4642.0 / 4725.0))))));
        np *= n;
        cgb[1] = np
            * (7.0 / 3.0
                + n * (-8.0 / 5.0
                    + n * (-227.0 / 45.0 + n * (2704.0 / 315.0 + n * (2323.0 / 945.0)))));
        cbg[1] = np
            * (5.0 / 3.0
                + n * (-16.0 / 15.0
                    + n * (-13.0 / 9.0 + n * (904.0 / 315.0 + n * (-1522.0 / 945.0)))));
        np *= n;
        cgb[2] = np
            * (56.0 / 15.0 + n * (-136.0 / 35.0 + n * (-1262.0 / 105.0 + n * (73814.0 / 2835.0))));
        cbg[2] =
            np * (-26.0 / 15.0 + n * (34.0 / 21.0 + n * (8.0 / 5.0 + n * (-12686.0 / 2835.0))));
        np *= n;
        cgb[3] = np * (4279.0 / 630.0 + n * (-332.0 / 35.0 + n * (-399572.0 / 14175.0)));
        cbg[3] = np * (1237.0 / 630.0 + n * (-12.0 / 5.0 + n * (-24832.0 / 14175.0)));
        np *= n;
        cgb[4] = np * (4174.0 / 315.0 + n * (-144838.0 / 6237.0));
        cbg[4] = np * (-734.0 / 315.0 + n * (109598.0 / 31185.0));
        np *= n;
        cgb[5] = np * (601676.0 / 22275.0);
        cbg[5] = np * (444337.0 / 155925.0);
        // Normalised meridian quadrant and the ellipsoidal ↔ spherical TM series.
        np = n * n;
        let qn = k0 / (1.0 + n) * (1.0 + np * (1.0 / 4.0 + np * (1.0 / 64.0 + np / 256.0)));
        utg[0] = n
            * (-0.5
                + n * (2.0 / 3.0
                    + n * (-37.0 / 96.0
                        + n * (1.0 / 360.0 + n * (81.0 / 512.0 + n * (-96199.0 / 604800.0))))));
        gtu[0] = n
            * (0.5
                + n * (-2.0 / 3.0
                    + n * (5.0 / 16.0
                        + n * (41.0 / 180.0 + n * (-127.0 / 288.0 + n * (7891.0 / 37800.0))))));
        utg[1] = np
            * (-1.0 / 48.0
                + n * (-1.0 / 15.0
                    + n * (437.0 / 1440.0 + n * (-46.0 / 105.0 + n * (1118711.0 / 3870720.0)))));
        gtu[1] = np
            * (13.0 / 48.0
                + n * (-3.0 / 5.0
                    + n * (557.0 / 1440.0 + n * (281.0 / 630.0 + n * (-1983433.0 / 1935360.0)))));
        np *= n;
        utg[2] = np
            * (-17.0 / 480.0 + n * (37.0 / 840.0 + n * (209.0 / 4480.0 + n * (-5569.0 / 90720.0))));
        gtu[2] = np
            * (61.0 / 240.0
                + n * (-103.0 / 140.0 + n * (15061.0 / 26880.0 + n * (167603.0 / 181440.0))));
        np *= n;
        utg[3] = np * (-4397.0 / 161280.0 + n * (11.0 / 504.0 + n * (830251.0 / 7257600.0)));
        gtu[3] = np * (49561.0 / 161280.0 + n * (-179.0 / 168.0 + n * (6601661.0 / 7257600.0)));
        np *= n;
        utg[4] = np * (-4583.0 / 161280.0 + n * (108847.0 / 3991680.0));
        gtu[4] = np * (34729.0 / 80640.0 + n * (-3418889.0 / 1995840.0));
        np *= n;
        utg[5] = np * (-20648693.0 / 638668800.0);
        gtu[5] = np * (212378941.0 / 319334400.0);
        let z = gatg(&cbg, lat0_deg.to_radians());
        let zb = -qn * (z + clens(&gtu, 2.0 * z));
        Projection {
            a,
            lon0: lon0_deg.to_radians(),
            x0,
            y0,
            qn,
            zb,
            cgb,
            cbg,
            utg,
            gtu,
            assumed: false,
            definition: String::new(),
        }
    }

    /// Parses a PROJ string. Supported: `+proj=tmerc` (+lat_0 +lon_0 +k/+k_0 +x_0 +y_0) and
    /// `+proj=utm` (+zone, +south; lat_0/lon_0/k/x_0/y_0 are implied and any given are ignored,
    /// as PROJ does), ellipsoid `+ellps=WGS84|GRS80` or `+datum=WGS84`, `+units=m`. Grid and
    /// vertical parameters (`+geoidgrids`, `+vunits`, `+no_defs`, …) are ignored: they do not
    /// change horizontal coordinates.
    ///
    /// A string without `+proj` (e.g. CARLA's `+lat_0=49 +lon_0=8`) is taken as `tmerc` about
    /// lat_0/lon_0 on WGS84 with k = 1 — how CARLA itself uses such origins — and the result is
    /// flagged with [`Projection::assumed`].
    pub fn from_proj4(s: &str) -> Result<Projection, GeoError> {
        let mut proj: Option<String> = None;
        let mut params: Vec<(String, Option<String>)> = Vec::new();
        for tok in s.split_whitespace() {
            let tok = tok.trim_start_matches('+');
            if tok.is_empty() {
                continue;
            }
            let (k, v) = match tok.split_once('=') {
                Some((k, v)) => (k.to_string(), Some(v.to_string())),
                None => (tok.to_string(), None),
            };
            if k == "proj" {
                proj = v;
            } else {
                params.push((k, v));
            }
        }
        let get = |name: &str| {
            params
                .iter()
                .find(|(k, _)| k == name)
                .and_then(|(_, v)| v.clone())
        };
        let num = |name: &str, default: f64| -> Result<f64, GeoError> {
            match get(name) {
                None => Ok(default),
                Some(v) => v.parse::<f64>().ok().filter(|x| x.is_finite()).ok_or(
                    GeoError::InvalidParameter {
                        param: name.to_string(),
                        value: v,
                    },
                ),
            }
        };
        // Ellipsoid: +ellps wins over +datum, as in PROJ.
        let (a, f) = match get("ellps").or_else(|| get("datum")) {
            None => (6_378_137.0, 1.0 / 298.257_223_563),
            Some(e) => match e.to_ascii_uppercase().as_str() {
                "WGS84" => (6_378_137.0, 1.0 / 298.257_223_563),
                "GRS80" => (6_378_137.0, 1.0 / 298.257_222_101),
                _ => return Err(GeoError::UnsupportedEllipsoid(e)),
            },
        };
        if let Some(u) = get("units") {
            if u != "m" {
                return Err(GeoError::UnsupportedUnits(u));
            }
        }
        let assumed = proj.is_none();
        let mut p = match proj.as_deref().unwrap_or("tmerc") {
            "tmerc" | "etmerc" => {
                let k0 = match get("k_0") {
                    Some(_) => num("k_0", 1.0)?,
                    None => num("k", 1.0)?,
                };
                Projection::tmerc(
                    a,
                    f,
                    num("lat_0", 0.0)?,
                    num("lon_0", 0.0)?,
                    k0,
                    num("x_0", 0.0)?,
                    num("y_0", 0.0)?,
                )
            }
            "utm" => {
                let zone_raw = get("zone").ok_or(GeoError::MissingZone)?;
                let zone: u32 = zone_raw
                    .parse()
                    .ok()
                    .filter(|z| (1..=60).contains(z))
                    .ok_or(GeoError::MissingZone)?;
                let south = params.iter().any(|(k, _)| k == "south");
                let lon0 = zone as f64 * 6.0 - 183.0;
                Projection::tmerc(
                    a,
                    f,
                    0.0,
                    lon0,
                    0.9996,
                    500_000.0,
                    if south { 10_000_000.0 } else { 0.0 },
                )
            }
            other => return Err(GeoError::UnsupportedProjection(other.to_string())),
        };
        p.assumed = assumed;
        p.definition = s.trim().to_string();
        Ok(p)
    }

    /// Geodetic (degrees) → (easting, northing) in metres.
    pub fn forward(&self, lat_deg: f64, lon_deg: f64) -> (f64, f64) {
        let mut cn = gatg(&self.cbg, lat_deg.to_radians());
        let mut ce = crate::wrap_angle(lon_deg.to_radians() - self.lon0);
        let (sin_cn, cos_cn) = cn.sin_cos();
        let (sin_ce, cos_ce) = ce.sin_cos();
        cn = sin_cn.atan2(cos_ce * cos_cn);
        ce = (sin_ce * cos_cn).atan2(sin_cn.hypot(cos_cn * cos_ce));
        ce = ce.tan().asinh();
        let (dcn, dce) = clens_c(&self.gtu, 2.0 * cn, 2.0 * ce);
        cn += dcn;
        ce += dce;
        (
            self.a * self.qn * ce + self.x0,
            self.a * (self.qn * cn + self.zb) + self.y0,
        )
    }

    /// (easting, northing) → geodetic (degrees).
    pub fn inverse(&self, e: f64, n: f64) -> (f64, f64) {
        let mut cn = ((n - self.y0) / self.a - self.zb) / self.qn;
        let mut ce = ((e - self.x0) / self.a) / self.qn;
        let (dcn, dce) = clens_c(&self.utg, 2.0 * cn, 2.0 * ce);
        cn += dcn;
        ce += dce;
        ce = ce.sinh().atan();
        let (sin_cn, cos_cn) = cn.sin_cos();
        let (sin_ce, cos_ce) = ce.sin_cos();
        let lam = sin_ce.atan2(cos_ce * cos_cn);
        let phi = (sin_cn * cos_ce).atan2(sin_ce.hypot(cos_ce * cos_cn));
        let lat = gatg(&self.cgb, phi);
        (
            lat.to_degrees(),
            crate::wrap_angle(lam + self.lon0).to_degrees(),
        )
    }
}

/// A map's geodetic frame: projection plus the header `<offset>`.
#[derive(Debug, Clone, PartialEq)]
pub struct GeoFrame {
    /// The projection.
    pub projection: Projection,
    /// Header offset (projected = rotate(map, hdg) + (x, y)).
    pub offset: Option<Offset>,
}

impl GeoFrame {
    /// Frame of a header; `Ok(None)` when it has no geoReference.
    pub fn from_header(h: &Header) -> Result<Option<GeoFrame>, GeoError> {
        match &h.geo_reference {
            None => Ok(None),
            Some(s) => Self::from_proj4_and_offset(s, h.offset).map(Some),
        }
    }

    /// Frame from a PROJ string and an optional header offset.
    pub fn from_proj4_and_offset(s: &str, offset: Option<Offset>) -> Result<GeoFrame, GeoError> {
        Ok(GeoFrame {
            projection: Projection::from_proj4(s)?,
            offset,
        })
    }

    /// Map (inertial) x/y → projected easting/northing.
    pub fn map_to_projected(&self, x: f64, y: f64) -> (f64, f64) {
        match self.offset {
            None => (x, y),
            Some(o) => {
                let (sn, cs) = o.hdg.sin_cos();
                (x * cs - y * sn + o.x, x * sn + y * cs + o.y)
            }
        }
    }

    /// Projected easting/northing → map x/y (inverse of [`GeoFrame::map_to_projected`]).
    pub fn projected_to_map(&self, e: f64, n: f64) -> (f64, f64) {
        match self.offset {
            None => (e, n),
            Some(o) => {
                let (dx, dy) = (e - o.x, n - o.y);
                let (sn, cs) = o.hdg.sin_cos();
                (dx * cs + dy * sn, -dx * sn + dy * cs)
            }
        }
    }

    /// WGS84 (degrees) → map x/y.
    pub fn to_map(&self, lat_deg: f64, lon_deg: f64) -> (f64, f64) {
        let (e, n) = self.projection.forward(lat_deg, lon_deg);
        self.projected_to_map(e, n)
    }

    /// Map x/y → WGS84 (lat, lon) in degrees.
    pub fn to_wgs84(&self, x: f64, y: f64) -> (f64, f64) {
        let (e, n) = self.map_to_projected(x, y);
        self.projection.inverse(e, n)
    }
}
