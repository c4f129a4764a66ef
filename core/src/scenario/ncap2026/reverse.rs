//! Reversing rows on a straight lane: the VUT reverses along the lane's centre (`vut.reverse`;
//! its planned path is that of its control point in the direction of travel) towards a
//! stationary child target standing in its path.
//!
//! The engine measures a reversing VUT facing its direction of travel (the rear bumper leads),
//! so the impact location is a position across the rear bumper, as a fraction of the width from
//! the VUT's left side (the right as seen looking backwards).
//!
//! With a moving child (CPMRCm) the VUT starts from standstill (`vut.launch`, up to the cell's
//! VUT speed) with its rear bumper the cell's gap before the child's path; the child walks
//! across behind it from the right (as seen looking backwards) and the launch is cued so that
//! they meet at the asked location.

use super::lowspeed;
use super::straight::station;
use super::{round6, Cell, Params, Row};
use crate::frame::yaw_to_heading;
use crate::scenario::catalogue::lane_station_at_x;
use crate::scenario::path::LanePath;
use crate::scenario::{Activation, PathSpec, Point, Scenario, TargetKind, TargetSpec};

pub(crate) fn place(
    row: &Row,
    cell: &Cell,
    p: &Params,
    map: &opendrive::OpenDrive,
) -> Result<Scenario, String> {
    if cell.target_kmh != 0.0 {
        let gap = cell
            .gap_m
            .ok_or_else(|| format!("{}: the row needs a gap (m)", row.id))?;
        let launch_kmh = cell.vut_kmh;
        let o = lowspeed::Launched {
            reverse: true,
            gap_m: gap,
            launch_kmh,
            obstructed: false,
        };
        return lowspeed::place(row, cell, p, map, o);
    }
    let (x, lane, st) = station(p, map)?;
    let here = lane_station_at_x(map, Some(&st.road), lane, x)?;
    let mut vut = p.vut.clone();
    vut.speed_kmh = Some(cell.vut_kmh);
    vut.reverse = true;
    vut.path = Some(PathSpec::Lane(LanePath {
        road: st.road.clone(),
        lane,
        s_from: round6(st.s_from),
        s_to: round6(st.s_to),
        t_offset: 0.0,
    }));
    // Across the leading (rear) bumper, from its right edge in the direction of travel.
    let left = (cell.impact - 0.5) * vut.width_m;
    let (c, s) = (here.hdg.cos(), here.hdg.sin());
    let start = Point {
        x: round6(here.x - left * s),
        y: round6(here.y + left * c),
    };
    let kind = row.target.unwrap_or(TargetKind::Pedestrian);
    // Facing across the VUT's path (a child standing sideways to it).
    let mut t = TargetSpec::new(
        "child",
        kind,
        start,
        round6(yaw_to_heading(here.hdg - std::f64::consts::FRAC_PI_2)),
    );
    t.carrier = p.carrier.clone();
    t.speed_kmh = 0.0;
    t.activation = Activation::Static;
    t.overlap = cell.impact;
    Ok(Scenario {
        name: String::new(),
        map: None,
        vut,
        targets: vec![t],
        sync: false,
        validity: Some(Default::default()),
        catalogue_id: None,
    })
}
