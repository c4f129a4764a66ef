//! Dispatch to target carriers over ISO 22133, and a carrier simulator that closes the loop.
//!
//! Layers (sans-IO cores, thin tokio shells):
//! * [`iso22133`]: wire codec — header, CRC-16/XMODEM footer, TLVs, OSEM/OSTM/STRT/HEAB/MONR/
//!   TRAJ/MTSP, TCP stream framer. Pure functions, property-tested.
//! * [`safety`]: the supervisor (arming rule, stale telemetry, n consecutive missing MONR,
//!   e-stop) fed times and observations, returning [`safety::Action`]s.
//! * [`control_centre`]: [`control_centre::ControlCentre::spawn`] → a cloneable
//!   [`control_centre::ControlCentreHandle`] (`arm`, `start_at`, `start_now`, `abort`,
//!   `finish`, `all_clear`, `telemetry`, `events`, `snapshot`, `wait_*`).
//! * [`object`]: sans-IO ISO 22133 test object; [`carrier_sim`] is its socket shell
//!   (`scil carrier-sim`).
//! * [`profile`]: the dummy's path/speed profile (constant acceleration over s_acc, then
//!   constant speed) and TRAJ sampling/following.
//! * [`live`]: replay/live glue (sample time ↔ wall time, scenario carriers, JSON report).
//! * [`events`]: serialisable events with timestamps.
//! * [`bench`]: decision → STRT-written latency benchmark (`scil bench-dispatch`).
//!
//! Frames and conventions: positions in TRAJ/MONR are the map frame (x east, y north, metres),
//! taken as the local frame at the OSEM origin (the map's geoReference `+lat_0/+lon_0`). Yaw on
//! the wire is the map yaw (counter-clockwise from +x) in 0.01° within [0, 360). Times in
//! HEAB/MONR/STRT are GPS quarter-milliseconds of week from the wall clock; the control centre
//! does not trust the object's clock for anything but display.

pub mod bench;
pub mod carrier_sim;
pub mod cli;
pub mod control_centre;
pub mod events;
pub mod iso22133;
pub mod live;
pub mod object;
pub mod profile;
pub mod safety;
