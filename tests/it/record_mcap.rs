//! MCAP recording of a replayed run: read back by the Python `mcap` package (independent
//! reader: schemas, channel counts, one message per sample) and replayed from MCAP with the
//! same triggers as from the CSV.

use crate::support;

use std::path::{Path, PathBuf};

use scil::ingest::csv::{BadRowPolicy, CsvSource};
use scil::record::messages::Encoder;
use scil::record::{McapRecorder, McapSource};
use scil::run::RunSetup as ReplaySetup;
use scil::sample::InsSample;
use scil::scenario::engine::{Engine, EngineConfig, Event, Output, TriggerRecord};

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel)
}

/// Drives the engine over `samples` the way the run layer does; every output and every
/// post-sample state goes to the recorder when given. Returns the triggers and sample count.
fn drive(
    setup: &ReplaySetup,
    samples: impl Iterator<Item = InsSample>,
    mut rec: Option<&mut McapRecorder<std::io::BufWriter<std::fs::File>>>,
) -> (Vec<TriggerRecord>, u64) {
    let mut engine: Engine = setup.engine();
    let mut triggers = Vec::new();
    let mut n = 0u64;
    let mut last = 0.0;
    let mut on = |o: Output, rec: &mut Option<&mut McapRecorder<_>>| {
        if let Output::Event(Event::TriggerAssessed(r)) = &o {
            triggers.push(r.clone());
        }
        if let Some(r) = rec.as_deref_mut() {
            r.output(&o).expect("record output");
        }
    };
    for ins in samples {
        let s = setup.interface.to_map(&ins).expect("to map");
        if n == 0 {
            engine.arm(s.time_s);
        }
        while let Some(t) = engine.poll_timeout() {
            if t > s.time_s {
                break;
            }
            engine.handle_timeout(t);
            while let Some(o) = engine.poll_output() {
                on(o, &mut rec);
            }
        }
        engine.handle_sample(&s);
        if let Some(r) = rec.as_deref_mut() {
            r.sample(&engine, &s).expect("record sample");
        }
        while let Some(o) = engine.poll_output() {
            on(o, &mut rec);
        }
        n += 1;
        last = s.time_s;
    }
    engine.finish(last);
    while let Some(o) = engine.poll_output() {
        on(o, &mut rec);
    }
    (triggers, n)
}

const PY_CHECK: &str = r#"
import json, sys
from collections import Counter
from mcap.reader import make_reader
with open(sys.argv[1], "rb") as f:
    r = make_reader(f)
    summ = r.get_summary()
    schemas = {s.id: (s.name, s.encoding) for s in summ.schemas.values()}
    chans = {c.id: (c.topic, schemas[c.schema_id][0], schemas[c.schema_id][1], c.message_encoding)
             for c in summ.channels.values()}
    counts = Counter()
    first = {}
    for schema, channel, message in r.iter_messages(log_time_order=True):
        counts[channel.topic] += 1
        if channel.topic not in first:
            first[channel.topic] = (message.log_time, json.loads(message.data))
    stats = {chans[k][0]: v for k, v in summ.statistics.channel_message_counts.items()}
print(json.dumps({"channels": sorted(chans.values()), "counts": counts, "stats": stats,
                  "first": first}))
"#;

#[test]
fn mcap_recording_read_by_python_and_replayed_with_same_triggers() {
    let scenario = shared("scenarios/cpna75_30kmh.toml");
    let csv = shared("replays/cpna75_30kmh.csv");
    let setup = ReplaySetup::load(&scenario, None, EngineConfig::default()).expect("setup");
    let csv_samples: Vec<InsSample> = CsvSource::open(&csv, &[], BadRowPolicy::Stop)
        .expect("csv")
        .map(|r| r.expect("row"))
        .collect();

    let dir = std::env::temp_dir().join(format!("scil-mcap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("run.mcap");
    let enc = Encoder::new(Some(&setup.scenario), setup.map.as_deref());
    let mut rec = McapRecorder::create(&path, enc).expect("create");
    let t_rec = std::time::Instant::now();
    let (csv_trig, n) = drive(&setup, csv_samples.iter().cloned(), Some(&mut rec));
    let t_rec = t_rec.elapsed();
    assert_eq!(rec.samples(), n);
    rec.finish().expect("finish");
    assert_eq!(csv_trig.len(), 1, "CPNA run fires once: {csv_trig:?}");
    let size = std::fs::metadata(&path).unwrap().len();
    println!(
        "MCAP: {n} samples, {size} bytes, engine + recording {:.1} µs/sample",
        t_rec.as_secs_f64() * 1e6 / n as f64
    );

    // MCAP in: same samples, same triggers.
    let src = McapSource::open(&path).expect("mcap source");
    assert_eq!(src.len() as u64, n);
    let back: Vec<InsSample> = src.map(|r| r.expect("sample")).collect();
    let t_plain = std::time::Instant::now();
    let (mcap_trig, m) = drive(&setup, back.into_iter(), None);
    println!(
        "engine alone {:.1} µs/sample",
        t_plain.elapsed().as_secs_f64() * 1e6 / n as f64
    );
    assert_eq!(m, n);
    assert_eq!(mcap_trig.len(), csv_trig.len());
    for (a, b) in csv_trig.iter().zip(&mcap_trig) {
        assert_eq!(a.target, b.target);
        assert!((a.time_s - b.time_s).abs() < 1e-9, "{a:?} vs {b:?}");
        assert!((a.fired_at_s - b.fired_at_s).abs() < 1e-9);
        assert!((a.ttc_s - b.ttc_s).abs() < 1e-9);
    }

    // Independent reader.
    let Some(out) = support::python::run("mcap", PY_CHECK, &[path.to_str().unwrap()]) else {
        return;
    };
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("python json");
    let channels = v["channels"].as_array().unwrap();
    assert_eq!(channels.len(), scil::record::CHANNELS.len());
    for c in scil::record::CHANNELS.iter() {
        let row = serde_json::json!([c.topic, c.schema_name, "jsonschema", "json"]);
        assert!(channels.contains(&row), "missing {row} in {channels:?}");
    }
    let count = |t: &str| v["counts"][t].as_u64().unwrap_or(0);
    assert_eq!(count("/scil/vut"), n, "one VUT message per sample");
    assert_eq!(count("/vut/fix"), n);
    assert_eq!(count("/poses"), n);
    assert_eq!(count("/scil/state"), n);
    assert_eq!(count("/scene/vehicles"), n);
    assert_eq!(count("/scene/lanes"), 1);
    assert!(count("/tf") >= n);
    assert!(
        count("/scil/events") >= 3,
        "armed, triggered, assessed, finished"
    );
    assert_eq!(
        v["stats"]["/scil/vut"].as_u64(),
        Some(n),
        "summary statistics"
    );
    // Log time = sample time; WGS84 near the proving ground's geoReference (Zalaegerszeg).
    let (t0, fix) = (&v["first"]["/vut/fix"][0], &v["first"]["/vut/fix"][1]);
    let t_first = (csv_samples[0].time_s * 1e9).round() as u64;
    assert_eq!(t0.as_u64(), Some(t_first));
    let lat = fix["latitude"].as_f64().unwrap();
    let lon = fix["longitude"].as_f64().unwrap();
    assert!(
        (46.0..48.0).contains(&lat) && (16.0..18.0).contains(&lon),
        "{lat} {lon}"
    );
    let lanes = &v["first"]["/scene/lanes"][1]["entities"][0]["lines"];
    assert!(lanes.as_array().is_some_and(|l| l.len() >= 4), "lane lines");
    let state = &v["first"]["/scil/state"][1];
    assert!(
        state["ttc_s"].get("dummy").is_some()
            || state["targets"].as_array().is_some_and(|t| !t.is_empty())
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The operators' layout only names panels it configures, topics scil advertises and fields
/// their schemas define.
#[test]
fn foxglove_layout_matches_channels() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/deploy/foxglove-layout.json"
    ))
    .expect("layout file");
    let v: serde_json::Value = serde_json::from_str(&text).expect("layout is JSON");
    let configs = v["configById"].as_object().expect("configById");
    fn leaves(n: &serde_json::Value, out: &mut Vec<String>) {
        match n {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Object(m) => {
                for k in ["first", "second"] {
                    if let Some(c) = m.get(k) {
                        leaves(c, out);
                    }
                }
            }
            _ => {}
        }
    }
    let mut panels = Vec::new();
    leaves(&v["layout"], &mut panels);
    assert_eq!(panels.len(), configs.len(), "{panels:?}");
    for p in &panels {
        assert!(configs.contains_key(p), "panel {p} has no config");
    }
    fn strings(n: &serde_json::Value, out: &mut Vec<String>) {
        match n {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    if k.starts_with('/') {
                        out.push(k.clone());
                    }
                    strings(x, out);
                }
            }
            _ => {}
        }
    }
    let mut refs = Vec::new();
    strings(&v["configById"], &mut refs);
    let refs: Vec<&String> = refs.iter().filter(|s| s.starts_with('/')).collect();
    assert!(refs.len() >= 8, "{refs:?}");
    for r in refs {
        let (topic, field) = match r.split_once('.') {
            Some((t, f)) => (t, Some(f)),
            None => (r.as_str(), None),
        };
        let ch = scil::record::CHANNELS
            .iter()
            .find(|c| c.topic == topic)
            .unwrap_or_else(|| panic!("layout names unknown topic {topic}"));
        if let Some(f) = field {
            let first = f.split(['.', '[']).next().unwrap();
            let schema: serde_json::Value = serde_json::from_str(ch.schema).unwrap();
            assert!(
                schema["properties"].get(first).is_some(),
                "{topic} has no field {first}"
            );
        }
    }
}
