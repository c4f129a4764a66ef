//! The sans-IO engine driven directly with synthetic samples: prediction accuracy without
//! sensor noise, AEB "no impact", stale telemetry, and late arming.

use scil::sample::Sample;
use scil::scenario::engine::{
    Command, Engine, EngineConfig, Event, Output, RunState, TriggerMethod,
};
use scil::scenario::Scenario;
use scil::twin::Twin;

const SCENARIO: &str = r#"
name = "synthetic"
[vut]
width_m = 1.855
length_m = 4.6
reference_to_front_m = 2.3
[[targets]]
id = "dummy"
kind = "pedestrian"
carrier = "carrier-1"
start = { x = 200.0, y = -5.75 }
heading_deg = 0.0
lateral_start_m = 4.0
accel_distance_m = 1.0
speed_kmh = 5.0
overlap = 0.75
"#;

fn sample(t: f64, x: f64, v: f64) -> Sample {
    Sample::vut(t, x, -1.75, 0.0, v)
}

/// Drives the engine like the replay driver does; returns all outputs.
fn drive(engine: &mut Engine, samples: &[Sample]) -> Vec<Output> {
    let mut out = Vec::new();
    engine.arm(samples[0].time_s);
    for s in samples {
        while let Some(t) = engine.poll_timeout() {
            if t > s.time_s {
                break;
            }
            engine.handle_timeout(t);
        }
        engine.handle_sample(s);
        while let Some(o) = engine.poll_output() {
            out.push(o);
        }
    }
    engine.finish(samples.last().map_or(0.0, |s| s.time_s));
    while let Some(o) = engine.poll_output() {
        out.push(o);
    }
    out
}

fn engine(cfg: EngineConfig) -> Engine {
    Engine::new(
        &Scenario::from_toml(SCENARIO).unwrap(),
        cfg,
        Twin::default(),
    )
}

/// Constant or accelerating approach, 25 Hz with an arbitrary phase: the causal prediction is
/// exact to well under a millisecond when the data has no noise.
#[test]
fn prediction_is_sub_millisecond_on_clean_kinematics() {
    for (v0, a, phase) in [
        (2.78, 0.0, 0.013),
        (8.33, 0.0, 0.031),
        (13.9, 0.3, 0.007),
        (11.0, -0.8, 0.022),
        (22.2, 0.0, 0.0),
    ] {
        let mut samples = Vec::new();
        let mut t = phase;
        let x0 = 200.0 - 2.3 - v0 * 7.0; // 7 s of approach
        while t < 7.0 {
            let v: f64 = v0 + a * t;
            samples.push(sample(1000.0 + t, x0 + v0 * t + 0.5 * a * t * t, v));
            t += 0.04;
        }
        let mut e = engine(EngineConfig {
            retime: false,
            ..EngineConfig::default()
        });
        let outs = drive(&mut e, &samples);
        let trig = outs
            .iter()
            .find_map(|o| match o {
                Output::Event(Event::TriggerAssessed(r)) => Some(r.clone()),
                _ => None,
            })
            .expect("assessed trigger");
        let err = trig.fire_error_ms.unwrap();
        assert!(
            err.abs() < 0.5,
            "v0={v0} a={a}: start command {err} ms from the crossing"
        );
        // The Start command was emitted from a timer, not from a sample.
        let start = outs
            .iter()
            .find_map(|o| match o {
                Output::Command(Command::Start { at_s, .. }) => Some(*at_s),
                _ => None,
            })
            .unwrap();
        assert!(samples.iter().all(|s| (s.time_s - start).abs() > 1e-6));
    }
}

#[test]
fn aeb_stop_reports_no_impact_and_distance_short() {
    // 30 km/h, trigger, then braking at 8 m/s² to stop 1.5 m before the dummy's path line.
    let v0: f64 = 30.0 / 3.6;
    let decel = 8.0;
    let stop_front_x = 200.0 - 1.5;
    let brake_dist = v0 * v0 / (2.0 * decel);
    let x_brake = stop_front_x - 2.3 - brake_dist;
    let mut samples = Vec::new();
    let mut t = 0.0;
    let mut x = x_brake - v0 * 6.0;
    let mut v = v0;
    while t < 9.0 {
        samples.push(sample(t, x, v));
        let dt = 0.04;
        if x >= x_brake {
            let nv = (v - decel * dt).max(0.0);
            x += (v * v - nv * nv) / (2.0 * decel);
            v = nv;
        } else {
            x += v * dt;
        }
        t += dt;
    }
    let mut e = engine(EngineConfig::default());
    let outs = drive(&mut e, &samples);
    let imp = outs
        .iter()
        .find_map(|o| match o {
            Output::Event(Event::Impact(r)) => Some(r.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(imp.time_s, None);
    let short = imp.stopped_short_m.expect("stopped short");
    assert!((short - 1.5).abs() < 0.05, "{short}");
    assert_eq!(e.state(), RunState::Finished);
}

#[test]
fn stale_telemetry_aborts_an_armed_run() {
    let mut e = engine(EngineConfig::default());
    e.arm(0.0);
    e.handle_sample(&sample(0.0, 100.0, 8.0));
    e.handle_sample(&sample(0.04, 100.32, 8.0));
    assert_eq!(e.poll_timeout(), Some(0.04 + 0.2));
    // A live driver advances time by the wall clock: nothing arrives for 200 ms.
    let deadline = e.poll_timeout().unwrap();
    e.handle_timeout(deadline);
    assert_eq!(e.state(), RunState::Aborted);
    let outs: Vec<_> = std::iter::from_fn(|| e.poll_output()).collect();
    assert!(outs.iter().any(
        |o| matches!(o, Output::Command(Command::Abort { reason }) if reason.contains("stale"))
    ));
    // Before arming, silence is not an abort.
    let mut idle = engine(EngineConfig::default());
    idle.handle_sample(&sample(0.0, 100.0, 8.0));
    assert_eq!(idle.poll_timeout(), None);
}

#[test]
fn armed_inside_threshold_fires_at_once() {
    let mut e = engine(EngineConfig {
        method: TriggerMethod::Predicted,
        ..EngineConfig::default()
    });
    // 20 m before the dummy at 8.33 m/s: TTC ≈ 2.1 s < 3.93 s.
    let outs = drive(
        &mut e,
        &[sample(0.0, 180.0, 8.33), sample(0.04, 180.33, 8.33)],
    );
    let starts: Vec<_> = outs
        .iter()
        .filter_map(|o| match o {
            Output::Command(Command::Start { at_s, .. }) => Some(*at_s),
            _ => None,
        })
        .collect();
    assert_eq!(starts, vec![0.0]);
}

#[test]
fn out_of_order_samples_are_rejected_events() {
    let mut e = engine(EngineConfig::default());
    e.handle_sample(&sample(1.0, 100.0, 8.0));
    e.handle_sample(&sample(0.5, 100.0, 8.0));
    let outs: Vec<_> = std::iter::from_fn(|| e.poll_output()).collect();
    assert!(outs
        .iter()
        .any(|o| matches!(o, Output::Event(Event::SampleRejected { .. }))));
    assert_eq!(e.samples(), 1);
}
