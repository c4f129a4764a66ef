//! Stock isoObjects with a real platform's motion: each behind a platform proxy (`scil
//! carrier-proxy`: dead time, limited acceleration, a position controller, wander, RTK error,
//! MONR 20–40 ms late), configured as platforms without MTSP (the stock object ignores it),
//! driven as a ground-series point is (planned within their capabilities, armed as one,
//! started, judged from their MONR). A turning row with a car target: the run ends valid, with
//! the impact from the objects' MONR within ±0.05 of the plan.

use scil::bench::ground_series::{drive_points, GroundSeriesArgs};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stock_objects_with_a_real_platforms_motion_meet_as_planned() {
    let _alone = crate::one_at_a_time();
    let Some(bin) = crate::demo_bin() else { return };
    let _serial = crate::SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let args = GroundSeriesArgs {
        rows: vec!["CCFtap".into()],
        points: 1,
        perfect: false,
        seed: 1,
        straight_map: None,
        junction_map: None,
        json: None,
        require_finished: true,
        stock_objects: Some(bin),
    };
    let results = drive_points(&args).await.expect("the series runs");
    assert_eq!(results.len(), 1);
    for r in &results {
        assert!(r.finished, "{}: did not run to its end: {:?}", r.row, r.why);
        assert!(r.valid, "{}: not valid: {:?}", r.row, r.why);
        assert!(!r.impacts.is_empty(), "{}: no planned impact", r.row);
        for i in &r.impacts {
            let e = i
                .error
                .unwrap_or_else(|| panic!("{}: no contact on MONR with {}", r.row, i.target));
            assert!(
                e.abs() <= 0.05,
                "{}: MONR impact {e:+.3} off the plan",
                r.row
            );
        }
        for o in &r.objects {
            // Configured as platforms without MTSP: the run records what it would have asked
            // of them, and sends them none.
            assert!(
                o.retimes.iter().all(|t| !t.mtsp_sent),
                "{}: MTSP sent to {}, a platform without MTSP: {:?}",
                r.row,
                o.name,
                o.retimes
            );
            println!(
                "{}: {} lag up to {:.2} m, {:.3} s, off its path up to {:.3} m",
                r.row,
                o.name,
                o.max_lag_m.unwrap_or(f64::NAN),
                o.max_schedule_lag_s.unwrap_or(f64::NAN),
                o.max_lateral_m.unwrap_or(f64::NAN)
            );
        }
    }
}

/// Back to the start from far off and turned away, on stock objects with a real platform's
/// motion: the robot 30 m from its start and turned 90° away from it, the pedestrian's platform
/// 15 m off and facing the other way; the drive back ends each within the arm tolerance.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stock_objects_with_a_real_platforms_motion_drive_back_from_any_pose() {
    use scil::capabilities::ObjectKind;
    use scil::dispatch::ground::{back_to_start, Drives, Ground, ObjectSpec, Pose};
    use scil::dispatch::object_dynamics::Dynamics;
    use scil::dispatch::platform_proxy::{self, ProxyConfig};
    use scil::scenario::ncap2026::Params;
    let _alone = crate::one_at_a_time();
    let Some(bin) = crate::demo_bin() else { return };
    let _serial = crate::SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut p = Params::new(20.0);
    p.impact = Some(0.5);
    let setup = crate::setup("CPNCO", p, "opendrive/proving_ground.xodr");
    let ips = ["127.0.0.111", "127.0.0.112"];
    let fronts = ["127.0.0.113", "127.0.0.114"];
    crate::stand_in_day(&bin, &ips, "back from any pose", || {
        let setup = setup.clone();
        async move {
            let spec = |name: &str, address: &str, drives: Drives| ObjectSpec {
                name: name.into(),
                address: address.into(),
                drives,
                mobility: None,
                capabilities: Vec::new(),
            };
            let specs = |addr: [&str; 2]| {
                vec![
                    spec("robot-p", addr[0], Drives::Vut),
                    spec("ped-p", addr[1], Drives::Target("dummy".into())),
                ]
            };
            // Where each object starts its test (planning connects to nothing).
            let starts: Vec<Pose> =
                Ground::new(specs(["127.0.0.1:1", "127.0.0.1:3"]), crate::options())
                    .expect("objects")
                    .prepare(setup.clone())
                    .await
                    .expect("planned")
                    .plans
                    .iter()
                    .map(|p| p.track.start())
                    .collect();
            let away = |s: Pose, d: f64, turn: f64| {
                let dir = s.yaw + turn;
                Pose::new(s.x + d * dir.cos(), s.y + d * dir.sin(), dir)
            };
            let at = [
                away(starts[0], 30.0, std::f64::consts::FRAC_PI_2),
                away(starts[1], 15.0, std::f64::consts::PI),
            ];
            let kinds = [ObjectKind::VutRobot, ObjectKind::PedestrianPlatform];
            let mut proxies = Vec::new();
            for i in 0..2 {
                proxies.push(
                    platform_proxy::spawn(ProxyConfig {
                        listen: fronts[i].parse().expect("address"),
                        object: ips[i].parse().expect("address"),
                        tcp_port: scil::dispatch::iso22133::DEFAULT_TCP_PORT,
                        udp_port: scil::dispatch::iso22133::DEFAULT_UDP_PORT,
                        dynamics: Dynamics {
                            seed: 7 + i as u64,
                            ..Dynamics::realistic(kinds[i])
                        },
                        start: Some((at[i].x, at[i].y, at[i].yaw)),
                    })
                    .await
                    .expect("proxy"),
                );
            }
            let mut g = Ground::new(specs(fronts), crate::options()).expect("objects");
            let prepared = g.prepare(setup.clone()).await.expect("planned");
            g.set_known("robot-p", Some(at[0]), None);
            g.set_known("ped-p", Some(at[1]), None);
            let motion = g.arm_return(&prepared).await.expect("armed");
            let r = back_to_start::drive_back_to_start(
                &mut g,
                &prepared,
                motion,
                back_to_start::PASSES,
            )
            .await
            .expect("drove back");
            println!("back to the start in {} pass(es)", r.passes);
            for o in &r.objects {
                let (d, h) = (
                    o.end_distance_m.expect("end"),
                    o.end_heading_deg.expect("end"),
                );
                println!(
                    "drive back of {}: {:.1} s planned, ended {d:.3} m and {h:.2}° from its start",
                    o.name, o.traj_duration_s
                );
                assert!(
                    d <= 0.5 && h <= 5.0,
                    "{} ends {d:.2} m, {h:.1}° off",
                    o.name
                );
            }
            assert!(r.at_start, "{:?}", r.aborted);
            drop(proxies);
        }
    })
    .await;
}
