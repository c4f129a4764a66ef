//! CBDA, dooring: the VUT is parked on the lane; a cyclist rides past it from behind, parallel
//! to it at the cell's lateral gap from its side, on the side of the chosen door; the door is
//! opened (`vut.door`) when the cyclist's front is the row's distance for its speed from the
//! door's rear edge (5.5 / 8 / 11 m at 10 / 15 / 20 km/h). The measure is the cyclist's TTC to
//! the door then (the trigger of target `door`).
//!
//! Door rear edges from the front bumper: the front doors 2.1 m, the rear doors 3.1 m (a car of
//! the default size; `vut.door` is editable in the scenario file).

use super::straight::station;
use super::{round6, Cell, DoorChoice, Params, Row};
use crate::frame::yaw_to_heading;
use crate::scenario::catalogue::lane_station_at_x;
use crate::scenario::path::PointsPath;
use crate::scenario::{Activation, DoorSpec, PathSpec, Point, Scenario, TargetKind, TargetSpec};

/// From the front bumper to the rear edge of a front / rear door, m.
const FRONT_DOOR_REAR_EDGE_M: f64 = 2.1;
const REAR_DOOR_REAR_EDGE_M: f64 = 3.1;

pub(crate) fn place(
    row: &Row,
    cell: &Cell,
    p: &Params,
    map: &opendrive::OpenDrive,
) -> Result<Scenario, String> {
    let gap = cell
        .gap_m
        .ok_or_else(|| format!("{}: the row needs a gap (m)", row.id))?;
    let k = row
        .target_speeds_kmh
        .iter()
        .position(|v| (v - (cell.target_kmh - p.robustness.target_speed_kmh)).abs() < 1e-9)
        .unwrap_or(0);
    let open_at = *row
        .door_distances_m
        .get(k)
        .ok_or_else(|| format!("{}: the row has no door distance", row.id))?;
    let door = p.door.unwrap_or(DoorChoice::Driver);
    let (x, lane, st) = station(p, map)?;
    let here = lane_station_at_x(map, Some(&st.road), lane, x)?;
    let h = here.hdg;
    let (c, s) = (h.cos(), h.sin());
    let mut vut = p.vut.clone();
    vut.speed_kmh = None;
    // The VUT's reference point at the station; its path a short straight (it does not move).
    let pt = |along: f64, left: f64| Point {
        x: round6(here.x + along * c - left * s),
        y: round6(here.y + along * s + left * c),
    };
    vut.path = Some(PathSpec::Points(PointsPath {
        points: vec![pt(0.0, 0.0), pt(10.0, 0.0)],
    }));
    let side = match door {
        DoorChoice::Driver | DoorChoice::BehindDriver => 1.0,
        _ => -1.0,
    };
    let edge = match door {
        DoorChoice::Driver | DoorChoice::Passenger => FRONT_DOOR_REAR_EDGE_M,
        _ => REAR_DOOR_REAR_EDGE_M,
    };
    let front = vut.reference_to_front_m;
    let half_w = 0.5 * vut.width_m;
    vut.door = Some(DoorSpec {
        target: "cyclist".into(),
        rear_edge_forward_m: round6(front - edge),
        rear_edge_left_m: round6(side * half_w),
        open_at_m: open_at,
        carrier: None,
    });
    let kind = row.target.unwrap_or(TargetKind::Cyclist);
    let v_t = cell.target_kmh / 3.6;
    // From behind: up to speed (4 m) and 2 s steady before the opening distance.
    let accel = 4.0;
    let behind = front - edge - open_at - accel - 2.0 * v_t - 1.0;
    let lat = side * (half_w + gap);
    let tpts: Vec<Point> = (0..=((60.0 - behind) / 0.5) as usize)
        .map(|i| pt(behind + 0.5 * i as f64, lat))
        .collect();
    let mut t = TargetSpec::new("cyclist", kind, tpts[0], round6(yaw_to_heading(h)));
    t.carrier = p.carrier.clone();
    t.speed_kmh = cell.target_kmh;
    t.accel_distance_m = accel;
    t.activation = Activation::Begin;
    t.path = Some(PathSpec::Points(PointsPath { points: tpts }));
    Ok(Scenario {
        name: String::new(),
        map: None,
        vut,
        targets: vec![t],
        sync: false,
        validity: None,
        catalogue_id: None,
    })
}
