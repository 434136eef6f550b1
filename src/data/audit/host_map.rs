//! Which cluster a GPU host belongs to, for DCGM samples that name hosts: the hosts a Slurm log's
//! `NodeList` put jobs of a cluster on, then the `[hosts]` patterns of the mapping or the plan
//! (Slurm host lists such as `dgx[001-016]`, or globs such as `gpu-use1-*`).

use std::collections::BTreeMap;

use crate::data::error::DataError;
use crate::data::readers::hostlist::{HostPatterns, validate_host_pattern};
use crate::shared::format::count_of;

#[derive(Debug, Clone, Default)]
pub struct HostMap {
    /// Short host name (lowercase, no domain or port) → cluster, from job logs.
    seen: BTreeMap<String, String>,
    patterns: Option<HostPatterns>,
    pattern_count: usize,
}

/// `gpu001.cluster.example.com:9400` → `gpu001`: how job logs name hosts.
pub fn short_host(host: &str) -> String {
    let host = host.trim();
    // An IPv6 address keeps its colons; anything else loses a `:port`.
    let host = match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    let short = if host.parse::<std::net::IpAddr>().is_ok() {
        host
    } else {
        host.split('.').next().unwrap_or(host)
    };
    short.to_ascii_lowercase()
}

impl HostMap {
    /// From the `[hosts]` tables (cluster → patterns) and the hosts job logs named.
    pub fn new(
        tables: &[&BTreeMap<String, Vec<String>>],
        seen: BTreeMap<String, String>,
    ) -> Result<HostMap, DataError> {
        let mut pairs: Vec<(String, Vec<String>)> = Vec::new();
        for table in tables {
            for (cluster, patterns) in table.iter() {
                match pairs.iter_mut().find(|(c, _)| c == cluster) {
                    Some((_, existing)) => existing.extend(patterns.iter().cloned()),
                    None => pairs.push((cluster.clone(), patterns.clone())),
                }
            }
        }
        let pattern_count = pairs.iter().map(|(_, p)| p.len()).sum();
        let patterns = if pairs.is_empty() {
            None
        } else {
            Some(HostPatterns::new(pairs)?)
        };
        Ok(HostMap {
            seen,
            patterns,
            pattern_count,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.seen.is_empty() && self.patterns.is_none()
    }

    /// Where the map comes from, for the report.
    pub fn describe(&self) -> String {
        match (self.seen.len(), self.pattern_count) {
            (0, 0) => "no host map".to_string(),
            (hosts, 0) => format!(
                "{} named by the job log's NodeList",
                count_of(hosts as u64, "host", "hosts")
            ),
            (0, patterns) => format!("[hosts] ({})", count_of(patterns as u64, "pattern", "patterns")),
            (hosts, patterns) => {
                format!(
                    "{} named by the job log's NodeList, then [hosts] ({})",
                    count_of(hosts as u64, "host", "hosts"),
                    count_of(patterns as u64, "pattern", "patterns")
                )
            }
        }
    }

    /// The host's cluster: as the job log saw it, else by the first matching pattern, clusters
    /// taken in name order (a TOML table keeps no order of its own).
    pub fn cluster_of(&self, host: &str) -> Option<String> {
        let short = short_host(host);
        if let Some(cluster) = self.seen.get(&short) {
            return Some(cluster.clone());
        }
        // Patterns try the full name, then the short one (FQDN and `:port` handled there).
        self.patterns.as_ref()?.cluster_of(host).map(str::to_string)
    }
}

/// "3 hosts belong to no cluster: a, b, c" (the first ten named).
pub fn unmapped_note(hosts: &[String]) -> String {
    let named: Vec<&str> = hosts.iter().take(10).map(String::as_str).collect();
    let more = if hosts.len() > named.len() {
        format!(" and {} more", hosts.len() - named.len())
    } else {
        String::new()
    };
    format!(
        "{} to no cluster, GPUs left out: {}{more} (map them with a [hosts] table)",
        count_of(hosts.len() as u64, "host belongs", "hosts belong"),
        named.join(", ")
    )
}

/// Problems of a `[hosts]` table, as (key path, message): patterns that do not parse.
pub fn host_table_problems(table: &BTreeMap<String, Vec<String>>) -> Vec<(String, String)> {
    let mut problems = Vec::new();
    for (cluster, patterns) in table {
        if patterns.is_empty() {
            problems.push((
                format!("hosts.{cluster}"),
                "expected at least one host pattern".to_string(),
            ));
        }
        for (i, pattern) in patterns.iter().enumerate() {
            if let Err(e) = validate_host_pattern(pattern) {
                problems.push((format!("hosts.{cluster}[{i}]"), format!("'{pattern}': {e}")));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_first_then_patterns() {
        let seen: BTreeMap<String, String> = [("gpu001".to_string(), "slurm-a".to_string())].into();
        let table: BTreeMap<String, Vec<String>> = [(
            "pattern-b".to_string(),
            vec!["gpu[001-004]".to_string(), "dgx-*".to_string()],
        )]
        .into();
        let map = HostMap::new(&[&table], seen).expect("map");
        assert_eq!(map.cluster_of("GPU001.example.com:9400").as_deref(), Some("slurm-a"));
        assert_eq!(map.cluster_of("gpu002").as_deref(), Some("pattern-b"));
        assert_eq!(map.cluster_of("dgx-7.example.com").as_deref(), Some("pattern-b"));
        assert_eq!(map.cluster_of("gpu005"), None);
        assert_eq!(short_host("10.0.0.5:9400"), "10.0.0.5");
        assert_eq!(short_host("[::1]:9400"), "[::1]:9400");
    }

    #[test]
    fn a_bad_pattern_is_refused() {
        let table: BTreeMap<String, Vec<String>> = [("c".to_string(), vec!["gpu[1-".to_string()])].into();
        assert!(HostMap::new(&[&table], BTreeMap::new()).is_err());
    }
}
