//! A scenario on a placed layout: a scenario written in the metres of an unplaced layout (the
//! bundled Euro NCAP ones, one of your own) turned with the layout when `scil map place` puts it
//! at a site.
//!
//! Placing turns the layout's plan view about its (0, 0) so that its +x axis points at a compass
//! heading, and moves nothing in map metres (the move to the site is the map's geoReference). A
//! scenario goes the same way: its world positions — target start points, polyline points, the
//! start of segment paths — are turned about (0, 0) by the same angle, its headings (INS
//! convention, clockwise from north) by the opposite sign of that angle, i.e. increased by
//! `heading − 90°`. Road positions (a lane path's road, lane, s and t) and everything measured
//! along a path or in a body frame stay as they are: the roads carry them.

use super::path::{PathSpec, PointsPath, SegmentsPath};
use super::{Point, Scenario};

/// How a layout was turned: its +x axis points at compass `heading_deg` (0 = north, clockwise).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Turn {
    /// Counter-clockwise rotation of map positions, radians.
    rotation: f64,
}

impl Turn {
    /// The turn of a layout placed with its +x axis at compass `heading_deg`.
    pub fn to_heading(heading_deg: f64) -> Turn {
        Turn {
            rotation: (90.0 - heading_deg).to_radians(),
        }
    }

    /// A map position, turned (an unset position stays unset).
    pub fn point(&self, p: Point) -> Point {
        let (sn, cs) = self.rotation.sin_cos();
        Point {
            x: p.x * cs - p.y * sn,
            y: p.x * sn + p.y * cs,
        }
    }

    /// An INS-convention heading (degrees, clockwise from north), turned, in [0, 360) (an unset
    /// heading stays unset).
    pub fn heading_deg(&self, h: f64) -> f64 {
        let turned = (h - self.rotation.to_degrees()).rem_euclid(360.0);
        // 359.9999999999 from rounding is 0.
        if (turned - 360.0).abs() < 1e-9 {
            0.0
        } else {
            turned
        }
    }

    /// A path, turned (a lane path stays as it is).
    pub fn path(&self, p: &PathSpec) -> PathSpec {
        match p {
            PathSpec::Lane(l) => PathSpec::Lane(l.clone()),
            PathSpec::Points(pp) => PathSpec::Points(PointsPath {
                points: pp.points.iter().map(|&q| self.point(q)).collect(),
            }),
            PathSpec::Segments(sp) => PathSpec::Segments(SegmentsPath {
                start: self.point(sp.start),
                heading_deg: self.heading_deg(sp.heading_deg),
                segments: sp.segments.clone(),
            }),
        }
    }
}

impl Scenario {
    /// This scenario on its layout placed with the layout's +x axis at compass `heading_deg`
    /// (see the module documentation). `map` is left as it is: the caller names the placed map.
    pub fn placed(&self, heading_deg: f64) -> Scenario {
        let turn = Turn::to_heading(heading_deg);
        let mut sc = self.clone();
        if let Some(p) = &self.vut.path {
            sc.vut.path = Some(turn.path(p));
        }
        for t in &mut sc.targets {
            t.start = turn.point(t.start);
            t.heading_deg = turn.heading_deg(t.heading_deg);
            if let Some(p) = &t.path {
                t.path = Some(turn.path(p));
            }
        }
        sc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::path::LanePath;
    use crate::scenario::{TargetKind, TargetSpec, VutSpec};

    fn scenario() -> Scenario {
        let mut dummy = TargetSpec::new(
            "dummy",
            TargetKind::Pedestrian,
            Point { x: 200.0, y: -5.75 },
            0.0,
        );
        dummy.path = Some(PathSpec::Points(PointsPath {
            points: vec![Point { x: 200.0, y: -5.75 }, Point { x: 200.0, y: 4.0 }],
        }));
        let mut vut = VutSpec::new(1.8, 4.6, 2.3);
        vut.path = Some(PathSpec::Lane(LanePath {
            road: "1".into(),
            lane: -1,
            s_from: 10.0,
            s_to: 250.0,
            t_offset: 0.0,
        }));
        Scenario {
            name: "s".into(),
            map: Some("layout.xodr".into()),
            vut,
            targets: vec![dummy],
            sync: false,
            validity: None,
            catalogue_id: None,
        }
    }

    #[test]
    fn east_keeps_everything() {
        let sc = scenario();
        let p = sc.placed(90.0);
        assert_eq!(p, sc);
    }

    #[test]
    fn north_turns_x_to_north_and_keeps_road_positions() {
        let p = scenario().placed(0.0);
        let t = &p.targets[0];
        // (200, −5.75) turned 90° counter-clockwise: (5.75, 200); walking north becomes west.
        assert!((t.start.x - 5.75).abs() < 1e-9 && (t.start.y - 200.0).abs() < 1e-9);
        assert!((t.heading_deg - 270.0).abs() < 1e-9, "{}", t.heading_deg);
        let Some(PathSpec::Points(pp)) = &t.path else {
            panic!("points path");
        };
        assert!((pp.points[1].x + 4.0).abs() < 1e-9 && (pp.points[1].y - 200.0).abs() < 1e-9);
        assert_eq!(p.vut.path, scenario().vut.path);
        assert_eq!(p.map.as_deref(), Some("layout.xodr"));
    }

    #[test]
    fn unset_positions_stay_unset() {
        let mut sc = scenario();
        sc.targets[0].start = crate::scenario::path::unset_point();
        sc.targets[0].heading_deg = f64::NAN;
        let p = sc.placed(33.5);
        assert!(p.targets[0].start.x.is_nan() && p.targets[0].heading_deg.is_nan());
        let seg = PathSpec::Segments(SegmentsPath {
            start: Point { x: 1.0, y: 0.0 },
            heading_deg: 90.0,
            segments: vec![],
        });
        let PathSpec::Segments(s) = Turn::to_heading(33.5).path(&seg) else {
            panic!("segments");
        };
        assert!((s.heading_deg - 33.5).abs() < 1e-9);
        let a = (90.0 - 33.5f64).to_radians();
        assert!((s.start.x - a.cos()).abs() < 1e-12 && (s.start.y - a.sin()).abs() < 1e-12);
    }
}
