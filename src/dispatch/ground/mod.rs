//! Every object on the ground: the VUT's driving robot and the target carriers as ISO 22133
//! objects of one run, armed as one, started, measured against their planned paths and driven
//! back to their start poses.
//!
//! * [`spec`]: an object as the operator names it (what it drives, its platform's kind, its
//!   lead).
//! * [`plan`]: what each object is sent as TRAJ — the VUT's planned path with its speed profile
//!   from the engine's own rehearsal of the scenario (the simulated VUT without AEB: the same
//!   path and launch the engine predicts on), a target's from its profile. Static targets
//!   (obstructions, parked cars) are not objects.
//! * [`route`]: the drive back to the start: arcs of the object's minimum turning radius and
//!   lines, reversing where it may.
//! * [`motion`]: one motion of the objects (a run or a drive back) on one control centre:
//!   connect and upload, arm as one, the start check, the MONR record.
//! * [`fleet`]: the objects of a test bench across runs ([`Ground`]: their last pose, state
//!   and whether they stand at their start), the run with the VUT robot's MONR as the run's
//!   telemetry, and the drive back.
//! * [`report`]: what each object did in a motion, and each target's impact as driven.
//! * [`ins_check`]: where an INS on the VUT feeds the run beside its robot, the robot's MONR
//!   position against the INS position.

pub mod characterise;
pub mod characterise_drive;
pub mod fence;
pub mod fleet;
pub mod identify;
pub mod impact;
pub mod ins_check;
pub mod links;
pub mod motion;
pub mod plan;
pub mod report;
pub mod route;
pub mod run_up;
pub mod spec;
pub mod track;
pub mod verdict;

pub mod back_to_start;

pub use fleet::{Ground, GroundError, ObjectStatus};
pub use motion::{Motion, StartRefused};
pub use plan::{GroundOptions, ObjectPlan, Prepared};
pub use report::{GroundReport, ObjectReport, PoseOut, ReturnReport};
pub use route::Mobility;
pub use spec::{Drives, ObjectSpec};
pub use track::{PlannedTrack, Pose, TrackPoint};
