//! The report: every figure of a plan, with the logs' audit, replay, contract matching and
//! waterfall when there are logs. `gpuplan report` prints it; the workbench exports it. One
//! assembly, so the two are the same bytes.

use serde::Serialize;

use super::Pipeline;
use super::error::PipelineError;
use super::observer::Observer;
use super::sources::Sources;
use crate::data::readers::load::FileSummary;
use crate::model::audit_settings::{AuditSettings, WindowSpec};
use crate::model::commitment_layers::CommitmentReport;
use crate::model::evaluate::{Evaluation, evaluate};
use crate::model::fleet::AuditReport;
use crate::model::fleet_contracts::{ContractsReport, with_billed_today};
use crate::model::forecast::{ForecastReport, ForecastScope};
use crate::model::plan::Plan;
use crate::model::saving_drivers::board_inputs;
use crate::model::sensitivity::{CostCurve, cost_curves};
use crate::model::split::ReplayReport;
use crate::model::waterfall::{Waterfall, waterfall};

/// The JSON document, and what the Markdown and charts draw beside it.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub gpuplan_version: &'static str,
    pub plan_file: String,
    /// The workbench's export of a plan with edits not yet saved: the plan on screen.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unsaved_edits: bool,
    #[serde(flatten)]
    pub evaluation: Evaluation,
    /// Contract-term matching of the logs' demand; null when the plan names no logs.
    pub contracts: Option<ContractsReport>,
    /// The logs' jobs replayed through today's clusters and the split; null without logs.
    pub replay: Option<ReplayReport>,
    /// From today as paid to the workload-matched plan, one cause a step; null without logs.
    pub waterfall: Option<Waterfall>,
    /// The fleet's demand forecast per class over the plan's `[forecast]` horizon (per cluster:
    /// `gpuplan forecast`); null without logs.
    pub forecast: Option<ForecastReport>,
    /// Each class's commitment layers sized on that forecast, with their risk; null without
    /// logs or contract offers.
    pub commitments: Option<CommitmentReport>,
    /// Every log the report was given, read or not, with what went wrong reading each (a log
    /// changed while read, a damaged cached read, runs set aside or listed twice) and each log
    /// the plan names that is not there (`state: "missing"`): as `gpuplan audit`'s `inputs[]`,
    /// so every output says it. Empty, and left out, without logs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<ReportInput>,
    /// Why the sections read from logs (contracts, replay, waterfall, forecast, commitments)
    /// are null, when they are; null when they were computed.
    pub not_computed: Option<String>,
    /// The cost curves the charts draw.
    #[serde(skip)]
    pub curves: Vec<CostCurve>,
    /// The audit behind the contract matching, for the utilization charts.
    #[serde(skip)]
    pub audit: Option<AuditReport>,
    /// Why there is no replay, when there are logs but their jobs could not be replayed.
    #[serde(skip)]
    pub replay_error: Option<String>,
}

/// One log read, with what reading it said: `inputs[]` of `gpuplan report` and `gpuplan audit`
/// alike.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportInput {
    pub path: String,
    /// "read", or "missing": named by the plan's `[[logs]]` and not there.
    pub state: &'static str,
    /// Why a log was not read; null for one read.
    pub reason: Option<String>,
    pub format: &'static str,
    pub rows: usize,
    pub rejected: u64,
    pub warnings: Vec<String>,
}

impl ReportInput {
    pub fn of(file: &FileSummary) -> ReportInput {
        ReportInput {
            path: file.path.clone(),
            state: "read",
            reason: None,
            format: file.format,
            rows: file.rows,
            rejected: file.rejected,
            warnings: file.warnings.clone(),
        }
    }

    /// A log the plan's `[[logs]]` names that is not there: left out of every figure.
    pub fn missing(path: &std::path::Path, plan_file: &str) -> ReportInput {
        ReportInput {
            path: path.display().to_string(),
            state: "missing",
            reason: Some(format!(
                "not found (named by {plan_file} [[logs]]): left out; figures that need its jobs are not shown"
            )),
            format: "-",
            rows: 0,
            rejected: 0,
            warnings: Vec::new(),
        }
    }
}

/// What a report is asked for.
pub struct ReportRequest<'a> {
    pub plan: &'a Plan,
    /// The plan's file as the user named it (or the built-in plan's name).
    pub plan_file: &'a str,
    /// The logs to audit; None: a report of the plan alone.
    pub sources: Option<&'a Sources>,
    pub unsaved_edits: bool,
    /// FinOps FOCUS exports: with logs, today's cost of each cluster they charge is the bill's.
    pub bill: &'a [std::path::PathBuf],
    /// Logs the plan names that are not there: listed in `inputs[]` as missing.
    pub missing_logs: &'a [std::path::PathBuf],
}

impl Report {
    /// The JSON document both faces write.
    pub fn to_json(&self) -> String {
        // Every field is plain data (numbers are finite: model/magnitude.rs bounds the inputs).
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }
}

/// The settings a report audits with: the plan's clusters and month over the last 90 days.
pub fn report_settings(pipeline: &Pipeline, plan: &Plan) -> AuditSettings {
    AuditSettings::for_plan(pipeline.catalog(), Some(plan), WindowSpec::default(), None)
}

/// The board's figures on the last audit: the contract matching, the replay and the waterfall.
pub struct Board {
    pub contracts: Option<ContractsReport>,
    pub replay: Option<ReplayReport>,
    /// Why there is no replay, when the jobs could not be replayed.
    pub replay_error: Option<String>,
    pub waterfall: Option<Waterfall>,
    /// The commitments the waterfall's purchase was priced from (None without a forecast; an
    /// error leaves the waterfall on the flat mix, and the report fails with it).
    pub commitments: Result<Option<CommitmentReport>, PipelineError>,
}

impl Pipeline {
    /// The board of `plan` on the last audit; a replay that cannot run leaves the rest and says
    /// why (the waterfall's split step is then not computed).
    pub fn board(&mut self, plan: &Plan) -> Board {
        // The demand driver's spread is the forecast's: a history too short for one leaves it
        // assumed, and says so.
        let forecast = self.forecast(plan, None, ForecastScope::Fleet).ok();
        self.board_billed(plan, &[], forecast.as_ref())
    }

    /// The board with today's cost of each cluster in `billed` (cluster → effective USD a
    /// month, from a FOCUS bill) in place of its capacity × price, the saving's demand driver
    /// spread by `forecast`.
    pub fn board_billed(&mut self, plan: &Plan, billed: &[(String, f64)], forecast: Option<&ForecastReport>) -> Board {
        let mut contracts = self.contracts(plan);
        if let Some(c) = contracts.as_mut()
            && !billed.is_empty()
        {
            with_billed_today(c, billed);
        }
        let (replay, replay_error) = match self.replay(plan, contracts.as_ref()) {
            Ok(replay) => (Some(replay.clone()), None),
            Err(e) => (None, Some(e.to_string())),
        };
        let stay = contracts.as_ref().and_then(|c| self.stay(c));
        // The board prices the purchase the Contracts pane recommends: the commitments sized on
        // the same forecast (none without one, or where they cannot be sized: flat stands in).
        let commitments = match (forecast, contracts.as_ref()) {
            (Some(_), Some(c)) => self.commitments(plan, c),
            _ => Ok(None),
        };
        let waterfall = contracts.as_ref().map(|c| {
            let why_not = match &replay_error {
                Some(e) => format!("the logs' jobs could not be replayed: {e}"),
                None => "no replay".to_string(),
            };
            let inputs = board_inputs(
                c,
                plan,
                self.catalog(),
                forecast,
                commitments.as_ref().ok().and_then(Option::as_ref),
            );
            waterfall(c, replay.as_ref(), &why_not, stay.as_ref(), &inputs)
        });
        Board {
            contracts,
            replay,
            replay_error,
            waterfall,
            commitments,
        }
    }

    /// Every figure of the plan; with sources, the audit, the contract matching, the replay and
    /// the waterfall on them (each reused when its inputs did not change). A replay that cannot
    /// run leaves the rest of the report and says why in `replay_error`.
    pub fn report(&mut self, request: &ReportRequest, observer: &mut dyn Observer) -> Result<Report, PipelineError> {
        let plan = request.plan;
        let mut evaluation = evaluate(plan, self.catalog());
        let curves = cost_curves(plan, self.catalog());
        let mut inputs = Vec::new();
        let (audit, contracts, replay, replay_error, waterfall, forecast, commitments) = match request.sources {
            None => (None, None, None, None, None, None, None),
            Some(sources) => {
                let settings = report_settings(self, plan);
                let audited = self.audit(sources, &settings, observer)?;
                if let Some(failure) = audited.measure_failure.clone() {
                    return Err(failure.into_error());
                }
                let audit = audited.report.clone();
                inputs = audited.files.iter().map(ReportInput::of).collect();
                // The audit is done: a progress line (or a notice of a long step) names what
                // follows, not the audit's last statement.
                observer.phase("forecasting demand and replaying the jobs for the board".to_string());
                let billed = if request.bill.is_empty() {
                    Vec::new()
                } else {
                    let bill = super::bill::bill(request.bill, Some(plan), Some(&audit))?;
                    bill.report
                        .clusters
                        .iter()
                        .filter(|c| c.lines > 0)
                        .map(|c| (c.name.clone(), c.per_month.total.effective_usd))
                        .collect()
                };
                // Fitted once: the board's demand driver reads the forecast the report shows.
                let forecast = self.forecast(plan, None, ForecastScope::Fleet)?;
                let board = self.board_billed(plan, &billed, Some(&forecast));
                let forecast = Some(forecast);
                let commitments = board.commitments?;
                (
                    Some(audit),
                    board.contracts,
                    board.replay,
                    board.replay_error,
                    board.waterfall,
                    forecast,
                    commitments,
                )
            }
        };
        if let Some(c) = &contracts {
            evaluation.board.with_audited_spend(c.consolidated_usd_per_month);
        }
        inputs.extend(
            request
                .missing_logs
                .iter()
                .map(|p| ReportInput::missing(p, request.plan_file)),
        );
        let not_computed = match (&audit, request.missing_logs) {
            (Some(_), _) => None,
            (None, []) => Some("no logs given: a report of the plan alone".to_string()),
            (None, missing) => Some(format!(
                "no log was read: {} not found (named by {} [[logs]])",
                missing
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                request.plan_file
            )),
        };
        Ok(Report {
            gpuplan_version: env!("CARGO_PKG_VERSION"),
            plan_file: request.plan_file.to_string(),
            unsaved_edits: request.unsaved_edits,
            evaluation,
            contracts,
            replay,
            waterfall,
            forecast,
            commitments,
            inputs,
            not_computed,
            curves,
            audit,
            replay_error,
        })
    }
}
