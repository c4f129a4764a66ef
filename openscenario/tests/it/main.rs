//! The integration tests of the openscenario crate, one module per area, in one binary.

mod clothoid;
mod export;
mod ncap;
