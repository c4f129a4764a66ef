//! Resident-memory figures, in a binary of their own: a test here reads the process's own
//! resident set, so no other test may run beside it in the same process.

#[path = "../it/support/mod.rs"]
mod support;

mod map_memory;
mod serve_memory;

/// Held by every test of this binary: one measurement at a time.
pub static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
