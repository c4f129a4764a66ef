//! `scil replay <CSV> --scenario <TOML> [--map XODR] [--speed max|N] [--json]`

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use crate::ingest::csv::{BadRowPolicy, ColumnSpec};
use crate::replay::{replay_csv, CsvReplay, ReplaySetup, RunResult, Speed};
use crate::scenario::engine::{EngineConfig, Event, Output, TriggerMethod};

#[derive(Args, Debug, Clone)]
pub struct ReplayArgs {
    /// Recorded CSV (paper columns or OxTS NcomToCsv-style export).
    pub csv: PathBuf,
    /// Scenario TOML.
    #[arg(long)]
    pub scenario: PathBuf,
    /// OpenDRIVE map (default: the scenario's `map`, relative to the scenario file).
    #[arg(long)]
    pub map: Option<PathBuf>,
    /// Pace: `max`, or a real-time factor (1 = as recorded, 4 = four times faster).
    #[arg(long, default_value = "max")]
    pub speed: Speed,
    /// One JSON object on stdout instead of the readable report.
    #[arg(long)]
    pub json: bool,
    /// Fire at the first sample past the threshold, as the seed paper did.
    #[arg(long)]
    pub trigger_at_sample: bool,
    /// Do not move the dummy's profile origin to the exact crossing after the fact.
    #[arg(long)]
    pub no_retime: bool,
    /// What to do with a bad row.
    #[arg(long, value_enum, default_value_t = BadRowPolicy::Stop)]
    pub on_bad_row: BadRowPolicy,
    /// Explicit column mapping FIELD=COLUMN[:UNIT] (fields: time x y lat lon alt heading speed
    /// steering brake; units: s ms m deg rad m/s km/h mph). Repeatable.
    #[arg(long = "column", value_name = "FIELD=COLUMN[:UNIT]")]
    pub columns: Vec<ColumnSpec>,
    /// Abort an armed run after this long without a VUT sample (ms; 0 = never).
    #[arg(long, default_value_t = 200.0)]
    pub stale_limit_ms: f64,
    /// Print every event as it happens (readable mode).
    #[arg(long)]
    pub events: bool,
}

impl ReplayArgs {
    /// The bundled demo: 30 km/h CPNA-75 run on the proving-ground map, real time.
    pub fn bundled(data: &Path) -> ReplayArgs {
        ReplayArgs {
            csv: data.join("replays/cpna75_30kmh.csv"),
            scenario: data.join("scenarios/cpna75_30kmh.toml"),
            map: None,
            speed: Speed::Factor(1.0),
            json: false,
            trigger_at_sample: false,
            no_retime: false,
            on_bad_row: BadRowPolicy::Stop,
            columns: Vec::new(),
            stale_limit_ms: 200.0,
            events: true,
        }
    }

    pub fn engine_config(&self) -> EngineConfig {
        EngineConfig {
            method: if self.trigger_at_sample {
                TriggerMethod::AtSample
            } else {
                TriggerMethod::Predicted
            },
            retime: !self.no_retime,
            stale_limit_s: (self.stale_limit_ms > 0.0).then_some(self.stale_limit_ms / 1000.0),
            ..EngineConfig::default()
        }
    }
}

pub fn run(a: ReplayArgs) -> anyhow::Result<ExitCode> {
    let setup = ReplaySetup::load(&a.scenario, a.map.as_deref(), a.engine_config())?;
    let opts = CsvReplay {
        csv: a.csv.clone(),
        columns: a.columns.clone(),
        on_bad_row: a.on_bad_row,
        speed: a.speed,
    };
    let progress = std::io::stdout().is_terminal() && std::io::stderr().is_terminal() && !a.json;
    let show_events = a.events && !a.json;
    let (result, _rec) = replay_csv(&setup, &opts, progress, &mut |o| {
        if show_events {
            if let Output::Event(e) = o {
                if !matches!(e, Event::TriggerScheduled { .. }) {
                    println!("  event {}", serde_json::to_string(e).unwrap_or_default());
                }
            }
        }
    })?;
    if a.json {
        println!("{}", serde_json::to_string(&result)?);
    } else {
        print!("{}", report(&result, &a));
    }
    Ok(if result.aborted.is_some() {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}

/// A readable report of a run.
pub fn report(r: &RunResult, a: &ReplayArgs) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "replay   {}", a.csv.display());
    let _ = writeln!(s, "scenario {}", a.scenario.display());
    let _ = writeln!(
        s,
        "samples  {}   skipped rows {}",
        r.samples, r.skipped_rows
    );
    for e in &r.skipped {
        let _ = writeln!(s, "  skipped: {e}");
    }
    if let Some(reason) = &r.aborted {
        let _ = writeln!(s, "ABORTED  {reason}");
    }
    for t in &r.triggers {
        let _ = writeln!(
            s,
            "trigger  {:<8} t = {:.4} s   TTC {:.4} s (threshold {:.4})   d_long {:.3} m   VUT {:.2} km/h",
            t.target, t.time_s, t.ttc_s, t.threshold_s, t.d_long_m, t.vut_speed_kmh
        );
        let _ = writeln!(
            s,
            "         start command at {:.4} s ({:?}{}){}",
            t.fired_at_s,
            t.method,
            if t.retimed {
                ", profile retimed to the crossing"
            } else {
                ""
            },
            t.fire_error_ms
                .map(|e| format!(", {e:+.2} ms from the crossing"))
                .unwrap_or_default()
        );
    }
    if r.triggers.is_empty() {
        let _ = writeln!(s, "trigger  none");
    }
    for i in &r.impacts {
        match (i.time_s, i.dummy_travel_m) {
            (Some(t), Some(d)) => {
                let _ = writeln!(
                    s,
                    "impact   {:<8} t = {:.4} s   dummy travel {:.4} m (nominal {:.5})   overlap {:.1} %",
                    i.target,
                    t,
                    d,
                    i.nominal_travel_m,
                    i.overlap.unwrap_or(f64::NAN) * 100.0
                );
            }
            _ => {
                let _ = writeln!(
                    s,
                    "impact   {:<8} none{}{}",
                    i.target,
                    i.stopped_short_m
                        .map(|d| format!(": stopped {d:.3} m short"))
                        .unwrap_or_default(),
                    i.note
                        .as_ref()
                        .map(|n| format!(" ({n})"))
                        .unwrap_or_default()
                );
            }
        }
    }
    s
}
