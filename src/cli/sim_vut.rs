//! The simulated VUT's options on the command line, shared by `scil sim` and the
//! co-simulation peers (`scil sim beamng|yacop`, `scil cosim …`).

use std::path::PathBuf;

use clap::Args;

use super::inject::InjectArgs;
use crate::sim::{AebParams, ElkParams, FcwParams, SimOptions};

#[derive(Args, Debug, Clone, Default)]
pub struct SimVutArgs {
    /// Scenario TOML.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// OpenDRIVE map (default: the scenario's `map`).
    #[arg(long)]
    pub map: Option<PathBuf>,
    /// VUT set speed, km/h.
    #[arg(long, default_value_t = 40.0)]
    pub vut_speed: f64,
    /// AEB model: ttc=S,decel=MPS2,delay_ms=MS[,margin=M] (absent: no AEB).
    #[arg(long, value_name = "ttc=S,decel=MPS2,delay_ms=MS")]
    pub aeb: Option<AebParams>,
    /// Forward collision warning: ttc=S; the protocol's brake robot brakes at 4 m/s² 1.2 s
    /// after the warning (absent: no FCW).
    #[arg(long, value_name = "ttc=S")]
    pub fcw: Option<FcwParams>,
    /// Emergency lane keeping of a VUT that drifts out of its lane:
    /// tlc=S,lat_accel=MPS2,delay_ms=MS (absent: none).
    #[arg(long, value_name = "tlc=S,lat_accel=MPS2,delay_ms=MS")]
    pub elk: Option<ElkParams>,
    /// Simulation step, ms.
    #[arg(long, default_value_t = 10.0)]
    pub step_ms: f64,
    /// Start this far before the target's line, m (default max(100, 8 s × speed)).
    #[arg(long)]
    pub run_up_m: Option<f64>,
    /// One JSON object (the run report) on stdout.
    #[arg(long)]
    pub json: bool,
    /// Write the twin as an ASAM OSI trace (`osi3.SensorView` per VUT sample; docs/osi.md).
    #[arg(long, value_name = "FILE")]
    pub osi: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub inject: InjectArgs,
}

impl SimVutArgs {
    pub fn options(&self) -> anyhow::Result<SimOptions> {
        let o = SimOptions {
            vut_speed_kmh: self.vut_speed,
            aeb: self.aeb,
            fcw: self.fcw,
            elk: self.elk,
            step_ms: self.step_ms,
            run_up_m: self.run_up_m,
            injection: self.inject.injection()?,
            ..SimOptions::default()
        };
        o.validate().map_err(anyhow::Error::msg)?;
        Ok(o)
    }
}
