//! From verification points to scenarios of the catalogue: each point's parameters (function,
//! speeds, impact location, turn, direction or approach, day/night, LSC distance/gap,
//! robustness layer) are read from its cells, its catalogue row is found by the rating tool's
//! scenario name, and the row is instantiated on the map. A point scil cannot run keeps its
//! place in the plan with the reason.

use serde::Serialize;

use super::quantity::Quantity;
use super::sheet::{parse_fraction, parse_speed, parse_unit, Point};
use crate::scenario::catalogue::{Catalogue, Entry, Params};
use crate::scenario::Scenario;

/// The function a point tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Function {
    Aeb,
    Fcw,
}

/// A point's test parameters, parsed from its cells.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PointParams {
    pub function: Option<Function>,
    /// km/h; 0 for a standing start (`SfS`).
    pub vut_speed_kmh: Option<f64>,
    pub target_speed_kmh: Option<f64>,
    /// Fraction of the VUT width from its nearside edge.
    pub impact: Option<f64>,
    /// `farside` / `nearside` (the VUT's turn).
    pub turn: Option<String>,
    /// `same` / `opposite` (the target's direction against the VUT's approach).
    pub direction: Option<String>,
    /// `farside` / `nearside` (the crossing target's approach).
    pub approach: Option<String>,
    /// `day` / `night`.
    pub light: Option<String>,
    /// LSC distance label (`d1`, `d2`) and gap (m).
    pub distance: Option<String>,
    pub gap_m: Option<f64>,
    /// LDC lateral velocity, m/s.
    pub lateral_velocity_mps: Option<f64>,
    /// Standard / Extended.
    pub range: Option<String>,
    pub robustness_layer: Option<String>,
    pub verification_condition: Option<String>,
}

/// One point of the plan.
#[derive(Debug, Clone, Serialize)]
pub struct Planned {
    pub point: Point,
    pub params: PointParams,
    /// The catalogue row the point maps to, when one exists.
    pub catalogue_row: Option<String>,
    /// The scenario to run, or why there is none.
    #[serde(skip)]
    pub scenario: Result<Scenario, String>,
    /// The quantity to measure (when scil measures it).
    #[serde(skip)]
    pub quantity: Option<Quantity>,
}

impl Planned {
    pub fn runnable(&self) -> bool {
        self.scenario.is_ok() && self.quantity.is_some()
    }

    pub fn reason(&self) -> Option<String> {
        match (&self.scenario, &self.quantity) {
            (Err(e), _) => Some(e.clone()),
            (Ok(_), None) => Some(format!(
                "scil does not measure '{}' yet",
                self.point.expected
            )),
            _ => None,
        }
    }

    /// A file name for the point's scenario: `FC-Car-PTW_r005_CCRs.toml`.
    pub fn file_name(&self) -> String {
        let sheet: String = self
            .point
            .sheet
            .trim_end_matches("verif.")
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("-");
        let scen: String = self
            .catalogue_row
            .as_deref()
            .unwrap_or(&self.point.scenario)
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        format!("{sheet}_r{:03}_{scen}.toml", self.point.row)
    }
}

fn lower(s: Option<&str>) -> Option<String> {
    s.map(|x| x.trim().to_ascii_lowercase())
        .filter(|x| !x.is_empty() && x != "none" && x != "n/a")
}

/// The parameters of a point (errors name the cell that does not parse).
pub fn params(p: &Point) -> Result<PointParams, String> {
    let cell = |h: &str| p.get(h).filter(|v| !v.eq_ignore_ascii_case("none"));
    let num = |h: &str, f: fn(&str) -> Result<f64, String>| -> Result<Option<f64>, String> {
        cell(h).map(f).transpose().map_err(|e| format!("{h}: {e}"))
    };
    let function = match lower(cell("Function")).as_deref() {
        None => None,
        Some("aeb") => Some(Function::Aeb),
        Some("fcw") => Some(Function::Fcw),
        Some(other) => return Err(format!("Function: unknown '{other}' (AEB or FCW)")),
    };
    let light = lower(cell("Illumination").or(cell("Day/Night"))).or_else(|| {
        let s = p.scenario.to_ascii_lowercase();
        if s.ends_with(" night") {
            Some("night".into())
        } else if s.ends_with(" day") {
            Some("day".into())
        } else {
            None
        }
    });
    Ok(PointParams {
        function,
        vut_speed_kmh: num("VUT speed", parse_speed)?,
        target_speed_kmh: num("Target speed", parse_speed)?,
        impact: num("Impact location", parse_fraction)?,
        turn: lower(cell("Turn")),
        direction: lower(cell("Target direction")),
        approach: lower(cell("Target approach")),
        light,
        distance: cell("Distance").map(str::to_string),
        gap_m: num("Gap", |s| parse_unit(s, "m"))?,
        lateral_velocity_mps: num("Lateral velocity", |s| parse_unit(s, "m/s"))?,
        range: cell("Range").map(str::to_string),
        robustness_layer: cell("Robustness layer")
            .filter(|s| !s.eq_ignore_ascii_case("not applicable"))
            .map(str::to_string),
        verification_condition: cell("Verification condition").map(str::to_string),
    })
}

/// The catalogue row names a point may go by, most specific first: the workbook's name with
/// a pair (`CPTAfs & CPTAns`) resolved by the point's turn, then without ` day`/` night`.
pub fn row_candidates(scenario: &str, pp: &PointParams) -> Vec<String> {
    let mut out = vec![scenario.trim().to_string()];
    fn push(out: &mut Vec<String>, s: String) {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    if scenario.contains(" & ") {
        let turn = pp.turn.as_deref().and_then(|t| t.chars().next());
        for alt in scenario.split(" & ").map(str::trim) {
            // CPTAfs: the letter after "TA" is the turn (f/n).
            let letter = alt.find("TA").and_then(|i| alt[i + 2..].chars().next());
            if turn.is_some() && letter == turn {
                push(&mut out, alt.to_string());
            }
        }
    }
    for base in out.clone() {
        for suffix in [" day", " night"] {
            if let Some(b) = base.strip_suffix(suffix) {
                push(&mut out, b.to_string());
            }
        }
    }
    out
}

/// Where the catalogue's scenarios are placed on the map.
#[derive(Debug, Clone)]
pub struct Placement {
    /// The map as the scenario files should name it.
    pub map_ref: Option<String>,
    pub impact_x: f64,
    pub lane: i32,
}

impl Default for Placement {
    /// The bundled proving-ground map: lane −1, impact point at x = 200 m.
    fn default() -> Self {
        Placement {
            map_ref: None,
            impact_x: 200.0,
            lane: -1,
        }
    }
}

/// A scenario for the point from catalogue `entry`.
fn instantiate(
    entry: &Entry,
    pp: &PointParams,
    place: &Placement,
    map: &opendrive::OpenDrive,
) -> Result<Scenario, String> {
    let v = pp
        .vut_speed_kmh
        .ok_or_else(|| "the point has no VUT speed".to_string())?;
    if v <= 0.0 {
        return Err("standing starts (SfS) are not in the catalogue yet".into());
    }
    let mut p = Params::new(v, place.impact_x, place.lane);
    p.map = place.map_ref.clone();
    p.overlap = pp.impact;
    p.target_speed_kmh = pp.target_speed_kmh;
    entry.instantiate(&p, map)
}

/// Plans every point: its parameters, catalogue row and scenario (or the reason there is none).
pub fn plan(
    points: &[Point],
    cat: &Catalogue,
    map: &opendrive::OpenDrive,
    place: &Placement,
) -> Vec<Planned> {
    points
        .iter()
        .map(|pt| {
            let quantity = Quantity::parse(&pt.expected);
            let params = match params(pt) {
                Ok(p) => p,
                Err(e) => {
                    return Planned {
                        point: pt.clone(),
                        params: PointParams::default(),
                        catalogue_row: None,
                        scenario: Err(format!("{}: {e}", pt.label())),
                        quantity,
                    }
                }
            };
            let candidates = row_candidates(&pt.scenario, &params);
            let entry = candidates.iter().find_map(|c| cat.get(c));
            let (row, scenario) = match entry {
                None => (
                    None,
                    Err(format!(
                        "no catalogue row for '{}' (looked for {})",
                        pt.scenario,
                        candidates.join(", ")
                    )),
                ),
                Some(e) => (Some(e.id.clone()), instantiate(e, &params, place, map)),
            };
            Planned {
                point: pt.clone(),
                params,
                catalogue_row: row,
                scenario,
                quantity,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_resolve_by_turn_and_light_is_dropped() {
        let pp = PointParams {
            turn: Some("nearside".into()),
            ..Default::default()
        };
        assert_eq!(
            row_candidates("CPTAfs & CPTAns", &pp),
            vec!["CPTAfs & CPTAns", "CPTAns"]
        );
        assert_eq!(
            row_candidates("CPNA night", &PointParams::default()),
            vec!["CPNA night", "CPNA"]
        );
    }
}
