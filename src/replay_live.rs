//! Real-time replay wired to real carrier dispatch (ISO 22133 through the control centre).
//!
//! The same sans-IO [`Engine`] as the synchronous [`crate::replay::drive`]; only the shell
//! differs: samples arrive on a tokio channel (a CSV reader thread, or later a live INS link),
//! engine timers are slept with tokio at the wall instant mapped from sample time
//! ([`LiveDispatch::wall`]), every VUT sample feeds the control centre's stale-telemetry rule,
//! and engine commands become control-centre calls:
//!
//! * `Command::Start` → [`LiveDispatch::start`] → `start_at(wall(at_s))`: the carrier task's own
//!   timer puts STRT on the wire at the predicted instant, not at the next sample. When the
//!   next sample is already known (file replay), the engine's trigger timer is woken
//!   [`LiveConfig::strt_lead`] early, so the decision is made before the instant and the STRT
//!   timer is not late by the tokio timer granularity. (Early waking is safe there: the held
//!   sample is later than the instant, so nothing can arrive that would change the decision.)
//! * `Command::Start` of a second target starts its own carrier (`start_carrier_at`).
//! * `Command::Retime` → [`LiveDispatch::retime`] → MTSP to the target's carrier with the new
//!   profile origin (wall instant mapped from `origin_s`; see `dispatch::control_centre`).
//! * `Command::Abort` → abort every carrier (HEAB ABORT); the run stops.
//! * An abort raised by the control centre itself (stale telemetry, lost MONR, disconnect, a
//!   carrier aborting) aborts the engine and stops the run.
//!
//! At the end of the input: HEAB NORMAL_STOP (or DISARM when nothing was started), wait for
//! the carriers to leave RUNNING, and report per carrier (states seen, STRT timing, MONR travel
//! at the engine's impact instant against the engine's simulated-dummy figure).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::mpsc;

use crate::dispatch::control_centre::{
    ControlCentre, ControlCentreConfig, ControlCentreHandle, GeoOrigin,
};
use crate::dispatch::events::{DispatchEvent, EventKind, Phase};
use crate::dispatch::iso22133::ObjectState;
use crate::dispatch::live::{
    carrier_reports, carriers_from_scenario, georeference_of_map, origin_from_georeference,
    read_scenario, CarrierReport, LiveDispatch,
};
use crate::dispatch::safety::SafetyConfig;
use crate::frame::Interface;
use crate::ingest::csv::CsvSource;
use crate::replay::{CsvReplay, Recorder, ReplayError, ReplaySetup, RunResult, Speed};
use crate::run_driver::{drive, DriveConfig, Pace};
pub use crate::run_driver::{LiveDrive, RetimeRecord, StartRecord};
use crate::sample::InsSample;
use crate::scenario::engine::{Engine, Output};

/// Options of a live (dispatching) replay.
#[derive(Debug, Clone)]
pub struct LiveConfig {
    /// `NAME=HOST[:PORT]` (or `NAME=HOST:TCP:UDP`), one per carrier of the scenario.
    pub carriers: Vec<String>,
    /// Real-time factor (1 = as recorded). The carriers move in real time, so the MONR travel
    /// at impact is only comparable with the engine's figure at 1.
    pub speed: f64,
    /// How long the carriers may take to connect and report DISARMED + ready-to-arm.
    pub connect_timeout: Duration,
    /// How long arming may take (every carrier ARMED and ready).
    pub arm_timeout: Duration,
    /// Control-centre stale-telemetry limit (wall time without a VUT sample).
    pub telemetry_stale_s: f64,
    /// Wake the engine's trigger timer this early when the next sample is already known.
    pub strt_lead: Duration,
    /// After the run: how long to wait for the carriers to leave RUNNING.
    pub stop_timeout: Duration,
    /// MONR/HEAB rates requested in OSEM.
    pub monr_rate_hz: u16,
    pub heab_rate_hz: u16,
    /// Consecutive missing MONR that abort the run.
    pub monr_miss_limit: u32,
}

impl Default for LiveConfig {
    fn default() -> Self {
        LiveConfig {
            carriers: Vec::new(),
            speed: 1.0,
            connect_timeout: Duration::from_secs(10),
            arm_timeout: Duration::from_secs(5),
            telemetry_stale_s: 0.2,
            strt_lead: Duration::from_millis(5),
            stop_timeout: Duration::from_secs(1),
            monr_rate_hz: 100,
            heab_rate_hz: 100,
            monr_miss_limit: 10,
        }
    }
}

/// Per-carrier block of the JSON result.
#[derive(Debug, Clone, Serialize)]
pub struct LiveCarrier {
    #[serde(flatten)]
    pub report: CarrierReport,
    /// Target(s) this carrier moves.
    pub targets: Vec<String>,
    /// Engine's predicted start instant (sample time base).
    pub predicted_start_s: Option<f64>,
    /// STRT written − predicted instant, ms (wall clock mapped to sample time).
    pub strt_vs_predicted_ms: Option<f64>,
    /// Engine decision (Command::Start handled) → STRT written, µs. With a lead the decision
    /// precedes the instant, so this includes the wait until the instant.
    pub decision_to_strt_us: Option<f64>,
    /// The engine's simulated dummy travel at impact (`impacts[].dummy_travel_m`).
    pub sim_dummy_travel_m: Option<f64>,
    /// MONR travel at impact − simulated travel, m.
    pub travel_error_m: Option<f64>,
    /// Largest MONR speed seen while RUNNING, m/s (shows motion).
    pub max_monr_speed_mps: f64,
    pub retimes: Vec<RetimeRecord>,
}

/// Dispatch-side facts of the run.
#[derive(Debug, Clone, Serialize)]
pub struct DispatchSummary {
    /// Wall-clock seconds from the control centre's start to ARMED.
    pub armed_after_s: f64,
    /// Why the control centre aborted (its own rule or the engine's command), if it did.
    pub abort: Option<String>,
    /// Abort sent − last VUT sample delivered, ms (wall).
    pub abort_after_last_sample_ms: Option<f64>,
    pub final_phase: Phase,
    pub starts: Vec<StartRecord>,
    pub events: Vec<DispatchEvent>,
}

/// Result of a live replay: the replay result's keys unchanged, plus `carriers` and `dispatch`.
#[derive(Debug, Clone, Serialize)]
pub struct LiveRunResult {
    #[serde(flatten)]
    pub run: RunResult,
    pub carriers: Vec<LiveCarrier>,
    pub dispatch: DispatchSummary,
}

/// Drives `engine` from `samples` in real time (× `live`'s speed) and dispatches its commands.
/// `speed` must be the one `live` was made with. The channel closing ends the run; a sample
/// error stops it with the error. The carriers must
/// be armed already. `on_output` sees every engine output. This is [`crate::run_driver::drive`]
/// (the driver of every `scil serve` run) at a recorded pace with dispatch.
pub async fn drive_live<E: Into<ReplayError>>(
    samples: &mut mpsc::Receiver<Result<InsSample, E>>,
    interface: &Interface,
    engine: &mut Engine,
    live: &mut LiveDispatch,
    speed: f64,
    strt_lead: Duration,
    on_output: &mut dyn FnMut(Output),
) -> Result<LiveDrive, ReplayError> {
    let cfg = DriveConfig {
        pace: Pace::Recorded(Speed::Factor(if speed > 0.0 { speed } else { 1.0 })),
        strt_lead,
        skip_bad_samples: false,
    };
    let mut hooks = |o: Output| on_output(o);
    let mut d = drive(
        samples,
        interface,
        engine,
        Some(live),
        None,
        &cfg,
        &mut hooks,
    )
    .await;
    match d.error.take() {
        Some(e) => Err(e),
        None => Ok(d),
    }
}

/// Control-centre configuration for a scenario and `--carrier` specs (OSEM origin from the
/// map's geoReference).
pub fn control_centre_config(
    scenario_path: &Path,
    map_override: Option<&Path>,
    cfg: &LiveConfig,
) -> anyhow::Result<ControlCentreConfig> {
    let sd = read_scenario(scenario_path)?;
    let carriers = carriers_from_scenario(&sd, &cfg.carriers)?;
    let map: Option<PathBuf> = map_override.map(Path::to_path_buf).or(sd.map.clone());
    let origin = match map.as_deref().and_then(georeference_of_map) {
        Some(g) => origin_from_georeference(&g).unwrap_or_else(|| {
            tracing::warn!("geoReference without +lat_0/+lon_0: OSEM origin 0/0");
            GeoOrigin::default()
        }),
        None => {
            tracing::warn!("no map geoReference: OSEM origin 0/0");
            GeoOrigin::default()
        }
    };
    Ok(ControlCentreConfig {
        origin,
        monr_rate_hz: cfg.monr_rate_hz,
        heab_rate_hz: cfg.heab_rate_hz,
        carriers,
        safety: SafetyConfig {
            telemetry_stale_s: cfg.telemetry_stale_s,
            monr_miss_limit: cfg.monr_miss_limit,
            arm_timeout_s: cfg.arm_timeout.as_secs_f64(),
            ..SafetyConfig::default()
        },
        ..ControlCentreConfig::default()
    })
}

/// Starts the control centre, waits until every carrier is connected, DISARMED and ready to
/// arm, and arms them (every carrier ARMED and ready). On failure the control centre is shut
/// down and the error names each carrier's state.
pub async fn connect_and_arm(
    cc: ControlCentreConfig,
    cfg: &LiveConfig,
) -> anyhow::Result<ControlCentreHandle> {
    let h = ControlCentre::spawn(cc)?;
    let describe = |h: &ControlCentreHandle| {
        h.snapshot()
            .carriers
            .iter()
            .map(|c| {
                format!(
                    "{}: connected {}, state {:?}, ready_to_arm {}",
                    c.name, c.connected, c.state, c.ready_to_arm
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let ready = h
        .wait_for(cfg.connect_timeout, |s| {
            s.carriers
                .iter()
                .all(|c| c.connected && c.ready_to_arm && c.state == Some(ObjectState::Disarmed))
        })
        .await;
    if !ready {
        let what = describe(&h);
        h.shutdown().await;
        anyhow::bail!(
            "carriers not connected/DISARMED/ready within {:.1} s: {what}",
            cfg.connect_timeout.as_secs_f64()
        );
    }
    if let Err(e) = h.arm(cfg.arm_timeout).await {
        let what = describe(&h);
        h.disarm();
        h.shutdown().await;
        anyhow::bail!("arming failed ({e}): {what}");
    }
    Ok(h)
}

/// Runs a live replay from a sample channel: connect and arm, drive, stop, report.
/// `skipped_rows` of the result is left 0 (the caller knows its source).
pub async fn run_live<E: Into<ReplayError>>(
    setup: &ReplaySetup,
    cc: ControlCentreConfig,
    cfg: &LiveConfig,
    samples: &mut mpsc::Receiver<Result<InsSample, E>>,
    on_output: &mut dyn FnMut(&Output),
) -> anyhow::Result<LiveRunResult> {
    let targets_of: Vec<(String, String)> = setup
        .scenario
        .targets
        .iter()
        .map(|t| {
            (
                t.id.clone(),
                t.carrier.clone().unwrap_or_else(|| t.id.clone()),
            )
        })
        .collect();
    let h = connect_and_arm(cc, cfg).await?;
    let armed_after_s = h.epoch().elapsed().as_secs_f64();
    let mut live = LiveDispatch::new(h.clone(), cfg.speed);
    let mut engine = setup.engine();
    let mut rec = Recorder::default();
    let driven = drive_live(
        samples,
        &setup.interface,
        &mut engine,
        &mut live,
        cfg.speed,
        cfg.strt_lead,
        &mut |o| {
            on_output(&o);
            rec.record(o);
        },
    )
    .await;
    let d = match driven {
        Ok(d) => d,
        Err(e) => {
            h.abort(&format!("replay error: {e}"));
            tokio::time::sleep(Duration::from_millis(50)).await;
            h.shutdown().await;
            return Err(anyhow::anyhow!("{e}"));
        }
    };

    // Normal end: NORMAL_STOP if running, DISARM if nothing started.
    let snap = crate::dispatch::live::stop_carriers(&h, d.aborted(), cfg.stop_timeout).await;
    let run = rec.result(d.samples, 0);

    let abort_event = snap.events.iter().find_map(|e| match &e.kind {
        EventKind::Abort { reason } => Some((e.t_s, reason.clone())),
        _ => None,
    });
    let abort_after_last_sample_ms = match (abort_event.as_ref(), d.last_sample_wall) {
        (Some((t, _)), Some(w)) => {
            let abort_wall = h.epoch() + Duration::from_secs_f64(t.max(0.0));
            Some(
                (abort_wall.saturating_duration_since(w).as_secs_f64()
                    - w.saturating_duration_since(abort_wall).as_secs_f64())
                    * 1000.0,
            )
        }
        _ => None,
    };

    let epoch = h.epoch();
    let mut carriers = Vec::new();
    for cs in &snap.carriers {
        let targets: Vec<String> = targets_of
            .iter()
            .filter(|(_, c)| *c == cs.name)
            .map(|(t, _)| t.clone())
            .collect();
        let impact = run
            .impacts
            .iter()
            .find(|i| targets.contains(&i.target) && i.time_s.is_some());
        let reports = carrier_reports(&snap, Some(&live), impact.and_then(|i| i.time_s));
        let Some(report) = reports.into_iter().find(|r| r.carrier == cs.name) else {
            continue;
        };
        let start = d.starts.iter().find(|s| {
            s.sent && (targets.contains(&s.target) || s.carrier.as_deref() == Some(&cs.name))
        });
        let predicted_start_s = start.map(|s| s.at_s);
        let strt_vs_predicted_ms = match (report.strt_sent_s, predicted_start_s) {
            (Some(sent), Some(p)) => Some((sent - p) / cfg.speed.max(1e-9) * 1000.0),
            _ => None,
        };
        let decision_to_strt_us = match (cs.strt_written_s, start.and_then(|s| s.decided_wall)) {
            (Some(w), Some(dw)) => {
                let written = epoch + Duration::from_secs_f64(w.max(0.0));
                Some(written.saturating_duration_since(dw).as_secs_f64() * 1e6)
            }
            _ => None,
        };
        let sim_dummy_travel_m = impact.and_then(|i| i.dummy_travel_m);
        let travel_error_m = match (report.travel_at_impact_m, sim_dummy_travel_m) {
            (Some(a), Some(b)) => Some(a - b),
            _ => None,
        };
        let max_monr_speed_mps = cs
            .track
            .iter()
            .filter(|p| p.4 == ObjectState::Running)
            .map(|p| p.3)
            .fold(0.0, f64::max);
        carriers.push(LiveCarrier {
            report,
            retimes: d
                .retimes
                .iter()
                .filter(|r| targets.contains(&r.target))
                .cloned()
                .collect(),
            targets,
            predicted_start_s,
            strt_vs_predicted_ms,
            decision_to_strt_us,
            sim_dummy_travel_m,
            travel_error_m,
            max_monr_speed_mps,
        });
    }
    let abort = d
        .cc_abort
        .as_ref()
        .map(|(_, r)| r.clone())
        .or_else(|| d.engine_abort.as_ref().map(|(_, r)| r.clone()))
        .or_else(|| abort_event.map(|(_, r)| format!("{r:?}")));
    let result = LiveRunResult {
        run,
        carriers,
        dispatch: DispatchSummary {
            armed_after_s,
            abort,
            abort_after_last_sample_ms,
            final_phase: snap.phase,
            starts: d.starts,
            events: snap.events.clone(),
        },
    };
    h.shutdown().await;
    Ok(result)
}

/// Live replay of a CSV file: a reader thread feeds the samples, [`run_live`] does the rest.
pub async fn replay_csv_live(
    setup: &ReplaySetup,
    scenario_path: &Path,
    map_override: Option<&Path>,
    opts: &CsvReplay,
    cfg: &LiveConfig,
    on_output: &mut dyn FnMut(&Output),
) -> anyhow::Result<LiveRunResult> {
    if opts.speed == Speed::Max {
        anyhow::bail!("live dispatch needs a real-time pace: --speed 1 (or another factor)");
    }
    let cc = control_centre_config(scenario_path, map_override, cfg)?;
    // Open before arming: a bad file fails before any carrier moves.
    let mut src = CsvSource::open(&opts.csv, &opts.columns, opts.on_bad_row)?;
    let (tx, mut rx) = mpsc::channel::<Result<InsSample, ReplayError>>(1024);
    let reader = std::thread::spawn(move || {
        while let Some(item) = src.next_sample() {
            if tx.blocking_send(item.map_err(ReplayError::from)).is_err() {
                break;
            }
        }
        (
            src.skipped,
            src.skipped_errors
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>(),
        )
    });
    let res = run_live(setup, cc, cfg, &mut rx, on_output).await;
    drop(rx);
    let (skipped, errors) = reader
        .join()
        .map_err(|_| anyhow::anyhow!("CSV reader thread panicked"))?;
    let mut res = res?;
    res.run.skipped_rows = skipped;
    res.run.skipped = errors;
    Ok(res)
}
