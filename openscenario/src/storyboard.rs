//! Storyboard: Init, stories, acts, maneuver groups, maneuvers, events, triggers, conditions.

use crate::model::*;
use crate::params::Scope;
use crate::read::{boolean, num, str_attr, Ctx};
use crate::xml::Node;
use crate::Error;

impl Ctx {
    pub(crate) fn init(&self, i: &Node, s: &Scope) -> Result<Vec<InitAction>, Error> {
        i.check(&[], &["Actions"])?;
        let mut out = Vec::new();
        let Some(acts) = i.child("Actions") else {
            return Ok(out);
        };
        acts.check(&[], &["GlobalAction", "UserDefinedAction", "Private"])?;
        for a in &acts.children {
            match a.name.as_str() {
                "GlobalAction" => out.push(InitAction {
                    entity: None,
                    action: self.global_action(a, s)?,
                }),
                "Private" => {
                    a.check(&["entityRef"], &["PrivateAction"])?;
                    let e = str_attr(a, s, "entityRef")?;
                    for pa in &a.children {
                        out.push(InitAction {
                            entity: Some(e.clone()),
                            action: self.private_action(pa, s)?,
                        });
                    }
                }
                _ => return Err(a.err("user-defined actions are not supported")),
            }
        }
        Ok(out)
    }

    pub(crate) fn story(&self, n: &Node, s: &Scope) -> Result<Story, Error> {
        n.check(&["name"], &["ParameterDeclarations", "Act"])?;
        if let Some(pd) = n.child("ParameterDeclarations") {
            return Err(pd.err("story-level parameter declarations are not supported"));
        }
        let mut acts = Vec::new();
        for a in n.children_named("Act") {
            a.check(&["name"], &["ManeuverGroup", "StartTrigger", "StopTrigger"])?;
            let mut groups = Vec::new();
            for g in a.children_named("ManeuverGroup") {
                groups.push(self.maneuver_group(g, s)?);
            }
            acts.push(Act {
                name: str_attr(a, s, "name")?,
                groups,
                start_trigger: a
                    .child("StartTrigger")
                    .map(|t| self.trigger(t, s))
                    .transpose()?,
                stop_trigger: a
                    .child("StopTrigger")
                    .map(|t| self.trigger(t, s))
                    .transpose()?,
            });
        }
        Ok(Story {
            name: str_attr(n, s, "name")?,
            acts,
        })
    }

    fn maneuver_group(&self, g: &Node, s: &Scope) -> Result<ManeuverGroup, Error> {
        g.check(
            &["name", "maximumExecutionCount"],
            &["Actors", "CatalogReference", "Maneuver"],
        )?;
        let actors_n = g.req("Actors")?;
        actors_n.check(&["selectTriggeringEntities"], &["EntityRef"])?;
        let mut actors = Vec::new();
        for e in &actors_n.children {
            e.check(&["entityRef"], &[])?;
            actors.push(str_attr(e, s, "entityRef")?);
        }
        let mut maneuvers = Vec::new();
        for c in &g.children {
            match c.name.as_str() {
                "Maneuver" => maneuvers.push(self.maneuver(c, s)?),
                "CatalogReference" => {
                    let (node, inner) = self.catalog_entry(c, s, &["Maneuver"])?;
                    maneuvers.push(self.maneuver(&node, &inner)?);
                }
                _ => {}
            }
        }
        Ok(ManeuverGroup {
            name: str_attr(g, s, "name")?,
            maximum_execution_count: count(g, s)?,
            actors,
            select_triggering_entities: boolean(actors_n, s, "selectTriggeringEntities", false)?,
            maneuvers,
        })
    }

    fn maneuver(&self, m: &Node, s: &Scope) -> Result<Maneuver, Error> {
        m.check(&["name"], &["ParameterDeclarations", "Event"])?;
        let mut events = Vec::new();
        for e in m.children_named("Event") {
            e.check(
                &["name", "priority", "maximumExecutionCount"],
                &["Action", "StartTrigger"],
            )?;
            let mut actions = Vec::new();
            for a in e.children_named("Action") {
                a.check(
                    &["name"],
                    &["GlobalAction", "UserDefinedAction", "PrivateAction"],
                )?;
                let inner = a.only_child()?;
                let action = match inner.name.as_str() {
                    "GlobalAction" => self.global_action(inner, s)?,
                    "PrivateAction" => self.private_action(inner, s)?,
                    _ => return Err(inner.err("user-defined actions are not supported")),
                };
                actions.push(NamedAction {
                    name: str_attr(a, s, "name")?,
                    action,
                    at: a.at(),
                });
            }
            events.push(Event {
                name: str_attr(e, s, "name")?,
                priority: e
                    .attr("priority")
                    .map(|_| str_attr(e, s, "priority"))
                    .transpose()?
                    .unwrap_or_else(|| "override".into()),
                maximum_execution_count: count(e, s)?,
                actions,
                start_trigger: e
                    .child("StartTrigger")
                    .map(|t| self.trigger(t, s))
                    .transpose()?,
            });
        }
        Ok(Maneuver {
            name: str_attr(m, s, "name")?,
            events,
        })
    }

    pub(crate) fn trigger(&self, t: &Node, s: &Scope) -> Result<Trigger, Error> {
        t.check(&[], &["ConditionGroup"])?;
        let mut groups = Vec::new();
        for g in &t.children {
            g.check(&[], &["Condition"])?;
            let mut conds = Vec::new();
            for c in &g.children {
                conds.push(condition(c, s)?);
            }
            groups.push(conds);
        }
        Ok(Trigger { groups })
    }
}

fn count(n: &Node, s: &Scope) -> Result<u32, Error> {
    match n.attr("maximumExecutionCount") {
        None => Ok(1),
        Some(_) => {
            let v = num(n, s, "maximumExecutionCount")?;
            if v < 1.0 || v != v.trunc() {
                return Err(n.err("maximumExecutionCount must be a positive integer"));
            }
            Ok(v as u32)
        }
    }
}

fn rule(n: &Node, s: &Scope) -> Result<String, Error> {
    let r = str_attr(n, s, "rule")?;
    match r.as_str() {
        "greaterThan" | "lessThan" | "equalTo" | "greaterOrEqual" | "lessOrEqual"
        | "notEqualTo" => Ok(r),
        _ => Err(n.err(format!("unknown rule '{r}'"))),
    }
}

fn condition(c: &Node, s: &Scope) -> Result<Condition, Error> {
    c.check(
        &["name", "delay", "conditionEdge"],
        &["ByEntityCondition", "ByValueCondition"],
    )?;
    let body = c.only_child()?;
    let kind = match body.name.as_str() {
        "ByEntityCondition" => {
            body.check(&[], &["TriggeringEntities", "EntityCondition"])?;
            let te = body.req("TriggeringEntities")?;
            te.check(&["triggeringEntitiesRule"], &["EntityRef"])?;
            let any = match str_attr(te, s, "triggeringEntitiesRule")?.as_str() {
                "any" => true,
                "all" => false,
                o => return Err(te.err(format!("unknown triggeringEntitiesRule '{o}'"))),
            };
            let mut entities = Vec::new();
            for e in &te.children {
                e.check(&["entityRef"], &[])?;
                entities.push(str_attr(e, s, "entityRef")?);
            }
            let ec = body.req("EntityCondition")?;
            ec.check(
                &[],
                &[
                    "TraveledDistanceCondition",
                    "StandStillCondition",
                    "SpeedCondition",
                    "RelativeSpeedCondition",
                    "RelativeDistanceCondition",
                    "CollisionCondition",
                    "AngleCondition",
                ],
            )?;
            let x = ec.only_child()?;
            match x.name.as_str() {
                "TraveledDistanceCondition" => {
                    x.check(&["value"], &[])?;
                    ConditionKind::TraveledDistance {
                        entities,
                        any,
                        value: num(x, s, "value")?,
                    }
                }
                "StandStillCondition" => {
                    x.check(&["duration"], &[])?;
                    ConditionKind::StandStill {
                        entities,
                        any,
                        duration_s: num(x, s, "duration")?,
                    }
                }
                "SpeedCondition" => {
                    x.check(&["value", "rule", "direction"], &[])?;
                    if x.attr("direction").is_some() {
                        return Err(x.err("a directional speed condition is not supported"));
                    }
                    ConditionKind::Speed {
                        entities,
                        any,
                        rule: rule(x, s)?,
                        value: num(x, s, "value")?,
                    }
                }
                "AngleCondition" => {
                    x.check(
                        &["angle", "angleType", "angleTolerance", "coordinateSystem"],
                        &[],
                    )?;
                    let angle_type = str_attr(x, s, "angleType")?;
                    if angle_type != "heading" {
                        return Err(x.err(format!(
                            "angleType '{angle_type}' is not supported (heading is)"
                        )));
                    }
                    ConditionKind::Angle {
                        entities,
                        any,
                        angle: num(x, s, "angle")?,
                        tolerance: num(x, s, "angleTolerance")?,
                        coordinate_system: x
                            .attr("coordinateSystem")
                            .map(|_| str_attr(x, s, "coordinateSystem"))
                            .transpose()?
                            .unwrap_or_else(|| "entity".into()),
                    }
                }
                "RelativeSpeedCondition" => {
                    x.check(&["value", "rule", "entityRef"], &[])?;
                    ConditionKind::RelativeSpeed {
                        entities,
                        any,
                        entity: str_attr(x, s, "entityRef")?,
                        rule: rule(x, s)?,
                        value: num(x, s, "value")?,
                    }
                }
                "RelativeDistanceCondition" => {
                    x.check(
                        &[
                            "value",
                            "rule",
                            "entityRef",
                            "freespace",
                            "relativeDistanceType",
                            "coordinateSystem",
                            "routingAlgorithm",
                        ],
                        &[],
                    )?;
                    if x.attr("routingAlgorithm").is_some() {
                        return Err(x.err("routingAlgorithm is not supported"));
                    }
                    ConditionKind::RelativeDistance {
                        entities,
                        any,
                        entity: str_attr(x, s, "entityRef")?,
                        distance_type: str_attr(x, s, "relativeDistanceType")?,
                        freespace: boolean(x, s, "freespace", false)?,
                        coordinate_system: x
                            .attr("coordinateSystem")
                            .map(|_| str_attr(x, s, "coordinateSystem"))
                            .transpose()?
                            .unwrap_or_else(|| "entity".into()),
                        rule: rule(x, s)?,
                        value: num(x, s, "value")?,
                    }
                }
                _ => {
                    x.check(&[], &["EntityRef", "ByType"])?;
                    let e = x.only_child()?;
                    if e.name != "EntityRef" {
                        return Err(e.err("collision by object type is not supported"));
                    }
                    e.check(&["entityRef"], &[])?;
                    ConditionKind::Collision {
                        entities,
                        any,
                        with: str_attr(e, s, "entityRef")?,
                    }
                }
            }
        }
        _ => {
            body.check(
                &[],
                &[
                    "SimulationTimeCondition",
                    "StoryboardElementStateCondition",
                    "VariableCondition",
                    "ParameterCondition",
                ],
            )?;
            let x = body.only_child()?;
            match x.name.as_str() {
                "SimulationTimeCondition" => {
                    x.check(&["value", "rule"], &[])?;
                    ConditionKind::SimulationTime {
                        rule: rule(x, s)?,
                        value: num(x, s, "value")?,
                    }
                }
                "StoryboardElementStateCondition" => {
                    x.check(
                        &["storyboardElementType", "storyboardElementRef", "state"],
                        &[],
                    )?;
                    ConditionKind::StoryboardElementState {
                        element_type: str_attr(x, s, "storyboardElementType")?,
                        element: str_attr(x, s, "storyboardElementRef")?,
                        state: str_attr(x, s, "state")?,
                    }
                }
                "VariableCondition" => {
                    x.check(&["variableRef", "rule", "value"], &[])?;
                    ConditionKind::Variable {
                        variable: str_attr(x, s, "variableRef")?,
                        rule: rule(x, s)?,
                        value: str_attr(x, s, "value")?,
                    }
                }
                _ => {
                    x.check(&["parameterRef", "rule", "value"], &[])?;
                    ConditionKind::Parameter {
                        parameter: str_attr(x, s, "parameterRef")?,
                        rule: rule(x, s)?,
                        value: str_attr(x, s, "value")?,
                    }
                }
            }
        }
    };
    let edge = str_attr(c, s, "conditionEdge")?;
    if !["none", "rising", "falling", "risingOrFalling"].contains(&edge.as_str()) {
        return Err(c.err(format!("unknown conditionEdge '{edge}'")));
    }
    Ok(Condition {
        name: str_attr(c, s, "name")?,
        delay_s: num(c, s, "delay")?,
        edge,
        kind,
    })
}
