//! YaCoP (placeholder).
