//! The quantities a verification point asks for (its `Expected value`) and how each is read
//! from a run's result. Speeds in km/h, times in s; a run without impact has impact speed 0
//! and the whole nominal speed as its reduction.

use serde::Serialize;

use serde_json::Value;

use crate::scenario::{Activation, Scenario};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Quantity {
    /// Relative impact speed along the VUT's heading (the VUT's own speed for a crossing
    /// target).
    VRelImpact,
    /// The VUT's impact speed.
    VImpact,
    /// Nominal speed minus impact speed.
    VReduction,
    /// TTC at the forward collision warning (0 when it never warned).
    FcwTtc,
    /// 1 when the VUT hit the target, else 0.
    ImpactOccurred,
    /// Dooring: the cyclist's TTC to the door's rear edge when the door opened, s.
    DoorTtc,
    /// Lane departure towards the road edge: the VUT's distance to its lane's edge at the end
    /// of the excursion, m (negative beyond it).
    Dtle,
}

impl Quantity {
    /// The rating tool's names; `None` for a quantity scil does not measure (`DTLE @ T_LDW`,
    /// the distance at a lane departure warning).
    pub fn parse(s: &str) -> Option<Quantity> {
        match s.trim() {
            "v_rel_impact" => Some(Quantity::VRelImpact),
            "v_impact" | "v_impact_baseline" => Some(Quantity::VImpact),
            "v_reduction" => Some(Quantity::VReduction),
            "fcw_ttc" => Some(Quantity::FcwTtc),
            "impact_occurred" => Some(Quantity::ImpactOccurred),
            "TTC" | "ttc" => Some(Quantity::DoorTtc),
            "dtle_t_end" => Some(Quantity::Dtle),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Quantity::VRelImpact => "v_rel_impact",
            Quantity::VImpact => "v_impact",
            Quantity::VReduction => "v_reduction",
            Quantity::FcwTtc => "fcw_ttc",
            Quantity::ImpactOccurred => "impact_occurred",
            Quantity::DoorTtc => "TTC",
            Quantity::Dtle => "dtle_t_end",
        }
    }
}

/// The target a point is about: the first one that moves or is the test's subject (static
/// obstructions are scenery).
pub fn subject(sc: &Scenario) -> Option<&str> {
    sc.targets
        .iter()
        .find(|t| t.carrier.is_some() || t.activation != Activation::Static)
        .or_else(|| sc.targets.first())
        .map(|t| t.id.as_str())
}

/// The target a quantity is measured on: the point's subject, or none ("") for the VUT's own
/// quantity (the lane departure: its rows have no target).
pub fn target_for(q: Quantity, sc: &Scenario) -> Option<&str> {
    match q {
        Quantity::Dtle => Some(""),
        _ => subject(sc),
    }
}

/// The quantity from a run's result as JSON (what `scil sim --json` prints, the result files
/// of finished runs): `nominal_kmh` is the point's VUT speed.
pub fn measure(q: Quantity, run: &Value, target: &str, nominal_kmh: f64) -> Result<f64, String> {
    if let Some(e) = run.get("error").and_then(Value::as_str) {
        return Err(format!("run failed: {e}"));
    }
    let warning = || {
        run.get("warning")
            .and_then(|w| w.get("ttc_s"))
            .and_then(Value::as_f64)
            .unwrap_or(0.0)
    };
    if q == Quantity::FcwTtc {
        return Ok(warning());
    }
    if q == Quantity::DoorTtc {
        let door = crate::scenario::DoorSpec::ID;
        return run
            .get("triggers")
            .and_then(Value::as_array)
            .and_then(|ts| {
                ts.iter()
                    .find(|t| t.get("target").and_then(Value::as_str) == Some(door))
            })
            .and_then(|t| t.get("ttc_s").and_then(Value::as_f64))
            .filter(|v| v.is_finite())
            .ok_or_else(|| "the door was never opened (no trigger of target 'door')".to_string());
    }
    if q == Quantity::Dtle {
        return run
            .get("lane_departure")
            .and_then(|d| d.get("dtle_m"))
            .and_then(Value::as_f64)
            .filter(|v| v.is_finite())
            .ok_or_else(|| {
                "the run has no lane departure (the VUT does not drift, or its lane is not on the map)"
                    .to_string()
            });
    }
    let impacts: &[Value] = run
        .get("impacts")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let of_target: Vec<&Value> = impacts
        .iter()
        .filter(|i| i.get("target").and_then(Value::as_str) == Some(target))
        .collect();
    if of_target.is_empty() {
        return Err(format!(
            "the run has no impact record for target '{target}'"
        ));
    }
    let num = |i: &Value, k: &str| i.get(k).and_then(Value::as_f64).filter(|x| x.is_finite());
    let Some(i) = of_target.iter().find(|i| num(i, "time_s").is_some()) else {
        return Ok(match q {
            Quantity::VReduction => nominal_kmh,
            _ => 0.0,
        });
    };
    // The VUT's speed at the impact (`vut_speed_kmh` on footprint impacts).
    let impact_speed = |i: &Value| num(i, "impact_speed_kmh").or(num(i, "vut_speed_kmh"));
    let need = |v: Option<f64>, what: &str| {
        v.ok_or_else(|| format!("the impact of '{target}' has no {what}"))
    };
    match q {
        Quantity::VRelImpact => need(num(i, "relative_speed_kmh").or(impact_speed(i)), "speed"),
        Quantity::VImpact => need(impact_speed(i), "impact speed"),
        Quantity::VReduction => need(
            num(i, "speed_reduction_kmh").or(impact_speed(i).map(|v| nominal_kmh - v)),
            "speed reduction",
        ),
        Quantity::ImpactOccurred => Ok(1.0),
        Quantity::FcwTtc => Ok(warning()),
        Quantity::DoorTtc | Quantity::Dtle => {
            Err(format!("{} is not an impact quantity", q.name()))
        }
    }
}
