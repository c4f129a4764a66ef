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
pub mod sheet;
pub mod xlsx;

use std::path::Path;

use plan::{Placement, Planned};
use sheet::Verification;
use xlsx::Workbook;

use crate::scenario::catalogue::Catalogue;

/// A workbook with its plan.
pub struct Loaded {
    pub workbook: Workbook,
    pub verification: Verification,
    pub plan: Vec<Planned>,
    pub map: std::sync::Arc<crate::map::Map>,
}

/// Reads the workbook and the map and plans every verification point.
pub fn load(workbook: &Path, map_path: &Path) -> anyhow::Result<Loaded> {
    let wb = Workbook::open(workbook)?;
    let verification = sheet::read(&wb).map_err(|e| e.context(workbook.display().to_string()))?;
    let map = std::sync::Arc::new(crate::map::Map::load(map_path)?);
    let place = Placement {
        map_ref: Some(
            std::fs::canonicalize(map_path)
                .unwrap_or_else(|_| map_path.to_path_buf())
                .display()
                .to_string(),
        ),
        ..Placement::default()
    };
    let plan = plan::plan(
        &verification.points,
        &Catalogue::bundled(),
        &map.road_network,
        &place,
    );
    Ok(Loaded {
        workbook: wb,
        verification,
        plan,
        map,
    })
}
