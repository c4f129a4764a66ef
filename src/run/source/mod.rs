//! The one source factory: a [`SourceSpec`] says where the VUT's telemetry comes from; [`open`]
//! turns it into a [`Feed`] the driver pulls samples from. `scil replay`, `scil listen` and
//! service runs all open their sources here.
//!
//! * Recorded (CSV file, optionally fused with a candump log): read in file order on a reader
//!   thread a few batches ahead (`prefetch`), pulled by the driver as it asks, paced by the
//!   run's clock; a bad row is the source's report (`file:line: reason`).
//! * Live (NCOM over UDP; JSON lines over UDP, TCP, WebSocket; optionally fused with CAN over
//!   cannelloni or SocketCAN): bound at open so health shows before the start; samples reach
//!   the driver only after [`Feed::start`] (earlier ones are discarded), and a full channel
//!   drops and counts instead of blocking the receive task.
//!
//! CAN is decoded through a DBC and mapped to twin fields ([`CanMapping`]: steering-wheel
//! angle, brake light, wheel speed). A recorded CAN log shares the INS time base and is fused
//! by timestamp ([`crate::ingest::fusion`]); a live bus has no common time base, so its latest
//! values fill each INS sample as it arrives.

pub mod inject;
mod live;
mod prefetch;
mod recorded;
pub mod stepped;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::ingest::can::{CanMapping, DbcDecoder};
use crate::ingest::csv::{BadRowPolicy, ColumnSpec, CsvError};
use crate::ingest::fusion::FusionMode;
use crate::ingest::health::{HealthSnapshot, SourceHealth};
use crate::sample::InsSample;

pub use live::LIVE_CHANNEL;

/// Where the INS (position, heading, speed) comes from. Tagged by `kind` in JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum InsSpec {
    /// A recorded file, told by its content: CSV (paper columns or an OxTS NcomToCsv-style
    /// export), ASAM MDF4 physical channels, a Racelogic VBOX file, or an MCAP recording of
    /// scil's (its VUT channel, in the map frame).
    Csv {
        path: PathBuf,
        /// Explicit column mapping `FIELD=COLUMN[:UNIT]` (see `scil replay --column`).
        #[serde(default)]
        columns: Vec<String>,
        #[serde(default)]
        on_bad_row: BadRowPolicy,
    },
    /// OxTS NCOM over UDP, e.g. `{"kind":"ncom","bind":"0.0.0.0:3000"}`.
    Ncom { bind: String },
    /// GeneSys ADMA (ADMAnet 3.3.3–3.3.5) over UDP, e.g. `{"kind":"adma","bind":"0.0.0.0:1040"}`.
    Adma { bind: String },
    /// JSON lines over UDP datagrams, a TCP server or a WebSocket server.
    Json {
        transport: JsonTransport,
        bind: String,
    },
    /// JSON lines from a WebSocket server (`ws://host:port/path`).
    JsonWsClient { url: String },
}

/// Transport of a JSON-lines source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JsonTransport {
    Udp,
    Tcp,
    Ws,
}

/// Where the VUT's CAN comes from, and the DBC that decodes it. Tagged by `kind` in JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CanSpec {
    /// cannelloni over UDP (default port 20000).
    Cannelloni { bind: String, dbc: String },
    /// A SocketCAN interface (Linux with AF_CAN).
    Socketcan { iface: String, dbc: String },
    /// A CAN log of a recorded run: candump, Vector ASC or BLF, MDF4 bus logging, told by its
    /// content. Its times are moved onto the INS time base by `offset_s`, or by the offset that
    /// matches `align` (`speed=MESSAGE.SIGNAL`) to the INS speed; see
    /// [`crate::ingest::can::timebase`].
    Candump {
        path: PathBuf,
        dbc: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        offset_s: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        align: Option<String>,
    },
}

impl CanSpec {
    pub fn dbc(&self) -> &str {
        match self {
            CanSpec::Cannelloni { dbc, .. }
            | CanSpec::Socketcan { dbc, .. }
            | CanSpec::Candump { dbc, .. } => dbc,
        }
    }

    pub fn is_live(&self) -> bool {
        !matches!(self, CanSpec::Candump { .. })
    }
}

/// A run's source: the INS, optionally fused with the VUT's CAN.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceSpec {
    pub ins: InsSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub can: Option<CanSpec>,
    /// How recorded CAN values are merged into INS samples (hold or interpolate).
    #[serde(default)]
    pub fusion: FusionMode,
    /// Which DBC signals feed which twin fields.
    #[serde(default)]
    pub can_mapping: CanMapping,
}

impl SourceSpec {
    pub fn ins(ins: InsSpec) -> SourceSpec {
        SourceSpec {
            ins,
            can: None,
            fusion: FusionMode::default(),
            can_mapping: CanMapping::default(),
        }
    }

    pub fn csv(path: impl Into<PathBuf>) -> SourceSpec {
        SourceSpec::ins(InsSpec::Csv {
            path: path.into(),
            columns: Vec::new(),
            on_bad_row: BadRowPolicy::Stop,
        })
    }

    /// Recorded data (paced by the run's speed) or live (real time).
    pub fn is_live(&self) -> bool {
        !matches!(self.ins, InsSpec::Csv { .. })
    }

    /// Checks what can be checked without binding or opening anything.
    pub fn validate(&self) -> Result<(), String> {
        let addr = |what: &str, a: &str| {
            if a.trim().is_empty() || !a.contains(':') {
                Err(format!("{what} bind must be HOST:PORT, got '{a}'"))
            } else {
                Ok(())
            }
        };
        match &self.ins {
            InsSpec::Csv { columns, .. } => {
                for c in columns {
                    c.parse::<ColumnSpec>()
                        .map_err(|e| format!("column mapping '{c}': {e}"))?;
                }
            }
            InsSpec::Ncom { bind } => addr("NCOM", bind)?,
            InsSpec::Adma { bind } => addr("ADMA", bind)?,
            InsSpec::Json { bind, .. } => addr("JSON", bind)?,
            InsSpec::JsonWsClient { url } => {
                if !(url.starts_with("ws://") || url.starts_with("wss://")) {
                    return Err(format!("WebSocket url must start with ws://, got '{url}'"));
                }
            }
        }
        match (&self.ins, &self.can) {
            (_, None) => {}
            (InsSpec::Csv { .. }, Some(c)) if c.is_live() => {
                return Err("a recorded CSV fuses with a recorded CAN log (candump), not a live bus".into())
            }
            (InsSpec::Csv { .. }, Some(CanSpec::Candump { offset_s, align, .. })) => {
                crate::ingest::can::timebase::CanTimebase {
                    offset_s: *offset_s,
                    align: align.clone(),
                }
                .align_signal()?;
                if offset_s.is_some_and(|o| !o.is_finite()) {
                    return Err("the CAN offset must be a finite number of seconds".into());
                }
            }
            (InsSpec::Csv { .. }, Some(_)) => {}
            (_, Some(CanSpec::Candump { .. })) => {
                return Err("a live INS source fuses with a live CAN source (cannelloni or socketcan), not a log".into())
            }
            (_, Some(CanSpec::Cannelloni { bind, .. })) => addr("cannelloni", bind)?,
            (_, Some(CanSpec::Socketcan { iface, .. })) => {
                if iface.trim().is_empty() {
                    return Err("socketcan interface name is empty".into());
                }
            }
        }
        Ok(())
    }
}

/// Why a source could not be opened or stopped delivering.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// A bad row of a recorded file (`file:line: reason`).
    #[error("{0}")]
    Csv(#[from] CsvError),
    /// A socket could not be bound.
    #[error("cannot bind the {what} source on {addr}: {source}")]
    Bind {
        what: &'static str,
        addr: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Other(String),
}

/// A sample in the map frame, or why there is none.
pub type MapItem = Result<crate::sample::Sample, SourceError>;

/// Converts an INS sample to the map frame; a sample the interface block cannot convert (a
/// WGS84 position on a map without a geo-reference) ends a recorded run with this error.
pub(crate) fn to_map_frame(iface: &crate::frame::Interface, s: InsSample) -> MapItem {
    let t = s.time_s;
    iface
        .into_map(s)
        .map_err(|e| SourceError::Other(format!("sample at t={t}: {e}")))
}

/// Samples per [`Feed::next_batch_now`] from feeds that are not read ahead.
const BATCH_NOW: usize = 256;

/// What opening a source needs besides its spec.
pub struct OpenCtx<'a> {
    /// Vehicle id of NCOM samples (the scenario's VUT).
    pub vut_id: &'a str,
    /// Resolves a spec's `dbc` (a file path for the CLI, a registered name for the service).
    pub dbc: &'a (dyn Fn(&str) -> Result<Arc<DbcDecoder>, String> + Send + Sync),
}

/// DBC resolution for the command line: `dbc` is a file path.
pub fn dbc_from_path(p: &str) -> Result<Arc<DbcDecoder>, String> {
    DbcDecoder::from_file(p)
        .map(Arc::new)
        .map_err(|e| format!("{p}: {e}"))
}

/// An opened source (see the module doc).
pub struct Feed {
    inner: FeedKind,
    /// Display name (`csv:FILE`, `ncom-udp:ADDR`, `… + cannelloni:ADDR`).
    pub name: String,
    /// Noise, dropout and latency injection, when set.
    inject: Option<inject::Injector>,
    /// The samples are in the map frame already (an MCAP recording): the interface block's
    /// origin shift and rotation are not applied again.
    map_frame: bool,
    /// The instant (sample time) the run began before its first sample, once known: a VUT
    /// robot's STRT, whose first RUNNING MONR reports up to one MONR period later.
    run_start: Option<std::sync::Arc<std::sync::OnceLock<f64>>>,
}

// One per run, moved once onto its reader: boxing the recorded source would save nothing.
#[allow(clippy::large_enum_variant)]
enum FeedKind {
    Recorded(recorded::Recorded),
    /// The same, read ahead on its own thread (see `prefetch`).
    Prefetched(prefetch::Prefetched),
    Live(live::Live),
    /// Samples made by the caller (a simulator, a converted recording, a test).
    Iter(Box<dyn Iterator<Item = Result<InsSample, SourceError>> + Send>),
    /// Samples pushed by the caller as they happen (a co-simulation peer, a test).
    Channel(tokio::sync::mpsc::Receiver<InsSample>),
    /// The same, each sample with the wall instant it describes (a test object's MONR: its
    /// own time stamp, not its arrival, which is its link's latency later).
    Stamped {
        rx: tokio::sync::mpsc::Receiver<crate::ingest::Received>,
        last: Option<tokio::time::Instant>,
    },
    /// Lock-step samples of a co-simulation peer (not live: the peer's time only).
    Stepped(stepped::Stepped),
}

/// Opens `spec`: a file is opened and its header read; live sockets are bound.
pub async fn open(spec: &SourceSpec, ctx: &OpenCtx<'_>) -> Result<Feed, SourceError> {
    spec.validate().map_err(SourceError::Other)?;
    let dbc = match &spec.can {
        Some(c) => Some((ctx.dbc)(c.dbc()).map_err(SourceError::Other)?),
        None => None,
    };
    if let Some(d) = &dbc {
        let missing = spec.can_mapping.missing_in(d);
        if !missing.is_empty() {
            return Err(SourceError::Other(format!(
                "the DBC defines no signal {}",
                missing.join(", ")
            )));
        }
    }
    if let InsSpec::Csv {
        path,
        columns,
        on_bad_row,
    } = &spec.ins
    {
        if crate::record::mcap::is_mcap(path) {
            return open_mcap(spec, path);
        }
        let columns: Vec<ColumnSpec> = columns
            .iter()
            .map(|c| c.parse::<ColumnSpec>())
            .collect::<Result<_, _>>()
            .map_err(|e| SourceError::Other(format!("column mapping: {e}")))?;
        let r = recorded::Recorded::open(
            path,
            &columns,
            *on_bad_row,
            spec.can.as_ref().zip(dbc),
            spec.fusion,
            spec.can_mapping.clone(),
        )?;
        let inner = match prefetch::Prefetched::start(r) {
            Ok(p) => FeedKind::Prefetched(p),
            Err(r) => FeedKind::Recorded(r),
        };
        let name = match &inner {
            FeedKind::Prefetched(p) => p.name(),
            FeedKind::Recorded(r) => r.name(),
            _ => String::new(),
        };
        return Ok(Feed {
            name,
            inner,
            inject: None,
            map_frame: false,
            run_start: None,
        });
    }
    let l = live::Live::open(spec, ctx.vut_id, dbc).await?;
    Ok(Feed {
        name: l.name.clone(),
        inner: FeedKind::Live(l),
        inject: None,
        map_frame: false,
        run_start: None,
    })
}

/// An MCAP recording's VUT channel (map-frame samples, in log-time order). A recorded CAN log
/// does not apply: the recording already carries the CAN-derived fields.
fn open_mcap(spec: &SourceSpec, path: &std::path::Path) -> Result<Feed, SourceError> {
    if spec.can.is_some() {
        return Err(SourceError::Other(format!(
            "{}: an MCAP recording carries its CAN fields already; no --can-log with it",
            path.display()
        )));
    }
    let src =
        crate::record::McapSource::open(path).map_err(|e| SourceError::Other(format!("{e:#}")))?;
    Ok(Feed {
        name: format!("mcap:{}", path.display()),
        inner: FeedKind::Iter(Box::new(
            src.map(|r| r.map_err(|e| SourceError::Other(format!("{e:#}")))),
        )),
        inject: None,
        map_frame: true,
        run_start: None,
    })
}

impl Feed {
    /// A recorded feed from samples the caller makes (paced like a file).
    pub fn from_iter(
        name: impl Into<String>,
        it: impl Iterator<Item = Result<InsSample, SourceError>> + Send + 'static,
    ) -> Feed {
        Feed {
            inner: FeedKind::Iter(Box::new(it)),
            name: name.into(),
            inject: None,
            map_frame: false,
            run_start: None,
        }
    }

    /// A live feed of samples the caller pushes (applied on arrival; ends when the sender
    /// is dropped).
    pub fn from_channel(
        name: impl Into<String>,
        rx: tokio::sync::mpsc::Receiver<InsSample>,
    ) -> Feed {
        Feed {
            inner: FeedKind::Channel(rx),
            name: name.into(),
            inject: None,
            map_frame: false,
            run_start: None,
        }
    }

    /// A live feed whose samples carry the wall instant they describe: the run's clock is
    /// anchored there rather than at their arrival, so that a start sent "at sample time t"
    /// is not late by the link's latency.
    pub fn from_stamped_channel(
        name: impl Into<String>,
        rx: tokio::sync::mpsc::Receiver<crate::ingest::Received>,
    ) -> Feed {
        Feed {
            inner: FeedKind::Stamped { rx, last: None },
            name: name.into(),
            inject: None,
            map_frame: false,
            run_start: None,
        }
    }

    /// The samples are in the map frame already (a test object's MONR): the interface
    /// block's origin shift and rotation are not applied.
    pub fn with_map_frame(mut self) -> Feed {
        self.map_frame = true;
        self
    }

    /// A lock-step feed of a co-simulation peer (see [`stepped`]): each step is acknowledged
    /// once the driver is done with it; time is the peer's only.
    pub fn from_steps(
        name: impl Into<String>,
        rx: tokio::sync::mpsc::Receiver<stepped::Step>,
    ) -> Feed {
        Feed {
            inner: FeedKind::Stepped(stepped::Stepped::new(rx)),
            name: name.into(),
            inject: None,
            map_frame: false,
            run_start: None,
        }
    }

    /// The run begins at the instant set in `cell` (sample time) before its first sample
    /// arrives: the engine is armed there rather than at the first sample (see
    /// [`Feed::run_start_s`]).
    pub fn with_run_start(mut self, cell: std::sync::Arc<std::sync::OnceLock<f64>>) -> Feed {
        self.run_start = Some(cell);
        self
    }

    /// The instant the run began, when the source knows one before its first sample (a VUT
    /// robot's STRT).
    pub fn run_start_s(&self) -> Option<f64> {
        self.run_start.as_ref().and_then(|c| c.get().copied())
    }

    /// True when the samples are in the map frame already (an MCAP recording).
    pub fn in_map_frame(&self) -> bool {
        self.map_frame
    }

    pub fn is_live(&self) -> bool {
        matches!(
            self.inner,
            FeedKind::Live(_) | FeedKind::Channel(_) | FeedKind::Stamped { .. }
        )
    }

    /// When the sample [`Feed::next`] returned last was received: the socket's instant for
    /// NCOM, the forwarder's for JSON, the instant a stamped sample describes; `None` for
    /// recorded and stepped feeds.
    pub fn received_at(&self) -> Option<tokio::time::Instant> {
        match &self.inner {
            FeedKind::Live(l) => l.received_at(),
            FeedKind::Stamped { last, .. } => *last,
            _ => None,
        }
    }

    /// From now on live samples reach the driver (earlier ones were discarded).
    pub fn start(&mut self) {
        if let FeedKind::Live(l) = &mut self.inner {
            l.start();
        }
    }

    /// Degrades this feed's samples (see [`inject`]); the handle changes the settings while
    /// the run goes on.
    pub fn inject(&mut self, inj: inject::Injection) -> Result<inject::InjectionHandle, String> {
        inj.validate()?;
        let (i, h) = inject::Injector::new(inj);
        self.inject = Some(i);
        Ok(h)
    }

    /// Samples the injection dropped.
    pub fn injected_drops(&self) -> u64 {
        self.inject.as_ref().map_or(0, |i| i.dropped)
    }

    /// The next sample; `None` at the end of a recording or when a live source closed.
    pub async fn next(&mut self) -> Option<Result<InsSample, SourceError>> {
        loop {
            let item = self.next_raw().await;
            match (item, self.inject.as_mut()) {
                (Some(Ok(s)), Some(inj)) => match inj.apply(s) {
                    Some(s) => return Some(Ok(s)),
                    None => continue,
                },
                (item, _) => return item,
            }
        }
    }

    /// The next sample without waiting, for feeds that never wait (recorded files, caller-made
    /// iterators); `None` for live feeds. Same samples as [`Feed::next`].
    pub fn next_now(&mut self) -> Option<Option<Result<InsSample, SourceError>>> {
        loop {
            let item = match &mut self.inner {
                FeedKind::Recorded(r) => r.next_sample(),
                FeedKind::Prefetched(p) => p.next_sample(),
                FeedKind::Iter(it) => it.next(),
                FeedKind::Live(_)
                | FeedKind::Channel(_)
                | FeedKind::Stamped { .. }
                | FeedKind::Stepped(_) => return None,
            };
            match (item, self.inject.as_mut()) {
                (Some(Ok(s)), Some(inj)) => match inj.apply(s) {
                    Some(s) => return Some(Some(Ok(s))),
                    None => continue,
                },
                (item, _) => return Some(item),
            }
        }
    }

    /// The next samples in the map frame, without waiting, into `out` (replacing what it
    /// held): the way a replay at `Max` pace reads. A file read ahead without injection is
    /// converted on its reader thread and handed over a whole batch at a time. `out` is left
    /// empty at the end of the feed, and an error is its last item; `None` for feeds that
    /// wait (live, pushed, stepped), as [`Feed::next_now`].
    pub fn next_batch_now(
        &mut self,
        iface: &crate::frame::Interface,
        out: &mut Vec<MapItem>,
    ) -> Option<()> {
        if let (FeedKind::Prefetched(p), None) = (&mut self.inner, &self.inject) {
            p.fill_map(iface, out);
            return Some(());
        }
        out.clear();
        while out.len() < BATCH_NOW {
            match self.next_now()? {
                None => break,
                Some(Ok(s)) => out.push(to_map_frame(iface, s)),
                Some(Err(e)) => {
                    out.push(Err(e));
                    break;
                }
            }
        }
        Some(())
    }

    async fn next_raw(&mut self) -> Option<Result<InsSample, SourceError>> {
        match &mut self.inner {
            FeedKind::Recorded(r) => r.next_sample(),
            FeedKind::Prefetched(p) => p.next_sample(),
            FeedKind::Live(l) => l.next().await,
            FeedKind::Iter(it) => it.next(),
            FeedKind::Channel(rx) => rx.recv().await.map(Ok),
            FeedKind::Stamped { rx, last } => {
                let r = rx.recv().await?;
                *last = Some(r.at);
                Some(Ok(r.sample))
            }
            FeedKind::Stepped(st) => st.next().await.map(Ok),
        }
    }

    /// Live sources' health counters (shared handles: they update while the run goes on).
    pub fn health(&self) -> Vec<SourceHealth> {
        match &self.inner {
            FeedKind::Recorded(r) => r.health(),
            FeedKind::Prefetched(p) => p.health(),
            FeedKind::Live(l) => l.health.clone(),
            FeedKind::Iter(_)
            | FeedKind::Channel(_)
            | FeedKind::Stamped { .. }
            | FeedKind::Stepped(_) => Vec::new(),
        }
    }

    /// Bound addresses of a live source (INS first).
    pub fn local_addrs(&self) -> Vec<SocketAddr> {
        match &self.inner {
            FeedKind::Live(l) => l.addrs.clone(),
            _ => Vec::new(),
        }
    }

    /// Rows/samples the source could not use, with the first reasons.
    pub fn skipped(&self) -> (u64, Vec<String>) {
        match &self.inner {
            FeedKind::Recorded(r) => r.skipped(),
            FeedKind::Prefetched(p) => p.skipped(),
            FeedKind::Live(l) => (l.dropped(), Vec::new()),
            FeedKind::Iter(_)
            | FeedKind::Channel(_)
            | FeedKind::Stamped { .. }
            | FeedKind::Stepped(_) => (0, Vec::new()),
        }
    }

    /// What the fusion of a recorded CAN log did so far.
    pub fn can_report(&self) -> Option<crate::ingest::can::timebase::CanFusionReport> {
        match &self.inner {
            FeedKind::Recorded(r) => r.can_report(),
            FeedKind::Prefetched(p) => p.can_report(),
            _ => None,
        }
    }

    /// Byte position in a recorded file (progress), and its size.
    pub fn progress(&self) -> Option<(u64, u64)> {
        match &self.inner {
            FeedKind::Recorded(r) => Some(r.progress()),
            FeedKind::Prefetched(p) => Some(p.progress()),
            _ => None,
        }
    }

    /// The source's block of the run report (live sources only).
    pub fn report(&self, bad_samples: u64) -> Option<SourceReport> {
        let FeedKind::Live(l) = &self.inner else {
            return None;
        };
        Some(SourceReport {
            name: self.name.clone(),
            addr: l.addrs.first().map(|a| a.to_string()),
            dropped: l.dropped(),
            bad_samples,
            health: l.health.iter().map(|h| h.snapshot()).collect(),
        })
    }
}

/// A live source's block of the run report.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SourceReport {
    pub name: String,
    pub addr: Option<String>,
    /// Samples dropped because the engine did not keep up.
    pub dropped: u64,
    /// Samples that could not be put on the map (or were implausible).
    pub bad_samples: u64,
    pub health: Vec<HealthSnapshot>,
}
