//! Errors about an id that is not registered: they list the ids that are (the first ten, and
//! where to find the rest), so the caller can correct the request without another lookup.

use crate::store::Store;

/// How many known ids a message lists before pointing to the listing route.
const SHOWN: usize = 10;

/// "scenario 'x' does not exist; known scenarios: a, b, c" (the first ten, then "… and N more:
/// GET /api/v1/scenarios"). `kind` is "scenario", "map" or "replay".
pub async fn unknown(store: &Store, kind: &str, id: &str) -> String {
    let ids: Vec<String> = match kind {
        "scenario" => store
            .list_scenarios()
            .await
            .map(|v| v.into_iter().map(|r| r.id).collect())
            .unwrap_or_default(),
        "map" => store.map_ids().await.unwrap_or_default(),
        "replay" => store
            .list_replays()
            .await
            .map(|v| v.into_iter().map(|r| r.id).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    message(kind, id, &ids)
}

/// The message for `id` among `ids` (see [`unknown`]).
pub fn message(kind: &str, id: &str, ids: &[String]) -> String {
    let route = format!("GET /api/v1/{kind}s");
    if ids.is_empty() {
        return format!("{kind} '{id}' does not exist; none is registered ({route})");
    }
    let shown: Vec<&str> = ids.iter().take(SHOWN).map(String::as_str).collect();
    let rest = if ids.len() > SHOWN {
        format!(" … and {} more: {route}", ids.len() - SHOWN)
    } else {
        format!(" ({route})")
    };
    format!(
        "{kind} '{id}' does not exist; known {kind}s: {}{rest}",
        shown.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::message;

    #[test]
    fn lists_the_known_ids_or_the_first_ten_and_the_route() {
        let few: Vec<String> = ["a", "b"].iter().map(|s| s.to_string()).collect();
        assert_eq!(
            message("scenario", "x", &few),
            "scenario 'x' does not exist; known scenarios: a, b (GET /api/v1/scenarios)"
        );
        let many: Vec<String> = (0..13).map(|i| format!("s{i}")).collect();
        let m = message("map", "x", &many);
        assert!(m.contains("s9") && !m.contains("s10"), "{m}");
        assert!(m.ends_with("… and 3 more: GET /api/v1/maps"), "{m}");
        assert!(message("replay", "x", &[]).contains("none is registered"));
    }
}
