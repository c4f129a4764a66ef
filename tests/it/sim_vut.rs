//! The built-in simulated VUT: the whole loop (trigger → dummy → AEB) through the run layer.

use std::path::Path;
use std::sync::Arc;

use scil::run::RunSetup;
use scil::scenario::engine::EngineConfig;
use scil::sim::{run_sim, SimOptions};

fn setup(name: &str) -> Option<Arc<RunSetup>> {
    let p = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/scenarios")).join(name);
    if !p.exists() {
        eprintln!("skipping: {} not found", p.display());
        return None;
    }
    Some(Arc::new(
        RunSetup::load(&p, None, EngineConfig::default()).expect("setup"),
    ))
}

#[test]
fn aeb_vut_stops_short_when_the_dummy_starts_on_time() {
    let Some(s) = setup("cpna75_30kmh.toml") else {
        return;
    };
    let opts = SimOptions {
        vut_speed_kmh: 40.0,
        aeb: Some("ttc=1.2,decel=8,delay_ms=150".parse().expect("aeb")),
        ..SimOptions::default()
    };
    let t0 = std::time::Instant::now();
    let r = run_sim(s.clone(), &opts);
    println!(
        "sim 40 km/h with AEB: {} samples in {:?}",
        r.samples,
        t0.elapsed()
    );
    assert!(r.error.is_none(), "{:?}", r.error);
    assert!(r.aborted.is_none(), "{:?}", r.aborted);
    let tr = r.triggers.first().expect("the trigger fired");
    assert!((tr.threshold_s - 3.9339).abs() < 1e-3, "{tr:?}");
    assert!(
        (tr.ttc_s - tr.threshold_s).abs() < 0.01,
        "fired on time: {tr:?}"
    );
    assert!((tr.vut_speed_kmh - 40.0).abs() < 0.5, "{tr:?}");
    let imp = r.impacts.first().expect("impact record");
    assert!(imp.time_s.is_none(), "no impact: {imp:?}");
    let short = imp.stopped_short_m.expect("stopped short");
    println!("stopped {short:.3} m short of the dummy's path");
    assert!(short > 0.5 && short < 15.0, "{short}");

    // Same options, same report, byte for byte.
    let again = run_sim(s.clone(), &opts);
    assert_eq!(
        serde_json::to_string(&r).expect("json"),
        serde_json::to_string(&again).expect("json")
    );

    // Without AEB the VUT hits the dummy near the nominal impact point.
    let r = run_sim(s, &SimOptions { aeb: None, ..opts });
    let imp = r.impacts.first().expect("impact record");
    assert!(imp.time_s.is_some(), "impact without AEB: {imp:?}");
    let travel = imp.dummy_travel_m.expect("dummy travel");
    assert!((travel - imp.nominal_travel_m).abs() < 0.1, "{imp:?}");
    let ov = imp.overlap.expect("overlap");
    assert!((ov - 0.75).abs() < 0.05, "overlap {ov}");
}

#[test]
fn noise_is_seeded_and_zero_noise_is_the_plain_run() {
    let Some(s) = setup("cpna75_50kmh.toml") else {
        return;
    };
    let plain = SimOptions {
        vut_speed_kmh: 50.0,
        ..SimOptions::default()
    };
    let a = serde_json::to_string(&run_sim(s.clone(), &plain)).expect("json");
    let zero = SimOptions {
        injection: scil::run::source::inject::Injection {
            seed: 42,
            ..Default::default()
        },
        ..plain.clone()
    };
    assert_eq!(
        a,
        serde_json::to_string(&run_sim(s.clone(), &zero)).expect("json")
    );
    let noisy = SimOptions {
        injection: "pos=0.3,speed=0.2,heading=0.5,dropout=0.05,seed=7"
            .parse()
            .expect("inj"),
        ..plain
    };
    let n1 = serde_json::to_string(&run_sim(s.clone(), &noisy)).expect("json");
    let n2 = serde_json::to_string(&run_sim(s, &noisy)).expect("json");
    assert_eq!(n1, n2, "same seed, same report");
    assert_ne!(n1, a, "noise changes the run");
}
