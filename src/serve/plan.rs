//! The run's plan for the live view: every actor's planned path, each conflict point and the
//! static obstructions, in the map frame — sent in the `hello` frame so the dashboard can draw
//! them before the run moves.

use serde_json::{json, Value};

use super::state::AppState;
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

fn path_points(p: &Option<PathSpec>) -> Option<Vec<crate::scenario::Point>> {
    p.as_ref()?.points(0.25)
}

/// The plan of a scenario whose lane paths are resolved.
pub fn of(sc: &Scenario) -> Value {
    // The path the VUT drives (a lane-departure drift applied).
    let vut_path = sc.vut.driven_points().map(|p| thin(&p, 1.0));
    let targets: Vec<Value> = sc
        .targets
        .iter()
        .map(|t| {
            let path = path_points(&t.path).map(|p| thin(&p, 1.0));
            let conflict = match (&t.conflict, path_points(&t.path)) {
                (Some(c), Some(pts)) => Polyline::new(&pts).map(|l| {
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
    json!({ "vut_path": vut_path, "targets": targets, "door": door(sc) })
}

/// Length of a car's front door from its hinge to its rear edge, m (for the drawing).
const DOOR_LENGTH_M: f64 = 1.0;
/// How far the drawn door is swung open, rad.
const DOOR_OPEN_RAD: f64 = 1.0;

/// A standing VUT's door that opens (dooring tests): the closed door's rear edge, its hinge and
/// its rear edge when open, in the map frame, with the cyclist's distance that opens it.
fn door(sc: &Scenario) -> Option<Value> {
    let d = sc.vut.door.as_ref()?;
    let line = Polyline::new(&path_points(&sc.vut.path)?)?;
    let (x, y, yaw) = line.pose(0.0);
    // The INS reference point behind the control point; the door in the body frame from it.
    let a = sc.vut.control_ahead_m();
    let (c, s) = (yaw.cos(), yaw.sin());
    let at = |fwd: f64, left: f64| {
        let (rx, ry) = (x - a * c, y - a * s);
        [rx + fwd * c - left * s, ry + fwd * s + left * c]
    };
    let hinge_fwd = d.rear_edge_forward_m + DOOR_LENGTH_M;
    let out = d.rear_edge_left_m.signum();
    let open = at(
        hinge_fwd - DOOR_LENGTH_M * DOOR_OPEN_RAD.cos(),
        d.rear_edge_left_m + out * DOOR_LENGTH_M * DOOR_OPEN_RAD.sin(),
    );
    Some(json!({
        "target": d.target,
        "rear_edge": at(d.rear_edge_forward_m, d.rear_edge_left_m),
        "hinge": at(hinge_fwd, d.rear_edge_left_m),
        "open_edge": open,
        "open_at_m": d.open_at_m,
    }))
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
        // The turn drawn point by point (its straight parts need only their ends); the path
        // ends on the crossing road, beyond the junction.
        let vut = p["vut_path"].as_array().expect("vut path");
        assert!(vut.len() > 15, "{p}");
        let end_y = vut.last().and_then(|q| q[1].as_f64()).unwrap_or(f64::NAN);
        assert!(end_y > 30.0, "{p}");
        let t = &p["targets"][0];
        assert!(t["path"].as_array().is_some_and(|v| v.len() > 10));
        let c = t["conflict_point"].as_array().expect("conflict point");
        // Near the junction's centre (261.5, 0).
        let (x, y) = (c[0].as_f64().unwrap_or(0.0), c[1].as_f64().unwrap_or(0.0));
        assert!((x - 261.5).abs() < 15.0 && y.abs() < 15.0, "{x} {y}");
    }
}

#[cfg(test)]
mod door_tests {
    use crate::scenario::ncap2026::{Catalogue, Params};

    /// The dooring test's door is drawn beside the parked VUT, on the side the row names.
    #[test]
    fn the_plan_has_the_door_of_a_dooring_test() {
        let map = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/opendrive/proving_ground.xodr"
        );
        let od = opendrive::OpenDrive::from_path(std::path::Path::new(map)).expect("map");
        let cat = Catalogue::bundled();
        let (row, _) = cat.find("CBDA").expect("row");
        let mut sc = row
            .instantiate(&Params::new(row.vut_speeds_kmh[0]), &od)
            .expect("placed");
        sc.resolve_paths(Some(&od)).expect("paths");
        let plan = super::of(&sc);
        let d = &plan["door"];
        let num = |k: &str, i: usize| d[k][i].as_f64().expect("coordinate");
        let door = sc.vut.door.clone().expect("door");
        assert_eq!(d["open_at_m"].as_f64(), Some(door.open_at_m));
        // Hinge to rear edge: the door's length; the open edge further out than the closed one.
        let len =
            (num("hinge", 0) - num("rear_edge", 0)).hypot(num("hinge", 1) - num("rear_edge", 1));
        assert!((len - super::DOOR_LENGTH_M).abs() < 1e-9, "{d}");
        let open =
            (num("open_edge", 0) - num("hinge", 0)).hypot(num("open_edge", 1) - num("hinge", 1));
        assert!((open - super::DOOR_LENGTH_M).abs() < 1e-9, "{d}");
        assert!(plan["door"]["target"].is_string());
        // No door without a dooring VUT.
        let (row, _) = cat.find("CPNA").expect("row");
        let sc = row
            .instantiate(&Params::new(row.vut_speeds_kmh[0]), &od)
            .expect("placed");
        assert!(super::of(&sc)["door"].is_null());
    }
}
