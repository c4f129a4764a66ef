//! Projection checks: against values computed with PROJ 9.5 (pyproj 3.7, `EPSG:4326` → the
//! given string), against an independent numerical meridian-arc integral, and round trips.

use opendrive::geo::{GeoError, GeoFrame, Projection};
use opendrive::Offset;

/// (proj string, lat, lon, easting, northing) from PROJ.
const PROJ_VALUES: &[(&str, f64, f64, f64, f64)] = &[
    ("+proj=tmerc +lat_0=46.8931 +lon_0=16.8397 +k=1 +x_0=0 +y_0=0 +ellps=WGS84 +units=m +no_defs", 46.8931, 16.8397, 0.0, 0.0),
    ("+proj=tmerc +lat_0=46.8931 +lon_0=16.8397 +k=1 +x_0=0 +y_0=0 +ellps=WGS84 +units=m +no_defs", 46.9, 16.85, 784.8371941067398, 767.1163904183973),
    ("+proj=tmerc +lat_0=46.8931 +lon_0=16.8397 +k=1 +x_0=0 +y_0=0 +ellps=WGS84 +units=m +no_defs", 46.88, 16.8, -3026.1767628274006, -1455.5437693094705),
    ("+proj=tmerc +lat_0=46.8931 +lon_0=16.8397 +k=1 +x_0=0 +y_0=0 +ellps=WGS84 +units=m +no_defs", 47.5, 18.0, 87420.6283816778, 68124.57559467928),
    ("+proj=utm +zone=33 +ellps=WGS84 +datum=WGS84 +units=m +no_defs", 46.9, 16.84, 640146.279401276, 5195694.953085595),
    ("+proj=utm +zone=33 +ellps=WGS84 +datum=WGS84 +units=m +no_defs", 47.0, 12.0, 271930.43493567314, 5209532.848132164),
    ("+proj=utm +zone=33 +ellps=WGS84 +datum=WGS84 +units=m +no_defs", 0.5, 15.0, 500000.00000000175, 55265.037142649104),
    ("+proj=utm +zone=33 +ellps=WGS84 +datum=WGS84 +units=m +no_defs", 60.0, 18.5, 695161.1727312257, 6656575.859115896),
    ("+proj=utm +zone=33 +south +ellps=WGS84 +units=m", -33.9, 18.4, 814420.3309513011, 6243724.840074809),
    ("+proj=utm +zone=33 +south +ellps=WGS84 +units=m", -10.0, 15.0, 500000.00000000175, 8894587.508698922),
    ("+proj=tmerc +lat_0=37.4025637 +lon_0=-122.118763 +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs", 37.4, -122.12, -109.52797736141751, -284.5319833424163),
    ("+proj=tmerc +lat_0=37.4025637 +lon_0=-122.118763 +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs", 37.41, -122.1, 1661.1158843247626, 825.4850172505313),
    ("+proj=tmerc +lat_0=0 +lon_0=9 +k=0.9996 +x_0=500000 +y_0=0 +ellps=GRS80 +units=m", 52.0, 10.5, 602972.9816773029, 5762100.489624118),
    ("+proj=tmerc +lat_0=0 +lon_0=9 +k=0.9996 +x_0=500000 +y_0=0 +ellps=GRS80 +units=m", 48.0, 7.0, 350812.1250376219, 5318235.613760158),
    ("+proj=tmerc +lat_0=49 +lon_0=8 +k=1 +x_0=0 +y_0=0 +ellps=WGS84", 49.001, 8.002, 146.34065693086748, 111.2116753409764),
];

#[test]
fn matches_proj_and_round_trips() {
    let mut worst: f64 = 0.0;
    let mut worst_rt: f64 = 0.0;
    for &(s, lat, lon, e, n) in PROJ_VALUES {
        let p = Projection::from_proj4(s).expect(s);
        let (pe, pn) = p.forward(lat, lon);
        let d = (pe - e).hypot(pn - n);
        worst = worst.max(d);
        assert!(
            d < 1e-6,
            "{s} ({lat},{lon}): got ({pe},{pn}) want ({e},{n}), off {d} m"
        );
        let (la, lo) = p.inverse(pe, pn);
        let (re, rn) = p.forward(la, lo);
        let rt = (re - pe).hypot(rn - pn);
        worst_rt = worst_rt.max(rt);
        assert!(
            (la - lat).abs() < 1e-10 && (lo - lon).abs() < 1e-10,
            "round trip {s}: ({la},{lo}) vs ({lat},{lon})"
        );
    }
    println!("max deviation from PROJ: {worst:.3e} m; max round-trip residual {worst_rt:.3e} m");
}

/// On the central meridian the TM northing equals k0 × the meridian arc from lat_0, which we
/// integrate numerically here (Simpson, fine steps) — a formula independent of the Krüger series.
#[test]
fn central_meridian_equals_numerical_meridian_arc() {
    let a = 6_378_137.0f64;
    let f = 1.0 / 298.257_223_563;
    let e2 = f * (2.0 - f);
    let m = |phi: f64| a * (1.0 - e2) / (1.0 - e2 * phi.sin().powi(2)).powf(1.5);
    let arc = |p0: f64, p1: f64| {
        let n = 20_000;
        let h = (p1 - p0) / n as f64;
        let mut acc = m(p0) + m(p1);
        for i in 1..n {
            acc += if i % 2 == 1 { 4.0 } else { 2.0 } * m(p0 + h * i as f64);
        }
        acc * h / 3.0
    };
    let p =
        Projection::from_proj4("+proj=tmerc +lat_0=46.8931 +lon_0=16.8397 +k=0.9996 +ellps=WGS84")
            .unwrap();
    for lat in [-60.0, -10.0, 0.0, 20.0, 46.9, 47.3, 70.0, 85.0] {
        let (e, n) = p.forward(lat, 16.8397);
        let want = 0.9996 * arc(46.8931f64.to_radians(), f64::to_radians(lat));
        assert!(e.abs() < 1e-9, "easting on central meridian {e}");
        assert!(
            (n - want).abs() < 1e-5,
            "lat {lat}: northing {n} vs meridian arc {want}"
        );
    }
}

#[test]
fn parameter_handling() {
    // utm ignores lat_0/lon_0/k_0 and grid/vertical parameters.
    let a = Projection::from_proj4("+proj=utm +lat_0=37.35 +lon_0=-122.08 +k_0=1 +x_0=0 +y_0=0 +datum=WGS84 +geoidgrids=egm96_15.gtx +vunits=m +zone=32 +ellps=GRS80 +units=m +no_defs").unwrap();
    let b = Projection::from_proj4("+proj=utm +zone=32 +ellps=GRS80").unwrap();
    assert_eq!(a.forward(48.0, 9.5), b.forward(48.0, 9.5));
    // No +proj: assumed tmerc about lat_0/lon_0 (CARLA), flagged.
    let c = Projection::from_proj4("+lat_0=4.9000000000000000e+1 +lon_0=8.0000000000000000e+0")
        .unwrap();
    assert!(c.assumed);
    let (e, n) = c.forward(49.0, 8.0);
    assert!(e.abs() < 1e-9 && n.abs() < 1e-9);
    assert!(matches!(
        Projection::from_proj4("+proj=merc +lon_0=0"),
        Err(GeoError::UnsupportedProjection(_))
    ));
    assert!(matches!(
        Projection::from_proj4("+proj=utm"),
        Err(GeoError::MissingZone)
    ));
    assert!(matches!(
        Projection::from_proj4("+proj=tmerc +lat_0=abc"),
        Err(GeoError::InvalidParameter { .. })
    ));
    assert!(matches!(
        Projection::from_proj4("+proj=tmerc +ellps=bessel"),
        Err(GeoError::UnsupportedEllipsoid(_))
    ));
}

#[test]
fn header_offset_is_rotation_then_shift() {
    let off = Offset {
        x: 680_000.0,
        y: 5_200_000.0,
        z: 0.0,
        hdg: 0.5,
    };
    let f = GeoFrame::from_proj4_and_offset("+proj=utm +zone=33 +ellps=WGS84", Some(off)).unwrap();
    // Map point (10, 0) is projected to rotate((10,0), 0.5) + offset.
    let (e, n) = f.map_to_projected(10.0, 0.0);
    assert!((e - (680_000.0 + 10.0 * 0.5f64.cos())).abs() < 1e-9);
    assert!((n - (5_200_000.0 + 10.0 * 0.5f64.sin())).abs() < 1e-9);
    let (lat, lon) = f.to_wgs84(123.4, -56.7);
    let (x, y) = f.to_map(lat, lon);
    assert!(
        (x - 123.4).abs() < 1e-6 && (y + 56.7).abs() < 1e-6,
        "round trip ({x},{y})"
    );
}
