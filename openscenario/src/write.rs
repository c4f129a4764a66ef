//! Writing a recorded run as OpenSCENARIO XML 1.3: every actor placed at its first recorded
//! pose in Init and replaying its recorded motion with a FollowTrajectoryAction along a timed
//! Polyline of world positions (absolute timing, `position` following mode).
//!
//! The element order and required children follow the 1.3 schema (FileHeader, CatalogLocations,
//! RoadNetwork, Entities, Storyboard; a Vehicle with BoundingBox, Performance, Axles and
//! Properties; a Pedestrian with BoundingBox and Properties; a Storyboard with Init, Story and a
//! StopTrigger); [`crate::read_scenario`] reads every written file back.

use std::fmt::Write as _;

use quick_xml::escape::escape;

/// A recorded run.
#[derive(Debug, Clone, Default)]
pub struct Recording {
    pub description: String,
    /// Date of the run, `YYYY-MM-DDThh:mm:ss`.
    pub date: String,
    /// OpenDRIVE file as the written file should name it (relative to it), if any.
    pub map: Option<String>,
    pub actors: Vec<Actor>,
}

/// One recorded actor: its size and its samples `(t s, x m, y m, yaw rad)`, in time order.
#[derive(Debug, Clone)]
pub struct Actor {
    pub name: String,
    pub pedestrian: bool,
    /// OpenSCENARIO vehicleCategory (car, bicycle, motorbike, …) or pedestrianCategory.
    pub category: String,
    pub length: f64,
    pub width: f64,
    pub height: f64,
    pub samples: Vec<(f64, f64, f64, f64)>,
}

fn n(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else {
        format!("{v}")
    }
}

fn world(out: &mut String, ind: &str, x: f64, y: f64, h: f64) {
    let _ = writeln!(
        out,
        "{ind}<Position><WorldPosition x=\"{}\" y=\"{}\" z=\"0\" h=\"{}\" /></Position>",
        n(x),
        n(y),
        n(h)
    );
}

/// The document. Actors without samples are left out.
pub fn write(rec: &Recording) -> String {
    let actors: Vec<&Actor> = rec
        .actors
        .iter()
        .filter(|a| !a.samples.is_empty())
        .collect();
    let t0 = actors
        .iter()
        .filter_map(|a| a.samples.first().map(|s| s.0))
        .fold(f64::INFINITY, f64::min);
    let t0 = if t0.is_finite() { t0 } else { 0.0 };
    let t_end = actors
        .iter()
        .filter_map(|a| a.samples.last().map(|s| s.0 - t0))
        .fold(0.0, f64::max);
    let mut o = String::new();
    o.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<OpenSCENARIO>\n");
    let _ = writeln!(
        o,
        "  <FileHeader revMajor=\"1\" revMinor=\"3\" date=\"{}\" description=\"{}\" author=\"scil\" />",
        escape(rec.date.as_str()),
        escape(rec.description.as_str())
    );
    o.push_str("  <CatalogLocations />\n");
    match &rec.map {
        Some(m) => {
            let _ = writeln!(
                o,
                "  <RoadNetwork>\n    <LogicFile filepath=\"{}\" />\n  </RoadNetwork>",
                escape(m.as_str())
            );
        }
        None => o.push_str("  <RoadNetwork />\n"),
    }
    o.push_str("  <Entities>\n");
    for a in &actors {
        let name = escape(a.name.as_str());
        let _ = writeln!(o, "    <ScenarioObject name=\"{name}\">");
        let bb = format!(
            "<BoundingBox><Center x=\"0\" y=\"0\" z=\"{}\" /><Dimensions width=\"{}\" length=\"{}\" height=\"{}\" /></BoundingBox>",
            n(a.height / 2.0),
            n(a.width),
            n(a.length),
            n(a.height)
        );
        if a.pedestrian {
            let _ = writeln!(
                o,
                "      <Pedestrian name=\"{name}\" pedestrianCategory=\"{}\" mass=\"80\">\n        {bb}\n        <Properties />\n      </Pedestrian>",
                escape(a.category.as_str())
            );
        } else {
            let _ = writeln!(
                o,
                "      <Vehicle name=\"{name}\" vehicleCategory=\"{}\">\n        {bb}\n        <Performance maxSpeed=\"100\" maxAcceleration=\"10\" maxDeceleration=\"10\" />\n        <Axles>\n          <FrontAxle maxSteering=\"0.6\" wheelDiameter=\"0.6\" trackWidth=\"{tw}\" positionX=\"{fx}\" positionZ=\"0.3\" />\n          <RearAxle maxSteering=\"0\" wheelDiameter=\"0.6\" trackWidth=\"{tw}\" positionX=\"0\" positionZ=\"0.3\" />\n        </Axles>\n        <Properties />\n      </Vehicle>",
                escape(a.category.as_str()),
                tw = n(a.width * 0.8),
                fx = n(a.length * 0.6),
            );
        }
        o.push_str("    </ScenarioObject>\n");
    }
    o.push_str("  </Entities>\n  <Storyboard>\n    <Init>\n      <Actions>\n");
    for a in &actors {
        let (_, x, y, h) = a.samples[0];
        let _ = writeln!(
            o,
            "        <Private entityRef=\"{}\">\n          <PrivateAction>\n            <TeleportAction>",
            escape(a.name.as_str())
        );
        world(&mut o, "              ", x, y, h);
        o.push_str(
            "            </TeleportAction>\n          </PrivateAction>\n        </Private>\n",
        );
    }
    o.push_str("      </Actions>\n    </Init>\n    <Story name=\"recorded_run\">\n      <Act name=\"replay\">\n");
    for a in &actors {
        let name = escape(a.name.as_str());
        let _ = writeln!(
            o,
            "        <ManeuverGroup name=\"{name}_motion\" maximumExecutionCount=\"1\">\n          <Actors selectTriggeringEntities=\"false\">\n            <EntityRef entityRef=\"{name}\" />\n          </Actors>\n          <Maneuver name=\"{name}_replay\">\n            <Event name=\"{name}_follow\" priority=\"override\" maximumExecutionCount=\"1\">\n              <Action name=\"{name}_trajectory\">\n                <PrivateAction>\n                  <RoutingAction>\n                    <FollowTrajectoryAction>\n                      <TimeReference>\n                        <Timing domainAbsoluteRelative=\"absolute\" scale=\"1\" offset=\"0\" />\n                      </TimeReference>\n                      <TrajectoryFollowingMode followingMode=\"position\" />\n                      <TrajectoryRef>\n                        <Trajectory name=\"{name}_recorded\" closed=\"false\">\n                          <Shape>\n                            <Polyline>"
        );
        // A polyline needs two vertices: a single sample stands still.
        let mut samples = a.samples.clone();
        if samples.len() == 1 {
            samples.push(samples[0]);
        }
        for &(t, x, y, h) in &samples {
            let _ = writeln!(
                o,
                "                              <Vertex time=\"{}\">",
                n(t - t0)
            );
            world(&mut o, "                                ", x, y, h);
            o.push_str("                              </Vertex>\n");
        }
        o.push_str("                            </Polyline>\n                          </Shape>\n                        </Trajectory>\n                      </TrajectoryRef>\n                    </FollowTrajectoryAction>\n                  </RoutingAction>\n                </PrivateAction>\n              </Action>\n            </Event>\n          </Maneuver>\n        </ManeuverGroup>\n");
    }
    let _ = writeln!(
        o,
        "      </Act>\n    </Story>\n    <StopTrigger>\n      <ConditionGroup>\n        <Condition name=\"recording_ends\" delay=\"0\" conditionEdge=\"rising\">\n          <ByValueCondition>\n            <SimulationTimeCondition value=\"{}\" rule=\"greaterThan\" />\n          </ByValueCondition>\n        </Condition>\n      </ConditionGroup>\n    </StopTrigger>\n  </Storyboard>\n</OpenSCENARIO>",
        n(t_end)
    );
    o
}
