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

use std::fmt;
use std::net::IpAddr;

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

/// Expands a Slurm host list (`gpu[001-004,010],cpu05`) into host names, in order.
///
/// The host count is computed with checked arithmetic before anything is allocated, so a hostile
/// `n[0-99999999999]` fails with [`HostlistError::TooManyHosts`] at once instead of exhausting memory.
pub fn expand_hostlist(list: &str, max_hosts: usize) -> Result<Vec<String>, HostlistError> {
    let trimmed = list.trim();
    if trimmed.is_empty() || trimmed == "(null)" || trimmed.eq_ignore_ascii_case("None assigned") {
        return Ok(Vec::new());
    }
    let names = parse_list(&list.chars().collect::<Vec<_>>())?;
    let (mut total, max) = (0usize, max_hosts);
    for &(offset, ref segs) in &names {
        let mut count = Some(1usize);
        for seg in segs {
            if let Seg::Group(ranges) = seg {
                // `hi - lo + 1` cannot overflow: both are below 10^18.
                let n = ranges.iter().try_fold(0u64, |acc, r| acc.checked_add(r.hi - r.lo + 1));
                count = count
                    .zip(n.and_then(|n| usize::try_from(n).ok()))
                    .and_then(|(c, n)| c.checked_mul(n));
            }
        }
        let sum = count.and_then(|c| total.checked_add(c)).filter(|&t| t <= max_hosts);
        total = sum.ok_or(HostlistError::TooManyHosts { offset, max })?;
    }
    let mut hosts = Vec::with_capacity(total);
    for (_, segs) in &names {
        // Each group multiplies `partial` by at least one, so it never outgrows the checked count.
        let mut partial = vec![String::new()];
        for seg in segs {
            match seg {
                Seg::Lit(c) => partial.iter_mut().for_each(|p| p.push(*c)),
                Seg::Group(ranges) => {
                    let values = || ranges.iter().flat_map(|r| (r.lo..=r.hi).map(|v| (v, r.width)));
                    let grown = partial
                        .iter()
                        .flat_map(|p| values().map(move |(v, w)| format!("{p}{v:0w$}")));
                    partial = grown.collect();
                }
            }
        }
        hosts.extend(partial);
    }
    Ok(hosts)
}

/// One pattern element: a lowercased literal character, `?`, `*`, or a bracket group.
#[derive(Debug, Clone)]
enum Tok {
    Lit(char),
    One,
    Star,
    Num(Vec<Range>),
}

impl Tok {
    /// Whether this single-character token consumes `c`.
    fn eats(&self, c: char) -> bool {
        matches!(self, Tok::One) || matches!(self, Tok::Lit(l) if *l == c)
    }
}

/// A compiled pattern: one token sequence per top-level name.
#[derive(Debug, Clone)]
struct Pattern {
    names: Vec<Vec<Tok>>,
}

impl Pattern {
    fn compile(pattern: &str) -> Result<Self, HostlistError> {
        let names = parse_list(&pattern.chars().collect::<Vec<_>>())?;
        if names.is_empty() {
            return Err(HostlistError::EmptyPattern);
        }
        let tok = |seg| match seg {
            Seg::Lit('*') => Tok::Star,
            Seg::Lit('?') => Tok::One,
            Seg::Lit(c) => Tok::Lit(c.to_ascii_lowercase()),
            Seg::Group(ranges) => Tok::Num(ranges),
        };
        let names = names.into_iter().map(|(_, segs)| {
            let mut toks: Vec<Tok> = segs.into_iter().map(tok).collect();
            toks.dedup_by(|a, b| matches!((a, b), (Tok::Star, Tok::Star))); // `**` is `*`
            toks
        });
        Ok(Self { names: names.collect() })
    }

    fn matches_chars(&self, host: &[char]) -> bool {
        self.names.iter().any(|toks| name_matches(toks, host))
    }

    fn matches_host(&self, key: &HostKey) -> bool {
        self.matches_chars(&key.full) || key.short.as_deref().is_some_and(|s| self.matches_chars(s))
    }
}

/// Whether one pattern name matches the whole host: the NFA if it has bracket groups, else [`glob_match`].
fn name_matches(toks: &[Tok], host: &[char]) -> bool {
    match toks.iter().any(|t| matches!(t, Tok::Num(_))) {
        true => nfa_match(toks, host),
        false => glob_match(toks, host),
    }
}

/// Two-pointer wildcard match for names without bracket groups (which it would treat as mismatches).
fn glob_match(toks: &[Tok], host: &[char]) -> bool {
    let (mut p, mut h) = (0, 0);
    // Token after the last `*`, and the host position that star has absorbed up to.
    let mut last_star: Option<(usize, usize)> = None;
    while let Some(&c) = host.get(h) {
        match (toks.get(p), last_star) {
            (Some(Tok::Star), _) => (p, last_star) = (p + 1, Some((p + 1, h))),
            (Some(t), _) if t.eats(c) => (p, h) = (p + 1, h + 1),
            // Why only the last star retries: any match via an earlier star is also reachable from it.
            (_, Some((sp, sh))) => (p, h, last_star) = (sp, sh + 1, Some((sp, sh + 1))),
            (_, None) => return false,
        }
    }
    toks.get(p..)
        .is_some_and(|rest| rest.iter().all(|t| matches!(t, Tok::Star)))
}

/// Set-of-positions NFA: `cur[i]` says the tokens so far can consume exactly `host[..i]`.
fn nfa_match(toks: &[Tok], host: &[char]) -> bool {
    let n = host.len();
    let (mut cur, mut next) = (vec![false; n + 1], vec![false; n + 1]);
    cur.iter_mut().take(1).for_each(|b| *b = true);
    for tok in toks {
        next.fill(false);
        let mut on = false;
        for i in 0..=n {
            match tok {
                Tok::Star => {
                    on |= cur[i];
                    next[i] = on;
                }
                _ if !cur[i] || i == n => {}
                Tok::Num(ranges) => {
                    let mut v = 0u64;
                    // Why at most MAX_DIGITS: no accepted spelling is longer, which keeps this O(host) per token.
                    let run = host[i..].iter().take(MAX_DIGITS).map_while(|c| c.to_digit(10));
                    for (len, d) in run.enumerate() {
                        v = v * 10 + u64::from(d);
                        next[i + len + 1] |= ranges.iter().any(|r| r.accepts(v, len + 1));
                    }
                }
                t => next[i + 1] = t.eats(host[i]),
            }
        }
        std::mem::swap(&mut cur, &mut next);
        if !cur.contains(&true) {
            return false;
        }
    }
    cur.last() == Some(&true)
}

/// A host normalized for matching: port stripped, lowercased, plus its short name when it has one.
struct HostKey {
    full: Vec<char>,
    short: Option<Vec<char>>,
}

impl HostKey {
    fn new(host: &str) -> Self {
        let host = strip_port(host.trim());
        let lower = |s: &str| s.chars().map(|c| c.to_ascii_lowercase()).collect::<Vec<_>>();
        let short = host.split_once('.').map(|(s, _)| s).filter(|s| !s.is_empty());
        let short = short.filter(|_| host.parse::<IpAddr>().is_err()).map(lower);
        let full = lower(host);
        Self { full, short }
    }
}

/// `gpu001:9400` -> `gpu001`, `[fe80::1]:9400` -> `fe80::1`; a bare IPv6 address (several colons) is kept.
fn strip_port(host: &str) -> &str {
    if let Some((inner, _)) = host.strip_prefix('[').and_then(|rest| rest.split_once(']')) {
        return inner;
    }
    let is_port = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') && is_port(port) => name,
        _ => host,
    }
}

/// Whether `host` (a DCGM hostname or Prometheus `instance`) matches `pattern`; an invalid pattern matches nothing.
pub fn host_matches(pattern: &str, host: &str) -> bool {
    Pattern::compile(pattern).is_ok_and(|p| p.matches_host(&HostKey::new(host)))
}

/// Checks a pattern's syntax, so a config loader can report it with its file and line before any matching.
pub fn validate_host_pattern(pattern: &str) -> Result<(), HostlistError> {
    Pattern::compile(pattern).map(|_| ())
}

/// Cluster host patterns, compiled once, in the user's order.
///
/// Order decides overlaps: [`HostPatterns::cluster_of`] returns the first cluster with any matching pattern, so
/// specific patterns must come before catch-alls such as `*`.
#[derive(Debug, Clone, Default)]
pub struct HostPatterns {
    clusters: Vec<(String, Vec<Pattern>)>,
}

impl HostPatterns {
    /// Compiles every pattern; the first bad one is reported as [`HostlistError::InCluster`].
    pub fn new(clusters: Vec<(String, Vec<String>)>) -> Result<Self, HostlistError> {
        let mut compiled = Vec::with_capacity(clusters.len());
        for (cluster, patterns) in clusters {
            let mut pats = Vec::with_capacity(patterns.len());
            for pattern in patterns {
                match Pattern::compile(&pattern) {
                    Ok(p) => pats.push(p),
                    Err(e) => {
                        return Err(HostlistError::InCluster {
                            cluster,
                            pattern,
                            error: Box::new(e),
                        });
                    }
                }
            }
            compiled.push((cluster, pats));
        }
        Ok(Self { clusters: compiled })
    }

    /// The first cluster (in the user's order) with a pattern matching `host`, by the rules of [`host_matches`].
    pub fn cluster_of(&self, host: &str) -> Option<&str> {
        let key = HostKey::new(host);
        let mut clusters = self.clusters.iter();
        let found = clusters.find(|(_, pats)| pats.iter().any(|p| p.matches_host(&key)));
        found.map(|(cluster, _)| cluster.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn expands_slurm_lists_with_padding() {
        let cases = [
            ("gpu001", "gpu001"),
            ("gpu[001-004,010]", "gpu001 gpu002 gpu003 gpu004 gpu010"),
            ("a[1-2]-b[3-4]", "a1-b3 a1-b4 a2-b3 a2-b4"),
            ("gpu[01-02],cpu05,node[7,9-10]", "gpu01 gpu02 cpu05 node7 node9 node10"),
            ("gpu[8-11]", "gpu8 gpu9 gpu10 gpu11"),
            ("gpu[08-11]", "gpu08 gpu09 gpu10 gpu11"),
            ("n[099-100] m[9-010]", "n099 n100 m9 m10"),
            (" x1\t[0]y\n", "x1 0y"),
            ("None Assigned", ""),
            ("None assigned", ""),
            ("(null)", ""),
            (" , ", ""),
        ];
        for (list, want) in cases {
            assert_eq!(
                expand_hostlist(list, 20).map(|h| h.join(" ")).as_deref(),
                Ok(want),
                "{list}"
            );
        }
    }

    #[test]
    fn errors_say_what_was_expected_and_where() {
        // `…` stands for "expected a digit, '-', ',' or ']' inside brackets".
        let cases = [
            ("gpu[1-2", "unclosed '[' at offset 3: expected a matching ']'"),
            ("a,gpu[1,", "unclosed '[' at offset 5: expected a matching ']'"),
            ("né[1-", "unclosed '[' at offset 2: expected a matching ']'"), // characters, not bytes
            ("gpu1-2]", "unexpected ']' at offset 6: expected a '[' before it"),
            ("gpu[1-[2]]", "nested '[' at offset 6: …"),
            ("gpu[]", "empty range at offset 4: expected a number or lo-hi"),
            ("gpu[1,,2]", "empty range at offset 6: expected a number or lo-hi"),
            ("gpu[1,]", "empty range at offset 6: expected a number or lo-hi"),
            ("gpu[1,5-3]", "reversed range 5-3 at offset 6: expected lo <= hi"),
            ("gpu[1-a]", "unexpected 'a' at offset 6: …"),
            ("gpu[1-2-3]", "unexpected '-' at offset 7: …"),
            ("gpu[1 ,2]", "unexpected ' ' at offset 5: …"),
            ("gpu[3-]", "unexpected ']' at offset 6: …"),
            (
                "n[1234567890123456789]",
                "number too long at offset 2: expected at most 18 digits",
            ),
            ("a,b[1-9]", "host list too large at offset 2: expected at most 5 hosts"),
        ];
        for (list, want) in cases {
            let want = want.replace('…', "expected a digit, '-', ',' or ']' inside brackets");
            assert_eq!(expand_hostlist(list, 5).map_err(|e| e.to_string()), Err(want), "{list}");
        }
        let non_digit = HostlistError::NonDigit { offset: 2, found: '*' };
        assert_eq!(validate_host_pattern("n[*]"), Err(non_digit));
        assert_eq!(
            expand_hostlist("g[[1]]", 5),
            Err(HostlistError::NestedBracket { offset: 2 })
        );
        assert_eq!(validate_host_pattern(" , "), Err(HostlistError::EmptyPattern));
        assert_eq!(validate_host_pattern("dgx[001-016],rack[1-2]-*"), Ok(()));
        assert!(expand_hostlist("n[123456789012345678]", 1).is_ok());
    }

    #[test]
    fn max_hosts_is_checked_before_allocating() {
        let (start, all) = (Instant::now(), usize::MAX);
        let too_many = |offset, max| Err(HostlistError::TooManyHosts { offset, max });
        assert_eq!(expand_hostlist("n[0-99999999999]", 1_000_000), too_many(0, 1_000_000));
        assert_eq!(
            expand_hostlist(&"n[0-999999999999999999]".repeat(40), all),
            too_many(0, all)
        );
        let wide = format!("n[{}1]", "1-999999999999999999,".repeat(30));
        assert_eq!(expand_hostlist(&wide, all), too_many(0, all));
        assert!(start.elapsed() < Duration::from_secs(1), "took {:?}", start.elapsed());
        assert_eq!(expand_hostlist("gpu[1-4]", 4).map(|h| h.len()), Ok(4));
        assert_eq!(expand_hostlist("gpu[1-4]", 3), too_many(0, 3));
        assert_eq!(expand_hostlist("a,b,c[1-2]", 3), too_many(4, 3));
    }

    /// One case per line: a pattern, then hosts; `!` marks a host that must not match.
    const MATCH_CASES: &str = "
        dgx[001-016] dgx007 dgx016 DGX001 !dgx7 !dgx0007 !dgx017 !dgx000
        gpu[8-11] gpu8 gpu10 !gpu08 !gpu12 !gpu7
        gpu[08-11] gpu08 !gpu8
        n[098-101] n100 n099 !n0100 !n97 !n98
        n[0-99999999999] n12345678901 n0 !n123456789012 !n00
        a[1-2]-b[3-4] a2-b3 !a3-b3 !a1-b5
        x[1-2][0-9] x19 x20 !x1 !x30
        gpu[01-02],cpu05,node[7,9-10] cpu05 node10 gpu02 !node8 !cpu5
        gpu001 gpu001 !gpu0011 !gpu00
        rack[1-2]-* rack1-node05 rack2- !rack3-node05
        gpu-?? gpu-ab !gpu-abc !gpu-a
        * anything
        *[1-3] node2 3 !node4
        *[10-15] x12 12 !x9 !x16
        GPU[01-02] gpu01 Gpu02
        DgX0? dGx01
        gpu00[1-2] gpu001.cluster.example.com GPU002.Cluster.Example.com:9400 !gpu003.cluster.example.com
        *.example.com gpu001.cluster.example.com
        gpu001 gpu001:9400 !gpu001:94x0
        10.0.0.* 10.0.0.5:9400
        10 !10.0.0.5:9400
        fe80::1 [fe80::1]:9400 fe80::1
        gpu !.gpu
    ";

    #[test]
    fn matches_ranges_globs_fqdn_and_ports() {
        for line in MATCH_CASES.lines().filter(|l| !l.trim().is_empty()) {
            let mut words = line.split_whitespace();
            let pattern = words.next().unwrap_or_default();
            assert_eq!(validate_host_pattern(pattern), Ok(()), "{pattern}");
            for host in words {
                let (want, host) = host.strip_prefix('!').map_or((true, host), |h| (false, h));
                assert_eq!(host_matches(pattern, host), want, "{pattern} vs {host}");
            }
        }
        assert!(host_matches("**", "") && host_matches("gpu001", " gpu001 "));
        assert!(
            !host_matches("", "") && !host_matches("gpu[1-", "gpu1"),
            "bad patterns match nothing"
        );
    }

    #[test]
    fn cluster_of_respects_order() {
        let owned = |c: &str, ps: &[&str]| (c.to_string(), ps.iter().map(|p| p.to_string()).collect());
        let a100 = owned("a100", &["dgx[001-016]", "gpu-a-*"]);
        let hp = HostPatterns::new(vec![a100, owned("h100", &["dgx[010-032]"])]).expect("valid");
        assert_eq!(hp.cluster_of("dgx012"), Some("a100"), "overlap: first cluster wins");
        assert_eq!(hp.cluster_of("dgx020.site.org:9400"), Some("h100"));
        assert_eq!(hp.cluster_of("GPU-A-7"), Some("a100"));
        assert_eq!(hp.cluster_of("dgx033"), None);
        assert_eq!(HostPatterns::default().cluster_of("x"), None);
        let bad = HostPatterns::new(vec![owned("ok", &["a*"]), owned("h100", &["dgx1", "dgx[5-3]", "x[1-"])]);
        let want = "cluster \"h100\", pattern \"dgx[5-3]\": reversed range 5-3 at offset 4: expected lo <= hi";
        assert_eq!(bad.map_err(|e| e.to_string()).err().as_deref(), Some(want));
    }

    #[test]
    fn no_exponential_backtracking() {
        let (a, start) = ("a".repeat(5000), Instant::now());
        assert!(!host_matches("*a*a*a*a*a*a*a*a*a*a*b", &a));
        assert!(host_matches("*a*a*a*a*a*a*a*a*a*a*b", &format!("{a}b")));
        assert!(!host_matches("*a*a*a*a*a*a*a*a*a*a*[1-2]", &a));
        assert!(host_matches("*a*a*a*a*a*a*a*a*a*a*[1-2]", &format!("{a}2")));
        assert!(host_matches("n*[1-2]", &format!("n{}", "1".repeat(5000))));
        assert!(!host_matches("*?*?*?*?*[0-999999999999999999]x", &"9".repeat(5000)));
        assert!(start.elapsed() < Duration::from_secs(1), "took {:?}", start.elapsed());
    }

    /// Deterministic xorshift64 generator: no crates, same data on every run.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }

        fn pick<T: Copy>(&mut self, items: &[T]) -> T {
            items[self.below(items.len() as u64) as usize]
        }
    }

    #[test]
    fn two_pointer_and_nfa_agree_with_naive_glob() {
        fn naive(p: &[char], h: &[char]) -> bool {
            match (p.split_first(), h.split_first()) {
                (None, _) => h.is_empty(),
                (Some(('*', rest)), _) => (0..=h.len()).any(|k| naive(rest, &h[k..])),
                (Some((&c, rest)), Some((&x, hr))) => (c == '?' || c == x) && naive(rest, hr),
                (Some(_), None) => false,
            }
        }
        let mut rng = Rng(7);
        for _ in 0..5000 {
            let p: Vec<char> = (0..rng.below(8)).map(|_| rng.pick(&['a', 'b', '*', '?'])).collect();
            let h: Vec<char> = (0..rng.below(9)).map(|_| rng.pick(&['a', 'b'])).collect();
            let Ok(pattern) = Pattern::compile(&p.iter().collect::<String>()) else {
                continue;
            };
            let want = naive(&p, &h);
            assert_eq!(glob_match(&pattern.names[0], &h), want, "{p:?} vs {h:?}");
            assert_eq!(nfa_match(&pattern.names[0], &h), want, "{p:?} vs {h:?}");
        }
    }

    /// Random lists of 1-3 names with 1-2 groups of 1-4 disjoint, randomly padded ranges each: every expanded
    /// host matches the list as a pattern; a host one past (or before) a range, or unpadded, does not.
    #[test]
    fn property_expanded_hosts_match_and_neighbours_do_not() {
        let mut rng = Rng(42);
        for round in 0..300 {
            let (mut list, mut want_count, mut outsiders) = (Vec::new(), 0, Vec::new());
            for idx in 0..=rng.below(2) {
                // A distinct letter per name, so no name can match another name's hosts.
                let mut lits = vec![format!(
                    "{}{}",
                    rng.pick(&["gpu", "node", "dgx-", "Rack"]),
                    char::from(b'a' + idx as u8)
                )];
                let (mut text, mut firsts, mut outs, mut count) = (lits[0].clone(), Vec::new(), Vec::new(), 1);
                for _ in 0..=rng.below(1) {
                    let (mut next_lo, mut elems, mut n, mut out) = (rng.below(30), Vec::new(), 0, Vec::new());
                    for k in 0..=rng.below(3) {
                        let lo = next_lo + rng.below(5);
                        let (hi, w) = (lo + rng.below(12), digits(lo) + rng.below(3) as usize);
                        elems.push(format!("{lo:0w$}") + &if hi > lo { format!("-{hi}") } else { String::new() });
                        if k == 0 {
                            firsts.push(format!("{lo:0w$}"));
                            out.extend((lo > 0).then(|| format!("{:0w$}", lo - 1)));
                            out.extend((w > digits(lo)).then(|| lo.to_string())); // padding dropped
                        }
                        (n, next_lo) = (n + hi - lo + 1, hi + 2); // the gap keeps hi + 1 outside every range
                        out.push(format!("{:0w$}", hi + 1));
                    }
                    let lit = rng.pick(&["-", "x", ".sfx", "-r"]);
                    text += &format!("[{}]{lit}", elems.join(","));
                    count *= n;
                    lits.push(lit.to_string());
                    outs.push(out);
                }
                want_count += count;
                list.push(text);
                // An outsider: every group at its first value except group `g`, spelled `o`.
                for (g, out) in outs.iter().enumerate() {
                    for o in out {
                        let mut host = lits[0].clone();
                        for (i, lit) in lits[1..].iter().enumerate() {
                            host += if i == g { o } else { &firsts[i] };
                            host += lit;
                        }
                        outsiders.push(host);
                    }
                }
            }
            let list = list.join(",");
            let hosts = expand_hostlist(&list, 100_000).unwrap_or_else(|e| panic!("{list}: {e}"));
            assert_eq!(hosts.len() as u64, want_count, "{list}");
            for host in &hosts {
                let shown = [host.to_ascii_uppercase(), format!("{host}:9400")][round % 2].clone();
                assert!(host_matches(&list, &shown), "{list} should match {shown}");
            }
            for host in &outsiders {
                assert!(!host_matches(&list, host), "{list} must not match {host}");
            }
        }
    }
}
