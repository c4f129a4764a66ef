//! The integration tests of the opendrive crate, one module per area, in one binary.

mod common;
mod geo;
mod geojson;
mod matching;
mod parse;
mod reference;
