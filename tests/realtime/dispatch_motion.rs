//! The control centre's motion rules against the project's object simulator showing faults
//! (`scil carrier-sim --fault`) over real ISO 22133 links: a sideways drift, excess speed, a
//! position jump, MONR stopping and a disconnect each abort the run, naming the object and
//! the rule, within the time the rule promises.

use std::time::Duration;

use scil::dispatch::carrier_sim::{self, SimConfig, SimHandle};
use scil::dispatch::control_centre::{
    CarrierConfig, CarrierMode, ControlCentre, ControlCentreConfig, ControlCentreHandle,
};
use scil::dispatch::events::{AbortReason, EventKind, Phase};
use scil::dispatch::object::ObjectConfig;
use scil::dispatch::object_faults::Fault;
use scil::dispatch::profile::DummyProfile;
use scil::dispatch::safety::SafetyConfig;
use tokio::time::Instant;

const T: Duration = Duration::from_secs(5);

/// One test at a time: they time aborts.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn object(fault: &str) -> SimHandle {
    carrier_sim::spawn(SimConfig {
        tcp_port: 0,
        udp_port: 0,
        object: ObjectConfig {
            id: 7,
            faults: vec![Fault::parse(fault).expect("fault")],
            ..Default::default()
        },
        ..Default::default()
    })
    .await
    .expect("sim binds")
}

fn control_centre(sim: &SimHandle) -> ControlCentreHandle {
    let mut profile = DummyProfile::from_scenario(0.0, 0.0, 90.0, 2.0, 20.0);
    profile.max_travel_m = 60.0;
    ControlCentre::spawn(ControlCentreConfig {
        carriers: vec![CarrierConfig {
            name: "ptw".into(),
            object_id: 7,
            host: "127.0.0.1".into(),
            tcp_port: sim.tcp_addr.port(),
            udp_port: sim.udp_addr.port(),
            mode: CarrierMode::Trajectory,
            profile: Some(profile),
        }],
        safety: SafetyConfig {
            // No VUT here: the stale-telemetry rule is fed by a ticker.
            telemetry_stale_s: 1.0,
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("valid config")
}

/// Arms the object showing `fault`, starts it when `start`, and waits for the abort: its
/// reason and the seconds from the arm (or the start) to it.
async fn abort_of(fault: &str, start: bool) -> (AbortReason, f64) {
    let _one = SERIAL.lock().await;
    let sim = object(fault).await;
    let h = control_centre(&sim);
    let tick = {
        let h = h.clone();
        tokio::spawn(async move {
            loop {
                h.telemetry();
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
    };
    assert!(h.wait_armable(T).await, "connects: {:?}", h.snapshot());
    let mut ev = h.events();
    h.arm(T).await.expect("arms");
    let t0 = Instant::now();
    if start {
        h.start_at(t0);
    }
    let reason = tokio::time::timeout(Duration::from_secs(15), async {
        loop {
            if let Ok(e) = ev.recv().await {
                if let EventKind::Abort { reason } = e.kind {
                    return reason;
                }
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{fault}: never aborted: {:?}", h.snapshot().events));
    let after = t0.elapsed().as_secs_f64();
    assert!(
        h.wait_phase(Phase::Aborted, Duration::from_millis(100))
            .await,
        "{fault}: the control centre is aborted"
    );
    println!("{fault}: {:.2} s: {}", after, reason.info().text);
    tick.abort();
    h.shutdown().await;
    sim.shutdown().await;
    (reason, after)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sideways_drift_of_3_mps_aborts_within_2_s_naming_the_path_deviation() {
    let (r, after) = abort_of("drift=3@start+2", true).await;
    let info = r.info();
    assert_eq!(info.kind, "path_deviation", "{info:?}");
    assert_eq!(info.object.as_deref(), Some("ptw"));
    assert!(
        info.text.starts_with("ptw is 1.")
            && info.text.contains("m right of its path (limit 1.0 m)"),
        "{}",
        info.text
    );
    // 1.0 m after a third of a second; within 2 s of the drift's start in any case.
    assert!(
        (2.0..4.0).contains(&after),
        "aborted {after:.2} s after the start"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn excess_speed_aborts_naming_it() {
    let (r, after) = abort_of("overspeed=1.5@start+1.5", true).await;
    assert!(matches!(r, AbortReason::Overspeed { .. }), "{r:?}");
    assert!((1.5..3.5).contains(&after), "{after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_overspeed_of_5_kmh_aborts_despite_the_catch_up_allowance() {
    // 20 km/h planned, 25 km/h driven from 1.5 s on: the object runs ahead of its plan, so no
    // catch-up is allowed and 5 km/h is beyond the 3.6 km/h limit.
    let (r, after) = abort_of("overspeed=1.25@start+1.5", true).await;
    match &r {
        AbortReason::Overspeed {
            speed_mps,
            planned_mps,
            limit_mps,
            ..
        } => {
            assert!((speed_mps - planned_mps) * 3.6 > 3.6, "{r:?}");
            assert!(*limit_mps * 3.6 < 3.7, "allowance while ahead: {r:?}");
        }
        other => panic!("{other:?}"),
    }
    assert!((1.5..3.5).contains(&after), "{after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_position_jump_aborts_naming_it() {
    let (r, after) = abort_of("jump=3@start+2", true).await;
    assert!(matches!(r, AbortReason::PositionJump { .. }), "{r:?}");
    assert!((2.0..2.5).contains(&after), "{after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn motion_before_the_start_aborts() {
    // Standing armed, its reported position creeps away at 1 m/s.
    let (r, after) = abort_of("drift=1@armed+1.5", false).await;
    assert!(matches!(r, AbortReason::MovedBeforeStart { .. }), "{r:?}");
    assert!((1.5..3.0).contains(&after), "{after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn monr_stopping_while_armed_aborts_within_1_s() {
    let (r, after) = abort_of("monr-stop@armed+1", false).await;
    assert!(matches!(r, AbortReason::MonrLost { .. }), "{r:?}");
    assert!((1.0..2.0).contains(&after), "{after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disconnect_while_running_aborts_within_1_s() {
    let (r, after) = abort_of("disconnect@start+1", true).await;
    assert!(
        matches!(r, AbortReason::CarrierDisconnected { .. }),
        "{r:?}"
    );
    assert!((1.0..2.0).contains(&after), "{after}");
}
