//! A sacct header: the columns this reader knows by name, and where each one is.

use crate::data::error::DataError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    JobId,
    JobIdRaw,
    JobName,
    User,
    Partition,
    Qos,
    State,
    Start,
    End,
    ElapsedRaw,
    Elapsed,
    AllocTres,
    AllocGres,
    ReqTres,
    Cluster,
    NodeList,
    TresUsageInAve,
    Submit,
    Timelimit,
    TimelimitRaw,
}

pub(super) fn field_of(header: &str) -> Option<Field> {
    Some(match header.trim().to_ascii_lowercase().as_str() {
        "jobid" => Field::JobId,
        "jobidraw" => Field::JobIdRaw,
        "jobname" => Field::JobName,
        "user" => Field::User,
        "partition" => Field::Partition,
        "qos" => Field::Qos,
        "state" => Field::State,
        "start" => Field::Start,
        "end" => Field::End,
        "elapsedraw" => Field::ElapsedRaw,
        "elapsed" => Field::Elapsed,
        "alloctres" => Field::AllocTres,
        "allocgres" => Field::AllocGres,
        "reqtres" => Field::ReqTres,
        "cluster" => Field::Cluster,
        "nodelist" => Field::NodeList,
        "tresusageinave" => Field::TresUsageInAve,
        "submit" => Field::Submit,
        "timelimit" => Field::Timelimit,
        "timelimitraw" => Field::TimelimitRaw,
        _ => return None,
    })
}

/// Positions of the columns this reader uses; the first of a repeated name wins.
#[derive(Debug, Default)]
pub(super) struct Columns {
    pub(super) count: usize,
    pub(super) job_id: usize,
    pub(super) job_name: Option<usize>,
    pub(super) user: Option<usize>,
    pub(super) partition: Option<usize>,
    pub(super) qos: Option<usize>,
    pub(super) state: Option<usize>,
    pub(super) start: usize,
    pub(super) end: Option<usize>,
    pub(super) elapsed_raw: Option<usize>,
    pub(super) elapsed: Option<usize>,
    pub(super) alloc_tres: Option<usize>,
    pub(super) alloc_gres: Option<usize>,
    pub(super) req_tres: Option<usize>,
    pub(super) cluster: Option<usize>,
    pub(super) node_list: Option<usize>,
    pub(super) tres_usage_in_ave: Option<usize>,
    pub(super) submit: Option<usize>,
    pub(super) time_limit: Option<usize>,
    pub(super) time_limit_raw: Option<usize>,
}

impl Columns {
    pub(super) fn from_header(names: &[&str]) -> Result<Columns, DataError> {
        let find = |wanted: Field| names.iter().position(|n| field_of(n) == Some(wanted));
        let missing = |column: &'static str| DataError::NoColumn {
            column,
            header: names.join("|"),
        };
        let job_id = find(Field::JobId)
            .or_else(|| find(Field::JobIdRaw))
            .ok_or_else(|| missing("JobID"))?;
        let start = find(Field::Start).ok_or_else(|| missing("Start"))?;
        Ok(Columns {
            count: names.len(),
            job_id,
            job_name: find(Field::JobName),
            user: find(Field::User),
            partition: find(Field::Partition),
            qos: find(Field::Qos),
            state: find(Field::State),
            start,
            end: find(Field::End),
            elapsed_raw: find(Field::ElapsedRaw),
            elapsed: find(Field::Elapsed),
            alloc_tres: find(Field::AllocTres),
            alloc_gres: find(Field::AllocGres),
            req_tres: find(Field::ReqTres),
            cluster: find(Field::Cluster),
            node_list: find(Field::NodeList),
            tres_usage_in_ave: find(Field::TresUsageInAve),
            submit: find(Field::Submit),
            time_limit: find(Field::Timelimit),
            time_limit_raw: find(Field::TimelimitRaw),
        })
    }
}

pub(super) fn split_row(line: &str, trailing_pipe: bool) -> Vec<&str> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let line = if trailing_pipe {
        line.strip_suffix('|').unwrap_or(line)
    } else {
        line
    };
    line.split('|').collect()
}
