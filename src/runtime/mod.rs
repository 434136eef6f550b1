//! Every side effect of the workbench: the terminal, the event loop, the background worker that
//! runs the pipeline (src/pipeline), the file watcher, saving and opening files, the report export,
//! and reading the workbench's own files (`keys.toml`, themes) into the key map and styles.

pub mod allocator;
mod effects;
pub mod error;
mod event_loop;
pub mod keymap_file;
pub mod keys;
pub mod recovery;
pub mod signals;
pub mod terminal;
pub mod theme_files;
pub mod watcher;
pub mod worker;

use std::path::PathBuf;

use self::keymap_file::load_keymap;
use self::theme_files::{load_themes, no_color_requested};
use crate::app::{App, LogInputs, PlanFile};
use crate::config::catalog::{LoadedCatalog, load_user};
use crate::config::diagnostic::Diagnostic;
use crate::config::paths::{config_dir, data_dir};
use crate::config::plan_file::{DEFAULT_PLAN_TOML, default_plan, read_plan_file_text};
use crate::ui::theme::Theme;

const SHIPPED_PLANS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/plans");

#[derive(Debug, Clone, Default)]
pub struct WorkbenchArgs {
    pub logs: Vec<PathBuf>,
    pub mapping: Option<PathBuf>,
    /// `--time-origin`, RFC 3339: second 0 of the logs' relative times.
    pub time_origin: Option<String>,
    pub plan: Option<PathBuf>,
    /// Prometheus settings over the plan's `[prometheus]`, for measured utilization.
    pub prometheus: crate::model::plan::PrometheusOverrides,
    /// Slurm settings over the plan's `[slurm]`: the jobs read through sacct instead of logs.
    pub slurm: crate::model::plan::SlurmOverrides,
    /// Read the logs from their bytes every time (`--no-cache`).
    pub no_cache: bool,
}

/// Everything the workbench needs before its first frame, and the problems found on the way
/// (shown in the banner, since stderr is hidden under the screen).
pub struct Startup {
    pub app: App,
    pub themes: Vec<Theme>,
    pub warnings: Vec<String>,
    /// Where the worker keeps reads of the logs for the next open.
    pub read_cache: Option<crate::data::read_cache::ReadCache>,
}

/// Reads the catalog, plan, themes and key map. A plan that does not load stops here, with
/// its diagnostics on a normal screen.
pub fn prepare(args: WorkbenchArgs) -> Result<Startup, Vec<Diagnostic>> {
    let LoadedCatalog { catalog, warnings } = load_user();
    let mut notes: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    let (plan, plan_file) = match &args.plan {
        Some(path) => {
            let shown = path.display().to_string();
            let text = std::fs::read_to_string(path)
                .map_err(|e| vec![Diagnostic::file(&shown, format!("cannot read the plan: {e}"))])?;
            let plan = read_plan_file_text(path, &text, &catalog)?;
            remember_plan(path);
            (
                plan,
                PlanFile {
                    path: Some(path.clone()),
                    text: Some(text),
                },
            )
        }
        None => (
            default_plan(&catalog)?,
            PlanFile {
                path: None,
                text: Some(DEFAULT_PLAN_TOML.to_string()),
            },
        ),
    };
    // The same logs, mapping and layout `gpuplan report --plan` reads: the arguments, else the
    // plan's [[logs]]; the shipped sample when neither names one.
    let given = crate::pipeline::sources::Given {
        logs: args.logs.clone(),
        mapping: args.mapping.clone(),
        input_format: None,
        time_origin: args.time_origin.clone(),
        prometheus: None,
        slurm: args.slurm.resolve(Some(&plan)),
        // A plan whose runs live in a database ([warehouse]) is audited there.
        warehouse: args
            .logs
            .is_empty()
            .then(|| plan.warehouse.clone())
            .flatten()
            .filter(|_| args.slurm.resolve(Some(&plan)).is_none()),
    };
    let mut sources = crate::pipeline::sources::Sources::resolve(given, Some(&plan)).map_err(|e| e.diagnostics())?;
    // A log the plan names that is not there is a banner; the rest of the picture stays.
    let plan_shown = args
        .plan
        .as_ref()
        .map_or_else(|| "the plan".to_string(), |p| p.display().to_string());
    notes.splice(0..0, sources.missing_notes(&plan_shown));
    let mut shipped_sample = false;
    if sources.logs.is_empty() && sources.slurm.is_none() && sources.warehouse.is_none() {
        shipped_sample = sources.or_sample().map_err(|e| e.diagnostics())?.is_some();
    }
    let config = config_dir();
    let loaded_themes = load_themes(
        config.as_ref().map(|c| c.join("themes")).as_deref(),
        no_color_requested(),
    );
    notes.extend(loaded_themes.warnings.iter().map(|d| d.headline()));
    let (keymap, key_warnings) = match &config {
        Some(dir) => load_keymap(&dir.join("keys.toml")),
        None => (Default::default(), Vec::new()),
    };
    notes.extend(key_warnings.iter().map(|d| d.headline()));
    let prometheus = args.prometheus.resolve(Some(&plan));
    let mut app = App::new(
        catalog,
        plan,
        plan_file,
        LogInputs {
            paths: sources.logs,
            mapping: sources.mapping,
            input_format: sources.input_format,
            time_origin: sources.time_origin,
            prometheus,
            slurm: sources.slurm.map(Box::new),
            warehouse: sources.warehouse.map(Box::new),
            shipped_sample,
            missing: sources.missing,
        },
    );
    app.keymap = keymap;
    // Edits a workbench stopped by a signal or a panic kept for this plan: offered first.
    if let Some(found) = recovery::find(args.plan.as_deref(), &app.logs.paths, &app.plan, &app.catalog) {
        crate::app::update(&mut app, found);
    }
    app.theme_names = loaded_themes.themes.iter().map(|t| t.name.clone()).collect();
    app.known_plans = known_plans();
    Ok(Startup {
        app,
        themes: loaded_themes.themes,
        warnings: notes,
        read_cache: if args.no_cache {
            None
        } else {
            crate::config::paths::read_cache()
        },
    })
}

/// How many recently opened or saved plans are remembered.
const RECENT_PLANS: usize = 20;

fn recent_file() -> Option<PathBuf> {
    data_dir().map(|d| d.join("recent-plans.txt"))
}

/// Plans opened or saved lately, most recent first, that still exist.
pub fn recent_plans() -> Vec<PathBuf> {
    let Some(text) = recent_file().and_then(|f| std::fs::read_to_string(f).ok()) else {
        return Vec::new();
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_file())
        .collect()
}

/// Puts a plan at the head of the recent list. A failure to write it costs only the list.
pub fn remember_plan(path: &std::path::Path) {
    let Some(file) = recent_file() else {
        return;
    };
    let Ok(path) = std::path::absolute(path) else {
        return;
    };
    let mut list = recent_plans();
    list.retain(|p| p != &path);
    list.insert(0, path);
    list.truncate(RECENT_PLANS);
    let text: String = list.iter().map(|p| format!("{}\n", p.display())).collect();
    if let Some(folder) = file.parent() {
        let _ = std::fs::create_dir_all(folder);
    }
    let _ = crate::config::atomic::write_atomically(&file, text.as_bytes());
}

/// Recent plans, saved plans (the data folder's plans/) and the shipped examples.
pub fn known_plans() -> Vec<PathBuf> {
    let mut plans = recent_plans();
    let folders = [data_dir().map(|d| d.join("plans")), Some(PathBuf::from(SHIPPED_PLANS))];
    for folder in folders.into_iter().flatten() {
        if let Ok(entries) = std::fs::read_dir(&folder) {
            let mut found: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "toml"))
                .collect();
            found.sort();
            for path in found {
                let absolute = std::path::absolute(&path).unwrap_or(path);
                if !plans.contains(&absolute) {
                    plans.push(absolute);
                }
            }
        }
    }
    plans
}

/// The workbench on the shipped sample log and the built-in plan, with the log read and audited
/// on this thread by the pipeline the worker runs: what `gpuplan` shows once loaded, for tests,
/// benchmarks and captures. `log` replaces the sample.
pub fn sample_workbench(log: Option<&std::path::Path>) -> Result<App, error::RuntimeError> {
    let catalog = crate::config::catalog::builtin().catalog;
    let plan = default_plan(&catalog).map_err(error::RuntimeError::InvalidPlan)?;
    let file = PlanFile {
        path: None,
        text: Some(DEFAULT_PLAN_TOML.to_string()),
    };
    loaded_workbench(catalog, plan, file, log)
}

/// `sample_workbench` with another plan, read from `file` (a shipped plan, as `gpuplan --plan`
/// opens it).
pub fn loaded_workbench(
    catalog: crate::model::catalog::Catalog,
    plan: crate::model::plan::Plan,
    file: PlanFile,
    log: Option<&std::path::Path>,
) -> Result<App, error::RuntimeError> {
    let logs = LogInputs {
        paths: vec![match log {
            Some(log) => log.to_path_buf(),
            None => crate::config::sample_log::sample_log_path()?,
        }],
        shipped_sample: log.is_none(),
        ..LogInputs::default()
    };
    let mut app = App::new(catalog.clone(), plan, file, logs);
    let mut pipeline = crate::pipeline::Pipeline::new(catalog);
    let observer = &mut crate::pipeline::observer::Quiet;
    for effect in app.start() {
        let crate::app::Effect::LoadFleet {
            generation,
            logs,
            settings,
        } = effect
        else {
            continue;
        };
        let audited = pipeline.audit(&worker::sources_of(&logs), &settings, observer)?;
        let fleet = Box::new(worker::fleet_of(audited));
        let effects = crate::app::update(&mut app, crate::app::Action::FleetLoaded { generation, fleet });
        // The forecast fit and the replay the worker would run next, here on this thread.
        for effect in effects {
            let action = match effect {
                crate::app::Effect::FitForecast {
                    generation,
                    horizon_days,
                    plan,
                } => worker::fit_forecast(&mut pipeline, generation, horizon_days, &plan),
                crate::app::Effect::Replay { generation, plan } => worker::replay(&mut pipeline, generation, &plan),
                _ => continue,
            };
            crate::app::update(&mut app, action);
        }
    }
    Ok(app)
}

/// `gpuplan [LOGS...] [--plan FILE]` on a terminal. What stops it is said as diagnostics; the
/// command line turns them into its exit code.
pub fn run_workbench(args: WorkbenchArgs) -> Result<(), Vec<Diagnostic>> {
    let startup = prepare(args)?;
    event_loop::run(startup).map_err(|e| vec![Diagnostic::file("terminal", e.to_string())])
}
