//! Money that may be unknown (a cluster's idle spend where no utilization splits what its jobs
//! held): "unknown" in text, never $0.00, and sums that say what they leave out.

pub(super) use crate::model::fleet::KnownSum;
use crate::shared::format::{count_of, usd};

/// A monthly figure, or "unknown".
pub(super) fn known_usd(value: Option<f64>) -> String {
    value.map_or_else(|| "unknown".to_string(), usd)
}

/// The sum of the known figures, as `model::fleet::KnownSum` counts them.
pub(super) fn known_sum(values: impl Iterator<Item = Option<f64>>) -> KnownSum {
    KnownSum::of(values)
}

/// A sum in words: "$1,234 per month across clusters", "unknown …" when nothing is known, and
/// the clusters left out of a partial sum named by their count.
pub(super) trait PerMonthText {
    fn per_month_text(&self, what: &str) -> String;
}

impl PerMonthText for KnownSum {
    fn per_month_text(&self, what: &str) -> String {
        if self.all_unknown() {
            return "unknown: no utilization tells idle from busy".to_string();
        }
        let mut text = format!("{} per month {what}", usd(self.total));
        if self.unknown > 0 {
            text.push_str(&format!(
                " (unknown on {}: no utilization)",
                count_of(self.unknown as u64, "cluster", "clusters")
            ));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_is_said_never_summed_as_zero() {
        assert_eq!(known_usd(None), "unknown");
        assert_eq!(known_usd(Some(12.5)), "$12.50");
        let all_unknown = known_sum([None, None].into_iter());
        assert_eq!(
            all_unknown.per_month_text("idle"),
            "unknown: no utilization tells idle from busy"
        );
        let partial = known_sum([Some(1_000.0), None].into_iter());
        assert_eq!(
            partial.per_month_text("idle"),
            "$1,000 per month idle (unknown on 1 cluster: no utilization)"
        );
        assert_eq!(
            known_sum([Some(5.0), Some(7.0)].into_iter()).per_month_text("x"),
            "$12.00 per month x"
        );
    }
}
