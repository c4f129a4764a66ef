//! MCAP recording of a run: every VUT sample and engine output written through
//! [`McapRecorder`] with Foxglove well-known schemas, log times from the sample time base.
//!
//! The file is created at arm time (an unwritable path fails the run before anything moves)
//! and finished at close. A write error mid-run (disk full) stops the recording, never the run:
//! the report's `recording` block names the error and how many samples made it to the file.

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

use futures_util::future::BoxFuture;

use super::{ArmCtx, Sink, SinkCtx};
use crate::record::messages::Encoder;
use crate::record::McapRecorder;
pub use crate::run::report::RecordingReport;
use crate::run::report::{RunEnd, RunReport};
use crate::sample::Sample;
use crate::scenario::engine::{Engine, Output};

/// Records the run to an MCAP file.
pub struct McapSink {
    path: PathBuf,
    rec: Option<McapRecorder<BufWriter<File>>>,
    samples: u64,
    error: Option<String>,
    virtual_targets: Vec<String>,
}

impl McapSink {
    pub fn new(path: impl Into<PathBuf>) -> McapSink {
        McapSink {
            path: path.into(),
            rec: None,
            samples: 0,
            error: None,
            virtual_targets: Vec::new(),
        }
    }

    /// Marks `targets` as existing only in the twin on the OSI channel.
    pub fn with_virtual(mut self, targets: Vec<String>) -> McapSink {
        self.virtual_targets = targets;
        self
    }

    fn fail(&mut self, what: &str, e: anyhow::Error) {
        tracing::warn!("{}: recording stopped: {what}: {e:#}", self.path.display());
        if let Some(rec) = self.rec.take() {
            self.samples = rec.samples();
            // Best effort: an MCAP without its summary is still readable up to its last chunk.
            let _ = rec.finish();
        }
        self.error = Some(format!("{what}: {e:#}"));
    }
}

impl Sink for McapSink {
    fn name(&self) -> &'static str {
        "mcap"
    }

    fn arm<'a>(&'a mut self, ctx: ArmCtx<'a>) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .map_err(|e| anyhow::anyhow!("{}: cannot create: {e}", dir.display()))?;
            }
            let enc = Encoder::new(Some(&ctx.setup.scenario), ctx.setup.map.as_deref());
            let osi = crate::osi::OsiEncoder::new(
                &ctx.setup.scenario,
                ctx.setup.map.as_deref(),
                &self.virtual_targets,
            );
            self.rec = Some(McapRecorder::create(&self.path, enc)?.with_osi(osi)?);
            Ok(())
        })
    }

    fn sample(&mut self, _ctx: &SinkCtx<'_>, engine: &Engine, s: &Sample) {
        if let Some(rec) = self.rec.as_mut() {
            if let Err(e) = rec.sample(engine, s) {
                self.fail("write failed", e);
            }
        }
    }

    fn output(&mut self, _ctx: &SinkCtx<'_>, o: &Output) {
        if let Some(rec) = self.rec.as_mut() {
            if let Err(e) = rec.output(o) {
                self.fail("write failed", e);
            }
        }
    }

    fn close<'a>(&'a mut self, _end: &'a RunEnd, report: &'a mut RunReport) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Some(rec) = self.rec.take() {
                self.samples = rec.samples();
                match rec.finish() {
                    Ok(mut w) => {
                        if let Err(e) = std::io::Write::flush(&mut w) {
                            self.error = Some(format!("finish failed: {e}"));
                        }
                    }
                    Err(e) => self.error = Some(format!("finish failed: {e:#}")),
                }
            }
            report.recording = Some(RecordingReport {
                path: self.path.display().to_string(),
                samples: self.samples,
                bytes: std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0),
                error: self.error.take(),
            });
        })
    }
}
