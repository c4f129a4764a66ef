//! Service configuration: one TOML file (`scil serve --config FILE`) plus environment
//! overrides. Every key has a default, so `scil serve` with no file runs on the bundled data,
//! SQLite in the working directory and 127.0.0.1:8080.
//!
//! ```toml
//! bind = "127.0.0.1:8080"
//! database_url = "sqlite://scil.db"        # or postgres://user:pass@host/db
//! storage_dir = "scil-data"                 # uploads are stored here under generated names
//! data_dir = "/usr/share/scil/data"         # bundled maps/scenarios/replays (default: built-in)
//! foxglove_bind = "127.0.0.1:8765"          # Foxglove/Lichtblick live view (default: off)
//! tracks = ["main"]                         # the proving ground's tracks; a run belongs to one
//! default_track = "main"                    # a run without `track` (default: the first)
//!
//! [demo]
//! track = "demo"                            # the demo's own track (not one of `tracks`)
//! keep_runs = 5                             # stored demo runs kept (older ones deleted)
//! instance_id = "track-north"               # this instance (default: <host>-<port>)
//! lease_s = 15                              # runs of an instance silent this long are failed
//!
//! [[operators]]                             # a named operator; the token is never stored in clear
//! name = "alice"
//! token_sha256 = "…"                        # hex SHA-256 of the token (`printf %s TOKEN | sha256sum`)
//!
//! [[viewers]]                               # a named viewer, the same form
//! name = "carol"
//! token_sha256 = "…"
//!
//! [auth]
//! operator_tokens = ["…"]                   # unnamed (shown as "operator"): may arm/start/abort runs, upload, register
//! viewer_tokens = ["…"]                     # may read when read_requires_token = true
//! read_requires_token = false               # true: GET endpoints need a viewer or operator token
//!
//! [limits]
//! upload_max_bytes = 67108864
//! upload_max_rows = 2000000
//!
//! [osi]
//! tcp = "0.0.0.0:48198"                     # live ASAM OSI stream of each run (docs/osi.md)
//!
//! [twin]
//! virtual = ["dummy"]                       # targets only in the twin when a run does not say
//!
//! [telemetry]
//! max_buffer_rows = 500000                  # rows held in memory while the database fails
//! spill_dir = "/var/spool/scil"             # beyond that, rows go to files here (default: off)
//! keep_days = 730                           # drop runs' telemetry after this (default: keep)
//! ```
//!
//! Environment overrides: `SCIL_BIND`, `SCIL_FOXGLOVE_BIND`, `DATABASE_URL`, `SCIL_STORAGE_DIR`, `SCIL_DATA`,
//! `SCIL_OPERATOR_TOKEN` and `SCIL_VIEWER_TOKEN` (comma-separated lists, added to the file's;
//! named `operator` and `viewer`), `SCIL_OPERATORS` and `SCIL_VIEWERS` (`alice=TOKEN,bob=TOKEN`:
//! named people, added to the file's),
//! `SCIL_READ_REQUIRES_TOKEN=1`, `SCIL_INSTANCE_ID`, `SCIL_LEASE_S`, `SCIL_SPILL_DIR`.

mod ground;
pub use ground::GroundConfig;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub bind: String,
    pub database_url: String,
    pub storage_dir: PathBuf,
    pub data_dir: Option<PathBuf>,
    /// `foxglove.websocket.v1` server address; `None` = off.
    pub foxglove_bind: Option<String>,
    /// The proving ground's tracks (names); every run belongs to one.
    pub tracks: Vec<String>,
    /// The track of a run created without one (default: the first of `tracks`).
    pub default_track: Option<String>,
    pub demo: DemoConfig,
    /// This instance's id among those sharing the database (default: the host name and the
    /// port it listens on, `<host>-<port>`).
    pub instance_id: Option<String>,
    /// Take the instance id's lease even while another process holds it (a restart after a
    /// crash on another machine, before the old lease expires).
    pub take_over_instance: bool,
    /// The lease an instance holds on its runs, s: renewed every third of it; another
    /// instance fails the runs of an instance that has not renewed it for this long.
    pub lease_s: f64,
    pub auth: AuthConfig,
    /// Named operators (`[[operators]]` with `name` and `token_sha256`; `SCIL_OPERATORS`).
    pub operators: Vec<NamedToken>,
    /// Named viewers, the same form (`[[viewers]]`; `SCIL_VIEWERS`).
    pub viewers: Vec<NamedToken>,
    pub limits: Limits,
    pub telemetry: TelemetryConfig,
    pub ground: GroundConfig,
    /// `[osi]`: the live ASAM OSI stream of every run that does not name its own.
    pub osi: Option<crate::serve::osi_stream::OsiSpec>,
    pub twin: TwinConfig,
}

/// `[twin]`: what exists only in the digital twin.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct TwinConfig {
    /// Targets (by id) that are virtual in every run that does not say (`"virtual"`) and whose
    /// scenario has them: no carrier, moved on their plan.
    #[serde(rename = "virtual")]
    pub virtual_targets: Vec<String>,
}

/// `scil serve --demo` (and `scil` with no arguments).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct DemoConfig {
    /// The demo's own track; its runs are marked `demo`.
    pub track: String,
    /// Stored demo runs kept; older ones are deleted with their telemetry and events.
    pub keep_runs: u32,
}

impl Default for DemoConfig {
    fn default() -> Self {
        DemoConfig {
            track: "demo".into(),
            keep_runs: 5,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct AuthConfig {
    pub operator_tokens: Vec<String>,
    pub viewer_tokens: Vec<String>,
    pub read_requires_token: bool,
}

/// A named person's token: in the file as its SHA-256 (`token_sha256`, hex), from the
/// environment in clear (`SCIL_OPERATORS=alice=TOKEN`; never serialized).
#[derive(Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NamedToken {
    pub name: String,
    #[serde(default, skip_serializing)]
    pub token_sha256: Option<String>,
    #[serde(skip)]
    pub token: Option<String>,
    /// Where it was given (for error messages): `[[operators]]`, `SCIL_OPERATORS`, …
    #[serde(skip)]
    pub origin: &'static str,
}

impl std::fmt::Debug for NamedToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token.
        f.debug_struct("NamedToken")
            .field("name", &self.name)
            .finish()
    }
}

/// `alice=TOKEN,bob=TOKEN` (`SCIL_OPERATORS`, `SCIL_VIEWERS`). An entry without `=` keeps an
/// empty token and is refused by [`Config::validate`] (without echoing it).
fn named_list(v: &str, origin: &'static str) -> Vec<NamedToken> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|e| {
            let (name, token) = e.split_once('=').unwrap_or(("", ""));
            NamedToken {
                name: name.trim().to_string(),
                token_sha256: None,
                token: Some(token.trim().to_string()),
                origin,
            }
        })
        .collect()
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    pub upload_max_bytes: u64,
    pub upload_max_rows: u64,
    /// Maximum size of a scenario or map registered through the API.
    pub document_max_bytes: u64,
    /// A live run that has not received a first sample after this long is aborted, s.
    pub first_sample_timeout_s: f64,
    /// Maximum size of an uploaded OpenDRIVE map (parsing takes roughly 20× its size in memory).
    pub map_max_bytes: u64,
    /// Memory for generated `/maps/{id}/geojson` documents (least recently used dropped first).
    pub geojson_cache_bytes: u64,
}

impl Limits {
    pub fn first_sample_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.first_sample_timeout_s.clamp(0.1, 86_400.0))
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct TelemetryConfig {
    pub batch_rows: usize,
    pub max_delay_ms: u64,
    pub channel: usize,
    pub max_buffer_rows: usize,
    /// How long an ended run waits for its telemetry to be committed before it is marked
    /// `failed` with the rows lost, seconds.
    pub settle_timeout_s: f64,
    /// Where telemetry rows beyond `max_buffer_rows` go while the database fails (best on
    /// another volume than the database); None: they are dropped and counted.
    pub spill_dir: Option<PathBuf>,
    /// Retention: the telemetry of runs finished more than this many days ago is dropped (at
    /// startup and hourly; audited; the runs keep their events, results and record). None:
    /// kept for ever.
    pub keep_days: Option<u32>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            bind: "127.0.0.1:8080".into(),
            database_url: "sqlite://scil.db".into(),
            storage_dir: PathBuf::from("scil-data"),
            data_dir: None,
            foxglove_bind: None,
            tracks: vec!["main".into()],
            default_track: None,
            demo: DemoConfig::default(),
            instance_id: None,
            take_over_instance: false,
            lease_s: 15.0,
            auth: AuthConfig::default(),
            operators: Vec::new(),
            viewers: Vec::new(),
            limits: Limits::default(),
            telemetry: TelemetryConfig::default(),
            ground: GroundConfig::default(),
            osi: None,
            twin: TwinConfig::default(),
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            upload_max_bytes: 64 << 20,
            upload_max_rows: 2_000_000,
            document_max_bytes: 32 << 20,
            first_sample_timeout_s: 60.0,
            map_max_bytes: 16 << 20,
            geojson_cache_bytes: 256 << 20,
        }
    }
}

impl Default for TelemetryConfig {
    fn default() -> Self {
        let w = crate::store::writer::WriterConfig::default();
        TelemetryConfig {
            batch_rows: w.batch_rows,
            max_delay_ms: w.max_delay.as_millis() as u64,
            channel: w.channel,
            max_buffer_rows: w.max_buffer_rows,
            settle_timeout_s: 300.0,
            spill_dir: None,
            keep_days: None,
        }
    }
}

impl TelemetryConfig {
    pub fn settle_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.settle_timeout_s.clamp(0.0, 86_400.0))
    }

    pub fn writer(&self) -> crate::store::writer::WriterConfig {
        crate::store::writer::WriterConfig {
            channel: self.channel.max(16),
            batch_rows: self.batch_rows.max(1),
            max_delay: std::time::Duration::from_millis(self.max_delay_ms),
            max_buffer_rows: self.max_buffer_rows.max(1),
            spill_dir: self.spill_dir.clone(),
        }
    }
}

impl Config {
    /// Reads the file (if any), then applies the environment.
    pub fn load(path: Option<&Path>) -> anyhow::Result<Config> {
        let mut c = match path {
            Some(p) => {
                let text = std::fs::read_to_string(p)
                    .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", p.display()))?;
                toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?
            }
            None => Config::default(),
        };
        c.apply_env(|k| std::env::var(k).ok());
        c.validate().map_err(|e| match path {
            Some(p) => anyhow::anyhow!("{}: {e}", p.display()),
            None => e,
        })?;
        Ok(c)
    }

    pub fn apply_env(&mut self, get: impl Fn(&str) -> Option<String>) {
        if let Some(v) = get("SCIL_BIND") {
            self.bind = v;
        }
        if let Some(v) = get("SCIL_FOXGLOVE_BIND") {
            self.foxglove_bind = Some(v);
        }
        if let Some(v) = get("DATABASE_URL") {
            self.database_url = v;
        }
        if let Some(v) = get("SCIL_STORAGE_DIR") {
            self.storage_dir = v.into();
        }
        if let Some(v) = get("SCIL_DATA") {
            self.data_dir = Some(v.into());
        }
        if let Some(v) = get("SCIL_INSTANCE_ID") {
            self.instance_id = Some(v);
        }
        if let Some(v) = get("SCIL_TAKE_OVER_INSTANCE") {
            self.take_over_instance = matches!(v.trim(), "1" | "true" | "yes");
        }
        if let Some(v) = get("SCIL_SPILL_DIR") {
            self.telemetry.spill_dir =
                Some(v.into()).filter(|p: &PathBuf| !p.as_os_str().is_empty());
        }
        if let Some(v) = get("SCIL_LEASE_S") {
            // Not a number: NaN, refused with the reason at startup (`Config::lease`).
            self.lease_s = v.trim().parse::<f64>().unwrap_or(f64::NAN);
        }
        let list = |v: String| -> Vec<String> {
            v.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        };
        if let Some(v) = get("SCIL_OPERATOR_TOKEN") {
            self.auth.operator_tokens.extend(list(v));
        }
        if let Some(v) = get("SCIL_VIEWER_TOKEN") {
            self.auth.viewer_tokens.extend(list(v));
        }
        if let Some(v) = get("SCIL_OPERATORS") {
            self.operators.extend(named_list(&v, "SCIL_OPERATORS"));
        }
        if let Some(v) = get("SCIL_VIEWERS") {
            self.viewers.extend(named_list(&v, "SCIL_VIEWERS"));
        }
        if let Some(v) = get("SCIL_READ_REQUIRES_TOKEN") {
            self.auth.read_requires_token = matches!(v.as_str(), "1" | "true" | "yes");
        }
    }

    /// The track of a run created without one.
    pub fn default_track(&self) -> &str {
        match &self.default_track {
            Some(t) => t,
            None => self.tracks.first().map_or("main", String::as_str),
        }
    }

    /// A track a run may be created on (`demo`: the demo's own track only).
    pub fn is_track(&self, name: &str) -> bool {
        self.tracks.iter().any(|t| t == name)
    }

    /// Checks the track names: at least one, unique, usable in URLs, the default among them,
    /// the demo's track not among them.
    pub fn validate(&self) -> anyhow::Result<()> {
        if self.tracks.is_empty() {
            anyhow::bail!("tracks: name at least one track");
        }
        for (i, t) in self.tracks.iter().enumerate() {
            if !valid_id(t) {
                anyhow::bail!("tracks: '{t}' is not a usable name (letters, digits, _ - .)");
            }
            if self.tracks[..i].contains(t) {
                anyhow::bail!("tracks: '{t}' is listed twice");
            }
        }
        if let Some(d) = &self.default_track {
            if !self.is_track(d) {
                anyhow::bail!(
                    "default_track '{d}' is not one of tracks ({})",
                    self.tracks.join(", ")
                );
            }
        }
        if !valid_id(&self.demo.track) {
            anyhow::bail!("demo.track '{}' is not a usable name", self.demo.track);
        }
        if self.is_track(&self.demo.track) {
            anyhow::bail!(
                "demo.track '{}' is also in tracks: the demo needs a track of its own",
                self.demo.track
            );
        }
        self.validate_people()?;
        let g = &self.ground;
        let stale_ok = g.telemetry_stale_s.is_finite() && g.telemetry_stale_s > 0.0;
        let connect_ok = (0.1..=600.0).contains(&g.connect_timeout_s);
        if g.monr_miss_limit == 0
            || !(1..=255).contains(&g.heab_rate_hz)
            || !stale_ok
            || !(0.0..=1.0).contains(&g.max_monr_loss)
            || !connect_ok
        {
            anyhow::bail!(
                "ground: monr_miss_limit ≥ 1, heab_rate_hz 1..255, telemetry_stale_s > 0, max_monr_loss 0..1 and connect_timeout_s 0.1..600, got {g:?}"
            );
        }
        g.motion_limits()
            .validate()
            .map_err(|e| anyhow::anyhow!("ground: {e}"))?;
        for (map, f) in &g.geofence {
            f.validate()
                .map_err(|e| anyhow::anyhow!("ground.geofence.{map}: {e}"))?;
        }
        for kind in crate::capabilities::ObjectKind::ALL {
            crate::capabilities::ObjectCapabilities::resolve(kind, &g.capability_layers(""))
                .map_err(|e| anyhow::anyhow!("ground.capabilities: {e}"))?;
        }
        for (key, p) in &g.capabilities {
            p.over(
                crate::capabilities::ObjectKind::VutRobot,
                &crate::capabilities::Source::Default,
            )
            .map_err(|e| anyhow::anyhow!("ground.capabilities.{key}: {e}"))?;
        }
        Ok(())
    }

    /// Named operators and viewers: usable names, each once, each with one token (a clear
    /// token from the environment, or a 64-hex-digit SHA-256 from the file).
    fn validate_people(&self) -> anyhow::Result<()> {
        let all: Vec<(&NamedToken, &str)> = self
            .operators
            .iter()
            .map(|n| (n, "operators"))
            .chain(self.viewers.iter().map(|n| (n, "viewers")))
            .collect();
        for (i, (n, list)) in all.iter().enumerate() {
            let origin = if n.origin.is_empty() { *list } else { n.origin };
            if !valid_id(&n.name) {
                anyhow::bail!(
                    "{origin}: entry {} needs a name (letters, digits, _ - .), as NAME=TOKEN or name = \"…\"",
                    i + 1
                );
            }
            if all[..i].iter().any(|(m, _)| m.name == n.name) {
                anyhow::bail!("{origin}: '{}' is named twice", n.name);
            }
            match (&n.token, &n.token_sha256) {
                (Some(t), None) if !t.is_empty() => {}
                (None, Some(h)) if h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()) => {}
                (None, Some(_)) => anyhow::bail!(
                    "{origin}: '{}': token_sha256 must be 64 hex digits (the SHA-256 of the token)",
                    n.name
                ),
                _ => anyhow::bail!("{origin}: '{}' has no token", n.name),
            }
        }
        Ok(())
    }

    /// The configuration as a run's provenance shows it: every token, token digest and
    /// database password removed.
    pub fn redacted(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        v["auth"]["operator_tokens"] = serde_json::json!(self.auth.operator_tokens.len());
        v["auth"]["viewer_tokens"] = serde_json::json!(self.auth.viewer_tokens.len());
        v["database_url"] = serde_json::json!(redact_url(&self.database_url));
        v
    }

    /// The lease duration: `lease_s` (SCIL_LEASE_S), 1 s … 1 h.
    pub fn lease(&self) -> anyhow::Result<std::time::Duration> {
        if !(1.0..=3600.0).contains(&self.lease_s) {
            anyhow::bail!(
                "lease_s (SCIL_LEASE_S) must be a number of seconds from 1 to 3600, got {}",
                self.lease_s
            );
        }
        Ok(std::time::Duration::from_secs_f64(self.lease_s))
    }

    #[cfg(test)]
    fn writer_spill(&self) -> Option<PathBuf> {
        self.telemetry.writer().spill_dir
    }

    pub fn data_dir(&self) -> PathBuf {
        self.data_dir.clone().unwrap_or_else(crate::data_dir)
    }
}

/// Ids are what users type in URLs: letters, digits, `_`, `-`, `.` (not leading), ≤ 64 chars.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// A database URL without its password (`postgres://user:***@host/db`).
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (auth, host) = match rest.rsplit_once('@') {
        Some(p) => p,
        None => return url.to_string(),
    };
    match auth.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_then_env() {
        let mut c: Config = toml::from_str(
            "bind = \"0.0.0.0:9\"\n[auth]\noperator_tokens = [\"a\"]\n[limits]\nupload_max_rows = 5\n",
        )
        .unwrap();
        assert_eq!(c.limits.upload_max_rows, 5);
        assert_eq!(c.database_url, "sqlite://scil.db");
        c.apply_env(|k| match k {
            "SCIL_BIND" => Some("127.0.0.1:1".into()),
            "SCIL_OPERATOR_TOKEN" => Some("b, c".into()),
            _ => None,
        });
        assert_eq!(c.bind, "127.0.0.1:1");
        assert_eq!(c.auth.operator_tokens, ["a", "b", "c"]);
        assert!(toml::from_str::<Config>("bnid = 1").is_err());
        assert_eq!(c.foxglove_bind, None);
        let f: Config = toml::from_str("foxglove_bind = \"127.0.0.1:8765\"").unwrap();
        assert_eq!(f.foxglove_bind.as_deref(), Some("127.0.0.1:8765"));
        let mut t: Config = toml::from_str("[telemetry]\nspill_dir = \"/a\"\n").unwrap();
        assert_eq!(t.writer_spill(), Some(PathBuf::from("/a")));
        t.apply_env(|k| (k == "SCIL_SPILL_DIR").then(|| "/b".into()));
        assert_eq!(t.writer_spill(), Some(PathBuf::from("/b")));
        assert_eq!(Config::default().writer_spill(), None);
    }

    #[test]
    fn tracks_are_checked() {
        let c = Config::default();
        assert_eq!(c.default_track(), "main");
        c.validate().unwrap();
        let t: Config = toml::from_str("tracks = [\"A\", \"B\"]\n[demo]\nkeep_runs = 2\n").unwrap();
        assert_eq!(t.default_track(), "A");
        assert_eq!(t.demo.keep_runs, 2);
        t.validate().unwrap();
        for bad in [
            "tracks = []",
            "tracks = [\"A\", \"A\"]",
            "tracks = [\"a b\"]",
            "tracks = [\"A\"]\ndefault_track = \"B\"",
            "tracks = [\"demo\"]",
        ] {
            let c: Config = toml::from_str(bad).unwrap();
            assert!(c.validate().is_err(), "{bad}");
        }
    }
}
