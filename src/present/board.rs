//! The board's sections of `gpuplan report`: the savings waterfall, each class's accelerator,
//! its term mix at today's prices, and the contract matching behind them.

use crate::model::board_timeline::{TimelineMonth, Timing};
use crate::model::fleet_contracts::{ClassContracts, ContractsReport};
use crate::model::saving_range::SavingRange;
use crate::model::waterfall::Waterfall;
use crate::present::document::{Align, Block, Section, Table};
use crate::shared::format::{thousands, usd, usd_compact, usd_signed};

/// A change as a signed amount: `−$1.2M` for a saving.
pub fn signed_usd(change: f64) -> String {
    if change < 0.0 {
        format!("−{}", usd(-change))
    } else {
        format!("+{}", usd(change))
    }
}

pub fn waterfall_section(w: &Waterfall) -> Section {
    let mut table = Table::new(&[
        ("#", Align::Right),
        ("step", Align::Left),
        ("cost/month", Align::Right),
        ("change", Align::Right),
    ]);
    let mut notes = Vec::new();
    for (i, step) in w.steps.iter().enumerate() {
        table.row(vec![
            (i + 1).to_string(),
            step.step.label().to_string(),
            step.usd_per_month.map_or("not computed".to_string(), usd),
            step.change_usd_per_month.map_or(String::new(), signed_usd),
        ]);
        let text = match (&step.why_not, step.usd_per_month) {
            (Some(why), None) => format!("{}. {}: not computed: {why}.", i + 1, step.step.label()),
            (Some(why), Some(_)) => format!("{}. {}: {}; {why}.", i + 1, step.step.label(), step.assumption),
            (None, _) => format!("{}. {}: {}.", i + 1, step.step.label(), step.assumption),
        };
        notes.push(Block::Note(text));
    }
    let lead = w
        .assumed_prices
        .as_ref()
        .map(|a| Block::Note(format!("⚑ {}.", a.lead())));
    let mut blocks: Vec<Block> = lead.into_iter().collect();
    blocks.extend([
        Block::Table(table),
        Block::Facts(vec![(
            "saving".into(),
            format!(
                "{}/month, {}/year (step 1 − the last step computed)",
                usd(w.saving_usd_per_month),
                usd(w.saving_usd_per_year)
            ),
        )]),
    ]);
    blocks.extend(check_blocks(w));
    blocks.extend(notes);
    if let Some(range) = &w.range {
        blocks.extend(range_blocks(w, range));
    }
    if !w.attribution.is_empty() {
        blocks.extend(attribution_blocks(w));
    }
    if !w.alternatives.is_empty() {
        blocks.extend(alternatives_blocks(w));
    }
    if let Some(timing) = &w.timing {
        blocks.extend(timeline_blocks(&w.timeline, timing));
    }
    Section {
        title: "Board waterfall".into(),
        blocks,
    }
}

/// The saving's range over its drivers, and the tornado of each driver alone.
fn range_blocks(w: &Waterfall, range: &SavingRange) -> Vec<Block> {
    let mut blocks = vec![Block::Facts(vec![(
        "saving range".into(),
        format!(
            "P10 {}, P50 {}, P90 {} a year ({} draws of the drivers below, each as likely under its point \
             value as over it: the range is drawn around the saving of {}, every driver at its point value)",
            usd_signed(range.p10_usd_per_year),
            usd_signed(range.p50_usd_per_year),
            usd_signed(range.p90_usd_per_year),
            thousands(f64::from(range.draws)),
            usd(w.saving_usd_per_year)
        ),
    )])];
    let mut table = Table::new(&[
        ("driver", Align::Left),
        ("low", Align::Right),
        ("high", Align::Right),
        ("saving at low", Align::Right),
        ("saving at high", Align::Right),
        ("swing", Align::Right),
    ]);
    for bar in &w.tornado {
        let Some(driver) = w.drivers.iter().find(|d| d.driver == bar.driver) else {
            continue;
        };
        table.row(vec![
            bar.driver.replace('_', " "),
            format!("×{:.2}", driver.spread.low),
            format!("×{:.2}", driver.spread.high),
            usd_signed(bar.low_usd_per_year),
            usd_signed(bar.high_usd_per_year),
            usd(bar.swing_usd_per_year()),
        ]);
    }
    let today_side = w
        .drivers
        .iter()
        .any(|d| d.driver == crate::model::saving_range::UNSTATED_PRICES);
    blocks.push(Block::Note(format!(
        "Tornado: each driver alone at its low and its high, the others at their point values, the widest \
         swing first. Each driver multiplies what the switched fleet costs (today's cost is what is paid){}:",
        if today_side {
            "; unstated prices multiplies the part of today's cost charged at a price nobody stated"
        } else {
            ""
        }
    )));
    blocks.push(Block::Table(table));
    for driver in &w.drivers {
        blocks.push(Block::Note(format!(
            "{} (×{:.2} at the point): {}.",
            driver.driver.replace('_', " "),
            driver.spread.mode,
            driver.basis
        )));
    }
    blocks
}

/// When the saving arrives: the first year against the run rate, the payback, month by month.
fn timeline_blocks(months: &[TimelineMonth], t: &Timing) -> Vec<Block> {
    let mut table = Table::new(&[
        ("month", Align::Left),
        ("cost", Align::Right),
        ("saving", Align::Right),
        ("cumulative", Align::Right),
    ]);
    for m in months {
        table.row(vec![
            m.month.clone(),
            usd(m.cost_usd),
            usd_signed(m.saving_usd),
            usd_signed(m.cumulative_saving_usd),
        ]);
    }
    let free: Vec<String> = t
        .clusters_free_from
        .iter()
        .map(|(name, month)| format!("{name} {month}"))
        .collect();
    vec![
        Block::Facts(vec![
            (
                "first year".into(),
                format!(
                    "{} cash saving, against a run rate of {}/year once every cluster has moved",
                    usd_signed(t.first_year_saving_usd),
                    usd(t.run_rate_usd_per_year)
                ),
            ),
            (
                "moving once".into(),
                format!(
                    "{} ({}), paid back {}",
                    usd(t.moving.one_off_usd()),
                    t.moving.basis,
                    t.payback_month
                        .as_deref()
                        .map_or("not within the timeline".to_string(), |m| format!("in {m}"))
                ),
            ),
            ("free to move".into(), free.join(", ")),
        ]),
        Block::Note(
            "Each cluster costs what it costs today until its commitment ends (the plan's commitment_ends; \
             without one, a 1-year term a full year from now, build-to-order three, monthly one, by the hour \
             none), then its share of the switched fleet, with today's cost beside it for the months of dual \
             running; the one-off costs fall in the month of the first move."
                .to_string(),
        ),
        Block::Table(table),
    ]
}

/// The board's checks of its own conclusions, beside the headline: how many hold, and each
/// that fails flagged with what it measured.
fn check_blocks(w: &Waterfall) -> Vec<Block> {
    if w.checks.is_empty() {
        return Vec::new();
    }
    let failing: Vec<_> = w.checks.iter().filter(|c| !c.holds).collect();
    let mut blocks = vec![Block::Facts(vec![(
        "checks".into(),
        if failing.is_empty() {
            format!(
                "all {} checks of judgment hold (docs/board.md, \"Checks of judgment\")",
                w.checks.len()
            )
        } else {
            format!(
                "{} of {} checks of judgment fail (docs/board.md, \"Checks of judgment\")",
                failing.len(),
                w.checks.len()
            )
        },
    )])];
    blocks.extend(
        failing
            .into_iter()
            .map(|c| Block::Note(format!("⚑ {}: {}.", c.id, c.detail))),
    );
    blocks
}

/// The saving over its causes, credited independently of the steps' order.
fn attribution_blocks(w: &Waterfall) -> Vec<Block> {
    let mut table = Table::new(&[
        ("cause", Align::Left),
        ("saving/year", Align::Right),
        ("share", Align::Right),
    ]);
    let credited: f64 = w.attribution.iter().map(|a| a.usd_per_year).sum();
    for a in &w.attribution {
        let share = if credited.abs() > 0.0 {
            let percent = 100.0 * a.usd_per_year / credited;
            format!("{}{:.1} %", if percent < 0.0 { "−" } else { "" }, percent.abs())
        } else {
            "-".to_string()
        };
        table.row(vec![a.cause.label().to_string(), usd_signed(a.usd_per_year), share]);
    }
    let mut blocks = vec![
        Block::Note(
            "Causes, credited independently of order: each cause's mean saving over the 120 orders the five \
             could be applied in (Shapley values). Paying for demand by the hour makes right-sizing moot, so \
             the two share that overlap; the price step's credit does not depend on coming last."
                .to_string(),
        ),
        Block::Table(table),
    ];
    if (credited - w.saving_usd_per_year).abs() > 1.0 {
        blocks.push(Block::Note(format!(
            "The causes account for {}/year of the {}/year saving: a class no offer matched stays at its \
             right-sized cost here, while the waterfall's later steps leave it out.",
            usd(credited),
            usd(w.saving_usd_per_year)
        )));
    }
    blocks
}

/// Staying with today's providers beside switching, and each cluster's stay.
fn alternatives_blocks(w: &Waterfall) -> Vec<Block> {
    let mut ends = Table::new(&[
        ("end state", Align::Left),
        ("cost/month", Align::Right),
        ("saving/year", Align::Right),
    ]);
    for a in &w.alternatives {
        ends.row(vec![
            a.name.to_string(),
            usd(a.usd_per_month),
            usd(a.saving_usd_per_year),
        ]);
    }
    let mut stays = Table::new(&[
        ("cluster", Align::Left),
        ("provider", Align::Left),
        ("today/month", Align::Right),
        ("stay/month", Align::Right),
        ("terms", Align::Left),
    ]);
    let mut blocks = vec![Block::Table(ends)];
    if let Some(stay) = w.alternative("stay") {
        for c in &stay.clusters {
            let mut terms: Vec<String> = c
                .committed
                .iter()
                .filter(|(_, gpus, _)| *gpus >= 0.5)
                .map(|(term, gpus, usd_per_hour)| {
                    format!("{} {} GPUs at ${usd_per_hour:.2}", term.label(), thousands(*gpus))
                })
                .collect();
            if let Some(hourly) = c.hourly_usd_per_gpu_hour {
                terms.push(format!("above: hourly ${hourly:.2}"));
            }
            if let Some(why) = &c.kept_as_today {
                terms.push(format!("as paid today: {why}"));
            }
            if let Some(why) = &c.on_own_terms {
                terms.push(format!("its own price and term: {why}"));
            }
            stays.row(vec![
                c.name.clone(),
                c.provider.clone().unwrap_or_else(|| "-".to_string()),
                usd(c.today_usd_per_month),
                usd(c.usd_per_month),
                terms.join("; "),
            ]);
        }
        blocks.push(Block::Note(format!("stay: {}.", stay.basis)));
        blocks.push(Block::Table(stays));
    }
    if let Some(adds) = w.switching_adds_usd_per_year() {
        blocks.push(Block::Facts(vec![(
            "switching adds".into(),
            format!("{}/year on top of staying", usd(adds)),
        )]));
    }
    blocks
}

fn normalization_text(class: &ClassContracts) -> String {
    class
        .normalization
        .iter()
        .map(|n| {
            if n.known {
                format!("{} ×{:.2}", n.from, n.factor)
            } else {
                format!("{} ×1 (peak unknown)", n.from)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn accelerator_table(c: &ContractsReport) -> Table {
    let mut table = Table::new(&[
        ("class", Align::Left),
        ("accelerator", Align::Left),
        ("cost/month", Align::Right),
        ("runner-up", Align::Left),
        ("cost/month", Align::Right),
        ("today's GPUs as", Align::Left),
        ("$/M tokens", Align::Right),
    ]);
    for class in &c.classes {
        table.row(vec![
            class.class.label().to_string(),
            class.accelerator.clone(),
            usd(class.cost_usd_per_month),
            class.runner_up.as_ref().map_or("-".into(), |r| r.accelerator.clone()),
            class
                .runner_up
                .as_ref()
                .map_or("-".into(), |r| usd(r.cost_usd_per_month)),
            normalization_text(class),
            class.usd_per_million_tokens.map_or("-".into(), |v| format!("${v:.3}")),
        ]);
    }
    table
}

fn term_mix_table(c: &ContractsReport) -> Table {
    let mut table = Table::new(&[
        ("class", Align::Left),
        ("accelerator", Align::Left),
        ("clusters", Align::Left),
        ("today $/delivered GPU-h", Align::Right),
        ("factor", Align::Right),
        ("best mix", Align::Left),
        ("cost/month", Align::Right),
    ]);
    for class in &c.classes {
        for group in &class.today_prices {
            let mix: Vec<String> = group
                .best_mix
                .iter()
                .map(|m| format!("{} {}", thousands(m.gpus), m.term.label()))
                .collect();
            table.row(vec![
                class.class.label().to_string(),
                group.accelerator.clone(),
                group.clusters.join(", "),
                format!("${:.2}", group.today_effective_usd_per_gpu_hour),
                group.price_factor.map_or("-".into(), |f| format!("×{f:.2}")),
                if mix.is_empty() {
                    group.note.clone().unwrap_or_default()
                } else {
                    mix.join(" + ")
                },
                usd(group.cost_usd_per_month),
            ]);
        }
    }
    table
}

fn mix_table(c: &ContractsReport) -> Table {
    let mut table = Table::new(&[
        ("class", Align::Left),
        ("peak equiv. GPUs", Align::Right),
        ("best mix", Align::Left),
        ("cost/month", Align::Right),
        ("idle committed GPU-h", Align::Right),
    ]);
    for class in &c.classes {
        let mix: Vec<String> = class
            .best_mix
            .iter()
            .map(|m| {
                format!(
                    "{} GPUs {} ({}, {})",
                    thousands(m.gpus),
                    m.term.label(),
                    m.offer_id,
                    m.deployment.label()
                )
            })
            .collect();
        table.row(vec![
            format!("{} on {}", class.class.label(), class.accelerator),
            thousands(class.peak_gpus),
            mix.join(" + "),
            usd(class.cost_usd_per_month),
            thousands(class.unused_committed_gpu_hours),
        ]);
    }
    table
}

fn pure_table(c: &ContractsReport) -> Table {
    let mut pure = Table::new(&[
        ("class", Align::Left),
        ("term", Align::Left),
        ("offer", Align::Left),
        ("cost over the window", Align::Right),
    ]);
    for class in &c.classes {
        for p in &class.pure_terms {
            pure.row(vec![
                class.class.label().to_string(),
                p.term.label().to_string(),
                p.offer_id.clone(),
                usd(p.cost_usd),
            ]);
        }
    }
    pure
}

/// Per class: its largest gang, the offers of its accelerator left out and why, and the supply
/// its chosen offers' sellers do not state (taken on trust).
fn supply_notes(c: &ContractsReport) -> Vec<Block> {
    let mut notes = Vec::new();
    for class in &c.classes {
        let mut parts = Vec::new();
        if let Some(gang) = class.largest_gang_gpus {
            parts.push(format!("largest gang {gang:.0} GPUs of {}", class.accelerator));
        }
        let left_out: Vec<String> = class
            .exclusions_by_reason()
            .into_iter()
            .map(|(reason, offers)| format!("{} ({reason})", offers.join(", ")))
            .collect();
        if !left_out.is_empty() {
            parts.push(format!("Left out: {}", left_out.join("; ")));
        }
        if !class.assumed_supply.is_empty() {
            parts.push(format!("Taken on trust: {}", class.assumed_supply.join("; ")));
        }
        if !parts.is_empty() {
            notes.push(Block::Note(format!(
                "{} on {}: {}.",
                class.class.label(),
                class.accelerator,
                parts.join(". ")
            )));
        }
    }
    notes
}

/// Accelerators a class cannot run on, and why, one note per class.
fn ruled_out_notes(c: &ContractsReport) -> Vec<Block> {
    c.classes
        .iter()
        .filter_map(|class| {
            let out: Vec<String> = class
                .options
                .iter()
                .filter_map(|o| o.why_not.as_ref().map(|why| format!("{} ({why})", o.accelerator)))
                .collect();
            (!out.is_empty()).then(|| Block::Note(format!("{} cannot use: {}.", class.class.label(), out.join("; "))))
        })
        .collect()
}

pub fn contracts_section(contracts: Option<&ContractsReport>) -> Section {
    let Some(c) = contracts else {
        return Section {
            title: "Contracts".into(),
            blocks: vec![Block::Note(
                "No logs: add [[logs]] to the plan or pass --logs to match each class's demand to monthly, \
                 year-long and build-to-order terms."
                    .into(),
            )],
        };
    };
    let mut blocks = vec![
        Block::Note(format!(
            "Each class on the catalog's cheapest feasible accelerator. Demand: hourly concurrent GPUs over the \
             audit's {:.0}-day window, in delivered capability (VM {:.0} %, bare metal {:.0} % of the hardware) \
             and carried between accelerators by dense BF16 peak (inference by memory bandwidth, which bounds \
             decoding). Offers left out (a gang its nodes cannot join; a stated lead time over {} weeks, {}) \
             and supply taken on trust are listed under the mixes.",
            c.window_days,
            crate::model::deployment::Deployment::Vm.delivered_capability_frac() * 100.0,
            crate::model::deployment::Deployment::BareMetal.delivered_capability_frac() * 100.0,
            thousands(c.needed_within_weeks),
            if c.needed_within_weeks_assumed {
                "assumed: the plan's [moving] gives no needed_within_weeks"
            } else {
                "the plan's [moving] needed_within_weeks"
            }
        )),
        Block::Table(accelerator_table(c)),
    ];
    if let Some(model) = &c.served_model {
        blocks.push(Block::Note(format!(
            "Inference must hold the plan's model in one node: {} parameters × {} bytes + fragmentation = {:.0} GB.",
            crate::shared::format::si(model.params),
            model.bytes_per_param,
            model.required_gb
        )));
    }
    blocks.extend(ruled_out_notes(c));
    blocks.push(Block::Table(mix_table(c)));
    blocks.push(Block::Note(
        "peak equiv. GPUs: in GPUs of the class's accelerator, today's GPUs converted by delivered capability.".into(),
    ));
    blocks.extend(supply_notes(c));
    blocks.push(Block::Note(
        "At today's prices (the waterfall's term-mix step): each class on the accelerators it runs on, the \
         catalog's terms scaled by the factor so its cheapest offer of the cluster's term costs today's price:"
            .into(),
    ));
    blocks.push(Block::Table(term_mix_table(c)));
    blocks.push(Block::Facts(vec![
        (
            "today, consolidated".into(),
            format!("{}/month", usd(c.consolidated_usd_per_month)),
        ),
        (
            "workload-matched".into(),
            format!(
                "{}/month: each class's best mix above, before the split's correction (waterfall step 5)",
                usd(c.matched_usd_per_month)
            ),
        ),
    ]));
    if !c.fallback_price_clusters.is_empty() {
        blocks.push(Block::Note(fallback_note(c)));
    }
    if !c.list_priced_clusters.is_empty() {
        blocks.push(Block::Note(format!(
            "Not in the plan, priced at the list price of the accelerator their log names (an assumption to confirm): {}. Add them to [[clusters]] with their real price (`gpuplan plan new --logs` writes a starting plan).",
            crate::model::waterfall::list_priced(c)
        )));
    }
    for class in &c.classes {
        if let Some(p) = &class.pending {
            blocks.push(Block::Note(format!(
                "Pending demand (flagged, not in the waterfall): {} {} jobs that never started asked for {} GPU-hours;                  served on {} as well, the best mix costs {}/month, {} more.",
                thousands(p.jobs as f64),
                class.class.label(),
                thousands(p.gpu_hours_requested),
                class.accelerator,
                usd(p.cost_usd_per_month),
                usd(p.extra_usd_per_month)
            )));
        }
    }
    blocks.push(Block::Note("Each pure term alone, on the chosen accelerator:".into()));
    blocks.push(Block::Table(pure_table(c)));
    for problem in &c.unmatched {
        blocks.push(Block::Note(format!("not matched: {problem}")));
    }
    Section {
        title: "Contracts (board view)".into(),
        blocks,
    }
}

/// Which clusters the plan does not list, and the rate they were priced at.
pub fn fallback_note(c: &ContractsReport) -> String {
    let rate = c
        .fallback_price
        .as_ref()
        .map_or(String::new(), |(usd_per_hour, source)| {
            format!(" at {}/GPU-h ({source})", usd_compact(*usd_per_hour))
        });
    format!(
        "Not in the plan, priced at the fallback rate{rate}: {}. Add them to [[clusters]] with their real price.",
        c.fallback_price_clusters.join(", ")
    )
}
