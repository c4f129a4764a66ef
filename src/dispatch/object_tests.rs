//! The sans-IO test object: its states, MTSP and TRAJ following.
use super::*;
use crate::dispatch::iso22133::Ostm;

fn drain(o: &mut TestObject) -> Vec<ObjectOutput> {
    std::iter::from_fn(|| o.poll_output()).collect()
}

#[test]
fn lifecycle() {
    let mut o = TestObject::new(ObjectConfig::default(), 1000.0);
    o.handle_connected(0.0);
    assert_eq!(o.state(), ObjectState::Disarmed);
    let heab = |s| Heab {
        time_qms_of_week: 0,
        status: s,
    };
    o.handle_heab(0.0, &heab(CcStatus::Ready));
    o.handle_timeout(0.0);
    assert!(drain(&mut o)
        .iter()
        .any(|x| matches!(x, ObjectOutput::Monr(_))));
    arm_and_start(&mut o, 0.01, 0.02);
    o.handle_heab(0.05, &heab(CcStatus::Running));
    let y0 = o.monr(0.05).y_mm;
    o.handle_heab(1.0, &heab(CcStatus::Running));
    let y1 = o.monr(1.0).y_mm;
    assert!(y1 > y0, "dummy moves north: {y0} -> {y1}");
    o.handle_heab(1.05, &heab(CcStatus::Abort));
    assert_eq!(o.state(), ObjectState::Aborting);
    let frozen = o.monr(1.05);
    assert_eq!(o.monr(1.08).y_mm, frozen.y_mm);
    assert_eq!(frozen.speed_lon_cm_s, 0);
    o.handle_tcp(
        1.1,
        &Message::Ostm(Ostm {
            command: OstmCommand::AllClear,
        }),
    );
    assert_eq!(o.state(), ObjectState::Disarmed);
    // heartbeat timeout: 10 periods of 100 Hz
    o.handle_timeout(1.05 + 0.1);
    assert_eq!(o.state(), ObjectState::Init);
    assert!(drain(&mut o)
        .iter()
        .any(|x| matches!(x, ObjectOutput::Disconnect { .. })));
}

#[test]
fn strt_ignored_unless_armed() {
    let mut o = TestObject::new(ObjectConfig::default(), 0.0);
    o.handle_connected(0.0);
    o.handle_tcp(
        0.0,
        &Message::Strt(Strt {
            start_qms_of_week: STRT_NOW,
            gps_week: None,
        }),
    );
    assert_eq!(o.state(), ObjectState::Disarmed);
}

/// OSTM ARM at `t_arm`, STRT (now) at `t_strt`; the object is ARMED, then RUNNING.
fn arm_and_start(o: &mut TestObject, t_arm: f64, t_strt: f64) {
    o.handle_tcp(
        t_arm,
        &Message::Ostm(Ostm {
            command: OstmCommand::Arm,
        }),
    );
    assert_eq!(o.state(), ObjectState::Armed);
    o.handle_tcp(
        t_strt,
        &Message::Strt(Strt {
            start_qms_of_week: STRT_NOW,
            gps_week: None,
        }),
    );
    assert_eq!(o.state(), ObjectState::Running);
}

fn running(gps_base_s: f64) -> TestObject {
    let mut o = TestObject::new(ObjectConfig::default(), gps_base_s);
    o.handle_connected(0.0);
    arm_and_start(&mut o, 0.0, 1.0);
    o
}

#[test]
fn mtsp_moves_the_time_origin_within_bounds() {
    // GPS base near the end of the week: the conversion wraps.
    let base = 604_800.0 - 1.0;
    let mut o = running(base);
    assert_eq!(o.start_time(), Some(1.0));
    let qms = |local: f64| (((base + local) * 4000.0).round() as u64 % (604_800 * 4000)) as u32;
    // 8 ms later, received at 1.5 s (across the week boundary)
    o.handle_tcp(
        1.5,
        &Message::Mtsp(Mtsp {
            estimated_sync_qms_of_week: qms(1.008),
        }),
    );
    let t0 = o.start_time().expect("started");
    assert!((t0 - 1.008).abs() < 1e-3, "origin {t0}");
    assert!(drain(&mut o).iter().any(
        |x| matches!(x, ObjectOutput::Retimed { shift_s, .. } if (shift_s - 0.008).abs() < 1e-3)
    ));
    let before = o.monr(3.0).y_mm;
    // 5 ms earlier again: the dummy is ahead by the shift
    o.handle_tcp(
        1.6,
        &Message::Mtsp(Mtsp {
            estimated_sync_qms_of_week: qms(1.003),
        }),
    );
    assert!(o.monr(3.0).y_mm > before);
    // beyond ±100 ms, unavailable: rejected, origin unchanged
    let t0 = o.start_time();
    o.handle_tcp(
        1.7,
        &Message::Mtsp(Mtsp {
            estimated_sync_qms_of_week: qms(1.2),
        }),
    );
    o.handle_tcp(
        1.7,
        &Message::Mtsp(Mtsp {
            estimated_sync_qms_of_week: u32::MAX,
        }),
    );
    assert_eq!(o.start_time(), t0);
    let rejected = drain(&mut o)
        .iter()
        .filter(|x| {
            matches!(
                x,
                ObjectOutput::Rejected {
                    message: "MTSP",
                    ..
                }
            )
        })
        .count();
    assert_eq!(rejected, 2);
}

#[test]
fn mtsp_rejected_unless_running_or_when_not_supported() {
    let mut o = TestObject::new(ObjectConfig::default(), 0.0);
    o.handle_connected(0.0);
    o.handle_tcp(
        0.1,
        &Message::Mtsp(Mtsp {
            estimated_sync_qms_of_week: 400,
        }),
    );
    assert!(o.start_time().is_none());
    let mut o = TestObject::new(
        ObjectConfig {
            honour_mtsp: false,
            ..Default::default()
        },
        0.0,
    );
    o.handle_connected(0.0);
    arm_and_start(&mut o, 0.0, 1.0);
    o.handle_tcp(
        1.5,
        &Message::Mtsp(Mtsp {
            estimated_sync_qms_of_week: 4020,
        }),
    );
    assert_eq!(o.start_time(), Some(1.0));
}

/// A path target's MONR (built-in motion and TRAJ following) lies on the path
/// with the heading of its tangent: a circle of R = 30 m sampled every 0.5 m.
#[test]
fn monr_follows_a_curved_path() {
    use crate::dispatch::profile::cdeg_to_yaw;
    use crate::scenario::path::Polyline;
    use crate::scenario::profile::Profile;
    use crate::scenario::Point;
    let r = 30.0;
    let pts: Vec<Point> = (0..=120)
        .map(|k| {
            let a = k as f64 * 0.5 / r;
            Point {
                x: r * a.sin(),
                y: r * (1.0 - a.cos()),
            }
        })
        .collect();
    let line = Polyline::new(&pts).expect("line");
    let profile = DummyProfile {
        motion: Profile::new(0.0, 0.0, 0.0, 2.0, 20.0 / 3.6),
        max_travel_m: line.length(),
        path: Some(std::sync::Arc::new(line)),
        launch: None,
    };
    let traj = profile.to_traj(1, "t", 0.05);
    for with_traj in [false, true] {
        let cfg = ObjectConfig {
            profile: profile.clone(),
            ..Default::default()
        };
        let mut o = TestObject::new(cfg, 1000.0);
        o.handle_connected(0.0);
        if with_traj {
            o.handle_tcp(0.0, &Message::Traj(traj.clone()));
        }
        o.handle_heab(
            0.0,
            &Heab {
                time_qms_of_week: 0,
                status: CcStatus::Ready,
            },
        );
        arm_and_start(&mut o, 0.01, 0.02);
        let (mut worst_r, mut worst_yaw, mut worst_s) = (0.0f64, 0.0f64, 0.0f64);
        let mut t = 0.02;
        while t < 0.02 + profile.duration_s() + 0.5 {
            o.handle_heab(
                t,
                &Heab {
                    time_qms_of_week: 0,
                    status: CcStatus::Running,
                },
            );
            o.handle_timeout(t);
            let m = o.monr(t);
            let (x, y) = (m.x_mm as f64 / 1000.0, m.y_mm as f64 / 1000.0);
            worst_r = worst_r.max((x.hypot(y - r) - r).abs());
            let a = x.atan2(r - y); // angle travelled on the circle
            let dy = (cdeg_to_yaw(m.yaw_cdeg) - a + std::f64::consts::PI)
                .rem_euclid(std::f64::consts::TAU)
                - std::f64::consts::PI;
            worst_yaw = worst_yaw.max(dy.abs().to_degrees());
            let tau = (t - 0.02).min(profile.duration_s());
            worst_s =
                worst_s.max((a * r - profile.motion.travel(tau).min(profile.max_travel_m)).abs());
            t += 0.01;
        }
        eprintln!(
            "carrier MONR on a R = 30 m path (TRAJ {with_traj}): radius {:.3} mm, yaw {:.4} deg, travel {:.3} mm",
            worst_r * 1e3, worst_yaw, worst_s * 1e3
        );
        assert!(worst_r < 0.002, "{worst_r}");
        assert!(worst_yaw < 0.1, "{worst_yaw}");
        assert!(worst_s < 0.01, "{worst_s}");
        assert_eq!(o.state(), ObjectState::Postrun, "ends at the path's end");
    }
}

/// With a platform's dynamics: it moves its dead time after the start, accelerates within its
/// limit, and each MONR leaves its latency after the instant it reports.
#[test]
fn a_realistic_object_starts_late_and_sends_its_monr_late() {
    use crate::dispatch::object_dynamics::Dynamics;
    let cfg = ObjectConfig {
        dynamics: Dynamics {
            dead_time_s: 0.2,
            max_accel_mps2: 2.0,
            max_decel_mps2: 4.0,
            monr_latency_s: (0.03, 0.03),
            ..Dynamics::default()
        },
        ..Default::default()
    };
    let base = 1000.0;
    let mut o = TestObject::new(cfg, base);
    o.handle_connected(0.0);
    let heab = |s| Heab {
        time_qms_of_week: 0,
        status: s,
    };
    o.handle_heab(0.0, &heab(CcStatus::Ready));
    arm_and_start(&mut o, 0.01, 0.02);
    let mut seen = Vec::new();
    let mut t = 0.0;
    while t < 2.0 {
        t += 0.005;
        o.handle_heab(t, &heab(CcStatus::Running));
        o.handle_timeout(t);
        for x in drain(&mut o) {
            if let ObjectOutput::Monr(m) = x {
                let stamp = m.time_qms_of_week as f64 / 4000.0 - base;
                seen.push((t, stamp, m.speed_lon_cm_s as f64 / 100.0));
            }
        }
    }
    assert!(seen.len() > 150, "{}", seen.len());
    for (sent, stamp, _) in &seen {
        assert!(
            (sent - stamp - 0.03).abs() < 0.006,
            "sent {sent} for {stamp}"
        );
    }
    let first_moving = seen.iter().find(|s| s.2 > 0.0).map(|s| s.1).expect("moves");
    assert!(
        (first_moving - 0.22).abs() < 0.015,
        "first moving MONR at {first_moving}"
    );
    // 2 m/s² from 0.22 s: at 1.22 s about 2 m/s (the plan's 1 m s_acc to 5 km/h is slower,
    // so it runs its plan's speed once caught up).
    let v_at = |t: f64| {
        seen.iter()
            .min_by(|a, b| (a.1 - t).abs().total_cmp(&(b.1 - t).abs()))
            .map(|s| s.2)
            .unwrap_or(f64::NAN)
    };
    assert!(v_at(0.5) <= 2.0 * (0.5 - 0.22) + 0.02, "{}", v_at(0.5));
}
