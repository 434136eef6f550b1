//! `[hosts]` patterns compiled once and matched against the hosts DCGM and Prometheus name:
//! literal text, `?`, `*` and bracket groups, ports stripped, short names tried too.

use std::net::IpAddr;

use super::{HostlistError, MAX_DIGITS, Range, Seg, parse_list};

/// One pattern element: a lowercased literal character, `?`, `*`, or a bracket group.
#[derive(Debug, Clone)]
pub(super) enum Tok {
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
pub(super) struct Pattern {
    pub(super) names: Vec<Vec<Tok>>,
}

impl Pattern {
    pub(super) fn compile(pattern: &str) -> Result<Self, HostlistError> {
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
pub(super) fn glob_match(toks: &[Tok], host: &[char]) -> bool {
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
pub(super) fn nfa_match(toks: &[Tok], host: &[char]) -> bool {
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
