//! The Euro NCAP scenario catalogue, shipped as data (`data/catalogue/euro_ncap.toml`,
//! embedded), and its instantiation into a [`Scenario`] on an OpenDRIVE map.

use serde::{Deserialize, Serialize};

use super::path::LanePath;
use super::validity::ValiditySpec;
use super::{
    Activation, BrakeSpec, CarrierMode, PathSpec, Point, Scenario, TargetKind, TargetSpec, VutSpec,
};
use crate::frame::{wrap_pi, yaw_to_heading};

const BUNDLED: &str = include_str!("../../../data/catalogue/euro_ncap.toml");

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    Nearside,
    Farside,
    Longitudinal,
    Rear,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpeedRange {
    pub min: f64,
    pub max: f64,
    pub step: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Obstruction {
    pub vehicles: u32,
    pub length_m: f64,
    pub width_m: f64,
    pub gap_m: f64,
    pub side_clearance_m: f64,
}

/// One catalogue scenario with its parameter ranges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub id: String,
    pub name: String,
    pub layout: Layout,
    pub target: TargetKind,
    pub vut_speed_kmh: SpeedRange,
    pub target_speed_kmh: Vec<f64>,
    pub overlaps: Vec<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lateral_start_m: Option<f64>,
    #[serde(default)]
    pub accel_distance_m: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obstruction: Option<Obstruction>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headway_m: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decel_mps2: Vec<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brake_after_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_length_m: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalogue {
    pub scenario: Vec<Entry>,
}

impl Catalogue {
    /// The catalogue shipped with scil.
    pub fn bundled() -> Catalogue {
        // The embedded file is checked by this crate's tests; a parse failure is a build defect.
        Self::from_toml(BUNDLED).unwrap_or(Catalogue {
            scenario: Vec::new(),
        })
    }

    pub fn from_toml(text: &str) -> Result<Catalogue, String> {
        let c: Catalogue = toml::from_str(text).map_err(|e| e.to_string())?;
        for e in &c.scenario {
            e.check()?;
        }
        Ok(c)
    }

    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.scenario.iter().find(|e| e.id.eq_ignore_ascii_case(id))
    }
}

/// Parameters of one instantiation.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    pub vut_speed_kmh: f64,
    /// Map file as written into the scenario (relative to the scenario file).
    pub map: Option<String>,
    /// x (map frame) of the impact point on the lane centre (crossing), of the target's start
    /// (longitudinal) or of the target's rear end (rear).
    pub impact_x: f64,
    pub road: Option<String>,
    pub lane: i32,
    pub overlap: Option<f64>,
    pub target_speed_kmh: Option<f64>,
    pub headway_m: Option<f64>,
    pub decel_mps2: Option<f64>,
    pub carrier: Option<String>,
    pub vut: VutSpec,
}

impl Params {
    pub fn new(vut_speed_kmh: f64, impact_x: f64, lane: i32) -> Params {
        Params {
            vut_speed_kmh,
            map: None,
            impact_x,
            road: None,
            lane,
            overlap: None,
            target_speed_kmh: None,
            headway_m: None,
            decel_mps2: None,
            carrier: None,
            vut: VutSpec::new(1.855, 4.6, 2.3),
        }
    }
}

impl Entry {
    fn check(&self) -> Result<(), String> {
        let r = &self.vut_speed_kmh;
        if !(r.min > 0.0 && r.max >= r.min && r.step > 0.0) {
            return Err(format!("{}: bad vut_speed_kmh range", self.id));
        }
        if self.overlaps.is_empty() || self.target_speed_kmh.is_empty() {
            return Err(format!(
                "{}: overlaps and target_speed_kmh must not be empty",
                self.id
            ));
        }
        if matches!(self.layout, Layout::Nearside | Layout::Farside)
            && self.lateral_start_m.is_none()
        {
            return Err(format!(
                "{}: crossing scenarios need lateral_start_m",
                self.id
            ));
        }
        Ok(())
    }

    /// A scenario for these parameters on `map`. Errors name the parameter that is out of range.
    pub fn instantiate(&self, p: &Params, map: &opendrive::OpenDrive) -> Result<Scenario, String> {
        let r = &self.vut_speed_kmh;
        if !(p.vut_speed_kmh >= r.min - 1e-9 && p.vut_speed_kmh <= r.max + 1e-9) {
            return Err(format!(
                "{}: VUT speed {} km/h outside {}..{} km/h",
                self.id, p.vut_speed_kmh, r.min, r.max
            ));
        }
        let overlap = p.overlap.unwrap_or(self.overlaps[0]);
        if !self.overlaps.iter().any(|o| (o - overlap).abs() < 1e-9) {
            return Err(format!(
                "{}: overlap {overlap} is not one of {:?}",
                self.id, self.overlaps
            ));
        }
        let v_target = p.target_speed_kmh.unwrap_or(self.target_speed_kmh[0]);
        let station = lane_station_at_x(map, p.road.as_deref(), p.lane, p.impact_x)?;
        let (x0, y0, h) = (station.x, station.y, station.hdg);
        // Targets moving along the VUT's lane follow it to the road's end in the driving
        // direction (lane path; on a straight road the same motion as a straight start/heading),
        // `rightward` metres right of its centre.
        let lane_path = |rightward: f64| {
            let end = if p.lane < 0 {
                map.road(&station.road).map_or(station.s, |r| r.length)
            } else {
                0.0
            };
            ((end - station.s).abs() >= 1.0).then(|| {
                PathSpec::Lane(LanePath {
                    road: station.road.clone(),
                    lane: p.lane,
                    s_from: round6(station.s),
                    s_to: round6(end),
                    // t is positive left of the reference line's direction.
                    t_offset: round6(if p.lane < 0 { -rightward } else { rightward }),
                })
            })
        };
        let (c, s) = (h.cos(), h.sin());
        // Unit vectors: along the VUT's driving direction and to its right.
        let right = (s, -c);
        let at = |along: f64, rightward: f64| Point {
            x: x0 + along * c + rightward * right.0,
            y: y0 + along * s + rightward * right.1,
        };
        let w = p.vut.width_m;
        let base = |id: &str, kind, start, yaw: f64| TargetSpec {
            id: id.into(),
            kind,
            carrier: p.carrier.clone(),
            start,
            heading_deg: round6(yaw_to_heading(yaw)),
            lateral_start_m: 0.0,
            accel_distance_m: 0.0,
            speed_kmh: 0.0,
            overlap: 0.5,
            ttc_s: None,
            carrier_mode: None::<CarrierMode>,
            activation: Activation::Ttc,
            brake: None,
            headway: None,
            length_m: None,
            path: None,
            conflict: None,
            width_m: None,
            impact_on: Default::default(),
        };
        let mut targets = Vec::new();
        match self.layout {
            Layout::Nearside | Layout::Farside => {
                let e = self.lateral_start_m.unwrap_or(4.0);
                let near = self.layout == Layout::Nearside;
                let (start, yaw) = if near {
                    (at(0.0, e), h + std::f64::consts::FRAC_PI_2)
                } else {
                    (at(0.0, -e), h - std::f64::consts::FRAC_PI_2)
                };
                let mut t = base("dummy", self.target, start, wrap_pi(yaw));
                t.lateral_start_m = e;
                t.accel_distance_m = self.accel_distance_m;
                t.speed_kmh = v_target;
                t.overlap = overlap;
                targets.push(t);
                if let Some(o) = &self.obstruction {
                    let lateral = 0.5 * w + o.side_clearance_m + 0.5 * o.width_m;
                    for k in 0..o.vehicles {
                        // Rear ends upstream of the dummy's path, a gap apart.
                        let along = -0.5 - o.length_m - k as f64 * (o.length_m + o.gap_m);
                        let mut ob = base(
                            &format!("obstruction-{}", k + 1),
                            TargetKind::Vehicle,
                            at(along, lateral),
                            h,
                        );
                        ob.carrier = None;
                        ob.activation = Activation::Static;
                        ob.length_m = Some(o.length_m);
                        targets.push(ob);
                    }
                }
            }
            Layout::Longitudinal => {
                // Overlap from the VUT's right side: the dummy's offset right of the centreline.
                let mut t = base("dummy", self.target, at(0.0, (0.5 - overlap) * w), h);
                t.accel_distance_m = self.accel_distance_m;
                t.speed_kmh = v_target;
                t.overlap = overlap;
                t.activation = Activation::Begin;
                t.path = lane_path((0.5 - overlap) * w);
                targets.push(t);
            }
            Layout::Rear => {
                // Positive overlap: VUT right side aligned; negative: left side aligned.
                let shift = (1.0 - overlap.abs()) * w;
                let rightward = if overlap >= 0.0 { shift } else { -shift };
                let mut t = base("lead", TargetKind::Vehicle, at(0.0, rightward), h);
                t.speed_kmh = v_target;
                t.overlap = overlap.abs();
                t.length_m = self.target_length_m;
                t.activation = if v_target > 0.0 {
                    Activation::Begin
                } else {
                    Activation::Static
                };
                if t.activation == Activation::Begin {
                    t.path = lane_path(rightward);
                }
                if !self.decel_mps2.is_empty() && v_target > 0.0 {
                    let d = p.decel_mps2.unwrap_or(self.decel_mps2[0]);
                    // The lead waits at x and starts at its speed when the VUT is its
                    // distance headway behind it, then brakes.
                    let hw = p
                        .headway_m
                        .or(self.headway_m.first().copied())
                        .unwrap_or(12.0);
                    t.activation = Activation::Headway;
                    t.headway = Some(crate::scenario::HeadwaySpec::new(round6(
                        hw / (v_target / 3.6),
                    )));
                    t.brake = Some(BrakeSpec {
                        after_s: self.brake_after_s.unwrap_or(3.0),
                        decel_mps2: d,
                        final_kmh: 0.0,
                    });
                }
                targets.push(t);
            }
        }
        let headway = match (&self.layout, p.headway_m) {
            (Layout::Rear, Some(hw)) => format!(", headway {hw} m"),
            _ => String::new(),
        };
        let mut vut = p.vut.clone();
        vut.speed_kmh = Some(p.vut_speed_kmh);
        let sc = Scenario {
            name: format!(
                "{} at {} km/h, overlap {}{}",
                self.id, p.vut_speed_kmh, overlap, headway
            ),
            map: p.map.clone(),
            vut,
            targets,
            sync: matches!(self.layout, Layout::Nearside | Layout::Farside),
            validity: Some(ValiditySpec::default()),
            catalogue_id: Some(self.id.clone()),
        };
        // The result must pass the scenario loader's own checks.
        let text = toml::to_string(&sc).map_err(|e| e.to_string())?;
        Scenario::from_toml(&text).map_err(|e| e.to_string())
    }
}

fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

/// The centre of `lane` where its x equals `x` (first road that has it, or `road`), with the
/// driving direction (lanes with a positive id drive against s).
pub fn lane_point_at_x(
    map: &opendrive::OpenDrive,
    road: Option<&str>,
    lane: i32,
    x: f64,
) -> Result<(f64, f64, f64), String> {
    lane_station_at_x(map, road, lane, x).map(|st| (st.x, st.y, st.hdg))
}

/// Where a lane's centre reaches an x: road, s, position and driving direction.
#[derive(Debug, Clone, PartialEq)]
pub struct LaneStation {
    pub road: String,
    pub s: f64,
    pub x: f64,
    pub y: f64,
    /// Driving direction (rad, map frame).
    pub hdg: f64,
}

/// [`lane_point_at_x`] with the road and s of the point.
pub fn lane_station_at_x(
    map: &opendrive::OpenDrive,
    road: Option<&str>,
    lane: i32,
    x: f64,
) -> Result<LaneStation, String> {
    for r in &map.roads {
        if road.is_some_and(|id| id != r.id) {
            continue;
        }
        let f = |s: f64| map.lane_center(&r.id, lane, s).map(|p| (p.x - x, p));
        let step = 0.5;
        let n = (r.length / step).ceil() as usize;
        let mut prev: Option<(f64, f64)> = None;
        for i in 0..=n {
            let s = (i as f64 * step).min(r.length);
            let Some((g, _)) = f(s) else {
                prev = None;
                continue;
            };
            if let Some((s0, g0)) = prev {
                if g0 == 0.0 || g0.signum() != g.signum() {
                    let (mut lo, mut hi, glo) = (s0, s, g0);
                    for _ in 0..60 {
                        let mid = 0.5 * (lo + hi);
                        match f(mid) {
                            Some((gm, _)) if gm.signum() == glo.signum() && gm != 0.0 => lo = mid,
                            _ => hi = mid,
                        }
                    }
                    let s_hit = 0.5 * (lo + hi);
                    let Some((_, p)) = f(s_hit) else {
                        break;
                    };
                    let hdg = if lane > 0 {
                        p.hdg + std::f64::consts::PI
                    } else {
                        p.hdg
                    };
                    return Ok(LaneStation {
                        road: r.id.clone(),
                        s: s_hit,
                        x: p.x,
                        y: p.y,
                        hdg: wrap_pi(hdg),
                    });
                }
            }
            prev = Some((s, g));
        }
    }
    Err(format!(
        "no lane {lane}{} reaches x = {x} m on this map",
        road.map(|r| format!(" on road {r}")).unwrap_or_default()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_catalogue_has_the_fourteen_scenarios() {
        let c = Catalogue::bundled();
        let ids: Vec<&str> = c.scenario.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "CPNA-25", "CPNA-75", "CPFA-25", "CPFA-50", "CPNCO-50", "CPLA-25", "CPLA-50",
                "CBNA-50", "CBFA-50", "CBLA-25", "CBLA-50", "CCRs", "CCRm", "CCRb"
            ]
        );
    }
}
