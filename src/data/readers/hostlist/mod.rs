//! Slurm host lists and `[hosts]` patterns: mapping GPU hosts (as DCGM/Prometheus name them) to job-log clusters.
//!
//! # Host list syntax (as `sacct`'s `NodeList` and `scontrol show hostnames` write it)
//!
//! - A list is names separated by top-level `,` or whitespace: `gpu[01-02],cpu05,node[7,9-10]`.
//! - A name is literal text with any number of bracket groups: `gpu001`, `gpu[001-004,010]`, `a[1-2]-b[3-4]`.
//! - A group holds comma-separated elements, each a number `7` or an inclusive range `lo-hi`, kept in order.
//! - Zero padding follows the lower bound: values are printed with at least as many digits as `lo` was written
//!   with, so `gpu[08-11]` gives `gpu08`..`gpu11` while `gpu[8-11]` gives `gpu8`..`gpu11`.
//! - Several groups in one name expand as a cartesian product, the first group varying slowest:
//!   `a[1-2]-b[3-4]` gives `a1-b3, a1-b4, a2-b3, a2-b4`.
//! - `None assigned` (any case), `(null)` and blank text (`sacct` for jobs that never ran) are empty lists.
//! - Numbers have at most 18 digits, so every value fits a `u64` and no digit run is scanned further than that.
//!
//! Errors carry a character (not byte) offset into the input.
//!
//! # Matching rules ([`host_matches`], [`HostPatterns`])
//!
//! A pattern is a host list whose literal text may also hold shell wildcards: `*` (any run of characters, also
//! none) and `?` (exactly one character): `dgx[001-016]`, `gpu-*`, `rack[1-2]-*`. Patterns are never expanded:
//! a bracket group matches a run of digits whose value is in one of its ranges and whose spelling is exactly what
//! expansion would print (`gpu[001-016]` matches `gpu007` but not `gpu7`; `gpu[8-11]` does not match `gpu08`).
//! A host matches if any name of the pattern matches the whole host.
//!
//! - Comparison is ASCII case-insensitive, as DNS names are.
//! - A `:port` suffix is removed from the host first (Prometheus `instance` labels: `gpu001:9400`, `[::1]:9400`).
//! - If the full host does not match, its part before the first dot is tried, so `gpu001.cluster.example.com`
//!   matches `gpu00[1-2]`; IP addresses are never shortened (`10` of `10.0.0.5` is not a host name).
//!
//! Matching costs O(len(pattern) × len(host)): pure globs use the two-pointer wildcard algorithm, patterns with
//! brackets a set-of-positions NFA simulation, so `*a*a*a*b` cannot backtrack exponentially.
//!
//! By file: the errors and the bracket syntax both share here, `expand` for host lists,
//! `patterns` for matching hosts against `[hosts]` patterns.

mod expand;
mod patterns;
#[cfg(test)]
mod tests;

use std::fmt;

pub use self::expand::expand_hostlist;
pub use self::patterns::{HostPatterns, host_matches, validate_host_pattern};

/// Longest number accepted inside brackets; 18 decimal digits always fit a `u64`.
const MAX_DIGITS: usize = 18;

/// Why a host list or pattern was rejected. Offsets count characters from the start of the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostlistError {
    /// A `[` with no matching `]`; offset of the `[`.
    UnclosedBracket { offset: usize },
    /// A `]` with no matching `[`.
    UnmatchedBracket { offset: usize },
    /// A `[` inside a bracket group.
    NestedBracket { offset: usize },
    /// An empty element (`[]`, `[1,,2]`, `[1,]`); offset where a number was expected.
    EmptyRange { offset: usize },
    /// `lo-hi` with `lo > hi`; offset of `lo`.
    ReversedRange { offset: usize, lo: u64, hi: u64 },
    /// A character other than a digit, `-`, `,` or `]` inside brackets.
    NonDigit { offset: usize, found: char },
    /// A number of more than 18 digits; offset of its first digit.
    NumberTooLong { offset: usize },
    /// The expansion would exceed `max` hosts; offset of the name that crossed the limit.
    TooManyHosts { offset: usize, max: usize },
    /// A pattern with no host name in it.
    EmptyPattern,
    /// A bad pattern given to [`HostPatterns::new`], with its cluster.
    InCluster {
        cluster: String,
        pattern: String,
        error: Box<HostlistError>,
    },
}

impl fmt::Display for HostlistError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const INSIDE: &str = "expected a digit, '-', ',' or ']' inside brackets";
        match self {
            Self::UnclosedBracket { offset: o } => write!(f, "unclosed '[' at offset {o}: expected a matching ']'"),
            Self::UnmatchedBracket { offset: o } => write!(f, "unexpected ']' at offset {o}: expected a '[' before it"),
            Self::NestedBracket { offset: o } => write!(f, "nested '[' at offset {o}: {INSIDE}"),
            Self::EmptyRange { offset: o } => write!(f, "empty range at offset {o}: expected a number or lo-hi"),
            Self::ReversedRange { offset: o, lo, hi } => {
                write!(f, "reversed range {lo}-{hi} at offset {o}: expected lo <= hi")
            }
            Self::NonDigit { offset: o, found } => write!(f, "unexpected {found:?} at offset {o}: {INSIDE}"),
            Self::NumberTooLong { offset: o } => {
                write!(f, "number too long at offset {o}: expected at most 18 digits")
            }
            Self::TooManyHosts { offset: o, max } => {
                write!(f, "host list too large at offset {o}: expected at most {max} hosts")
            }
            Self::EmptyPattern => write!(f, "empty host pattern: expected a host name, host list or glob"),
            Self::InCluster {
                cluster,
                pattern,
                error,
            } => write!(f, "cluster {cluster:?}, pattern {pattern:?}: {error}"),
        }
    }
}

impl std::error::Error for HostlistError {}

/// One `lo-hi` element of a bracket group; `width` is the number of characters `lo` was written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Range {
    lo: u64,
    hi: u64,
    width: usize,
}

impl Range {
    /// Whether a digit run of `len` characters and value `v` is exactly what expansion prints for this range.
    fn accepts(&self, v: u64, len: usize) -> bool {
        (self.lo..=self.hi).contains(&v) && len == self.width.max(digits(v))
    }
}

fn digits(v: u64) -> usize {
    v.checked_ilog10().map_or(1, |l| l as usize + 1)
}

#[derive(Debug)]
enum Seg {
    Lit(char),
    Group(Vec<Range>),
}

/// Splits a list into names (offset, segments) at top-level separators and parses their bracket groups.
fn parse_list(s: &[char]) -> Result<Vec<(usize, Vec<Seg>)>, HostlistError> {
    let (mut names, mut i) = (Vec::new(), 0);
    let is_sep = |c: char| c == ',' || c.is_whitespace();
    while let Some(&c) = s.get(i) {
        if is_sep(c) {
            i += 1;
            continue;
        }
        let (offset, mut segs) = (i, Vec::new());
        while let Some(&c) = s.get(i).filter(|&&c| !is_sep(c)) {
            let seg = match c {
                '[' => {
                    let (ranges, next) = parse_group(s, i)?;
                    i = next;
                    Seg::Group(ranges)
                }
                ']' => return Err(HostlistError::UnmatchedBracket { offset: i }),
                _ => {
                    i += 1;
                    Seg::Lit(c)
                }
            };
            segs.push(seg);
        }
        names.push((offset, segs));
    }
    Ok(names)
}

/// Parses the group whose `[` is at `open`; returns its ranges and the index just after its `]`.
fn parse_group(s: &[char], open: usize) -> Result<(Vec<Range>, usize), HostlistError> {
    let (mut ranges, mut i) = (Vec::new(), open + 1);
    loop {
        if let Some(',' | ']') = s.get(i) {
            return Err(HostlistError::EmptyRange { offset: i });
        }
        let (lo, width, mut next) = parse_number(s, i, open)?;
        let mut hi = lo;
        if s.get(next) == Some(&'-') {
            (hi, _, next) = parse_number(s, next + 1, open)?;
        }
        if hi < lo {
            return Err(HostlistError::ReversedRange { offset: i, lo, hi });
        }
        ranges.push(Range { lo, hi, width });
        i = next + 1;
        match s.get(next) {
            Some(',') => {}
            Some(']') => return Ok((ranges, i)),
            other => return Err(unexpected(other.copied(), next, open)),
        }
    }
}

/// The error for `found` at `offset` inside the group opened at `open` (`None` is the end of the input).
fn unexpected(found: Option<char>, offset: usize, open: usize) -> HostlistError {
    match found {
        None => HostlistError::UnclosedBracket { offset: open },
        Some('[') => HostlistError::NestedBracket { offset },
        Some(found) => HostlistError::NonDigit { offset, found },
    }
}

/// Parses ASCII digits at `start`; returns (value, digit count, index after the digits).
fn parse_number(s: &[char], start: usize, open: usize) -> Result<(u64, usize, usize), HostlistError> {
    let (mut value, mut i) = (0u64, start);
    while let Some(d) = s.get(i).and_then(|c| c.to_digit(10)) {
        if i - start == MAX_DIGITS {
            return Err(HostlistError::NumberTooLong { offset: start });
        }
        (value, i) = (value * 10 + u64::from(d), i + 1);
    }
    match i == start {
        true => Err(unexpected(s.get(i).copied(), i, open)),
        false => Ok((value, i - start, i)),
    }
}
