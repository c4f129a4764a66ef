//! A ground run's verdict from what the objects did: objects that follow their plans exactly
//! give the plan's impact location and a valid verdict; a target object that drives late
//! moves the reported impact with it (whatever the plan said), and one that drives too fast
//! breaks `target_speed` on its own MONR. The plan's figures stay beside them.

use std::sync::Arc;

use scil::dispatch::control_centre::MonrSample;
use scil::dispatch::ground::plan::plan_objects;
use scil::dispatch::ground::report::{impact_checks, lags_of};
use scil::dispatch::ground::verdict::from_objects;
use scil::dispatch::ground::{Drives, GroundOptions, ObjectPlan, ObjectSpec, Prepared};
use scil::dispatch::iso22133::ObjectState;
use scil::map::Map;
use scil::run::RunSetup;
use scil::scenario::engine::EngineConfig;
use scil::scenario::ncap2026::{Catalogue, Params};
use scil::scenario::validity::Channel;

use crate::support::shared;

fn setup(row: &str, p: Params, map: &str) -> Arc<RunSetup> {
    let m = Arc::new(Map::load(&shared(map)).expect("map loads"));
    let cat = Catalogue::bundled();
    let (r, _) = cat.find(row).expect("row");
    let sc = r.instantiate(&p, &m.road_network).expect("placed");
    Arc::new(RunSetup::try_new(sc, Some(m), EngineConfig::default()).expect("setup"))
}

/// An object's MONR as if it followed its plan from `start_s + late_s` (control-centre time),
/// 100 Hz, its MONR speed `speed_factor` × the planned one; RUNNING while it drives.
fn follow(p: &ObjectPlan, idx: usize, late_s: f64, speed_factor: f64) -> Vec<MonrSample> {
    let t0 = p.track.points[0].t;
    let dur = p.track.duration_s();
    (0..)
        .map(|k| k as f64 * 0.01)
        .take_while(|t| *t <= p.start_s + late_s + dur)
        .map(|t| {
            let tau = (t - p.start_s - late_s).max(0.0);
            let pose = p.track.pose_at(tau);
            let i = p.track.points.partition_point(|q| q.t - t0 <= tau);
            let v = p.track.points[i.min(p.track.points.len() - 1)].v;
            MonrSample {
                carrier: idx,
                t_s: t,
                x: pose.x,
                y: pose.y,
                yaw_deg: pose.yaw.to_degrees(),
                speed_mps: v * speed_factor,
                state: if t >= p.start_s + late_s {
                    ObjectState::Running
                } else {
                    ObjectState::Armed
                },
            }
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_verdict_comes_from_the_objects_monr() {
    let mut p = Params::new(20.0);
    p.impact = Some(0.5);
    let setup = setup("CPNA", p, "opendrive/proving_ground.xodr");
    let objects: Vec<ObjectSpec> = std::iter::once(Drives::Vut)
        .chain(
            setup
                .scenario
                .targets
                .iter()
                .filter(|t| t.activation != scil::scenario::Activation::Static)
                .map(|t| Drives::Target(t.id.clone())),
        )
        .enumerate()
        .map(|(i, d)| ObjectSpec {
            name: format!("object-{i}"),
            address: format!("127.0.0.{}", i + 2),
            drives: d,
            mobility: None,
            capabilities: Vec::new(),
        })
        .collect();
    let planned = plan_objects(&setup, &objects, &GroundOptions::default())
        .await
        .expect("planned");
    let (plans, setup, run_ups) = (planned.plans, planned.setup, planned.run_ups);
    let rehearsal = planned.rehearsal.expect("rehearsal");
    let target = plans
        .iter()
        .position(|p| matches!(p.drives, Drives::Target(_)))
        .expect("a target object");
    let id = match &plans[target].drives {
        Drives::Target(id) => id.clone(),
        Drives::Vut => unreachable!(),
    };
    // The track's time is the rehearsal's shifted by the robot's launch.
    let fired = rehearsal
        .triggers
        .iter()
        .find(|t| t.target == id)
        .expect("triggered")
        .fired_at_s;
    let cc_minus_sample = plans[target].start_s - fired;
    let planned = rehearsal
        .impacts
        .iter()
        .find(|i| i.target == id)
        .and_then(|i| i.location)
        .expect("planned impact");
    let prepared = Prepared {
        setup: setup.clone(),
        plans: plans.clone(),
        rehearsal: Some(rehearsal.clone()),
        run_ups: run_ups.clone(),
    };
    let judge = |late_s: f64, speed_factor: f64| {
        let monr: Vec<Vec<MonrSample>> = plans
            .iter()
            .enumerate()
            .map(|(i, p)| {
                if i == target {
                    follow(p, i, late_s, speed_factor)
                } else {
                    follow(p, i, 0.0, 1.0)
                }
            })
            .collect();
        let lags = lags_of(&plans, &monr);
        let checks = impact_checks(&prepared, &monr, &lags, &[Some(0.02); 2]);
        let mut run = rehearsal.clone();
        from_objects(&mut run, &prepared, &monr, &checks, cc_minus_sample, false);
        (run, checks)
    };
    // On their plans: the impact where it was planned, valid, the plan kept beside it.
    let (run, checks) = judge(0.0, 1.0);
    let imp = run.impacts.iter().find(|i| i.target == id).expect("impact");
    let monr = checks[0].monr.expect("contact on MONR");
    assert_eq!(imp.location, Some(monr.location));
    assert!(
        (monr.location - planned).abs() <= 0.01,
        "{monr:?} vs {planned}"
    );
    assert_eq!(checks[0].clock_offset_s, Some(0.0));
    let plan = run.plan.as_ref().expect("plan kept");
    assert_eq!(plan.impacts, rehearsal.impacts);
    let v = run.validity.as_ref().expect("verdict");
    assert!(v.valid, "{v:?}");
    let speed = v
        .checks
        .iter()
        .find(|c| c.channel == Channel::TargetSpeed)
        .expect("target speed judged");
    assert!(speed.worst.abs() < 0.01, "{speed:?}");
    assert!(v.warnings.iter().any(|w| w.contains("MONR")), "{v:?}");
    let j = serde_json::to_value(&run).expect("json");
    assert_eq!(j["verdict_from"]["impacts"], "monr");
    assert!(j["plan"]["impacts"][0]["location"].is_number(), "{j}");
    // The pedestrian's object 0.15 s late: the objects meet elsewhere, and the verdict says
    // so (5 km/h × 0.15 s = 0.21 m across the VUT's front: about 0.1 of its width).
    let (run, checks) = judge(0.15, 1.0);
    let imp = run.impacts.iter().find(|i| i.target == id).expect("impact");
    let got = imp.location.expect("location");
    assert_eq!(Some(got), checks[0].monr.map(|m| m.location));
    assert!((got - planned).abs() > 0.08, "{got} vs {planned}");
    assert_eq!(
        run.plan.as_ref().and_then(|p| p.impacts[0].location),
        Some(planned)
    );
    // Its MONR speed 20 % high (6 km/h for 5): target_speed breaks on the object's own figure.
    let (run, _) = judge(0.0, 1.2);
    let v = run.validity.as_ref().expect("verdict");
    let speed = v
        .checks
        .iter()
        .find(|c| c.channel == Channel::TargetSpeed)
        .expect("target speed judged");
    assert!(!speed.ok && !v.valid, "{v:?}");
}
