//! The integration tests, one module per area, in one test binary: the crate is linked once
//! instead of once per file. The other binaries beside this folder are tests that need a
//! process of their own: `realtime` (real links and deadlines, never beside the batch tests),
//! `memory` (resident-memory figures), `store_full_disk` (tmpfs mounts) and `proj_agree` (the
//! PROJ feature).

mod support;

mod catalogue;
mod cli;
mod cli_robustness;
mod dispatch_codec;
mod engine;
mod feed_batches;
mod geofence;
mod ground_run_up;
mod ground_verdict;
mod ingest_adma;
mod ingest_can;
mod ingest_can_timebase;
mod ingest_loggers;
mod ingest_proptest;
mod ingest_roundtrip;
mod ingest_sources;
mod map_site;
mod map_site_run;
mod ncap2026;
mod ncap_series;
mod ncap_workbook;
mod openapi_routes;
mod osi_trace;
mod protocol_shared;
mod record_mcap;
mod record_replay;
mod record_serve;
mod replay_golden;
mod replay_inject;
mod replay_shared;
mod report_traces;
mod serve_api;
mod serve_control;
mod serve_errors;
mod serve_exclusive;
mod serve_firstday;
mod serve_instances;
mod serve_records;
mod serve_sim;
mod serve_store;
mod serve_tracks;
mod serve_xosc;
mod sim_vut;
mod sweep;
mod sweep_shards;
mod telemetry_archive;
mod validity_fcw_lane;
mod validity_filter_scipy;
mod xosc_import;
