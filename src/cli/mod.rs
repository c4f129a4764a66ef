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

/// `scil` with no arguments: replay the bundled 30 km/h CPNA run in real time and print the
/// report. (The service takes over this default once it exists.)
pub fn default_run() -> anyhow::Result<ExitCode> {
    let d = data_dir();
    replay::run(replay::ReplayArgs::bundled(&d))
}
