use super::super::{BillMatcher, BillPlan};
use super::*;

const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

fn by_tag(line: &BillLine) -> Assignment<'_> {
    match line.cluster_tag.as_deref() {
        Some(name) => Assignment::Cluster {
            name,
            also_matched: false,
        },
        None => Assignment::Unassigned,
    }
}

fn tagged(mut line: BillLine, cluster: &str) -> BillLine {
    line.cluster_tag = Some(cluster.into());
    line
}

#[test]
fn share_in_window_prorates_the_edges_and_places_instants() {
    assert!(close(share_in_window(0, 4 * DAY, DAY, 10 * DAY), 0.75));
    assert!(close(share_in_window(2 * DAY, 3 * DAY, DAY, 10 * DAY), 1.0));
    assert!(close(share_in_window(9 * DAY, 11 * DAY, DAY, 10 * DAY), 0.5));
    assert!(close(share_in_window(10 * DAY, 11 * DAY, DAY, 10 * DAY), 0.0));
    assert!(close(share_in_window(DAY, DAY, DAY, 10 * DAY), 1.0));
    assert!(close(share_in_window(10 * DAY, 10 * DAY, DAY, 10 * DAY), 0.0));
}

/// A 10-day window (240 h) on a 730-hour month, one cluster "east" with 8 H100s modelled
/// at $2.00 an hour ($11,680 a month). Worked by hand:
///
/// | line | period | billed | effective | share | counts as |
/// |---|---|---|---|---|---|
/// | commitment purchase (upfront) | day 0 (instant) | 5,000 | 0 | 1 | purchase |
/// | commitment used, 8 GPU × 48 h | days 1–3 | 0 | 480 | 1 | commitment used, 384 GPU-h |
/// | commitment unused | days 3–5 | 0 | 160 | 1 | commitment unused |
/// | on-demand, 8 GPU × 96 h | days 8–12 | 3,072 | 3,072 | 0.5 | on-demand, 384 GPU-h |
/// | tax | days 0–10 | 300 | 300 | 1 | tax |
/// | credit | days 0–10 | −100 | −100 | 1 | credit |
/// | before the window | days −5 to −1 | 50 | 50 | 0 | outside |
/// | untagged on-demand | days 0–10 | 20 | 20 | 1 | unassigned |
///
/// east over the window: billed 5,000 + 0 + 0 + 1,536 + 300 − 100 = 6,736;
/// effective 0 + 480 + 160 + 1,536 + 300 − 100 = 2,376. Per month × 730 / 240:
/// billed 20,488.67, effective 7,227. Gap (effective) 7,227 − 11,680 = −4,453 (−38.125 %).
#[test]
fn a_worked_bill() {
    let purchase = BillLine {
        pricing_category: Some(PricingCategory::Standard),
        ..BillLine::new(0, 0, 5_000.0, 0.0, ChargeCategory::Purchase)
    };
    let used = BillLine {
        pricing_category: Some(PricingCategory::Committed),
        commitment_discount_status: Some(UsageStatus::Used),
        consumed_hours: Some((HoursUnit::Gpu, 384.0)),
        ..BillLine::new(DAY, 3 * DAY, 0.0, 480.0, ChargeCategory::Usage)
    };
    let unused = BillLine {
        pricing_category: Some(PricingCategory::Committed),
        commitment_discount_status: Some(UsageStatus::Unused),
        ..BillLine::new(3 * DAY, 5 * DAY, 0.0, 160.0, ChargeCategory::Usage)
    };
    let on_demand = BillLine {
        pricing_category: Some(PricingCategory::Standard),
        consumed_hours: Some((HoursUnit::Gpu, 768.0)),
        ..BillLine::new(8 * DAY, 12 * DAY, 3_072.0, 3_072.0, ChargeCategory::Usage)
    };
    let tax = BillLine::new(0, 10 * DAY, 300.0, 300.0, ChargeCategory::Tax);
    let credit = BillLine::new(0, 10 * DAY, -100.0, -100.0, ChargeCategory::Credit);
    let before = BillLine::new(-5 * DAY, -DAY, 50.0, 50.0, ChargeCategory::Usage);
    let untagged = BillLine {
        pricing_category: Some(PricingCategory::Dynamic),
        ..BillLine::new(0, 10 * DAY, 20.0, 20.0, ChargeCategory::Usage)
    };
    let lines: Vec<BillLine> = [purchase, used, unused, on_demand, tax, credit, before]
        .into_iter()
        .map(|l| tagged(l, "east"))
        .chain([untagged])
        .collect();
    let modelled = BTreeMap::from([("east".to_string(), 8.0 * 2.0 * 730.0)]);
    let r = bill_report(&lines, BillWindow::audit(0, 10 * DAY), 730.0, by_tag, &modelled);

    assert!(close(r.window_hours, 240.0));
    assert_eq!(r.clusters.len(), 1);
    let east = &r.clusters[0];
    assert_eq!((east.lines, east.prorated_lines), (6, 1));
    let w = &east.window;
    assert!(close(w.total.billed_usd, 6_736.0));
    assert!(close(w.total.effective_usd, 2_376.0));
    assert!(close(w.purchase.billed_usd, 5_000.0) && close(w.purchase.effective_usd, 0.0));
    assert!(close(w.commitment_used.effective_usd, 480.0));
    assert!(close(w.commitment_unused.effective_usd, 160.0));
    assert!(close(w.unused().effective_usd, 160.0));
    assert!(close(w.on_demand.billed_usd, 1_536.0));
    assert!(close(w.tax.effective_usd, 300.0));
    assert!(close(w.credit.billed_usd, -100.0));
    assert_eq!(east.gpu_hours, Some(768.0));
    assert_eq!(east.resource_hours, None);

    let m = &east.per_month;
    assert!(close(m.total.billed_usd, 6_736.0 * 730.0 / 240.0));
    assert!((m.total.billed_usd - 20_488.67).abs() < 0.01);
    assert!(close(m.total.effective_usd, 7_227.0));
    let gap = east.gap.expect("modelled");
    assert!(close(gap.effective_usd_per_month, -4_453.0));
    assert!(close(gap.effective_frac.expect("frac"), -0.38125));

    assert_eq!(r.unassigned.lines, 1);
    assert!(close(r.unassigned.window.on_demand.billed_usd, 20.0));
    assert_eq!(r.outside_window.lines, 1);
    assert!(close(r.outside_window.cost.billed_usd, 50.0));
    assert_eq!(r.outside_window.earliest_start_ms, Some(-5 * DAY));
    assert_eq!(r.fleet.lines, 7);
    assert!(close(r.fleet.window.total.billed_usd, 6_756.0));
    assert!(close(r.fleet.window.total.effective_usd, 2_396.0));
}

#[test]
fn the_parts_add_up_to_the_total_both_ways() {
    let mut lines = Vec::new();
    for (i, category) in ChargeCategory::NAMES.iter().map(|(c, _)| *c).enumerate() {
        let statuses = [None, Some(UsageStatus::Used), Some(UsageStatus::Unused)];
        for commitment in statuses {
            for reservation in statuses {
                lines.push(BillLine {
                    commitment_discount_status: commitment,
                    capacity_reservation_status: reservation,
                    pricing_category: Some(PricingCategory::Dynamic),
                    ..BillLine::new(0, HOUR, 10.0 + i as f64, 3.0 * i as f64, category)
                });
            }
        }
    }
    let r = bill_report(
        &lines,
        BillWindow::audit(0, HOUR),
        730.0,
        |_| Assignment::Unassigned,
        &BTreeMap::new(),
    );
    let w = r.unassigned.window;
    let parts = &w.parts()[1..];
    let billed: f64 = parts.iter().map(|c| c.billed_usd).sum();
    let effective: f64 = parts.iter().map(|c| c.effective_usd).sum();
    assert!(close(billed, w.total.billed_usd));
    assert!(close(effective, w.total.effective_usd));
    assert!(
        w.reservation_unused.billed_usd > 0.0,
        "a reservation without a commitment status"
    );
}

#[test]
fn a_modelled_cluster_without_lines_shows_the_whole_gap() {
    let modelled = BTreeMap::from([("idle".to_string(), 1_000.0)]);
    let r = bill_report(
        &[],
        BillWindow::audit(0, DAY),
        730.0,
        |_| Assignment::Unassigned,
        &modelled,
    );
    let gap = r.clusters[0].gap.expect("modelled");
    assert!(close(gap.effective_usd_per_month, -1_000.0));
    assert_eq!(gap.effective_frac, Some(-1.0));
}

#[test]
fn unknown_tags_are_counted_in_the_unassigned_bucket() {
    let matcher = BillMatcher::new(Some(&BillPlan::default()), ["east".to_string()]).expect("valid");
    let lines = vec![
        tagged(BillLine::new(0, HOUR, 1.0, 1.0, ChargeCategory::Usage), "east"),
        tagged(BillLine::new(0, HOUR, 2.0, 2.0, ChargeCategory::Usage), "weast"),
        tagged(BillLine::new(0, HOUR, 3.0, 3.0, ChargeCategory::Usage), "weast"),
    ];
    let r = bill_report(
        &lines,
        BillWindow::audit(0, HOUR),
        730.0,
        |l| matcher.assign(l),
        &BTreeMap::new(),
    );
    assert_eq!(r.clusters[0].lines, 1);
    assert_eq!(r.unassigned.lines, 2);
    assert_eq!(r.unknown_tags, vec![("weast".to_string(), 2)]);
}

/// The bill alone over its own billing period, January (744 h), in the shape of the FOCUS
/// specification's commitment-discount examples: a one-year commitment bought at once for
/// $8,760 (its charge period is the year), an hour of it used ($0.75 effective) and unused
/// ($0.25), an hour on demand at $0.50. Every line counts whole: the purchase's cash is
/// January's, as invoiced.
#[test]
fn a_bill_alone_counts_every_line_whole_over_its_billing_period() {
    let january = (0, 31 * DAY);
    let in_january = |line: BillLine| BillLine {
        billing_period_ms: Some(january),
        ..line
    };
    let lines: Vec<BillLine> = [
        BillLine::new(0, 365 * DAY, 8_760.0, 0.0, ChargeCategory::Purchase),
        BillLine {
            commitment_discount_status: Some(UsageStatus::Used),
            ..BillLine::new(0, HOUR, 0.0, 0.75, ChargeCategory::Usage)
        },
        BillLine {
            commitment_discount_status: Some(UsageStatus::Unused),
            ..BillLine::new(0, HOUR, 0.0, 0.25, ChargeCategory::Usage)
        },
        BillLine {
            pricing_category: Some(PricingCategory::Standard),
            ..BillLine::new(0, HOUR, 0.5, 0.5, ChargeCategory::Usage)
        },
    ]
    .into_iter()
    .map(in_january)
    .collect();
    let window = BillWindow::own(&lines).expect("lines");
    assert_eq!(
        window,
        BillWindow {
            start_ms: 0,
            end_ms: 31 * DAY,
            basis: WindowBasis::BillingPeriod
        }
    );
    let r = bill_report(&lines, window, 730.0, |_| Assignment::Unassigned, &BTreeMap::new());
    assert!(close(r.window_hours, 744.0));
    assert_eq!(
        (r.fleet.lines, r.fleet.prorated_lines, r.outside_window.lines),
        (4, 0, 0)
    );
    assert_eq!(r.charged_beyond_window, 1);
    let w = &r.fleet.window;
    assert!(close(w.total.billed_usd, 8_760.5));
    assert!(close(w.total.effective_usd, 1.5));
    assert!(close(w.purchase.billed_usd, 8_760.0));
    assert!(close(w.commitment_used.effective_usd, 0.75));
    assert!(close(w.commitment_unused.effective_usd, 0.25));
    assert!(close(w.on_demand.billed_usd, 0.5));
    assert!(close(r.fleet.per_month.total.billed_usd, 8_760.5 * 730.0 / 744.0));
    assert!(r.fleet.gap.is_none(), "nothing modelled, nothing compared");

    // Over a log's window of the same January, the purchase counts by its charge period.
    let audit = bill_report(
        &lines,
        BillWindow::audit(0, 31 * DAY),
        730.0,
        |_| Assignment::Unassigned,
        &BTreeMap::new(),
    );
    assert!(close(audit.fleet.window.purchase.billed_usd, 8_760.0 * 31.0 / 365.0));
    assert_eq!(audit.charged_beyond_window, 0);
}

#[test]
fn without_billing_periods_the_bill_spans_its_charge_periods() {
    assert_eq!(BillWindow::own(&[]), None);
    let lines = [
        BillLine::new(DAY, 2 * DAY, 1.0, 1.0, ChargeCategory::Usage),
        BillLine::new(3 * DAY, 5 * DAY, 2.0, 2.0, ChargeCategory::Usage),
    ];
    let window = BillWindow::own(&lines).expect("lines");
    assert_eq!((window.start_ms, window.end_ms), (DAY, 5 * DAY));
    assert_eq!(window.basis, WindowBasis::ChargePeriod);

    // One line without a billing period: the span covers both kinds of period.
    let mixed = [
        BillLine {
            billing_period_ms: Some((0, 31 * DAY)),
            ..BillLine::new(DAY, 2 * DAY, 1.0, 1.0, ChargeCategory::Usage)
        },
        BillLine::new(40 * DAY, 41 * DAY, 2.0, 2.0, ChargeCategory::Usage),
    ];
    let window = BillWindow::own(&mixed).expect("lines");
    assert_eq!(
        (window.start_ms, window.end_ms, window.basis),
        (0, 41 * DAY, WindowBasis::ChargePeriod)
    );
    let r = bill_report(&mixed, window, 730.0, |_| Assignment::Unassigned, &BTreeMap::new());
    assert_eq!((r.fleet.lines, r.outside_window.lines), (2, 0));

    // Instants only: an empty window, every line still counted, nothing per month.
    let instants = [BillLine::new(DAY, DAY, 5.0, 0.0, ChargeCategory::Purchase)];
    let window = BillWindow::own(&instants).expect("lines");
    let r = bill_report(&instants, window, 730.0, |_| Assignment::Unassigned, &BTreeMap::new());
    assert_eq!(r.fleet.lines, 1);
    assert!(close(r.fleet.window.total.billed_usd, 5.0));
    assert!(close(r.fleet.per_month.total.billed_usd, 0.0));
}

#[test]
fn skus_sum_every_line_in_the_window_largest_first() {
    let line = |provider: Option<&str>, sku: Option<&str>, billed: f64, effective: f64| BillLine {
        provider: provider.map(Into::into),
        sku_id: sku.map(Into::into),
        ..BillLine::new(0, HOUR, billed, effective, ChargeCategory::Usage)
    };
    let lines = [
        line(Some("AWS"), Some("p5"), 10.0, 10.0),
        line(Some("AWS"), Some("sp"), 500.0, 0.0),
        line(Some("AWS"), Some("p5"), 20.0, 20.0),
        line(Some("Azure"), Some("p5"), 1.0, 1.0),
        line(None, None, 3.0, 3.0),
        BillLine::new(2 * HOUR, 3 * HOUR, 99.0, 99.0, ChargeCategory::Usage),
    ];
    let r = bill_report(
        &lines,
        BillWindow::audit(0, HOUR),
        730.0,
        |_| Assignment::Unassigned,
        &BTreeMap::new(),
    );
    let skus: Vec<(Option<&str>, Option<&str>, u64, f64)> = r
        .skus
        .iter()
        .map(|s| {
            (
                s.provider.as_deref(),
                s.sku_id.as_deref(),
                s.lines,
                s.window.total.billed_usd,
            )
        })
        .collect();
    assert_eq!(
        skus,
        [
            (Some("AWS"), Some("sp"), 1, 500.0),
            (Some("AWS"), Some("p5"), 2, 30.0),
            (None, None, 1, 3.0),
            (Some("Azure"), Some("p5"), 1, 1.0),
        ]
    );
    assert!(close(r.skus[1].per_month.total.effective_usd, 30.0 * 730.0));
    let (count, rest) = r.other_skus(2).expect("two more");
    assert_eq!((count, rest.lines), (2, 2));
    assert!(close(rest.window.total.billed_usd, 4.0));
    assert!(r.other_skus(4).is_none());
}
