//! Integration tests of rainsim-trace, one binary. The real samples live in
//! `shared/traces` (env `RAINSIM_TRACES` overrides); their absence is a failure.

mod common;
mod convert;
mod errors;
mod formats;
mod profiles;
mod reading;
mod samples;
mod stats;
mod synthetic;
mod transforms;
