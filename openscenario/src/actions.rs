//! Actions, positions, trajectories and routes.

use std::collections::BTreeMap;

use crate::model::*;
use crate::params::Scope;
use crate::read::{boolean, int, num, opt_num, str_attr, Ctx};
use crate::xml::Node;
use crate::Error;

impl Ctx {
    pub(crate) fn global_action(&self, g: &Node, s: &Scope) -> Result<Action, Error> {
        g.check(
            &[],
            &["EnvironmentAction", "VariableAction", "EntityAction"],
        )?;
        let a = g.only_child()?;
        match a.name.as_str() {
            "EntityAction" => {
                // Adding and deleting entities: kept as events.
                a.check(&["entityRef"], &["AddEntityAction", "DeleteEntityAction"])?;
                let x = a.only_child()?;
                let mut attributes = BTreeMap::new();
                attributes.insert("entityRef".to_string(), str_attr(a, s, "entityRef")?);
                if x.name == "DeleteEntityAction" {
                    x.check(&[], &[])?;
                } else {
                    x.check(&[], &["Position"])?;
                    let p = self.position(x.req("Position")?, s)?;
                    attributes.insert(
                        "position".to_string(),
                        serde_json::to_string(&p).unwrap_or_default(),
                    );
                }
                Ok(Action::Event {
                    element: x.name.clone(),
                    attributes,
                })
            }
            "EnvironmentAction" => {
                a.check(&[], &["Environment", "CatalogReference"])?;
                let c = a.only_child()?;
                let name = if c.name == "CatalogReference" {
                    let (node, inner) = self.catalog_entry(c, s, &["Environment"])?;
                    str_attr(&node, &inner, "name")?
                } else {
                    str_attr(c, s, "name")?
                };
                Ok(Action::Environment { name })
            }
            _ => {
                a.check(&["variableRef"], &["SetAction"])?;
                let set = a.only_child()?;
                set.check(&["value"], &[])?;
                Ok(Action::SetVariable {
                    variable: str_attr(a, s, "variableRef")?,
                    value: str_attr(set, s, "value")?,
                })
            }
        }
    }

    pub(crate) fn private_action(&self, p: &Node, s: &Scope) -> Result<Action, Error> {
        p.check(
            &[],
            &[
                "LongitudinalAction",
                "TeleportAction",
                "RoutingAction",
                "SynchronizeAction",
                "AppearanceAction",
            ],
        )?;
        let a = p.only_child()?;
        match a.name.as_str() {
            "LongitudinalAction" => {
                a.check(&[], &["SpeedAction", "LongitudinalDistanceAction"])?;
                let x = a.only_child()?;
                if x.name == "SpeedAction" {
                    self.speed_action(x, s)
                } else {
                    x.check(
                        &[
                            "entityRef",
                            "freespace",
                            "continuous",
                            "distance",
                            "timeGap",
                            "displacement",
                            "coordinateSystem",
                        ],
                        &["DynamicConstraints"],
                    )?;
                    let distance = opt_num(x, s, "distance")?;
                    let time_gap = opt_num(x, s, "timeGap")?;
                    if distance.is_some() == time_gap.is_some() {
                        return Err(x.err("give exactly one of 'distance' and 'timeGap'"));
                    }
                    if let Some((a, v)) = [("distance", distance), ("timeGap", time_gap)]
                        .into_iter()
                        .find_map(|(a, v)| v.filter(|v| !v.is_finite() || *v < 0.0).map(|v| (a, v)))
                    {
                        return Err(x.err(format!("attribute '{a}': {v} is not ≥ 0")));
                    }
                    let one_of = |a: &str, default: &str, allowed: &[&str]| {
                        let v = x
                            .attr(a)
                            .map(|_| str_attr(x, s, a))
                            .transpose()?
                            .unwrap_or_else(|| default.into());
                        if allowed.contains(&v.as_str()) {
                            Ok(v)
                        } else {
                            Err(x.err(format!(
                                "attribute '{a}': '{v}' is not one of {}",
                                allowed.join(", ")
                            )))
                        }
                    };
                    let constraints = match x.child("DynamicConstraints") {
                        Some(d) => Some(dynamic_constraints(d, s)?),
                        None => None,
                    };
                    Ok(Action::LongitudinalDistance {
                        entity: str_attr(x, s, "entityRef")?,
                        freespace: boolean(x, s, "freespace", false)?,
                        continuous: boolean(x, s, "continuous", false)?,
                        distance,
                        time_gap,
                        displacement: one_of(
                            "displacement",
                            "any",
                            &["any", "leadingReferencedEntity", "trailingReferencedEntity"],
                        )?,
                        coordinate_system: one_of(
                            "coordinateSystem",
                            "entity",
                            &["entity", "lane", "road", "trajectory"],
                        )?,
                        constraints,
                        at: x.at(),
                    })
                }
            }
            "TeleportAction" => {
                a.check(&[], &["Position"])?;
                Ok(Action::Teleport {
                    position: self.position(a.req("Position")?, s)?,
                })
            }
            "SynchronizeAction" => self.synchronize(a, s),
            "RoutingAction" => {
                a.check(&[], &["AssignRouteAction", "FollowTrajectoryAction"])?;
                let x = a.only_child()?;
                if x.name == "AssignRouteAction" {
                    x.check(&[], &["Route", "CatalogReference"])?;
                    Ok(Action::AssignRoute {
                        route: self.route_choice(x.only_child()?, s)?,
                    })
                } else {
                    self.follow_trajectory(x, s)
                }
            }
            _ => {
                // Light state and animation actions: kept as events, their settings flattened.
                a.check(&[], &["LightStateAction", "AnimationAction"])?;
                let x = a.only_child()?;
                let mut attributes = BTreeMap::new();
                flatten(x, s, "", &mut attributes)?;
                Ok(Action::Event {
                    element: x.name.clone(),
                    attributes,
                })
            }
        }
    }

    fn speed_action(&self, x: &Node, s: &Scope) -> Result<Action, Error> {
        x.check(&[], &["SpeedActionDynamics", "SpeedActionTarget"])?;
        let d = x.req("SpeedActionDynamics")?;
        d.check(
            &[
                "dynamicsDimension",
                "dynamicsShape",
                "value",
                "followingMode",
            ],
            &[],
        )?;
        let dynamics = Dynamics {
            dimension: str_attr(d, s, "dynamicsDimension")?,
            shape: str_attr(d, s, "dynamicsShape")?,
            value: num(d, s, "value")?,
        };
        if !["time", "rate", "distance"].contains(&dynamics.dimension.as_str()) {
            return Err(d.err(format!(
                "unknown dynamicsDimension '{}'",
                dynamics.dimension
            )));
        }
        if !["step", "linear", "cubic", "sinusoidal"].contains(&dynamics.shape.as_str()) {
            return Err(d.err(format!("unknown dynamicsShape '{}'", dynamics.shape)));
        }
        let t = x.req("SpeedActionTarget")?;
        t.check(&[], &["AbsoluteTargetSpeed", "RelativeTargetSpeed"])?;
        let c = t.only_child()?;
        let target = if c.name == "AbsoluteTargetSpeed" {
            c.check(&["value"], &[])?;
            SpeedTarget::Absolute {
                value: num(c, s, "value")?,
            }
        } else {
            c.check(
                &["entityRef", "value", "speedTargetValueType", "continuous"],
                &[],
            )?;
            SpeedTarget::Relative {
                entity: str_attr(c, s, "entityRef")?,
                value: num(c, s, "value")?,
                value_type: str_attr(c, s, "speedTargetValueType")?,
                continuous: boolean(c, s, "continuous", false)?,
            }
        };
        Ok(Action::Speed { dynamics, target })
    }

    fn synchronize(&self, a: &Node, s: &Scope) -> Result<Action, Error> {
        a.check(
            &["masterEntityRef"],
            &[
                "TargetPositionMaster",
                "TargetPosition",
                "FinalSpeed",
                "TargetToleranceMaster",
                "TargetTolerance",
            ],
        )?;
        let pos = |name: &str| -> Result<Position, Error> {
            let n = a.req(name)?;
            self.position_choice(n.only_child()?, s)
        };
        let final_speed = match a.child("FinalSpeed") {
            None => None,
            Some(f) => {
                f.check(&[], &["AbsoluteSpeed", "RelativeSpeedToMaster"])?;
                let c = f.only_child()?;
                let mut fs = FinalSpeed {
                    absolute: None,
                    relative_to_master: None,
                    steady_state_distance: None,
                    steady_state_time: None,
                };
                if c.name == "AbsoluteSpeed" {
                    c.check(
                        &["value"],
                        &["TargetDistanceSteadyState", "TargetTimeSteadyState"],
                    )?;
                    fs.absolute = Some(num(c, s, "value")?);
                } else {
                    c.check(
                        &["value", "speedTargetValueType"],
                        &["TargetDistanceSteadyState", "TargetTimeSteadyState"],
                    )?;
                    fs.relative_to_master =
                        Some((num(c, s, "value")?, str_attr(c, s, "speedTargetValueType")?));
                }
                if c.children.len() > 1 {
                    return Err(c.children[1].err("give one steady state"));
                }
                if let Some(st) = c.children.first() {
                    if st.name == "TargetDistanceSteadyState" {
                        st.check(&["distance"], &[])?;
                        fs.steady_state_distance = Some(num(st, s, "distance")?);
                    } else {
                        st.check(&["time"], &[])?;
                        fs.steady_state_time = Some(num(st, s, "time")?);
                    }
                }
                Some(fs)
            }
        };
        for t in ["TargetToleranceMaster", "TargetTolerance"] {
            if let Some(n) = a.child(t) {
                return Err(n.err("deprecated tolerances are not supported"));
            }
        }
        Ok(Action::Synchronize {
            master: str_attr(a, s, "masterEntityRef")?,
            master_position: pos("TargetPositionMaster")?,
            target_position: pos("TargetPosition")?,
            final_speed,
        })
    }

    fn follow_trajectory(&self, x: &Node, s: &Scope) -> Result<Action, Error> {
        x.check(
            &["initialDistanceOffset"],
            &[
                "TrajectoryRef",
                "Trajectory",
                "CatalogReference",
                "TimeReference",
                "TrajectoryFollowingMode",
            ],
        )?;
        let trajectory = if let Some(r) = x.child("TrajectoryRef") {
            self.trajectory_ref(r, s)?
        } else if let Some(t) = x.child("Trajectory") {
            self.trajectory(t, s)?
        } else if let Some(c) = x.child("CatalogReference") {
            let (node, inner) = self.catalog_entry(c, s, &["Trajectory"])?;
            self.trajectory(&node, &inner)?
        } else {
            return Err(x.err("missing <TrajectoryRef>"));
        };
        let tr = x.req("TimeReference")?;
        tr.check(&[], &["None", "Timing"])?;
        let tc = tr.only_child()?;
        let timing = if tc.name == "None" {
            tc.check(&[], &[])?;
            None
        } else {
            tc.check(&["domainAbsoluteRelative", "scale", "offset"], &[])?;
            Some(Timing {
                domain_absolute: str_attr(tc, s, "domainAbsoluteRelative")? == "absolute",
                scale: num(tc, s, "scale")?,
                offset: num(tc, s, "offset")?,
            })
        };
        let fm = x.req("TrajectoryFollowingMode")?;
        fm.check(&["followingMode"], &[])?;
        Ok(Action::FollowTrajectory {
            trajectory,
            timing,
            following_mode: str_attr(fm, s, "followingMode")?,
            initial_distance_offset: opt_num(x, s, "initialDistanceOffset")?.unwrap_or(0.0),
        })
    }

    fn trajectory_ref(&self, r: &Node, s: &Scope) -> Result<Trajectory, Error> {
        r.check(&[], &["Trajectory", "CatalogReference"])?;
        let c = r.only_child()?;
        if c.name == "CatalogReference" {
            let (node, inner) = self.catalog_entry(c, s, &["Trajectory"])?;
            self.trajectory(&node, &inner)
        } else {
            self.trajectory(c, s)
        }
    }

    pub(crate) fn trajectory(&self, t: &Node, s: &Scope) -> Result<Trajectory, Error> {
        let d = self.depth.get();
        if d >= crate::read::MAX_DEPTH {
            return Err(t.err(
                "trajectories and routes nest too deep (does a catalog entry refer to itself?)",
            ));
        }
        self.depth.set(d + 1);
        let r = self.trajectory_inner(t, s);
        self.depth.set(d);
        r
    }

    fn trajectory_inner(&self, t: &Node, s: &Scope) -> Result<Trajectory, Error> {
        t.check(&["name", "closed"], &["ParameterDeclarations", "Shape"])?;
        let shape_n = t.req("Shape")?;
        shape_n.check(&[], &["Polyline", "ClothoidSpline", "Clothoid", "Nurbs"])?;
        let sh = shape_n.only_child()?;
        let shape = match sh.name.as_str() {
            "Polyline" => {
                sh.check(&[], &["Vertex"])?;
                let mut vertices = Vec::new();
                for v in &sh.children {
                    v.check(&["time"], &["Position"])?;
                    vertices.push(Vertex {
                        time: opt_num(v, s, "time")?,
                        position: self.position(v.req("Position")?, s)?,
                    });
                }
                if vertices.len() < 2 {
                    return Err(sh.err("a polyline needs at least two vertices"));
                }
                Shape::Polyline { vertices }
            }
            "ClothoidSpline" => {
                sh.check(&["timeEnd"], &["ClothoidSplineSegment"])?;
                let mut segments = Vec::new();
                for g in &sh.children {
                    g.check(
                        &[
                            "curvatureStart",
                            "curvatureEnd",
                            "length",
                            "hOffset",
                            "timeStart",
                        ],
                        &["PositionStart"],
                    )?;
                    let length = num(g, s, "length")?;
                    if length.is_nan() || length <= 0.0 {
                        return Err(g.err("a segment's length must be positive"));
                    }
                    let position_start = match g.child("PositionStart") {
                        Some(p) => {
                            p.check(
                                &[],
                                &[
                                    "WorldPosition",
                                    "LanePosition",
                                    "RoadPosition",
                                    "RelativeLanePosition",
                                    "RelativeRoadPosition",
                                    "RelativeObjectPosition",
                                    "RelativeWorldPosition",
                                    "RoutePosition",
                                    "TrajectoryPosition",
                                ],
                            )?;
                            Some(self.position_choice(p.only_child()?, s)?)
                        }
                        None => None,
                    };
                    segments.push(ClothoidSegment {
                        curvature_start: num(g, s, "curvatureStart")?,
                        curvature_end: num(g, s, "curvatureEnd")?,
                        length,
                        h_offset: opt_num(g, s, "hOffset")?.unwrap_or(0.0),
                        time_start: opt_num(g, s, "timeStart")?,
                        position_start,
                    });
                }
                if segments.is_empty() {
                    return Err(sh.err("a clothoid spline needs segments"));
                }
                Shape::ClothoidSpline {
                    segments,
                    time_end: opt_num(sh, s, "timeEnd")?,
                }
            }
            _ => {
                return Err(sh.err(
                    "this trajectory shape is not supported (Polyline and ClothoidSpline are)",
                ))
            }
        };
        Ok(Trajectory {
            name: str_attr(t, s, "name")?,
            closed: boolean(t, s, "closed", false)?,
            shape,
        })
    }

    fn route_choice(&self, c: &Node, s: &Scope) -> Result<Route, Error> {
        if c.name == "CatalogReference" {
            let (node, inner) = self.catalog_entry(c, s, &["Route"])?;
            self.route(&node, &inner)
        } else {
            self.route(c, s)
        }
    }

    fn route(&self, r: &Node, s: &Scope) -> Result<Route, Error> {
        let d = self.depth.get();
        if d >= crate::read::MAX_DEPTH {
            return Err(r.err(
                "trajectories and routes nest too deep (does a catalog entry refer to itself?)",
            ));
        }
        self.depth.set(d + 1);
        let out = self.route_inner(r, s);
        self.depth.set(d);
        out
    }

    fn route_inner(&self, r: &Node, s: &Scope) -> Result<Route, Error> {
        r.check(&["name", "closed"], &["ParameterDeclarations", "Waypoint"])?;
        let mut waypoints = Vec::new();
        for w in r.children_named("Waypoint") {
            w.check(&["routeStrategy"], &["Position"])?;
            let st = str_attr(w, s, "routeStrategy")?;
            if !["shortest", "fastest", "leastIntersections", "random"].contains(&st.as_str()) {
                return Err(w.err(format!("unknown routeStrategy '{st}'")));
            }
            waypoints.push(self.position(w.req("Position")?, s)?);
        }
        if waypoints.len() < 2 {
            return Err(r.err("a route needs at least two waypoints"));
        }
        Ok(Route {
            name: str_attr(r, s, "name")?,
            closed: boolean(r, s, "closed", false)?,
            waypoints,
        })
    }

    /// `<Position>` (one child).
    pub(crate) fn position(&self, p: &Node, s: &Scope) -> Result<Position, Error> {
        p.check(
            &[],
            &[
                "WorldPosition",
                "LanePosition",
                "RoadPosition",
                "RelativeLanePosition",
                "RelativeRoadPosition",
                "RelativeObjectPosition",
                "RelativeWorldPosition",
                "RoutePosition",
                "TrajectoryPosition",
            ],
        )?;
        self.position_choice(p.only_child()?, s)
    }

    pub(crate) fn position_choice(&self, x: &Node, s: &Scope) -> Result<Position, Error> {
        let orient = |x: &Node| -> Result<Option<Orientation>, Error> {
            match x.child("Orientation") {
                None => Ok(None),
                Some(o) => {
                    o.check(&["h", "p", "r", "type"], &[])?;
                    for a in ["p", "r"] {
                        if opt_num(o, s, a)?.is_some_and(|v| v != 0.0) {
                            return Err(
                                o.err(format!("a non-zero '{a}' (pitch/roll) is not supported"))
                            );
                        }
                    }
                    let ty = o.attr("type").map(|_| str_attr(o, s, "type")).transpose()?;
                    Ok(Some(Orientation {
                        h: opt_num(o, s, "h")?.unwrap_or(0.0),
                        relative: match ty.as_deref() {
                            None | Some("relative") => true,
                            Some("absolute") => false,
                            Some(o2) => {
                                return Err(o.err(format!("unknown orientation type '{o2}'")))
                            }
                        },
                    }))
                }
            }
        };
        Ok(match x.name.as_str() {
            "WorldPosition" => {
                x.check(&["x", "y", "z", "h", "p", "r"], &[])?;
                for a in ["p", "r"] {
                    if opt_num(x, s, a)?.is_some_and(|v| v != 0.0) {
                        return Err(
                            x.err(format!("a non-zero '{a}' (pitch/roll) is not supported"))
                        );
                    }
                }
                Position::World {
                    x: num(x, s, "x")?,
                    y: num(x, s, "y")?,
                    z: opt_num(x, s, "z")?.unwrap_or(0.0),
                    h: opt_num(x, s, "h")?,
                }
            }
            "LanePosition" => {
                x.check(&["roadId", "laneId", "s", "offset"], &["Orientation"])?;
                Position::Lane {
                    road: str_attr(x, s, "roadId")?,
                    lane: int(x, s, "laneId")?,
                    s: num(x, s, "s")?,
                    offset: opt_num(x, s, "offset")?.unwrap_or(0.0),
                    orientation: orient(x)?,
                }
            }
            "RoadPosition" => {
                x.check(&["roadId", "s", "t"], &["Orientation"])?;
                Position::Road {
                    road: str_attr(x, s, "roadId")?,
                    s: num(x, s, "s")?,
                    t: num(x, s, "t")?,
                    orientation: orient(x)?,
                }
            }
            "RelativeLanePosition" => {
                x.check(
                    &["entityRef", "dLane", "ds", "dsLane", "offset"],
                    &["Orientation"],
                )?;
                let ds = opt_num(x, s, "ds")?;
                let ds_lane = opt_num(x, s, "dsLane")?;
                if ds.is_some() == ds_lane.is_some() {
                    return Err(x.err("give exactly one of 'ds' and 'dsLane'"));
                }
                Position::RelativeLane {
                    entity: str_attr(x, s, "entityRef")?,
                    dlane: int(x, s, "dLane")?,
                    ds,
                    ds_lane,
                    offset: opt_num(x, s, "offset")?.unwrap_or(0.0),
                    orientation: orient(x)?,
                }
            }
            "RelativeRoadPosition" => {
                x.check(&["entityRef", "ds", "dt"], &["Orientation"])?;
                Position::RelativeRoad {
                    entity: str_attr(x, s, "entityRef")?,
                    ds: num(x, s, "ds")?,
                    dt: num(x, s, "dt")?,
                    orientation: orient(x)?,
                }
            }
            "RelativeObjectPosition" | "RelativeWorldPosition" => {
                x.check(&["entityRef", "dx", "dy", "dz"], &["Orientation"])?;
                if opt_num(x, s, "dz")?.is_some_and(|v| v != 0.0) {
                    return Err(x.err("a non-zero 'dz' is not supported"));
                }
                let (entity, dx, dy, orientation) = (
                    str_attr(x, s, "entityRef")?,
                    num(x, s, "dx")?,
                    num(x, s, "dy")?,
                    orient(x)?,
                );
                if x.name == "RelativeObjectPosition" {
                    Position::RelativeObject {
                        entity,
                        dx,
                        dy,
                        orientation,
                    }
                } else {
                    Position::RelativeWorld {
                        entity,
                        dx,
                        dy,
                        orientation,
                    }
                }
            }
            "RoutePosition" => {
                x.check(&[], &["RouteRef", "Orientation", "InRoutePosition"])?;
                let rr = x.req("RouteRef")?;
                rr.check(&[], &["Route", "CatalogReference"])?;
                let route = self.route_choice(rr.only_child()?, s)?;
                let ir = x.req("InRoutePosition")?;
                ir.check(
                    &[],
                    &[
                        "FromLaneCoordinates",
                        "FromRoadCoordinates",
                        "FromCurrentEntity",
                    ],
                )?;
                let c = ir.only_child()?;
                let in_route = match c.name.as_str() {
                    "FromLaneCoordinates" => {
                        c.check(&["pathS", "laneId", "laneOffset"], &[])?;
                        InRoute::Lane {
                            path_s: num(c, s, "pathS")?,
                            lane: int(c, s, "laneId")?,
                            lane_offset: opt_num(c, s, "laneOffset")?.unwrap_or(0.0),
                        }
                    }
                    "FromRoadCoordinates" => {
                        c.check(&["pathS", "t"], &[])?;
                        InRoute::Road {
                            path_s: num(c, s, "pathS")?,
                            t: num(c, s, "t")?,
                        }
                    }
                    _ => {
                        return Err(
                            c.err("a route position from the current entity is not supported")
                        )
                    }
                };
                Position::Route {
                    route: Box::new(route),
                    in_route,
                    orientation: orient(x)?,
                }
            }
            "TrajectoryPosition" => {
                x.check(&["s", "t"], &["TrajectoryRef", "Orientation"])?;
                Position::Trajectory {
                    trajectory: Box::new(self.trajectory_ref(x.req("TrajectoryRef")?, s)?),
                    s: num(x, s, "s")?,
                    t: opt_num(x, s, "t")?.unwrap_or(0.0),
                    orientation: orient(x)?,
                }
            }
            _ => return Err(x.err("this position type is not supported")),
        })
    }
}

/// Attributes of an element and its descendants as `path.attr` → evaluated value.
fn flatten(
    n: &Node,
    s: &Scope,
    prefix: &str,
    out: &mut BTreeMap<String, String>,
) -> Result<(), Error> {
    for (k, _) in &n.attrs {
        out.insert(format!("{prefix}{k}"), str_attr(n, s, k)?);
    }
    for c in &n.children {
        flatten(c, s, &format!("{prefix}{}.", c.name), out)?;
    }
    Ok(())
}

/// `<DynamicConstraints>` of a distance action: every limit optional, each ≥ 0.
fn dynamic_constraints(d: &Node, s: &Scope) -> Result<DynamicConstraints, Error> {
    const ATTRS: [&str; 5] = [
        "maxAcceleration",
        "maxAccelerationRate",
        "maxDeceleration",
        "maxDecelerationRate",
        "maxSpeed",
    ];
    d.check(&ATTRS, &[])?;
    let mut v = [None; 5];
    for (slot, a) in v.iter_mut().zip(ATTRS) {
        *slot = opt_num(d, s, a)?;
        if let Some(x) = *slot {
            if !x.is_finite() || x < 0.0 {
                return Err(d.err(format!("attribute '{a}': {x} is not ≥ 0")));
            }
        }
    }
    Ok(DynamicConstraints {
        max_acceleration: v[0],
        max_acceleration_rate: v[1],
        max_deceleration: v[2],
        max_deceleration_rate: v[3],
        max_speed: v[4],
        at: d.at(),
    })
}
