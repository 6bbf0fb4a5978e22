//! Integration tests of the `rainsim` command-line tool: one test binary that
//! runs the real executable (`CARGO_BIN_EXE_rainsim`) and checks its exit
//! code, its messages and the JSON reports it writes.
//!
//! The shared real trace samples are found through the `RAINSIM_TRACES`
//! environment variable or at `CARGO_MANIFEST_DIR/../../../shared/traces`;
//! tests that need them fail (never skip) when they are missing.

mod support;

mod arrays;
mod bench;
mod combinations;
mod compare;
mod config;
mod determinism;
mod errors;
mod failure_cli;
mod golden;
mod presets;
mod python_scripts;
mod report;
mod robust;
mod rotating_gc;
mod schemes;
mod trace_edit;
mod trace_stats;
mod traces;
mod vios;
mod workloads;
