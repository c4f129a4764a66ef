//! scil — Scenario-in-the-Loop proving-ground control.
//!
//! Modules follow the data flow: [`ingest`] (sources) → [`frame`] (interface block to the map
//! frame) → [`twin`] (digital twin on the [`map`]) → [`scenario`] (sans-IO engine: triggers,
//! commands, events) → [`replay`] (drivers) → dispatch / store / serve.

// The OpenAPI document is one `json!` literal, deeper than the default macro recursion limit.
#![recursion_limit = "256"]

// The sans-IO core (crate `scil-core`), re-exported so that `scil::scenario::…` etc. keep working.
#[cfg(feature = "proj")]
pub use scil_core::proj_geo;
pub use scil_core::{capabilities, frame, map, sample, scenario, twin};

pub mod bench;
pub mod cli;
pub mod dispatch;
pub mod ingest;
pub mod ncap;
pub mod ncap_report;
pub mod osi;
pub mod record;
pub mod run;
pub mod serve;
pub mod sim;
pub mod site;
pub mod store;
pub mod sweep;
pub mod xosc;

/// Where the bundled data (default map, demo replay, scenarios) lives: `$SCIL_DATA`, else the
/// `data/` folder of the source tree this binary was built from, else `./data`.
pub fn data_dir() -> std::path::PathBuf {
    if let Some(d) = std::env::var_os("SCIL_DATA") {
        return std::path::PathBuf::from(d);
    }
    let built = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data");
    if built.is_dir() {
        return built;
    }
    std::path::PathBuf::from("data")
}

/// The error and its causes as one line, `outer: cause: …`, leaving out a cause whose text the
/// message already contains (many errors repeat their source, which printed `X: X`).
pub fn error_message(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if text.is_empty() || out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

/// What `scil --version` prints (`scil 0.1.0`).
pub fn version_line() -> String {
    format!("scil {}", env!("CARGO_PKG_VERSION"))
}

/// The commit this binary was built from (`git rev-parse HEAD` at build time, or
/// `SCIL_BUILD_COMMIT`; "unknown" outside a git checkout).
pub const BUILD_COMMIT: &str = env!("SCIL_BUILD_COMMIT");
