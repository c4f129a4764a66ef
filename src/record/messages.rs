//! Foxglove messages of a run: the channel table and the encoder from engine state (or stored
//! telemetry) to JSON-encoded messages with Foxglove's well-known schemas.
//!
//! Everything here is pure (no IO); [`super::mcap`] writes the messages to a file and
//! [`crate::serve::foxglove`] streams them to Foxglove/Lichtblick clients.

use std::collections::BTreeMap;
use std::sync::Arc;

use opendrive::geo::GeoFrame;
use serde_json::{json, Value};

use crate::frame::yaw_to_heading;
use crate::map::Map;
use crate::sample::Sample;
use crate::scenario::engine::{Engine, Event, Output};
use crate::scenario::{Scenario, TargetKind};

/// One channel: topic, schema name and its JSON Schema. Messages are JSON (`encoding = "json"`,
/// `schemaEncoding = "jsonschema"`).
#[derive(Debug, Clone, Copy)]
pub struct ChannelDef {
    pub topic: &'static str,
    pub schema_name: &'static str,
    pub schema: &'static str,
}

pub const MESSAGE_ENCODING: &str = "json";
pub const SCHEMA_ENCODING: &str = "jsonschema";

/// Index into [`CHANNELS`].
pub mod ch {
    pub const VUT: usize = 0;
    pub const FIX: usize = 1;
    pub const TF: usize = 2;
    pub const POSES: usize = 3;
    pub const LANES: usize = 4;
    pub const VEHICLES: usize = 5;
    pub const STATE: usize = 6;
    pub const EVENTS: usize = 7;
}

/// The channels of every scil recording, in [`ch`] order.
pub const CHANNELS: [ChannelDef; 8] = [
    ChannelDef {
        topic: "/scil/vut",
        schema_name: "scil.VutSample",
        schema: include_str!("schemas/VutSample.json"),
    },
    ChannelDef {
        topic: "/vut/fix",
        schema_name: "foxglove.LocationFix",
        schema: include_str!("schemas/LocationFix.json"),
    },
    ChannelDef {
        topic: "/tf",
        schema_name: "foxglove.FrameTransform",
        schema: include_str!("schemas/FrameTransform.json"),
    },
    ChannelDef {
        topic: "/poses",
        schema_name: "foxglove.PosesInFrame",
        schema: include_str!("schemas/PosesInFrame.json"),
    },
    ChannelDef {
        topic: "/scene/lanes",
        schema_name: "foxglove.SceneUpdate",
        schema: include_str!("schemas/SceneUpdate.json"),
    },
    ChannelDef {
        topic: "/scene/vehicles",
        schema_name: "foxglove.SceneUpdate",
        schema: include_str!("schemas/SceneUpdate.json"),
    },
    ChannelDef {
        topic: "/scil/state",
        schema_name: "scil.RunState",
        schema: include_str!("schemas/RunState.json"),
    },
    ChannelDef {
        topic: "/scil/events",
        schema_name: "foxglove.Log",
        schema: include_str!("schemas/Log.json"),
    },
];

/// The map frame id used by every message.
pub const MAP_FRAME: &str = "map";

/// One encoded message: channel index into [`CHANNELS`], log time (ns, sample time base), JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub channel: usize,
    pub log_time_ns: u64,
    pub data: Vec<u8>,
}

/// Seconds (sample time base) to nanoseconds; negative or non-finite times map to 0.
pub fn time_ns(t_s: f64) -> u64 {
    if t_s.is_finite() && t_s > 0.0 {
        (t_s * 1e9).round() as u64
    } else {
        0
    }
}

fn stamp(t_s: f64) -> Value {
    let ns = time_ns(t_s);
    json!({"sec": ns / 1_000_000_000, "nsec": ns % 1_000_000_000})
}

fn quat(yaw: f64) -> Value {
    json!({"x": 0.0, "y": 0.0, "z": (yaw / 2.0).sin(), "w": (yaw / 2.0).cos()})
}

fn pose(x: f64, y: f64, z: f64, yaw: f64) -> Value {
    json!({"position": {"x": x, "y": y, "z": z}, "orientation": quat(yaw)})
}

fn color(r: f64, g: f64, b: f64, a: f64) -> Value {
    json!({"r": r, "g": g, "b": b, "a": a})
}

fn entity(t_s: f64, id: &str, frame: &str) -> serde_json::Map<String, Value> {
    let v = json!({
        "timestamp": stamp(t_s), "frame_id": frame, "id": id,
        "lifetime": {"sec": 0, "nsec": 0}, "frame_locked": false, "metadata": [],
        "arrows": [], "cubes": [], "spheres": [], "cylinders": [], "lines": [],
        "triangles": [], "texts": [], "models": []
    });
    match v {
        Value::Object(m) => m,
        _ => serde_json::Map::new(),
    }
}

/// A vehicle at one instant (map frame).
#[derive(Debug, Clone, PartialEq)]
pub struct VehicleSnap {
    pub id: String,
    pub x: f64,
    pub y: f64,
    pub yaw_rad: f64,
    pub speed_mps: f64,
}

/// A target's engine view at one instant.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TargetSnap {
    pub target: String,
    pub ttc_s: Option<f64>,
    pub threshold_s: f64,
    pub triggered: bool,
    pub scheduled_at_s: Option<f64>,
}

/// Everything one VUT sample produces: the sample, the targets' states and the engine's view.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub vut: Sample,
    pub targets: Vec<VehicleSnap>,
    pub status: Vec<TargetSnap>,
}

impl Snapshot {
    /// The engine's state right after it handled `s` (targets from its twin, TTC from
    /// [`Engine::targets`]).
    pub fn from_engine(engine: &Engine, s: &Sample) -> Snapshot {
        let vut_id = &engine.config().vut_id;
        let targets = engine
            .twin()
            .vehicles()
            .filter(|(id, _)| *id != vut_id)
            .map(|(id, v)| VehicleSnap {
                id: id.clone(),
                x: v.x,
                y: v.y,
                yaw_rad: v.yaw_rad,
                speed_mps: v.speed_mps,
            })
            .collect();
        let status = engine
            .targets()
            .into_iter()
            .map(|t| TargetSnap {
                target: t.target,
                ttc_s: t.ttc_s,
                threshold_s: t.threshold_s,
                triggered: t.triggered,
                scheduled_at_s: t.scheduled_at_s,
            })
            .collect();
        Snapshot {
            vut: s.clone(),
            targets,
            status,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct BoxSize {
    length: f64,
    width: f64,
    height: f64,
    /// Box centre ahead of the reference point (m).
    forward: f64,
}

/// Encodes a run's state as Foxglove messages. Cheap to share (`Arc` inside).
#[derive(Clone)]
pub struct Encoder {
    geo: Option<Arc<GeoFrame>>,
    /// The lanes entity's `lines` array, serialised once.
    lanes: Option<Arc<str>>,
    vut_box: BoxSize,
    target_boxes: BTreeMap<String, BoxSize>,
}

impl Encoder {
    /// An encoder for runs of `scenario` (box sizes) on `map` (lanes, WGS84); both optional.
    pub fn new(scenario: Option<&Scenario>, map: Option<&Map>) -> Encoder {
        let vut_box = match scenario {
            Some(sc) => BoxSize {
                length: sc.vut.length_m,
                width: sc.vut.width_m,
                height: 1.5,
                forward: sc.vut.reference_to_front_m - 0.5 * sc.vut.length_m,
            },
            None => BoxSize {
                length: 4.6,
                width: 1.855,
                height: 1.5,
                forward: 0.0,
            },
        };
        let target_boxes = scenario
            .map(|sc| {
                sc.targets
                    .iter()
                    .map(|t| {
                        let (length, width, height) = match t.kind {
                            TargetKind::Pedestrian => (0.3, 0.5, 1.8),
                            TargetKind::Cyclist => (1.8, 0.6, 1.8),
                            TargetKind::Vehicle => (4.5, 1.8, 1.5),
                            TargetKind::Motorcycle => (2.2, 0.8, 1.4),
                        };
                        let b = BoxSize {
                            length,
                            width,
                            height,
                            forward: 0.0,
                        };
                        (t.id.clone(), b)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let lanes = map
            .and_then(lanes_scene)
            .and_then(|v| serde_json::to_string(&v).ok())
            .map(Arc::from);
        Encoder {
            geo: map.and_then(|m| m.geo.clone()),
            lanes,
            vut_box,
            target_boxes,
        }
    }

    /// The lanes as one `foxglove.SceneUpdate` (entity `lanes`, lifetime 0 = until replaced),
    /// stamped `t_s`. `None` without a map.
    pub fn lanes_message(&self, t_s: f64) -> Option<Message> {
        let lanes = self.lanes.as_ref()?;
        let mut e = entity(t_s, "lanes", MAP_FRAME);
        e.insert("lines".into(), Value::String(String::new()));
        let v = json!({"deletions": [], "entities": [Value::Object(e)]});
        // Splice the pre-serialised lines in place of the placeholder.
        let text = serde_json::to_string(&v).ok()?;
        let data = text.replacen(r#""lines":"""#, &format!(r#""lines":{lanes}"#), 1);
        Some(Message {
            channel: ch::LANES,
            log_time_ns: time_ns(t_s),
            data: data.into_bytes(),
        })
    }

    /// Messages of one VUT sample: exactly one on [`ch::VUT`], one LocationFix (with a geo
    /// frame), one FrameTransform per vehicle, one PosesInFrame, one SceneUpdate, one state.
    pub fn sample(&self, snap: &Snapshot) -> Vec<Message> {
        let s = &snap.vut;
        let t = s.time_s;
        let mut out = Vec::with_capacity(6 + snap.targets.len());
        let latlon = self.geo.as_ref().map(|g| g.to_wgs84(s.x, s.y));
        let vut = json!({
            "time_s": t, "vehicle": s.vehicle, "x": s.x, "y": s.y, "yaw_rad": s.yaw_rad,
            "heading_deg": yaw_to_heading(s.yaw_rad), "speed_mps": s.speed_mps,
            "speed_kmh": s.speed_mps * 3.6,
            "latitude": latlon.map(|l| l.0), "longitude": latlon.map(|l| l.1),
            "steering_wheel_deg": s.steering_wheel_deg, "road_wheel_deg": s.road_wheel_deg,
            "brake_light": s.brake_light, "accel_mps2": s.accel_mps2,
            "yaw_rate_rps": s.yaw_rate_rps, "wheel_speed_mps": s.wheel_speed_mps,
        });
        out.push(msg(ch::VUT, t, &vut));
        if let Some((lat, lon)) = latlon {
            let fix = json!({
                "timestamp": stamp(t), "frame_id": "vut", "latitude": lat, "longitude": lon,
                "altitude": 0.0, "position_covariance": vec![0.0f64; 9], "position_covariance_type": 0
            });
            out.push(msg(ch::FIX, t, &fix));
        }
        let vehicles = std::iter::once(("vut".to_string(), s.x, s.y, s.yaw_rad)).chain(
            snap.targets
                .iter()
                .map(|v| (format!("target/{}", v.id), v.x, v.y, v.yaw_rad)),
        );
        let mut poses = Vec::new();
        for (frame, x, y, yaw) in vehicles {
            let tf = json!({
                "timestamp": stamp(t), "parent_frame_id": MAP_FRAME, "child_frame_id": frame,
                "translation": {"x": x, "y": y, "z": 0.0}, "rotation": quat(yaw)
            });
            out.push(msg(ch::TF, t, &tf));
            poses.push(pose(x, y, 0.0, yaw));
        }
        let poses = json!({"timestamp": stamp(t), "frame_id": MAP_FRAME, "poses": poses});
        out.push(msg(ch::POSES, t, &poses));
        let mut entities =
            vec![self.vehicle_entity(t, "vut", s.x, s.y, s.yaw_rad, self.vut_box, true)];
        for v in &snap.targets {
            let b = self.target_boxes.get(&v.id).copied().unwrap_or(BoxSize {
                length: 0.5,
                width: 0.5,
                height: 1.8,
                forward: 0.0,
            });
            entities.push(self.vehicle_entity(
                t,
                &format!("target/{}", v.id),
                v.x,
                v.y,
                v.yaw_rad,
                b,
                false,
            ));
        }
        out.push(msg(
            ch::VEHICLES,
            t,
            &json!({"deletions": [], "entities": entities}),
        ));
        out.push(msg(ch::STATE, t, &state_json(snap)));
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn vehicle_entity(
        &self,
        t: f64,
        id: &str,
        x: f64,
        y: f64,
        yaw: f64,
        b: BoxSize,
        vut: bool,
    ) -> Value {
        let mut e = entity(t, id, MAP_FRAME);
        let (sn, cs) = yaw.sin_cos();
        let c = if vut {
            color(0.2, 0.5, 1.0, 0.8)
        } else {
            color(1.0, 0.4, 0.1, 0.9)
        };
        let cube = json!({
            "pose": pose(x + b.forward * cs, y + b.forward * sn, 0.5 * b.height, yaw),
            "size": {"x": b.length, "y": b.width, "z": b.height}, "color": c
        });
        e.insert("cubes".into(), json!([cube]));
        let label = json!({
            "pose": pose(x, y, b.height + 0.5, 0.0), "billboard": true, "font_size": 14.0,
            "scale_invariant": true, "color": color(1.0, 1.0, 1.0, 1.0), "text": id
        });
        e.insert("texts".into(), json!([label]));
        Value::Object(e)
    }

    /// An engine output as a `foxglove.Log` on [`ch::EVENTS`], at the event's own time (else
    /// `fallback_t_s`).
    pub fn output(&self, fallback_t_s: f64, o: &Output) -> Message {
        let t = output_time(o).unwrap_or(fallback_t_s);
        let (level, name) = match o {
            Output::Command(_) => (2, "scil.command"),
            Output::Event(Event::Aborted { .. }) => (4, "scil.event"),
            Output::Event(Event::SampleRejected { .. }) => (3, "scil.event"),
            Output::Event(_) => (2, "scil.event"),
        };
        let text = serde_json::to_string(o).unwrap_or_default();
        log_message(t, level, name, &text)
    }
}

/// A `foxglove.Log` message (level 1 debug … 5 fatal).
pub fn log_message(t_s: f64, level: u8, name: &str, text: &str) -> Message {
    let v = json!({
        "timestamp": stamp(t_s), "level": level, "message": text, "name": name,
        "file": "", "line": 0
    });
    msg(ch::EVENTS, t_s, &v)
}

/// The sample-time instant an output carries, if any.
pub fn output_time(o: &Output) -> Option<f64> {
    use crate::scenario::engine::Command;
    match o {
        Output::Command(Command::Start { at_s, .. }) => Some(*at_s),
        Output::Command(_) => None,
        Output::Event(e) => match e {
            Event::Armed { time_s }
            | Event::TriggerUnscheduled { time_s, .. }
            | Event::SampleRejected { time_s, .. }
            | Event::Aborted { time_s, .. }
            | Event::Finished { time_s } => Some(*time_s),
            Event::TriggerScheduled { from_sample_s, .. } => Some(*from_sample_s),
            Event::Triggered(r) | Event::TriggerAssessed(r) => Some(r.fired_at_s),
            Event::Impact(r) => r.time_s,
            other => other.time_s(),
        },
    }
}

fn state_json(snap: &Snapshot) -> Value {
    let speed = |id: &str| {
        snap.targets
            .iter()
            .find(|v| v.id == id)
            .map(|v| v.speed_mps)
    };
    let ttc: serde_json::Map<String, Value> = snap
        .status
        .iter()
        .map(|t| (t.target.clone(), json!(t.ttc_s)))
        .collect();
    let triggered: serde_json::Map<String, Value> = snap
        .status
        .iter()
        .map(|t| (t.target.clone(), json!(t.triggered)))
        .collect();
    let targets: Vec<Value> = snap
        .status
        .iter()
        .map(|t| {
            json!({"target": t.target, "ttc_s": t.ttc_s, "threshold_s": t.threshold_s,
                   "triggered": t.triggered, "scheduled_at_s": t.scheduled_at_s,
                   "speed_mps": speed(&t.target)})
        })
        .collect();
    json!({
        "time_s": snap.vut.time_s, "vut_speed_mps": snap.vut.speed_mps,
        "vut_speed_kmh": snap.vut.speed_mps * 3.6, "ttc_s": ttc, "triggered": triggered,
        "targets": targets
    })
}

fn msg(channel: usize, t_s: f64, v: &Value) -> Message {
    Message {
        channel,
        log_time_ns: time_ns(t_s),
        data: serde_json::to_vec(v).unwrap_or_default(),
    }
}

/// The map's lanes as `foxglove.LinePrimitive`s (line strips, map frame, 1 m sampling).
fn lanes_scene(map: &Map) -> Option<Value> {
    let fc = opendrive::geojson::lanes_with_step(
        &map.road_network,
        opendrive::geojson::Coords::Map,
        1.0,
    )
    .ok()?;
    let features = fc.get("features")?.as_array()?;
    let mut lines = Vec::with_capacity(features.len());
    for f in features {
        let Some(coords) = f.pointer("/geometry/coordinates").and_then(Value::as_array) else {
            continue;
        };
        let points: Vec<Value> = coords
            .iter()
            .filter_map(|c| {
                let x = c.get(0)?.as_f64()?;
                let y = c.get(1)?.as_f64()?;
                Some(json!({"x": x, "y": y, "z": 0.0}))
            })
            .collect();
        let props = f.get("properties");
        let kind = props.and_then(|p| p.get("kind")).and_then(Value::as_str);
        let lane = props.and_then(|p| p.get("lane")).and_then(Value::as_i64);
        let (thickness, c) = match (kind, lane) {
            (_, Some(0)) => (0.15, color(1.0, 0.85, 0.2, 1.0)),
            (Some("centre"), _) => (0.04, color(0.5, 0.5, 0.5, 0.6)),
            _ => (0.1, color(0.9, 0.9, 0.9, 1.0)),
        };
        lines.push(json!({
            "type": 0, "pose": pose(0.0, 0.0, 0.0, 0.0), "thickness": thickness,
            "scale_invariant": false, "points": points, "color": c, "colors": [], "indices": []
        }));
    }
    Some(Value::Array(lines))
}
