//! The `sacct` calls that read a window: which fields, which flags, which pieces.

use crate::model::plan::SlurmSource;

/// The fields the audit reads, in sacct's names (`--format`). Step rows are asked for too (no
/// `-X`): their `TRESUsageInAve` carries GPU utilization where the site gathers it.
pub const SACCT_FIELDS: [&str; 16] = [
    "JobID",
    "JobName",
    "User",
    "Cluster",
    "Partition",
    "QOS",
    "State",
    "Submit",
    "Start",
    "End",
    "ElapsedRaw",
    "TimelimitRaw",
    "AllocTRES",
    "ReqTRES",
    "NodeList",
    "TRESUsageInAve",
];

/// sacct's times are the caller's local time, read and printed: gpuplan runs it in UTC.
pub const SACCT_ENVIRONMENT: [(&str, &str); 2] = [("TZ", "UTC"), ("SLURM_TIME_FORMAT", "%Y-%m-%dT%H:%M:%S")];

const MS_PER_DAY: i64 = 86_400_000;

/// One piece of the window, in epoch milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub start_ms: i64,
    pub end_ms: i64,
}

/// The window cut into pieces of `piece_days` (the last one shorter), oldest first.
pub fn pieces(start_ms: i64, end_ms: i64, piece_days: u32) -> Vec<Piece> {
    let step = i64::from(piece_days.max(1)) * MS_PER_DAY;
    let mut out = Vec::new();
    let mut from = start_ms;
    while from < end_ms {
        let to = from.saturating_add(step).min(end_ms);
        out.push(Piece {
            start_ms: from,
            end_ms: to,
        });
        from = to;
    }
    out
}

/// `2026-11-25T21:38:07`: how sacct takes `-S`/`-E` (in the TZ it runs under, UTC here).
fn sacct_time(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .format("%Y-%m-%dT%H:%M:%S")
        .to_string()
}

/// The arguments of the call that reads `piece`: every user's jobs (`-a`), every record of a
/// requeued job (`-D`), `|`-separated without truncation (`-P`), the named clusters or all.
pub fn sacct_args(source: &SlurmSource, piece: Piece) -> Vec<String> {
    let clusters = if source.clusters.is_empty() {
        "all".to_string()
    } else {
        source.clusters.join(",")
    };
    vec![
        "-a".into(),
        "-D".into(),
        "-P".into(),
        format!("--format={}", SACCT_FIELDS.join(",")),
        "-S".into(),
        sacct_time(piece.start_ms),
        "-E".into(),
        sacct_time(piece.end_ms),
        "-M".into(),
        clusters,
    ]
}

/// The call as a person would type it, environment first: what an error shows.
pub fn shown_command(program: &str, args: &[String]) -> String {
    let environment = SACCT_ENVIRONMENT.map(|(k, v)| format!("{k}='{v}'")).join(" ");
    format!("{environment} {program} {}", args.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_is_cut_into_whole_pieces_and_a_shorter_last() {
        let day = MS_PER_DAY;
        let cut = pieces(0, 16 * day, 7);
        assert_eq!(
            cut,
            vec![
                Piece {
                    start_ms: 0,
                    end_ms: 7 * day
                },
                Piece {
                    start_ms: 7 * day,
                    end_ms: 14 * day
                },
                Piece {
                    start_ms: 14 * day,
                    end_ms: 16 * day
                },
            ]
        );
        assert_eq!(
            pieces(0, 11_000, 7),
            vec![Piece {
                start_ms: 0,
                end_ms: 11_000
            }]
        );
        assert!(pieces(5, 5, 7).is_empty());
    }

    #[test]
    fn the_call_asks_for_every_user_every_record_and_the_fields_read() {
        let source = SlurmSource {
            clusters: vec!["alpha".into(), "beta".into()],
            ..SlurmSource::default()
        };
        let args = sacct_args(
            &source,
            Piece {
                start_ms: 0,
                end_ms: MS_PER_DAY,
            },
        );
        assert_eq!(&args[..3], ["-a", "-D", "-P"]);
        assert!(args[3].starts_with("--format=JobID,JobName,User,Cluster"));
        assert_eq!(
            &args[4..],
            [
                "-S",
                "1970-01-01T00:00:00",
                "-E",
                "1970-01-02T00:00:00",
                "-M",
                "alpha,beta"
            ]
        );
        let all = sacct_args(&SlurmSource::default(), Piece { start_ms: 0, end_ms: 1 });
        assert_eq!(all.last().map(String::as_str), Some("all"));
        assert!(shown_command("sacct", &all).starts_with("TZ='UTC' SLURM_TIME_FORMAT='%Y-%m-%dT%H:%M:%S' sacct -a"));
    }
}
