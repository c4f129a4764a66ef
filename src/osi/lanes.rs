//! The OpenDRIVE map as OSI lanes and lane boundaries (map frame, sampled every metre).
//!
//! Every lane of every lane section becomes one `osi3.Lane` with its centre line; every border
//! (the centre lane's at the lane offset, each lane's outer border) one `osi3.LaneBoundary`.
//! A lane names the borders on its left and right as seen along its centre line, which runs in
//! the road's s direction: right-hand traffic drives along it on the right lanes (negative ids)
//! and against it on the left lanes. Road marks are not part of scil's map model, so a border
//! is classified by position only: the outermost border of a side is the road edge, the others
//! `TYPE_OTHER`.

use super::osi3::{self, lane, lane_boundary, Identifier, Vector3d};
use opendrive::OpenDrive;

/// Lane ids start here, lane boundary ids at [`BOUNDARY_ID_BASE`]; moving objects stay below.
pub const LANE_ID_BASE: u64 = 1_000_000;
pub const BOUNDARY_ID_BASE: u64 = 2_000_000;

/// Sample spacing along s, metres.
const STEP_M: f64 = 1.0;

fn ident(v: u64) -> Identifier {
    Identifier { value: Some(v) }
}

fn samples(s0: f64, s1: f64) -> Vec<f64> {
    let n = (((s1 - s0) / STEP_M).ceil() as usize).max(1);
    (0..=n)
        .map(|i| {
            let s = s0 + (s1 - s0) * i as f64 / n as f64;
            // Just inside the section end, so the last sample is evaluated on this section.
            if i == n && s1 > s0 {
                (s1 - 1e-9).max(s0)
            } else {
                s
            }
        })
        .collect()
}

fn source(road: &str, section: usize, lane: i32) -> osi3::ExternalReference {
    osi3::ExternalReference {
        reference: None,
        r#type: Some("net.asam.opendrive".into()),
        identifier: vec![road.to_string(), section.to_string(), lane.to_string()],
    }
}

/// The lanes and lane boundaries of `map`.
pub fn lanes(map: &OpenDrive) -> (Vec<osi3::Lane>, Vec<osi3::LaneBoundary>) {
    let mut lanes = Vec::new();
    let mut bounds = Vec::new();
    for road in &map.roads {
        for (si, ls) in road.lane_sections.iter().enumerate() {
            let s0 = ls.s.max(0.0);
            let s1 = road
                .lane_sections
                .get(si + 1)
                .map_or(road.length, |n| n.s)
                .min(road.length);
            if s1 <= s0 {
                continue;
            }
            let ss = samples(s0, s1);
            let line = |t_of: &dyn Fn(f64) -> Option<f64>| -> Vec<Vector3d> {
                ss.iter()
                    .filter_map(|&s| {
                        let t = t_of(s)?;
                        let (x, y) = road.st_to_xy(s, t);
                        Some(Vector3d {
                            x: Some(x),
                            y: Some(y),
                            z: Some(0.0),
                        })
                    })
                    .collect()
            };
            let mut boundary = |lane_id: i32, outermost: bool, pts: Vec<Vector3d>| -> Option<u64> {
                if pts.len() < 2 {
                    return None;
                }
                let id = BOUNDARY_ID_BASE + bounds.len() as u64;
                let kind = if outermost {
                    lane_boundary::classification::Type::RoadEdge
                } else {
                    lane_boundary::classification::Type::Other
                };
                bounds.push(osi3::LaneBoundary {
                    id: Some(ident(id)),
                    boundary_line: pts
                        .into_iter()
                        .map(|p| lane_boundary::BoundaryPoint {
                            position: Some(p),
                            ..Default::default()
                        })
                        .collect(),
                    classification: Some(lane_boundary::Classification {
                        r#type: Some(kind as i32),
                        ..Default::default()
                    }),
                    source_reference: vec![source(&road.id, si, lane_id)],
                    ..Default::default()
                });
                Some(id)
            };
            let centre = boundary(
                0,
                ls.left.is_empty() || ls.right.is_empty(),
                line(&|s| Some(road.lane_offset(s))),
            );
            for (side, list) in [(1, &ls.left), (-1, &ls.right)] {
                let mut inner = centre;
                let mut sorted: Vec<_> = list.iter().collect();
                sorted.sort_by_key(|l| l.id.abs());
                let last = sorted.len().saturating_sub(1);
                for (k, l) in sorted.into_iter().enumerate() {
                    let id = l.id;
                    let outer = boundary(id, k == last, line(&|s| road.border_t(id, s)));
                    let centreline = line(&|s| road.lane_span(id, s).map(|(a, b)| 0.5 * (a + b)));
                    if centreline.len() >= 2 {
                        // Along s, the left side's outer border is on the left; the right side's
                        // on the right.
                        let (left, right) = if side > 0 {
                            (outer, inner)
                        } else {
                            (inner, outer)
                        };
                        let driving = l.lane_type == "driving";
                        lanes.push(osi3::Lane {
                            id: Some(ident(LANE_ID_BASE + lanes.len() as u64)),
                            classification: Some(lane::Classification {
                                r#type: Some(if driving {
                                    lane::classification::Type::Driving
                                } else {
                                    lane::classification::Type::Nondriving
                                } as i32),
                                is_host_vehicle_lane: Some(false),
                                centerline: centreline,
                                centerline_is_driving_direction: Some(side < 0),
                                left_lane_boundary_id: left.map(ident).into_iter().collect(),
                                right_lane_boundary_id: right.map(ident).into_iter().collect(),
                                ..Default::default()
                            }),
                            source_reference: vec![source(&road.id, si, id)],
                        });
                    }
                    inner = outer;
                }
            }
        }
    }
    (lanes, bounds)
}
