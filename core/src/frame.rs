//! The interface block (seed paper §2.5): INS conventions → map frame.
//!
//! * origin shift and rotation between the INS/test-site frame and the map frame,
//! * INS heading (0 = north, clockwise, degrees) → map yaw (0 = +x, counter-clockwise, radians),
//! * speed already in m/s from the source (sources convert km/h, mph),
//! * steering-wheel angle → road-wheel angle by a configurable ratio,
//! * WGS84 lat/lon → map x/y through the map's `<geoReference>` (+ header `<offset>`).

use std::f64::consts::{FRAC_PI_2, PI};
use std::sync::Arc;

use crate::sample::{InsPosition, InsSample, Sample};

/// Converts WGS84 to map x/y. Implemented by the pure-Rust [`opendrive::geo::GeoFrame`] and, with
/// the `proj` feature, by the PROJ library, so both can be swapped and cross-checked.
pub trait GeoToMap: Send + Sync {
    fn to_map(&self, lat_deg: f64, lon_deg: f64) -> (f64, f64);
    /// Grid convergence at the point, radians: the angle from true north to the map's +y axis,
    /// counter-clockwise positive. INS headings are true-north referenced; the map yaw is grid
    /// referenced, so yaw = π/2 − heading + convergence.
    fn convergence(&self, lat_deg: f64, lon_deg: f64) -> f64 {
        // Numerically: direction of a short step north, in the map frame.
        let d = 1e-6;
        let (x0, y0) = self.to_map(lat_deg, lon_deg);
        let (x1, y1) = self.to_map(lat_deg + d, lon_deg);
        -(x1 - x0).atan2(y1 - y0)
    }
}

impl GeoToMap for opendrive::geo::GeoFrame {
    fn to_map(&self, lat_deg: f64, lon_deg: f64) -> (f64, f64) {
        opendrive::geo::GeoFrame::to_map(self, lat_deg, lon_deg)
    }
}

/// Wraps an angle to (−π, π].
pub fn wrap_pi(a: f64) -> f64 {
    let mut a = opendrive::rem_tau(a + PI) - PI;
    if a <= -PI {
        a += 2.0 * PI;
    }
    a
}

/// INS heading (deg, 0 = north, clockwise) → map yaw (rad, 0 = +x/east, counter-clockwise).
pub fn heading_to_yaw(heading_deg: f64) -> f64 {
    wrap_pi(FRAC_PI_2 - heading_deg.to_radians())
}

/// Map yaw → INS heading in [0, 360).
pub fn yaw_to_heading(yaw_rad: f64) -> f64 {
    (90.0 - yaw_rad.to_degrees()).rem_euclid(360.0)
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FrameError {
    #[error("sample at t={0} has a WGS84 position but the map has no geoReference")]
    NoGeoReference(f64),
}

/// Static configuration of the interface block.
#[derive(Clone)]
pub struct Interface {
    /// Map coordinates of the INS frame's origin.
    pub origin_x: f64,
    pub origin_y: f64,
    /// Rotation of the INS frame relative to the map frame, degrees counter-clockwise.
    pub rotation_deg: f64,
    /// Steering-wheel angle / road-wheel angle.
    pub steering_ratio: f64,
    /// WGS84 → map, from the map's geoReference; `None` for maps without one.
    pub geo: Option<Arc<dyn GeoToMap>>,
    /// Correct INS (true-north) heading by the grid convergence for WGS84 positions. On for
    /// georeferenced samples: at 1 km from the central meridian the convergence is ~0.0125°.
    pub apply_convergence: bool,
}

impl Default for Interface {
    fn default() -> Self {
        Interface {
            origin_x: 0.0,
            origin_y: 0.0,
            rotation_deg: 0.0,
            steering_ratio: 16.0,
            geo: None,
            apply_convergence: true,
        }
    }
}

impl std::fmt::Debug for Interface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interface")
            .field("origin_x", &self.origin_x)
            .field("origin_y", &self.origin_y)
            .field("rotation_deg", &self.rotation_deg)
            .field("steering_ratio", &self.steering_ratio)
            .field("geo", &self.geo.is_some())
            .finish()
    }
}

impl Interface {
    /// The same interface for samples already in the map frame (a recording of map
    /// coordinates): no origin shift, no rotation; geo-reference and steering ratio kept.
    pub fn for_map_frame(&self) -> Interface {
        Interface {
            origin_x: 0.0,
            origin_y: 0.0,
            rotation_deg: 0.0,
            ..self.clone()
        }
    }

    /// Converts one INS sample to the map frame.
    pub fn to_map(&self, s: &InsSample) -> Result<Sample, FrameError> {
        self.convert(s, s.vehicle.clone())
    }

    /// [`Interface::to_map`] taking the sample, so its vehicle id moves instead of being copied
    /// (the replay path converts every sample once and drops the INS form).
    pub fn into_map(&self, mut s: InsSample) -> Result<Sample, FrameError> {
        let vehicle = std::mem::take(&mut s.vehicle);
        self.convert(&s, vehicle)
    }

    fn convert(
        &self,
        s: &InsSample,
        vehicle: crate::sample::VehicleId,
    ) -> Result<Sample, FrameError> {
        let rot = self.rotation_deg.to_radians();
        let (x, y, yaw) = match s.position {
            InsPosition::Local { x, y } => {
                // sin/cos of an exact 0 are exactly 0 and 1: most interface blocks do not rotate.
                let (sn, cs) = if rot == 0.0 {
                    (0.0, 1.0)
                } else {
                    rot.sin_cos()
                };
                (
                    self.origin_x + cs * x - sn * y,
                    self.origin_y + sn * x + cs * y,
                    heading_to_yaw(s.heading_deg) + rot,
                )
            }
            InsPosition::Wgs84 {
                lat_deg, lon_deg, ..
            } => {
                let geo = self
                    .geo
                    .as_ref()
                    .ok_or(FrameError::NoGeoReference(s.time_s))?;
                let (x, y) = geo.to_map(lat_deg, lon_deg);
                let conv = if self.apply_convergence {
                    geo.convergence(lat_deg, lon_deg)
                } else {
                    0.0
                };
                (x, y, heading_to_yaw(s.heading_deg) + conv)
            }
        };
        let road_wheel_deg = match s.steering_wheel_deg {
            Some(swa) if self.steering_ratio != 0.0 => Some(swa / self.steering_ratio),
            _ => None,
        };
        Ok(Sample {
            time_s: s.time_s,
            vehicle,
            x,
            y,
            yaw_rad: wrap_pi(yaw),
            speed_mps: s.speed_mps,
            steering_wheel_deg: s.steering_wheel_deg,
            road_wheel_deg,
            brake_light: s.brake_light,
            accel_mps2: s.accel_mps2,
            yaw_rate_rps: s.yaw_rate_rps,
            wheel_speed_mps: s.wheel_speed_mps,
            fcw: s.fcw,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heading_conventions() {
        assert!((heading_to_yaw(90.0)).abs() < 1e-12); // east
        assert!((heading_to_yaw(0.0) - FRAC_PI_2).abs() < 1e-12); // north
        assert!((heading_to_yaw(180.0) + FRAC_PI_2).abs() < 1e-12); // south
        assert!((heading_to_yaw(270.0).abs() - PI).abs() < 1e-12); // west
        for h in [0.0, 12.5, 90.0, 181.0, 359.9] {
            assert!((yaw_to_heading(heading_to_yaw(h)) - h).abs() < 1e-9);
        }
    }

    #[test]
    fn origin_shift_and_rotation() {
        let iface = Interface {
            origin_x: 100.0,
            origin_y: -5.0,
            rotation_deg: 90.0,
            ..Default::default()
        };
        let s = InsSample {
            time_s: 0.0,
            vehicle: "vut".into(),
            position: InsPosition::Local { x: 1.0, y: 0.0 },
            heading_deg: 90.0,
            speed_mps: 1.0,
            steering_wheel_deg: Some(32.0),
            brake_light: None,
            accel_mps2: None,
            yaw_rate_rps: None,
            wheel_speed_mps: None,
            fcw: None,
        };
        let m = iface.to_map(&s).unwrap();
        assert!((m.x - 100.0).abs() < 1e-12 && (m.y - -4.0).abs() < 1e-12);
        assert!((m.yaw_rad - FRAC_PI_2).abs() < 1e-12);
        assert_eq!(m.road_wheel_deg, Some(2.0));
    }

    #[test]
    fn wgs84_without_georeference_is_an_error() {
        let s = InsSample {
            time_s: 3.0,
            vehicle: "vut".into(),
            position: InsPosition::Wgs84 {
                lat_deg: 47.0,
                lon_deg: 17.0,
                alt_m: None,
            },
            heading_deg: 0.0,
            speed_mps: 0.0,
            steering_wheel_deg: None,
            brake_light: None,
            accel_mps2: None,
            yaw_rate_rps: None,
            wheel_speed_mps: None,
            fcw: None,
        };
        assert_eq!(
            Interface::default().to_map(&s),
            Err(FrameError::NoGeoReference(3.0))
        );
    }
}
