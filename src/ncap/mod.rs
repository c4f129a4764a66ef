//! Euro NCAP's rating-tool workbook (`euroncap-rating-2026`): plan a test day from its
//! verification points, rehearse them on the simulated VUT, and write measured values back so
//! that the tool's `compute-score` scores them.
//!
//! * [`xlsx`]: the workbook file (read with calamine; written by editing only the `Value`
//!   cells inside the package).
//! * [`sheet`]: the `… verif.` sheets, by header names.
//! * [`plan`]: point → catalogue row → scenario, or the reason it cannot run yet.
//! * [`quantity`]: the `Expected value` quantities, from a run's result.
//! * [`rehearse`]: every runnable point through `scil sim`'s code path, and the cell edits.

pub mod plan;
pub mod quantity;
pub mod rehearse;
pub mod robustness;
pub mod sheet;
pub mod xlsx;

use std::path::Path;
use std::sync::Arc;

use plan::{Maps, Planned};
use sheet::Verification;
use xlsx::Workbook;

use crate::map::Map;
use crate::scenario::ncap2026::Catalogue;

/// A workbook with its plan.
pub struct Loaded {
    pub workbook: Workbook,
    pub verification: Verification,
    pub plan: Vec<Planned>,
    pub map: Arc<Map>,
    pub junction_map: Option<Arc<Map>>,
}

fn map_ref(p: &Path) -> Option<String> {
    Some(
        std::fs::canonicalize(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .display()
            .to_string(),
    )
}

/// Plans a workbook held in memory (the service's test series) on maps it has loaded already;
/// `straight_ref` / `junction_ref` are what the scenarios name as their map (the service's map
/// ids). Same rules as [`load`].
pub fn plan_bytes(
    bytes: Vec<u8>,
    straight: &Map,
    straight_ref: &str,
    junction: Option<(&Map, &str)>,
) -> anyhow::Result<(Workbook, Verification, Vec<Planned>)> {
    let wb = Workbook::from_bytes(bytes)?;
    let verification = sheet::read(&wb)?;
    let maps = Maps {
        straight: &straight.road_network,
        straight_ref: Some(straight_ref.to_string()),
        junction: junction.map(|(m, _)| &*m.road_network),
        junction_ref: junction.map(|(_, r)| r.to_string()),
    };
    let plan = plan::plan(&verification.points, &Catalogue::bundled(), &maps);
    Ok((wb, verification, plan))
}

/// Reads the workbook and the maps and plans every verification point.
pub fn load(
    workbook: &Path,
    map_path: &Path,
    junction_path: Option<&Path>,
) -> anyhow::Result<Loaded> {
    let wb = Workbook::open(workbook)?;
    let verification = sheet::read(&wb).map_err(|e| e.context(workbook.display().to_string()))?;
    let map = Arc::new(Map::load(map_path)?);
    let junction_map = junction_path.map(Map::load).transpose()?.map(Arc::new);
    let maps = Maps {
        straight: &map.road_network,
        straight_ref: map_ref(map_path),
        junction: junction_map.as_ref().map(|m| &*m.road_network),
        junction_ref: junction_path.and_then(map_ref),
    };
    let plan = plan::plan(&verification.points, &Catalogue::bundled(), &maps);
    Ok(Loaded {
        workbook: wb,
        verification,
        plan,
        map,
        junction_map,
    })
}
