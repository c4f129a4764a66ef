//! The verification sheets of a preprocessed rating-tool workbook (`… verif.`), read by their
//! header names: each sheet has a few assessment rows at the top ("General requirements",
//! LDC single vehicle also "Driveability" and "Driver state link", each with a `Value` cell),
//! then a header row (`Scenario, …, Test point, OEM Prediction, Expected value, …, Value,
//! Colour`) and one row per verification point.

use serde::Serialize;

use super::xlsx::{Grid, Workbook};

/// Columns every verification sheet must have.
const REQUIRED: [&str; 4] = ["Scenario", "Test point", "Expected value", "Value"];

/// One verification point as the workbook states it (texts as written, trimmed).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Point {
    /// `FC - Car & PTW verif.` …
    pub sheet: String,
    /// 1-based worksheet row.
    pub row: u32,
    pub scenario: String,
    /// Header → cell text for every non-empty cell of the row.
    pub cells: Vec<(String, String)>,
    /// The quantity to measure (`v_rel_impact`, `fcw_ttc`, …).
    pub expected: String,
    /// 0-based column of `Value`.
    #[serde(skip)]
    pub value_col: u32,
    /// The baseline quantity (`v_impact_baseline`) and its `Value baseline` column, if any.
    pub expected_baseline: Option<String>,
    #[serde(skip)]
    pub baseline_col: Option<u32>,
    /// What the workbook holds in `Value` already.
    pub value: Option<String>,
}

impl Point {
    /// The text under header `name`, if the cell is not empty.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.cells
            .iter()
            .find(|(h, _)| h.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// A short identification: `FC - Car & PTW verif. row 5 (CCRs (0, 3))`.
    pub fn label(&self) -> String {
        format!(
            "{} row {} ({} {})",
            self.sheet,
            self.row,
            self.scenario,
            self.get("Test point").unwrap_or("")
        )
    }
}

/// An assessment row above the header (General requirements …).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Assessment {
    pub sheet: String,
    pub row: u32,
    pub label: String,
    #[serde(skip)]
    pub value_col: u32,
    pub value: Option<String>,
}

/// All verification sheets of a workbook.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Verification {
    pub points: Vec<Point>,
    pub assessments: Vec<Assessment>,
    pub sheets: Vec<String>,
}

/// True for the rating tool's verification sheet names.
pub fn is_verification_sheet(name: &str) -> bool {
    name.trim_end().ends_with("verif.")
}

/// Reads every `… verif.` sheet. A workbook without any is an error that says what to do.
pub fn read(wb: &Workbook) -> anyhow::Result<Verification> {
    let mut v = Verification::default();
    for name in wb.sheet_names.iter().filter(|n| is_verification_sheet(n)) {
        let grid = wb.grid(name)?;
        read_sheet(name, &grid, &mut v)?;
        v.sheets.push(name.clone());
    }
    if v.sheets.is_empty() {
        anyhow::bail!(
            "no verification sheets (\"… verif.\"): run `euroncap_rating_2026 crash_avoidance \
             preprocess -i WORKBOOK` first and give scil its ca_preprocessed_template.xlsx"
        );
    }
    Ok(v)
}

fn read_sheet(name: &str, grid: &Grid, v: &mut Verification) -> anyhow::Result<()> {
    let text = |r: usize, c: usize| grid.get(r, c).text();
    let header_row = (0..grid.rows.len())
        .find(|&r| (0..grid.rows[r].len()).any(|c| text(r, c).as_deref() == Some("Test point")));
    let Some(h) = header_row else {
        anyhow::bail!("sheet '{name}': no header row with a 'Test point' column");
    };
    let headers: Vec<Option<String>> = (0..grid.rows[h].len()).map(|c| text(h, c)).collect();
    let col = |n: &str| {
        headers
            .iter()
            .position(|x| x.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(n)))
    };
    for req in REQUIRED {
        if col(req).is_none() {
            anyhow::bail!(
                "sheet '{name}' row {}: the header has no '{req}' column",
                h + 1
            );
        }
    }
    let (scen, value_col, exp_col) = (
        col("Scenario").unwrap_or(0),
        col("Value").unwrap_or(0),
        col("Expected value").unwrap_or(0),
    );
    let base_col = col("Value baseline");
    let exp_base_col = col("Expected value baseline");
    // Assessment rows: labelled rows above the header; their Value column is the top row's.
    let top_value_col = (0..grid.rows.first().map_or(0, Vec::len))
        .find(|&c| text(0, c).as_deref() == Some("Value"))
        .unwrap_or(value_col);
    for r in 0..h {
        if let Some(label) = text(r, 0) {
            if label != "Scenario" {
                v.assessments.push(Assessment {
                    sheet: name.to_string(),
                    row: r as u32 + 1,
                    label,
                    value_col: top_value_col as u32,
                    value: text(r, top_value_col),
                });
            }
        }
    }
    for r in h + 1..grid.rows.len() {
        let Some(scenario) = text(r, scen) else {
            continue;
        };
        let Some(expected) = text(r, exp_col) else {
            anyhow::bail!(
                "sheet '{name}' row {}: point {scenario} has no 'Expected value'",
                r + 1
            );
        };
        let cells = headers
            .iter()
            .enumerate()
            .filter_map(|(c, hd)| Some((hd.clone()?, text(r, c)?)))
            .collect();
        v.points.push(Point {
            sheet: name.to_string(),
            row: r as u32 + 1,
            scenario,
            cells,
            expected,
            value_col: value_col as u32,
            expected_baseline: exp_base_col.and_then(|c| text(r, c)),
            baseline_col: base_col.map(|c| c as u32),
            value: text(r, value_col),
        });
    }
    Ok(())
}

/// A speed cell (`40 km/h`, `10 km/h `) in km/h; `SfS` (standing start) is 0.
pub fn parse_speed(s: &str) -> Result<f64, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("sfs") {
        return Ok(0.0);
    }
    let n = t.trim_end_matches("km/h").trim();
    n.parse::<f64>()
        .map_err(|_| format!("speed '{s}' is not 'N km/h'"))
}

/// An impact-location cell (`50%`, `-25%`, or a fraction) as a fraction of the width.
pub fn parse_fraction(s: &str) -> Result<f64, String> {
    let t = s.trim();
    if let Some(p) = t.strip_suffix('%') {
        return p
            .trim()
            .parse::<f64>()
            .map(|x| x / 100.0)
            .map_err(|_| format!("impact location '{s}' is not a percentage"));
    }
    t.parse::<f64>()
        .map_err(|_| format!("impact location '{s}' is not a percentage"))
}

/// A length or lateral speed cell (`1.50 m`, `0.4 m/s`) as a number.
pub fn parse_unit(s: &str, unit: &str) -> Result<f64, String> {
    s.trim()
        .trim_end_matches(unit)
        .trim()
        .parse::<f64>()
        .map_err(|_| format!("'{s}' is not 'N {unit}'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_parse() {
        assert_eq!(parse_speed("10 km/h "), Ok(10.0));
        assert_eq!(parse_speed("SfS"), Ok(0.0));
        assert!(parse_speed("fast").is_err());
        assert_eq!(parse_fraction("-25%"), Ok(-0.25));
        assert_eq!(parse_fraction("0.5"), Ok(0.5));
        assert_eq!(parse_unit("1.50 m", "m"), Ok(1.5));
        assert_eq!(parse_unit("0.4 m/s", "m/s"), Ok(0.4));
    }
}
