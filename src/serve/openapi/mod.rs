//! `/api/v1/openapi.json`: the OpenAPI 3.0 document, written by hand (serde_json) so it stays
//! readable and needs no derive on the engine's types.

use axum::extract::State;
use axum::routing::get;
use axum::Router;
use serde_json::{json, Value};

pub mod build;

use crate::serve::state::AppState;
use build::{id_param, op};

pub fn router() -> Router<AppState> {
    Router::new().route("/openapi.json", get(served))
}

/// The document as this service validates: its configured tracks are the values a `track`
/// takes (and, where a live view may follow it, the demo's).
async fn served(State(st): State<AppState>) -> axum::Json<Value> {
    let mut doc = document();
    let tracks: Vec<Value> = st.config.tracks.iter().map(|t| json!(t)).collect();
    let mut with_demo = tracks.clone();
    with_demo.push(json!(st.config.demo.track));
    if let Some(ps) = doc["paths"]["/live"]["get"]["parameters"].as_array_mut() {
        for p in ps.iter_mut().filter(|p| p["name"] == "track") {
            p["schema"]["enum"] = Value::Array(with_demo.clone());
        }
    }
    // A run's track may also be given as null (the default track).
    let mut or_null = tracks;
    or_null.push(Value::Null);
    let t = &mut doc["components"]["schemas"]["CreateRun"]["properties"]["track"];
    t["enum"] = Value::Array(or_null);
    t["nullable"] = json!(true);
    axum::Json(doc)
}

/// `o` with its success response in `types` (media type → schema, `{}` for any) instead of JSON.
fn media(mut o: Value, ok: &str, types: Value) -> Value {
    o["responses"][ok]["content"] = types;
    o
}

/// A WebSocket route: `101` after an upgrade, `400` (JSON error) for a plain HTTP request.
fn websocket(summary: &str, extra: Value) -> Value {
    let mut o = op(summary, "live", false, "101", extra);
    o["responses"]["101"] =
        json!({"description": "Switching Protocols: WebSocket (JSON text frames)"});
    o["responses"]["200"] = json!({"description": "A plain GET (no WebSocket upgrade): the `hello` a socket gets first — the run followed (`run` null when a track has none yet), its scenario, map and track", "content": {"application/json": {"schema": {"type": "object", "required": ["type", "run"], "properties": {
        "type": {"type": "string", "enum": ["hello"]}, "run": {"type": "object", "nullable": true, "description": "the run followed, as `GET /runs/{id}` answers it"},
        "scenario_id": {"type": "string", "nullable": true}, "map_id": {"type": "string", "nullable": true}, "track": {"type": "string", "nullable": true}, "websocket": {"type": "string"}}}}}});
    o["responses"]["400"] = json!({"description": "A WebSocket upgrade request that is not a valid one", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}});
    o
}

/// Telemetry: JSON rows, or CSV with `format=csv`.
fn telemetry_media(o: Value, csv: &str) -> Value {
    media(
        o,
        "200",
        json!({"application/json": {}, csv: {"schema": {"type": "string"}}}),
    )
}

/// An integer query parameter the server reads as a signed 64-bit integer (and clamps).
fn int64(name: &str, description: &str) -> Value {
    json!({"name": name, "in": "query", "description": description,
        "schema": {"type": "integer", "format": "int64", "minimum": i64::MIN, "maximum": i64::MAX}})
}

/// A resource id as the service accepts it in a body: letters, digits, `_`, `-`, `.` (not
/// leading), at most 64 characters.
/// Real content for the examples of upload bodies (the bundled files), so that a reader of the
/// document, and a contract test generating from it, has one that is accepted.
const EXAMPLE_DBC: &str = include_str!("../../../data/can/vut.dbc");
const EXAMPLE_SCENARIO: &str = include_str!("../../../data/scenarios/cpna75_30kmh.toml");
const EXAMPLE_XODR: &str = include_str!("../../../data/opendrive/proving_ground.xodr");
const EXAMPLE_REPLAY: &str = include_str!("../../../data/replays/cpna75_10kmh.csv");

fn new_id() -> Value {
    json!({"type": "string", "pattern": "^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$"})
}

/// The optional body of a run control (`reason`: abort only).
fn control_body(reason: bool) -> Value {
    let mut props = json!({"expect_state": {"type": "string", "enum": ["created", "armed", "running", "finished", "aborted", "failed"],
        "description": "the state the operator saw: 409 when the run is elsewhere (or header Scil-Expect-State)"}});
    if reason {
        props["expect_state"]["description"] = json!("the state the operator saw (or header Scil-Expect-State); an abort stops the run in any active state whatever it names");
        props["reason"] = json!({"type": "string", "nullable": true, "description": "why (default: operator abort)"});
    }
    json!({"required": false, "content": {"application/json": {"schema": {"type": "object", "additionalProperties": false, "properties": props}}}})
}

/// Tracks, the emergency abort, the track follower and the DBC files.
fn track_paths() -> serde_json::Map<String, Value> {
    let reason = json!({"requestBody": {"required": false, "content": {"application/json": {"schema": {"type": "object", "additionalProperties": false, "properties": {"reason": {"type": "string", "nullable": true}}}}}}});
    let track = json!({"parameters": [{"name": "track", "in": "query", "schema": {"type": "string"}, "description": "a configured track or the demo's (default: the default track)"}]});
    let mut m = serde_json::Map::new();
    m.insert("/runs/abort-all".into(), json!({"post": op("Abort every active run (created, armed or running) on every track: {\"aborted\": [run, …]}", "runs", true, "202", reason)}));
    m.insert("/tracks".into(), json!({"get": op("The service's tracks, the default one, the demo's, and the latest started run of each", "runs", false, "200", json!({}))}));
    let dbc_body = json!({"requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["id", "text"], "additionalProperties": false, "properties": {
        "id": new_id(), "file_name": {"type": "string"}, "text": {"type": "string", "minLength": 1, "description": "the DBC file's text", "example": EXAMPLE_DBC}}}}}}});
    m.insert("/dbcs".into(), json!({
        "get": op("Registered DBC files (bundled and uploaded)", "dbcs", false, "200", json!({})),
        "post": op("Register a DBC (422 naming the parser's line and reason; 409 if the id exists)", "dbcs", true, "201", dbc_body)}));
    m.insert("/dbcs/{id}".into(), json!({"get": op("A registered DBC", "dbcs", false, "200", json!({"parameters": id_param()}))}));
    let name = json!([{"name": "name", "in": "path", "required": true, "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$"}, "description": "the object's name (as in a run's carriers): letters, digits, _ - ."}]);
    let mut ch = capabilities_patch_schema();
    ch["description"] = json!("the object and the motion: straight ahead from where it stands, accelerate to speed_kmh, hold it hold_s, stop");
    ch["required"] = json!(["address"]);
    if let Some(p) = ch["properties"].as_object_mut() {
        p.clear();
        p.insert(
            "address".into(),
            json!({"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9.-]{0,252}(:[1-9][0-9]{0,4}){0,2}$", "description": "HOST[:TCP[:UDP]]"}),
        );
        p.insert("kind".into(), json!({"type": "string", "enum": ["vut_robot", "pedestrian_platform", "vehicle_platform"]}));
        p.insert("map_id".into(), json!({"type": "string", "description": "the map whose origin it uses and whose geofence the motion keeps to"}));
        p.insert("from".into(), json!({"type": "object", "additionalProperties": false, "required": ["x", "y", "heading_deg"], "description": "where it stands when it has not reported it", "properties": {"x": {"type": "number"}, "y": {"type": "number"}, "heading_deg": {"type": "number"}}}));
        for (k, lo, hi, d) in [
            (
                "speed_kmh",
                2.0,
                60.0,
                "the speed it holds, km/h (default 10)",
            ),
            ("hold_s", 2.0, 30.0, "how long it holds it, s (default 6)"),
            (
                "accel_mps2",
                0.2,
                10.0,
                "planned launch, m/s² (default 1.5 × its kind's)",
            ),
            (
                "decel_mps2",
                0.2,
                12.0,
                "planned stop, m/s² (default 1.5 × its kind's)",
            ),
        ] {
            p.insert(
                k.into(),
                json!({"type": "number", "minimum": lo, "maximum": hi, "description": d}),
            );
        }
    }
    m.insert("/objects/{name}/characterise".into(), json!({"post": op("Drive one object through a characterisation run and keep what its MONR show (dead time, acceleration, deceleration, speed- and lateral-tracking error, MONR latency) as its measured capabilities, dated, in the audit trail (409 when it cannot be driven, 422 for a bad request or a motion outside the geofence)", "objects", true, "200", json!({"parameters": name.clone(), "requestBody": {"required": true, "content": {"application/json": {"schema": ch}}}}))}));
    m.insert("/objects/{name}/capabilities".into(), json!({"get": op("An object's measured capabilities (null before its first characterisation) and what it can drive as each kind of platform, the site's settings and its measurements applied", "objects", false, "200", json!({"parameters": name}))}));
    m.insert("/live".into(), json!({"get": websocket("WebSocket: hello, the run's history, then its live frames — of the latest run of a track (switches when a new run starts there)", track)}));
    m
}

pub fn document() -> Value {
    let run_ref = json!({"$ref": "#/components/schemas/Run"});
    let mut doc = json!({
        "openapi": "3.0.3",
        "info": {
            "title": "scil service API",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Scenario-in-the-Loop proving-ground control: runs, replays, scenarios, maps, carriers, live telemetry. Mutating endpoints need `Authorization: Bearer <operator token>`. Errors are `{\"error\", \"detail\"}`. Live frames: WebSocket `GET /api/v1/live` and `GET /api/v1/runs/{id}/live` (JSON text frames with `type` = hello | sample | ttc | event | state | health; `event` frames include `carrier_state` with `mode` simulated | iso22133)."
        },
        "servers": [{"url": "/api/v1"}],
        "paths": {
            "/runs": {
                "get": op("List runs (newest first); a full page has an `x-next-cursor` header (and `Link: rel=next`) for the next", "runs", false, "200", json!({"parameters": [int64("limit", "page size (clamped to 1..1000, default 100)"), {"name": "cursor", "in": "query", "schema": {"type": "string"}, "description": "the previous page's x-next-cursor (400 when it is not one)"},
                    {"name": "active", "in": "query", "schema": {"type": "boolean"}, "description": "only created, armed and running runs"}, {"name": "demo", "in": "query", "schema": {"type": "boolean"}, "description": "false: hide the demo's runs"},
                    {"name": "track", "in": "query", "schema": {"type": "string"}}]})),
                "post": op("Create a run (409 naming the run that holds a named carrier address)", "runs", true, "201", json!({"requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CreateRun"}}}}}))
            },
            "/runs/{id}": {"get": op("A run", "runs", false, "200", json!({"parameters": id_param()}))},
            "/runs/{id}/arm": {"post": op("Arm: load scenario, map and source (created → armed)", "runs", true, "200", json!({"parameters": id_param(), "requestBody": control_body(false)}))},
            "/runs/{id}/start": {"post": op("Start the engine task (armed → running)", "runs", true, "200", json!({"parameters": id_param(), "requestBody": control_body(false)}))},
            "/runs/{id}/abort": {"post": op("Abort (running → aborted at the current sample; created/armed → aborted)", "runs", true, "202", json!({"parameters": id_param(), "requestBody": control_body(true)}))},
            "/runs/{id}/finish": {"post": op("Finish normally at the current sample (running → finished; how a live run ends)", "runs", true, "202", json!({"parameters": id_param(), "requestBody": control_body(false)}))},
            "/runs/{id}/events": {"get": op("Events of a run, oldest first", "runs", false, "200", json!({"parameters": [id_param()[0].clone(), int64("after", "events with an id above this"), int64("limit", "at most this many (clamped to 1..100000, default 10000)")]}))},
            "/runs/{id}/results": {"get": op("Results, same JSON as `scil replay --json` plus `storage` (rows sent, stored, lost); 404 until the run ends, then every ended run answers", "runs", false, "200", json!({"parameters": id_param()}))},
            "/runs/{id}/telemetry": {"get": telemetry_media(op("Telemetry rows (VUT and simulated targets)", "runs", false, "200", json!({"parameters": [id_param()[0].clone(),
                {"name": "from", "in": "query", "schema": {"type": "number"}, "description": "sample time ≥ from (s)"},
                {"name": "to", "in": "query", "schema": {"type": "number"}, "description": "sample time ≤ to (s)"},
                {"name": "format", "in": "query", "schema": {"type": "string", "enum": ["json", "csv"]}},
                int64("limit", "at most this many rows (clamped to 1..5000000)")]})), "text/csv")},
            "/runs/{id}/telemetry.parquet": {"get": media(op("Telemetry as Parquet (snappy; columns as the telemetry rows)", "runs", false, "200", json!({"parameters": id_param()})), "200", json!({"application/vnd.apache.parquet": {}}))},
            "/runs/{id}/events.parquet": {"get": media(op("Events as Parquet (payload as JSON text)", "runs", false, "200", json!({"parameters": id_param()})), "200", json!({"application/vnd.apache.parquet": {}}))},
            "/runs/{id}/export.mcap": {"get": media(op("The run as MCAP with Foxglove well-known schemas (JSON), from stored telemetry and events", "runs", false, "200", json!({"parameters": id_param()})), "200", json!({"application/x-mcap": {}}))},
            "/runs/{id}/osi": {"get": media(op("The run as an ASAM OSI 3.8 trace: one osi3.SensorView per VUT sample, each a 4-byte little-endian length then the message (the messages its live OSI stream sent)", "runs", false, "200", json!({"parameters": id_param()})), "200", json!({"application/octet-stream": {}}))},
            "/runs/{id}/export.mf4": {"get": media(op("The run as ASAM MDF 4.10: one channel group per vehicle (master t in the source time base, x, y, yaw, speed, steering, brake light, wheel speed, road s/t), and the events (t, kind)", "runs", false, "200", json!({"parameters": id_param()})), "200", json!({"application/x-mdf": {}}))},
            "/runs/{id}/export.xosc": {"get": media(op("The run as OpenSCENARIO 1.3 (as `scil export --xosc`): every recorded actor replays its recorded motion; the road network is named MAP.xodr (GET /maps/{id})", "runs", false, "200", json!({"parameters": id_param()})), "200", json!({"application/xml": {}}))},
            "/runs/{id}/live": {"get": websocket("WebSocket: live frames of one run", json!({"parameters": id_param()}))},
            "/scenarios/{id}": {"get": op("A scenario with its TOML", "scenarios", false, "200", json!({"parameters": id_param()}))},
            "/scenarios/{id}/plan": {"get": op("A scenario's plan without a run: {scenario_id, map_id, plan: {vut_path, targets: [{id, kind, static, start, heading_deg, length_m, width_m, path, conflict_point}], door: a standing VUT's door that opens (dooring tests), {target, rear_edge, hinge, open_edge, open_at_m}, or null} in the map frame (422 when its paths do not resolve on its map)", "scenarios", false, "200", json!({"parameters": id_param()}))},
            "/catalogue": {"get": op("The Euro NCAP 2026 catalogue: every scenario row of the rating tool with its test matrix; `scil catalogue instantiate` makes a scenario file from a row", "catalogue", false, "200", json!({}))},
            "/reports": {"get": media(op("Euro NCAP test-series report of stored runs: self-contained HTML (verdict per validity channel, Table 2 quantities, impact speed, speed reduction, inline SVG plots incl. per-run time series with tolerance bands), its CSV with format=csv, or one run's traces as CSV with format=traces_csv", "reports", false, "200", json!({"parameters": [{"name": "runs", "in": "query", "required": true, "schema": {"type": "string", "pattern": "[^,\\s]"}, "description": "comma-separated run ids (1 to 20)"}, {"name": "format", "in": "query", "schema": {"type": "string", "enum": ["html", "csv", "traces_csv"]}}]})), "200", json!({"text/html": {"schema": {"type": "string"}}, "text/csv": {"schema": {"type": "string"}}}))},
            "/catalogue/{id}": {"get": op("One catalogue row (case-insensitive: CCFtap, CPNA, 'CPNA night', CPTAns)", "catalogue", false, "200", json!({"parameters": id_param()}))},
            "/maps/{id}": {"get": op("Map metadata; a placed layout's site as `site` {lat, lon, alt, heading}", "maps", false, "200", json!({"parameters": id_param()}))},
            "/maps/{id}/geojson": {"get": op("Lanes as a GeoJSON FeatureCollection", "maps", false, "200", json!({"parameters": [id_param()[0].clone(), {"name": "wgs84", "in": "query", "schema": {"type": "boolean"}}]}))},
            "/maps/{id}/geofence": {
                "get": op("The map's geofence (set over the API, else from the configuration; a map without one: no limits, `\"source\": \"none\"`)", "maps", false, "200", json!({"parameters": id_param()})),
                "put": op("Set the map's geofence: objects stay in the permitted area and out of the forbidden zones (map metres; 422 naming a bad polygon)", "maps", true, "200", json!({"parameters": id_param(), "requestBody": geofence_body()})),
                "delete": op("Remove the geofence set over the API", "maps", true, "204", json!({"parameters": id_param()}))},
            "/carriers": {"get": op("Target carriers and their last known state (`mode`: simulated, or iso22133 for real carriers of a run, with `address` and `connected`)", "carriers", false, "200", json!({}))},
            "/health": {"get": op("Service health (503 when the database does not answer)", "service", false, "200", json!({}))},
            "/instances": {"get": op("Instances sharing the database: id, host, lease (`lease_until`, `live`); `this` is the one answering", "service", false, "200", json!({}))},
            "/metrics": {"get": {"summary": "Prometheus metrics", "tags": ["service"], "responses": {"200": {"description": "OK", "content": {"text/plain": {"schema": {"type": "string"}}}}}}},
            "/openapi.json": {"get": {"summary": "This document", "tags": ["service"], "responses": {"200": {"description": "OK", "content": {"application/json": {}}}}}}
        },
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "Error": {"type": "object", "required": ["error", "detail"], "properties": {"error": {"type": "string"}, "detail": {"type": "string"}}},
                "Run": {"type": "object", "properties": {
                    "id": {"type": "string"},
                    "state": {"type": "string", "enum": ["created", "armed", "running", "finished", "aborted", "failed"]},
                    "scenario_id": {"type": "string"},
                    "map_id": {"type": "string", "nullable": true},
                    "source": {"$ref": "#/components/schemas/RunSource"},
                    "record": {"type": "boolean", "description": "record the run to MCAP; export.mcap then serves the recording"},
                    "created_at": {"type": "string", "format": "date-time"},
                    "armed_at": {"type": "string", "format": "date-time", "nullable": true},
                    "started_at": {"type": "string", "format": "date-time", "nullable": true},
                    "finished_at": {"type": "string", "format": "date-time", "nullable": true},
                    "speed": {"oneOf": [{"type": "number"}, {"type": "string", "enum": ["max"]}]},
                    "error": {"type": "string", "nullable": true},
                    "instance": {"type": "string", "nullable": true, "description": "the scil instance that executes the run; control requests go to it (409 from the others)"},
                    "abort": {"type": "object", "nullable": true, "description": "why the run was aborted: the rule (kind), the object it names, the measured value and its limit, and the sentence the dashboard shows (text)", "properties": {
                        "kind": {"type": "string"}, "object": {"type": "string", "nullable": true}, "value": {"type": "number", "nullable": true}, "limit": {"type": "number", "nullable": true}, "text": {"type": "string"}}}}},
                "CreateRun": {"type": "object", "required": ["scenario_id"], "additionalProperties": false,
                    // `replay_id` is another name of `replay`: one of them.
                    "not": {"required": ["replay", "replay_id"]},
                    "example": {"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh", "speed": "max", "start": true},
                    "properties": {
                    "scenario_id": {"type": "string", "minLength": 1, "example": "cpna75_30kmh"},
                    "map_id": {"type": "string", "minLength": 1, "example": "proving_ground"},
                    "replay_id": {"type": "string", "minLength": 1, "description": "the same as replay", "example": "cpna75_30kmh"},
                    "record": {"type": "boolean", "description": "record the run to MCAP (export.mcap then serves the recording)"},
                    "virtual": {"type": "array", "items": {"type": "string", "minLength": 1}, "description": "targets that exist only in the twin: no carrier, moved on their plan, triggered and synchronised like real ones; result entries naming them carry \"virtual\": true (default: scil.toml's [twin] virtual)", "example": ["dummy"]},
                    "osi": {"type": "object", "additionalProperties": false, "required": ["tcp"], "description": "a live ASAM OSI stream: a TCP server sending every SensorView, length-prefixed, closed when the run ends (default: scil.toml's [osi])", "properties": {"tcp": {"type": "string", "minLength": 1, "example": "127.0.0.1:48198"}}},
                    "track": {"type": "string", "minLength": 1, "description": "one of the service's tracks (default: the default track)", "example": "main"},
                    "replay": {"type": "string", "minLength": 1, "description": "replay id (or an earlier replay run's id); default: the replay named like the scenario", "example": "cpna75_30kmh"},
                    "source": {"$ref": "#/components/schemas/RunSource"},
                    "carriers": {"type": "array", "items": {"$ref": "#/components/schemas/CarrierSpec"},
                        "description": "real carriers dispatched over ISO 22133 (every carrier of the scenario); connected and armed when the run starts; without them the carriers are simulated"},
                    "speed": {"oneOf": [{"type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 1000}, {"type": "string", "enum": ["max"]}], "description": "replays and sim_vut: real-time factor or \"max\" (not \"max\" with carriers); live sources run in real time", "example": "max"},
                    "can": {"$ref": "#/components/schemas/CanSpec"},
                    "can_mapping": {"$ref": "#/components/schemas/CanMapping"},
                    "start": {"type": "boolean", "description": "arm and start at once"},
                    "sync": {"type": "boolean", "description": "closed-loop synchronisation of the targets with the VUT after their start (retimes reach real carriers as ISO 22133 MTSP); also on when the scenario says sync = true"}}},
                "RunSource": {"type": "object", "required": ["kind"], "discriminator": {"propertyName": "kind"}, "oneOf": [
                    {"type": "object", "title": "csv_replay", "required": ["kind", "replay_id"], "properties": {
                        "kind": {"type": "string", "enum": ["csv_replay"]}, "replay_id": {"type": "string"}, "file_name": {"type": "string"}}},
                    {"type": "object", "title": "ncom", "required": ["kind", "bind"], "description": "OxTS NCOM over UDP, bound when the run is armed; samples are applied from the start on", "properties": {
                        "kind": {"type": "string", "enum": ["ncom"]}, "bind": {"type": "string", "example": "0.0.0.0:3000"}}},
                    {"type": "object", "title": "adma", "required": ["kind", "bind"], "description": "GeneSys ADMA (ADMAnet 3.3.3, 3.3.4, 3.3.5) over UDP, bound when the run is armed", "properties": {
                        "kind": {"type": "string", "enum": ["adma"]}, "bind": {"type": "string", "example": "0.0.0.0:1040"}}},
                    {"type": "object", "title": "json", "required": ["kind", "transport", "bind"], "description": "JSON lines (one sample per line) over UDP, a TCP server or a WebSocket server", "properties": {
                        "kind": {"type": "string", "enum": ["json"]}, "transport": {"type": "string", "enum": ["udp", "tcp", "ws"]}, "bind": {"type": "string", "example": "0.0.0.0:5000"}}},
                    {"type": "object", "title": "monr", "required": ["kind", "carrier"], "description": "the VUT's robot's MONR (an object of the run's carriers with drives vut) as the VUT's telemetry", "properties": {
                        "kind": {"type": "string", "enum": ["monr"]}, "carrier": {"type": "string"}}}]},
                "CarrierSpec": {"type": "object", "required": ["name", "address"], "additionalProperties": false, "properties": {
                    "name": {"type": "string", "minLength": 1, "description": "the scenario's carrier name", "example": "carrier-1"},
                    "address": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9.-]{0,252}(:[1-9][0-9]{0,4}){0,2}$", "description": "HOST[:TCP_PORT] (UDP port = TCP − 1) or HOST:TCP_PORT:UDP_PORT", "example": "127.0.0.1:53241"},
                    "drives": {"type": "string", "description": "an object on the ground: \"vut\" (the VUT's robot) or a target id; without it the scenario's vut.carrier / targets[].carrier say, when the run is on the ground", "example": "vut"},
                    "mobility": {"type": "object", "description": "how the object drives back to its start", "required": ["min_turn_radius_m", "may_reverse", "speed_mps", "accel_mps2"], "additionalProperties": false, "properties": {
                        "min_turn_radius_m": {"type": "number"}, "may_reverse": {"type": "boolean"}, "speed_mps": {"type": "number"}, "accel_mps2": {"type": "number"}}}}},
                "RunResponse": run_ref
            }
        }
    });
    if let Some(paths) = doc["paths"].as_object_mut() {
        paths.extend(upload_paths());
        paths.extend(sweep_paths());
        paths.extend(parameter_paths());
        paths.extend(track_paths());
        paths.extend(crate::serve::series::openapi_paths());
        paths.extend(crate::serve::records::openapi_paths());
        paths.extend(crate::serve::audit::openapi_paths());
    }
    if let Some(one_of) = doc["components"]["schemas"]["RunSource"]["oneOf"].as_array_mut() {
        one_of.push(sim_vut_schema());
        one_of.push(json!({"type": "object", "title": "monr", "required": ["kind", "carrier"],
            "description": "the VUT robot's MONR as the VUT's telemetry (the run's carrier with \"drives\": \"vut\")",
            "properties": {"kind": {"type": "string", "enum": ["monr"]}, "carrier": {"type": "string"}}}));
    }
    ground_docs(&mut doc);
    if let Some(schemas) = doc["components"]["schemas"].as_object_mut() {
        schemas.extend(can_schemas());
        schemas.extend(sim_vut_schemas());
    }
    doc
}

/// Some of an object's capabilities (a carrier entry's `capabilities`, `[ground.capabilities]`).
pub fn capabilities_patch_schema() -> Value {
    let num = |d: &str| json!({"type": "number", "minimum": 0, "description": d});
    json!({"type": "object", "additionalProperties": false,
        "description": "what the object can drive, over the defaults of its kind and the site's [ground.capabilities]; trajectories are planned within them",
        "properties": {
            "max_accel_mps2": num("largest acceleration, m/s²"),
            "max_decel_mps2": num("largest deceleration, m/s² (positive)"),
            "max_speed_mps": num("highest speed, m/s"),
            "dead_time_s": num("from its start command to its first motion, s"),
            "min_turn_radius_m": num("smallest turning radius, m"),
            "honours_mtsp": {"type": "boolean", "description": "it retimes on MTSP (false: no MTSP is sent; its start is advanced by its dead time)"},
            "may_reverse": {"type": "boolean", "description": "it may drive backwards"},
            "speed_error_mps": num("speed-tracking error (RMS), m/s"),
            "lateral_error_m": num("lateral-tracking error (RMS), m"),
            "monr_latency_s": num("MONR latency, s")}})
}

/// Objects on the ground: what a carrier drives, how it drives back, the drive back, the
/// arming override.
fn ground_docs(doc: &mut Value) {
    let props = &mut doc["components"]["schemas"]["CarrierSpec"]["properties"];
    props["drives"] = json!({"type": "string", "minLength": 1, "description": "\"vut\" (the VUT's driving robot) or a target id: the carrier is an object on the ground, sent its planned path as TRAJ, armed as one with the others and driven back to its start"});
    props["mobility"] = json!({"type": "object", "additionalProperties": false,
        "required": ["min_turn_radius_m", "may_reverse", "speed_mps", "accel_mps2"],
        "description": "how the object drives back to its start (default by what it carries)",
        "properties": {"min_turn_radius_m": {"type": "number"}, "may_reverse": {"type": "boolean"},
                       "speed_mps": {"type": "number"}, "accel_mps2": {"type": "number"}}});
    props["max_lateral_m"] = json!({"type": "number", "minimum": 0, "exclusiveMinimum": true, "description": "this object's largest distance from its path, m (default: the site's [ground] max_lateral_m)"});
    props["capabilities"] = capabilities_patch_schema();
    let arm = &mut doc["paths"]["/runs/{id}/arm"]["post"]["requestBody"]["content"]
        ["application/json"]["schema"]["properties"];
    arm["override_start"] = json!({"type": "boolean", "description": "arm objects on the ground although one is known to stand away from its start"});
    if let Some(paths) = doc["paths"].as_object_mut() {
        paths.insert("/runs/{id}/return".into(), json!({"post": op("Drive the objects of an ended run back to their start poses (202; ABORT stops it; `GET /runs/{id}` shows `objects` with `at_start`)", "runs", true, "202", json!({"parameters": id_param()}))}));
    }
}

/// Uploads: replays (CSV), scenarios (TOML) and maps (OpenDRIVE), kept apart from the main
/// document (the `json!` recursion limit).
fn upload_paths() -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert("/replays".into(), json!({
                "get": op("Recordings (bundled and uploaded; `kind`: csv, mdf4, vbo, mcap or adma); with `scenario`, each also says whether it fits that scenario, i.e. reaches its conflict (`fits`; `misfit`: why not — its samples are not on the scenario's map, never come within 5 m of where the scenario's VUT meets its target, pass it at more than 45° from the scenario's path, or drive less than 15 m along that path before it), as a run checks it (422)", "replays", false, "200", json!({"parameters": [{"name": "scenario", "in": "query", "schema": {"type": "string"}, "description": "scenario id to judge the replays against (404 when it does not exist)"}]})),
                "post": op("Upload a recording (CSV, MDF4, VBOX, MCAP or raw ADMAnet, told by its content) and create a run (armed and started unless start=false; 422 naming the file and line of a bad row, the accepted names of a missing column, or what a file of another kind is; the same file with the same mapping again reuses its replay: `duplicate_of`)", "replays", true, "201", json!({"requestBody": {"required": true, "content": {"multipart/form-data": {"schema": {"type": "object", "required": ["file", "scenario_id"], "additionalProperties": false, "properties": {
                    "file": {"type": "string", "format": "binary", "example": EXAMPLE_REPLAY},
                    "scenario_id": {"type": "string", "minLength": 1, "example": "cpna75_30kmh"},
                    "speed": {"type": "string", "pattern": "^(|max|[0-9]{1,4}(\\.[0-9]{1,6})?)$", "description": "max or a real-time factor (empty: 1; above 0, at most 1000)", "example": "max"},
                    "map_id": {"type": "string", "description": "empty: the scenario's map", "example": "proving_ground"},
                    "start": {"type": "string", "enum": ["true", "false"]},
                    "column": {"type": "array", "items": {"type": "string", "pattern": "^(time|x|y|lat|lon|alt|heading|speed|steering|brake|fcw)=[^:]+(:[a-z/]+)?$"}, "description": "column mapping FIELD=COLUMN[:UNIT], repeatable, as `scil replay --column` (a CSV header the service does not recognise)", "example": ["speed=Velocity:km/h"]}}}}}}}))
            }));
    m.insert("/scenarios".into(), json!({
                "get": op("Scenarios", "scenarios", false, "200", json!({})),
                "post": op("Register a scenario: a scenario file (toml) or an OpenSCENARIO file (xosc, read against the bundled Euro NCAP catalogs and road networks, with parameter values); as multipart/form-data, an OpenSCENARIO file with the uploader's own catalogs and road network (parts `file`, each named by the relative path the scenario file uses; what is not uploaded is the bundled library's; a missing catalog is a 422 naming its path; an uploaded road network is registered as a map)", "scenarios", true, "201", json!({"requestBody": {"required": true, "content": {
                    "application/json": {"schema": {"type": "object", "additionalProperties": false,
                        "example": {"id": "cpna75_30kmh_copy", "toml": EXAMPLE_SCENARIO, "map_id": "proving_ground"},
                        // Exactly one of a scenario file and an OpenSCENARIO file; parameter values only for the latter.
                        "oneOf": [{"required": ["toml"], "not": {"anyOf": [{"required": ["xosc"]}, {"required": ["parameters"]}]}}, {"required": ["xosc"], "not": {"required": ["toml"]}}],
                        "properties": {"id": new_id(), "toml": {"type": "string", "example": EXAMPLE_SCENARIO}, "xosc": {"type": "string"}, "parameters": {"type": "object", "additionalProperties": {"type": "string"}}, "file_name": {"type": "string"}, "map_id": {"type": "string", "minLength": 1, "example": "proving_ground"}}}},
                    "multipart/form-data": {"schema": {"type": "object", "required": ["xosc"], "additionalProperties": false, "properties": {
                        "xosc": {"type": "string", "format": "binary", "description": "The OpenSCENARIO scenario file"},
                        "file": {"type": "array", "items": {"type": "string", "format": "binary"}, "description": "Catalog files and the road network (.xodr), each part's file name the relative path the scenario file names it by (e.g. ../Catalogs/Vehicles/Vehicles.xosc)"},
                        "id": new_id(),
                        "parameters": {"type": "string", "description": "JSON object: parameter name → value (text)"},
                        "map_id": {"type": "string"}}}}}}}))
            }));
    m.insert("/maps".into(), json!({
                "get": op("Maps", "maps", false, "200", json!({})),
                "post": op("Register an OpenDRIVE map (422 naming the line and reason when it does not parse)", "maps", true, "201", json!({"requestBody": {"required": true, "content": {"multipart/form-data": {"schema": {"type": "object", "required": ["file"], "additionalProperties": false, "anyOf": [{"not": {"anyOf": [{"required": ["origin"]}, {"required": ["heading"]}]}}, {"required": ["origin", "heading"]}],
                    "properties": {"file": {"type": "string", "format": "binary", "example": EXAMPLE_XODR}, "id": new_id(),
                    "origin": {"type": "string", "pattern": "^-?[0-8]?[0-9](\\.[0-9]{1,9})?,-?1?[0-7]?[0-9](\\.[0-9]{1,9})?(,-?[0-9]{1,4}(\\.[0-9]{1,3})?)?$", "description": "place the layout at a site: LAT,LON[,ALT] of the map's (0,0) (WGS84 degrees, metres); needs heading", "example": "46.8931,16.8397"},
                    "heading": {"type": "string", "pattern": "^-?[0-9]{1,3}(\\.[0-9]{1,6})?$", "description": "compass heading of the map's +x axis, degrees (0 = north, clockwise); needs origin", "example": "90"}}}}}}}))
            }));
    m
}

/// `/sweeps`, kept apart from the main document (the `json!` recursion limit).
fn sweep_paths() -> serde_json::Map<String, Value> {
    // Replays or simulated-VUT speeds, not both; each replay once; a variation is KEY=V1,V2,….
    let create = json!({"requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["scenario_id"], "additionalProperties": false,
        "oneOf": [{"required": ["replays"]}, {"required": ["sim_vut_speed"]}],
        "properties": {
        "scenario_id": {"type": "string", "minLength": 1, "example": "cpna75_30kmh"},
        "replays": {"type": "array", "minItems": 1, "uniqueItems": true, "items": {"type": "string", "minLength": 1}, "example": ["cpna75_30kmh"]},
        "sim_vut_speed": {"type": "array", "minItems": 1, "items": {"type": "number", "minimum": 1, "maximum": 200}, "example": [20, 40]},
        "vary": {"type": "array", "items": {"type": "string", "pattern": "^[a-z_.]+=[^,=]+(,[^,=]+)*$"}, "example": ["method=predicted,at_sample", "noise.pos=0,0.05"]},
        "repeat": {"type": "integer", "minimum": 1, "maximum": u32::MAX}, "seed": {"type": "integer", "minimum": 0, "maximum": u64::MAX}, "jobs": {"type": "integer", "minimum": 0, "maximum": u64::MAX, "description": "worker threads (0 or above the cores: every core)"}}}}}}});
    let mut m = serde_json::Map::new();
    m.insert("/sweeps".into(), json!({
        "get": op("Sweeps of this process, newest first (progress summaries)", "sweeps", false, "200", json!({})),
        "post": op("Start a sweep in the background: the Cartesian product of `vary` × `repeat` seeds over `replays` (or `sim_vut_speed`); unknown keys, empty lists and grids above the limit are 422 before anything runs; progress as `{\"type\":\"sweep\"}` frames on the live WebSocket", "sweeps", true, "202", create),
    }));
    m.insert("/sweeps/{id}".into(), json!({"get": op("A sweep: progress, rows, Table 2, the report's SVG plots and links to report.html and results.csv", "sweeps", false, "200", json!({"parameters": id_param()}))}));
    m.insert("/sweeps/{id}/cancel".into(), json!({"post": op("Stop starting runs; the report covers what finished", "sweeps", true, "200", json!({"parameters": id_param()}))}));
    m.insert("/sweeps/{id}/report.html".into(), json!({"get": media(op("The self-contained HTML report (409 while running)", "sweeps", false, "200", json!({"parameters": id_param()})), "200", json!({"text/html": {"schema": {"type": "string"}}}))}));
    m.insert("/sweeps/{id}/results.csv".into(), json!({"get": media(op("One row per run (409 while running)", "sweeps", false, "200", json!({"parameters": id_param()})), "200", json!({"text/csv": {"schema": {"type": "string"}}}))}));
    m
}

/// `/runs/{id}/parameters` (live parameters of a running run).
fn parameter_paths() -> serde_json::Map<String, Value> {
    // At least one parameter (`expect_state` alone changes nothing: 422).
    let one_of_required: Vec<Value> = [
        "ttc_offset_s",
        "noise.pos",
        "noise.speed",
        "noise.heading",
        "dropout",
        "latency_ms",
    ]
    .iter()
    .map(|n| json!({"required": [n]}))
    .collect();
    let body = json!({"type": "object", "additionalProperties": false, "example": {"ttc_offset_s": 0.3, "noise.pos": 0.1}, "properties": {
        "ttc_offset_s": {"type": "number", "description": "fire at the dummy's TTC + offset, -10..10 s"},
        "noise.pos": {"type": "number", "description": "position noise σ, m"},
        "noise.speed": {"type": "number", "description": "speed noise σ, m/s"},
        "noise.heading": {"type": "number", "description": "heading noise σ, deg"},
        "dropout": {"type": "number", "description": "sample loss probability 0..1"},
        "latency_ms": {"type": "number"},
        "expect_state": {"type": "string", "enum": ["created", "armed", "running", "finished", "aborted", "failed"], "description": "the state the operator saw: 409 when the run is elsewhere"}},
        "anyOf": one_of_required});
    let mut m = serde_json::Map::new();
    m.insert("/runs/{id}/parameters".into(), json!({
        "get": op("Live parameters of an active run (ttc offset, injection) and the changes so far", "runs", false, "200", json!({"parameters": id_param()})),
        "patch": op("Change live parameters of a running run, all or none (409 when it is not running, 422 naming an unknown name or a bad value); each change is a `parameter_change` event and is listed in the results' `parameter_changes`", "runs", true, "200",
            json!({"parameters": id_param(), "requestBody": {"required": true, "content": {"application/json": {"schema": body}}}}))
    }));
    m
}

/// A run's live CAN (`can`) and which of its signals feed which fields (`can_mapping`).
fn can_schemas() -> serde_json::Map<String, Value> {
    let signal = json!({"type": "object", "required": ["message", "signal"], "properties": {"message": {"type": "string"}, "signal": {"type": "string"}}});
    let mut m = serde_json::Map::new();
    m.insert("CanSpec".into(), json!({"description": "live CAN fused with the INS source (dbc: a registered DBC id)", "type": "object", "required": ["kind", "dbc"], "discriminator": {"propertyName": "kind"},
        "properties": {"kind": {"type": "string", "enum": ["cannelloni", "socketcan"]}, "dbc": {"type": "string", "minLength": 1, "example": "vut"}},
        "oneOf": [
        {"type": "object", "title": "cannelloni", "required": ["kind", "bind", "dbc"], "properties": {"kind": {"type": "string", "enum": ["cannelloni"]}, "bind": {"type": "string", "example": "0.0.0.0:20000"}, "dbc": {"type": "string", "example": "vut"}}},
        {"type": "object", "title": "socketcan", "required": ["kind", "iface", "dbc"], "properties": {"kind": {"type": "string", "enum": ["socketcan"]}, "iface": {"type": "string", "example": "can0"}, "dbc": {"type": "string", "example": "vut"}}}]}));
    m.insert("CanMapping".into(), json!({"type": "object", "description": "which DBC signals feed which fields (checked against the DBC: 422 naming a missing signal); fcw: forward collision warning, its onset closes the validity window", "properties": {
        "steering_wheel_deg": {"allOf": [signal.clone()], "nullable": true}, "steering_factor": {"type": "number"},
        "brake_light": {"allOf": [signal.clone()], "nullable": true}, "fcw": {"allOf": [signal.clone()], "nullable": true},
        "wheel_speeds": {"type": "array", "items": signal}, "wheel_speed_factor": {"type": "number"}}}));
    m
}

/// The simulated VUT's driver-assistance models and telemetry faults, with the ranges the
/// service accepts (outside them: 422).
fn sim_vut_schemas() -> serde_json::Map<String, Value> {
    let num = |default: f64, min: f64, max: f64| json!({"type": "number", "default": default, "minimum": min, "maximum": max});
    let mut m = serde_json::Map::new();
    m.insert("AebParams".into(), json!({"type": "object", "additionalProperties": false, "description": "autonomous emergency braking of the simulated VUT",
        "properties": {"ttc_s": num(1.2, 0.0, 10.0), "decel_mps2": num(8.0, 0.1, 15.0), "delay_ms": num(150.0, 0.0, 5000.0), "margin_m": num(0.2, 0.0, 5.0)}}));
    m.insert("FcwParams".into(), json!({"type": "object", "additionalProperties": false, "description": "forward collision warning of the simulated VUT",
        "properties": {"ttc_s": num(2.0, 0.0, 10.0)}}));
    m.insert("ElkParams".into(), json!({"type": "object", "additionalProperties": false, "description": "emergency lane keeping of a VUT that drifts out of its lane",
        "properties": {"tlc_s": num(0.3, 0.0, 10.0), "lat_accel_mps2": num(3.0, 0.1, 10.0), "delay_ms": num(100.0, 0.0, 5000.0)}}));
    m.insert("Injection".into(), json!({"type": "object", "additionalProperties": false, "description": "noise (1 σ), dropout, latency on the VUT's telemetry",
        "properties": {"pos": num(0.0, 0.0, 100.0), "speed": num(0.0, 0.0, 50.0), "heading": num(0.0, 0.0, 180.0), "dropout": num(0.0, 0.0, 1.0),
                       "latency_ms": num(0.0, 0.0, 10_000.0), "seed": {"type": "integer", "minimum": 0, "maximum": u64::MAX}}}));
    m
}

/// The `sim_vut` run source (an optional setting given as null takes its default).
fn sim_vut_schema() -> Value {
    let mut s = sim_vut_fields();
    if let Some(props) = s["properties"].as_object_mut() {
        for (name, p) in props.iter_mut() {
            if name != "kind" {
                nullable_deep(p);
            }
        }
    }
    s
}

/// `p` and every property below it may be null.
fn nullable_deep(p: &mut Value) {
    p["nullable"] = json!(true);
    if let Some(props) = p["properties"].as_object_mut() {
        for q in props.values_mut() {
            nullable_deep(q);
        }
    }
}

fn sim_vut_fields() -> Value {
    json!({"type": "object", "title": "sim_vut", "required": ["kind"],
        "description": "the built-in simulated VUT (speed controller, path following, optional AEB) in closed loop with the run, paced at the run's speed; its time is its step counter",
        "properties": {
            "kind": {"type": "string", "enum": ["sim_vut"]}, "vut_speed_kmh": {"type": "number", "default": 40},
            "aeb": {"$ref": "#/components/schemas/AebParams"},
            "elk": {"$ref": "#/components/schemas/ElkParams"},
            "step_ms": {"type": "number", "default": 10}, "run_up_m": {"type": "number"}, "max_duration_s": {"type": "number", "default": 60},
            "injection": {"$ref": "#/components/schemas/Injection"}}})
}

/// The body of `PUT /maps/{id}/geofence`.
fn geofence_body() -> Value {
    let point = json!({"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2});
    json!({"required": true, "content": {"application/json": {"schema": {"type": "object", "additionalProperties": false,
                    // A permitted area, or at least one forbidden zone (DELETE removes the geofence).
                    "anyOf": [{"required": ["permitted"], "properties": {"permitted": {"minItems": 3}}}, {"required": ["forbidden"], "properties": {"forbidden": {"minItems": 1}}}],
                    "properties": {
                    // No permitted polygon (empty: no limit), or one of at least 3 points.
                    "permitted": {"anyOf": [{"type": "array", "maxItems": 0}, {"type": "array", "items": point.clone(), "minItems": 3}]},
                    "forbidden": {"type": "array", "items": {"type": "array", "items": point, "minItems": 3}}}}}}})
}
