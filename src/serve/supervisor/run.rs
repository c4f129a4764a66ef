//! An active run as the supervisor keeps it, and the requests and stored forms around it:
//! where its telemetry comes from ([`RunSource`], [`StoredSource`]), its real carriers
//! ([`CarrierSpec`]), what arming prepared ([`Prepared`]) and the options of a new run
//! ([`NewRun`]).

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::broadcast;

use crate::ingest::can::CanMapping;
use crate::ingest::health::SourceHealth as IngestHealth;
use crate::run::sink::carriers::CarrierOptions;
use crate::run::{CanSpec, Feed, JsonTransport, Pace, RunSetup, RunState, StopHandle};
use crate::serve::context::Shared;
use crate::serve::history::History;
use crate::serve::hub::{frame, Frame, RUN_CHANNEL};
use crate::store::RunRow;

/// Where a run's INS telemetry comes from, as the API takes and stores it. Tagged by `kind`.
///
/// `csv_replay` names a registered recording (never a path); the others are live sources
/// bound when the run is armed and applied in real time (the run's speed does not apply).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunSource {
    /// A recorded CSV (bundled or uploaded) replayed at the run's speed.
    CsvReplay {
        replay_id: String,
        /// Original file name (display only; the file is stored under a generated name).
        file_name: String,
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
    /// The built-in simulated VUT with its AEB (`{"kind":"sim_vut","vut_speed_kmh":40,
    /// "aeb":{"ttc_s":1.2,"decel_mps2":8,"delay_ms":150}}`), paced at the run's speed.
    SimVut(crate::sim::SimOptions),
    /// The VUT robot's MONR (`{"kind":"monr","carrier":NAME}`): for sites where the robot's
    /// position is the VUT's; NAME is the run's carrier that drives the VUT.
    Monr { carrier: String },
}

impl RunSource {
    pub fn is_live(&self) -> bool {
        !matches!(self, RunSource::CsvReplay { .. } | RunSource::SimVut(_))
    }
}

/// The stored source of a run: the INS source and, optionally, the CAN source fused with it
/// (`dbc` names a DBC registered with the service).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredSource {
    #[serde(flatten)]
    pub ins: RunSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub can: Option<CanSpec>,
    /// The CAN signal mapping when not the default (e.g. with an FCW signal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub can_mapping: Option<CanMapping>,
    /// Closed-loop synchronisation of the targets (`"sync": true` on the run). Kept
    /// with the source so that the stored run says how it ran without a schema change.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sync: bool,
}

/// A real carrier of a run: `name` is the scenario's carrier name, `address` its ISO 22133
/// endpoint `HOST[:TCP_PORT]` (UDP port = TCP − 1) or `HOST:TCP_PORT:UDP_PORT`. With
/// `drives` (`"vut"` or a target id) it is an object on the ground: the VUT's robot or a
/// target's carrier, planned, armed as one and driven back to its start
/// ([`crate::dispatch::ground`]); `mobility` says how it drives back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CarrierSpec {
    pub name: String,
    pub address: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drives: Option<crate::dispatch::ground::Drives>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mobility: Option<crate::dispatch::ground::Mobility>,
    /// This object's own largest distance from its path, m (default: the site's
    /// `[ground] max_lateral_m`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_lateral_m: Option<f64>,
}

/// Source health counters, updated by the store sink, read by the health ticker.
#[derive(Debug, Default)]
pub struct SourceHealth {
    pub name: String,
    pub samples: u64,
    pub errors: u64,
    pub last: Option<Instant>,
}

/// What an armed run has ready.
pub struct Prepared {
    pub setup: Arc<RunSetup>,
    pub feed: Feed,
    pub carriers: Option<CarrierOptions>,
    /// The simulated VUT's vehicle task and its session sink (a `sim_vut` source).
    pub vehicle: Option<super::vehicle::Vehicle>,
}

/// A run that is not terminal yet.
pub struct ActiveRun {
    pub id: String,
    /// The run's row; the lock also serialises state transitions.
    pub row: tokio::sync::Mutex<RunRow>,
    pub tx: broadcast::Sender<Frame>,
    /// Stops the session (operator abort or finish).
    pub stop: StopHandle,
    pub prepared: Mutex<Option<Prepared>>,
    pub health: Mutex<SourceHealth>,
    /// Live source health (ingest counters, INS and CAN), when the source is live.
    pub ingest_health: Mutex<Vec<IngestHealth>>,
    /// Real carriers (ISO 22133) of the run.
    pub carriers: Vec<CarrierSpec>,
    /// The carrier addresses the run claimed at create (held until it is terminal).
    pub claims: Vec<crate::store::CarrierClaim>,
    /// Where the run is recorded to MCAP, when it is
    /// ([`crate::serve::shared_files::recording_path`]).
    pub recording: Option<std::path::PathBuf>,
    /// Set when the run reaches a terminal state (tests and the demo wait on it).
    pub done: tokio::sync::watch::Sender<bool>,
    /// Live parameters (`PATCH …/parameters`), in the session's options.
    pub params: crate::run::LiveParams,
    /// What the live stream has said so far (for clients that join late); its lock is held
    /// while a frame is recorded and broadcast.
    pub history: Mutex<History>,
    /// Telemetry rows handed to the writer (the run is `finished` only if all are stored).
    pub rows_sent: AtomicU64,
}

impl ActiveRun {
    pub fn new(
        row: RunRow,
        carriers: Vec<CarrierSpec>,
        claims: Vec<crate::store::CarrierClaim>,
        recording: Option<std::path::PathBuf>,
    ) -> ActiveRun {
        ActiveRun {
            id: row.id.clone(),
            row: tokio::sync::Mutex::new(row),
            tx: broadcast::channel(RUN_CHANNEL).0,
            stop: StopHandle::new(),
            prepared: Mutex::new(None),
            health: Mutex::new(SourceHealth::default()),
            ingest_health: Mutex::new(Vec::new()),
            carriers,
            claims,
            recording,
            done: tokio::sync::watch::channel(false).0,
            params: crate::run::LiveParams::new(),
            history: Mutex::new(History::default()),
            rows_sent: AtomicU64::new(0),
        }
    }

    /// Records a frame in the run's history and broadcasts it (serialised only when someone
    /// listens).
    pub fn send(&self, v: &Value) {
        let mut h = lock(&self.history);
        h.record(v);
        if self.tx.receiver_count() > 0 {
            let _ = self.tx.send(frame(v));
        }
    }

    /// The history so far and a receiver of every later frame, taken at one instant.
    pub fn join(&self) -> (History, broadcast::Receiver<Frame>) {
        let h = lock(&self.history);
        (h.clone(), self.tx.subscribe())
    }
}

/// Options of a new run.
#[derive(Debug, Clone)]
pub struct NewRun {
    pub scenario_id: String,
    pub map_id: Option<String>,
    pub source: RunSource,
    /// CAN fused with the INS source.
    pub can: Option<CanSpec>,
    /// Which DBC signals feed which fields (`None`: the default mapping).
    pub can_mapping: Option<CanMapping>,
    pub speed: Pace,
    /// Real carriers (ISO 22133); empty: the carriers are simulated (engine commands only).
    pub carriers: Vec<CarrierSpec>,
    /// Closed-loop synchronisation (also on when the scenario says `sync = true`).
    pub sync: bool,
    /// Record the run to `<storage_dir>/recordings/<id>.mcap` (served by `export.mcap`).
    pub record: bool,
    /// The track (one of the service's `tracks`; `None`: the default track).
    pub track: Option<String>,
    /// A run of the demo: on the demo's own track, marked `demo`.
    pub demo: bool,
}

pub fn speed_to_db(s: Pace) -> Option<f64> {
    match s {
        Pace::Factor(f) => Some(f),
        Pace::Max | Pace::Live => None,
    }
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

pub(super) fn set_state(st: &Shared, run: &ActiveRun, row: &mut RunRow, state: RunState) {
    row.state = state.as_str().to_string();
    run.send(&json!({"type": "state", "run_id": row.id, "state": state}));
    st.record_event(
        Some(&row.id),
        None,
        "state",
        &json!({"event": "state", "state": state}),
    );
}
