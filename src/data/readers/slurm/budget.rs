//! How much one sacct file may expand: host names of `NodeList` and tasks of pending job
//! arrays. A fixed amount plus an allowance per row, so that a real export of any size is read
//! whole while a small file of huge lists (`n[00001-99999]` on every line, which took 47 s, or
//! pending arrays `[1-99999]` on every line, which grew past 20 GB) cannot cost minutes or
//! gigabytes.

/// Host names a file may expand before any allowance per row: ten 50,000-node allocations.
pub(super) const HOSTS_PER_FILE: usize = 500_000;
/// Host names each run row adds to the budget: more than a real job's mean allocation.
pub(super) const HOSTS_PER_ROW_ALLOWANCE: usize = 64;
/// Pending array tasks one file may expand into jobs; past it an array row counts as one job.
pub(super) const ARRAY_TASKS_PER_FILE: usize = 200_000;

pub(super) struct ExpansionBudget {
    pub(super) hosts_left: usize,
    pub(super) tasks_left: usize,
    /// The line of the first pending array row left unexpanded, to say so once.
    pub(super) tasks_cut_at: Option<u64>,
}

impl ExpansionBudget {
    pub(super) fn new() -> ExpansionBudget {
        ExpansionBudget {
            hosts_left: HOSTS_PER_FILE,
            tasks_left: ARRAY_TASKS_PER_FILE,
            tasks_cut_at: None,
        }
    }

    /// Adds each run row's allowance of host names.
    pub(super) fn allow_hosts_for_rows(&mut self, rows: usize) {
        self.hosts_left = self
            .hosts_left
            .saturating_add(rows.saturating_mul(HOSTS_PER_ROW_ALLOWANCE));
    }

    /// The note naming the first array row past the budget, if one was.
    pub(super) fn tasks_note(&self, file: &str) -> Option<String> {
        self.tasks_cut_at.map(|line| {
            format!(
                "{file}:{line}: pending job arrays stand for more than {ARRAY_TASKS_PER_FILE} tasks in this file: \
                 from here on an array row counts as one pending job, not one per task"
            )
        })
    }

    /// The note when host names run out.
    pub(super) fn hosts_note() -> String {
        format!(
            "host lists name more hosts than this file's budget ({HOSTS_PER_FILE} plus {HOSTS_PER_ROW_ALLOWANCE} a \
             row): from here on hosts are not mapped to clusters"
        )
    }
}
