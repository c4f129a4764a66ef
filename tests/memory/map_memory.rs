//! Memory of the map GeoJSON export on CARLA Town03 (2.2 MB): peak resident
//! memory (VmHWM, reset through /proc/self/clear_refs) of the in-memory `serde_json::Value`
//! document (the old path) against the streamed writer the CLI and the server use now, measured
//! in the same run. Prints the figures; the assertion is on memory, not time.

use std::path::PathBuf;

fn town03() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/opendrive/carla/Town03.xodr"
    ))
}

fn kib(field: &str) -> Option<u64> {
    std::fs::read_to_string("/proc/self/status")
        .ok()?
        .lines()
        .find(|l| l.starts_with(field))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Resets the peak to the current resident size; false where the kernel does not support it.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Peak resident memory above the level before `f`, MiB.
fn peak_growth_mib(f: impl FnOnce()) -> Option<f64> {
    if !reset_peak() {
        return None;
    }
    let before = kib("VmRSS:")?;
    f();
    let peak = kib("VmHWM:")?;
    Some(peak.saturating_sub(before) as f64 / 1024.0)
}

/// Counts bytes without keeping them.
struct Count(u64);
impl std::io::Write for Count {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn streamed_geojson_uses_a_fraction_of_the_value_tree_memory() {
    let _alone = crate::ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let map = opendrive::OpenDrive::from_path(town03()).expect("Town03 parses");
    // Smallest first: memory freed by one step stays resident (the allocator keeps it), so a
    // later, smaller step would reuse it and show no growth.
    let mut streamed_len = 0u64;
    let streamed = peak_growth_mib(|| {
        let mut c = Count(0);
        scil::map::write_lanes_geojson(&map, false, &mut c).expect("stream");
        streamed_len = c.0;
    });
    // The server keeps the bytes (cached): the document itself, not a tree.
    let buffered = peak_growth_mib(|| {
        let mut v = Vec::new();
        scil::map::write_lanes_geojson(&map, false, &mut v).expect("stream");
        assert_eq!(v.len() as u64, streamed_len);
    });
    let mut value_len = 0usize;
    let value = peak_growth_mib(|| {
        let v = scil::map::lanes_geojson(&map, false).expect("geojson");
        value_len = serde_json::to_vec(&v).expect("serialise").len();
    });
    // Same document (one test in this binary, so nothing else allocates while measuring).
    let v = scil::map::lanes_geojson(&map, false).expect("geojson");
    let mut out = Vec::new();
    scil::map::write_lanes_geojson(&map, false, &mut out).expect("stream");
    // Both parsed by the same parser (key order and float parsing then cannot differ).
    let parsed: serde_json::Value = serde_json::from_slice(&out).expect("valid JSON");
    let reference: serde_json::Value =
        serde_json::from_slice(&serde_json::to_vec(&v).expect("serialise")).expect("JSON");
    assert!(
        parsed == reference,
        "streamed document differs from the Value document"
    );
    drop((v, parsed, reference, out));
    let (Some(value), Some(streamed), Some(buffered)) = (value, streamed, buffered) else {
        println!("skip: /proc/self/clear_refs cannot reset the peak here");
        return;
    };
    let doc_mib = streamed_len as f64 / (1 << 20) as f64;
    println!(
        "Town03 GeoJSON ({doc_mib:.1} MiB): peak growth Value tree {value:.1} MiB, streamed \
         {streamed:.1} MiB, streamed into a buffer {buffered:.1} MiB (ratio Value/buffer {:.1}×)",
        value / buffered.max(0.1)
    );
    assert_eq!(value_len as u64, streamed_len, "same document size");
    assert!(
        streamed < 16.0,
        "streaming to a sink grew by {streamed:.1} MiB"
    );
    assert!(
        buffered < value / 2.0,
        "buffered {buffered:.1} MiB vs Value {value:.1} MiB"
    );
}
