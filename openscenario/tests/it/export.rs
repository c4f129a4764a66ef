//! A written recording reads back (with the strict reader) to the same trajectories.

use std::collections::BTreeMap;

use openscenario::model::{Action, Position, Shape};
use openscenario::write::{write, Actor, Recording};

#[test]
fn a_written_recording_reads_back_to_the_same_trajectories() {
    // A VUT on a curve at 100 Hz and a pedestrian crossing at 25 Hz.
    let vut: Vec<_> = (0..1500)
        .map(|i| {
            let t = 3.0 + i as f64 * 0.01;
            let a = 0.002 * i as f64;
            (
                t,
                100.0 * a.sin() + 1234.567,
                100.0 * (1.0 - a.cos()) - 0.123,
                a,
            )
        })
        .collect();
    let ped: Vec<_> = (0..200)
        .map(|i| {
            (
                3.5 + i as f64 * 0.04,
                150.0,
                -4.0 + i as f64 * 0.04 * 1.39,
                std::f64::consts::FRAC_PI_2,
            )
        })
        .collect();
    let rec = Recording {
        description: "run <1> & \"test\"".into(),
        date: "2026-11-24T20:00:00".into(),
        map: None,
        actors: vec![
            Actor {
                name: "vut".into(),
                pedestrian: false,
                category: "car".into(),
                length: 4.6,
                width: 1.85,
                height: 1.5,
                samples: vut.clone(),
            },
            Actor {
                name: "dummy".into(),
                pedestrian: true,
                category: "pedestrian".into(),
                length: 0.3,
                width: 0.5,
                height: 1.8,
                samples: ped.clone(),
            },
        ],
    };
    let xml = write(&rec);
    let dir = std::env::temp_dir().join(format!("osc-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("run.xosc");
    std::fs::write(&f, &xml).unwrap();
    let sc = openscenario::read_scenario(&f, &BTreeMap::new()).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(sc.entities.len(), 2);
    let mut seen = 0;
    for story in &sc.stories {
        for act in &story.acts {
            for g in &act.groups {
                let want = if g.actors[0] == "vut" { &vut } else { &ped };
                let ev = &g.maneuvers[0].events[0];
                let Action::FollowTrajectory {
                    trajectory, timing, ..
                } = &ev.actions[0].action
                else {
                    panic!("not a trajectory")
                };
                assert!(timing
                    .as_ref()
                    .is_some_and(|t| t.domain_absolute && t.scale == 1.0));
                let Shape::Polyline { vertices } = &trajectory.shape else {
                    panic!()
                };
                assert_eq!(vertices.len(), want.len());
                for (v, w) in vertices.iter().zip(want) {
                    let Position::World { x, y, h, .. } = v.position else {
                        panic!()
                    };
                    assert!((x - w.1).hypot(y - w.2) <= 0.01);
                    assert!((h.unwrap() - w.3).abs() < 1e-9);
                    assert!((v.time.unwrap() - (w.0 - 3.0)).abs() < 1e-9);
                }
                seen += 1;
            }
        }
    }
    assert_eq!(seen, 2);
    assert!(sc.stop_trigger.is_some());
}
