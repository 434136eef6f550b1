//! Headless commands: report, check, diff, plan, catalog, audit, mapping, sample; and, on a
//! terminal with no command, the workbench. Each parses its arguments, calls the pipeline
//! (src/pipeline) for its figures and renders them through present/.
//! Exit codes: 0 ok, 1 a policy or threshold check failed, 2 bad input or usage.

pub mod audit;
mod bill;
mod cache_cmd;
mod catalog_cmd;
mod check;
mod diff;
mod export;
mod forecast;
mod mapping_cmd;
mod plan_cmd;
mod progress;
pub mod prometheus_args;
mod replay;
pub mod report;
mod sample_cmd;
pub mod slurm_args;
pub mod warehouse_args;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::config::catalog::{LoadedCatalog, load_user};
use crate::config::diagnostic::Diagnostic;
use crate::config::plan_file::{default_plan, read_plan};
use crate::model::catalog::Catalog;
use crate::model::plan::Plan;

#[derive(Debug, Parser)]
#[command(
    name = "gpuplan",
    version,
    about = "GPU capacity planning by workload type: training, inference and burst economics",
    long_about = "GPU capacity planning by workload type.\n\nWith no command, gpuplan opens the workbench on LOGS and the plan (the shipped sample log and the seeds' worked examples when absent). When standard output is not a terminal it prints the plan's report instead.\n\nExit codes: 0 ok, 1 a policy or threshold check failed, 2 bad input or usage.",
    args_conflicts_with_subcommands = true,
    after_help = "Catalogs (accelerators, prices, thresholds) are built in; files of the same name in the config folder's catalogs/ override them (see `gpuplan catalog`)."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Job logs to open in the workbench (the shipped sample when absent).
    #[arg(value_name = "LOGS")]
    logs: Vec<PathBuf>,
    /// Column mapping (TOML) for the workbench's logs; see `gpuplan mapping init`.
    #[arg(long, value_name = "FILE")]
    mapping: Option<PathBuf>,
    /// The instant second 0 of the logs' relative times stands for (YYYY-MM-DD or RFC 3339).
    #[arg(long, value_name = "DATE")]
    time_origin: Option<String>,
    /// Plan file (TOML); the built-in seed examples when absent.
    #[arg(long, global = true, value_name = "FILE")]
    plan: Option<PathBuf>,
    /// Read logs from their bytes: neither use nor fill the cache of reads (`gpuplan cache`).
    #[arg(long, global = true)]
    no_cache: bool,
    #[command(flatten)]
    prometheus: prometheus_args::PrometheusArgs,
    #[command(flatten)]
    slurm: slurm_args::SlurmArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Every number the engine computes for the plan.
    Report {
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// Job logs whose demand the contract matching reads (default: the plan's [[logs]]).
        #[arg(long, value_name = "LOG", num_args = 1..)]
        logs: Vec<PathBuf>,
        /// Also write the charts as SVG into DIR (created when missing): mfu-vs-cost.svg, and
        /// utilization.svg, replay.svg, waterfall.svg, tornado.svg and forecast.svg when logs are audited.
        #[arg(long, value_name = "DIR")]
        svg: Option<PathBuf>,
        /// FinOps FOCUS cost exports: with logs, each cluster they charge costs its billed
        /// effective cost today (the board's step 1), not capacity × price.
        #[arg(long, value_name = "FILE", num_args = 1..)]
        bill: Vec<PathBuf>,
        #[command(flatten)]
        warehouse: warehouse_args::WarehouseArgs,
    },
    /// Compare plans: the inputs that differ and how every headline output moves against the first.
    Diff {
        /// Two or more plan files; the first is the baseline.
        #[arg(value_name = "PLAN", required = true, num_args = 2..)]
        plans: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// Job logs to replay under each plan (default: the first plan's [[logs]]): adds the
        /// replay's cost, utilization, waits and SLO misses to the outputs compared.
        #[arg(long, value_name = "LOG", num_args = 1..)]
        logs: Vec<PathBuf>,
    },
    /// Run every policy and threshold rule; exit 1 when any fails.
    Check {
        /// Job logs whose audited utilization the cluster rules read (default: the plan's [[logs]]).
        #[arg(value_name = "LOGS")]
        logs: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// Treat warnings as failures too.
        #[arg(long)]
        strict: bool,
        /// Check the board's conclusions instead (docs/board.md, "Checks of judgment"): the
        /// report's waterfall.checks on the logs (the shipped sample without any); exit 1 when
        /// any fails.
        #[arg(long)]
        judgment: bool,
    },
    /// Create or inspect plan files.
    #[command(subcommand)]
    Plan(PlanCommand),
    /// Show the accelerators and price sets in use, and any problem with override files.
    Catalog,
    /// The cache of reads: logs read once are kept so reopening them unchanged skips the bytes.
    #[command(subcommand)]
    Cache(CacheCommand),
    /// Classify the jobs of logs and show the stranded spend (the shipped sample without LOGS,
    /// unless a --bill is given alone).
    Audit {
        #[command(flatten)]
        logs: LogFlags,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// A FinOps FOCUS cost export (CSV or Parquet, FOCUS 1.0-1.2): billed and amortized cost per
        /// cluster beside the plan's; the plan's [bill] says which lines are whose. Without a log,
        /// read alone over its own billing period. Repeatable.
        #[arg(long, value_name = "FILE")]
        bill: Vec<PathBuf>,
    },
    /// Replay the logs' jobs through today's clusters and through a split into training,
    /// inference and burst pools ([replay] in the plan, else the contract matcher's bases).
    Replay {
        #[command(flatten)]
        logs: LogFlags,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Forecast each class's GPU demand with 80 % and 95 % intervals, fleet-wide and per
    /// cluster, with the plan's [forecast] growth and planned runs.
    Forecast {
        #[command(flatten)]
        logs: LogFlags,
        /// Days ahead (default: the plan's [forecast] horizon_months, else 12 months).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1096))]
        horizon_days: Option<u32>,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Fit the forecast at several cut-offs without the N days after each, forecast those days and
    /// score it against what happened (MAE beside seasonal naive's and every single method's,
    /// MASE, interval coverage), averaged over the origins.
    Backtest {
        #[command(flatten)]
        logs: LogFlags,
        /// Days held out after each origin.
        #[arg(long, value_name = "N", default_value_t = crate::model::commitment_layers::SELECTION_HOLDOUT_DAYS, value_parser = clap::value_parser!(u32).range(1..=1096))]
        holdout_days: u32,
        /// Origins (cut-offs) to score at, each N held-out days long; the last holds out the
        /// window's end, the others step back up to a week each (default: as many as fit, at most 8).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
        origins: Option<u16>,
        /// Days between origins instead of up to a week: 365 scores a commitment at yearly
        /// origins (with --holdout-days 365 or 1095 on a log of several years).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1096))]
        origin_step_days: Option<u32>,
        /// Also write the fleet's hourly demand per class, the series the backtest scored (CSV:
        /// time, training, inference, burst), to compare with another forecasting tool.
        #[arg(long, value_name = "FILE")]
        series_csv: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Column mappings for logs gpuplan cannot map alone.
    #[command(subcommand)]
    Mapping(MappingCommand),
    /// Generate a realistic, deterministic job log (CSV).
    Sample {
        #[arg(long, default_value_t = 20_000)]
        jobs: usize,
        #[arg(long, default_value_t = 90)]
        days: u32,
        #[arg(long, default_value_t = 4)]
        clusters: u32,
        #[arg(long, default_value_t = 7)]
        seed: u64,
        /// Where to write; standard output when absent.
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum CacheCommand {
    /// Where the cache is, its entries and their size.
    Info,
    /// Remove every kept read.
    Clear,
}

/// The logs an audit reads and the window it looks at (audit, replay).
#[derive(Debug, Clone, clap::Args)]
struct LogFlags {
    /// Job logs: CSV/TSV, Parquet (file, folder or glob), NDJSON/JSON, Slurm sacct -P, Philly JSON; and
    /// utilization beside them: DCGM exports, nvidia-smi --query-gpu CSV and dmon recordings.
    #[arg(value_name = "LOGS")]
    logs: Vec<PathBuf>,
    /// Column mapping (TOML); see `gpuplan mapping init`.
    #[arg(long, value_name = "FILE")]
    mapping: Option<PathBuf>,
    // Help lists every entry of `data::readers::formats::FORMATS`.
    #[arg(long, value_name = "LAYOUT", help = crate::data::readers::formats::input_format_help())]
    input_format: Option<String>,
    /// The instant second 0 of the logs' relative times stands for (YYYY-MM-DD or RFC 3339):
    /// a trace that counts seconds from its start (openb, PAI 2020, DLRM 2025 have defaults).
    #[arg(long, value_name = "DATE")]
    time_origin: Option<String>,
    /// Audit the last N days of the data (default 90).
    #[arg(long, value_name = "N", conflicts_with = "all_time")]
    days: Option<f64>,
    /// Audit the whole log.
    #[arg(long)]
    all_time: bool,
    /// Window start, YYYY-MM-DD or RFC 3339.
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// Window end, YYYY-MM-DD or RFC 3339.
    #[arg(long, value_name = "DATE")]
    until: Option<String>,
    /// Price of a GPU-hour for clusters the plan does not list (default: the seed's $12.29 H100 rate).
    #[arg(long, value_name = "USD")]
    cost_per_gpu_hour: Option<f64>,
    /// The offset from UTC of the clock nvidia-smi recordings were written on (+01:00, -05:30),
    /// where the plan's [hosts] entry for their cluster gives none (default UTC).
    #[arg(long, value_name = "OFFSET", allow_hyphen_values = true)]
    input_tz: Option<String>,
    #[command(flatten)]
    prometheus: prometheus_args::PrometheusArgs,
    #[command(flatten)]
    slurm: slurm_args::SlurmArgs,
    #[command(flatten)]
    warehouse: warehouse_args::WarehouseArgs,
}

impl LogFlags {
    fn into_args(self, plan: Option<PathBuf>, format: Format) -> audit::AuditArgs {
        audit::AuditArgs {
            logs: self.logs,
            mapping: self.mapping,
            input_format: self.input_format,
            time_origin: self.time_origin,
            plan,
            format,
            days: self.days,
            all_time: self.all_time,
            since: self.since,
            until: self.until,
            cost_per_gpu_hour: self.cost_per_gpu_hour,
            input_tz: self.input_tz,
            prometheus: self.prometheus,
            slurm: self.slurm,
            warehouse: self.warehouse,
            bill: Vec::new(),
        }
    }
}

#[derive(Debug, Subcommand)]
enum MappingCommand {
    /// Write a commented mapping guessed from a log's header, to edit.
    Init {
        #[arg(value_name = "LOG")]
        log: PathBuf,
        /// Where to write it; standard output when absent or `-` (a device such as /dev/stdout
        /// is written to; an existing file is refused).
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
        #[arg(long, value_name = "LAYOUT")]
        input_format: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
enum PlanCommand {
    /// Write the default plan (the seeds' worked examples, every field commented), or with
    /// --logs a starting plan for the clusters of your own logs.
    New {
        /// Where to write it; standard output when absent or `-` (a device such as /dev/stdout
        /// is written to; an existing file is refused).
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Replace an existing file.
        #[arg(long)]
        force: bool,
        /// Start from these job logs instead: one [[clusters]] per cluster they show, with its
        /// observed peak as capacity and the catalog list price of the accelerator its log names,
        /// each marked as an assumption to confirm.
        #[arg(long, value_name = "LOG", num_args = 1..)]
        logs: Vec<PathBuf>,
        /// The logs' column mapping (see `gpuplan mapping init`).
        #[arg(long, value_name = "FILE", requires = "logs")]
        mapping: Option<PathBuf>,
    },
    /// Read a plan and report every problem with file, line and column.
    Validate {
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Format {
    #[default]
    Table,
    Json,
    Markdown,
}

/// What stops a command, mapped to its exit code.
#[derive(Debug)]
pub enum Failure {
    /// Bad input or usage: exit 2.
    Input(Vec<Diagnostic>),
    /// A policy or threshold check failed: exit 1.
    ChecksFailed,
    /// No failure: `--explain-sql` printed the warehouse's queries, and the command stops
    /// there (exit 0).
    Explained,
}

/// A pipeline that stopped, as the command line reports it.
pub fn pipeline_failure(e: crate::pipeline::error::PipelineError) -> Failure {
    Failure::Input(e.diagnostics())
}

impl From<Diagnostic> for Failure {
    fn from(d: Diagnostic) -> Failure {
        Failure::Input(vec![d])
    }
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = run(cli);
    // A read still being kept for the next open is finished first (the workbench's screen is
    // already restored by now).
    crate::data::read_cache::wait_for_stores();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::ChecksFailed) => ExitCode::from(1),
        Err(Failure::Explained) => ExitCode::SUCCESS,
        Err(Failure::Input(diagnostics)) => {
            for d in diagnostics {
                eprintln!("error: {d}");
            }
            ExitCode::from(2)
        }
    }
}

/// Whether `--no-cache` was given: read once by `run`, before any command makes a pipeline.
static NO_CACHE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A pipeline for a command: with the cache of reads unless `--no-cache` was given.
pub fn new_pipeline(catalog: &Catalog) -> crate::pipeline::Pipeline {
    let cache = if NO_CACHE.load(std::sync::atomic::Ordering::Relaxed) {
        None
    } else {
        crate::config::paths::read_cache()
    };
    crate::pipeline::Pipeline::new(catalog.clone()).with_read_cache(cache)
}

fn run(cli: Cli) -> Result<(), Failure> {
    NO_CACHE.store(cli.no_cache, std::sync::atomic::Ordering::Relaxed);
    let plan_path = cli.plan.clone();
    let plan_path = plan_path.as_deref();
    match cli.command {
        None if std::io::IsTerminal::is_terminal(&std::io::stdout()) => {
            // The workbench reads the catalog and the plan once, itself; the plan's own
            // [prometheus] is read with it, and the flags given here win.
            crate::runtime::run_workbench(crate::runtime::WorkbenchArgs {
                logs: cli.logs,
                mapping: cli.mapping,
                time_origin: cli.time_origin.as_deref().map(audit::time_origin).transpose()?,
                prometheus: cli.prometheus.overrides(),
                slurm: cli.slurm.overrides(),
                plan: cli.plan,
                no_cache: cli.no_cache,
            })
            .map_err(Failure::Input)
        }
        None => report::run(
            &load_catalog(),
            plan_path,
            report::ReportInputs {
                logs: &cli.logs,
                bill: &[],
                warehouse: &warehouse_args::WarehouseArgs::default(),
            },
            Format::Table,
            None,
        ),
        Some(Command::Report {
            format,
            logs,
            svg,
            bill,
            warehouse,
        }) => report::run(
            &load_catalog(),
            plan_path,
            report::ReportInputs {
                logs: &logs,
                bill: &bill,
                warehouse: &warehouse,
            },
            format,
            svg.as_deref(),
        ),
        Some(Command::Diff { plans, format, logs }) => match plan_path {
            // The plans to compare are the arguments; a --plan beside them would be ignored.
            Some(plan) => Err(Diagnostic::file(
                &plan.display().to_string(),
                "`gpuplan diff` compares the plan files given as arguments: list this one among them \
                 (the first is the baseline) instead of passing it with --plan",
            )
            .into()),
            None => diff::run(&load_catalog(), &plans, &logs, format),
        },
        Some(Command::Check {
            logs,
            format,
            strict,
            judgment: false,
        }) => check::run(&load_catalog(), plan_path, &logs, format, strict),
        Some(Command::Check {
            logs,
            format,
            judgment: true,
            ..
        }) => check::run_judgment(&load_catalog(), plan_path, &logs, format),
        Some(Command::Plan(PlanCommand::New {
            output,
            force,
            logs,
            mapping,
        })) => {
            if logs.is_empty() {
                plan_cmd::new(output.as_deref(), force)
            } else {
                plan_cmd::new_from_logs(&load_catalog(), &logs, mapping, output.as_deref(), force)
            }
        }
        Some(Command::Plan(PlanCommand::Validate { file })) => plan_cmd::validate(&load_catalog(), &file),
        Some(Command::Catalog) => catalog_cmd::run(&load_catalog()),
        Some(Command::Cache(command)) => cache_cmd::run(matches!(command, CacheCommand::Clear)),
        Some(Command::Audit { logs, format, bill }) => audit::run(
            &load_catalog(),
            audit::AuditArgs {
                bill,
                ..logs.into_args(cli.plan, format)
            },
        ),
        Some(Command::Replay { logs, format }) => replay::run(&load_catalog(), logs.into_args(cli.plan, format)),
        Some(Command::Forecast {
            logs,
            horizon_days,
            format,
        }) => forecast::run_forecast(&load_catalog(), logs.into_args(cli.plan, format), horizon_days),
        Some(Command::Backtest {
            logs,
            holdout_days,
            origins,
            origin_step_days,
            series_csv,
            format,
        }) => forecast::run_backtest(
            &load_catalog(),
            logs.into_args(cli.plan, format),
            forecast::BacktestArgs {
                holdout_days,
                origins: origins.map(usize::from),
                origin_step_days,
                series_csv,
            },
        ),
        Some(Command::Mapping(MappingCommand::Init {
            log,
            output,
            input_format,
        })) => mapping_cmd::init(&log, output.as_deref(), input_format.as_deref()),
        Some(Command::Sample {
            jobs,
            days,
            clusters,
            seed,
            output,
        }) => sample_cmd::run(jobs, days, clusters, seed, output.as_deref()),
    }
}

/// The user's catalogs; problems in override files are warnings on stderr.
fn load_catalog() -> Catalog {
    let LoadedCatalog { catalog, warnings } = load_user();
    for w in warnings {
        eprintln!("warning: {w}");
    }
    catalog
}

/// The plan at `path` when one is given.
fn load_plan_if_given(catalog: &Catalog, path: Option<&Path>) -> Result<Option<Plan>, Failure> {
    path.map(|p| read_plan(p, catalog).map_err(Failure::Input)).transpose()
}

/// The plan at `path`, or the built-in default plan.
fn load_plan(catalog: &Catalog, path: Option<&Path>) -> Result<(Plan, String), Failure> {
    match path {
        Some(path) => Ok((
            read_plan(path, catalog).map_err(Failure::Input)?,
            path.display().to_string(),
        )),
        None => Ok((
            default_plan(catalog).map_err(Failure::Input)?,
            crate::config::plan_file::DEFAULT_PLAN_NAME.to_string(),
        )),
    }
}
