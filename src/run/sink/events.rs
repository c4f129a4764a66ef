//! The simplest sinks: a closure over every output (the CLI's event log), and a recorder of
//! every output (tests, front ends that want the whole log).

use super::{Sink, SinkCtx};
use crate::scenario::engine::Output;

/// Calls `f` with every engine output.
pub struct FnSink<F: FnMut(&Output) + Send>(pub F);

impl<F: FnMut(&Output) + Send> Sink for FnSink<F> {
    fn name(&self) -> &'static str {
        "callback"
    }
    fn output(&mut self, _ctx: &SinkCtx<'_>, o: &Output) {
        (self.0)(o)
    }
}

/// Keeps every output, shared with the caller.
#[derive(Clone, Default)]
pub struct OutputLog(pub std::sync::Arc<std::sync::Mutex<Vec<Output>>>);

impl OutputLog {
    pub fn take(&self) -> Vec<Output> {
        self.0
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default()
    }
}

impl Sink for OutputLog {
    fn name(&self) -> &'static str {
        "output log"
    }
    fn output(&mut self, _ctx: &SinkCtx<'_>, o: &Output) {
        if let Ok(mut v) = self.0.lock() {
            v.push(o.clone());
        }
    }
}
