//! `cargo bench --bench dispatch_latency`: decision → STRT written, p50/p99 on loopback, with
//! encode-only and raw-write baselines from the same run.

fn main() -> anyhow::Result<()> {
    scil::cli::dispatch::block_on(scil::cli::dispatch::run_bench(
        scil::cli::dispatch::BenchArgs {
            iterations: 200,
            json: false,
        },
    ))
}
