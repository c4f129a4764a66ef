//! `/api/v1/openapi.json`: the OpenAPI 3.0 document, written by hand (serde_json) so it stays
//! readable and needs no derive on the engine's types.

use axum::routing::get;
use axum::Router;
use serde_json::{json, Value};

use super::context::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/openapi.json", get(|| async { axum::Json(document()) }))
}

fn op(summary: &str, tag: &str, auth: bool, ok: &str, extra: Value) -> Value {
    let mut o = json!({
        "summary": summary,
        "tags": [tag],
        "responses": {
            ok: {"description": "OK", "content": {"application/json": {}}},
            "default": {"description": "Error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        }
    });
    if auth {
        o["security"] = json!([{"bearer": []}]);
        o["responses"]["401"] = json!({"description": "Missing or unknown token", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}});
        o["responses"]["403"] = json!({"description": "Token lacks the operator role"});
    }
    if let Value::Object(m) = extra {
        for (k, v) in m {
            o[k] = v;
        }
    }
    o
}

fn id_param() -> Value {
    json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}])
}

pub fn document() -> Value {
    let run_ref = json!({"$ref": "#/components/schemas/Run"});
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "scil service API",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Scenario-in-the-Loop proving-ground control: runs, replays, scenarios, maps, carriers, live telemetry. Mutating endpoints need `Authorization: Bearer <operator token>`. Errors are `{\"error\", \"detail\"}`. Live frames: WebSocket `GET /api/v1/live` and `GET /api/v1/runs/{id}/live` (JSON text frames with `type` = hello | sample | ttc | event | state | health)."
        },
        "servers": [{"url": "/api/v1"}],
        "paths": {
            "/runs": {
                "get": op("List runs (newest first)", "runs", false, "200", json!({"parameters": [{"name": "limit", "in": "query", "schema": {"type": "integer"}}]})),
                "post": op("Create a run", "runs", true, "201", json!({"requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CreateRun"}}}}}))
            },
            "/runs/{id}": {"get": op("A run", "runs", false, "200", json!({"parameters": id_param()}))},
            "/runs/{id}/arm": {"post": op("Arm: load scenario, map and source (created → armed)", "runs", true, "200", json!({"parameters": id_param()}))},
            "/runs/{id}/start": {"post": op("Start the engine task (armed → running)", "runs", true, "200", json!({"parameters": id_param()}))},
            "/runs/{id}/abort": {"post": op("Abort (running → aborted at the current sample; created/armed → aborted)", "runs", true, "202", json!({"parameters": id_param(), "requestBody": {"required": false, "content": {"application/json": {"schema": {"type": "object", "properties": {"reason": {"type": "string"}}}}}}}))},
            "/runs/{id}/events": {"get": op("Events of a run, oldest first", "runs", false, "200", json!({"parameters": [id_param()[0].clone(), {"name": "after", "in": "query", "schema": {"type": "integer"}}, {"name": "limit", "in": "query", "schema": {"type": "integer"}}]}))},
            "/runs/{id}/results": {"get": op("Results, same JSON as `scil replay --json` (404 until the run ends)", "runs", false, "200", json!({"parameters": id_param()}))},
            "/runs/{id}/telemetry": {"get": op("Telemetry rows (VUT and simulated targets)", "runs", false, "200", json!({"parameters": [id_param()[0].clone(),
                {"name": "from", "in": "query", "schema": {"type": "number"}, "description": "sample time ≥ from (s)"},
                {"name": "to", "in": "query", "schema": {"type": "number"}, "description": "sample time ≤ to (s)"},
                {"name": "format", "in": "query", "schema": {"type": "string", "enum": ["json", "csv"]}},
                {"name": "limit", "in": "query", "schema": {"type": "integer"}}]}))},
            "/runs/{id}/live": {"get": op("WebSocket: live frames of one run", "live", false, "101", json!({"parameters": id_param()}))},
            "/live": {"get": op("WebSocket: live frames of the active run (switches when a new run starts)", "live", false, "101", json!({}))},
            "/replays": {
                "get": op("Recorded CSV files (bundled and uploaded)", "replays", false, "200", json!({})),
                "post": op("Upload a CSV and create a run (armed and started unless start=false)", "replays", true, "201", json!({"requestBody": {"required": true, "content": {"multipart/form-data": {"schema": {"type": "object", "required": ["file", "scenario_id"], "properties": {
                    "file": {"type": "string", "format": "binary"},
                    "scenario_id": {"type": "string"},
                    "speed": {"type": "string", "description": "max or a real-time factor (default 1)"},
                    "map_id": {"type": "string"},
                    "start": {"type": "string", "enum": ["true", "false"]}}}}}}}))
            },
            "/scenarios": {
                "get": op("Scenarios", "scenarios", false, "200", json!({})),
                "post": op("Register a scenario (TOML text)", "scenarios", true, "201", json!({"requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["toml"], "properties": {"id": {"type": "string"}, "toml": {"type": "string"}, "map_id": {"type": "string"}}}}}}}))
            },
            "/scenarios/{id}": {"get": op("A scenario with its TOML", "scenarios", false, "200", json!({"parameters": id_param()}))},
            "/maps": {
                "get": op("Maps", "maps", false, "200", json!({})),
                "post": op("Register an OpenDRIVE map", "maps", true, "201", json!({"requestBody": {"required": true, "content": {"multipart/form-data": {"schema": {"type": "object", "required": ["file"], "properties": {"file": {"type": "string", "format": "binary"}, "id": {"type": "string"}}}}}}}))
            },
            "/maps/{id}": {"get": op("Map metadata", "maps", false, "200", json!({"parameters": id_param()}))},
            "/maps/{id}/geojson": {"get": op("Lanes as a GeoJSON FeatureCollection", "maps", false, "200", json!({"parameters": [id_param()[0].clone(), {"name": "wgs84", "in": "query", "schema": {"type": "boolean"}}]}))},
            "/carriers": {"get": op("Target carriers and their last known state", "carriers", false, "200", json!({}))},
            "/health": {"get": op("Service health (503 when the database does not answer)", "service", false, "200", json!({}))},
            "/metrics": {"get": {"summary": "Prometheus metrics", "tags": ["service"], "responses": {"200": {"description": "OK", "content": {"text/plain": {}}}}}},
            "/openapi.json": {"get": {"summary": "This document", "tags": ["service"], "responses": {"200": {"description": "OK"}}}}
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
                    "source": {"type": "object", "properties": {"kind": {"type": "string", "enum": ["csv_replay"]}, "replay_id": {"type": "string"}, "file_name": {"type": "string"}}},
                    "created_at": {"type": "string", "format": "date-time"},
                    "armed_at": {"type": "string", "format": "date-time", "nullable": true},
                    "started_at": {"type": "string", "format": "date-time", "nullable": true},
                    "finished_at": {"type": "string", "format": "date-time", "nullable": true},
                    "speed": {"oneOf": [{"type": "number"}, {"type": "string", "enum": ["max"]}]},
                    "error": {"type": "string", "nullable": true}}},
                "CreateRun": {"type": "object", "required": ["scenario_id"], "properties": {
                    "scenario_id": {"type": "string"},
                    "map_id": {"type": "string"},
                    "replay": {"type": "string", "description": "replay id (or an earlier replay run's id); default: the replay named like the scenario"},
                    "source": {"type": "object"},
                    "speed": {"oneOf": [{"type": "number"}, {"type": "string"}]},
                    "start": {"type": "boolean", "description": "arm and start at once"}}},
                "RunResponse": run_ref
            }
        }
    })
}
