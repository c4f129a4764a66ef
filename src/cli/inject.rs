//! `--noise pos=M,speed=MPS,heading=DEG --dropout P --latency-ms L --seed N`: the injection
//! flags of `scil replay`, `scil sim` and `scil cosim` ([`crate::run::source::inject`]).

use clap::Args;

use crate::run::source::inject::Injection;

#[derive(Args, Debug, Clone, Default)]
pub struct InjectArgs {
    /// Gaussian noise on the VUT's telemetry: pos=M (σ per axis), speed=M/S, heading=DEG.
    #[arg(long, value_name = "pos=M,speed=MPS,heading=DEG")]
    pub noise: Option<Injection>,
    /// Probability that a sample is lost (0..1).
    #[arg(long, default_value_t = 0.0)]
    pub dropout: f64,
    /// The telemetry arrives this late (its time stamp is moved), ms.
    #[arg(long, default_value_t = 0.0)]
    pub latency_ms: f64,
    /// Seed of the noise and dropout (same seed, same run).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

impl InjectArgs {
    /// The injection these flags ask for (all zero: none).
    pub fn injection(&self) -> anyhow::Result<Injection> {
        let mut i = self.noise.unwrap_or_default();
        if self
            .noise
            .is_some_and(|n| n.dropout != 0.0 || n.latency_ms != 0.0 || n.seed != 0)
        {
            anyhow::bail!(
                "--noise takes pos, speed and heading; use --dropout, --latency-ms, --seed"
            );
        }
        i.dropout = self.dropout;
        i.latency_ms = self.latency_ms;
        i.seed = self.seed;
        i.validate().map_err(anyhow::Error::msg)?;
        Ok(i)
    }
}
