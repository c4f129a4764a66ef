//! Parser robustness: malformed shared maps, edge cases, the API surface, and fuzzing.

use crate::common;

use opendrive::{Error, GeometryKind, OpenDrive};
use proptest::prelude::*;

#[test]
fn nan_values_give_clear_error() {
    let err = OpenDrive::from_path(common::shared("opendrive/maliput/SingleRoadNanValues.xodr"))
        .expect_err("must be rejected");
    let msg = err.to_string();
    println!("SingleRoadNanValues.xodr: {msg}");
    match &err {
        Error::InvalidAttribute {
            element,
            attribute,
            value,
            line,
            ..
        } => {
            // The first bad value in document order is the elevation record with a = "nan".
            assert_eq!(
                (element.as_str(), attribute.as_str(), value.as_str(), *line),
                ("elevation", "a", "nan", 71)
            );
        }
        other => panic!("unexpected error kind: {other:?}"),
    }
    assert!(
        msg.contains("<elevation>") && msg.contains("\"a\"") && msg.contains("line 71"),
        "{msg}"
    );
}

#[test]
fn malformed_number_named() {
    let xml = r#"<OpenDRIVE><header/><road id="1" length="10"><planView>
        <geometry s="0" x="0" y="0" hdg="0" length="10"><line/></geometry></planView>
        <lanes><laneSection s="0"><right><lane id="-1" type="driving">
        <width sOffset="0" a="4.00000000000000000+0" b="0" c="0" d="0"/></lane></right></laneSection></lanes></road></OpenDRIVE>"#;
    let e = OpenDrive::from_str(xml).expect_err("bad number");
    let m = e.to_string();
    assert!(
        m.contains("<width>")
            && m.contains("\"a\"")
            && m.contains("4.00000000000000000+0")
            && m.contains("line 4"),
        "{m}"
    );
}

#[test]
fn tiny_geometry_loads_and_evaluates() {
    let map = common::load("opendrive/maliput/SingleRoadTinyGeometry.xodr");
    let r = &map.roads[0];
    assert!(
        r.plan_view.iter().any(|g| g.length < 1e-12),
        "has the 1e-15 m geometry"
    );
    for g in &r.plan_view {
        let p = map.reference_pose(&r.id, g.s).expect("pose");
        assert!(p.x.is_finite() && p.y.is_finite() && p.hdg.is_finite());
    }
}

#[test]
fn comment_before_declaration_and_cdata_whitespace() {
    let xml = "<!-- exported by a tool -->\n<?xml version=\"1.0\"?>\n<OpenDRIVE><header revMajor=\"1\" revMinor=\"8\">\n\
        <geoReference>\n   <![CDATA[ +proj=utm +zone=33 +ellps=WGS84 ]]>  \n</geoReference><offset x=\"1\" y=\"2\" z=\"0\" hdg=\"0.5\"/></header>\
        <road id=\"a-1\" length=\"10\" junction=\"-1\"><planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"10\"><spiral curvStart=\"0.01\" curvEnd=\"0.01\"/></geometry></planView>\
        <lanes><laneSection s=\"0\"><center><lane id=\"0\"/></center></laneSection></lanes></road></OpenDRIVE>";
    let map = OpenDrive::from_str(xml).expect("accepted");
    assert_eq!(
        map.header.geo_reference.as_deref(),
        Some("+proj=utm +zone=33 +ellps=WGS84")
    );
    assert_eq!(
        map.header.offset.map(|o| (o.x, o.y, o.hdg)),
        Some((1.0, 2.0, 0.5))
    );
    // curvStart == curvEnd spiral is an arc of radius 100.
    let p = map.reference_pose("a-1", 10.0).expect("pose");
    assert!(
        (p.x - 100.0 * 0.1f64.sin()).abs() < 1e-12
            && (p.y - 100.0 * (1.0 - 0.1f64.cos())).abs() < 1e-12
    );
    assert!(
        map.reference_pose("a-1", 10.1).is_none(),
        "s beyond the road"
    );
    assert!(map.reference_pose("nope", 1.0).is_none());
}

#[test]
fn geo_reference_without_cdata_and_info() {
    let map = common::load("opendrive/synthetic/sg_mixed_geometry.xodr");
    let info = map.info();
    assert_eq!(info.roads, 1);
    assert_eq!(info.geometry_counts.get("paramPoly3"), Some(&2));
    assert_eq!(info.geometry_counts.get("spiral"), Some(&2));
    assert!(info
        .geo_reference
        .as_deref()
        .unwrap_or("")
        .starts_with("+proj=tmerc +lat_0=47.0"));
    let frame = opendrive::geo::GeoFrame::from_header(&map.header)
        .expect("valid")
        .expect("present");
    let (lat, lon) = frame.to_wgs84(0.0, 0.0);
    assert!((lat - 47.0).abs() < 1e-12 && (lon - 16.9).abs() < 1e-12);
}

#[test]
fn town03_without_proj_is_assumed_tmerc() {
    let map = common::load("opendrive/carla/Town03.xodr");
    assert_eq!(map.roads.len(), 279);
    assert_eq!(map.junctions.len(), 34);
    let frame = opendrive::geo::GeoFrame::from_header(&map.header)
        .expect("handled")
        .expect("present");
    assert!(frame.projection.assumed);
    let (lat, lon) = frame.to_wgs84(0.0, 0.0);
    assert!((lat - 49.0).abs() < 1e-12 && (lon - 8.0).abs() < 1e-12);
}

#[test]
fn direct_junction_and_links() {
    let map = common::load("opendrive/esmini/direct_junction_simple.xodr");
    let j = map
        .junctions
        .iter()
        .find(|j| j.junction_type == "direct")
        .expect("direct junction");
    assert!(!j.connections.is_empty());
    assert!(j
        .connections
        .iter()
        .all(|c| c.linked_road.is_some() && !c.lane_links.is_empty()));
    let fab = common::load("opendrive/esmini/fabriksgatan.xodr");
    assert!(fab
        .roads
        .iter()
        .any(|r| r.successor.is_some() && r.predecessor.is_some()));
    assert!(fab.roads.iter().any(|r| !r.lane_offsets.is_empty()));
    assert!(fab
        .roads
        .iter()
        .flat_map(|r| &r.plan_view)
        .any(|g| matches!(g.kind, GeometryKind::ParamPoly3 { .. })));
    let p3 = common::load("opendrive/synthetic/poly3_road.xodr");
    assert!(matches!(
        p3.roads[0].plan_view[0].kind,
        GeometryKind::Poly3 { .. }
    ));
    assert_eq!(p3.roads[0].elevation.len(), 1);
}

#[test]
fn structural_errors() {
    assert!(matches!(
        OpenDrive::from_str("<foo/>"),
        Err(Error::Structure(_))
    ));
    assert!(matches!(OpenDrive::from_str(""), Err(Error::Structure(_))));
    assert!(matches!(
        OpenDrive::from_str("<OpenDRIVE><road id=\"1\" length=\"x\"/></OpenDRIVE>"),
        Err(Error::InvalidAttribute { .. })
    ));
    assert!(matches!(
        OpenDrive::from_str("<OpenDRIVE><road length=\"1\"/></OpenDRIVE>"),
        Err(Error::MissingAttribute { .. })
    ));
    assert!(matches!(
        OpenDrive::from_str("<OpenDRIVE><header></OpenDRIVE>"),
        Err(Error::Xml { .. })
    ));
    assert!(matches!(
        OpenDrive::from_str("<OpenDRIVE><header>"),
        Err(Error::Xml { .. })
    ));
    let long = "<OpenDRIVE><road id=\"1\" length=\"1e12\"/></OpenDRIVE>";
    assert!(matches!(
        OpenDrive::from_str(long),
        Err(Error::InvalidAttribute { .. })
    ));
    let no_geom = "<OpenDRIVE><road id=\"1\" length=\"1\"><planView/></road></OpenDRIVE>";
    assert!(matches!(
        OpenDrive::from_str(no_geom),
        Err(Error::Structure(_))
    ));
}

fn exercise(xml: &str) {
    if let Ok(map) = OpenDrive::from_str(xml) {
        let _ = map.info();
        for r in &map.roads {
            for s in [0.0, r.length * 0.5, r.length] {
                let _ = map.reference_pose(&r.id, s);
                let _ = map.lane_border(&r.id, -1, s);
                let _ = map.lane_border(&r.id, 1, s);
            }
            if let Some(p) = map.reference_pose(&r.id, r.length * 0.5) {
                let _ = map.locate(p.x, p.y, Some(0.0));
            }
        }
        let _ = opendrive::geojson::lanes(&map, opendrive::geojson::Coords::Map);
    }
}

const SEED: &str = include_str!("../../../../shared/opendrive/synthetic/sg_mixed_geometry.xodr");

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, .. ProptestConfig::default() })]

    /// Arbitrary text never panics the parser.
    #[test]
    fn random_text_never_panics(s in "\\PC{0,400}") {
        exercise(&s);
    }

    /// Mutations of a real map (byte replacements, truncation, attribute-value garbage)
    /// never panic the parser or the evaluation of whatever loads.
    #[test]
    fn mutated_map_never_panics(
        cut in 0usize..SEED.len(),
        edits in proptest::collection::vec((0usize..SEED.len(), prop_oneof![
            Just("\"".to_string()), Just("<".to_string()), Just(">".to_string()), Just("nan".to_string()),
            Just("-1e308".to_string()), Just("1e309".to_string()), Just("0".to_string()), Just("".to_string()),
            Just("<![CDATA[".to_string()), Just("</road>".to_string()), Just("-0".to_string()), Just("1e-300".to_string()),
        ]), 0..6),
        truncate in any::<bool>(),
    ) {
        let mut s = SEED.to_string();
        for (pos, rep) in edits {
            let mut p = pos.min(s.len());
            while !s.is_char_boundary(p) { p -= 1; }
            let end = (p + rep.len().max(1)).min(s.len());
            let mut e = end;
            while !s.is_char_boundary(e) { e -= 1; }
            s.replace_range(p..e.max(p), &rep);
        }
        if truncate {
            let mut c = cut.min(s.len());
            while !s.is_char_boundary(c) { c -= 1; }
            s.truncate(c);
        }
        exercise(&s);
    }

    /// Numeric attribute values drawn from extreme ranges: either an error or finite output.
    #[test]
    fn extreme_numbers(len in prop_oneof![Just(0.0), Just(1e-15), 0.0f64..1e4, Just(1e12)],
                       curv in prop_oneof![Just(0.0), -10.0f64..10.0, Just(1e6)],
                       w in -5.0f64..10.0, hdg in -100.0f64..100.0) {
        let xml = format!(r#"<OpenDRIVE><header/><road id="1" length="{len}"><planView>
            <geometry s="0" x="0" y="0" hdg="{hdg}" length="{len}"><spiral curvStart="{curv}" curvEnd="{}"/></geometry></planView>
            <lanes><laneOffset s="0" a="0.1" b="0" c="0" d="0"/><laneSection s="0"><right><lane id="-1" type="driving">
            <width sOffset="0" a="{w}" b="0" c="0" d="0"/></lane></right></laneSection></lanes></road></OpenDRIVE>"#, -curv);
        if let Ok(map) = OpenDrive::from_str(&xml) {
            if len < 1e5 {
                let p = map.lane_border("1", -1, len * 0.5).expect("valid s");
                prop_assert!(p.x.is_finite() && p.y.is_finite());
            }
            exercise(&xml);
        }
    }
}

#[test]
fn absurd_param_poly3_coefficients_do_not_panic() {
    for coeff in ["1e308", "-1e308", "1e200", "0"] {
        let xml = format!(
            r#"<OpenDRIVE><road id="1" length="10"><planView><geometry s="0" x="0" y="0" hdg="0" length="10">
            <paramPoly3 aU="0" bU="{coeff}" cU="{coeff}" dU="{coeff}" aV="0" bV="{coeff}" cV="0" dV="{coeff}" pRange="normalized"/>
            </geometry></planView></road></OpenDRIVE>"#
        );
        exercise(&xml);
    }
}

#[test]
fn border_records_and_width_precedence() {
    // Lane -1 by width (3 m), lane -2 only by <border> (t = laneOffset + border), lane -3 has
    // both: the width wins, as the standard says.
    let xml = r#"<OpenDRIVE><road id="r" length="20"><planView>
        <geometry s="0" x="0" y="0" hdg="0" length="20"><line/></geometry></planView>
        <lanes><laneOffset s="0" a="0.5" b="0" c="0" d="0"/><laneSection s="0"><right>
        <lane id="-1" type="driving"><width sOffset="0" a="3" b="0" c="0" d="0"/></lane>
        <lane id="-2" type="shoulder"><border sOffset="0" a="-4" b="-0.1" c="0" d="0"/></lane>
        <lane id="-3" type="sidewalk"><width sOffset="0" a="2" b="0" c="0" d="0"/><border sOffset="0" a="-100" b="0" c="0" d="0"/></lane>
        </right></laneSection></lanes></road></OpenDRIVE>"#;
    let map = OpenDrive::from_str(xml).expect("valid");
    let y = |lane: i32, s: f64| map.lane_border("r", lane, s).expect("border").y;
    assert!(
        (y(0, 10.0) - 0.0).abs() < 1e-12,
        "lane 0 is the reference line without offset"
    );
    assert!((y(-1, 10.0) + 2.5).abs() < 1e-12);
    assert!((y(-2, 10.0) - (0.5 - 4.0 - 1.0)).abs() < 1e-12);
    assert!((y(-3, 10.0) - (0.5 - 4.0 - 1.0 - 2.0)).abs() < 1e-12);
    let p = map.locate(10.0, -4.0, None).expect("inside lane -2");
    assert_eq!(p.lane_id, -2);
}
