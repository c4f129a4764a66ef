//! Command-line front ends. Each subcommand parses its arguments and calls the library.

pub mod bench;
pub mod catalogue;
pub mod convert;
pub mod cosim;
pub mod db;
pub mod dispatch;
pub mod export;
pub mod ground;
pub mod ingest;
pub mod inject;
pub mod map;
pub mod map_site;
pub mod ncap;
pub mod replay;
pub mod report;
pub mod scenario;
pub mod sim;
pub mod sim_vut;
pub mod sweep;
pub mod verify;

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

pub use crate::error_message;

/// True when the error (or any cause) is a broken pipe: stdout closed by `| head`, not a failure.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Command-line tools end quietly when their reader goes away (`scil … | head`), like other Unix
/// tools: restore the default SIGPIPE action (Rust ignores it, so every write after the reader
/// left failed with "Broken pipe"). Not for the service, whose sockets handle EPIPE themselves.
pub fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal disposition to SIG_DFL at start-up, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// The database a command reads: `--database-url`, else `$DATABASE_URL`, else the service's
/// default (the embedded SQLite file).
pub(crate) fn database_url(given: &Option<String>) -> String {
    given
        .clone()
        .or_else(|| std::env::var("DATABASE_URL").ok())
        .unwrap_or_else(|| crate::serve::Config::default().database_url)
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn causes_are_not_repeated() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = anyhow::Error::new(io).context("cannot read x.csv: no such file");
        assert_eq!(error_message(&e), "cannot read x.csv: no such file");
        let e: anyhow::Error = Err::<(), _>(std::io::Error::from(std::io::ErrorKind::BrokenPipe))
            .context("writing")
            .unwrap_err();
        assert!(is_broken_pipe(&e));
        let e = anyhow::anyhow!("inner").context("outer");
        assert_eq!(error_message(&e), "outer: inner");
    }
}
