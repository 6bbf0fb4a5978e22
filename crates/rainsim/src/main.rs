//! `rainsim`: the command-line front of the simulator. Only argument handling
//! and printing live here; the model is `rainsim-model`, traces `rainsim-trace`.

mod commands;
mod compare;
mod interrupt;
mod trace_edit;

use rainsim::{settings, summary, turns, workload};

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Trace-driven simulator of RAID-enabled flash storage.
#[derive(Parser)]
#[command(name = "rainsim", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Simulate one configuration on a trace (or the built-in workload) and report.
    Run(RunArgs),
    /// Run several schemes or `--set` variants on one trace and print them side by side.
    Compare(CompareArgs),
    /// Inspect, convert, slice and merge trace files.
    Trace {
        #[command(subcommand)]
        cmd: TraceCmd,
    },
    /// Inspect configurations.
    Config {
        #[command(subcommand)]
        cmd: ConfigCmd,
    },
    /// Measure simulation speed (host requests per CPU-second).
    Bench(BenchArgs),
}

/// Where the device and its workload come from.
#[derive(Args, Clone)]
struct Setup {
    /// Preset name (see `rainsim config list`) or TOML file. Default: `default`.
    #[arg(long, short)]
    config: Option<String>,
    /// Scheme: a named set of policy-axis values (see `rainsim config list`).
    #[arg(long)]
    scheme: Option<String>,
    /// Override a config key, e.g. `--set raid.stripe_width=8` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Block trace to replay; without it the built-in synthetic workload runs.
    #[arg(long, short, conflicts_with = "workload")]
    trace: Option<PathBuf>,
    /// Workload profile (see `rainsim config list`) or TOML file: its `[workload]`
    /// table replaces the config's, after preset and scheme, before `--set`s.
    #[arg(long, value_name = "NAME|FILE")]
    workload: Option<String>,
    /// Trace format (msr, spc, systor, alibaba, disksim, ssdsim, msr-window, cbs, blkparse,
    /// blkparse-c, fio); default: detect.
    #[arg(long, requires = "trace")]
    format: Option<String>,
    /// Time unit of a disksim trace (ns or ms); default: ms if times have a decimal point.
    #[arg(long, requires = "trace")]
    time_unit: Option<String>,
}

impl Setup {
    /// The library's description of the same run.
    fn spec(&self) -> rainsim::RunSpec {
        rainsim::RunSpec {
            config: self.config.clone(),
            scheme: self.scheme.clone(),
            workload: self.workload.clone(),
            sets: self.sets.clone(),
            trace: self.trace.clone(),
            format: self.format.clone(),
            time_unit: self.time_unit.clone(),
        }
    }
}

#[derive(Args)]
struct RunArgs {
    #[command(flatten)]
    setup: Setup,
    /// Write the JSON report here.
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Write the per-request log here as Parquet: one row per completed request
    /// (arrival_ns, class, size_bytes, latency_ns, channels, degraded), in
    /// completion order.
    #[arg(long, value_name = "FILE.parquet")]
    request_log: Option<PathBuf>,
    /// Check data and parity consistency throughout the run (slower).
    #[arg(long)]
    verify: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Args)]
struct CompareArgs {
    #[command(flatten)]
    setup: Setup,
    /// Schemes to compare (repeatable); each runs with the shared `--set`s.
    #[arg(long = "schemes", value_name = "NAME[,NAME]", value_delimiter = ',')]
    schemes: Vec<String>,
    /// Extra variants: comma-separated KEY=VALUE lists, e.g. `--variant raid.stripe_width=8` (repeatable).
    /// With an array (`[array]`), e.g. `--variant array.allocation=dls`: the runs are then all arrays.
    #[arg(long = "variant", value_name = "KEY=VALUE[,KEY=VALUE]")]
    variants: Vec<String>,
    /// Write each run's JSON report into this directory.
    #[arg(long)]
    out_dir: Option<PathBuf>,
    /// Check consistency in every run.
    #[arg(long)]
    verify: bool,
    /// Runs at once, each computing. Default: every run held at once (as
    /// many as the memory available holds), taking turns on the cores so
    /// that the one furthest behind goes next and runs of unequal length
    /// finish together (on Linux each computing run is pinned to its core's
    /// CPU). The reports do not depend on it.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
}

#[derive(Subcommand)]
enum TraceCmd {
    /// Print the papers' trace-table columns for a trace file or a workload profile.
    Stats {
        /// Trace file (gzip accepted).
        #[arg(required_unless_present = "workload", conflicts_with = "workload")]
        file: Option<PathBuf>,
        /// Instead of a file: generate this workload profile (name or file) for the
        /// device of `--config`, with the config's seed.
        #[arg(long, value_name = "NAME|FILE")]
        workload: Option<String>,
        /// Preset or file whose capacity, seed and page size `--workload` uses. Default: `default`.
        #[arg(long, short, requires = "workload")]
        config: Option<String>,
        /// Format override (default: detect).
        #[arg(long)]
        format: Option<String>,
        /// Time unit of a disksim trace.
        #[arg(long)]
        time_unit: Option<String>,
        /// Page size for the update ratio, bytes (a multiple of 512 up to 1 MiB).
        /// Default: 8192 for a file, the config's page size for `--workload`.
        #[arg(long, value_parser = page_bytes)]
        page_bytes: Option<u32>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Convert a trace (after device filter, window and address map) to another format.
    Convert {
        /// Input trace (gzip, zstd, xz accepted).
        input: PathBuf,
        /// Output file (written atomically; never the input).
        output: PathBuf,
        /// Output format: ssdsim, disksim, mqsim, msr or fio.
        #[arg(long)]
        to: String,
        #[command(flatten)]
        select: SelectArgs,
    },
    /// Cut a window out of a trace: `--start S --duration D` and/or `--skip K --requests N`.
    Slice {
        /// Input trace.
        input: PathBuf,
        /// Output file.
        output: PathBuf,
        /// Output format; default: the input's, when it can be written.
        #[arg(long)]
        to: Option<String>,
        #[command(flatten)]
        select: SelectArgs,
    },
    /// Merge traces by time (stable: equal times keep the order of the inputs): `merge A B … OUT`.
    Merge {
        /// Input traces, then the output file.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format; default: the first input's, when it can be written.
        #[arg(long)]
        to: Option<String>,
        /// Number each input's devices after those of the inputs before it (device d of
        /// an input becomes d plus one past the largest device number before it), so
        /// that volumes of different files stay apart.
        #[arg(long)]
        distinct_devices: bool,
        #[command(flatten)]
        select: InputArgs,
    },
}

/// How `trace convert|slice|merge` read requests and fit their addresses
/// (`merge` takes no more: slice the merged file for a window).
#[derive(Args, Clone, Default)]
pub struct InputArgs {
    /// Input format (see the README's format table); default: detect.
    #[arg(long)]
    pub format: Option<String>,
    /// Time unit of a disksim input (ns or ms).
    #[arg(long)]
    pub time_unit: Option<String>,
    /// Keep only this device (MSR DiskNumber, CBS volume, blkparse major << 20 | minor, ...).
    #[arg(long)]
    pub device: Option<u32>,
    /// Fit addresses into `--capacity`: wrap or compact (as `trace.address_map`); default: unchanged.
    #[arg(long, value_name = "wrap|compact")]
    pub address_map: Option<String>,
    /// Device capacity for `--address-map`, bytes (KiB/MiB/GiB/TiB suffixes allowed).
    #[arg(long, value_name = "BYTES")]
    pub capacity: Option<String>,
    /// Page size for `--address-map`, bytes (a multiple of 512 up to 1 MiB).
    #[arg(long, default_value_t = 4096, value_parser = page_bytes)]
    pub page_bytes: u32,
}

/// How `trace convert|slice` read and select requests: [`InputArgs`] and a window.
#[derive(Args, Clone, Default)]
pub struct SelectArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Window start, seconds after the first request (decimals allowed).
    #[arg(long, value_name = "S")]
    pub start: Option<String>,
    /// Window length, seconds; default: to the end.
    #[arg(long, value_name = "D")]
    pub duration: Option<String>,
    /// Then drop the first K requests.
    #[arg(long, value_name = "K")]
    pub skip: Option<u64>,
    /// Then keep at most N requests.
    #[arg(long, value_name = "N")]
    pub requests: Option<u64>,
}

#[derive(Subcommand)]
enum ConfigCmd {
    /// Print the effective configuration as TOML.
    Show {
        #[command(flatten)]
        setup: Setup,
    },
    /// List presets, schemes and workload profiles.
    List,
}

#[derive(Args)]
pub(crate) struct BenchArgs {
    /// Preset or file to benchmark. Default: rep-raid-8ch (aged 80/10, GC active).
    #[arg(long, short, default_value = "rep-raid-8ch")]
    pub(crate) config: String,
    /// Scheme to benchmark (see `rainsim config list`). Default: the configuration's own policy (a preset's is baseline's).
    #[arg(long)]
    pub(crate) scheme: Option<String>,
    /// Workload profile (name or file) instead of the config's synthetic workload.
    #[arg(long, value_name = "NAME|FILE")]
    pub(crate) workload: Option<String>,
    /// Synthetic requests to simulate. Default: 1,000,000, or the profile's count with `--workload`.
    #[arg(long)]
    pub(crate) requests: Option<u64>,
    /// Replay this trace file instead (the config's `[trace]` keys apply); its loading
    /// (read, parse, sort, SHA-256) is measured too, in records per CPU-second.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["workload", "requests"])]
    pub(crate) trace: Option<PathBuf>,
    /// With `--trace`: measure the loading only, do not simulate.
    #[arg(long, requires = "trace")]
    pub(crate) load_only: bool,
    /// Generate the synthetic workload as the run reads it, as `run` does,
    /// instead of holding it (the memory of a `run`; the simulation's CPU time
    /// then includes generating the requests, about 480 instructions each).
    #[arg(long, conflicts_with = "trace")]
    pub(crate) stream: bool,
    /// Times to repeat the run (best and median are reported).
    #[arg(long, default_value_t = 3)]
    pub(crate) runs: u32,
    /// Extra config overrides.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub(crate) sets: Vec<String>,
}

/// A page size argument ([`rainsim::settings::page_bytes`]).
fn page_bytes(s: &str) -> Result<u32, String> {
    rainsim::settings::page_bytes(s.parse().map_err(|_| format!("`{s}` is not a whole number of bytes"))?)
}

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`rainsim … | head`)
    // would panic; the default action ends the process quietly, as CLI tools do.
    #[cfg(unix)]
    // SAFETY: called before any thread starts; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    interrupt::install();
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Run(a) => commands::run(&a.setup, a.out.as_deref(), a.request_log.as_deref(), a.verify, a.quiet),
        Cmd::Compare(a) => compare::compare(&a.setup, &a.schemes, &a.variants, a.out_dir.as_deref(), a.verify, a.jobs),
        Cmd::Trace { cmd: TraceCmd::Stats { file, workload, config, format, time_unit, page_bytes, json } } => {
            match (file, workload) {
                (Some(file), _) => {
                    commands::trace_stats(&file, format.as_deref(), time_unit.as_deref(), page_bytes, json)
                }
                (None, Some(w)) => commands::workload_stats(&w, config.as_deref(), page_bytes, json),
                (None, None) => Err("trace stats needs a trace file or --workload NAME".into()),
            }
        }
        Cmd::Trace { cmd: TraceCmd::Convert { input, output, to, select } } => {
            trace_edit::convert(&input, &output, Some(&to), &select, false)
        }
        Cmd::Trace { cmd: TraceCmd::Slice { input, output, to, select } } => {
            trace_edit::convert(&input, &output, to.as_deref(), &select, true)
        }
        Cmd::Trace { cmd: TraceCmd::Merge { files, to, distinct_devices, select } } => {
            trace_edit::merge(&files, to.as_deref(), distinct_devices, &select)
        }
        Cmd::Config { cmd: ConfigCmd::Show { setup } } => commands::config_show(&setup),
        Cmd::Config { cmd: ConfigCmd::List } => commands::config_list(),
        Cmd::Bench(a) => commands::bench(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
