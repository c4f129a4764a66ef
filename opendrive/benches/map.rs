//! Benchmark (not a test): load time of carla/Town03.xodr and map-matching throughput, with a
//! brute-force scan (foot-point search on every road, no index) as the baseline in the same run.
//!
//! Run: `cargo bench -p opendrive --bench map`.

use std::time::Instant;

use opendrive::OpenDrive;

fn main() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/opendrive/carla/Town03.xodr"
    );
    if !std::path::Path::new(path).exists() {
        eprintln!("benchmark data missing: {path} (shared/ must sit beside the checkout)");
        std::process::exit(1);
    }
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let mut loads = Vec::new();
    let mut map: Option<OpenDrive> = None;
    for _ in 0..5 {
        let t = Instant::now();
        let m = match OpenDrive::from_path(path) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("load failed: {e}");
                std::process::exit(1);
            }
        };
        loads.push(t.elapsed().as_secs_f64());
        map = Some(m);
    }
    let Some(map) = map else { return };
    loads.sort_by(|a, b| a.total_cmp(b));
    let info = map.info();
    println!(
        "load Town03.xodr ({:.1} MB, {} roads, {} junctions): median {:.1} ms (min {:.1} ms, 5 runs)",
        bytes as f64 / 1e6,
        info.roads,
        info.junctions,
        loads[2] * 1e3,
        loads[0] * 1e3
    );

    // Deterministic query points near roads: random road, s, and t within ±15 m.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let pts: Vec<(f64, f64, f64)> = (0..20_000)
        .map(|_| {
            let r =
                &map.roads[((next() * map.roads.len() as f64) as usize).min(map.roads.len() - 1)];
            let s = next() * r.length;
            let (x, y) = r.st_to_xy(s, (next() - 0.5) * 30.0);
            (x, y, next() * std::f64::consts::TAU)
        })
        .collect();

    let t = Instant::now();
    let mut on = 0usize;
    let mut indexed = Vec::with_capacity(pts.len());
    for &(x, y, yaw) in &pts {
        let r = map.locate(x, y, Some(yaw));
        on += usize::from(r.is_some());
        indexed.push(r);
    }
    let dt = t.elapsed().as_secs_f64();
    let qps = pts.len() as f64 / dt;
    println!(
        "locate (R*-tree): {} queries in {:.1} ms → {:.0} queries/s ({:.2} µs/query), {:.1} % on a lane",
        pts.len(),
        dt * 1e3,
        qps,
        dt / pts.len() as f64 * 1e6,
        100.0 * on as f64 / pts.len() as f64
    );

    let n_brute = 300;
    let t = Instant::now();
    let mut agree = 0usize;
    for (i, &(x, y, yaw)) in pts.iter().take(n_brute).enumerate() {
        let r = map.locate_brute_force(x, y, Some(yaw));
        agree += usize::from(r == indexed[i]);
    }
    let dtb = t.elapsed().as_secs_f64();
    let qps_b = n_brute as f64 / dtb;
    println!(
        "baseline (exhaustive: foot point on every window of every road, no index): {n_brute} queries in {:.1} ms → {:.0} queries/s ({:.2} µs/query); same answer {agree}/{n_brute}",
        dtb * 1e3,
        qps_b,
        dtb / n_brute as f64 * 1e6
    );
    println!(
        "speed-up of the index over the baseline: {:.1}×",
        qps / qps_b
    );
}
