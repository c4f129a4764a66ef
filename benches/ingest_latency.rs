//! `cargo bench --bench ingest_latency`: NCOM datagram sent → decoded InsSample in the consumer,
//! p50/p99 on loopback, with raw-UDP and decode-only baselines from the same run.

fn main() -> anyhow::Result<()> {
    let n = std::env::var("SCIL_BENCH_PACKETS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5000);
    scil::cli::ingest::run_bench(n).map(|_| ())
}
