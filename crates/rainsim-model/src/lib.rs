//! rainsim's device model: a discrete-event simulator of an SSD whose channels
//! may form a RAID-5 (RAIN), driven by a block trace.
//!
//! ```text
//!  trace ─▶ ssd::host ─▶ raid::update ─▶ sched (per-channel queues) ─▶ ftl ─▶ flash timing
//!                 └──────────── probes ─▶ metrics::Observer ─▶ Report
//! ```
//!
//! [`run::simulate`] is the one-call entry point: config + requests → report.
//! Several [`ssd::Ssd`] values can live in one process; there is no global state.
#![warn(missing_docs)]

pub mod array;
pub mod config;
pub mod controller;
pub mod device_state;
pub mod engine;
pub mod error;
#[doc(hidden)]
pub mod fault;
pub mod flash;
pub mod ftl;
pub mod host;
mod huge_pages;
pub mod metrics;
pub mod policy;
mod prefetch;
pub mod raid;
pub mod run;
pub mod sched;
pub mod setup;
pub mod slab;
pub mod ssd;
#[doc(hidden)]
pub mod testkit;
pub mod token;
pub mod verify;
pub mod warmup;

pub use config::Config;
pub use metrics::report::Report;
pub use run::{simulate, RunOptions};
pub use ssd::{SimError, Ssd};
