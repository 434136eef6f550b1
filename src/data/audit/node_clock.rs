//! Utilization rows whose recording stated no offset from UTC (nvidia-smi writes the node's
//! local time) moved to UTC before they are measured: by the offset of the host's cluster's
//! `[hosts]` entry, else `--input-tz`, else none (read as UTC, and the notes say so). Done at
//! audit time, not while reading, so a plan's new offset needs no new read.

use std::collections::BTreeMap;

use polars::prelude::*;

use super::host_map::HostMap;
use crate::data::canonical::MS_PER_MINUTE;
use crate::data::error::DataError;
use crate::data::readers::dcgm::{HOST, TIME, UTC_OFFSET_MIN};
use crate::model::audit_settings::AuditSettings;
use crate::model::plan::utc_offset_text;
use crate::shared::format::count_of;

const HOST_OFFSET: &str = "__host_offset_min";

/// Where a host's offset came from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Given {
    Plan(String),
    InputTz,
    Assumed,
}

fn err(e: PolarsError) -> DataError {
    crate::data::error::dcgm_samples(e)
}

/// `samples` with every time in UTC, and a note for the audit when some had to be moved (or
/// were read as UTC for want of an offset).
pub fn in_utc(
    samples: &DataFrame,
    hosts: &HostMap,
    settings: &AuditSettings,
) -> Result<(DataFrame, Option<String>), DataError> {
    let stated = samples.column(UTC_OFFSET_MIN).map_err(err)?;
    if stated.null_count() == 0 {
        return Ok((samples.clone(), None));
    }
    let local_hosts = samples
        .clone()
        .lazy()
        .filter(col(UTC_OFFSET_MIN).is_null())
        .select([col(HOST).unique()])
        .collect()
        .map_err(err)?;
    let names = local_hosts.column(HOST).map_err(err)?.str().map_err(err)?;
    let mut offsets: BTreeMap<String, (i32, Given)> = BTreeMap::new();
    for host in names.iter().flatten() {
        let from_plan = hosts
            .cluster_of(host)
            .and_then(|cluster| Some((*settings.host_utc_offsets_min.get(&cluster)?, Given::Plan(cluster))));
        let offset = from_plan.unwrap_or(match settings.input_utc_offset_min {
            Some(offset) => (offset, Given::InputTz),
            None => (0, Given::Assumed),
        });
        offsets.insert(host.to_string(), offset);
    }
    let table = df![
        HOST => offsets.keys().cloned().collect::<Vec<String>>(),
        HOST_OFFSET => offsets.values().map(|(m, _)| *m).collect::<Vec<i32>>(),
    ]
    .map_err(err)?;
    let moved = samples
        .clone()
        .lazy()
        .join(table.lazy(), [col(HOST)], [col(HOST)], JoinArgs::new(JoinType::Left))
        .with_columns([
            (col(TIME).cast(DataType::Int64)
                - coalesce(&[col(UTC_OFFSET_MIN), col(HOST_OFFSET), lit(0i32)]).cast(DataType::Int64)
                    * lit(MS_PER_MINUTE))
            .cast(DataType::Datetime(TimeUnit::Milliseconds, None))
            .alias(TIME),
            coalesce(&[col(UTC_OFFSET_MIN), col(HOST_OFFSET), lit(0i32)]).alias(UTC_OFFSET_MIN),
        ])
        .drop(by_name([HOST_OFFSET], true, false))
        .collect()
        .map_err(err)?;
    Ok((moved, Some(clock_note(&offsets))))
}

/// "nvidia-smi recordings are in the node's local time: h200-a at UTC+01:00 ([hosts] lab); 2
/// hosts read as UTC (no offset given: --input-tz, or utc_offset in the plan's [hosts])".
fn clock_note(offsets: &BTreeMap<String, (i32, Given)>) -> String {
    let mut groups: BTreeMap<(&Given, i32), Vec<&str>> = BTreeMap::new();
    for (host, (offset, given)) in offsets {
        groups.entry((given, *offset)).or_default().push(host);
    }
    let parts: Vec<String> = groups
        .into_iter()
        .map(|((given, offset), hosts)| {
            let named = match hosts.as_slice() {
                [one] => one.to_string(),
                many => count_of(many.len() as u64, "host", "hosts"),
            };
            match given {
                Given::Plan(cluster) => format!("{named} at {} ([hosts] {cluster})", utc_offset_text(offset)),
                Given::InputTz => format!("{named} at {} (--input-tz)", utc_offset_text(offset)),
                Given::Assumed => format!(
                    "{named} read as UTC (no offset given: --input-tz, or utc_offset in the plan's [hosts] entry)"
                ),
            }
        })
        .collect();
    format!(
        "nvidia-smi recordings are in their node's clock, without an offset: {}",
        parts.join("; ")
    )
}
