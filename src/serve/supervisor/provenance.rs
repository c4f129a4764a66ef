//! A run's provenance, put into its results at its end: the software (`scil --version` and the
//! build commit), the SHA-256 of every input as stored (scenario text, map file, replay file,
//! DBC) and of the effective configuration with its secrets removed, the objects' names and
//! addresses, and who created, armed, started, finished or aborted the run (its `control`
//! events). And the seal its end appends to its hash chain ([`crate::store::chain`]).

use serde_json::{json, Value};

use super::run::{ActiveRun, RunSource, StoredSource};
use super::Supervisor;
use crate::store::chain::{self, sha256_hex, RunIdentity};
use crate::store::RunRow;

/// `{"sha256": …, "bytes": …}` of a stored input, with its id.
fn digest(id: &str, data: &[u8]) -> Value {
    json!({"id": id, "sha256": sha256_hex(data), "bytes": data.len()})
}

/// The provenance of a run (the `provenance` of its results). An input that can no longer be
/// read is named with the reason instead of a digest.
pub(super) async fn of(st: &Supervisor, run: &ActiveRun, row: &RunRow) -> Value {
    let scenario = st.store.get_scenario(&row.scenario_id).await.ok().flatten();
    let scenario_v = match &scenario {
        Some(s) => digest(&s.id, s.toml.as_bytes()),
        None => json!({"id": row.scenario_id, "error": "not readable at the run's end"}),
    };
    let map_id = row
        .map_id
        .clone()
        .or_else(|| scenario.as_ref().and_then(|s| s.map_id.clone()));
    let map_v = match &map_id {
        Some(m) => match st.store.get_map(m).await {
            Ok(Some(r)) => {
                let mut v = digest(&r.id, r.xodr.as_bytes());
                v["file_name"] = json!(r.file_name);
                v
            }
            _ => json!({"id": m, "error": "not readable at the run's end"}),
        },
        None => Value::Null,
    };
    let stored: Option<StoredSource> = serde_json::from_str(&row.source).ok();
    let replay_v = match stored.as_ref().map(|s| &s.ins) {
        Some(RunSource::CsvReplay {
            replay_id,
            file_name,
        }) => replay(st, replay_id, file_name).await,
        _ => Value::Null,
    };
    let dbc_v = match stored.as_ref().and_then(|s| s.can.as_ref()) {
        Some(c) => match st.store.get_dbc(c.dbc()).await {
            Ok(Some(d)) => digest(c.dbc(), d.text.as_bytes()),
            _ => json!({"id": c.dbc(), "error": "not readable at the run's end"}),
        },
        None => Value::Null,
    };
    let config = st.config.redacted();
    let objects: Vec<Value> = run
        .carriers
        .iter()
        .map(|c| json!({"name": c.name, "address": c.address}))
        .collect();
    json!({
        "scil_version": crate::version_line(),
        "build_commit": crate::BUILD_COMMIT,
        "instance": st.instance.id,
        "scenario": scenario_v,
        "map": map_v,
        "replay": replay_v,
        "dbc": dbc_v,
        "config_sha256": sha256_hex(config.to_string().as_bytes()),
        "config": config,
        "objects": objects,
        "people": people(st, &row.id).await,
    })
}

async fn replay(st: &Supervisor, id: &str, file_name: &str) -> Value {
    let row = match st.store.get_replay(id).await {
        Ok(Some(r)) => r,
        _ => {
            return json!({"id": id, "file_name": file_name, "error": "not registered at the run's end"})
        }
    };
    let path = match crate::serve::shared_files::replay_path(st, &row).await {
        Ok(p) => p,
        Err(e) => return json!({"id": id, "file_name": file_name, "error": e.to_string()}),
    };
    match tokio::fs::read(&path).await {
        Ok(bytes) => {
            let mut v = digest(id, &bytes);
            v["file_name"] = json!(file_name);
            v
        }
        Err(e) => {
            json!({"id": id, "file_name": file_name, "error": format!("cannot read: {}", e.kind())})
        }
    }
}

/// Who did each control of the run, from its `control` events: `{"create": "alice", "arm":
/// "bob", …}` (the last of each), and every control in order.
async fn people(st: &Supervisor, run_id: &str) -> Value {
    let events = st
        .store
        .list_events(run_id, 0, 10_000)
        .await
        .unwrap_or_default();
    let mut by = serde_json::Map::new();
    let mut all = Vec::new();
    for e in events.iter().filter(|e| e.kind == "control") {
        let Ok(p) = serde_json::from_str::<Value>(&e.payload) else {
            continue;
        };
        let (Some(action), Some(who)) = (p["action"].as_str(), p["by"].as_str()) else {
            continue;
        };
        by.insert(action.to_string(), json!(who));
        all.push(json!({"action": action, "by": who, "at": e.created_at}));
    }
    json!({"by_action": by, "controls": all})
}

/// Appends the seal of an ended run to its chain (through the writer, in order after the
/// final state event): the digests of its results text, of its stored telemetry and of its
/// row's identifying fields.
pub(super) async fn seal(st: &Supervisor, row: &RunRow, result_json: &str) {
    let (telemetry, rows) = match st.store.telemetry_digest(&row.id).await {
        Ok(d) => d,
        Err(e) => {
            tracing::error!("run {}: cannot read its telemetry to seal it: {e}", row.id);
            return;
        }
    };
    let payload = chain::seal_payload(
        Some(&sha256_hex(result_json.as_bytes())),
        &telemetry,
        rows,
        &RunIdentity::of(row),
    );
    st.record_event(Some(&row.id), None, "seal", &payload);
}
