//! Tamper evidence of a run's record.
//!
//! * Every event of a run stores `hash = SHA-256(previous hash ‖ canonical content)` (the
//!   previous hash as its 32 bytes; 32 zero bytes before the first event), computed in the
//!   transaction that inserts it, with the run's row locked; the run keeps the chain's head and
//!   length (`runs.chain_head`, `runs.chain_len`), so dropping the last events shows too.
//! * The canonical content of an event is the JSON array
//!   `[run_id, t, kind, payload, created_at]` as `serde_json` writes it, `created_at` in
//!   RFC 3339 with microseconds (`2026-11-27T18:47:38.123456Z`; events are stored with
//!   microsecond timestamps, which SQLite and PostgreSQL both keep exactly).
//! * The run's end appends a `seal` event: the SHA-256 of its results (the text as stored), of
//!   its telemetry (every row, in `seq` order, as one JSON line each) and of its row's
//!   identifying fields ([`run_digest`]).
//!
//! The checks ([`verify`]) work on plain data, so `scil verify FILE` runs them offline on an
//! exported record (`GET /runs/{id}/record.json`) with the same code as `GET /runs/{id}/verify`.

use chrono::{DateTime, SecondsFormat, SubsecRound, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::{NewEvent, TelemetryRow};

/// An event's timestamp as stored: microseconds.
pub fn micros(t: DateTime<Utc>) -> DateTime<Utc> {
    t.trunc_subsecs(6)
}

/// `created_at` as the canonical content writes it.
pub fn time_text(t: DateTime<Utc>) -> String {
    micros(t).to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// The canonical content of an event.
pub fn canonical(
    run_id: &str,
    t: Option<f64>,
    kind: &str,
    payload: &str,
    created_at: &str,
) -> String {
    json!([run_id, t, kind, payload, created_at]).to_string()
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of `data`, hex.
pub fn sha256_hex(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

fn unhex32(h: &str) -> Option<[u8; 32]> {
    if h.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(h.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// The next link: SHA-256(previous hash ‖ canonical content), hex. `prev` None: the first
/// event (32 zero bytes before it). A previous hash that is not 64 hex digits links as zeros
/// and so never matches a stored chain.
pub fn link(prev: Option<&str>, canonical: &str) -> String {
    let prev = prev.and_then(unhex32).unwrap_or([0u8; 32]);
    let mut h = Sha256::new();
    h.update(prev);
    h.update(canonical.as_bytes());
    hex(&h.finalize())
}

/// The hash of a new event of a chained run, after `prev`.
pub fn link_event(prev: Option<&str>, e: &NewEvent) -> String {
    let run = e.run_id.as_deref().unwrap_or_default();
    link(
        prev,
        &canonical(run, e.t, &e.kind, &e.payload, &time_text(e.created_at)),
    )
}

/// One stored event as the checks read it (and the record exports it).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChainEvent {
    pub id: i64,
    pub run_id: String,
    pub t: Option<f64>,
    pub kind: String,
    /// The payload text exactly as stored.
    pub payload: String,
    /// RFC 3339 with microseconds.
    pub created_at: String,
    pub hash: Option<String>,
}

/// The fields of a run row the seal covers (the times are covered by the run's state events).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunIdentity {
    pub id: String,
    pub state: String,
    pub scenario_id: String,
    pub map_id: Option<String>,
    pub source: String,
    pub speed: Option<f64>,
    pub error: Option<String>,
    pub track: Option<String>,
}

impl RunIdentity {
    pub fn of(r: &super::RunRow) -> RunIdentity {
        RunIdentity {
            id: r.id.clone(),
            state: r.state.clone(),
            scenario_id: r.scenario_id.clone(),
            map_id: r.map_id.clone(),
            source: r.source.clone(),
            speed: r.speed,
            error: r.error.as_deref().map(super::bound_reason),
            track: r.track.clone(),
        }
    }
}

/// SHA-256 of a run's identifying fields (canonical JSON array), hex.
pub fn run_digest(r: &RunIdentity) -> String {
    sha256_hex(
        json!([
            r.id,
            r.state,
            r.scenario_id,
            r.map_id,
            r.source,
            r.speed,
            r.error,
            r.track
        ])
        .to_string()
        .as_bytes(),
    )
}

/// A telemetry row's JSON line, as its digest takes it.
pub fn telemetry_line(r: &TelemetryRow) -> String {
    serde_json::to_string(r).unwrap_or_default()
}

/// Incremental SHA-256 of a run's telemetry: one JSON line per row, in `seq` order.
#[derive(Default)]
pub struct TelemetryDigest {
    h: Sha256,
    pub rows: u64,
}

impl TelemetryDigest {
    pub fn add(&mut self, r: &TelemetryRow) {
        self.add_line(&telemetry_line(r));
    }

    /// A row given as its JSON line (an exported record's).
    pub fn add_line(&mut self, line: &str) {
        self.h.update(line.as_bytes());
        self.h.update(b"\n");
        self.rows += 1;
    }

    pub fn finish(self) -> String {
        hex(&self.h.finalize())
    }
}

/// The seal a run's end appends to its chain.
pub fn seal_payload(
    results_sha256: Option<&str>,
    telemetry_sha256: &str,
    telemetry_rows: u64,
    run: &RunIdentity,
) -> Value {
    json!({
        "event": "seal",
        "results_sha256": results_sha256,
        "telemetry_sha256": telemetry_sha256,
        "telemetry_rows": telemetry_rows,
        "run_sha256": run_digest(run),
    })
}

/// What the checks are given: the run, its chain as stored, its events, and (when at hand) its
/// results text and telemetry digest.
pub struct Record<'a> {
    pub unchained: bool,
    pub chain_head: Option<&'a str>,
    pub chain_len: i64,
    pub run: &'a RunIdentity,
    pub events: &'a [ChainEvent],
    /// None: the run has no stored results.
    pub results: Option<&'a str>,
    /// (digest, rows) of the telemetry as stored; None: not at hand (a record exported
    /// without it).
    pub telemetry: Option<(String, u64)>,
}

/// The verdict: `{"ok": true, "events": N, …}` or `{"ok": false, "first_bad_event": ID, …}`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Verdict {
    pub ok: bool,
    pub run_id: String,
    /// Events in the run's chain.
    pub events: usize,
    /// False: the run was stored before records were chained; nothing can be shown about it.
    pub chained: bool,
    /// The run's end sealed its results and telemetry into the chain.
    pub sealed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_bad_event: Option<i64>,
    /// The chain's last hash (what a lab writes down to prove the record later).
    pub head: Option<String>,
    /// Everything found wrong, in words.
    pub problems: Vec<String>,
}

/// Checks a run's record: every event's hash, the head and length the run keeps, and the
/// seal's digests of results, telemetry and the run row.
pub fn verify(rec: &Record<'_>) -> Verdict {
    let mut v = Verdict {
        ok: false,
        run_id: rec.run.id.clone(),
        events: rec.events.len(),
        chained: !rec.unchained,
        sealed: false,
        first_bad_event: None,
        head: None,
        problems: Vec::new(),
    };
    if rec.unchained {
        v.problems.push(
            "stored before records were chained: there is no tamper evidence for this run".into(),
        );
        return v;
    }
    let mut prev: Option<String> = None;
    for e in rec.events {
        let expect = link(
            prev.as_deref(),
            &canonical(&e.run_id, e.t, &e.kind, &e.payload, &e.created_at),
        );
        if e.run_id != rec.run.id {
            v.problems
                .push(format!("event {} belongs to run '{}'", e.id, e.run_id));
        } else if e.hash.as_deref() != Some(expect.as_str()) {
            v.problems.push(format!(
                "event {} ({}) does not match its hash: changed, inserted or reordered",
                e.id, e.kind
            ));
        } else {
            prev = Some(expect);
            continue;
        }
        v.first_bad_event = Some(e.id);
        return v;
    }
    v.head = prev.clone();
    if rec.chain_head != prev.as_deref() || rec.chain_len != rec.events.len() as i64 {
        v.problems.push(format!(
            "the run's chain has {} events ending in {}, the events stored are {} ending in {}: \
             events were removed or added",
            rec.chain_len,
            rec.chain_head.unwrap_or("nothing"),
            rec.events.len(),
            prev.as_deref().unwrap_or("nothing")
        ));
    }
    if let Some(seal) = rec.events.iter().rev().find(|e| e.kind == "seal") {
        v.sealed = true;
        check_seal(rec, seal, &mut v.problems);
    }
    v.ok = v.problems.is_empty();
    v
}

fn check_seal(rec: &Record<'_>, seal: &ChainEvent, problems: &mut Vec<String>) {
    let Ok(s) = serde_json::from_str::<Value>(&seal.payload) else {
        problems.push(format!("seal event {} is not JSON", seal.id));
        return;
    };
    let results = rec.results.map(|r| sha256_hex(r.as_bytes()));
    if s["results_sha256"].as_str() != results.as_deref() {
        problems.push("the results differ from those sealed at the run's end".into());
    }
    if s["run_sha256"].as_str() != Some(run_digest(rec.run).as_str()) {
        problems.push(
            "the run's row (state, scenario, map, source, speed, error or track) differs from \
             the one sealed at its end"
                .into(),
        );
    }
    if let Some((digest, rows)) = &rec.telemetry {
        if s["telemetry_sha256"].as_str() != Some(digest.as_str()) {
            problems.push(format!(
                "the telemetry ({rows} rows) differs from that sealed at the run's end ({} rows)",
                s["telemetry_rows"]
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(id: i64, prev: Option<&str>, kind: &str, payload: &str) -> ChainEvent {
        let at = "2026-11-27T18:00:00.000001Z";
        let hash = link(prev, &canonical("r1", Some(1.5), kind, payload, at));
        ChainEvent {
            id,
            run_id: "r1".into(),
            t: Some(1.5),
            kind: kind.into(),
            payload: payload.into(),
            created_at: at.into(),
            hash: Some(hash),
        }
    }

    fn run() -> RunIdentity {
        RunIdentity {
            id: "r1".into(),
            state: "finished".into(),
            scenario_id: "s".into(),
            map_id: None,
            source: "{}".into(),
            speed: None,
            error: None,
            track: Some("main".into()),
        }
    }

    #[test]
    fn a_changed_event_is_named_and_a_sealed_record_checks() {
        let a = ev(1, None, "state", "{\"state\":\"created\"}");
        let b = ev(2, a.hash.as_deref(), "control", "{\"by\":\"bob\"}");
        let r = run();
        let seal = seal_payload(Some(&sha256_hex(b"{}")), "t", 0, &r).to_string();
        let c = ev(3, b.hash.as_deref(), "seal", &seal);
        let events = vec![a, b, c];
        let head = events[2].hash.clone();
        let rec = |events: &[ChainEvent], results: &'static str| {
            verify(&Record {
                unchained: false,
                chain_head: head.as_deref(),
                chain_len: 3,
                run: &r,
                events,
                results: Some(results),
                telemetry: Some(("t".into(), 0)),
            })
        };
        let ok = rec(&events, "{}");
        assert!(ok.ok && ok.sealed && ok.events == 3, "{ok:?}");
        let mut bad = events.clone();
        bad[1].payload = "{\"by\":\"eve\"}".into();
        let v = rec(&bad, "{}");
        assert!(!v.ok && v.first_bad_event == Some(2), "{v:?}");
        let v = rec(&events, "{\"x\":1}");
        assert!(!v.ok && v.first_bad_event.is_none() && v.problems[0].contains("results"));
        let v = rec(&events[..2], "{}");
        assert!(!v.ok && v.problems[0].contains("removed"), "{v:?}");
        let unchained = verify(&Record {
            unchained: true,
            chain_head: None,
            chain_len: 0,
            run: &r,
            events: &[],
            results: None,
            telemetry: None,
        });
        assert!(!unchained.ok && !unchained.chained);
    }

    #[test]
    fn link_is_sha256_of_prev_bytes_and_content() {
        // SHA-256 of 32 zero bytes followed by "x", computed with Python's hashlib.
        assert_eq!(
            link(None, "x"),
            "fdded6faced1af47fdaaac589602f58e0e040a882627806c42ddcc38da604cf0"
        );
        assert_eq!(link(Some(&"00".repeat(32)), "x"), link(None, "x"));
        assert_eq!(
            time_text("2026-01-02T03:04:05.123456789Z".parse().unwrap()),
            "2026-01-02T03:04:05.123456Z"
        );
    }
}
