//! Capacity: a segment tree over time buckets with range add and "rightmost bucket above", on
//! which every row is placed so that no instant holds more GPUs than the cluster has.

/// Milli-GPUs held per bucket. `max[node]` is the largest load in the node's range counting
/// the adds at the node and below (not its ancestors), so no lazy push-down is needed.
pub(super) struct Occupancy {
    pub(super) buckets: usize,
    leaves: usize,
    max: Vec<i64>,
    add: Vec<i64>,
}

impl Occupancy {
    pub(super) fn new(buckets: usize) -> Self {
        let leaves = buckets.max(1).next_power_of_two();
        Occupancy {
            buckets,
            leaves,
            max: vec![0; 2 * leaves],
            add: vec![0; 2 * leaves],
        }
    }

    /// Adds `value` to the buckets `lo..hi`.
    pub(super) fn add(&mut self, lo: usize, hi: usize, value: i64) {
        self.add_in(1, (0, self.leaves), (lo, hi), value);
    }

    fn add_in(&mut self, node: usize, (node_lo, node_hi): (usize, usize), (lo, hi): (usize, usize), value: i64) {
        if hi <= node_lo || node_hi <= lo {
            return;
        }
        if lo <= node_lo && node_hi <= hi {
            self.max[node] += value;
            self.add[node] += value;
            return;
        }
        let mid = (node_lo + node_hi) / 2;
        self.add_in(2 * node, (node_lo, mid), (lo, hi), value);
        self.add_in(2 * node + 1, (mid, node_hi), (lo, hi), value);
        self.max[node] = self.max[2 * node].max(self.max[2 * node + 1]) + self.add[node];
    }

    /// The last bucket in `lo..hi` whose load exceeds `threshold`.
    pub(super) fn rightmost_above(&self, lo: usize, hi: usize, threshold: i64) -> Option<usize> {
        self.rightmost_in(1, (0, self.leaves), (lo, hi), threshold, 0)
    }

    /// `above`: the adds of the node's ancestors.
    fn rightmost_in(
        &self,
        node: usize,
        (node_lo, node_hi): (usize, usize),
        (lo, hi): (usize, usize),
        threshold: i64,
        above: i64,
    ) -> Option<usize> {
        if hi <= node_lo || node_hi <= lo || self.max[node] + above <= threshold {
            return None;
        }
        if node_hi - node_lo == 1 {
            return Some(node_lo);
        }
        let mid = (node_lo + node_hi) / 2;
        let above = above + self.add[node];
        self.rightmost_in(2 * node + 1, (mid, node_hi), (lo, hi), threshold, above)
            .or_else(|| self.rightmost_in(2 * node, (node_lo, mid), (lo, hi), threshold, above))
    }
}
