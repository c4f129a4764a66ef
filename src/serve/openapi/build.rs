//! Building blocks of the OpenAPI document: one operation, the `id` path parameter.

use serde_json::{json, Value};

pub fn op(summary: &str, tag: &str, auth: bool, ok: &str, extra: Value) -> Value {
    let mut o = json!({
        "summary": summary,
        "tags": [tag],
        "responses": {
            ok: {"description": "OK", "content": {"application/json": {}}},
            "default": {"description": "Error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        }
    });
    if ok == "204" {
        // No Content: no body, so no media type either.
        o["responses"][ok] = json!({"description": "No Content"});
    }
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

pub fn id_param() -> Value {
    json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}])
}
