//! Command-line front ends. Each subcommand parses its arguments and calls the library.

pub mod bench;
pub mod map;
pub mod replay;

use std::path::PathBuf;
use std::process::ExitCode;

/// Where the bundled data (default map, demo replay, scenarios) lives: `$SCIL_DATA`, else the
/// `data/` folder of the source tree this binary was built from, else `./data`.
pub fn data_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("SCIL_DATA") {
        return PathBuf::from(d);
    }
    let built = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data");
    if built.is_dir() {
        return built;
    }
    PathBuf::from("data")
}

/// `scil` with no arguments: the service on its defaults (SQLite `scil.db`, 127.0.0.1:8080,
/// bundled map and scenarios) looping the bundled 30 km/h CPNA replay in real time
/// (`scil serve --demo`).
pub fn default_run() -> anyhow::Result<ExitCode> {
    crate::serve::run(crate::serve::ServeArgs {
        demo: true,
        ..Default::default()
    })
}
