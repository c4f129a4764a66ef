//! `cargo bench --bench dispatch_latency`: decision → STRT written, p50/p99 on loopback, with
//! encode-only and raw-write baselines from the same run.

fn main() -> anyhow::Result<()> {
    scil::dispatch::cli::block_on(scil::dispatch::cli::run_bench(
        scil::dispatch::cli::BenchArgs {
            iterations: 200,
            json: false,
        },
    ))
}
