//! A started run's drive, from the start to the settled result. The session gets the service's
//! sinks (stored telemetry, live stream, Foxglove, MCAP recording), then one of three drivers:
//!
//! - objects on the ground ([`super::ground`]): the ground layer runs the session beside the
//!   objects it armed;
//! - real carriers (ISO 22133 targets only): the run layer's carriers sink;
//! - no carriers: simulated carriers, and the simulated VUT stepping beside the session.
//!
//! A health ticker reports the sources once per second meanwhile; the run is settled (data,
//! then result, then terminal state) when the driver returns.

use std::sync::Arc;
use std::time::Duration;

use super::run::{ActiveRun, Prepared};
use super::settle::settle;
use super::sinks::{dispatch_observer, SimCarrierSink};
use super::Supervisor;
use crate::run::sink::carriers::{CarrierSink, DispatchObserver};
use crate::run::{LiveParams, Pace, RunReport, Session, SessionOptions, Sink};

/// Drives the run with a health ticker beside it, then settles it.
pub(super) async fn supervise(st: Supervisor, run: Arc<ActiveRun>, p: Prepared, speed: Pace) {
    let p = with_params(&run.params, p);
    let sinks = super::sinks::for_run(&st, &run, &p.setup);
    let observer = dispatch_observer(st.clone(), run.clone());
    let ticker = tokio::spawn(super::health::ticker(st.clone(), run.clone()));
    let ground = st.ground.get(&run.id);
    let real_carriers = ground.is_some() || p.carriers.is_some();
    let report = match ground {
        Some(g) => super::ground::drive(&st, &run, g, p.feed, sinks, observer).await,
        None => session(&st, &run, p, speed, sinks, observer).await,
    };
    ticker.abort();
    settle(&st, &run, report, real_carriers).await;
}

/// Every service run's feed gets an injection — zero (samples pass untouched) unless the
/// simulated VUT sets one — whose handle the run's live parameters hold, so that `noise.*` can
/// be changed while it runs.
fn with_params(params: &LiveParams, mut p: Prepared) -> Prepared {
    match p
        .feed
        .inject(super::vehicle::injection_of(p.vehicle.as_ref()))
    {
        Ok(h) => params.attach_injection(h),
        Err(e) => tracing::warn!("injection not attached: {e}"),
    }
    p
}

/// A session without objects on the ground: real ISO 22133 carriers for the targets, or
/// simulated ones; the simulated VUT (a `sim_vut` source) steps beside it.
async fn session(
    st: &Supervisor,
    run: &Arc<ActiveRun>,
    p: Prepared,
    speed: Pace,
    sinks: Vec<Box<dyn Sink>>,
    observer: DispatchObserver,
) -> RunReport {
    let live = p.feed.is_live();
    let mut session = Session::new(
        p.setup.clone(),
        p.feed,
        SessionOptions {
            pace: if live { Pace::Live } else { speed },
            strt_lead: if live || p.carriers.is_none() {
                Duration::ZERO
            } else {
                Duration::from_millis(5)
            },
            first_sample_timeout: live.then_some(st.config.limits.first_sample_timeout()),
            live: Some(run.params.clone()),
            // Results are stored and reported: keep the plots' time series.
            traces: true,
        },
    )
    .with_stop(run.stop.clone());
    // Real carriers' sink first, the simulated carriers after the service's sinks.
    let simulated = match p.carriers {
        Some(opts) => match CarrierSink::new(&p.setup, opts) {
            Ok(c) => {
                session.add_sink(Box::new(c.with_observer(observer)));
                None
            }
            Err(e) => {
                return RunReport {
                    error: Some(format!("carriers: {e:#}")),
                    ..RunReport::default()
                }
            }
        },
        None => {
            let sim: Vec<(String, String)> = p
                .setup
                .scenario
                .targets
                .iter()
                .filter_map(|t| t.carrier.clone().map(|c| (t.id.clone(), c)))
                .collect();
            Some(SimCarrierSink::new(st.clone(), run.clone(), sim))
        }
    };
    for s in sinks {
        session.add_sink(s);
    }
    if let Some(sim) = simulated {
        session.add_sink(Box::new(sim));
    }
    // The simulated VUT steps beside the session (it ends when the session drops its feed).
    let vehicle = p.vehicle.map(|v| v.spawn(&mut session));
    // Its own task, so a panic fails the run instead of leaving it running.
    let joined = tokio::spawn(session.run()).await;
    let mut report = joined.unwrap_or_else(|e| RunReport {
        error: Some(format!("run task panicked: {e}")),
        ..RunReport::default()
    });
    if let Some((v, warning)) = vehicle {
        v.abort();
        warning.fill(&mut report);
    }
    report
}
