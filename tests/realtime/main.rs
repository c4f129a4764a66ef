//! Tests over real links in real time (ISO 22133 carriers over TCP/UDP, fault proxies, live
//! sources, co-simulation peers): they measure delays and deadlines, so they run in a binary of
//! their own, after the batch tests of `tests/it`, and never share the CPU with them.

#[path = "../it/support/mod.rs"]
mod support;

mod cosim_loopback;
mod dispatch_faults;
mod dispatch_isoobject;
mod dispatch_loop;
mod dispatch_motion;
mod ground_realistic;
mod isoobject_interop;
mod live_replay;
mod live_starts;
mod serve_can;
mod serve_live;
