//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// Path of a file in the shared data directory (../shared beside the checkout).
/// Panics with a clear message when it is missing: a missing fixture must fail the test.
pub fn shared(rel: &str) -> PathBuf {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/")).join(rel);
    assert!(
        p.exists(),
        "shared test data missing: {} (expected shared/ beside the repository checkout)",
        p.display()
    );
    p
}

pub fn load(rel: &str) -> opendrive::OpenDrive {
    let p = shared(rel);
    match opendrive::OpenDrive::from_path(&p) {
        Ok(m) => m,
        Err(e) => panic!("failed to load {}: {e}", p.display()),
    }
}
