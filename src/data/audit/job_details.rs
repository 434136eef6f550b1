//! What the log says of a few chosen runs (id, name, user, queue, state), read back from the
//! files after the audit ranked its largest jobs. An audit never holds these text columns for
//! every row (ten million rows would not fit in 2 GiB); a dozen jobs per cluster and class are
//! read again instead:
//! - delimited text: only the pieces holding a chosen record, each scanned for record ends
//!   from where the first read said it begins, the chosen records parsed with the same mapping;
//! - Parquet, JSON: the mapped columns, filtered to the chosen rows;
//! - Slurm and Philly: the file read again by its reader, runs picked by line.
//!
//! A record read back counts only when its (cluster, job id) gives the run's job key: a file
//! changed since it was read gives no details rather than another job's.

use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::{Path, PathBuf};

use polars::prelude::*;
use rayon::prelude::*;

use super::classify::features::job_key;
use crate::data::canonical::{self as c, JobRun};
use crate::data::error::DataError;
use crate::data::places::ROW;
use crate::data::readers::detect::LogFormat;
use crate::data::readers::mapping::Mapping;
use crate::data::readers::tabular::{self, Piece};

/// The log's own words about one run.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RunText {
    pub job_id: Option<String>,
    pub name: Option<String>,
    pub user: Option<String>,
    pub queue: Option<String>,
    pub state: Option<String>,
}

/// Where the rows of a run frame came from: which file, read how.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RunOrigin {
    pub path: PathBuf,
    pub format: LogFormat,
    /// The mapping as applied (completed from the header), for tabular logs.
    pub mapping: Option<Mapping>,
    pub cluster_default: String,
    /// The file's rows in the frame of every file's runs.
    pub rows: Range<usize>,
    /// Where the pieces of a delimited file begin.
    pub pieces: Vec<Piece>,
}

/// The origin of every row of a run frame, file after file.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct RunOrigins {
    pub files: Vec<RunOrigin>,
    /// Runs that came with no file to read back (sacct run by gpuplan): their text, by frame
    /// row, kept from the read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept: Vec<RunText>,
}

impl RunOrigins {
    /// Runs read from no file: each one's text kept, in the frame's order.
    pub fn kept_from(runs: &[JobRun]) -> RunOrigins {
        RunOrigins {
            files: Vec::new(),
            kept: runs.iter().map(|run| run_text(run).1).collect(),
        }
    }
}

/// A chosen run: its row in the run frame, its source line and its job key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WantedRun {
    pub row: usize,
    pub line: u64,
    pub key: u64,
}

fn err(e: PolarsError) -> DataError {
    DataError::Frame(e)
}

impl RunOrigins {
    /// The log's text for each wanted run (by frame row) that could be read back and matched.
    pub fn read_back(&self, wanted: &[WantedRun]) -> HashMap<usize, RunText> {
        let mut by_file: BTreeMap<usize, Vec<WantedRun>> = BTreeMap::new();
        for run in wanted {
            if let Some(file) = self.files.iter().position(|f| f.rows.contains(&run.row)) {
                by_file.entry(file).or_default().push(*run);
            }
        }
        let mut out: HashMap<usize, RunText> = wanted
            .iter()
            .filter_map(|run| Some((run.row, self.kept.get(run.row)?.clone())))
            .collect();
        for (file, runs) in by_file {
            let origin = &self.files[file];
            // A file that cannot be read again gives no details: the audit stands without them.
            let Ok(texts) = origin.read_lines(&runs) else { continue };
            for run in runs {
                if let Some((cluster, text)) = texts.get(&run.line)
                    && job_key(cluster.as_deref(), text.job_id.as_deref().unwrap_or("")) == run.key
                {
                    out.insert(run.row, text.clone());
                }
            }
        }
        out
    }
}

/// Runs by source line, with their cluster (for the key check).
type ByLine = HashMap<u64, (Option<String>, RunText)>;

fn run_text(run: &JobRun) -> (Option<String>, RunText) {
    (
        Some(run.cluster.clone()),
        RunText {
            job_id: Some(run.job_id.clone()),
            name: run.name.clone(),
            user: run.user.clone(),
            queue: run.queue.clone(),
            state: run.state.clone(),
        },
    )
}

impl RunOrigin {
    fn read_lines(&self, runs: &[WantedRun]) -> Result<ByLine, DataError> {
        let lines: Vec<u64> = runs.iter().map(|r| r.line).collect();
        match self.format {
            LogFormat::Sacct | LogFormat::Philly => {
                let text = std::fs::read_to_string(&self.path).map_err(|e| DataError::Io {
                    path: self.path.clone(),
                    source: e.into(),
                })?;
                let runs = if self.format == LogFormat::Sacct {
                    crate::data::readers::slurm::read_sacct_detailed(&self.path, &text, &self.cluster_default)?.runs
                } else {
                    crate::data::readers::philly::read_philly_detailed(&self.path, &text, &self.cluster_default)?.runs
                };
                Ok(runs
                    .iter()
                    .filter(|r| lines.contains(&r.source_line))
                    .map(|r| (r.source_line, run_text(r)))
                    .collect())
            }
            LogFormat::Csv { delimiter } => {
                let mapping = self.mapping.clone().unwrap_or_default();
                let records = read_records(&self.path, &self.pieces, &lines, &mapping)?;
                let names = tabular::column_names(&self.path, delimiter, &mapping)?;
                let frame = tabular::parse_records(records.bytes, &names, delimiter, &mapping)?;
                // Rows of the parsed records stand for their lines in order.
                let lines = records.lines;
                texts_of(frame.lazy(), &mapping, self.format, Some(&lines))
            }
            LogFormat::Parquet | LogFormat::Ndjson | LogFormat::JsonArray => {
                let mapping = self.mapping.clone().unwrap_or_default();
                let first = tabular::first_line_number(self.format, &mapping);
                let rows: Vec<u64> = lines.iter().map(|l| l.saturating_sub(first)).collect();
                let scan = tabular::scan(&self.path, self.format, &mapping)?.filter(
                    col(ROW)
                        .cast(DataType::UInt64)
                        .is_in(lit(Series::new("rows".into(), rows)).implode(false), false),
                );
                texts_of(scan, &mapping, self.format, None)
            }
            LogFormat::DcgmLong
            | LogFormat::DcgmWide
            | LogFormat::NvidiaSmi
            | LogFormat::Dmon
            | LogFormat::NodeList => Ok(ByLine::new()),
        }
    }
}

/// The text fields of a tabular frame through the mapping, by source line: the frame's own
/// row index, or `lines` in order.
fn texts_of(
    frame: LazyFrame,
    mapping: &Mapping,
    format: LogFormat,
    lines: Option<&[u64]>,
) -> Result<ByLine, DataError> {
    let frame = match lines {
        // Parsed records carry no row index: number them by the lines they were cut from.
        Some(lines) => {
            let rows: Vec<u64> = lines
                .iter()
                .map(|l| l.saturating_sub(tabular::first_line_number(format, mapping)))
                .collect();
            frame.with_column(lit(Series::new(ROW.into(), rows)).alias(ROW))
        }
        None => frame,
    };
    let texts = frame
        .select(tabular::text_exprs(mapping, format))
        .collect()
        .map_err(err)?;
    let text = |name: &str| -> Result<StringChunked, DataError> {
        Ok(texts.column(name).map_err(err)?.str().map_err(err)?.clone())
    };
    let (ids, clusters, names, users, queues, states) = (
        text(c::JOB_ID)?,
        text(c::CLUSTER)?,
        text(c::NAME)?,
        text(c::USER)?,
        text(c::QUEUE)?,
        text(c::STATE)?,
    );
    let source_lines = texts.column(c::SOURCE_LINE).map_err(err)?.u64().map_err(err)?.clone();
    let own = |v: Option<&str>| v.map(str::trim).filter(|v| !v.is_empty()).map(str::to_string);
    let mut out = ByLine::new();
    for i in 0..texts.height() {
        let Some(line) = source_lines.get(i) else { continue };
        out.insert(
            line,
            (
                clusters.get(i).map(str::to_string),
                RunText {
                    job_id: ids.get(i).map(str::to_string),
                    name: own(names.get(i)),
                    user: own(users.get(i)),
                    queue: own(queues.get(i)),
                    state: own(states.get(i)),
                },
            ),
        );
    }
    Ok(out)
}

/// Chosen records of a delimited file, and the line each stands for.
struct Records {
    bytes: Vec<u8>,
    lines: Vec<u64>,
}

/// Bytes read at a time while looking for records.
const BLOCK_BYTES: usize = 1 << 20;

/// The records at `lines` (source lines as the reader numbered them), found from the pieces'
/// starts: only pieces holding a wanted record are read, up to its last wanted one, in
/// parallel.
fn read_records(path: &Path, pieces: &[Piece], lines: &[u64], mapping: &Mapping) -> Result<Records, DataError> {
    let first_line = if mapping.has_header { 2 } else { 1 };
    // Without the pieces' starts, the scan starts at the file's first byte, where a header
    // is one record more.
    let (fallback, shift) = (
        [Piece {
            byte_offset: 0,
            first_row: 0,
        }],
        u64::from(pieces.is_empty() && mapping.has_header),
    );
    let mut rows: Vec<u64> = lines.iter().map(|l| l.saturating_sub(first_line) + shift).collect();
    rows.sort_unstable();
    rows.dedup();
    let pieces = if pieces.is_empty() { &fallback[..] } else { pieces };
    // Each wanted row to the piece it lies in.
    let mut per_piece: Vec<(Piece, Vec<u64>)> = Vec::new();
    for row in rows {
        let index = pieces.partition_point(|p| p.first_row <= row).saturating_sub(1);
        match per_piece.last_mut() {
            Some((piece, rows)) if *piece == pieces[index] => rows.push(row),
            _ => per_piece.push((pieces[index], vec![row])),
        }
    }
    let found: Vec<Vec<(u64, Vec<u8>)>> = per_piece
        .par_iter()
        .map(|(piece, rows)| records_in_piece(path, *piece, rows))
        .collect::<Result<_, DataError>>()?;
    let mut records = Records {
        bytes: Vec::new(),
        lines: Vec::new(),
    };
    for (row, mut bytes) in found.into_iter().flatten() {
        if !bytes.ends_with(b"\n") {
            bytes.push(b'\n');
        }
        records.bytes.extend_from_slice(&bytes);
        records.lines.push(row - shift + first_line);
    }
    Ok(records)
}

/// Where the newline after `skip` others lies in `bytes`, or how many newlines it holds.
fn newline_after(bytes: &[u8], skip: u64) -> Result<usize, u64> {
    let mut newlines = memchr::memchr_iter(b'\n', bytes);
    for seen in 0..=skip {
        match newlines.next() {
            Some(at) if seen == skip => return Ok(at),
            Some(_) => {}
            None => return Err(seen),
        }
    }
    Err(skip + 1)
}

/// The wanted records (ascending rows) of one piece, scanning from its start: record ends are
/// newlines outside quotes, as the reader cut them. In blocks without quotes the newlines are
/// found by `memchr`; quoted ones are walked byte by byte.
fn records_in_piece(path: &Path, piece: Piece, rows: &[u64]) -> Result<Vec<(u64, Vec<u8>)>, DataError> {
    let mut file = std::fs::File::open(path).map_err(|e| DataError::cannot_open(path, e))?;
    file.seek(SeekFrom::Start(piece.byte_offset))
        .map_err(|e| DataError::cannot_read(path, e))?;
    let mut out = Vec::with_capacity(rows.len());
    let mut wanted = rows.iter().copied().peekable();
    let mut row = piece.first_row;
    let mut record: Vec<u8> = Vec::new();
    let mut in_quotes = false;
    let mut block = vec![0u8; BLOCK_BYTES];
    'read: while let Some(&next) = wanted.peek() {
        let filled = file.read(&mut block).map_err(|e| DataError::cannot_read(path, e))?;
        if filled == 0 {
            if row == next && !record.is_empty() {
                out.push((row, std::mem::take(&mut record)));
            }
            break;
        }
        let block = &block[..filled];
        let quoted = memchr::memchr(b'"', block).is_some();
        let mut from = 0;
        while from < block.len() {
            let Some(&next) = wanted.peek() else { break 'read };
            let end = if !in_quotes && !quoted {
                // Outside quotes, in a block without any: skip to the wanted record by counting.
                if row < next {
                    match newline_after(&block[from..], next - row - 1) {
                        Ok(i) => {
                            from += i + 1;
                            row = next;
                            continue;
                        }
                        Err(newlines) => {
                            row += newlines;
                            break;
                        }
                    }
                }
                memchr::memchr(b'\n', &block[from..]).map(|i| from + i)
            } else {
                let mut end = None;
                for (i, &byte) in block[from..].iter().enumerate() {
                    match byte {
                        b'"' => in_quotes = !in_quotes,
                        b'\n' if !in_quotes => {
                            end = Some(from + i);
                            break;
                        }
                        _ => {}
                    }
                }
                end
            };
            match end {
                Some(end) => {
                    if row == next {
                        record.extend_from_slice(&block[from..=end]);
                        out.push((row, std::mem::take(&mut record)));
                        wanted.next();
                    }
                    row += 1;
                    from = end + 1;
                }
                None => {
                    if row == next {
                        record.extend_from_slice(&block[from..]);
                    }
                    from = block.len();
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_found_from_their_piece_and_across_quoted_newlines() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log.csv");
        let text = "id,name\n1,a\n2,\"two\nlines\"\n3,c\n4,d\n";
        std::fs::write(&path, text).expect("write");
        let mapping = Mapping::default();
        // Lines as the reader numbers records: header is line 1, record k is line k + 2.
        let all = read_records(&path, &[], &[3, 5], &mapping).expect("read");
        assert_eq!(String::from_utf8(all.bytes).expect("utf-8"), "2,\"two\nlines\"\n4,d\n");
        assert_eq!(all.lines, [3, 5]);
        // The same records found from a second piece starting at record 2 ("3,c").
        let offset = text.find("3,c").expect("record") as u64;
        let pieces = [
            Piece {
                byte_offset: 8,
                first_row: 0,
            },
            Piece {
                byte_offset: offset,
                first_row: 2,
            },
        ];
        let split = read_records(&path, &pieces, &[3, 5], &mapping).expect("read");
        assert_eq!(
            String::from_utf8(split.bytes).expect("utf-8"),
            "2,\"two\nlines\"\n4,d\n"
        );
    }

    #[test]
    fn records_across_blocks_with_and_without_quotes_match_a_plain_split() {
        // About 3 MB: several read blocks, quoted newlines only in the middle one.
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log.csv");
        let mut text = String::from("id,name\n");
        let mut records = Vec::new();
        for i in 0..60_000u64 {
            let name = if (25_000..25_050).contains(&i) {
                format!("\"two\nlines {i}\"")
            } else {
                format!("name-{i}-{}", "x".repeat((i % 40) as usize))
            };
            let record = format!("{i},{name}\n");
            text.push_str(&record);
            records.push(record);
        }
        std::fs::write(&path, &text).expect("write");
        let mapping = Mapping::default();
        let rows: Vec<u64> = vec![0, 1, 9_999, 25_000, 25_049, 25_050, 40_001, 59_999];
        let lines: Vec<u64> = rows.iter().map(|r| r + 2).collect();
        let found = read_records(&path, &[], &lines, &mapping).expect("read");
        let expected: String = rows.iter().map(|&r| records[r as usize].as_str()).collect();
        assert_eq!(String::from_utf8(found.bytes).expect("utf-8"), expected);
        assert_eq!(found.lines, lines);
    }
}
