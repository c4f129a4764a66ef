//! The integration tests, one module per area, in one test binary: the crate is linked once
//! instead of once per file. Tests that need a process of their own (resident-memory figures,
//! tmpfs mounts, the PROJ feature) are the other binaries beside this folder.

mod support;

mod catalogue;
mod cli;
mod cli_robustness;
mod cosim_loopback;
mod dispatch_codec;
mod dispatch_faults;
mod dispatch_isoobject;
mod dispatch_loop;
mod engine;
mod feed_batches;
mod ingest_can;
mod ingest_proptest;
mod ingest_roundtrip;
mod ingest_sources;
mod isoobject_interop;
mod live_replay;
mod ncap2026;
mod ncap_series;
mod ncap_workbook;
mod openapi_routes;
mod protocol_shared;
mod record_mcap;
mod record_replay;
mod record_serve;
mod replay_golden;
mod replay_inject;
mod replay_shared;
mod report_traces;
mod serve_api;
mod serve_can;
mod serve_control;
mod serve_errors;
mod serve_exclusive;
mod serve_instances;
mod serve_live;
mod serve_sim;
mod serve_store;
mod serve_tracks;
mod serve_xosc;
mod sim_vut;
mod sweep;
mod sweep_shards;
mod validity_fcw_lane;
mod xosc_import;
