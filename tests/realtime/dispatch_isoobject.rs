//! The control centre against the in-repo object simulator behaving like the stock RI-SE
//! isoObject demo: readyToArm = 2 (unavailable) in Disarmed and 0 once it left it,
//! and HEAB NORMAL_STOP outside Running is an "unexpected event" for it.

use scil::dispatch::carrier_sim::{self, SimConfig, SimHandle};
use scil::dispatch::control_centre::{
    CarrierConfig, CarrierMode, ControlCentre, ControlCentreConfig, ControlCentreHandle, GeoOrigin,
};
use scil::dispatch::events::{EventKind, Phase};
use scil::dispatch::iso22133::ObjectState;
use scil::dispatch::object::ObjectConfig;
use scil::dispatch::profile::DummyProfile;
use scil::dispatch::safety::SafetyConfig;
use std::time::Duration;
use tokio::time::Instant;

const T: Duration = Duration::from_secs(5);

async fn isoobject_like() -> SimHandle {
    carrier_sim::spawn(SimConfig {
        tcp_port: 0,
        udp_port: 0,
        object: ObjectConfig {
            id: 7,
            ready_to_arm: false,
            isoobject_readiness: true,
            profile: DummyProfile::from_scenario(0.0, 0.0, 0.0, 0.5, 5.0),
            ..Default::default()
        },
        ..Default::default()
    })
    .await
    .expect("sim binds")
}

fn cc(sim: &SimHandle, safety: SafetyConfig) -> ControlCentreHandle {
    ControlCentre::spawn(ControlCentreConfig {
        origin: GeoOrigin {
            lat_deg: 57.71,
            lon_deg: 12.94,
            alt_m: 200.0,
            rotation_deg: 0.0,
        },
        carriers: vec![CarrierConfig {
            name: "iso".into(),
            object_id: 7,
            host: "127.0.0.1".into(),
            tcp_port: sim.tcp_addr.port(),
            udp_port: sim.udp_addr.port(),
            mode: CarrierMode::Trajectory,
            profile: Some(DummyProfile::from_scenario(0.0, 0.0, 0.0, 0.5, 5.0)),
        }],
        safety,
        heab_timeout_ms: Some(500),
        ..Default::default()
    })
    .expect("valid config")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arms_an_object_reporting_readiness_unavailable_and_stops_cleanly() {
    let mut sim = isoobject_like().await;
    let h = cc(&sim, SafetyConfig::default());
    assert!(h.wait_carrier_state("iso", ObjectState::Disarmed, T).await);
    assert_eq!(sim.status().last_monr.map(|m| m.ready_to_arm), Some(2));
    assert!(h.wait_armable(T).await, "armable with readyToArm = 2");

    h.arm(T).await.expect("arms although readyToArm = 2");
    assert!(sim.wait_state(ObjectState::Armed, T).await);
    assert_eq!(h.snapshot().phase, Phase::Armed);
    assert!(h.snapshot().events.iter().any(
        |e| matches!(&e.kind, EventKind::ReadinessUnavailable { carrier } if carrier == "iso")
    ));
    // No VUT sample yet and ARMED for a while: no stale-telemetry abort.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        h.snapshot().phase,
        Phase::Armed,
        "{:?}",
        h.snapshot().events
    );

    h.start_at(Instant::now() + Duration::from_millis(50));
    // Samples from now on (the run's VUT telemetry).
    let h2 = h.clone();
    let feed = tokio::spawn(async move {
        loop {
            h2.telemetry();
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    assert!(sim.wait_state(ObjectState::Running, T).await);
    tokio::time::sleep(Duration::from_millis(300)).await;
    h.finish();
    assert!(sim.wait_state(ObjectState::Postrun, T).await);
    // The heartbeat keeps going for a while after the stop.
    tokio::time::sleep(Duration::from_millis(600)).await;
    feed.abort();
    let st = sim.status();
    println!(
        "HEAB received {}, NORMAL_STOP outside Running {}",
        st.heab_received, st.unexpected_heab
    );
    assert!(
        st.unexpected_heab <= 5,
        "NORMAL_STOP keeps coming after the object stopped: {} of {} HEAB",
        st.unexpected_heab,
        st.heab_received
    );
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unavailable_readiness_can_be_required() {
    let sim = isoobject_like().await;
    let h = cc(
        &sim,
        SafetyConfig {
            arm_when_readiness_unavailable: false,
            ..Default::default()
        },
    );
    assert!(h.wait_carrier_state("iso", ObjectState::Disarmed, T).await);
    assert!(!h.wait_armable(Duration::from_millis(300)).await);
    let e = h.arm(T).await.expect_err("refused");
    assert!(e.to_string().contains("unavailable"), "{e}");
    h.shutdown().await;
}
