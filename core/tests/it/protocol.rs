//! Validity verdicts (valid, and invalid per channel), live
//! breaks, abort on invalidity, CCR and longitudinal targets, closed-loop synchronisation, at
//! 100 Hz and 25 Hz. The expected instants are written out here from the kinematics, not taken
//! from the engine.

use scil_core::sample::Sample;
use scil_core::scenario::engine::{Command, Engine, EngineConfig, Event, ImpactRecord, Output};
use scil_core::scenario::validity::{Channel, Validity};
use scil_core::scenario::Scenario;
use scil_core::twin::Twin;

const VUT: &str = r#"
[vut]
width_m = 1.855
length_m = 4.6
reference_to_front_m = 2.3
"#;

/// CPNA-75 (the seed paper's geometry): dummy 4 m right of the VUT path, crossing x = 200.
fn cpna(vut_kmh: f64, top: &str) -> Scenario {
    let text = format!(
        r#"name = "cpna"
{top}
{VUT}speed_kmh = {vut_kmh}
[validity]
[[targets]]
id = "dummy"
kind = "pedestrian"
start = {{ x = 200.0, y = -5.75 }}
heading_deg = 0.0
lateral_start_m = 4.0
accel_distance_m = 1.0
speed_kmh = 5.0
overlap = 0.75
"#
    );
    Scenario::from_toml(&text).expect("scenario")
}

/// A longitudinal or rear scenario: one target ahead in the VUT's path (heading east).
fn ahead(vut_kmh: f64, validity: &str, target: &str) -> Scenario {
    let text = format!(
        "name = \"ahead\"\n{VUT}speed_kmh = {vut_kmh}\n[validity]\n{validity}\n[[targets]]\n{target}"
    );
    Scenario::from_toml(&text).expect("scenario")
}

/// What happens to the VUT from `t` on (sample time from 0).
#[derive(Default, Clone, Copy)]
struct Perturb {
    speed: Option<(f64, f64)>,    // (t, +km/h step)
    lateral: Option<(f64, f64)>,  // (t, m/s sideways drift, left)
    yaw_rate: Option<(f64, f64)>, // (t, °/s step)
    steering: Option<(f64, f64)>, // (t, °/s steering-wheel ramp)
    brake: Option<(f64, f64)>,    // (gap to x_stop, m/s²): brake when front passes x_stop - gap
    wander: Option<(f64, f64)>,   // (t, km/h per s): speed drifts linearly from t on
}

/// VUT along y = -1.75 heading east from x0 at `kmh`, sampled at `hz` for `secs`.
fn vut_run(hz: f64, kmh: f64, x0: f64, secs: f64, p: Perturb, x_stop: f64) -> Vec<Sample> {
    let dt = 1.0 / hz;
    let (mut x, mut y, mut v) = (x0, -1.75, kmh / 3.6);
    let mut steer = 0.0;
    let mut braking = false;
    let n = (secs * hz).round() as usize;
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        let t = k as f64 * dt;
        let mut speed = v;
        if let Some((tb, dk)) = p.speed {
            if t >= tb {
                speed += dk / 3.6;
            }
        }
        if let Some((tb, rate)) = p.wander {
            if t >= tb {
                speed += rate * (t - tb) / 3.6;
            }
        }
        let mut accel = 0.0;
        if let Some((gap, dec)) = p.brake {
            if x + 2.3 >= x_stop - gap {
                braking = true;
            }
            if braking {
                accel = -dec;
            }
        }
        let yaw_rate = match p.yaw_rate {
            Some((tb, d)) if t >= tb => d.to_radians(),
            _ => 0.0,
        };
        out.push(Sample {
            time_s: t,
            vehicle: "vut".into(),
            x,
            y,
            yaw_rad: 0.0,
            speed_mps: speed.max(0.0),
            steering_wheel_deg: Some(steer),
            road_wheel_deg: None,
            brake_light: Some(braking),
            accel_mps2: Some(accel),
            yaw_rate_rps: Some(yaw_rate),
            wheel_speed_mps: None,
            fcw: None,
        });
        x += speed.max(0.0) * dt;
        if braking {
            v = (v - accel.abs() * dt).max(0.0);
        }
        if let Some((tb, d)) = p.lateral {
            if t >= tb {
                y += d * dt;
            }
        }
        if let Some((tb, r)) = p.steering {
            if t >= tb {
                steer += r * dt;
            }
        }
    }
    out
}

fn drive_cfg(sc: &Scenario, cfg: EngineConfig, samples: &[Sample]) -> Vec<Output> {
    let mut e = Engine::new(sc, cfg, Twin::new(None));
    let mut out = Vec::new();
    e.arm(samples[0].time_s);
    for s in samples {
        while let Some(t) = e.poll_timeout() {
            if t > s.time_s {
                break;
            }
            e.handle_timeout(t);
        }
        e.handle_sample(s);
        while let Some(o) = e.poll_output() {
            out.push(o);
        }
    }
    e.finish(samples.last().map_or(0.0, |s| s.time_s));
    while let Some(o) = e.poll_output() {
        out.push(o);
    }
    out
}

fn drive(sc: &Scenario, samples: &[Sample]) -> Vec<Output> {
    drive_cfg(sc, EngineConfig::default(), samples)
}

fn verdict(out: &[Output]) -> Validity {
    out.iter()
        .find_map(|o| match o {
            Output::Event(Event::Verdict(v)) => Some(v.clone()),
            _ => None,
        })
        .expect("a verdict")
}

fn impact(out: &[Output]) -> ImpactRecord {
    out.iter()
        .find_map(|o| match o {
            Output::Event(Event::Impact(i)) => Some(i.clone()),
            _ => None,
        })
        .expect("an impact record")
}

fn live_breaks(out: &[Output]) -> Vec<(Channel, f64)> {
    out.iter()
        .filter_map(|o| match o {
            Output::Event(Event::Validity(b)) => Some((b.channel, b.time_s)),
            _ => None,
        })
        .collect()
}

fn check(v: &Validity, c: Channel) -> &scil_core::scenario::validity::Check {
    v.checks
        .iter()
        .find(|k| k.channel == c)
        .expect("channel checked")
}

// CPNA at 30 km/h from x0 = 130: front at 132.3; T0 (TTC 4 s) when the front is 4 v before the
// path line x = 200; impact when it reaches it.
const KMH: f64 = 30.0;
const X0: f64 = 130.0;
fn t_at_front(x_front: f64) -> f64 {
    (x_front - (X0 + 2.3)) / (KMH / 3.6)
}

#[test]
fn clean_crossing_is_valid_at_100_hz_and_warned_at_25_hz() {
    let t0 = t_at_front(200.0 - 4.0 * KMH / 3.6);
    let t_imp = t_at_front(200.0);
    for hz in [100.0, 25.0] {
        let s = vut_run(hz, KMH, X0, 10.0, Perturb::default(), 0.0);
        let out = drive(&cpna(KMH, ""), &s);
        let v = verdict(&out);
        assert!(v.valid, "{hz} Hz: {v:?}");
        let w = v.window.expect("window");
        assert!(
            (w.from_s - t0).abs() < 1e-3,
            "{hz} Hz: T0 {} vs {t0}",
            w.from_s
        );
        assert!(
            (w.to_s - t_imp).abs() < 1e-3,
            "{hz} Hz: end {} vs {t_imp}",
            w.to_s
        );
        assert_eq!(v.checks.len(), 6, "{hz} Hz: every channel checked: {v:?}");
        assert!(live_breaks(&out).is_empty());
        let rate_warned = v
            .warnings
            .iter()
            .any(|w| w.contains("below the protocol's 100 Hz"));
        assert_eq!(rate_warned, hz < 100.0, "{hz} Hz: {:?}", v.warnings);
        // Impact results: speed and reduction (none) from the nominal speed.
        let i = impact(&out);
        assert!((i.impact_speed_kmh.expect("speed") - KMH).abs() < 1e-9);
        assert!(i.speed_reduction_kmh.expect("reduction").abs() < 1e-9);
        let p = i.impact_point.expect("point");
        assert!((p.x - 200.0).abs() < 1e-9);
        // Serialised contract.
        let j = serde_json::to_value(&v).expect("json");
        assert_eq!(j["valid"], true);
        assert!(j["window"]["from_s"].is_f64() && j["window"]["to_s"].is_f64());
        let c = &j["checks"][0];
        assert_eq!(c["channel"], "vut_speed");
        assert!(c["ok"].is_boolean() && c["limit"].is_string() && c["worst"].is_f64());
        assert!(c["first_violation_s"].is_null());
    }
}

#[test]
fn each_broken_channel_is_the_first_and_found_at_its_instant() {
    let tb = t_at_front(200.0 - 3.0 * KMH / 3.6); // TTC ≈ 3 s: inside the window
                                                  // (perturbation, channel, instant the limit is crossed)
    let cases: [(Perturb, Channel, f64); 4] = [
        (
            Perturb {
                speed: Some((tb, 1.5)),
                ..Default::default()
            },
            Channel::VutSpeed,
            tb,
        ),
        // 0.2 m/s drift reaches 0.05 m after 0.25 s.
        (
            Perturb {
                lateral: Some((tb, 0.2)),
                ..Default::default()
            },
            Channel::VutLateral,
            tb + 0.25,
        ),
        // Zero-phase filter: a 2 °/s step crosses 1 °/s at the step.
        (
            Perturb {
                yaw_rate: Some((tb, 2.0)),
                ..Default::default()
            },
            Channel::VutYawRate,
            tb,
        ),
        (
            Perturb {
                steering: Some((tb, 30.0)),
                ..Default::default()
            },
            Channel::VutSteeringRate,
            tb,
        ),
    ];
    for hz in [100.0, 25.0] {
        let dt = 1.0 / hz;
        for (p, ch, at) in cases {
            let s = vut_run(hz, KMH, X0, 10.0, p, 0.0);
            let out = drive(&cpna(KMH, ""), &s);
            let v = verdict(&out);
            assert!(!v.valid, "{hz} Hz {ch:?}: {v:?}");
            assert_eq!(v.first_broken(), Some(ch), "{hz} Hz: {v:?}");
            let first = check(&v, ch).first_violation_s.expect("violation");
            // Yaw and steering are filtered (the step smears over a few samples).
            // The drift is integrated per sample, so it starts one interval late.
            let tol = match ch {
                Channel::VutYawRate => 0.03 + dt,
                Channel::VutSteeringRate => 0.03 + 2.0 * dt,
                Channel::VutLateral => 2.0 * dt + 1e-9,
                _ => dt + 1e-9,
            };
            assert!(
                (first - at).abs() <= tol,
                "{hz} Hz {ch:?}: first {first} vs {at}"
            );
            for other in Channel::ALL.iter().filter(|c| **c != ch) {
                if let Some(k) = v.checks.iter().find(|k| k.channel == *other) {
                    assert!(k.ok, "{hz} Hz {ch:?} also broke {other:?}: {k:?}");
                }
            }
            // Live: the same channel breaks first, no earlier than the offline instant minus
            // the filter's smear, within 150 ms (causal filter delay).
            let live = live_breaks(&out);
            assert_eq!(live.first().map(|b| b.0), Some(ch), "{hz} Hz: {live:?}");
            let lt = live[0].1;
            assert!(
                lt >= at - tol && lt <= at + 0.15,
                "{hz} Hz {ch:?}: live {lt} vs {at}"
            );
            // The live event precedes the verdict and the finish in the stream.
            let pos = |f: &dyn Fn(&Output) -> bool| out.iter().position(f).unwrap_or(usize::MAX);
            assert!(
                pos(&|o| matches!(o, Output::Event(Event::Validity(_))))
                    < pos(&|o| matches!(o, Output::Event(Event::Verdict(_))))
            );
        }
    }
}

#[test]
fn speed_below_nominal_breaks_and_a_break_before_t0_does_not_count() {
    // VUT 0.5 km/h slow: outside "nominal 0/+1".
    let s = vut_run(100.0, KMH - 0.5, X0, 10.0, Perturb::default(), 0.0);
    let v = verdict(&drive(&cpna(KMH, ""), &s));
    assert_eq!(v.first_broken(), Some(Channel::VutSpeed));
    assert!((check(&v, Channel::VutSpeed).worst + 0.5).abs() < 1e-9);
    // A 1.5 km/h excess that ends 1 s before T0 (TTC 5 s → 5.5 s): valid.
    let mut s = vut_run(100.0, KMH, X0, 10.0, Perturb::default(), 0.0);
    let t5 = t_at_front(200.0 - 5.0 * KMH / 3.6);
    for x in s.iter_mut().filter(|x| x.time_s < t5 - 0.5) {
        x.speed_mps += 1.5 / 3.6;
    }
    let v = verdict(&drive(&cpna(KMH, ""), &s));
    assert!(v.valid, "{v:?}");
}

#[test]
fn abort_on_invalid_stops_the_run_at_the_break() {
    let tb = t_at_front(200.0 - 3.0 * KMH / 3.6);
    let sc = {
        let mut sc = cpna(KMH, "");
        if let Some(v) = sc.validity.as_mut() {
            v.abort_on_invalid = true;
        }
        sc
    };
    let p = Perturb {
        speed: Some((tb, 2.0)),
        ..Default::default()
    };
    let out = drive(&sc, &vut_run(100.0, KMH, X0, 10.0, p, 0.0));
    let (t, reason) = out
        .iter()
        .find_map(|o| match o {
            Output::Event(Event::Aborted { time_s, reason }) => Some((*time_s, reason.clone())),
            _ => None,
        })
        .expect("aborted");
    // Each sample is judged live once the AEB onset's look-ahead has passed it.
    let lookahead = scil_core::scenario::validity::aeb::LOOKAHEAD_S;
    assert!(
        t >= tb + lookahead - 1e-9 && t <= tb + lookahead + 0.01 + 1e-9,
        "{t} vs {tb}"
    );
    let live = live_breaks(&out);
    assert!((live[0].1 - tb).abs() <= 0.01 + 1e-9, "{live:?} vs {tb}");
    assert!(
        reason.contains("invalid") && reason.contains("VutSpeed"),
        "{reason}"
    );
    assert!(out.iter().any(|o| matches!(
        o,
        Output::Command(scil_core::scenario::engine::Command::Abort { .. })
    )));
    assert!(!verdict(&out).valid);
}

const CAR: &str = "kind = \"vehicle\"\nheading_deg = 90.0\nlateral_start_m = 0.0\naccel_distance_m = 0.0\noverlap = 1.0\nlength_m = 4.0\n";

#[test]
fn ccr_static_moving_and_braking_targets() {
    for hz in [100.0, 25.0] {
        // CCRs: static car whose rear is at x = 180; VUT 50 km/h from x0 = 100 (front 102.3).
        let sc = ahead(50.0, "", &format!("id = \"car\"\nactivation = \"static\"\nstart = {{ x = 180.0, y = -1.75 }}\nspeed_kmh = 0.0\n{CAR}"));
        let s = vut_run(hz, 50.0, 100.0, 8.0, Perturb::default(), 0.0);
        let out = drive(&sc, &s);
        let i = impact(&out);
        let v50 = 50.0 / 3.6;
        assert!(
            (i.time_s.expect("impact") - (180.0 - 102.3) / v50).abs() < 1e-6,
            "{hz}: {i:?}"
        );
        assert!((i.relative_speed_kmh.expect("rel") - 50.0).abs() < 1e-6);
        assert!((i.impact_point.expect("point").x - 180.0).abs() < 1e-9);
        let v = verdict(&out);
        assert!(v.valid, "{hz}: {v:?}");
        let w = v.window.expect("window");
        // Euro NCAP longitudinal TTC: gap / closing speed = 4 s.
        assert!(
            (w.from_s - (180.0 - 102.3 - 4.0 * v50) / v50).abs() < 1e-3,
            "{hz}: {w:?}"
        );

        // CCRs with AEB: the VUT brakes at 6 m/s² once its front is 20 m short and stops
        // (50 km/h needs 16.1 m): no impact, the whole nominal speed is the reduction, the
        // window ends at the brake onset (the deceleration step through the phaseless filter
        // reaches 1 m/s² up to 30 ms and a sample before it: its symmetric response).
        let p = Perturb {
            brake: Some((20.0, 6.0)),
            ..Default::default()
        };
        let s = vut_run(hz, 50.0, 100.0, 12.0, p, 180.0);
        let out = drive(&sc, &s);
        let i = impact(&out);
        assert!(i.time_s.is_none(), "{hz}: {i:?}");
        assert_eq!(i.speed_reduction_kmh, Some(50.0));
        let onset = s
            .iter()
            .find(|x| x.brake_light == Some(true))
            .expect("brakes")
            .time_s;
        let v = verdict(&out);
        let to = v.window.expect("w").to_s;
        assert!(
            to <= onset + 1e-9 && to >= onset - 0.03 - 1.0 / hz,
            "{hz}: {v:?}"
        );

        // CCRm: lead car at 20 km/h started at begin, rear 40 m ahead of the VUT front.
        let sc = ahead(50.0, "", &format!("id = \"car\"\nactivation = \"begin\"\nstart = {{ x = 142.3, y = -1.75 }}\nspeed_kmh = 20.0\n{CAR}"));
        let out = drive(&sc, &vut_run(hz, 50.0, 100.0, 8.0, Perturb::default(), 0.0));
        assert!(out.iter().any(
            |o| matches!(o, Output::Event(Event::TargetStarted { at_s, .. }) if *at_s == 0.0)
        ));
        let i = impact(&out);
        assert!(
            (i.time_s.expect("impact") - 40.0 / ((50.0 - 20.0) / 3.6)).abs() < 1e-6,
            "{hz}: {i:?}"
        );
        assert!((i.relative_speed_kmh.expect("rel") - 30.0).abs() < 1e-6);
        let v = verdict(&out);
        assert!(v.valid, "{hz}: {v:?}");

        // CCRb: both at 50 km/h, 12 m headway, lead brakes at 6 m/s² 3 s after the start:
        // 12 = ½·6·τ² → impact 2 s after the brake onset at 12 m/s closing. T0 = onset − 1 s.
        let sc = ahead(50.0, "", &format!("id = \"car\"\nactivation = \"begin\"\nstart = {{ x = 114.3, y = -1.75 }}\nspeed_kmh = 50.0\nbrake = {{ after_s = 3.0, decel_mps2 = 6.0 }}\n{CAR}"));
        let out = drive(&sc, &vut_run(hz, 50.0, 100.0, 8.0, Perturb::default(), 0.0));
        let i = impact(&out);
        assert!(
            (i.time_s.expect("impact") - 5.0).abs() < 1e-6,
            "{hz}: {i:?}"
        );
        assert!((i.relative_speed_kmh.expect("rel") - 12.0 * 3.6).abs() < 1e-6);
        let v = verdict(&out);
        assert!(v.valid, "{hz}: {v:?}");
        assert!((v.window.expect("w").from_s - 2.0).abs() < 1e-9);
    }
}

/// CPLA: pedestrian walking ahead in the VUT's path at 5 km/h (begin), VUT at 30 km/h; its
/// own telemetry arrives (a real carrier), so target speed and lateral are measured.
#[test]
fn longitudinal_target_measured_speed_and_lateral() {
    let target = "id = \"ped\"\nkind = \"pedestrian\"\nactivation = \"begin\"\nstart = { x = 150.0, y = -1.75 }\nheading_deg = 90.0\nlateral_start_m = 0.0\naccel_distance_m = 1.0\nspeed_kmh = 5.0\noverlap = 0.5\n";
    let sc = ahead(30.0, "", target);
    let v5 = 5.0 / 3.6;
    let t_acc = 2.0 * 1.0 / v5;
    let travel = |t: f64| {
        if t < t_acc {
            0.5 * v5 / t_acc * t * t
        } else {
            1.0 + v5 * (t - t_acc)
        }
    };
    for hz in [100.0, 25.0] {
        // (speed error from t, lateral offset from t, expected channel)
        for (dv, dy, ch) in [
            (0.0, 0.0, None),
            (0.3, 0.0, Some(Channel::TargetSpeed)),
            (0.0, 0.2, Some(Channel::TargetLateral)),
        ] {
            let vut = vut_run(hz, 30.0, 100.0, 9.0, Perturb::default(), 0.0);
            let tb = 5.0;
            let mut all = Vec::new();
            for s in vut {
                let t = s.time_s;
                let mut p = s.clone();
                p.vehicle = "ped".into();
                p.x = 150.0 + travel(t);
                p.y = -1.75 + if t >= tb { dy } else { 0.0 };
                p.speed_mps = if t < t_acc { v5 * t / t_acc } else { v5 }
                    + if t >= tb { dv / 3.6 } else { 0.0 };
                p.yaw_rate_rps = Some(0.0);
                all.push(p);
                all.push(s);
            }
            let out = drive(&sc, &all);
            let v = verdict(&out);
            assert_eq!(v.first_broken(), ch, "{hz} Hz: {v:?}");
            assert_eq!(v.valid, ch.is_none(), "{hz} Hz: {v:?}");
            if let Some(ch) = ch {
                let first = check(&v, ch).first_violation_s.expect("first");
                assert!((first - tb).abs() <= 1.0 / hz + 1e-9, "{hz} Hz: {first}");
                assert!(check(&v, Channel::TargetLateral).limit.contains("0.15"));
            }
            // Impact: front reaches the walking dummy: 102.3 + 25/3 t = 150 + travel(t).
            let i = impact(&out);
            let (mut lo, mut hi) = (0.0, 9.0);
            for _ in 0..60 {
                let m = 0.5 * (lo + hi);
                if 102.3 + 30.0 / 3.6 * m < 150.0 + travel(m) {
                    lo = m
                } else {
                    hi = m
                }
            }
            assert!(
                (i.time_s.expect("impact") - lo).abs() < 1e-6,
                "{hz} Hz: {i:?} vs {lo}"
            );
        }
    }
}

/// A CPNA run whose VUT slows by 0.1 km/h per second from 3 s on (speed wander), starting 8 s
/// of travel before the dummy's line.
fn slowing_vut(hz: f64, kmh: f64) -> Vec<Sample> {
    let x0 = 200.0 - 2.3 - 8.0 * kmh / 3.6;
    let p = Perturb {
        wander: Some((3.0, -0.1)),
        ..Default::default()
    };
    vut_run(hz, kmh, x0, 12.0, p, 0.0)
}

/// The VUT slows by 0.1 km/h per second after its trigger (speed wander): the one-shot start
/// leaves the dummy off its nominal travel; closed-loop sync brings it within 2 cm with the
/// dummy's speed within ±0.2 km/h after its acceleration.
#[test]
fn sync_keeps_the_dummy_on_nominal_travel() {
    for (kmh, hz) in [(10.0, 100.0), (10.0, 25.0), (30.0, 100.0), (30.0, 25.0)] {
        let s = slowing_vut(hz, kmh);
        let nominal = 4.0 + (0.75 - 0.5) * 1.855;
        let plain = impact(&drive(&cpna(kmh, ""), &s));
        let cfg = EngineConfig {
            sync: true,
            ..Default::default()
        };
        let out = drive_cfg(&cpna(kmh, ""), cfg, &s);
        let synced = impact(&out);
        let before = plain.dummy_travel_m.expect("travel") - nominal;
        let after = synced.dummy_travel_m.expect("travel") - nominal;
        println!(
            "{kmh} km/h {hz} Hz: travel error {:+.1} mm -> {:+.1} mm",
            before * 1000.0,
            after * 1000.0
        );
        assert!(
            before.abs() > 0.03,
            "{kmh}/{hz}: the wander must matter: {before}"
        );
        assert!(after.abs() <= 0.02, "{kmh}/{hz}: {after}");
        // Same scenario with `sync = true` in the file: identical.
        let out2 = drive(&cpna(kmh, "sync = true"), &s);
        assert_eq!(impact(&out2), synced);
        for o in &out {
            if let Output::Event(Event::Synced {
                speed_mps,
                time_s,
                origin_s,
                ..
            }) = o
            {
                if time_s - origin_s > 2.0 / (5.0 / 3.6) + 0.05 {
                    assert!((speed_mps * 3.6 - 5.0).abs() <= 0.2 + 1e-9, "{speed_mps}");
                }
            }
        }
    }
}

/// Synchronisation at speed moves the dummy's equivalent origin by less than the retime
/// dead-band at each sample (the VUT's speed wanders slowly): the retimes still go out once the
/// change from the origin last sent adds up, each naming that change, so that a carrier follows
/// the whole correction and not only the last samples' before the contact.
#[test]
fn sync_retimes_add_up_small_corrections() {
    for hz in [100.0, 25.0] {
        let kmh = 30.0;
        let s = slowing_vut(hz, kmh);
        let cfg = EngineConfig {
            sync: true,
            ..Default::default()
        };
        let out = drive_cfg(&cpna(kmh, ""), cfg, &s);
        let retimes: Vec<(f64, f64)> = out
            .iter()
            .filter_map(|o| match o {
                Output::Command(Command::Retime {
                    origin_s,
                    correction_s,
                    ..
                }) => Some((*origin_s, *correction_s)),
                _ => None,
            })
            .collect();
        // After the dummy's acceleration (5 km/h, 2 m), as in the test above.
        let at_speed = out
            .iter()
            .filter(|o| {
                matches!(o, Output::Event(Event::Synced { time_s, origin_s, .. })
                    if time_s - origin_s > 2.0 / (5.0 / 3.6) + 0.05)
            })
            .count();
        println!("{hz} Hz: {} retimes, {at_speed} at speed", retimes.len());
        assert!(
            at_speed >= 3,
            "{hz} Hz: {at_speed} retimes at speed ({} in all)",
            retimes.len()
        );
        for w in retimes.windows(2) {
            assert!(
                ((w[1].0 - w[0].0) - w[1].1).abs() < 1e-9,
                "{hz} Hz: a retime's correction is its change from the last: {w:?}"
            );
        }
    }
}
