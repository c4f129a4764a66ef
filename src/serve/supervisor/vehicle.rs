//! The simulated-VUT source of a service run (`{"kind":"sim_vut", …}`). The simulated VUT is a co-simulation peer of the run's session
//! ([`crate::sim::drive`]): its feed goes through the same session as a replay's, with the
//! service's sinks, paced at the run's speed; its vehicle task steps beside the session.

use std::sync::Arc;

use crate::run::cosim::OutputsSink;
use crate::run::source::inject::Injection;
use crate::run::{Feed, RunSetup, Session};
use crate::sim::SimOptions;

/// The simulated VUT of an armed run: its vehicle task and the sink that closes its loop.
pub struct Vehicle {
    outputs: OutputsSink,
    task: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
    injection: Injection,
    /// The forward collision warning, once the vehicle gave it.
    warning: Arc<std::sync::Mutex<Option<crate::run::WarningRecord>>>,
}

impl Vehicle {
    /// Adds the loop's sink to `session` and starts the vehicle task (it ends by itself once
    /// the session has dropped its feed); the warning's slot goes into the run's report.
    pub fn spawn(self, session: &mut Session) -> (tokio::task::JoinHandle<()>, WarningSlot) {
        session.add_sink(Box::new(self.outputs));
        (tokio::spawn(self.task), WarningSlot(self.warning))
    }
}

/// Where the simulated VUT's forward collision warning is recorded.
pub struct WarningSlot(Arc<std::sync::Mutex<Option<crate::run::WarningRecord>>>);

impl WarningSlot {
    /// Puts the warning (if the vehicle gave one) into the run's report.
    pub fn fill(&self, report: &mut crate::run::RunReport) {
        if report.warning.is_none() {
            report.warning = self.0.lock().ok().and_then(|w| *w);
        }
    }
}

/// Arms a `sim_vut` run: the vehicle at its start, its feed and its task.
pub fn drive(setup: &Arc<RunSetup>, opts: &SimOptions) -> (Feed, Vehicle) {
    let d = crate::sim::drive(setup, opts);
    let vehicle = Vehicle {
        outputs: d.outputs,
        task: d.vehicle,
        injection: opts.injection,
        warning: d.warning,
    };
    (d.feed, vehicle)
}

/// The sample injection the simulated VUT asks for (a noise model of its source), which
/// the run's live parameters take over.
pub(super) fn injection_of(vehicle: Option<&Vehicle>) -> Injection {
    vehicle.map_or_else(Injection::default, |v| v.injection)
}
