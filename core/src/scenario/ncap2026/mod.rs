//! The Euro NCAP Crash Avoidance 2026 catalogue: every scenario row of Euro NCAP's rating tool
//! with its test matrix (`data/catalogue/euro_ncap_2026.toml`, embedded), and the placement of
//! one test cell on an OpenDRIVE map ([`Row::instantiate`]).
//!
//! Rows are named as the rating tool names them (`CCRs`, `CPNA` for `CPNA day`/`CPNA night`,
//! `CPTAfs & CPTAns`, `CC ELK On`, …); [`Catalogue::find`] also takes a tool row name with its
//! day/night suffix (`CPNA night`), one side of a turn pair (`CPTAfs`, which sets the turn), and
//! the ids of the earlier catalogue (`CPNA-75`, which sets the impact location).

mod conflict;
mod dooring;
mod elk;
mod junction;
mod lane_change;
mod lowspeed;
mod reverse;
mod robust;
mod sfs;
mod straight;

use serde::{Deserialize, Serialize};

use super::turn::Turn;
use super::{Point, Scenario, TargetKind, VutSpec};

const BUNDLED: &str = include_str!("../../../../data/catalogue/euro_ncap_2026.toml");

/// How a row's test is built on the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    CrossingNearside,
    CrossingFarside,
    Longitudinal,
    Rear,
    RearBraking,
    TurnAcross,
    StraightCrossing,
    HeadOn,
    HeadOnLaneChange,
    SfsStraightCrossing,
    SfsTurnAcross,
    SfsCrossing,
    Reverse,
    Creep,
    Dooring,
    ElkRoadEdge,
    ElkTarget,
}

impl Family {
    /// Whether scil can place this family's tests yet, and if not, why (every family is
    /// placed; kept for catalogues that add families ahead of their placement).
    pub fn unsupported(self) -> Option<&'static str> {
        None
    }

    /// Needs a junction (turning and crossing-path rows) rather than a straight lane.
    pub fn needs_junction(self) -> bool {
        matches!(
            self,
            Family::TurnAcross
                | Family::StraightCrossing
                | Family::SfsStraightCrossing
                | Family::SfsTurnAcross
        )
    }
}

/// Direction of the target relative to the VUT's approach (turn-across-path rows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Same,
    Opposite,
}

impl std::str::FromStr for Direction {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "same" | "s" => Ok(Direction::Same),
            "opposite" | "o" => Ok(Direction::Opposite),
            _ => Err(format!("direction must be same or opposite, got '{s}'")),
        }
    }
}

/// Side the target comes from (crossing-path rows): nearside = from the VUT's right.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Approach {
    Nearside,
    Farside,
}

impl std::str::FromStr for Approach {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "nearside" | "near" | "right" => Ok(Approach::Nearside),
            "farside" | "far" | "left" => Ok(Approach::Farside),
            _ => Err(format!("approach must be nearside or farside, got '{s}'")),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Light {
    Day,
    Night,
}

impl std::str::FromStr for Light {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "day" => Ok(Light::Day),
            "night" => Ok(Light::Night),
            _ => Err(format!("light must be day or night, got '{s}'")),
        }
    }
}

/// The door of a dooring test (the rating tool's `Door selected`; the driver sits on the
/// left).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DoorChoice {
    Driver,
    BehindDriver,
    Passenger,
    BehindPassenger,
}

impl std::str::FromStr for DoorChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let n: String = s
            .to_ascii_lowercase()
            .chars()
            .filter(|c| c.is_ascii_alphabetic())
            .collect();
        match n.as_str() {
            "driver" => Ok(DoorChoice::Driver),
            "behinddriver" => Ok(DoorChoice::BehindDriver),
            "passenger" => Ok(DoorChoice::Passenger),
            "behindpassenger" => Ok(DoorChoice::BehindPassenger),
            _ => Err(format!(
                "door must be driver, behind-driver, passenger or behind-passenger, got '{s}'"
            )),
        }
    }
}

/// One scenario row of the rating tool with its test matrix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    pub id: String,
    /// The rating tool's row names this entry covers.
    pub rows: Vec<String>,
    /// FC (frontal collisions), LSC (low speed), LDC (lane departure).
    pub stage: String,
    pub group: String,
    pub name: String,
    pub family: Family,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<TargetKind>,
    pub vut_speeds_kmh: Vec<f64>,
    /// VUT speeds of the FCW part of the grid.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fcw_speeds_kmh: Vec<f64>,
    /// VUT speeds of the nearside turn, when they differ.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nearside_speeds_kmh: Vec<f64>,
    /// Empty: the target drives at the VUT's speed (braking rows).
    pub target_speeds_kmh: Vec<f64>,
    pub impacts: Vec<f64>,
    /// The impact locations accepted (lowest, highest) when wider than the grid's cells (the
    /// protocol's tolerance around a single cell: CMCscp 0.9 ± 0.1 of the VUT length).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub impact_range: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<Turn>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub directions: Vec<Direction>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub approaches: Vec<Approach>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lights: Vec<Light>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub obstructed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headway_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decel_mps2: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lateral_speeds_mps: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gaps_m: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub door_distances_m: Vec<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalogue {
    pub row: Vec<Row>,
}

/// Robustness-layer offsets (Euro NCAP's verification layers), all zero by default.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Robustness {
    /// Added to the VUT speed, km/h.
    pub vut_speed_kmh: f64,
    /// Added to the target speed, km/h.
    pub target_speed_kmh: f64,
    /// The target's path rotated about the conflict point, degrees.
    pub heading_deg: f64,
    /// The target's path shifted sideways, m (turn-across-path layers).
    pub path_offset_m: f64,
    /// The target starts this fraction closer to the conflict point (−25 % layer: 0.25).
    pub start_fraction: f64,
    /// Added to a braking target's deceleration, m/s².
    pub decel_mps2: f64,
    /// Added to the headway, s.
    pub headway_s: f64,
    /// The target's path moved away from the VUT (negative: closer), m (lane-departure rows).
    pub lateral_away_m: f64,
    /// Added to the impact location (lane-departure rows: along the target).
    pub impact_change: f64,
}

/// Parameters of one test cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    pub vut_speed_kmh: f64,
    pub target_speed_kmh: Option<f64>,
    /// Impact location (fraction of the VUT width from its nearside edge; overlap for head-on).
    pub impact: Option<f64>,
    pub turn: Option<Turn>,
    pub direction: Option<Direction>,
    pub approach: Option<Approach>,
    pub light: Option<Light>,
    /// Map as written into the scenario file (relative to it).
    pub map: Option<String>,
    /// Explicit placement on a straight lane: x of the impact point and the lane.
    pub impact_x: Option<f64>,
    pub lane: Option<i32>,
    pub road: Option<String>,
    pub carrier: Option<String>,
    pub vut: VutSpec,
    pub robustness: Robustness,
    /// Lateral speed of the VUT's drift (lane-departure rows), m/s.
    pub lateral_mps: Option<f64>,
    /// Gap of the low-speed rows (CPMRCm: from the reversing VUT's rear bumper to the child's
    /// path at standstill), m.
    pub gap_m: Option<f64>,
    /// The door of a dooring test (default: the driver's).
    pub door: Option<DoorChoice>,
}

impl Params {
    pub fn new(vut_speed_kmh: f64) -> Params {
        Params {
            vut_speed_kmh,
            target_speed_kmh: None,
            impact: None,
            turn: None,
            direction: None,
            approach: None,
            light: None,
            map: None,
            impact_x: None,
            lane: None,
            road: None,
            carrier: None,
            vut: VutSpec::new(1.855, 4.6, 2.3),
            robustness: Robustness::default(),
            lateral_mps: None,
            gap_m: None,
            door: None,
        }
    }
}

impl Catalogue {
    pub fn bundled() -> Catalogue {
        // Checked by this crate's tests; a parse failure is a build defect.
        toml::from_str(BUNDLED).unwrap_or(Catalogue { row: Vec::new() })
    }

    /// Every rating-tool row name, in the tool's order.
    pub fn tool_rows(&self) -> Vec<&str> {
        self.row
            .iter()
            .flat_map(|r| r.rows.iter().map(String::as_str))
            .collect()
    }

    /// A row by its id, a tool row name (`CPNA night`), one side of a turn pair (`CPTAns`) or
    /// an earlier catalogue id (`CPNA-75`), with the parameters the name implies.
    pub fn find(&self, name: &str) -> Option<(&Row, Implied)> {
        let n = name.trim();
        let eq = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
        if let Some(r) = self.row.iter().find(|r| eq(&r.id, n)) {
            return Some((r, Implied::default()));
        }
        for r in &self.row {
            for tool in &r.rows {
                if eq(tool, n) {
                    let light = if n.to_ascii_lowercase().ends_with(" night") {
                        Some(Light::Night)
                    } else if n.to_ascii_lowercase().ends_with(" day") {
                        Some(Light::Day)
                    } else {
                        None
                    };
                    return Some((
                        r,
                        Implied {
                            light,
                            ..Implied::default()
                        },
                    ));
                }
            }
            // "CPTAfs & CPTAns": either side.
            if let Some((a, b)) = r.id.split_once(" & ") {
                for (side, turn) in [(a, Turn::Farside), (b, Turn::Nearside)] {
                    if eq(side, n) {
                        return Some((
                            r,
                            Implied {
                                turn: Some(turn),
                                ..Implied::default()
                            },
                        ));
                    }
                }
            }
        }
        // Earlier catalogue ids: CPNA-75 → CPNA at 0.75.
        let (base, pct) = n.rsplit_once('-')?;
        let pct: f64 = pct.parse().ok()?;
        let r = self.row.iter().find(|r| eq(&r.id, base))?;
        Some((
            r,
            Implied {
                impact: Some(pct / 100.0),
                ..Implied::default()
            },
        ))
    }
}

/// Parameters a row name implies (`CPNA night`: night; `CPTAns`: nearside turn).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Implied {
    pub light: Option<Light>,
    pub turn: Option<Turn>,
    pub impact: Option<f64>,
}

impl Implied {
    /// Fills what `p` leaves open.
    pub fn apply(&self, p: &mut Params) {
        p.light = p.light.or(self.light);
        p.turn = p.turn.or(self.turn);
        p.impact = p.impact.or(self.impact);
    }
}

fn one_of<T: PartialEq + std::fmt::Debug + Copy>(
    row: &str,
    what: &str,
    v: Option<T>,
    allowed: &[T],
) -> Result<Option<T>, String> {
    match (v, allowed.first()) {
        (None, first) => Ok(first.copied()),
        (Some(v), _) if allowed.is_empty() => {
            Err(format!("{row}: the row has no {what} (got {v:?})"))
        }
        (Some(v), _) if allowed.contains(&v) => Ok(Some(v)),
        (Some(v), _) => Err(format!("{row}: {what} {v:?} is not one of {allowed:?}")),
    }
}

/// The resolved cell: every parameter checked against the row and defaulted.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cell {
    pub vut_kmh: f64,
    pub target_kmh: f64,
    pub impact: f64,
    pub turn: Option<Turn>,
    pub direction: Option<Direction>,
    pub approach: Option<Approach>,
    pub light: Option<Light>,
    pub lateral_mps: Option<f64>,
    pub gap_m: Option<f64>,
}

impl Row {
    /// Whether scil can place this row's tests yet (`None`), or why not.
    pub fn unsupported(&self) -> Option<&'static str> {
        self.family.unsupported()
    }

    fn cell(&self, p: &Params) -> Result<Cell, String> {
        let id = &self.id;
        let turn = one_of(id, "turn", p.turn, &self.turns)?;
        let speeds: Vec<f64> =
            if turn == Some(Turn::Nearside) && !self.nearside_speeds_kmh.is_empty() {
                self.nearside_speeds_kmh.clone()
            } else {
                let mut v = self.vut_speeds_kmh.clone();
                v.extend(self.fcw_speeds_kmh.iter().copied());
                v
            };
        let (lo, hi) = speeds
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(*v), b.max(*v))
            });
        if !(p.vut_speed_kmh.is_finite()
            && p.vut_speed_kmh >= lo - 1e-9
            && p.vut_speed_kmh <= hi + 1e-9)
        {
            return Err(format!(
                "{id}: VUT speed {} km/h outside the row's {lo}..{hi} km/h",
                p.vut_speed_kmh
            ));
        }
        let target_kmh = match (p.target_speed_kmh, self.target_speeds_kmh.as_slice()) {
            (None, []) => p.vut_speed_kmh,
            (Some(v), []) => v,
            (None, [first, ..]) => *first,
            (Some(v), list) => {
                if !list.iter().any(|x| (x - v).abs() < 1e-9) {
                    return Err(format!(
                        "{id}: target speed {v} km/h is not one of {list:?}"
                    ));
                }
                v
            }
        };
        let impact = match (p.impact, self.impacts.as_slice()) {
            (None, []) => 0.5,
            (None, list) => list[list.len() / 2],
            (Some(v), list) => {
                // Any location within the row's range (the grid's cells, or one between them,
                // or its accepted range).
                let (lo, hi) = list
                    .iter()
                    .chain(self.impact_range.iter())
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
                        (a.min(*x), b.max(*x))
                    });
                if !v.is_finite() || !(list.is_empty() || v >= lo - 1e-9 && v <= hi + 1e-9) {
                    return Err(format!("{id}: impact {v} is outside the row's {lo}..{hi}"));
                }
                v
            }
        };
        let lateral_mps = match (p.lateral_mps, self.lateral_speeds_mps.as_slice()) {
            (None, []) => None,
            (Some(v), []) => return Err(format!("{id}: the row has no lateral speed (got {v})")),
            (None, list) => Some(list[0]),
            (Some(v), list) => {
                let (lo, hi) = list
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
                        (a.min(*x), b.max(*x))
                    });
                if !(v.is_finite() && v >= lo - 1e-9 && v <= hi + 1e-9) {
                    return Err(format!(
                        "{id}: lateral speed {v} m/s outside the row's {lo}..{hi} m/s"
                    ));
                }
                Some(v)
            }
        };
        let impact = impact + p.robustness.impact_change;
        let gap_m = match (p.gap_m, self.gaps_m.as_slice()) {
            (None, []) => None,
            (Some(v), []) => return Err(format!("{id}: the row has no gap (got {v} m)")),
            (None, list) => Some(list[list.len() / 2]),
            (Some(v), list) => {
                let (lo, hi) = list
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
                        (a.min(*x), b.max(*x))
                    });
                if !(v.is_finite() && v >= lo - 1e-9 && v <= hi + 1e-9) {
                    return Err(format!("{id}: gap {v} m outside the row's {lo}..{hi} m"));
                }
                Some(v)
            }
        };
        Ok(Cell {
            gap_m,
            lateral_mps,
            vut_kmh: p.vut_speed_kmh + p.robustness.vut_speed_kmh,
            target_kmh: target_kmh + p.robustness.target_speed_kmh,
            impact,
            turn,
            direction: one_of(id, "direction", p.direction, &self.directions)?,
            approach: one_of(id, "approach", p.approach, &self.approaches)?,
            light: one_of(id, "light", p.light, &self.lights)?,
        })
    }

    /// A scenario for one cell on `map`: on a straight lane long enough for the straight rows
    /// (or at `impact_x`/`lane` when given), at a junction for the turning and crossing-path
    /// rows. Errors name the parameter out of range or why the row cannot be placed.
    pub fn instantiate(&self, p: &Params, map: &opendrive::OpenDrive) -> Result<Scenario, String> {
        if let Some(why) = self.unsupported() {
            return Err(format!("{}: {why}", self.id));
        }
        let cell = self.cell(p)?;
        robust::check(self, &p.robustness)?;
        let mut sc = match self.family {
            Family::CrossingNearside | Family::CrossingFarside => {
                let mut sc = straight::place(self, &cell, p, map)?;
                robust::crossing(&mut sc, self, &cell, &p.robustness, map)?;
                sc
            }
            Family::Longitudinal | Family::Rear | Family::RearBraking => {
                straight::place(self, &cell, p, map)?
            }
            Family::HeadOn | Family::HeadOnLaneChange => straight::head_on(self, &cell, p, map)?,
            Family::TurnAcross | Family::StraightCrossing => junction::place(self, &cell, p, map)?,
            Family::ElkRoadEdge | Family::ElkTarget => elk::place(self, &cell, p, map)?,
            Family::Reverse => reverse::place(self, &cell, p, map)?,
            Family::SfsStraightCrossing | Family::SfsTurnAcross => sfs::place(self, &cell, p, map)?,
            Family::Creep => lowspeed::creep(self, &cell, p, map)?,
            Family::Dooring => dooring::place(self, &cell, p, map)?,
            Family::SfsCrossing => {
                let o = lowspeed::Launched {
                    reverse: false,
                    gap_m: sfs::FRONT_TO_IMPACT_M,
                    launch_kmh: p
                        .vut
                        .launch
                        .as_ref()
                        .map_or(crate::scenario::LaunchSpec::DEFAULT_SPEED_KMH, |l| {
                            l.speed_kmh
                        }),
                    // Crossing from behind parked cars, as the moving row.
                    obstructed: true,
                };
                lowspeed::place(self, &cell, p, map, o)?
            }
        };
        sc.catalogue_id = Some(self.id.clone());
        let mut name = if sc.vut.launch.is_some() {
            format!("{} from standstill", self.id)
        } else {
            format!("{} at {} km/h", self.id, cell.vut_kmh)
        };
        if !self.target_speeds_kmh.is_empty() && cell.target_kmh > 0.0 {
            name.push_str(&format!(", target {} km/h", cell.target_kmh));
        }
        if self.family != Family::ElkRoadEdge {
            name.push_str(&format!(", impact {}", cell.impact));
        }
        let r = &p.robustness;
        for (v, what, unit) in [
            (r.vut_speed_kmh, "VUT speed", " km/h"),
            (r.target_speed_kmh, "target speed", " km/h"),
            (r.heading_deg, "heading", "°"),
            (r.path_offset_m, "path offset", " m"),
            (r.start_fraction * -100.0, "start position", " %"),
            (r.decel_mps2, "deceleration", " m/s²"),
            (r.headway_s, "headway", " s"),
            (r.lateral_away_m, "target away from the VUT", " m"),
            (r.impact_change, "impact location", ""),
        ] {
            if v != 0.0 {
                name.push_str(&format!(", robustness {what} {v:+}{unit}"));
            }
        }
        if let Some(l) = cell.lateral_mps {
            name.push_str(&format!(", drift {l} m/s"));
        }
        if let Some(g) = cell.gap_m {
            name.push_str(&format!(", gap {g} m"));
        }
        if self.family == Family::Dooring {
            let d = format!("{:?}", p.door.unwrap_or(DoorChoice::Driver));
            name.push_str(&format!(", door {d}").to_lowercase());
        }
        if let Some(t) = cell.turn {
            name.push_str(&format!(", {t:?} turn").to_lowercase());
        }
        if let Some(d) = cell.direction {
            name.push_str(&format!(", {d:?} direction").to_lowercase());
        }
        if let Some(a) = cell.approach {
            name.push_str(&format!(", from the {a:?}").to_lowercase());
        }
        if let Some(l) = cell.light {
            name.push_str(&format!(", {l:?}").to_lowercase());
        }
        sc.name = name;
        sc.map = p.map.clone();
        // The result must pass the scenario loader's own checks. (Written to a file, it reads
        // back as this very scenario: the catalogue tests check that for every grid cell.)
        sc.validate()?;
        Ok(sc)
    }
}

/// A straight line of points from (x, y) heading `yaw`, `back` metres behind to `ahead` in
/// front, every 0.5 m or closer.
fn line(x: f64, y: f64, yaw: f64, back: f64, ahead: f64) -> Vec<Point> {
    let n = ((back + ahead) / 0.5).ceil().max(1.0) as usize;
    (0..=n)
        .map(|k| {
            let d = -back + (back + ahead) * k as f64 / n as f64;
            Point {
                x: round6(x + d * yaw.cos()),
                y: round6(y + d * yaw.sin()),
            }
        })
        .collect()
}

fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_rows_are_the_rating_tools_43() {
        let c = Catalogue::bundled();
        let rows = c.tool_rows();
        assert_eq!(rows.len(), 43, "{rows:?}");
        let set: std::collections::HashSet<_> = rows.iter().collect();
        assert_eq!(set.len(), 43);
        for name in [
            "CPNA night",
            "CPTAfs & CPTAns",
            "CC ELK OvI",
            "CBDA",
            "CCCscp SfS",
        ] {
            assert!(rows.contains(&name), "{name}");
        }
        let (r, imp) = c.find("CPTAns").expect("side of a pair");
        assert_eq!(r.id, "CPTAfs & CPTAns");
        assert_eq!(imp.turn, Some(Turn::Nearside));
        let (r, imp) = c.find("cpna-75").expect("earlier id");
        assert_eq!((r.id.as_str(), imp.impact), ("CPNA", Some(0.75)));
        assert_eq!(
            c.find("CPNA night").map(|x| x.1.light),
            Some(Some(Light::Night))
        );
    }
}
