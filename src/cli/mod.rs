//! Command-line front ends. Each subcommand parses its arguments and calls the library.

pub mod bench;
pub mod cosim;
pub mod dispatch;
pub mod ingest;
pub mod inject;
pub mod map;
pub mod replay;
pub mod sim;

use std::process::ExitCode;

pub use crate::data_dir;

/// `scil` with no arguments: the service on its defaults (SQLite `scil.db`, 127.0.0.1:8080,
/// bundled map and scenarios) looping the bundled 30 km/h CPNA replay in real time
/// (`scil serve --demo`).
pub fn default_run() -> anyhow::Result<ExitCode> {
    crate::serve::run(crate::serve::ServeArgs {
        demo: true,
        ..Default::default()
    })
}
