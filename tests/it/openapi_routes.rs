//! Every route the service's router declares (the `.route("…")` calls under `src/serve/`, the
//! dashboard's static files aside) is in the OpenAPI document, and the document names no route
//! the router does not have.

use std::collections::BTreeSet;

/// The `.rs` files under `dir`, its folders included.
fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src/serve") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn router_paths() -> BTreeSet<String> {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src/serve"));
    let mut files = Vec::new();
    sources(dir, &mut files);
    let mut out = BTreeSet::new();
    for p in files {
        if p.ends_with("web.rs") {
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
