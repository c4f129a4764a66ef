//! Scenario values must be finite and physical: a NaN start point fired the trigger at the first
//! sample, a steering ratio of 0 divided by zero, 1e308 distances overflowed the profile. Every
//! error names the key's path (`targets.<id>.start.x`).

use super::{Activation, PathSpec, Scenario};

/// Map coordinates (metres): generous enough for UTM northings.
const COORD_LIMIT_M: f64 = 1.0e7;

fn within(path: &str, v: f64, lo: f64, hi: f64, lo_open: bool) -> Result<(), String> {
    let low_ok = if lo_open { v > lo } else { v >= lo };
    if v.is_finite() && low_ok && v <= hi {
        Ok(())
    } else {
        let open = if lo_open { "(" } else { "[" };
        Err(format!(
            "{path} must be a finite number in {open}{lo}, {hi}], got {v}"
        ))
    }
}

pub(super) fn check(sc: &Scenario) -> Result<(), String> {
    let v = &sc.vut;
    within("vut.width_m", v.width_m, 0.0, 10.0, true)?;
    within("vut.length_m", v.length_m, 0.0, 50.0, true)?;
    within(
        "vut.reference_to_front_m",
        v.reference_to_front_m,
        0.0,
        50.0,
        false,
    )?;
    if let Some(r) = v.steering_ratio {
        within("vut.steering_ratio", r, 1.0, 100.0, false)?;
    }
    if let Some(c) = v.control_point_to_front_m {
        within("vut.control_point_to_front_m", c, 0.0, 50.0, false)?;
    }
    if let Some(path) = &v.path {
        check_path_shape("vut.path", path)?;
    }
    if let Some(d) = &v.drift {
        if v.path.is_none() {
            return Err("vut.drift needs vut.path (the path the VUT drifts away from)".into());
        }
        if v.speed_kmh.is_none_or(|s| s <= 0.0) {
            return Err(
                "vut.drift needs vut.speed_kmh (the drift's lateral speed is taken at it)".into(),
            );
        }
        within("vut.drift.from_s", d.from_s, 0.0, 1.0e6, false)?;
        within("vut.drift.lateral_mps", d.lateral_mps, -5.0, 5.0, false)?;
        if let Some(e) = d.entry_m {
            within("vut.drift.entry_m", e, 0.01, 1.0e4, false)?;
        }
    }
    if let Some(l) = &v.launch {
        if v.path.is_none() {
            return Err("vut.launch needs vut.path (the VUT stands at its start)".into());
        }
        if v.drift.is_some() {
            return Err("vut.launch cannot be combined with vut.drift".into());
        }
        within("vut.launch.accel_mps2", l.accel_mps2, 0.0, 10.0, true)?;
        within("vut.launch.speed_kmh", l.speed_kmh, 0.0, 250.0, true)?;
        if let Some(j) = l.jerk_mps3 {
            within("vut.launch.jerk_mps3", j, 0.0, 100.0, true)?;
        }
        if let Some(t) = sc
            .targets
            .iter()
            .find(|t| !matches!(t.activation, Activation::Conflict | Activation::Static))
        {
            return Err(format!(
                "targets.{}: with vut.launch a target is a conflict target or static",
                t.id
            ));
        }
    }
    if let Some(d) = &v.door {
        within(
            "vut.door.rear_edge_forward_m",
            d.rear_edge_forward_m,
            -50.0,
            50.0,
            false,
        )?;
        within(
            "vut.door.rear_edge_left_m",
            d.rear_edge_left_m,
            -10.0,
            10.0,
            false,
        )?;
        within("vut.door.open_at_m", d.open_at_m, 0.0, 1000.0, false)?;
        match sc.targets.iter().find(|t| t.id == d.target) {
            None => return Err(format!("vut.door.target: no target '{}'", d.target)),
            Some(t) if t.speed_kmh <= 0.0 || t.activation != Activation::Begin => {
                return Err(format!(
                    "vut.door.target: '{}' must be a moving target started at arm (activation = \"begin\")",
                    d.target
                ))
            }
            Some(_) => {}
        }
    }
    if let Some(val) = &sc.validity {
        if let Some(t) = val.t_steer_s {
            within("validity.t_steer_s", t, 0.0, 3600.0, false)?;
        }
        if let Some(s) = val.steer_at_path_s {
            within("validity.steer_at_path_s", s, 0.0, 1.0e6, false)?;
            if sc.vut.path.is_none() {
                return Err(
                    "validity.steer_at_path_s needs the VUT's planned path (vut.path)".into(),
                );
            }
        }
        if val.t0 == super::validity::T0Rule::Steer
            && val.t_steer_s.is_none()
            && val.steer_at_path_s.is_none()
        {
            return Err(
                "validity.t0 = \"steer\" needs validity.t_steer_s (T_steer, seconds after arm)"
                    .into(),
            );
        }
    }
    let mut ids = std::collections::HashSet::new();
    for t in &sc.targets {
        if !ids.insert(&t.id) {
            return Err(format!("target id '{}' appears twice", t.id));
        }
        let p = |key: &str| format!("targets.{}.{key}", t.id);
        if let Some(path) = &t.path {
            check_path(&t.id, path, t.activation)?;
        }
        // A lane path fills start and heading when it is resolved against the map.
        let lane_path = t.path.is_some();
        let unset = t.start.x.is_nan() && t.start.y.is_nan() && t.heading_deg.is_nan();
        if !(lane_path && unset) {
            within(
                &p("start.x"),
                t.start.x,
                -COORD_LIMIT_M,
                COORD_LIMIT_M,
                false,
            )?;
            within(
                &p("start.y"),
                t.start.y,
                -COORD_LIMIT_M,
                COORD_LIMIT_M,
                false,
            )?;
            within(&p("heading_deg"), t.heading_deg, -360.0, 360.0, false)?;
        }
        if t.activation == Activation::Conflict {
            let Some(c) = &t.conflict else {
                return Err(format!(
                    "targets.{}: activation \"conflict\" needs `conflict = {{ vut_s, target_s }}`",
                    t.id
                ));
            };
            if t.path.is_none() {
                return Err(format!(
                    "targets.{}: activation \"conflict\" needs the target's `path`",
                    t.id
                ));
            }
            if sc.vut.path.is_none() {
                return Err(format!(
                    "targets.{}: activation \"conflict\" needs the VUT's planned path (vut.path)",
                    t.id
                ));
            }
            within(&p("conflict.vut_s"), c.vut_s, 0.0, 1.0e6, false)?;
            within(&p("conflict.target_s"), c.target_s, 0.0, 1.0e6, false)?;
            within(&p("speed_kmh"), t.speed_kmh, 0.0, 200.0, true)?;
        } else if t.conflict.is_some() {
            return Err(format!(
                "targets.{}: `conflict` is only for activation \"conflict\"",
                t.id
            ));
        }
        if let Some(w) = t.width_m {
            within(&p("width_m"), w, 0.0, 10.0, true)?;
        }
        if t.activation == Activation::Conflict {
        } else if t.activation == Activation::Ttc {
            within(&p("speed_kmh"), t.speed_kmh, 0.0, 200.0, true)?;
            within(&p("lateral_start_m"), t.lateral_start_m, 0.0, 1000.0, true)?;
        } else {
            // Lead vehicles, longitudinal dummies and static objects: 0 km/h is a static object.
            within(&p("speed_kmh"), t.speed_kmh, 0.0, 200.0, false)?;
            within(&p("lateral_start_m"), t.lateral_start_m, 0.0, 1000.0, false)?;
        }
        if let Some(b) = &t.brake {
            within(&p("brake.after_s"), b.after_s, 0.0, 3600.0, false)?;
            within(&p("brake.decel_mps2"), b.decel_mps2, 0.0, 20.0, true)?;
            within(&p("brake.final_kmh"), b.final_kmh, 0.0, 200.0, false)?;
        }
        match (t.activation, &t.headway) {
            (Activation::Headway, Some(h)) => {
                within(&p("headway.time_s"), h.time_s, 0.0, 60.0, true)?;
                within(&p("headway.band_s"), h.band_s, 0.0, 60.0, false)?;
                within(&p("speed_kmh"), t.speed_kmh, 0.0, 200.0, true)?;
            }
            (Activation::Headway, None) => {
                return Err(format!(
                    "targets.{}: activation \"headway\" needs `headway = {{ time_s }}`",
                    t.id
                ))
            }
            (_, Some(_)) => {
                return Err(format!(
                    "targets.{}: `headway` is only for activation \"headway\"",
                    t.id
                ))
            }
            (_, None) => {}
        }
        if let Some(l) = t.length_m {
            within(&p("length_m"), l, 0.0, 50.0, false)?;
        }
        within(
            &p("accel_distance_m"),
            t.accel_distance_m,
            0.0,
            1000.0,
            false,
        )?;
        within(&p("overlap"), t.overlap, 0.0, 1.0, false)?;
        if let Some(ttc) = t.ttc_s {
            within(&p("ttc_s"), ttc, 0.0, 120.0, true)?;
        }
    }
    Ok(())
}

fn check_path(id: &str, path: &PathSpec, activation: Activation) -> Result<(), String> {
    if activation == Activation::Ttc {
        return Err(format!(
            "targets.{id}.path: a path is for targets along the VUT's path (activation \"begin\", \"headway\", \"static\" or \"conflict\"); a TTC-triggered crossing target moves straight from start along heading_deg"
        ));
    }
    check_path_shape(&format!("targets.{id}.path"), path)
}

fn check_path_shape(key: &str, path: &PathSpec) -> Result<(), String> {
    let p = |k: &str| format!("{key}.{k}");
    match path {
        PathSpec::Lane(l) => {
            within(&p("s_from"), l.s_from, 0.0, 1.0e6, false)?;
            within(&p("s_to"), l.s_to, 0.0, 1.0e6, false)?;
            within(&p("t_offset"), l.t_offset, -20.0, 20.0, false)?;
            if l.lane == 0 {
                return Err(format!("{}: lane 0 is the reference line", p("lane")));
            }
        }
        PathSpec::Points(pts) => {
            for (k, q) in pts.points.iter().enumerate() {
                for (axis, v) in [("x", q.x), ("y", q.y)] {
                    // The point's key is spelt out only for the message.
                    within("", v, -COORD_LIMIT_M, COORD_LIMIT_M, false).or_else(|_| {
                        within(
                            &p(&format!("points[{k}].{axis}")),
                            v,
                            -COORD_LIMIT_M,
                            COORD_LIMIT_M,
                            false,
                        )
                    })?;
                }
            }
            // Two distinct points (as a polyline through them needs), all finite above.
            let distinct = match pts.points.first() {
                Some(a) => pts
                    .points
                    .iter()
                    .any(|b| (b.x - a.x).hypot(b.y - a.y) > 1e-9),
                None => false,
            };
            if !distinct {
                return Err(format!("{}: needs two distinct points", p("points")));
            }
        }
        PathSpec::Segments(g) => {
            within(
                &p("start.x"),
                g.start.x,
                -COORD_LIMIT_M,
                COORD_LIMIT_M,
                false,
            )?;
            within(
                &p("start.y"),
                g.start.y,
                -COORD_LIMIT_M,
                COORD_LIMIT_M,
                false,
            )?;
            within(&p("heading_deg"), g.heading_deg, -720.0, 720.0, false)?;
            for (k, s) in g.segments.iter().enumerate() {
                let piece = s.piece(k + 1).map_err(|e| format!("{key}.{e}"))?;
                let len = match piece {
                    super::path::Piece::Line { length }
                    | super::path::Piece::Arc { length, .. }
                    | super::path::Piece::Clothoid { length, .. } => length,
                };
                within(&p(&format!("segments[{}]", k + 1)), len, 0.0, 1.0e5, true)?;
            }
            g.geometry().map_err(|e| format!("{key}: {e}"))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;

    const BASE: &str = r#"
name = "t"
[vut]
width_m = 1.8
length_m = 4.5
reference_to_front_m = 3.0
steering_ratio = 16
[[targets]]
id = "ped"
kind = "pedestrian"
start = { x = 10.0, y = -6.0 }
heading_deg = 0.0
lateral_start_m = 6.0
accel_distance_m = 1.0
speed_kmh = 5.0
overlap = 0.5
ttc_s = 4.0
"#;

    fn err(from: &str, to: &str) -> String {
        let text = BASE.replacen(from, to, 1);
        assert_ne!(text, BASE, "{from} not in the base scenario");
        match Scenario::from_toml(&text) {
            Ok(_) => panic!("{to} accepted"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn base_is_valid() {
        Scenario::from_toml(BASE).unwrap();
    }

    #[test]
    fn a_headway_start_needs_its_headway_and_only_it_has_one() {
        let lead = |extra: &str| {
            BASE.replacen(
                "ttc_s = 4.0",
                &format!("activation = \"headway\"\n{extra}"),
                1,
            )
        };
        let e = Scenario::from_toml(&lead("")).unwrap_err().to_string();
        assert!(e.contains("needs `headway"), "{e}");
        let e = Scenario::from_toml(&lead("headway = { time_s = 0.0 }"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("targets.ped.headway.time_s"), "{e}");
        Scenario::from_toml(&lead("headway = { time_s = 1.0 }")).unwrap();
        let e = err("ttc_s = 4.0", "headway = { time_s = 1.0 }");
        assert!(e.contains("only for activation"), "{e}");
    }

    #[test]
    fn non_finite_and_unphysical_values_name_their_key() {
        for (from, to, key) in [
            ("x = 10.0", "x = nan", "targets.ped.start.x"),
            ("y = -6.0", "y = inf", "targets.ped.start.y"),
            ("x = 10.0", "x = 1e308", "targets.ped.start.x"),
            (
                "heading_deg = 0.0",
                "heading_deg = nan",
                "targets.ped.heading_deg",
            ),
            (
                "heading_deg = 0.0",
                "heading_deg = -inf",
                "targets.ped.heading_deg",
            ),
            (
                "steering_ratio = 16",
                "steering_ratio = 0",
                "vut.steering_ratio",
            ),
            (
                "steering_ratio = 16",
                "steering_ratio = nan",
                "vut.steering_ratio",
            ),
            (
                "lateral_start_m = 6.0",
                "lateral_start_m = 1e308",
                "targets.ped.lateral_start_m",
            ),
            (
                "accel_distance_m = 1.0",
                "accel_distance_m = 1e308",
                "targets.ped.accel_distance_m",
            ),
            (
                "speed_kmh = 5.0",
                "speed_kmh = 1e9",
                "targets.ped.speed_kmh",
            ),
            ("ttc_s = 4.0", "ttc_s = 1e308", "targets.ped.ttc_s"),
            ("overlap = 0.5", "overlap = nan", "targets.ped.overlap"),
            ("width_m = 1.8", "width_m = inf", "vut.width_m"),
        ] {
            let e = err(from, to);
            assert!(e.contains(key), "{to}: {e}");
        }
    }
}
