//! A sum over clusters of money that may be unknown (idle, busy and stranded spend where no
//! utilization splits what the jobs held): the known part and how many were left out, so no
//! face adds an unknown as 0.

/// The sum of the known figures and how many were unknown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KnownSum {
    pub total: f64,
    pub known: usize,
    pub unknown: usize,
}

impl KnownSum {
    pub fn of(values: impl Iterator<Item = Option<f64>>) -> KnownSum {
        values.fold(
            KnownSum {
                total: 0.0,
                known: 0,
                unknown: 0,
            },
            |sum, value| match value {
                Some(v) => KnownSum {
                    total: sum.total + v,
                    known: sum.known + 1,
                    ..sum
                },
                None => KnownSum {
                    unknown: sum.unknown + 1,
                    ..sum
                },
            },
        )
    }

    /// Nothing known: every figure summed was unknown.
    pub fn all_unknown(&self) -> bool {
        self.known == 0 && self.unknown > 0
    }
}

impl super::AuditReport {
    /// The fleet's stranded spend a month (never allocated + allocated idle), over the clusters
    /// where it is known.
    pub fn stranded_usd_per_month(&self) -> KnownSum {
        KnownSum::of(self.clusters.iter().map(|c| c.spend_parts.stranded_usd_per_month))
    }
}
