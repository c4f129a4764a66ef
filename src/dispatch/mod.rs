//! Dispatch to target carriers over ISO 22133, and a carrier simulator that closes the loop.
//!
//! Layers (sans-IO cores, thin tokio shells):
//! * [`iso22133`]: wire codec — header, CRC-16/XMODEM footer, TLVs, OSEM/OSTM/STRT/HEAB/MONR/
//!   TRAJ/MTSP, TCP stream framer. Pure functions, property-tested.
//! * [`safety`]: the supervisor (arming rule, stale telemetry, n consecutive missing MONR,
//!   e-stop) fed times and observations, returning [`safety::Action`]s.
//! * [`control_centre`]: [`control_centre::ControlCentre::spawn`] → a cloneable
//!   [`control_centre::ControlCentreHandle`] (`arm`, `start_at`, `start_carrier_at`,
//!   `start_now`, `retime` (MTSP), `abort`, `finish`, `all_clear`, `telemetry`, `events`,
//!   `snapshot`, `wait_*`). MTSP convention: the sync point is the trajectory origin, so the
//!   MTSP time is the new profile origin (see [`control_centre`]).
//! * [`object`]: sans-IO ISO 22133 test object; [`carrier_sim`] is its socket shell
//!   (`scil carrier-sim`).
//! * [`profile`]: the dummy's motion on the carrier — the scenario's
//!   [`crate::scenario::profile::Profile`] (one kinematics for engine and carriers) plus the end
//!   of the run, TRAJ sampling/following and the wire yaw.
//! * Runs dispatch through the run layer's carriers sink (`crate::run::sink::carriers`).
//! * [`events`]: serialisable events with timestamps.
//! * [`ground`]: every object of a run on the ground — the VUT's robot and the carriers,
//!   planned, armed as one, measured against their paths and driven back to their starts.
//! * The decision → STRT-written latency is measured by [`crate::bench::dispatch`]
//!   (`scil bench dispatch`).
//!
//! Frames and conventions: positions in TRAJ/MONR are the map frame (x east, y north, metres),
//! taken as the local frame at the OSEM origin (the map's geoReference `+lat_0/+lon_0`). Yaw on
//! the wire is the map yaw (counter-clockwise from +x) in 0.01° within [0, 360). Times in
//! HEAB/MONR/STRT/MTSP are GPS quarter-milliseconds of week from the wall clock; the control
//! centre does not trust the object's clock for anything but display.
//!
//! Interop (checked against RI-SE's public `iso22133` C library and `isoObject`, not against a
//! real carrier): header layout and sync word 0x7E7F, message ids (STRT 0x04, HEAB 0x05, MONR
//! 0x06, MTSP 0x0C), STRT value ids (0x0002 u32 qms of week, 0x0003 u16 week), MTSP (0x0001 u32
//! estimated sync-point time, 0xFFFFFFFF = unavailable) and the 36-byte MONR content (0x0080:
//! time, x/y/z, yaw, pitch, roll, speeds, accelerations, drive direction, state, ready-to-arm,
//! error bits, u16 error code) agree. Open: (1) the yaw convention on the wire — older versions
//! of that library converted the host yaw (counter-clockwise from x) to an ISO heading
//! (clockwise from north/y) before encoding, newer ones encode the caller's value unchanged
//! with a note that the specification changed; scil sends the map yaw, which a carrier expecting
//! a heading would read mirrored. (2) ATOS sends MTSP periodically on the UDP process channel
//! and defines the sync point with SYPM; scil sends it once on TCP (the simulator accepts it on
//! both) with the sync point at TRAJ time 0. (3) isoObject's older versions ignore MTSP.

pub mod carrier_sim;
pub mod control_centre;
pub mod events;
pub mod ground;
pub mod iso22133;
pub mod link_health;
pub mod motion_watch;
pub mod object;
pub mod object_dynamics;
pub mod object_faults;
pub mod platform_proxy;
pub mod profile;
pub mod safety;
