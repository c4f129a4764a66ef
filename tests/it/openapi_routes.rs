//! Every route the service's router declares (the `.route("…")` calls of `src/serve/*.rs`, the
//! dashboard's static files aside) is in the OpenAPI document, and the document names no route
//! the router does not have.

use std::collections::BTreeSet;

fn router_paths() -> BTreeSet<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/serve");
    let mut out = BTreeSet::new();
    for e in std::fs::read_dir(dir).expect("src/serve") {
        let p = e.expect("entry").path();
        if p.extension().is_none_or(|x| x != "rs") || p.ends_with("web.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&p).expect("read");
        let mut rest = text.as_str();
        while let Some(i) = rest.find(".route(") {
            rest = &rest[i + ".route(".len()..];
            let t = rest.trim_start();
            if let Some(body) = t.strip_prefix('"') {
                let end = body.find('"').expect("closing quote");
                out.insert(body[..end].to_string());
            }
        }
    }
    out
}

#[test]
fn every_route_is_documented() {
    let routes = router_paths();
    assert!(
        routes.contains("/runs/{id}/abort") && routes.len() > 30,
        "{routes:?}"
    );
    let doc = scil::serve::openapi::document();
    let paths: BTreeSet<String> = doc["paths"]
        .as_object()
        .expect("paths")
        .keys()
        .cloned()
        .collect();
    let missing: Vec<_> = routes.difference(&paths).collect();
    assert!(
        missing.is_empty(),
        "routes not in the OpenAPI document: {missing:?}"
    );
    let extra: Vec<_> = paths.difference(&routes).collect();
    assert!(
        extra.is_empty(),
        "documented paths the router does not have: {extra:?}"
    );
}
