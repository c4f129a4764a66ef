//! The run's plan for the live view: every actor's planned path, each conflict point and the
//! static obstructions, in the map frame — sent in the `hello` frame so the dashboard can draw
//! them before the run moves.

use serde_json::{json, Value};

use super::context::AppState;
use crate::scenario::path::Polyline;
use crate::scenario::{Activation, PathSpec, Scenario};
use crate::store::RunRow;

/// Points at least `step` metres apart (ends kept), as `[[x, y], …]`.
fn thin(points: &[crate::scenario::Point], step: f64) -> Vec<[f64; 2]> {
    let mut out: Vec<[f64; 2]> = Vec::new();
    for (i, p) in points.iter().enumerate() {
        let last = i + 1 == points.len();
        if out
            .last()
            .is_none_or(|q| (p.x - q[0]).hypot(p.y - q[1]) >= step || last)
        {
            out.push([p.x, p.y]);
        }
    }
    out
}

fn path_points(p: &Option<PathSpec>) -> Option<&[crate::scenario::Point]> {
    match p {
        Some(PathSpec::Points(pp)) => Some(&pp.points),
        _ => None,
    }
}

/// The plan of a scenario whose lane paths are resolved.
pub fn of(sc: &Scenario) -> Value {
    // The path the VUT drives (a lane-departure drift applied).
    let vut_path = sc.vut.driven_points().map(|p| thin(&p, 1.0));
    let targets: Vec<Value> = sc
        .targets
        .iter()
        .map(|t| {
            let path = path_points(&t.path).map(|p| thin(p, 1.0));
            let conflict = match (&t.conflict, path_points(&t.path)) {
                (Some(c), Some(pts)) => Polyline::new(pts).map(|l| {
                    let (x, y, _) = l.pose(c.target_s);
                    json!([x, y])
                }),
                _ => None,
            };
            let (l, w) = t.footprint();
            json!({
                "id": t.id,
                "kind": t.kind,
                "static": t.activation == Activation::Static,
                "start": [t.start.x, t.start.y],
                "heading_deg": t.heading_deg,
                "length_m": l,
                "width_m": w,
                "path": path,
                "conflict_point": conflict,
            })
        })
        .collect();
    json!({ "vut_path": vut_path, "targets": targets })
}

/// The plan of a run (`null` when its scenario or map cannot be read any more).
pub async fn of_run(st: &AppState, run: &RunRow) -> Value {
    let Ok((_, mut sc)) = st.load_scenario(&run.scenario_id, "is gone").await else {
        return Value::Null;
    };
    let map = st.map_opt(run.map_id.as_deref()).await.ok().flatten();
    if sc
        .resolve_paths(map.as_ref().map(|m| &*m.road_network))
        .is_err()
    {
        return Value::Null;
    }
    of(&sc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ncap2026::{Catalogue, Params};

    #[test]
    fn plan_of_a_turning_test_has_paths_and_the_conflict_point() {
        let map = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/osc-ncap/OpenDRIVE/NCAP/X-Intersection_NCAP.xodr");
        let Ok(od) = opendrive::OpenDrive::from_path(&map) else {
            return; // the shared data is beside the checkout in CI and here
        };
        let cat = Catalogue::bundled();
        let (row, _) = cat.find("CCFtap").expect("row");
        let sc = row.instantiate(&Params::new(15.0), &od).expect("placed");
        let p = of(&sc);
        assert!(
            p["vut_path"].as_array().is_some_and(|v| v.len() > 100),
            "{p}"
        );
        let t = &p["targets"][0];
        assert!(t["path"].as_array().is_some_and(|v| v.len() > 10));
        let c = t["conflict_point"].as_array().expect("conflict point");
        // Near the junction's centre (261.5, 0).
        let (x, y) = (c[0].as_f64().unwrap_or(0.0), c[1].as_f64().unwrap_or(0.0));
        assert!((x - 261.5).abs() < 15.0 && y.abs() < 15.0, "{x} {y}");
    }
}
