//! `scil replay <CSV> --scenario <TOML> [--map XODR] [--speed max|N] [--json]`

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use crate::ingest::csv::{BadRowPolicy, ColumnSpec};
use crate::replay::{replay_csv, CsvReplay, ReplaySetup, RunResult, Speed};
use crate::replay_live::{replay_csv_live, LiveConfig, LiveRunResult};
use crate::scenario::engine::{EngineConfig, Event, Output, TriggerMethod};
use std::time::Duration;

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
    /// Dispatch to a real carrier over ISO 22133: NAME=HOST[:TCP_PORT] (UDP = TCP − 1) or
    /// NAME=HOST:TCP:UDP, one per carrier of the scenario. Runs paced in real time (needs a
    /// --speed factor), arms the carriers before the first sample and sends STRT at the
    /// predicted instant. Repeatable.
    #[arg(long = "carrier", value_name = "NAME=HOST[:PORT]")]
    pub carriers: Vec<String>,
    /// Live dispatch: how long the carriers may take to connect and to arm, ms.
    #[arg(long, default_value_t = 5000)]
    pub arm_timeout_ms: u64,
    /// Live dispatch: wake the trigger timer this early (file replays only), so STRT leaves
    /// exactly at the predicted instant, ms.
    #[arg(long, default_value_t = 5.0)]
    pub strt_lead_ms: f64,
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
            carriers: Vec::new(),
            arm_timeout_ms: 5000,
            strt_lead_ms: 5.0,
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
    if !a.carriers.is_empty() {
        return run_live(a);
    }
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

/// The live configuration of these arguments.
pub fn live_config(a: &ReplayArgs) -> anyhow::Result<LiveConfig> {
    let Speed::Factor(speed) = a.speed else {
        anyhow::bail!("--carrier needs a real-time pace: --speed 1 (or another factor), not max");
    };
    if a.stale_limit_ms <= 0.0 {
        anyhow::bail!("--carrier needs a stale-telemetry limit: --stale-limit-ms > 0");
    }
    if !(a.strt_lead_ms >= 0.0 && a.strt_lead_ms < 1000.0) {
        anyhow::bail!("--strt-lead-ms must be in [0, 1000)");
    }
    Ok(LiveConfig {
        carriers: a.carriers.clone(),
        speed,
        connect_timeout: Duration::from_millis(a.arm_timeout_ms),
        arm_timeout: Duration::from_millis(a.arm_timeout_ms),
        telemetry_stale_s: a.stale_limit_ms / 1000.0,
        strt_lead: Duration::from_secs_f64(a.strt_lead_ms / 1000.0),
        ..LiveConfig::default()
    })
}

/// `scil replay … --carrier NAME=HOST[:PORT]`: real-time replay dispatching real carriers.
fn run_live(a: ReplayArgs) -> anyhow::Result<ExitCode> {
    let cfg = live_config(&a)?;
    let setup = ReplaySetup::load(&a.scenario, a.map.as_deref(), a.engine_config())?;
    let opts = CsvReplay {
        csv: a.csv.clone(),
        columns: a.columns.clone(),
        on_bad_row: a.on_bad_row,
        speed: a.speed,
    };
    let show_events = a.events && !a.json;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let result = rt.block_on(replay_csv_live(
        &setup,
        &a.scenario,
        a.map.as_deref(),
        &opts,
        &cfg,
        &mut |o| {
            if show_events {
                if let Output::Event(e) = o {
                    if !matches!(e, Event::TriggerScheduled { .. }) {
                        println!("  event {}", serde_json::to_string(e).unwrap_or_default());
                    }
                }
            }
        },
    ))?;
    if a.json {
        println!("{}", serde_json::to_string(&result)?);
    } else {
        print!("{}", report(&result.run, &a));
        print!("{}", live_report(&result));
    }
    Ok(
        if result.run.aborted.is_some() || result.dispatch.abort.is_some() {
            ExitCode::from(3)
        } else {
            ExitCode::SUCCESS
        },
    )
}

/// The carrier part of a live run's readable report.
pub fn live_report(r: &LiveRunResult) -> String {
    use std::fmt::Write;
    let opt =
        |x: Option<f64>, p: usize| x.map(|v| format!("{v:.p$}")).unwrap_or_else(|| "-".into());
    let mut s = String::new();
    let _ = writeln!(
        s,
        "dispatch armed after {:.3} s, final phase {:?}{}",
        r.dispatch.armed_after_s,
        r.dispatch.final_phase,
        r.dispatch
            .abort
            .as_ref()
            .map(|a| format!(", ABORT: {a}"))
            .unwrap_or_default()
    );
    for c in &r.carriers {
        let states: Vec<String> = c
            .report
            .states_seen
            .iter()
            .map(|x| format!("{:?}@{:.3}", x.state, x.t_s))
            .collect();
        let _ = writeln!(
            s,
            "carrier  {:<10} states {}",
            c.report.carrier,
            states.join(" → ")
        );
        let _ = writeln!(
            s,
            "         STRT sent {} s (predicted {} s, {} ms off), decision→STRT {} µs, scheduled→STRT {} µs",
            opt(c.report.strt_sent_s, 4),
            opt(c.predicted_start_s, 4),
            opt(c.strt_vs_predicted_ms, 3),
            opt(c.decision_to_strt_us, 0),
            opt(c.report.strt_latency_us, 0),
        );
        let _ = writeln!(
            s,
            "         MONR travel at impact {} m (simulated {} m, {} m off), {} MONR, max speed {:.2} m/s",
            opt(c.report.travel_at_impact_m, 4),
            opt(c.sim_dummy_travel_m, 4),
            opt(c.travel_error_m, 4),
            c.report.monr_count,
            c.max_monr_speed_mps
        );
        for rt in &c.retimes {
            let _ = writeln!(
                s,
                "         retime {} → origin {:.4} s ({:+.2} ms; MTSP not sent)",
                rt.target, rt.origin_s, rt.correction_ms
            );
        }
    }
    s
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
