//! Scenario TOML (uploaded scenarios, `scil run --scenario`), with its lane paths resolved on
//! the bundled proving-ground map.
#![no_main]
use libfuzzer_sys::fuzz_target;
use scil::scenario::profile::Profile;
use scil::scenario::Scenario;
use std::sync::OnceLock;

static MAP: OnceLock<opendrive::OpenDrive> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(mut sc) = Scenario::from_toml(text) else {
        return;
    };
    let map = MAP.get_or_init(|| {
        opendrive::OpenDrive::from_str(include_str!("../../data/opendrive/proving_ground.xodr"))
            .expect("bundled map parses")
    });
    if sc.resolve_paths(Some(map)).is_ok() {
        for t in &sc.targets {
            let _ = Profile::of(t);
        }
    }
});
