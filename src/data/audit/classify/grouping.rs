//! Runs grouped into jobs by their 64-bit job key, jobs numbered in the order they first
//! appear in the log, without sorting all the runs:
//! 1. the runs are scattered into buckets by the key's top bits, in row order;
//! 2. each bucket (a few thousand runs, in cache) is sorted by key on its own, both cores
//!    sharing the buckets; a job's runs end up side by side, its first run first;
//! 3. each job's first row is marked in a bitmap over the rows, and a walk over the bitmap in
//!    row order numbers the jobs.
//!
//! A job of one run (most of them) is its first row alone, so walking the jobs in number order
//! reads the run columns almost in row order.

use rayon::prelude::*;

/// Runs per bucket the scatter aims for: a bucket's sort stays in the core's cache.
const RUNS_PER_BUCKET: usize = 8 << 10;
const MAX_BUCKET_BITS: u32 = 12;

/// One job's rows: its first and, for jobs of several runs, where all lie in `JobRuns::rows`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobSpan {
    pub first_row: u32,
    begin: u32,
    len: u32,
}

/// The runs of each job, jobs in the order of their first rows.
#[derive(Debug)]
pub struct JobRuns {
    /// The rows of the jobs of several runs, each job's together, ascending, in job order.
    rows: Vec<u32>,
    /// The jobs, in the order of their first rows.
    pub spans: Vec<JobSpan>,
}

impl JobRuns {
    /// Groups rows `0..height` by `key_of(row)`.
    pub fn of(height: usize, key_of: impl Fn(usize) -> u64 + Sync) -> JobRuns {
        let bits = (height / RUNS_PER_BUCKET).max(1).ilog2().min(MAX_BUCKET_BITS);
        let bucket_of = |key: u64| if bits == 0 { 0 } else { (key >> (64 - bits)) as usize };
        let buckets = 1usize << bits;

        let mut bounds = vec![0usize; buckets + 1];
        for row in 0..height {
            bounds[bucket_of(key_of(row)) + 1] += 1;
        }
        for bucket in 0..buckets {
            bounds[bucket + 1] += bounds[bucket];
        }
        let mut entries = vec![(0u64, 0u32); height];
        let mut next = bounds.clone();
        for row in 0..height {
            let key = key_of(row);
            let slot = &mut next[bucket_of(key)];
            entries[*slot] = (key, row as u32);
            *slot += 1;
        }
        let mut slices = Vec::with_capacity(buckets);
        let mut rest = entries.as_mut_slice();
        for bucket in 0..buckets {
            let (slice, tail) = rest.split_at_mut(bounds[bucket + 1] - bounds[bucket]);
            slices.push(slice);
            rest = tail;
        }
        slices.into_par_iter().for_each(|slice| slice.sort_unstable());

        // First rows in a bitmap; the jobs of several runs listed by first row.
        let mut first_rows = vec![0u64; height.div_ceil(64)];
        let mut several: Vec<JobSpan> = Vec::new();
        let mut begin = 0;
        while begin < entries.len() {
            let (key, first_row) = entries[begin];
            let len = entries[begin..].iter().take_while(|(k, _)| *k == key).count();
            first_rows[first_row as usize / 64] |= 1 << (first_row % 64);
            if len > 1 {
                several.push(JobSpan {
                    first_row,
                    begin: begin as u32,
                    len: len as u32,
                });
            }
            begin += len;
        }
        several.par_sort_unstable_by_key(|span| span.first_row);

        let jobs: usize = first_rows.iter().map(|word| word.count_ones() as usize).sum();
        let mut spans = Vec::with_capacity(jobs);
        let mut rows = Vec::with_capacity(several.iter().map(|span| span.len as usize).sum());
        let mut several = several.into_iter().peekable();
        for (word_index, &word) in first_rows.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let first_row = (word_index * 64) as u32 + word.trailing_zeros();
                word &= word - 1;
                match several.next_if(|span| span.first_row == first_row) {
                    Some(span) => {
                        let (from, len) = (span.begin as usize, span.len as usize);
                        spans.push(JobSpan {
                            first_row,
                            begin: rows.len() as u32,
                            len: span.len,
                        });
                        rows.extend(entries[from..from + len].iter().map(|&(_, row)| row));
                    }
                    None => spans.push(JobSpan {
                        first_row,
                        begin: 0,
                        len: 1,
                    }),
                }
            }
        }
        JobRuns { rows, spans }
    }

    /// The rows of one job, ascending.
    pub fn rows_of<'a>(&'a self, span: &'a JobSpan) -> &'a [u32] {
        if span.len == 1 {
            std::slice::from_ref(&span.first_row)
        } else {
            &self.rows[span.begin as usize..(span.begin + span.len) as usize]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The grouping by definition: jobs by first row, each with its rows ascending.
    fn expected(keys: &[u64]) -> Vec<Vec<u32>> {
        let mut job_of_key = std::collections::HashMap::new();
        let mut jobs: Vec<Vec<u32>> = Vec::new();
        for (row, &key) in keys.iter().enumerate() {
            let job = *job_of_key.entry(key).or_insert_with(|| {
                jobs.push(Vec::new());
                jobs.len() - 1
            });
            jobs[job].push(row as u32);
        }
        jobs
    }

    fn grouped(keys: &[u64]) -> Vec<Vec<u32>> {
        let runs = JobRuns::of(keys.len(), |row| keys[row]);
        runs.spans.iter().map(|span| runs.rows_of(span).to_vec()).collect()
    }

    #[test]
    fn jobs_are_numbered_by_first_appearance() {
        let keys = [7, 3, 7, u64::MAX, 3, 0, 7];
        assert_eq!(grouped(&keys), [vec![0, 2, 6], vec![1, 4], vec![3], vec![5]]);
        assert!(grouped(&[]).is_empty());
    }

    #[test]
    fn many_buckets_group_alike() {
        // Enough runs for several buckets; keys spread over the top bits, some repeated.
        let keys: Vec<u64> = (0..40_000u64)
            .map(|i| (i % 29_000).wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        assert_eq!(grouped(&keys), expected(&keys));
    }

    proptest! {
        #[test]
        fn grouping_matches_the_definition(keys in prop::collection::vec(prop_oneof![0u64..8, any::<u64>()], 0..300)) {
            prop_assert_eq!(grouped(&keys), expected(&keys));
        }
    }
}
