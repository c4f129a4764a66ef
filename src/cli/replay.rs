//! `scil replay <CSV> --scenario <TOML> [--map XODR] [--speed max|N] [--json] [--carrier …]`:
//! one session on the run layer (`crate::run`).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use crate::ingest::csv::{BadRowPolicy, ColumnSpec};
use crate::run::session::is_chatter;
use crate::run::sink::carriers::{CarrierOptions, CarrierSink};
use crate::run::sink::events::FnSink;
use crate::run::{
    run_source, CanSpec, InsSpec, Pace, RunEnd, RunReport, RunSetup, SessionOptions, Sink, SinkCtx,
    SourceSpec,
};
use crate::scenario::engine::{EngineConfig, Output, TriggerMethod};

#[derive(Args, Debug, Clone)]
pub struct ReplayArgs {
    /// Recorded CSV (paper columns or OxTS NcomToCsv-style export), or an MCAP recording of
    /// scil's (`--mcap`, `GET /runs/{id}/export.mcap`): its VUT channel is replayed.
    pub csv: PathBuf,
    /// Scenario TOML.
    #[arg(long)]
    pub scenario: PathBuf,
    /// OpenDRIVE map (default: the scenario's `map`, relative to the scenario file).
    #[arg(long)]
    pub map: Option<PathBuf>,
    /// Pace: `max`, or a real-time factor (1 = as recorded, 4 = four times faster).
    #[arg(long, default_value = "max")]
    pub speed: Pace,
    /// One JSON object on stdout instead of the readable report.
    #[arg(long)]
    pub json: bool,
    /// Fire at the first sample past the threshold, as the seed paper did.
    #[arg(long)]
    pub trigger_at_sample: bool,
    /// Do not move the dummy's profile origin to the exact crossing after the fact.
    #[arg(long)]
    pub no_retime: bool,
    /// Closed-loop synchronisation: after the start, re-predict the VUT's arrival at every
    /// sample and adjust the target's remaining profile (retimes = ISO 22133 MTSP).
    #[arg(long)]
    pub sync: bool,
    /// What to do with a bad row.
    #[arg(long, value_enum, default_value_t = BadRowPolicy::Stop)]
    pub on_bad_row: BadRowPolicy,
    /// Explicit column mapping FIELD=COLUMN[:UNIT] (fields: time x y lat lon alt heading speed
    /// steering brake; units: s ms m deg rad m/s km/h mph). Repeatable.
    #[arg(long = "column", value_name = "FIELD=COLUMN[:UNIT]", value_parser = column_arg)]
    pub columns: Vec<String>,
    /// CAN log of the run (candump, Vector BLF or ASC, MDF4 bus logging), fused into the
    /// samples. Its times must meet the recording's: see --can-offset and --can-align.
    #[arg(long, requires = "dbc")]
    pub can_log: Option<PathBuf>,
    /// Seconds added to the CAN log's times (the recording's time at the log's 0), for a
    /// logger on another time base.
    #[arg(
        long,
        value_name = "SECONDS",
        requires = "can_log",
        allow_hyphen_values = true
    )]
    pub can_offset: Option<f64>,
    /// Find the CAN log's offset by matching a CAN speed signal to the INS speed
    /// (cross-correlation): speed=MESSAGE.SIGNAL, e.g. speed=WHEEL_SPEEDS.WHEEL_SPEED_FL.
    #[arg(
        long,
        value_name = "speed=MESSAGE.SIGNAL",
        requires = "can_log",
        conflicts_with = "can_offset"
    )]
    pub can_align: Option<String>,
    /// DBC that decodes --can-log.
    #[arg(long)]
    pub dbc: Option<PathBuf>,
    /// The DBC signal that carries the forward collision warning, MESSAGE.SIGNAL (≠ 0 = issued);
    /// its onset closes the validity window like an FCW column of the CSV.
    #[arg(long, value_name = "MESSAGE.SIGNAL", requires = "can_log")]
    pub can_fcw: Option<String>,
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
    /// Noise, dropout and latency injection on the source (seeded; zero = the plain replay).
    #[command(flatten)]
    pub inject: super::inject::InjectArgs,
    /// Record the run to this MCAP file (Foxglove schemas; open it in Foxglove/Lichtblick).
    #[arg(long, value_name = "FILE")]
    pub mcap: Option<PathBuf>,
    /// Keep per-sample time series in the result (`"traces"` in --json) for `scil report`'s
    /// plots: T0 − 1 s to the end of the validity window + 0.5 s, at most 100 Hz.
    #[arg(long)]
    pub traces: bool,
}

/// Checks a `--column` mapping at parse time; the source factory takes it as written.
fn column_arg(s: &str) -> Result<String, String> {
    s.parse::<ColumnSpec>()
        .map(|_| s.to_string())
        .map_err(|e| e.to_string())
}

impl ReplayArgs {
    /// The bundled demo: 30 km/h CPNA-75 run on the proving-ground map, real time.
    pub fn bundled(data: &Path) -> ReplayArgs {
        ReplayArgs {
            csv: data.join("replays/cpna75_30kmh.csv"),
            scenario: data.join("scenarios/cpna75_30kmh.toml"),
            map: None,
            speed: Pace::Factor(1.0),
            json: false,
            trigger_at_sample: false,
            no_retime: false,
            sync: false,
            on_bad_row: BadRowPolicy::Stop,
            columns: Vec::new(),
            can_log: None,
            can_offset: None,
            can_align: None,
            dbc: None,
            can_fcw: None,
            stale_limit_ms: 200.0,
            events: true,
            carriers: Vec::new(),
            arm_timeout_ms: 5000,
            strt_lead_ms: 5.0,
            inject: Default::default(),
            mcap: None,
            traces: false,
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
            sync: self.sync,
            stale_limit_s: (self.stale_limit_ms > 0.0).then_some(self.stale_limit_ms / 1000.0),
            ..EngineConfig::default()
        }
    }

    /// The source of this replay: the CSV, fused with a candump log when one is given.
    pub fn source_spec(&self) -> anyhow::Result<SourceSpec> {
        let mut spec = SourceSpec::ins(InsSpec::Csv {
            path: self.csv.clone(),
            columns: self.columns.clone(),
            on_bad_row: self.on_bad_row,
        });
        match (&self.can_log, &self.dbc) {
            (Some(log), Some(dbc)) => {
                spec.can = Some(CanSpec::Candump {
                    path: log.clone(),
                    dbc: dbc.display().to_string(),
                    offset_s: self.can_offset,
                    align: self.can_align.clone(),
                })
            }
            (Some(_), None) => anyhow::bail!("--can-log needs --dbc FILE"),
            (None, Some(_)) => anyhow::bail!("--dbc needs --can-log FILE"),
            (None, None) => {}
        }
        if let Some(sig) = &self.can_fcw {
            let Some((message, signal)) = sig
                .split_once('.')
                .filter(|(m, s)| !m.is_empty() && !s.is_empty())
            else {
                anyhow::bail!("--can-fcw {sig:?}: expected MESSAGE.SIGNAL, e.g. ADAS_STATUS.FCW");
            };
            spec.can_mapping.fcw = Some(crate::ingest::can::SignalRef::new(message, signal));
        }
        Ok(spec)
    }

    /// Carrier options of these arguments (`--carrier` given).
    pub fn carrier_options(&self) -> anyhow::Result<CarrierOptions> {
        if self.speed == Pace::Max {
            anyhow::bail!(
                "--carrier needs a real-time pace: --speed 1 (or another factor), not max"
            );
        }
        if self.stale_limit_ms <= 0.0 {
            anyhow::bail!("--carrier needs a stale-telemetry limit: --stale-limit-ms > 0");
        }
        if !(self.strt_lead_ms >= 0.0 && self.strt_lead_ms < 1000.0) {
            anyhow::bail!("--strt-lead-ms must be in [0, 1000)");
        }
        Ok(CarrierOptions {
            carriers: self.carriers.clone(),
            connect_timeout: Duration::from_millis(self.arm_timeout_ms),
            arm_timeout: Duration::from_millis(self.arm_timeout_ms),
            telemetry_stale_s: self.stale_limit_ms / 1000.0,
            ..CarrierOptions::default()
        })
    }
}

/// `scil replay`: one session on the run layer; `--carrier` adds the carriers sink.
pub fn run(a: ReplayArgs) -> anyhow::Result<ExitCode> {
    let setup = Arc::new(RunSetup::load(
        &a.scenario,
        a.map.as_deref(),
        a.engine_config(),
    )?);
    let spec = a.source_spec()?;
    let mut sinks: Vec<Box<dyn Sink>> = Vec::new();
    let mut opts = SessionOptions {
        pace: a.speed,
        traces: a.traces,
        ..SessionOptions::default()
    };
    if !a.carriers.is_empty() {
        sinks.push(Box::new(CarrierSink::new(&setup, a.carrier_options()?)?));
        opts.strt_lead = Duration::from_secs_f64(a.strt_lead_ms / 1000.0);
    }
    if a.events && !a.json {
        sinks.push(Box::new(FnSink(|o: &Output| {
            if let Output::Event(e) = o {
                if !is_chatter(e) {
                    println!("  event {}", serde_json::to_string(e).unwrap_or_default());
                }
            }
        })));
    }
    if let Some(path) = &a.mcap {
        sinks.push(Box::new(crate::run::sink::recording::McapSink::new(path)));
    }
    let progress = std::io::stdout().is_terminal() && std::io::stderr().is_terminal() && !a.json;
    if progress {
        sinks.push(Box::new(Progress::new(&a.csv)));
    }
    let rt = crate::run::runtime()?;
    let injection = a.inject.injection()?;
    let report = if injection.is_zero() {
        rt.block_on(run_source(setup, &spec, opts, sinks))?
    } else {
        rt.block_on(run_injected(setup, &spec, opts, sinks, injection))?
    };
    if let Some(e) = &report.error {
        anyhow::bail!("{e}");
    }
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{}", self::report(&report, &a));
        if report.carriers.is_some() {
            print!("{}", live_report(&report));
        }
    }
    Ok(if report.is_aborted() {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}

/// [`run_source`] with noise, dropout and latency injected into the feed.
pub async fn run_injected(
    setup: Arc<RunSetup>,
    spec: &SourceSpec,
    opts: SessionOptions,
    sinks: Vec<Box<dyn Sink>>,
    injection: crate::run::source::inject::Injection,
) -> Result<RunReport, crate::run::SourceError> {
    let ctx = crate::run::OpenCtx {
        vut_id: setup.vut_id(),
        dbc: &crate::run::source::dbc_from_path,
    };
    let mut feed = crate::run::source::open(spec, &ctx).await?;
    feed.inject(injection)
        .map_err(crate::run::SourceError::Other)?;
    let mut session = crate::run::Session::new(setup, feed, opts);
    for s in sinks {
        session.add_sink(s);
    }
    Ok(session.run().await)
}

/// A progress bar (by file position) on stderr for files over 1 MB.
struct Progress {
    size: u64,
    bytes_per_row: f64,
    rows: u64,
    last_pct: u64,
}

impl Progress {
    fn new(csv: &Path) -> Progress {
        let size = std::fs::metadata(csv).map(|m| m.len()).unwrap_or(0);
        Progress {
            size,
            bytes_per_row: 60.0,
            rows: 0,
            last_pct: u64::MAX,
        }
    }
}

impl Sink for Progress {
    fn name(&self) -> &'static str {
        "progress"
    }
    fn sample(
        &mut self,
        _ctx: &SinkCtx<'_>,
        _e: &crate::scenario::engine::Engine,
        _s: &crate::sample::Sample,
    ) {
        self.rows += 1;
        if self.size < 1_000_000 {
            return;
        }
        let pct = ((self.rows as f64 * self.bytes_per_row) as u64 * 100 / self.size).min(100);
        if pct != self.last_pct {
            self.last_pct = pct;
            let filled = (pct / 2) as usize;
            eprint!(
                "\r[{}{}] {pct:>3} %",
                "#".repeat(filled),
                " ".repeat(50 - filled.min(50))
            );
        }
    }
    fn close<'a>(
        &'a mut self,
        _end: &'a RunEnd,
        _r: &'a mut RunReport,
    ) -> futures_util::future::BoxFuture<'a, ()> {
        Box::pin(async move {
            if self.size >= 1_000_000 {
                eprintln!();
            }
        })
    }
}

/// The carrier part of a live run's readable report.
pub fn live_report(r: &RunReport) -> String {
    use std::fmt::Write;
    let opt =
        |x: Option<f64>, p: usize| x.map(|v| format!("{v:.p$}")).unwrap_or_else(|| "-".into());
    let mut s = String::new();
    if let Some(d) = &r.dispatch {
        let _ = writeln!(
            s,
            "dispatch armed after {:.3} s, final phase {:?}{}",
            d.armed_after_s,
            d.final_phase,
            d.abort
                .as_ref()
                .map(|a| format!(", ABORT: {a}"))
                .unwrap_or_default()
        );
    }
    for c in r.carriers.iter().flatten() {
        let states: Vec<String> = c
            .states_seen
            .iter()
            .map(|x| format!("{:?}@{:.3}", x.state, x.t_s))
            .collect();
        let _ = writeln!(
            s,
            "carrier  {:<10} states {}",
            c.carrier,
            states.join(" → ")
        );
        let _ = writeln!(
            s,
            "         STRT sent {} s (predicted {} s, {} ms off), decision→STRT {} µs, scheduled→STRT {} µs",
            opt(c.strt_sent_s, 4),
            opt(c.predicted_start_s, 4),
            opt(c.strt_vs_predicted_ms, 3),
            opt(c.decision_to_strt_us, 0),
            opt(c.strt_latency_us, 0),
        );
        let _ = writeln!(
            s,
            "         MONR travel at impact {} m (simulated {} m, {} m off), {} MONR, max speed {:.2} m/s",
            opt(c.travel_at_impact_m, 4),
            opt(c.sim_dummy_travel_m, 4),
            opt(c.travel_error_m, 4),
            c.monr_count,
            c.max_monr_speed_mps
        );
        for rt in &c.retimes {
            let _ = writeln!(
                s,
                "         retime {} → origin {:.4} s ({:+.2} ms; {})",
                rt.target,
                rt.origin_s,
                rt.correction_ms,
                if rt.mtsp_sent {
                    "MTSP sent"
                } else {
                    "MTSP not sent"
                }
            );
        }
    }
    s
}

/// A readable report of a run.
pub fn report(r: &RunReport, a: &ReplayArgs) -> String {
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
    if let Some(c) = &r.can {
        let _ = writeln!(s, "can      {}", c.describe());
    }
    if let Some(rec) = &r.recording {
        let _ = writeln!(
            s,
            "mcap     {}   {} samples, {} bytes{}",
            rec.path,
            rec.samples,
            rec.bytes,
            rec.error
                .as_deref()
                .map(|e| format!("   ERROR: {e}"))
                .unwrap_or_default()
        );
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
        if let (Some(v), Some(red)) = (i.impact_speed_kmh, i.speed_reduction_kmh) {
            let _ = writeln!(
                s,
                "         impact speed {v:.2} km/h   speed reduction {red:.2} km/h"
            );
        }
    }
    if let Some(v) = &r.validity {
        let _ = writeln!(
            s,
            "validity {}{}",
            if v.valid { "VALID" } else { "INVALID" },
            v.window
                .map(|w| format!("   window {:.3} – {:.3} s", w.from_s, w.to_s))
                .unwrap_or_default()
        );
        for c in &v.checks {
            let _ = writeln!(
                s,
                "         {:<18} {:<4} worst {:+.3}   limit {}{}",
                serde_json::to_value(c.channel)
                    .ok()
                    .and_then(|x| x.as_str().map(str::to_string))
                    .unwrap_or_default(),
                if c.ok { "ok" } else { "FAIL" },
                c.worst,
                c.limit,
                c.first_violation_s
                    .map(|t| format!("   first violation {t:.3} s"))
                    .unwrap_or_default()
            );
        }
        for w in &v.warnings {
            let _ = writeln!(s, "         warning: {w}");
        }
    }
    s
}
