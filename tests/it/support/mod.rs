//! Shared pieces of the integration tests (each test crate includes this with `mod support;`).
#![allow(dead_code)] // not every test crate uses every helper

pub mod archive;
pub mod fault_proxy;
pub mod http;
pub mod odr_peer;
pub mod python;
pub mod rating_tool;
pub mod service;

use std::path::PathBuf;

/// A file of the shared data set beside the repository (`../shared`).
pub fn shared(p: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/")).join(p)
}

/// A file of the data the product ships (`data/`).
pub fn data(p: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/data/")).join(p)
}

/// A fresh directory under the system's temp dir, unique to this process and call.
pub fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "scil-test-{tag}-{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// A free UDP port on loopback (bound and released; the code under test binds it again).
pub fn free_udp_port() -> u16 {
    let s = std::net::UdpSocket::bind("127.0.0.1:0").expect("bind");
    s.local_addr().expect("addr").port()
}
