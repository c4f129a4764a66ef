//! The safety supervisor's rules, sample by sample.
use super::*;

fn sup(n: u32) -> Supervisor {
    let cfg = SafetyConfig {
        monr_miss_limit: n,
        ..Default::default()
    };
    Supervisor::new(cfg, vec!["a".into(), "b".into()]).expect("valid")
}

fn drain(s: &mut Supervisor) -> Vec<Action> {
    std::iter::from_fn(|| s.poll_action()).collect()
}

fn aborted(actions: &[Action]) -> Option<AbortReason> {
    actions.iter().find_map(|a| match a {
        Action::Event {
            kind: EventKind::Abort { reason },
            ..
        } => Some(reason.clone()),
        _ => None,
    })
}

fn connect_all(s: &mut Supervisor, now: f64) {
    for i in 0..2 {
        s.on_connected(now, i);
        s.on_monr(now, i, ObjectState::Disarmed, true, 0);
    }
}

#[test]
fn rejects_zero_miss_limit() {
    let cfg = SafetyConfig {
        monr_miss_limit: 0,
        ..Default::default()
    };
    assert!(Supervisor::new(cfg, vec![]).is_err());
}

#[test]
fn arms_only_when_every_carrier_armed_and_ready() {
    let mut s = sup(10);
    s.on_connected(0.0, 0);
    s.on_monr(0.0, 0, ObjectState::Disarmed, true, 0);
    s.request_arm(0.0);
    assert_eq!(s.phase(), Phase::Idle, "carrier b not connected");
    s.on_connected(0.0, 1);
    s.on_monr(0.0, 1, ObjectState::Disarmed, true, 0);
    drain(&mut s);
    s.on_sample(0.0);
    s.request_arm(0.0);
    assert_eq!(s.phase(), Phase::Arming);
    let a = drain(&mut s);
    assert_eq!(
        a.iter()
            .filter(|a| matches!(
                a,
                Action::Ostm {
                    command: OstmCommand::Arm,
                    ..
                }
            ))
            .count(),
        2
    );
    s.on_monr(0.01, 0, ObjectState::Armed, true, 0);
    assert_eq!(s.phase(), Phase::Arming);
    // readyToArm only matters in DISARMED: the isoObject clears it on leaving DISARMED.
    s.on_monr(0.01, 1, ObjectState::Armed, false, 0);
    assert_eq!(s.phase(), Phase::Armed, "ARMED with readyToArm 0 is armed");
    s.request_start(0.03, 0.5);
    let a = drain(&mut s);
    assert!(a.contains(&Action::Strt {
        carrier: 0,
        at_s: 0.5
    }));
    assert_eq!(s.phase(), Phase::Running);
}

#[test]
fn start_refused_unless_armed() {
    let mut s = sup(10);
    connect_all(&mut s, 0.0);
    s.request_start(0.0, 1.0);
    assert!(!drain(&mut s)
        .iter()
        .any(|a| matches!(a, Action::Strt { .. })));
}

#[test]
fn per_carrier_start_and_retime() {
    let mut s = armed(10);
    // retime before any start: refused
    s.request_retime(0.01, 0, 0.02);
    assert!(!drain(&mut s)
        .iter()
        .any(|a| matches!(a, Action::Mtsp { .. })));
    assert_eq!(s.carrier_index("b"), Some(1));
    s.request_start_carrier(0.01, 0, 0.5);
    let a = drain(&mut s);
    assert!(a.contains(&Action::Strt {
        carrier: 0,
        at_s: 0.5
    }));
    assert!(!a
        .iter()
        .any(|a| matches!(a, Action::Strt { carrier: 1, .. })));
    assert!(a.contains(&Action::HeabStatus(CcStatus::Running)));
    assert_eq!(s.phase(), Phase::Running);
    // the same carrier again: refused; the other one: started; b retimed, a too
    s.request_start_carrier(0.02, 0, 0.6);
    s.request_start_carrier(0.02, 1, 0.7);
    s.request_retime(0.8, 0, 0.505);
    let a = drain(&mut s);
    let strts: Vec<_> = a
        .iter()
        .filter(|a| matches!(a, Action::Strt { .. }))
        .collect();
    assert_eq!(
        strts,
        vec![&Action::Strt {
            carrier: 1,
            at_s: 0.7
        }]
    );
    assert!(a.iter().any(|a| matches!(
        a,
        Action::Event {
            kind: EventKind::StartRefused { .. },
            ..
        }
    )));
    assert!(a.contains(&Action::Mtsp {
        carrier: 0,
        origin_s: 0.505
    }));
    // all-carriers start is refused once running
    s.request_start(0.9, 1.0);
    assert!(!drain(&mut s)
        .iter()
        .any(|a| matches!(a, Action::Strt { .. })));
}

fn armed(n: u32) -> Supervisor {
    let mut s = sup(n);
    connect_all(&mut s, 0.0);
    s.request_arm(0.0);
    s.on_sample(0.0);
    s.on_monr(0.005, 0, ObjectState::Armed, true, 0);
    s.on_monr(0.005, 1, ObjectState::Armed, true, 0);
    assert_eq!(s.phase(), Phase::Armed);
    drain(&mut s);
    s
}

#[test]
fn stale_telemetry_aborts_armed_run() {
    let mut s = armed(100);
    s.on_sample(0.1);
    let t = s.poll_timeout().expect("deadline");
    assert!(
        (t - 0.3).abs() < 1e-9,
        "stale deadline at last sample + 0.2 s: {t}"
    );
    s.handle_timeout(0.25);
    assert!(aborted(&drain(&mut s)).is_none());
    s.handle_timeout(0.3);
    let a = drain(&mut s);
    assert!(matches!(
        aborted(&a),
        Some(AbortReason::TelemetryStale { .. })
    ));
    assert!(a.contains(&Action::HeabStatus(CcStatus::Abort)));
    assert_eq!(s.phase(), Phase::Aborted);
}

#[test]
fn n_consecutive_missing_monr_aborts() {
    let mut s = armed(3);
    // a keeps reporting, b stops after 0.005
    for k in 1..=3 {
        let t = 0.005 + k as f64 * 0.01;
        s.on_sample(t);
        s.on_monr(t, 0, ObjectState::Armed, true, 0);
    }
    // b: deadline 0.005 + 3.5 * 0.01 = 0.04
    s.handle_timeout(0.039);
    assert!(aborted(&drain(&mut s)).is_none());
    s.handle_timeout(0.041);
    match aborted(&drain(&mut s)) {
        Some(AbortReason::MonrLost { carrier, missed }) => {
            assert_eq!(carrier, "b");
            assert_eq!(missed, 3);
        }
        other => panic!("expected MonrLost, got {other:?}"),
    }
}

#[test]
fn missing_monr_when_idle_is_only_an_event() {
    let mut s = sup(2);
    connect_all(&mut s, 0.0);
    drain(&mut s);
    s.handle_timeout(1.0);
    let a = drain(&mut s);
    assert!(aborted(&a).is_none());
    assert!(a.iter().any(|a| matches!(
        a,
        Action::Event {
            kind: EventKind::MonrMissing { .. },
            ..
        }
    )));
}

#[test]
fn estop_and_all_clear() {
    let mut s = armed(10);
    s.estop(0.01, "operator");
    assert_eq!(s.phase(), Phase::Aborted);
    assert!(matches!(
        aborted(&drain(&mut s)),
        Some(AbortReason::Estop { .. })
    ));
    s.all_clear(0.5);
    assert_eq!(s.phase(), Phase::Idle);
    let a = drain(&mut s);
    assert_eq!(
        a.iter()
            .filter(|a| matches!(
                a,
                Action::Ostm {
                    command: OstmCommand::AllClear,
                    ..
                }
            ))
            .count(),
        2
    );
}

#[test]
fn carrier_abort_report_aborts_all() {
    let mut s = armed(10);
    s.on_monr(0.01, 1, ObjectState::Armed, true, error_bits::ABORT_REQUEST);
    assert_eq!(s.phase(), Phase::Aborted);
}

#[test]
fn arm_timeout_disarms() {
    let mut s = sup(1000);
    connect_all(&mut s, 0.0);
    s.on_sample(0.0);
    s.request_arm(0.0);
    s.on_monr(0.1, 0, ObjectState::Armed, true, 0);
    for k in 1..40 {
        let t = k as f64 * 0.1;
        s.on_sample(t);
        s.on_monr(t, 1, ObjectState::Disarmed, true, 0);
        s.on_monr(t, 0, ObjectState::Armed, true, 0);
        s.handle_timeout(t);
    }
    assert_eq!(s.phase(), Phase::Idle);
}

/// A carrier on a straight TRAJ from its start: `x(t)` and `v(t)` over 10 s.
fn on_straight_path(s: &mut Supervisor, carrier: usize, x: fn(f64) -> f64, v: fn(f64) -> f64) {
    use crate::dispatch::iso22133::{Traj, TrajPoint};
    let points = (0..=200)
        .map(|k| {
            let t = k as f64 * 0.05;
            TrajPoint {
                rel_time_ms: (t * 1000.0).round() as u32,
                x_mm: (x(t) * 1000.0).round() as i32,
                speed_lon_cm_s: (v(t) * 100.0).round() as i16,
                ..Default::default()
            }
        })
        .collect();
    s.set_path(
        carrier,
        &Traj {
            points,
            ..Default::default()
        },
    );
}

fn mtsp_origin(actions: &[Action]) -> Option<f64> {
    actions.iter().find_map(|a| match a {
        Action::Mtsp { origin_s, .. } => Some(*origin_s),
        _ => None,
    })
}

/// A supervisor with lag compensation, carrier 0 started at t = 1 on the path `x(t)`, `v(t)`.
fn started_on(x: fn(f64) -> f64, v: fn(f64) -> f64) -> Supervisor {
    let mut s = Supervisor::new(
        SafetyConfig {
            lag_compensation: true,
            ..Default::default()
        },
        vec!["a".into(), "b".into()],
    )
    .expect("valid");
    connect_all(&mut s, 0.0);
    s.request_arm(0.0);
    s.on_sample(0.0);
    s.on_monr(0.005, 0, ObjectState::Armed, true, 0);
    s.on_monr(0.005, 1, ObjectState::Armed, true, 0);
    on_straight_path(&mut s, 0, x, v);
    // Armed at its start (the motion rules settle from the first MONR).
    s.on_position(0.006, 0.006, 0, (0.0, 0.0), 0.0);
    s.request_start_carrier(0.01, 0, 1.0);
    drain(&mut s);
    s
}

/// Carrier 0 reports `x` at `now`, then is retimed to `origin`: the MTSP's origin.
fn retime_at(s: &mut Supervisor, now: f64, x: f64, speed: f64, origin: f64) -> f64 {
    s.on_sample(now);
    s.on_monr(now, 0, ObjectState::Running, true, 0);
    s.on_position(now, now, 0, (x, 0.0), speed);
    s.request_retime(now, 0, origin);
    mtsp_origin(&drain(s)).expect("MTSP")
}

#[test]
fn lag_compensation_counts_the_lag_behind_the_schedule_given_not_a_new_retime() {
    // Launching at 2 m/s² from its start at t = 1.
    let mut s = started_on(|t| t * t, |t| 2.0 * t);
    // 4 cm behind its STRT's schedule at t = 3 (4 m planned): a retime 0.05 s earlier goes
    // out less twice its lag; it has not had the time to follow the retime, which is not lag.
    let sent = retime_at(&mut s, 3.0, 3.96, 4.0, 0.95);
    let lag = s.lag(0).expect("lag").s;
    assert!(lag > 0.005 && lag < 0.02, "{lag}");
    assert!(
        (sent - (0.95 - LAG_COMPENSATION_GAIN * lag)).abs() < 1e-9,
        "{sent}"
    );
    // At t = 3.1 still 1 cm behind the STRT's schedule: behind the schedule given by that
    // lag and the 0.05 s; the next retime (to the same origin) goes out twice that earlier.
    let sent = retime_at(&mut s, 3.1, 4.40, 4.2, 0.95);
    let lag = s.lag(0).expect("lag").s;
    let want = 0.95 - LAG_COMPENSATION_GAIN * (lag + 0.05);
    assert!((sent - want).abs() < 1e-9, "{sent} {want}");
    assert!(sent < 0.86, "{sent}");
}

#[test]
fn no_lag_compensation_once_the_plan_cruises() {
    // At 10 m/s from its start at t = 1: 0.5 m behind at t = 3 goes out as asked (its own
    // controller and the engine's retimes within the speed tolerance keep it on schedule).
    let mut s = started_on(|t| 10.0 * t, |_| 10.0);
    let sent = retime_at(&mut s, 3.0, 19.5, 10.0, 0.95);
    assert!(s.lag(0).expect("lag").m > 0.49);
    assert_eq!(sent, 0.95);
}

#[test]
fn an_origin_sent_early_for_launch_lag_is_taken_back_once_the_plan_cruises() {
    // Launching at 2 m/s² from its start at t = 1 up to 10 m/s (5 s later), then cruising.
    let x = |t: f64| {
        if t < 5.0 {
            t * t
        } else {
            25.0 + 10.0 * (t - 5.0)
        }
    };
    let v = |t: f64| (2.0 * t).min(10.0);
    let mut s = started_on(x, v);
    // Behind in its launch: the retime to 0.95 goes out earlier.
    let sent = retime_at(&mut s, 3.0, 3.96, 4.0, 0.95);
    assert!(sent < 0.95 - 1e-3, "{sent}");
    // On schedule from then on, and no further retime: while its plan still accelerates
    // nothing is sent; once it cruises, the plain origin asked for.
    let mut resent = Vec::new();
    for k in 1..=60 {
        let now = 3.0 + 0.1 * k as f64;
        s.on_sample(now);
        s.on_monr(now, 0, ObjectState::Running, true, 0);
        s.on_position(now, now, 0, (x(now - 0.95), 0.0), v(now - 0.95));
        if let Some(o) = mtsp_origin(&drain(&mut s)) {
            resent.push((now, o));
        }
    }
    assert_eq!(resent.len(), 1, "{resent:?}");
    let (at, origin) = resent[0];
    assert_eq!(origin, 0.95);
    // Its plan cruises from t = 6.95 (5 s after the origin), seen 1 s ahead.
    assert!(at > 5.9 && at < 7.0, "{at}");
}
