//! The dashboard: static files from `web/`, embedded in the binary at compile time, so `scil serve`
//! needs no Node step and no files on disk at run time.
//!
//! Only static routes (`/`, `/index.html`, `/app.js`, …) are registered — no wildcard and no
//! fallback — so the router can be merged into, or nested in, the service's router without
//! clashing with `/api/v1/...`. A new file under `web/` must be added to [`ASSETS`].

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

/// One embedded file: URL path (from the site root), content type, bytes.
pub struct Asset {
    pub path: &'static str,
    pub mime: &'static str,
    pub body: &'static [u8],
}

macro_rules! asset {
    ($path:literal, $mime:literal) => {
        Asset {
            path: concat!("/", $path),
            mime: $mime,
            body: include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/web/", $path)),
        }
    };
}

/// Every file the dashboard loads.
pub static ASSETS: &[Asset] = &[
    asset!("index.html", "text/html; charset=utf-8"),
    asset!("style.css", "text/css; charset=utf-8"),
    asset!("app.js", "text/javascript; charset=utf-8"),
    asset!("api.js", "text/javascript; charset=utf-8"),
    asset!("mapview.js", "text/javascript; charset=utf-8"),
    asset!("plots.js", "text/javascript; charset=utf-8"),
    asset!("results.js", "text/javascript; charset=utf-8"),
    asset!("runs_strip.js", "text/javascript; charset=utf-8"),
    asset!("analysis.js", "text/javascript; charset=utf-8"),
    asset!("testday.js", "text/javascript; charset=utf-8"),
    asset!("params.js", "text/javascript; charset=utf-8"),
    asset!("validity.js", "text/javascript; charset=utf-8"),
    asset!("objects.js", "text/javascript; charset=utf-8"),
    asset!("events.js", "text/javascript; charset=utf-8"),
    asset!("maps.js", "text/javascript; charset=utf-8"),
    asset!("upload.js", "text/javascript; charset=utf-8"),
    asset!("runlinks.js", "text/javascript; charset=utf-8"),
    asset!("vendor/uPlot.esm.js", "text/javascript; charset=utf-8"),
    asset!("vendor/uPlot.min.css", "text/css; charset=utf-8"),
];

/// Looks an asset up by URL path (`/` is `index.html`).
pub fn asset(path: &str) -> Option<&'static Asset> {
    let path = if path == "/" { "/index.html" } else { path };
    ASSETS.iter().find(|a| a.path == path)
}

fn respond(a: &'static Asset) -> Response {
    let mut r = (StatusCode::OK, a.body).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(a.mime));
    // Small files on a local link; always revalidate so a rebuilt binary is picked up at once.
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

/// The dashboard's routes: `/` and one route per embedded file.
pub fn router() -> Router {
    routes()
}

/// The same routes on a router of any state type, to merge straight into the service's
/// `Router<AppState>` (`.merge(web::routes())`) before `.with_state(…)`.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    let index = asset("/").expect("index.html embedded");
    let mut r = Router::new().route("/", get(move || async move { respond(index) }));
    for a in ASSETS {
        r = r.route(a.path, get(move || async move { respond(a) }));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_module_import_is_embedded() {
        // Each `import … from './x.js'` in an embedded script must itself be embedded.
        for a in ASSETS
            .iter()
            .filter(|a| a.mime.starts_with("text/javascript"))
        {
            let text = std::str::from_utf8(a.body).unwrap();
            for line in text
                .lines()
                .filter(|l| l.trim_start().starts_with("import "))
            {
                let Some(spec) = line.split(['\'', '"']).nth(1) else {
                    continue;
                };
                let dir = a.path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
                let full = format!("{dir}/{}", spec.trim_start_matches("./"));
                assert!(
                    asset(&full).is_some(),
                    "{} imports {spec}, not embedded",
                    a.path
                );
            }
        }
    }

    #[test]
    fn index_references_are_embedded() {
        let html = std::str::from_utf8(asset("/").unwrap().body).unwrap();
        for part in html
            .split(['"'])
            .filter(|p| p.ends_with(".js") || p.ends_with(".css"))
        {
            assert!(
                asset(&format!("/{part}")).is_some(),
                "index.html references {part}, not embedded"
            );
        }
    }
}
