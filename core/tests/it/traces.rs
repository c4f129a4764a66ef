//! The run's traces (`Engine::record_traces`) against known kinematics. A
//! CPNA-75 run at 30 km/h (100 Hz and 200 Hz) with a speed step, a lateral drift, a yaw-rate
//! step and a steering-wheel ramp inside the window: every kept point is compared with the
//! generated samples (TTC by the paper's formula written out here, target travel by the
//! constant-acceleration profile from the trigger instant), and the bands with the protocol's
//! limits.

use scil_core::sample::Sample;
use scil_core::scenario::engine::{Engine, EngineConfig};
use scil_core::scenario::validity::trace::Traces;
use scil_core::scenario::Scenario;
use scil_core::twin::Twin;

const KMH: f64 = 30.0;
const X0: f64 = 130.0;
const TTC_DUMMY: f64 = 1.44 + (4.46375 - 1.0) / (5.0 / 3.6);

fn cpna(validity: bool) -> Scenario {
    let text = format!(
        r#"name = "cpna"
[vut]
width_m = 1.855
length_m = 4.6
reference_to_front_m = 2.3
speed_kmh = {KMH}
{}
[[targets]]
id = "dummy"
kind = "pedestrian"
start = {{ x = 200.0, y = -5.75 }}
heading_deg = 0.0
lateral_start_m = 4.0
accel_distance_m = 1.0
speed_kmh = 5.0
overlap = 0.75
"#,
        if validity { "[validity]" } else { "" }
    );
    Scenario::from_toml(&text).expect("scenario")
}

/// Instant the front bumper reaches `x_front` at the nominal speed (before any perturbation).
fn t_front(x_front: f64) -> f64 {
    (x_front - (X0 + 2.3)) / (KMH / 3.6)
}

/// Perturbation instants: all after the trigger (TTC 3.93 s), inside the window.
fn t_speed() -> f64 {
    t_front(200.0 - 2.5 * KMH / 3.6)
}
fn t_drift() -> f64 {
    t_front(200.0 - 3.0 * KMH / 3.6)
}
fn t_yaw() -> f64 {
    t_front(200.0 - 2.0 * KMH / 3.6)
}
fn t_steer() -> f64 {
    t_front(200.0 - 3.2 * KMH / 3.6)
}

const SPEED_STEP: f64 = 0.5; // km/h
const DRIFT: f64 = 0.01; // m/s to the left
const YAW_STEP: f64 = 0.4; // °/s
const STEER_RATE: f64 = 5.0; // °/s

fn samples(hz: f64) -> Vec<Sample> {
    let dt = 1.0 / hz;
    let (mut x, mut y, mut steer) = (X0, -1.75, 0.0);
    let n = (9.5 * hz) as usize;
    let mut out = Vec::new();
    for k in 0..n {
        let t = k as f64 * dt;
        let v = (KMH + if t >= t_speed() { SPEED_STEP } else { 0.0 }) / 3.6;
        let yaw_rate = if t >= t_yaw() { YAW_STEP } else { 0.0 };
        out.push(Sample {
            steering_wheel_deg: Some(steer),
            brake_light: Some(false),
            accel_mps2: Some(0.0),
            yaw_rate_rps: Some(yaw_rate.to_radians()),
            ..Sample::vut(t, x, y, 0.0, v)
        });
        x += v * dt;
        if t >= t_drift() {
            y += DRIFT * dt;
        }
        if t >= t_steer() {
            steer += STEER_RATE * dt;
        }
    }
    out
}

fn run(sc: &Scenario, s: &[Sample], traces: bool) -> Option<Traces> {
    let mut e = Engine::new(sc, EngineConfig::default(), Twin::new(None));
    if traces {
        e.record_traces();
    }
    e.arm(s[0].time_s);
    for smp in s {
        while let Some(t) = e.poll_timeout() {
            if t > smp.time_s {
                break;
            }
            e.handle_timeout(t);
        }
        e.handle_sample(smp);
        while e.poll_output().is_some() {}
    }
    e.finish(s.last().map_or(0.0, |x| x.time_s));
    let t = e.take_traces();
    assert!(e.take_traces().is_none(), "taken once");
    t
}

/// Impact: the front bumper (x + 2.3) reaches x = 200, interpolated between samples.
fn impact_time(s: &[Sample]) -> f64 {
    let k = s.iter().position(|p| p.x + 2.3 >= 200.0).expect("reaches");
    let (a, b) = (&s[k - 1], &s[k]);
    a.time_s + (200.0 - 2.3 - a.x) / (b.x - a.x) * (b.time_s - a.time_s)
}

/// The dummy's constant-acceleration profile: travel and speed τ after its start.
fn dummy(tau: f64) -> (f64, f64) {
    let (v, t_acc) = (5.0 / 3.6, 1.44);
    if tau <= 0.0 {
        (0.0, 0.0)
    } else if tau < t_acc {
        (0.5 * v / t_acc * tau * tau, v * tau / t_acc)
    } else {
        (1.0 + v * (tau - t_acc), v)
    }
}

#[test]
fn traces_follow_the_kinematics_with_their_bands() {
    let sc = cpna(true);
    for hz in [100.0, 200.0] {
        let s = samples(hz);
        let tr = run(&sc, &s, true).expect("traces");
        let t0 = t_front(200.0 - 4.0 * KMH / 3.6);
        let t_imp = impact_time(&s);
        let t_trig = t_front(200.0 - TTC_DUMMY * KMH / 3.6);
        // Window and crop: T0 − 1 s to the end + 0.5 s, at most 100 Hz.
        let w = tr.window.expect("window");
        assert!(
            (w.from_s - t0).abs() < 1e-6,
            "{hz}: T0 {} vs {t0}",
            w.from_s
        );
        assert!(
            (w.to_s - t_imp).abs() < 1e-6,
            "{hz}: end {} vs {t_imp}",
            w.to_s
        );
        let (first, last) = (tr.t_s[0], tr.t_s[tr.t_s.len() - 1]);
        assert!(
            first >= t0 - 1.0 - 1e-9 && first < t0 - 1.0 + 0.0101,
            "{hz}: {first}"
        );
        assert!(
            last <= t_imp + 0.5 + 1e-9 && last > t_imp + 0.5 - 0.0101,
            "{hz}: {last}"
        );
        assert!(
            tr.t_s.windows(2).all(|p| p[1] - p[0] >= 0.0099),
            "{hz}: ≤ 100 Hz"
        );
        let expect_n = ((last - first) * 100.0).round() as usize + 1;
        assert_eq!(tr.t_s.len(), expect_n, "{hz}");
        assert_eq!(tr.t_s.len(), tr.vut_speed_kmh.len());
        let steer = tr.vut_steering_rate_dps.as_ref().expect("steering");
        let d = &tr.targets[0];
        assert_eq!(d.id, "dummy");
        let mut n_lat = 0;
        for (k, &t) in tr.t_s.iter().enumerate() {
            let smp = s
                .iter()
                .find(|p| (p.time_s - t).abs() < 1e-6)
                .expect("a kept point is a sample");
            // Speed: raw.
            assert!(
                (tr.vut_speed_kmh[k] - smp.speed_mps * 3.6).abs() < 1e-3,
                "{hz} {t}"
            );
            // Lateral: from the T0 pose (y = −1.75), left positive.
            match tr.vut_lateral_m[k] {
                Some(l) => {
                    assert!(t >= t0 - 1e-9, "{hz}: lateral before T0 at {t}");
                    assert!(
                        (l - (smp.y + 1.75)).abs() < 2e-5,
                        "{hz} {t}: {l} vs {}",
                        smp.y
                    );
                    n_lat += 1;
                }
                None => assert!(t < t0 + 1.0 / hz, "{hz}: lateral missing at {t}"),
            }
            // TTC: paper formula on the sample.
            let (dx, dy) = (200.0 - smp.x, -5.75 - smp.y);
            let ttc = ((dx * dx + dy * dy - 16.0).sqrt() - 2.3) / smp.speed_mps;
            if t < t_imp - 0.05 {
                let got = d.ttc_s[k].expect("ttc");
                assert!((got - ttc).abs() < 2e-5, "{hz} {t}: ttc {got} vs {ttc}");
            }
            // Target travel and speed: the profile from the (retimed) trigger instant.
            let (travel, speed) = dummy(t - t_trig);
            let got = d.travel_m[k].expect("travel");
            assert!(
                (got - travel).abs() < 1e-4,
                "{hz} {t}: travel {got} vs {travel}"
            );
            let got = d.speed_kmh[k].expect("speed");
            assert!((got - speed * 3.6).abs() < 1e-3, "{hz} {t}: speed {got}");
            // Filtered yaw rate: the step, smoothed without phase lag.
            let yaw = tr.vut_yaw_rate_dps[k];
            if t < t_yaw() - 0.3 {
                assert!(yaw.abs() < 2e-3, "{hz} {t}: yaw {yaw}");
            } else if t > t_yaw() + 0.3 {
                assert!((yaw - YAW_STEP).abs() < 2e-3, "{hz} {t}: yaw {yaw}");
            }
            if (t - t_yaw()).abs() < 0.5 / hz + 1e-9 {
                assert!(
                    yaw > 0.3 * YAW_STEP && yaw < 0.7 * YAW_STEP,
                    "zero phase: {yaw}"
                );
            }
            // Filtered steering-wheel rate: the ramp's slope.
            if t < t_steer() - 0.3 {
                assert!(steer[k].abs() < 0.02, "{hz} {t}: steer {}", steer[k]);
            } else if t > t_steer() + 0.3 {
                assert!(
                    (steer[k] - STEER_RATE).abs() < 0.02,
                    "{hz} {t}: {}",
                    steer[k]
                );
            }
        }
        assert!(n_lat > 100, "{hz}: {n_lat}");
        // At impact the dummy's travel is the nominal one.
        assert!((d.nominal_travel_m.expect("nominal") - 4.46375).abs() < 1e-9);
        // Bands: absolute values over the window.
        let b = tr.bands.vut_speed_kmh.as_ref().expect("nominal speed");
        assert_eq!((b.lo, b.hi), (30.0, 31.0));
        assert_eq!((b.from_s, b.to_s), (Some(w.from_s), Some(w.to_s)));
        assert_eq!(
            (tr.bands.vut_lateral_m.lo, tr.bands.vut_lateral_m.hi),
            (-0.05, 0.05)
        );
        assert_eq!(
            (tr.bands.vut_yaw_rate_dps.lo, tr.bands.vut_yaw_rate_dps.hi),
            (-1.0, 1.0)
        );
        assert_eq!(
            (
                tr.bands.vut_steering_rate_dps.lo,
                tr.bands.vut_steering_rate_dps.hi
            ),
            (-15.0, 15.0)
        );
        let sb = d.speed_band.as_ref().expect("target band");
        assert!(
            (sb.lo - 4.8).abs() < 1e-9 && (sb.hi - 5.2).abs() < 1e-9,
            "{sb:?}"
        );
        let from = sb.from_s.expect("from");
        assert!((from - (t_trig + 1.44)).abs() < 1e-6, "{from}");
        assert_eq!(sb.to_s, Some(w.to_s));
        assert_eq!(tr.t0_ttc_s, Some(4.0));
        // The JSON block: columnar arrays.
        let j = serde_json::to_value(&tr).expect("json");
        assert!(j["t_s"].is_array() && j["bands"]["vut_speed_kmh"]["lo"] == 30.0);
        assert_eq!(j["targets"][0]["kind"], "pedestrian");
    }
}

#[test]
fn traces_are_off_by_default_and_whole_without_a_validity_table() {
    let s = samples(100.0);
    assert!(run(&cpna(true), &s, false).is_none());
    let tr = run(&cpna(false), &s, true).expect("traces");
    assert!(tr.window.is_none() && tr.t0_ttc_s.is_none());
    assert_eq!(tr.t_s.len(), s.len(), "whole record at 100 Hz");
    assert!(tr.vut_lateral_m.iter().all(Option::is_none));
    // Speed band from the scenario's nominal speed, no window: unbounded.
    let b = tr.bands.vut_speed_kmh.as_ref().expect("band");
    assert_eq!((b.lo, b.from_s), (30.0, None));
    assert!(tr.targets[0].speed_band.is_some());
}

/// A long run that never opens the window: the traces keep the last 200 s (bounded memory),
/// and the kept points are still the samples.
#[test]
fn a_long_run_keeps_its_last_200_s() {
    let sc = cpna(true);
    let mut e = Engine::new(&sc, EngineConfig::default(), Twin::new(None));
    e.record_traces();
    e.arm(0.0);
    let n = 30_000; // 300 s at 100 Hz, standing well before the target: no T0
    for k in 0..n {
        let t = k as f64 * 0.01;
        e.handle_sample(&Sample {
            steering_wheel_deg: Some(0.0),
            yaw_rate_rps: Some(0.0),
            ..Sample::vut(t, 0.0, -1.75, 0.0, 0.0)
        });
        while let Some(t) = e.poll_timeout() {
            e.handle_timeout(t);
        }
        while e.poll_output().is_some() {}
    }
    e.finish(299.99);
    let tr = e.take_traces().expect("traces");
    assert!(tr.window.is_none());
    let (first, last) = (tr.t_s[0], tr.t_s[tr.t_s.len() - 1]);
    assert!((last - 299.99).abs() < 1e-9, "{last}");
    assert!(
        last - first <= 210.0 && last - first >= 199.99,
        "{first}..{last}"
    );
    assert_eq!(tr.targets[0].ttc_s.len(), tr.t_s.len());
}
