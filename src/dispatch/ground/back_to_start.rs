//! Back to the start until the objects stand there: a real platform may end a drive back
//! short of its start (it lagged its plan, it stood off the start of its TRAJ, its
//! positioning moved). The objects drive back, and drive again from where each one stopped,
//! until every one stands within the arm tolerance (the bench's `at_start_m`,
//! `at_start_deg`) or the passes run out. Each pass is planned from the poses the objects
//! report then.

use super::fleet::{Ground, GroundError};
use super::motion::Motion;
use super::plan::Prepared;
use super::report::ReturnReport;

/// Drive backs in all, at most (the first and two corrections).
pub const PASSES: usize = 3;

/// Drives `first` (armed by [`Ground::arm_return`]), then corrects while an object is not
/// at its start and nothing aborted, at most `passes` drives in all. The report is the last
/// pass's, with `passes` the number driven.
pub async fn drive_back_to_start(
    g: &mut Ground,
    prepared: &Prepared,
    first: Motion,
    passes: usize,
) -> Result<ReturnReport, GroundError> {
    let mut r = g.drive_back(first).await?;
    let mut n = 1;
    while !r.at_start && r.aborted.is_none() && n < passes.max(1) {
        tracing::info!(
            pass = n + 1,
            "objects not at their starts after a drive back: driving again from where they stand"
        );
        let m = g.arm_return(prepared).await?;
        r = g.drive_back(m).await?;
        n += 1;
    }
    r.passes = n;
    Ok(r)
}
