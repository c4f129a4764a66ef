//! The integration tests of the scil-core crate, one module per area, in one binary.

mod crossing_offset;
mod paths;
mod protocol;
mod traces;
mod trigger_noise;
mod turn_path;
mod validity_rules;
