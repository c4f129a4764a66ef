use super::*;
use crate::scenario::Scenario;

fn scenario(ref_to_front: f64) -> Scenario {
    let text = format!(
        r#"
name = "t"
[vut]
width_m = 1.8
length_m = 4.0
reference_to_front_m = {ref_to_front}
[[targets]]
id = "ped"
kind = "pedestrian"
start = {{ x = 10.0, y = -3.0 }}
heading_deg = 0.0
lateral_start_m = 3.0
accel_distance_m = 1.0
speed_kmh = 5.0
overlap = 0.5
[[targets]]
id = "bike"
kind = "cyclist"
start = {{ x = 20.0, y = -3.0 }}
heading_deg = 0.0
lateral_start_m = 3.0
accel_distance_m = 1.0
speed_kmh = 15.0
overlap = 0.5
"#
    );
    Scenario::from_toml(&text).expect("scenario")
}

fn st(x: f64, y: f64, yaw: f64, v: f64) -> ObjectState {
    ObjectState {
        x,
        y,
        yaw_rad: yaw,
        speed_mps: v,
    }
}

#[test]
fn timestamps_split_into_seconds_and_nanos() {
    let t = timestamp(387000.04);
    assert_eq!((t.seconds, t.nanos), (Some(387000), Some(40_000_000)));
    let t = timestamp(-0.25);
    assert_eq!((t.seconds, t.nanos), (Some(-1), Some(750_000_000)));
    let t = timestamp(1.9999999999);
    assert_eq!((t.seconds, t.nanos), (Some(2), Some(0)));
    assert!((seconds(&timestamp(12.345)) - 12.345).abs() < 1e-9);
}

#[test]
fn host_is_the_box_centre_of_the_vut_and_targets_are_typed() {
    // Reference point 3 m behind the front of a 4 m car: the box centre is 1 m ahead of it.
    let mut enc = OsiEncoder::new(&scenario(3.0), None, &["bike".to_string()]);
    let yaw = std::f64::consts::FRAC_PI_2;
    let f = Frame {
        time_s: 5.0,
        vut: st(1.0, 2.0, yaw, 10.0),
        targets: vec![
            ("bike".into(), st(20.0, -3.0, 0.0, 4.0)),
            ("ped".into(), st(10.0, -3.0, yaw, 1.0)),
        ],
    };
    let sv = enc.sensor_view(&f);
    assert_eq!(
        sv.version.map(|v| (v.version_major, v.version_minor)),
        Some((Some(3), Some(8)))
    );
    let gt = sv.global_ground_truth.as_ref().expect("ground truth");
    assert_eq!(sv.timestamp, gt.timestamp);
    assert_eq!(sv.host_vehicle_id, gt.host_vehicle_id);
    assert_eq!(sv.host_vehicle_id.and_then(|i| i.value), Some(HOST_ID));
    let by_id = |id: u64| {
        gt.moving_object
            .iter()
            .find(|o| o.id.and_then(|i| i.value) == Some(id))
            .expect("object")
    };
    let host = by_id(HOST_ID);
    let b = host.base.as_ref().expect("base");
    let p = b.position.expect("position");
    assert!(
        (p.x.unwrap() - 1.0).abs() < 1e-12 && (p.y.unwrap() - 3.0).abs() < 1e-12,
        "{p:?}"
    );
    let v = b.velocity.expect("velocity");
    assert!(v.x.unwrap().abs() < 1e-12 && (v.y.unwrap() - 10.0).abs() < 1e-12);
    assert_eq!(b.orientation.and_then(|o| o.yaw), Some(yaw));
    assert_eq!(host.r#type, Some(moving_object::Type::Vehicle as i32));
    assert_eq!(
        host.vehicle_classification.as_ref().and_then(|c| c.r#type),
        Some(vehicle_classification::Type::Car as i32)
    );
    let rear = host
        .vehicle_attributes
        .as_ref()
        .and_then(|a| a.bbcenter_to_rear)
        .expect("bbcenter_to_rear");
    assert!(rear.x.unwrap() < 0.0 && rear.x.unwrap() > -2.0);
    // Targets keep their scenario order's ids whatever the frame's order.
    let ped = by_id(HOST_ID + 1);
    assert_eq!(ped.r#type, Some(moving_object::Type::Pedestrian as i32));
    assert_eq!(ped.source_reference[0].identifier, vec!["ped".to_string()]);
    let bike = by_id(HOST_ID + 2);
    assert_eq!(bike.r#type, Some(moving_object::Type::Vehicle as i32));
    assert_eq!(
        bike.vehicle_classification.as_ref().and_then(|c| c.r#type),
        Some(vehicle_classification::Type::Bicycle as i32)
    );
    assert_eq!(
        bike.source_reference[0].identifier,
        vec!["bike".to_string(), "virtual".to_string()]
    );
    // Acceleration: zero first, then the velocity difference over the step.
    let a = |sv: &osi3::SensorView, id: u64| {
        let o = sv
            .global_ground_truth
            .as_ref()
            .unwrap()
            .moving_object
            .iter()
            .find(|o| o.id.and_then(|i| i.value) == Some(id))
            .cloned()
            .unwrap();
        o.base.unwrap().acceleration.unwrap()
    };
    assert_eq!(a(&sv, HOST_ID).y, Some(0.0));
    let sv2 = enc.sensor_view(&Frame {
        time_s: 5.5,
        vut: st(1.0, 7.0, yaw, 9.0),
        targets: f.targets.clone(),
    });
    assert!((a(&sv2, HOST_ID).y.unwrap() + 2.0).abs() < 1e-9);
}

#[test]
fn lanes_go_out_with_the_first_message_only() {
    let map = crate::map::Map::load(&crate::data_dir().join("opendrive/proving_ground.xodr"))
        .expect("map");
    let mut enc = OsiEncoder::new(&scenario(2.0), Some(&map), &[]);
    let (lanes, bounds) = enc.map_size();
    assert!(
        lanes > 0 && bounds > lanes,
        "{lanes} lanes, {bounds} boundaries"
    );
    let f = Frame {
        time_s: 0.0,
        vut: st(0.0, 0.0, 0.0, 0.0),
        targets: vec![],
    };
    let first = enc.sensor_view(&f);
    let gt = first.global_ground_truth.as_ref().unwrap();
    assert_eq!((gt.lane.len(), gt.lane_boundary.len()), (lanes, bounds));
    // Every boundary a lane names exists.
    let ids: std::collections::HashSet<u64> = gt
        .lane_boundary
        .iter()
        .filter_map(|b| b.id?.value)
        .collect();
    for l in &gt.lane {
        let c = l.classification.as_ref().unwrap();
        assert!(c.centerline.len() >= 2);
        for b in c
            .left_lane_boundary_id
            .iter()
            .chain(&c.right_lane_boundary_id)
        {
            assert!(ids.contains(&b.value.unwrap()));
        }
    }
    let second = enc.sensor_view(&Frame { time_s: 0.01, ..f });
    assert!(second.global_ground_truth.unwrap().lane.is_empty());
}

#[test]
fn traces_round_trip_and_bad_ones_are_errors() {
    let mut enc = OsiEncoder::new(&scenario(2.0), None, &[]);
    let mut bytes = Vec::new();
    for i in 0..3 {
        let sv = enc.sensor_view(&Frame {
            time_s: i as f64 * 0.01,
            vut: st(i as f64, 0.0, 0.0, 1.0),
            targets: vec![],
        });
        trace::push(&mut bytes, &sv);
    }
    let back = trace::read(&bytes).expect("trace");
    assert_eq!(back.len(), 3);
    assert_eq!(back[2].timestamp, Some(timestamp(0.02)));
    assert!(matches!(
        trace::read(&bytes[..bytes.len() - 1]),
        Err(trace::TraceError::ShortMessage { index: 2, .. })
    ));
    assert!(matches!(
        trace::read(&bytes[..2]),
        Err(trace::TraceError::ShortPrefix {
            index: 0,
            offset: 0
        })
    ));
    let mut bad = 3u32.to_le_bytes().to_vec();
    bad.extend_from_slice(&[0xff, 0xff, 0xff]);
    assert!(matches!(
        trace::read(&bad),
        Err(trace::TraceError::Decode { .. })
    ));
    assert_eq!(trace::read(&[]), Ok(vec![]));
}
