//! A scil service on an ephemeral port for the integration tests: SQLite in `dir`, the bundled
//! data directory, one operator token.

use std::path::{Path, PathBuf};

/// Starts the service; returns it (kept alive by the caller) and its API base URL.
#[allow(dead_code)] // not every test crate that includes `support` starts a service
pub async fn spawn(dir: &Path, operator_token: &str) -> (scil::serve::Server, String) {
    let mut config = scil::serve::Config {
        bind: "127.0.0.1:0".into(),
        database_url: format!("sqlite://{}?mode=rwc", dir.join("scil.db").display()),
        storage_dir: dir.join("storage"),
        data_dir: Some(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data"))),
        ..scil::serve::Config::default()
    };
    config.auth.operator_tokens = vec![operator_token.into()];
    let server = scil::serve::spawn(config).await.expect("server starts");
    let base = format!("http://{}/api/v1", server.addr);
    (server, base)
}
