//! A device's report of what it measured, built from its observers and FTL.

use super::Ssd;
use crate::config::Config;
use crate::metrics::collector::Collector;
use crate::metrics::report::{Report, ReportInputs};

impl Ssd<Collector> {
    /// What the device's observers and FTL measured under `cfg` and
    /// `scheme`: the report without the sections a run moves in after it
    /// (notes, preconditioning, warm-up, failure, replication; `run::report_of`).
    pub(crate) fn measured_report(&self, cfg: &Config, scheme: &str, trace: serde_json::Value) -> Report {
        Report::build(
            &self.obs,
            &self.ftl,
            ReportInputs {
                scheme,
                seed: cfg.seed,
                config: serde_json::to_value(cfg).expect("config serialises"),
                trace,
                dies_per_channel: self.layout().dies_per_channel,
                capacity_bytes: self.capacity_bytes(),
                cdf_points: cfg.report.cdf_points,
                pe_cycle_limit: cfg.ftl.pe_cycle_limit,
                ldpc_level_read_ns: self.ldpc().map(|m| m.level_read_times()),
            },
        )
    }
}
