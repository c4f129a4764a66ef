//! The plain scenario the reader hands out: every parameter evaluated, every catalog reference
//! replaced by its entry, positions and trajectories still in the file's terms (see
//! [`crate::geom`] for map coordinates).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::params::Value;

#[derive(Debug, Clone, Serialize)]
pub struct Scenario {
    pub file: PathBuf,
    pub description: String,
    /// The scenario's parameters, evaluated (overrides applied).
    pub parameters: BTreeMap<String, Value>,
    pub variables: BTreeMap<String, Value>,
    /// OpenDRIVE file, resolved against the scenario file's directory.
    pub road_network: Option<PathBuf>,
    pub entities: Vec<Entity>,
    pub init: Vec<InitAction>,
    pub stories: Vec<Story>,
    pub stop_trigger: Option<Trigger>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Entity {
    pub name: String,
    /// Catalog entry it came from.
    pub entry: Option<String>,
    pub kind: EntityKind,
    /// vehicleCategory / pedestrianCategory / miscObjectCategory.
    pub category: String,
    pub bounding_box: BoundingBox,
    /// Axle positions (x from the reference point, the rear axle centre) for vehicles.
    pub front_axle_x: Option<f64>,
    pub rear_axle_x: Option<f64>,
    /// Controller properties (e.g. the front-axle control point) name → value.
    pub controller_properties: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntityKind {
    Vehicle,
    Pedestrian,
    MiscObject,
}

#[derive(Debug, Clone, Copy, Serialize, Default)]
pub struct BoundingBox {
    pub center_x: f64,
    pub center_y: f64,
    pub center_z: f64,
    pub length: f64,
    pub width: f64,
    pub height: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct InitAction {
    /// None for a global action.
    pub entity: Option<String>,
    pub action: Action,
}

#[derive(Debug, Clone, Serialize)]
pub struct Story {
    pub name: String,
    pub acts: Vec<Act>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Act {
    pub name: String,
    pub groups: Vec<ManeuverGroup>,
    pub start_trigger: Option<Trigger>,
    pub stop_trigger: Option<Trigger>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ManeuverGroup {
    pub name: String,
    pub maximum_execution_count: u32,
    pub actors: Vec<String>,
    pub select_triggering_entities: bool,
    pub maneuvers: Vec<Maneuver>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Maneuver {
    pub name: String,
    pub events: Vec<Event>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Event {
    pub name: String,
    pub priority: String,
    pub maximum_execution_count: u32,
    pub actions: Vec<NamedAction>,
    pub start_trigger: Option<Trigger>,
}

#[derive(Debug, Clone, Serialize)]
pub struct NamedAction {
    pub name: String,
    pub action: Action,
    /// `file:line` of the `<Action>` element.
    pub at: String,
}

/// Condition groups: the trigger fires when all conditions of any one group hold.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Trigger {
    pub groups: Vec<Vec<Condition>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Condition {
    pub name: String,
    pub delay_s: f64,
    pub edge: String,
    pub kind: ConditionKind,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ConditionKind {
    TraveledDistance {
        entities: Vec<String>,
        any: bool,
        value: f64,
    },
    StandStill {
        entities: Vec<String>,
        any: bool,
        duration_s: f64,
    },
    Speed {
        entities: Vec<String>,
        any: bool,
        rule: String,
        value: f64,
    },
    RelativeSpeed {
        entities: Vec<String>,
        any: bool,
        entity: String,
        rule: String,
        value: f64,
    },
    RelativeDistance {
        entities: Vec<String>,
        any: bool,
        entity: String,
        distance_type: String,
        freespace: bool,
        coordinate_system: String,
        rule: String,
        value: f64,
    },
    Collision {
        entities: Vec<String>,
        any: bool,
        with: String,
    },
    /// Heading within `tolerance` of `angle` (rad).
    Angle {
        entities: Vec<String>,
        any: bool,
        angle: f64,
        tolerance: f64,
        coordinate_system: String,
    },
    SimulationTime {
        rule: String,
        value: f64,
    },
    StoryboardElementState {
        element_type: String,
        element: String,
        state: String,
    },
    Variable {
        variable: String,
        rule: String,
        value: String,
    },
    Parameter {
        parameter: String,
        rule: String,
        value: String,
    },
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    Teleport {
        position: Position,
    },
    Speed {
        dynamics: Dynamics,
        target: SpeedTarget,
    },
    Synchronize {
        master: String,
        master_position: Position,
        target_position: Position,
        final_speed: Option<FinalSpeed>,
    },
    FollowTrajectory {
        trajectory: Trajectory,
        /// Timing: None (`<None/>`) or (domain absolute|relative, scale, offset).
        timing: Option<Timing>,
        following_mode: String,
        initial_distance_offset: f64,
    },
    AssignRoute {
        route: Route,
    },
    LongitudinalDistance {
        entity: String,
        freespace: bool,
        continuous: bool,
        distance: Option<f64>,
        time_gap: Option<f64>,
        /// `any`, `leadingReferencedEntity` (the referenced entity ahead) or
        /// `trailingReferencedEntity`.
        displacement: String,
        /// `entity`, `lane`, `road` or `trajectory`.
        coordinate_system: String,
        constraints: Option<DynamicConstraints>,
        /// `file:line` of the `<LongitudinalDistanceAction>`.
        at: String,
    },
    /// Environment (kept by name).
    Environment {
        name: String,
    },
    SetVariable {
        variable: String,
        value: String,
    },
    /// Light state and appearance actions: kept as events (element name and attributes).
    Event {
        element: String,
        attributes: BTreeMap<String, String>,
    },
}

impl Action {
    /// The OpenSCENARIO element name of this action (for messages).
    pub fn element(&self) -> &str {
        match self {
            Action::Teleport { .. } => "TeleportAction",
            Action::Speed { .. } => "SpeedAction",
            Action::Synchronize { .. } => "SynchronizeAction",
            Action::FollowTrajectory { .. } => "FollowTrajectoryAction",
            Action::AssignRoute { .. } => "AssignRouteAction",
            Action::LongitudinalDistance { .. } => "LongitudinalDistanceAction",
            Action::Environment { .. } => "EnvironmentAction",
            Action::SetVariable { .. } => "VariableSetAction",
            Action::Event { element, .. } => element,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Dynamics {
    pub dimension: String,
    pub shape: String,
    pub value: f64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SpeedTarget {
    Absolute {
        value: f64,
    },
    Relative {
        entity: String,
        value: f64,
        value_type: String,
        continuous: bool,
    },
}

#[derive(Debug, Clone, Serialize)]
pub struct FinalSpeed {
    /// Absolute speed (m/s) or relative to the master.
    pub absolute: Option<f64>,
    pub relative_to_master: Option<(f64, String)>,
    pub steady_state_distance: Option<f64>,
    pub steady_state_time: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Timing {
    pub domain_absolute: bool,
    pub scale: f64,
    pub offset: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Orientation {
    pub h: f64,
    pub relative: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Position {
    World {
        x: f64,
        y: f64,
        z: f64,
        h: Option<f64>,
    },
    Lane {
        road: String,
        lane: i32,
        s: f64,
        offset: f64,
        orientation: Option<Orientation>,
    },
    Road {
        road: String,
        s: f64,
        t: f64,
        orientation: Option<Orientation>,
    },
    RelativeLane {
        entity: String,
        dlane: i32,
        ds: Option<f64>,
        ds_lane: Option<f64>,
        offset: f64,
        orientation: Option<Orientation>,
    },
    RelativeRoad {
        entity: String,
        ds: f64,
        dt: f64,
        orientation: Option<Orientation>,
    },
    RelativeObject {
        entity: String,
        dx: f64,
        dy: f64,
        orientation: Option<Orientation>,
    },
    RelativeWorld {
        entity: String,
        dx: f64,
        dy: f64,
        orientation: Option<Orientation>,
    },
    Route {
        route: Box<Route>,
        in_route: InRoute,
        orientation: Option<Orientation>,
    },
    Trajectory {
        trajectory: Box<Trajectory>,
        s: f64,
        t: f64,
        orientation: Option<Orientation>,
    },
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InRoute {
    Lane {
        path_s: f64,
        lane: i32,
        lane_offset: f64,
    },
    Road {
        path_s: f64,
        t: f64,
    },
}

#[derive(Debug, Clone, Serialize)]
pub struct Route {
    pub name: String,
    pub closed: bool,
    pub waypoints: Vec<Position>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Trajectory {
    pub name: String,
    pub closed: bool,
    pub shape: Shape,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Shape {
    Polyline {
        vertices: Vec<Vertex>,
    },
    ClothoidSpline {
        segments: Vec<ClothoidSegment>,
        time_end: Option<f64>,
    },
}

#[derive(Debug, Clone, Serialize)]
pub struct Vertex {
    pub time: Option<f64>,
    pub position: Position,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClothoidSegment {
    pub curvature_start: f64,
    pub curvature_end: f64,
    pub length: f64,
    pub h_offset: f64,
    pub time_start: Option<f64>,
    /// None: continues from the previous segment (the first: from the entity's position).
    pub position_start: Option<Position>,
}

/// Limits of the motion that keeps a distance (`<DynamicConstraints>`): m/s², m/s³, m/s.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DynamicConstraints {
    pub max_acceleration: Option<f64>,
    pub max_acceleration_rate: Option<f64>,
    pub max_deceleration: Option<f64>,
    pub max_deceleration_rate: Option<f64>,
    pub max_speed: Option<f64>,
    /// `file:line` of the `<DynamicConstraints>`.
    pub at: String,
}
