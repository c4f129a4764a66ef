//! Virtual targets: scenario targets that exist only in the twin (`"virtual": [ids]` on a run,
//! `[twin] virtual` in scil.toml). They have no carrier: the engine moves them on their
//! planned path, triggered and synchronised against the live VUT as it would start a real
//! one, and computes their impact and validity against their plan. Everything else of the run
//! (real carriers, the VUT's robot) is as usual, so one run can mix real and virtual targets.
//! The results mark every entry that names a virtual target with `"virtual": true`.

use serde_json::Value;

use super::run::{NewRun, StoredSource};
use crate::scenario::Scenario;
use crate::serve::error::{ApiError, ApiResult};
use crate::store::RunRow;

/// The targets a stored run had only in the twin (its source's `virtual`).
pub fn of(run: &RunRow) -> Vec<String> {
    serde_json::from_str::<StoredSource>(&run.source)
        .map(|s| s.virtual_targets)
        .unwrap_or_default()
}

/// A new run's virtual targets against its scenario and carriers: each is a target of the
/// scenario, named once, and no carrier drives it (422 naming what is wrong).
pub fn check(scenario: &Scenario, scenario_id: &str, req: &NewRun) -> ApiResult<()> {
    for (i, id) in req.virtual_targets.iter().enumerate() {
        if !scenario.targets.iter().any(|t| &t.id == id) {
            let ids: Vec<&str> = scenario.targets.iter().map(|t| t.id.as_str()).collect();
            return Err(ApiError::Unprocessable(format!(
                "virtual: scenario '{scenario_id}' has no target '{id}' (targets: {})",
                ids.join(", ")
            )));
        }
        if req.virtual_targets[..i].contains(id) {
            return Err(ApiError::Unprocessable(format!(
                "virtual: target '{id}' is named twice"
            )));
        }
        let driven = req.carriers.iter().find(
            |c| matches!(&c.drives, Some(crate::dispatch::ground::Drives::Target(t)) if t == id),
        );
        if let Some(c) = driven {
            return Err(ApiError::Unprocessable(format!(
                "virtual: target '{id}' exists only in the twin, but carrier '{}' drives it",
                c.name
            )));
        }
    }
    Ok(())
}

/// Adds `"virtual": true` to every object of `v` (at any depth) whose `"target"` is one of
/// `virtual_targets`, and the list itself as `"virtual"` at the top.
pub fn mark(v: &mut Value, virtual_targets: &[String]) {
    if virtual_targets.is_empty() {
        return;
    }
    walk(v, virtual_targets);
    if let Value::Object(m) = v {
        m.insert("virtual".into(), serde_json::json!(virtual_targets));
    }
}

fn walk(v: &mut Value, ids: &[String]) {
    match v {
        Value::Object(m) => {
            let named = m
                .get("target")
                .and_then(Value::as_str)
                .is_some_and(|t| ids.iter().any(|i| i == t));
            for (_, x) in m.iter_mut() {
                walk(x, ids);
            }
            if named {
                m.insert("virtual".into(), Value::Bool(true));
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| walk(x, ids)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn marks_every_entry_naming_a_virtual_target() {
        let mut v = json!({
            "impacts": [{"target": "ped", "time_s": 3.0}, {"target": "car", "time_s": 4.0}],
            "triggers": [{"target": "ped"}],
            "validity": {"targets": [{"target": "ped", "valid": true}]}
        });
        mark(&mut v, &["ped".to_string()]);
        assert_eq!(v["impacts"][0]["virtual"], true);
        assert!(v["impacts"][1].get("virtual").is_none());
        assert_eq!(v["triggers"][0]["virtual"], true);
        assert_eq!(v["validity"]["targets"][0]["virtual"], true);
        assert_eq!(v["virtual"], json!(["ped"]));
        let mut plain = json!({"impacts": [{"target": "ped"}]});
        mark(&mut plain, &[]);
        assert!(plain["impacts"][0].get("virtual").is_none());
    }
}
