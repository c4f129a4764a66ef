//! Supervisor rules for the stock RI-SE isoObject: readyToArm = 2 arms with a warning,
//! only an explicit 0 blocks (configurable), readiness only matters in DISARMED, no stale abort
//! during arming, the post-run heartbeat follows the object's state.

use super::*;

fn sup(cfg: SafetyConfig) -> Supervisor {
    Supervisor::new(cfg, vec!["a".into()]).expect("valid")
}

fn drain(s: &mut Supervisor) -> Vec<Action> {
    std::iter::from_fn(|| s.poll_action()).collect()
}

fn has_event(a: &[Action], f: impl Fn(&EventKind) -> bool) -> bool {
    a.iter()
        .any(|a| matches!(a, Action::Event { kind, .. } if f(kind)))
}

#[test]
fn unavailable_readiness_arms_with_a_warning() {
    let mut s = sup(SafetyConfig::default());
    s.on_connected(0.0, 0);
    s.on_monr(0.0, 0, ObjectState::Disarmed, Readiness::Unavailable, 0);
    s.request_arm(0.01);
    let a = drain(&mut s);
    assert_eq!(s.phase(), Phase::Arming, "{a:?}");
    assert!(has_event(
        &a,
        |k| matches!(k, EventKind::ReadinessUnavailable { carrier } if carrier == "a")
    ));
    // The library clears readyToArm to 0 when it leaves DISARMED: ARMED with 0 is armed.
    s.on_monr(0.02, 0, ObjectState::Armed, Readiness::NotReady, 0);
    assert_eq!(s.phase(), Phase::Armed);
}

#[test]
fn explicit_not_ready_blocks_and_unavailable_is_configurable() {
    let mut s = sup(SafetyConfig::default());
    s.on_connected(0.0, 0);
    s.on_monr(0.0, 0, ObjectState::Disarmed, Readiness::NotReady, 0);
    s.request_arm(0.01);
    assert!(has_event(&drain(&mut s), |k| matches!(
        k,
        EventKind::ArmRefused { .. }
    )));
    assert_eq!(s.phase(), Phase::Idle);

    let mut s = sup(SafetyConfig {
        arm_when_readiness_unavailable: false,
        ..Default::default()
    });
    s.on_connected(0.0, 0);
    s.on_monr(0.0, 0, ObjectState::Disarmed, Readiness::Unavailable, 0);
    s.request_arm(0.01);
    let a = drain(&mut s);
    assert!(
        has_event(
            &a,
            |k| matches!(k, EventKind::ArmRefused { reason } if reason.contains("unavailable"))
        ),
        "{a:?}"
    );
    assert_eq!(s.phase(), Phase::Idle);
}

#[test]
fn already_armed_object_needs_no_readiness() {
    let mut s = sup(SafetyConfig::default());
    s.on_connected(0.0, 0);
    s.on_monr(0.0, 0, ObjectState::Armed, Readiness::NotReady, 0);
    s.request_arm(0.01);
    drain(&mut s);
    assert_eq!(s.phase(), Phase::Arming);
    s.on_monr(0.02, 0, ObjectState::Armed, Readiness::NotReady, 0);
    assert_eq!(s.phase(), Phase::Armed);
}

/// MONR every 10 ms in `state` from `t0` to `t1`, handling due timeouts; the time reached.
fn monr_until(s: &mut Supervisor, t0: f64, t1: f64, state: ObjectState) -> f64 {
    let mut t = t0;
    while t < t1 - 1e-9 {
        t += 0.01;
        s.on_monr(t, 0, state, false, 0);
        if s.poll_timeout().is_some_and(|d| d <= t) {
            s.handle_timeout(t);
        }
    }
    t
}

fn aborted(a: &[Action]) -> bool {
    has_event(a, |k| matches!(k, EventKind::Abort { .. }))
}

#[test]
fn no_stale_abort_during_arming_or_before_the_first_sample() {
    let mut s = sup(SafetyConfig::default());
    s.on_connected(0.0, 0);
    s.on_monr(0.0, 0, ObjectState::Disarmed, true, 0);
    s.on_sample(0.0); // a sample from before the arm request does not start the clock
    s.request_arm(0.0);
    // Arming takes 1 s (the isoObject goes through PreArming), MONR keep coming.
    let t = monr_until(&mut s, 0.0, 1.0, ObjectState::PreArming);
    assert_eq!(s.phase(), Phase::Arming);
    s.on_monr(t, 0, ObjectState::Armed, false, 0);
    assert_eq!(s.phase(), Phase::Armed);
    // Armed without samples yet: no stale clock.
    let t = monr_until(&mut s, t, t + 0.5, ObjectState::Armed);
    assert!(!aborted(&drain(&mut s)));
    assert_eq!(s.phase(), Phase::Armed);
    // The first sample starts it.
    s.on_sample(t);
    monr_until(&mut s, t, t + 0.19, ObjectState::Armed);
    assert!(!aborted(&drain(&mut s)));
    monr_until(&mut s, t + 0.19, t + 0.21, ObjectState::Armed);
    assert!(has_event(&drain(&mut s), |k| matches!(
        k,
        EventKind::Abort {
            reason: AbortReason::TelemetryStale { .. }
        }
    )));
}

#[test]
fn running_without_samples_is_stale_from_the_start() {
    let mut s = sup(SafetyConfig::default());
    s.on_connected(0.0, 0);
    s.on_monr(0.0, 0, ObjectState::Disarmed, true, 0);
    s.request_arm(0.0);
    s.on_monr(0.01, 0, ObjectState::Armed, true, 0);
    let t = monr_until(&mut s, 0.01, 1.0, ObjectState::Armed);
    s.request_start(t, t);
    drain(&mut s);
    assert_eq!(s.phase(), Phase::Running);
    monr_until(&mut s, t, t + 0.19, ObjectState::Running);
    assert!(!aborted(&drain(&mut s)));
    monr_until(&mut s, t + 0.19, t + 0.21, ObjectState::Running);
    assert!(has_event(&drain(&mut s), |k| matches!(
        k,
        EventKind::Abort {
            reason: AbortReason::TelemetryStale { .. }
        }
    )));
}

#[test]
fn heartbeat_leaves_normal_stop_once_the_object_stopped() {
    let mut s = sup(SafetyConfig::default());
    s.on_connected(0.0, 0);
    s.on_monr(0.0, 0, ObjectState::Disarmed, true, 0);
    s.request_arm(0.0);
    s.on_monr(0.1, 0, ObjectState::Armed, true, 0);
    s.request_start(0.2, 0.2);
    s.on_sample(0.2);
    s.on_monr(0.25, 0, ObjectState::Running, false, 0);
    drain(&mut s);
    s.finish(3.0);
    assert!(drain(&mut s).contains(&Action::HeabStatus(CcStatus::NormalStop)));
    s.on_monr(3.01, 0, ObjectState::Running, false, 0);
    assert!(
        !drain(&mut s).contains(&Action::HeabStatus(CcStatus::Ready)),
        "object still running"
    );
    s.on_monr(3.02, 0, ObjectState::Postrun, false, 0);
    assert!(drain(&mut s).contains(&Action::HeabStatus(CcStatus::Ready)));
    s.on_monr(3.03, 0, ObjectState::Postrun, false, 0);
    assert!(drain(&mut s)
        .iter()
        .all(|a| !matches!(a, Action::HeabStatus(_))));
}
