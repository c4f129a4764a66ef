//! Paced samples → LiveDispatch → control centre → carrier simulator: STRT leaves at the
//! predicted instant (between samples), and the report gives the dummy's travel at impact.

use scil::dispatch::carrier_sim::{self, SimConfig};
use scil::dispatch::control_centre::{ControlCentre, ControlCentreConfig};
use scil::dispatch::iso22133::ObjectState;
use scil::dispatch::live::{
    carrier_reports, carriers_from_scenario, LiveDispatch, ScenarioDispatch,
};
use scil::dispatch::profile::DummyProfile;
use std::time::Duration;
use tokio::time::Instant;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paced_samples_predicted_start_and_travel_at_impact() {
    let sim = carrier_sim::spawn(SimConfig {
        tcp_port: 0,
        udp_port: 0,
        ..Default::default()
    })
    .await
    .expect("sim");
    let profile = DummyProfile::from_scenario(200.0, -5.75, 0.0, 1.0, 5.0);
    let scenario = ScenarioDispatch {
        map: None,
        targets: vec![(
            "dummy".into(),
            "carrier-1".into(),
            profile,
            Default::default(),
        )],
    };
    let spec = format!(
        "carrier-1=127.0.0.1:{}:{}",
        sim.tcp_addr.port(),
        sim.udp_addr.port()
    );
    let carriers = carriers_from_scenario(&scenario, &[spec]).expect("carriers");
    let h = ControlCentre::spawn(ControlCentreConfig {
        carriers,
        // Arming happens between samples here; on a loaded CI machine it can take longer than
        // the 200 ms stale limit, which is not what this test is about (tests/dispatch_loop.rs
        // covers the stale rule).
        safety: scil::dispatch::safety::SafetyConfig {
            telemetry_stale_s: 2.0,
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("cc");
    assert!(
        h.wait_carrier_state("carrier-1", ObjectState::Disarmed, Duration::from_secs(5))
            .await
    );

    let mut live = LiveDispatch::new(h.clone(), 1.0);
    // 25 Hz samples in a GPS-seconds-of-week time base, paced in real time.
    let t0 = 345_600.0;
    let w0 = Instant::now();
    live.anchor(t0, w0);
    let dt = 0.04;
    let mut predicted = None;
    let mut armed = false;
    for k in 0..80 {
        let t = t0 + k as f64 * dt;
        tokio::time::sleep_until(live.wall(t)).await;
        live.on_sample(t);
        if k == 3 && !armed {
            h.arm(Duration::from_secs(3)).await.expect("arms");
            armed = true;
        }
        if k == 10 && predicted.is_none() {
            // the engine predicts the trigger 17 ms after this sample (between samples)
            let at = t + 0.017;
            live.start(at);
            predicted = Some(at);
        }
    }
    let at = predicted.expect("started");
    let impact = at + 1.0;
    let snap = h.snapshot();
    let reports = carrier_reports(&snap, Some(&live), Some(impact));
    let r = &reports[0];
    let sent = r.strt_sent_s.expect("STRT sent");
    assert!(
        // At the predicted instant, well before the next 25 Hz sample (not a latency benchmark).
        sent >= at - 1e-4 && sent - at < 0.03,
        "STRT {:.4} s after the predicted instant",
        sent - at
    );
    let travel = r.travel_at_impact_m.expect("travel");
    let expected = profile.at(1.0).travel_m;
    assert!(
        (travel - expected).abs() < 0.05,
        "travel at impact {travel:.3} m, profile says {expected:.3} m"
    );
    assert!(r
        .states_seen
        .iter()
        .any(|s| s.state == ObjectState::Running));
    // states are in the sample time base
    assert!(r
        .states_seen
        .iter()
        .all(|s| s.t_s > t0 - 10.0 && s.t_s < t0 + 10.0));
    println!("{}", serde_json::to_string_pretty(&reports).expect("json"));
    h.shutdown().await;
    sim.shutdown().await;
}
