//! A start decided after its STRT instant, on the recorded CPNA run paced in real time with the
//! in-process carrier simulator (the set-up of [`super::live_replay`]).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use scil::run::sink::carriers::{CarrierOptions as LiveConfig, CarrierSink, ObjectSync};
use scil::run::{Pace, RunSetup as ReplaySetup, SessionOptions, SourceSpec};
use scil::scenario::engine::EngineConfig;

use super::live_replay::{cut_csv, shared_data, sim, spec, SCENARIO, SERIAL};

/// A start decided after its STRT instant (here: a carrier with an 80 ms lead whose trigger was
/// predicted less than that ahead; on the ground, a target that starts with the run at a
/// sample that arrived late): the STRT goes out at once, and the carrier, which takes MTSP,
/// gets the asked origin right after it, so it is not left the lateness behind its plan.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_start_is_given_its_asked_origin_by_mtsp() {
    let _g = SERIAL.lock().await;
    if !shared_data() {
        return;
    }
    let csv = cut_csv(387_008.0, 387_013.2, "late");
    let sim = sim(true).await;
    let setup = Arc::new(
        ReplaySetup::load(Path::new(SCENARIO), None, EngineConfig::default()).expect("setup"),
    );
    let cfg = LiveConfig {
        carriers: vec![spec(&sim)],
        ..Default::default()
    };
    // Within the ±100 ms an object takes by MTSP.
    const LEAD_S: f64 = 0.08;
    // What the runtime's wake-ups may add to the lateness on a loaded machine, ms.
    const SCHEDULING_SLACK_MS: f64 = 20.0;
    let sink = CarrierSink::new(&setup, cfg.clone())
        .expect("sink")
        .with_object_sync(vec![(
            "carrier-1".to_string(),
            ObjectSync {
                honours_mtsp: true,
                start_lead_s: LEAD_S,
            },
        )]);
    let r = scil::run::run_source(
        setup.clone(),
        &SourceSpec::csv(&csv),
        SessionOptions {
            pace: Pace::Factor(1.0),
            strt_lead: Duration::from_millis(5),
            ..Default::default()
        },
        vec![Box::new(sink)],
    )
    .await
    .expect("live replay");
    assert!(
        r.error.is_none() && r.dispatch.as_ref().expect("dispatch").abort.is_none(),
        "{:?} {:?}",
        r.error,
        r.dispatch.as_ref().map(|d| &d.abort)
    );
    let c = &r.carriers.as_ref().expect("carriers")[0];
    println!("retimes {:?}", c.retimes);
    // The first retime is the late start's: its origin is the trigger's instant, and it says
    // how late the start was decided (in this recording the trigger is predicted a few ms
    // ahead: most of the lead).
    let first = c.retimes.first().expect("the late start's MTSP");
    assert!(first.mtsp_sent);
    assert!(
        (first.origin_s - r.triggers[0].fired_at_s).abs() < 1e-9,
        "{first:?}"
    );
    // Typically 76–77 ms here; a late wake-up of the runtime on a busy machine adds a few
    // ms (86 ms once in CI), which the MTSP carries like the rest.
    let late_ms = -first.correction_ms;
    assert!(
        (10.0..LEAD_S * 1000.0 + SCHEDULING_SLACK_MS).contains(&late_ms),
        "decided {late_ms:.1} ms after its STRT instant"
    );
    // The object moved its trajectory's origin back by that much (the STRT itself went out a
    // moment after the decision).
    let st = sim.status();
    let shift_ms = st
        .mtsp_shifts_s
        .first()
        .unwrap_or_else(|| panic!("MTSP not applied: {:?}", st.rejected))
        * 1000.0;
    println!("late {late_ms:.1} ms, object's origin moved {shift_ms:+.1} ms");
    assert!(
        (-late_ms - 30.0..=-late_ms + 1.0).contains(&shift_ms),
        "moved {shift_ms:+.1} ms for a start {late_ms:.1} ms late"
    );
    sim.shutdown().await;
    let _ = std::fs::remove_file(csv);
}
