//! ASAM OSI out of a run: one `osi3.SensorView` per VUT sample ([`crate::osi`]), written to a
//! trace file and/or handed to a live stream ([`OsiFeed`]).
//!
//! Like the MCAP recording, the file is created at arm time (an unwritable path fails the run
//! before anything moves) and a write error mid-run stops the trace, never the run: the
//! report's `osi` block names the error and how many messages made it.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use futures_util::future::BoxFuture;

use super::{ArmCtx, Sink, SinkCtx};
use crate::osi::{osi3, trace, Frame, OsiEncoder};
use crate::run::report::{RunEnd, RunReport};
use crate::sample::Sample;
use crate::scenario::engine::Engine;

/// Somewhere each SensorView goes besides the file (a live stream). Called on the run's task:
/// it must not block.
pub trait OsiFeed: Send {
    fn message(&mut self, encoder: &OsiEncoder, view: &osi3::SensorView);
    /// The run ended.
    fn close(&mut self) {}
}

/// Writes the run as OSI (see the module doc).
pub struct OsiSink {
    path: Option<PathBuf>,
    virtual_targets: Vec<String>,
    feeds: Vec<Box<dyn OsiFeed>>,
    enc: Option<OsiEncoder>,
    targets: Vec<String>,
    file: Option<BufWriter<File>>,
    buf: Vec<u8>,
    messages: u64,
    error: Option<String>,
}

impl OsiSink {
    /// A sink writing the trace file `path` (none: feeds only); `virtual_targets` are marked
    /// as existing only in the twin.
    pub fn new(path: Option<PathBuf>, virtual_targets: Vec<String>) -> OsiSink {
        OsiSink {
            path,
            virtual_targets,
            feeds: Vec::new(),
            enc: None,
            targets: Vec::new(),
            file: None,
            buf: Vec::new(),
            messages: 0,
            error: None,
        }
    }

    /// Also hands every message to `feed`.
    pub fn with_feed(mut self, feed: Box<dyn OsiFeed>) -> OsiSink {
        self.feeds.push(feed);
        self
    }

    fn fail(&mut self, what: &str, e: std::io::Error) {
        if let Some(p) = &self.path {
            tracing::warn!("{}: OSI trace stopped: {what}: {e}", p.display());
        }
        self.file = None;
        self.error = Some(format!("{what}: {e}"));
    }
}

impl Sink for OsiSink {
    fn name(&self) -> &'static str {
        "osi"
    }

    fn arm<'a>(&'a mut self, ctx: ArmCtx<'a>) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            if let Some(path) = &self.path {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| anyhow::anyhow!("{}: cannot create: {e}", dir.display()))?;
                }
                let f = File::create(path)
                    .map_err(|e| anyhow::anyhow!("{}: cannot create: {e}", path.display()))?;
                self.file = Some(BufWriter::new(f));
            }
            let enc = OsiEncoder::new(
                &ctx.setup.scenario,
                ctx.setup.map.as_deref(),
                &self.virtual_targets,
            );
            self.targets = enc.target_ids();
            self.enc = Some(enc);
            Ok(())
        })
    }

    fn sample(&mut self, _ctx: &SinkCtx<'_>, engine: &Engine, s: &Sample) {
        if *s.vehicle != *engine.config().vut_id {
            return;
        }
        let Some(enc) = self.enc.as_mut() else {
            return;
        };
        let view = enc.sensor_view(&Frame::from_engine(engine, s, &self.targets));
        self.messages += 1;
        for f in &mut self.feeds {
            f.message(enc, &view);
        }
        if let Some(file) = self.file.as_mut() {
            self.buf.clear();
            trace::push(&mut self.buf, &view);
            if let Err(e) = file.write_all(&self.buf) {
                self.fail("write failed", e);
            }
        }
    }

    fn close<'a>(&'a mut self, _end: &'a RunEnd, report: &'a mut RunReport) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            for f in &mut self.feeds {
                f.close();
            }
            if let Some(mut file) = self.file.take() {
                if let Err(e) = file.flush() {
                    self.fail("finish failed", e);
                }
            }
            let (ma, mi, pa) = crate::osi::VERSION;
            report.osi = Some(crate::run::report::OsiReport {
                path: self.path.as_ref().map(|p| p.display().to_string()),
                messages: self.messages,
                bytes: self
                    .path
                    .as_ref()
                    .and_then(|p| std::fs::metadata(p).ok())
                    .map_or(0, |m| m.len()),
                version: format!("{ma}.{mi}.{pa}"),
                error: self.error.take(),
            });
        })
    }
}
