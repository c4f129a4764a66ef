pub mod python;
pub mod service;
