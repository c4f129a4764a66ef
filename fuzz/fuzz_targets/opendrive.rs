//! OpenDRIVE maps (uploaded, `--map`): parsing, then what loading a map does with it (the map
//! matcher) and a few evaluations along every road.
#![no_main]
use libfuzzer_sys::fuzz_target;
use opendrive::OpenDrive;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(od) = OpenDrive::from_str(text) else {
        return;
    };
    for road in od.roads.iter().take(8) {
        for s in [0.0, road.length * 0.5, road.length] {
            let _ = od.reference_pose(&road.id, s);
            let _ = od.lane_border(&road.id, -1, s);
            let _ = od.lane_center(&road.id, 1, s);
        }
    }
    let _ = scil_core::map::Map::from_road_network(od);
});
