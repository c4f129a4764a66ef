//! The protocol's T0 variants (turning
//! T_steer − 1 s, car/PTW crossing 0.5 s after the target's acceleration phase, braking target)
//! and FCW closing the window. Expected instants are computed here from the kinematics.

use scil_core::sample::Sample;
use scil_core::scenario::engine::{Engine, EngineConfig, Event, Output};
use scil_core::scenario::validity::{Channel, Validity, WindowEnd};
use scil_core::scenario::Scenario;
use scil_core::twin::Twin;

const VUT: &str = "[vut]\nwidth_m = 1.855\nlength_m = 4.6\nreference_to_front_m = 2.3\n";
const KMH: f64 = 30.0;
const X0: f64 = 130.0;

/// CPNA-75 geometry (crossing path line x = 200) with a `[validity]` body and target kind.
fn crossing(validity: &str, kind: &str, speed_kmh: f64) -> Scenario {
    let text = format!(
        "name = \"c\"\n{VUT}speed_kmh = {KMH}\n[validity]\n{validity}\n[[targets]]\nid = \"t\"\n\
         kind = \"{kind}\"\nstart = {{ x = 200.0, y = -5.75 }}\nheading_deg = 0.0\n\
         lateral_start_m = 4.0\naccel_distance_m = 1.0\nspeed_kmh = {speed_kmh}\noverlap = 0.75\n"
    );
    Scenario::from_toml(&text).expect("scenario")
}

#[derive(Default, Clone, Copy)]
struct Run {
    yaw_step: Option<(f64, f64)>, // (t, °/s)
    fcw_from: Option<f64>,
    speed_step: Option<(f64, f64)>, // (t, +km/h)
}

/// VUT along y = −1.75 heading east from X0 at 30 km/h, 100 Hz, 10 s, armed at t = 0.
fn samples(r: Run) -> Vec<Sample> {
    let (dt, mut x) = (0.01, X0);
    (0..1000)
        .map(|k| {
            let t = k as f64 * dt;
            let v = (KMH + r.speed_step.filter(|s| t >= s.0).map_or(0.0, |s| s.1)) / 3.6;
            let s = Sample {
                steering_wheel_deg: Some(0.0),
                brake_light: Some(false),
                accel_mps2: Some(0.0),
                yaw_rate_rps: Some(
                    r.yaw_step
                        .filter(|y| t >= y.0)
                        .map_or(0.0, |y| y.1.to_radians()),
                ),
                fcw: r.fcw_from.map(|f| t >= f),
                ..Sample::vut(t, x, -1.75, 0.0, v)
            };
            x += v * dt;
            s
        })
        .collect()
}

fn run(sc: &Scenario, s: &[Sample]) -> (Validity, Vec<Output>) {
    let mut e = Engine::new(sc, EngineConfig::default(), Twin::new(None));
    let mut out = Vec::new();
    e.arm(s[0].time_s);
    for x in s {
        while let Some(t) = e.poll_timeout() {
            if t > x.time_s {
                break;
            }
            e.handle_timeout(t);
        }
        e.handle_sample(x);
        out.extend(std::iter::from_fn(|| e.poll_output()));
    }
    e.finish(s.last().map_or(0.0, |x| x.time_s));
    out.extend(std::iter::from_fn(|| e.poll_output()));
    let v = out
        .iter()
        .find_map(|o| match o {
            Output::Event(Event::Verdict(v)) => Some(v.clone()),
            _ => None,
        })
        .expect("verdict");
    (v, out)
}

/// Instant the VUT front (X0 + 2.3 at t = 0) reaches x.
fn t_front(x: f64) -> f64 {
    (x - (X0 + 2.3)) / (KMH / 3.6)
}

#[test]
fn ttc_rule_explicit_equals_the_default_and_impact_closes() {
    let s = samples(Run::default());
    let (d, _) = run(&crossing("", "pedestrian", 5.0), &s);
    let (e, _) = run(&crossing("t0 = \"ttc\"", "pedestrian", 5.0), &s);
    assert_eq!(d.window, e.window);
    let w = d.window.expect("window");
    assert!((w.from_s - t_front(200.0 - 4.0 * KMH / 3.6)).abs() < 1e-3);
    assert!((w.to_s - t_front(200.0)).abs() < 1e-3);
    assert_eq!(d.closed_by, Some(WindowEnd::Impact));
    assert_eq!(d.t0_rule, None, "default rule not reported");
    let j = serde_json::to_value(&d).expect("json");
    assert_eq!(j["closed_by"], "impact");
    assert!(j.get("t0_rule").is_none());
}

/// Turning: T0 = T_steer − 1 s; the yaw rate counts only up to T_steer.
#[test]
fn steer_rule_opens_at_t_steer_minus_one_and_yaw_counts_only_to_t_steer() {
    let spec = "t0 = \"steer\"\nt_steer_s = 3.0";
    let (v, _) = run(&crossing(spec, "pedestrian", 5.0), &samples(Run::default()));
    let w = v.window.expect("window");
    assert!((w.from_s - 2.0).abs() < 1e-12, "T0 {}", w.from_s);
    assert_eq!(
        v.t0_rule,
        Some(scil_core::scenario::validity::T0Rule::Steer)
    );
    assert!(v.valid, "{v:?}");
    // The VUT turns (4 °/s) from 3.3 s, after T_steer: not a yaw violation.
    let turn = Run {
        yaw_step: Some((3.3, 4.0)),
        ..Default::default()
    };
    let (v, out) = run(&crossing(spec, "pedestrian", 5.0), &samples(turn));
    let yaw = v
        .checks
        .iter()
        .find(|c| c.channel == Channel::VutYawRate)
        .expect("yaw checked");
    assert!(yaw.ok, "{yaw:?}");
    assert!(!out.iter().any(|o| matches!(o,
        Output::Event(Event::Validity(b)) if b.channel == Channel::VutYawRate)));
    // The same turn from 2.5 s (inside [T0, T_steer]) breaks it, offline and live.
    let early = Run {
        yaw_step: Some((2.5, 4.0)),
        ..Default::default()
    };
    let (v, out) = run(&crossing(spec, "pedestrian", 5.0), &samples(early));
    assert_eq!(v.first_broken(), Some(Channel::VutYawRate), "{v:?}");
    let first = v
        .checks
        .iter()
        .find(|c| c.channel == Channel::VutYawRate)
        .and_then(|c| c.first_violation_s)
        .expect("violation");
    assert!((first - 2.5).abs() < 0.05, "first violation {first}");
    assert!(out.iter().any(|o| matches!(o,
        Output::Event(Event::Validity(b)) if b.channel == Channel::VutYawRate)));
    // Without the TTC rule's T0 the default run would have opened at TTC 4 s instead.
    assert!((t_front(200.0 - 4.0 * KMH / 3.6) - 2.0).abs() > 0.1);
    // A steer rule without T_steer is rejected at load.
    let text = format!("name = \"x\"\n{VUT}[validity]\nt0 = \"steer\"\n");
    let e = Scenario::from_toml(&text).unwrap_err().to_string();
    assert!(e.contains("t_steer_s"), "{e}");
}

/// Car crossing: T0 = 0.5 s after the target's acceleration phase, from its (retimed) start.
#[test]
fn target_accel_end_rule_opens_half_a_second_after_the_acceleration_phase() {
    for (kind, kmh) in [("vehicle", 20.0), ("cyclist", 15.0)] {
        let sc = crossing("t0 = \"target_accel_end\"", kind, kmh);
        let (v, out) = run(&sc, &samples(Run::default()));
        // Trigger: VUT TTC = TTC_target = t_acc + (E − s_acc + (overlap − 0.5)·w) / v_t.
        let vt = kmh / 3.6;
        let t_acc = 2.0 * 1.0 / vt;
        let ttc_target = t_acc + (4.0 - 1.0 + 0.25 * 1.855) / vt;
        let t_trigger = t_front(200.0 - ttc_target * KMH / 3.6);
        let trig = out
            .iter()
            .filter_map(|o| match o {
                Output::Event(Event::TriggerAssessed(r)) => Some(r.time_s),
                _ => None,
            })
            .next_back()
            .expect("trigger");
        assert!(
            (trig - t_trigger).abs() < 1e-6,
            "{kind}: trigger {trig} vs {t_trigger}"
        );
        let w = v.window.expect("window");
        let t0 = t_trigger + t_acc + 0.5;
        assert!(
            (w.from_s - t0).abs() < 1e-6,
            "{kind}: T0 {} vs {t0}",
            w.from_s
        );
        assert!(v.valid, "{kind}: {v:?}");
        assert_eq!(v.closed_by, Some(WindowEnd::Impact));
    }
}

/// CCRb: the braking rule is still what `auto` picks; naming it gives the same window.
#[test]
fn target_brake_rule_named_or_auto() {
    let text = |rule: &str| {
        format!(
            "name = \"ccrb\"\n{VUT}speed_kmh = 50.0\n[validity]\n{rule}\n[[targets]]\nid = \"lead\"\n\
             kind = \"vehicle\"\nactivation = \"begin\"\nstart = {{ x = 100.0, y = -1.75 }}\n\
             heading_deg = 90.0\nlateral_start_m = 0.0\naccel_distance_m = 0.0\nspeed_kmh = 50.0\n\
             overlap = 1.0\nlength_m = 4.0\nbrake = {{ after_s = 3.0, decel_mps2 = 2.0 }}\n"
        )
    };
    let mut x = 70.0;
    let s: Vec<Sample> = (0..600)
        .map(|k| {
            let t = k as f64 * 0.01;
            let v = 50.0 / 3.6;
            let s = Sample {
                steering_wheel_deg: Some(0.0),
                brake_light: Some(false),
                accel_mps2: Some(0.0),
                yaw_rate_rps: Some(0.0),
                ..Sample::vut(t, x, -1.75, 0.0, v)
            };
            x += v * 0.01;
            s
        })
        .collect();
    let a = run(&Scenario::from_toml(&text("")).expect("sc"), &s).0;
    let b = run(
        &Scenario::from_toml(&text("t0 = \"target_brake\"")).expect("sc"),
        &s,
    )
    .0;
    let (wa, wb) = (a.window.expect("window"), b.window.expect("window"));
    assert!((wa.from_s - 2.0).abs() < 1e-12, "{wa:?}");
    assert_eq!(wa, wb);
    assert_eq!(
        a.t0_rule,
        Some(scil_core::scenario::validity::T0Rule::TargetBrake)
    );
}

/// FCW onset closes the window like AEB onset: a speed excursion after it does not count, and
/// the verdict says what closed it.
#[test]
fn fcw_onset_closes_the_window() {
    let t_imp = t_front(200.0);
    let t_fcw = t_imp - 1.2; // TTC 1.2 s
    let late_speed = Run {
        speed_step: Some((t_fcw + 0.2, 2.0)),
        ..Default::default()
    };
    // Without FCW the excursion is inside the window: invalid.
    let (v, _) = run(&crossing("", "pedestrian", 5.0), &samples(late_speed));
    assert_eq!(v.first_broken(), Some(Channel::VutSpeed), "{v:?}");
    // With FCW from t_fcw: the window ends at the first sample with FCW on.
    let with_fcw = Run {
        fcw_from: Some(t_fcw),
        ..late_speed
    };
    let (v, out) = run(&crossing("", "pedestrian", 5.0), &samples(with_fcw));
    let w = v.window.expect("window");
    let first_on = (t_fcw * 100.0).ceil() / 100.0;
    assert!(
        (w.to_s - first_on).abs() < 1e-9,
        "end {} vs {first_on}",
        w.to_s
    );
    assert_eq!(v.closed_by, Some(WindowEnd::Fcw));
    assert!(v.valid, "{v:?}");
    assert!(!out
        .iter()
        .any(|o| matches!(o, Output::Event(Event::Validity(_)))));
    let j = serde_json::to_value(&v).expect("json");
    assert_eq!(j["closed_by"], "fcw");
    // A run that ends before anything closed the window says so.
    let short: Vec<Sample> = samples(Run::default())
        .into_iter()
        .take_while(|s| s.time_s < t_imp - 1.0)
        .collect();
    let (v, _) = run(&crossing("", "pedestrian", 5.0), &short);
    assert_eq!(v.closed_by, Some(WindowEnd::EndOfRun));
}
