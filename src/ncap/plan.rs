//! From verification points to scenarios of the catalogue: each point's parameters (function,
//! speeds, impact location, turn, direction or approach, day/night, LSC distance/gap,
//! robustness layer) are read from its cells, its catalogue row is found by the rating tool's
//! scenario name, and the row is instantiated on the map. A point scil cannot run keeps its
//! place in the plan with the reason.

use serde::Serialize;

use super::quantity::Quantity;
use super::sheet::{parse_fraction, parse_speed, parse_unit, Point};
use crate::scenario::ncap2026::{Catalogue, Implied, Params, Row};
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
    /// The door of a dooring point (`Door selected`).
    pub door: Option<String>,
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
    /// The scenario is placed on the junction map.
    pub junction: bool,
    /// The scenario to run, or why there is none.
    #[serde(skip)]
    pub scenario: Result<Scenario, String>,
    /// The quantity to measure (when scil measures it).
    #[serde(skip)]
    pub quantity: Option<Quantity>,
    /// What the test driven does not carry (a driver-input robustness layer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
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
        door: lower(cell("Door selected")),
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

/// The maps the catalogue's scenarios are placed on: straight rows on `straight`, turning and
/// crossing-path rows on `junction` (when there is one).
pub struct Maps<'a> {
    pub straight: &'a opendrive::OpenDrive,
    pub straight_ref: Option<String>,
    pub junction: Option<&'a opendrive::OpenDrive>,
    pub junction_ref: Option<String>,
}

fn parse_opt<T: std::str::FromStr<Err = String>>(v: &Option<String>) -> Result<Option<T>, String> {
    v.as_deref().map(str::parse).transpose()
}

/// A scenario for the point from catalogue `row` (`implied`: what the row name implies), and
/// whether it is placed on the junction map.
fn instantiate(
    row: &Row,
    implied: &Implied,
    pp: &PointParams,
    maps: &Maps,
) -> (bool, Result<Scenario, String>) {
    let junction = row.family.needs_junction();
    let go = || -> Result<Scenario, String> {
        if let Some(why) = row.unsupported() {
            return Err(format!("{}: {why}", row.id));
        }
        // Low-speed points without a VUT speed (CPMRCm): the row's first.
        let v = pp
            .vut_speed_kmh
            .or_else(|| (row.stage == "LSC").then(|| row.vut_speeds_kmh.first().copied())?)
            .ok_or_else(|| "the point has no VUT speed".to_string())?;
        let mut p = Params::new(v);
        p.target_speed_kmh = pp.target_speed_kmh;
        p.impact = pp.impact;
        p.turn = parse_opt(&pp.turn)?;
        p.direction = parse_opt(&pp.direction)?;
        p.approach = parse_opt(&pp.approach)?;
        p.door = parse_opt(&pp.door)?;
        p.light = parse_opt(&pp.light)?;
        p.lateral_mps = pp.lateral_velocity_mps;
        // The rating tool's distances d1, d2 (CPMFC): the row's gaps in order.
        p.gap_m = pp.gap_m.or_else(|| {
            let d = pp.distance.as_deref()?.trim().to_ascii_lowercase();
            let k: usize = d.strip_prefix('d')?.parse().ok()?;
            row.gaps_m.get(k.checked_sub(1)?).copied()
        });
        p.robustness = super::robustness::parse(
            pp.robustness_layer.as_deref(),
            pp.verification_condition.as_deref(),
        )
        .map(|l| l.offsets)
        .map_err(|e| format!("{}: {e}", row.id))?;
        implied.apply(&mut p);
        let map = if junction {
            p.map = maps.junction_ref.clone();
            maps.junction.ok_or_else(|| {
                format!(
                    "{}: a turning/crossing row needs a junction map (--junction-map)",
                    row.id
                )
            })?
        } else {
            p.map = maps.straight_ref.clone();
            maps.straight
        };
        row.instantiate(&p, map)
    };
    (junction, go())
}

/// Plans every point: its parameters, catalogue row and scenario (or the reason there is none).
pub fn plan(points: &[Point], cat: &Catalogue, maps: &Maps) -> Vec<Planned> {
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
                        junction: false,
                        scenario: Err(format!("{}: {e}", pt.label())),
                        quantity,
                        note: None,
                    }
                }
            };
            let candidates = row_candidates(&pt.scenario, &params);
            let found = candidates.iter().find_map(|c| cat.find(c));
            let (row, junction, scenario) = match found {
                None => (
                    None,
                    false,
                    Err(format!(
                        "no catalogue row for '{}' (looked for {})",
                        pt.scenario,
                        candidates.join(", ")
                    )),
                ),
                Some((r, implied)) => {
                    let (j, sc) = instantiate(r, &implied, &params, maps);
                    (Some(r.id.clone()), j, sc)
                }
            };
            Planned {
                point: pt.clone(),
                catalogue_row: row,
                junction,
                scenario,
                quantity,
                note: super::robustness::parse(
                    params.robustness_layer.as_deref(),
                    params.verification_condition.as_deref(),
                )
                .ok()
                .and_then(|l| l.note),
                params,
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
