//! Telemetry samples as they travel through scil.
//!
//! Two stages, because sources and the map speak different frames:
//! * [`InsSample`] is what a source (CSV row, NCOM packet, JSON line, fused CAN) reports, in the
//!   instrument's own conventions: heading 0 = north clockwise in degrees, position either local
//!   metres in the INS frame or WGS84 degrees, speed already in m/s (sources convert units).
//! * [`Sample`] is the same instant in the map frame (x east, y north, yaw 0 = +x counter-clockwise,
//!   radians), produced by the interface block ([`crate::frame::Interface`]). The twin and the
//!   scenario engine only ever see `Sample`.
//!
//! Time is always the source's time base in seconds (GPS seconds of week for OxTS data), never
//! the wall clock: the engine is deterministic for a given input.

use serde::{Deserialize, Serialize};

/// Identifies a vehicle or object in the twin ("vut" for the vehicle under test).
pub type VehicleId = std::sync::Arc<str>;

/// Default id of the vehicle under test.
pub const VUT: &str = "vut";

/// Where an INS says it is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum InsPosition {
    /// Local metres in the INS/test-site frame (before origin shift and rotation to the map).
    Local { x: f64, y: f64 },
    /// WGS84 geodetic position.
    Wgs84 {
        lat_deg: f64,
        lon_deg: f64,
        alt_m: Option<f64>,
    },
}

/// One telemetry record in source conventions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InsSample {
    /// Source time base, seconds (GPS seconds of week for OxTS exports).
    pub time_s: f64,
    pub vehicle: VehicleId,
    pub position: InsPosition,
    /// INS heading: 0 = north, clockwise, degrees.
    pub heading_deg: f64,
    /// Horizontal speed, m/s (sources convert km/h etc. before this point).
    pub speed_mps: f64,
    /// Steering-wheel angle, degrees, positive left.
    pub steering_wheel_deg: Option<f64>,
    pub brake_light: Option<bool>,
    /// Longitudinal acceleration if the source measures it (m/s²).
    pub accel_mps2: Option<f64>,
    /// Yaw rate if the source measures it (rad/s, map convention: counter-clockwise positive).
    pub yaw_rate_rps: Option<f64>,
    /// Mean wheel speed from CAN, m/s (fused in by `ingest::fusion`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wheel_speed_mps: Option<f64>,
    /// Forward collision warning active (its onset closes the validity window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fcw: Option<bool>,
}

/// One telemetry record in the map frame: what the twin and engine consume.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub time_s: f64,
    pub vehicle: VehicleId,
    /// Map frame, metres.
    pub x: f64,
    pub y: f64,
    /// Map yaw: 0 = +x, counter-clockwise, radians in (-π, π].
    pub yaw_rad: f64,
    pub speed_mps: f64,
    pub steering_wheel_deg: Option<f64>,
    /// Road-wheel angle from the steering-wheel angle through the configured ratio, degrees.
    pub road_wheel_deg: Option<f64>,
    pub brake_light: Option<bool>,
    pub accel_mps2: Option<f64>,
    pub yaw_rate_rps: Option<f64>,
    /// Mean wheel speed from CAN, m/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wheel_speed_mps: Option<f64>,
    /// Forward collision warning active (its onset closes the validity window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fcw: Option<bool>,
}

impl Sample {
    /// A VUT sample with time, position, yaw and speed only, every other channel absent: the
    /// shape of generated runs (tests, simulators); set more with struct update syntax.
    pub fn vut(time_s: f64, x: f64, y: f64, yaw_rad: f64, speed_mps: f64) -> Sample {
        Sample {
            time_s,
            vehicle: VUT.into(),
            x,
            y,
            yaw_rad,
            speed_mps,
            steering_wheel_deg: None,
            road_wheel_deg: None,
            brake_light: None,
            accel_mps2: None,
            yaw_rate_rps: None,
            wheel_speed_mps: None,
            fcw: None,
        }
    }
}
