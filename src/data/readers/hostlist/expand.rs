//! Slurm host lists expanded into host names, in order, bounded by the caller's maximum.

use super::{HostlistError, Seg, parse_list};

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
