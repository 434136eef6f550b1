//! The formats gpuplan reads, in one list. Each format is a `LogReader` written in its own
//! module (how it is recognised, what it yields, how it reads a file); `FORMATS` names each once,
//! in the order detection tries them. Detection (`detect`), loading (`load`), the read cache,
//! `--input-format` and a mapping's `format` find a format through its entry here, so a new
//! format is its module, a `LogFormat` variant and a line in `FORMATS`.

use std::collections::BTreeMap;
use std::path::Path;

use polars::prelude::DataFrame;

use super::mapping::Mapping;
use super::reject::Quarantine;
use super::tabular::{Detail, Piece};
use super::{dcgm, node_list, nvidia_smi, philly, slurm, tabular};
use crate::data::canonical::{JobRun, PendingRun, frame_from_pending, frame_from_runs};
use crate::data::error::DataError;

/// Every format, in the order detection tries them: the first whose `recognise` answers wins,
/// so a narrower format comes before a wider one (Philly before any JSON array, the CSV
/// fallback last).
pub static FORMATS: &[&dyn LogReader] = &[
    &tabular::format::Parquet,
    &philly::format::Philly,
    &tabular::format::JsonArray,
    &tabular::format::Ndjson,
    &nvidia_smi::format::Dmon,
    &nvidia_smi::format::NvidiaSmiQuery,
    &slurm::format::Sacct,
    &dcgm::format::DcgmLong,
    &dcgm::format::DcgmWide,
    &node_list::format::NodeList,
    &tabular::format::Tsv,
    &tabular::format::Csv,
];

/// Every log layout gpuplan reads: what a file was read as, kept with its runs (and in the
/// read cache) to read chosen rows back. Each has one entry in `FORMATS` (`LogFormat::reader`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LogFormat {
    Csv {
        delimiter: u8,
    },
    Parquet,
    Ndjson,
    JsonArray,
    Sacct,
    Philly,
    DcgmLong,
    DcgmWide,
    /// `nvidia-smi --query-gpu=... --format=csv`.
    NvidiaSmi,
    /// `nvidia-smi dmon`.
    Dmon,
    /// Nodes with their GPU count and model, read beside the logs to price their clusters.
    NodeList,
}

impl LogFormat {
    /// The entry of `FORMATS` that reads this layout.
    pub fn reader(self) -> &'static dyn LogReader {
        FORMATS
            .iter()
            .copied()
            .find(|reader| reader.reads(self))
            // `every_layout_has_one_entry` holds this for every variant.
            .expect("every LogFormat has its entry in FORMATS")
    }

    /// The name the user gives and the audit's file list shows.
    pub fn name(self) -> &'static str {
        self.reader().name()
    }

    /// Job logs give jobs; DCGM exports and nvidia-smi recordings give utilization samples.
    pub fn is_utilization_samples(self) -> bool {
        self.reader().yields() == Yields::UtilizationSamples
    }
}

/// What a format gives the audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Yields {
    /// Job runs (and the jobs that never started).
    Runs,
    /// Utilization samples beside the job logs (the columns of `dcgm::utilization_schema`).
    UtilizationSamples,
    /// A fleet's nodes, each with its GPU count and model: what its clusters run on.
    Nodes,
}

/// One format: its names, how a file is recognised as it, what it yields and how it is read.
pub trait LogReader: Sync {
    /// The name `--input-format` and a mapping's `format` take and the audit's file list shows.
    fn name(&self) -> &'static str;
    /// Other names the user may give it.
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }
    /// What it gives the audit.
    fn yields(&self) -> Yields;
    /// The layout read when the user names this format (`delimiter`: the mapping's).
    fn layout(&self, delimiter: Option<u8>) -> LogFormat;
    /// Whether `format` is this entry's layout.
    fn reads(&self, format: LogFormat) -> bool;
    /// The layout when the file's name and first bytes are this format's; `None` to let the
    /// next entry try. An error stops detection (a text test on a file that is not text).
    fn recognise(&self, probe: &Probe<'_>) -> Result<Option<LogFormat>, DataError>;
    /// Reads one file as `input.format`.
    fn read(&self, input: &ReadInput<'_>) -> Result<FormatRead, DataError>;
}

/// One input about to be read.
#[derive(Debug, Clone, Copy)]
pub struct ReadInput<'a> {
    pub path: &'a Path,
    /// The path as messages show it.
    pub shown: &'a str,
    pub format: LogFormat,
    /// The cluster of rows that name none: the mapping's constant, else the file's stem.
    pub cluster_default: &'a str,
    pub mapping: Option<&'a Mapping>,
    pub detail: Detail<'a>,
}

/// What one file gave.
#[derive(Debug, Clone)]
pub struct FormatRead {
    /// The rows the file summary counts (runs, samples or recorded lines, as the format reads).
    pub rows: usize,
    pub yielded: Yielded,
    pub quarantine: Quarantine,
    /// Problems worth a line of the audit (host lists that could not be expanded, columns
    /// guessed).
    pub warnings: Vec<String>,
    /// What reading established that the audit reports (a recording's host and measures).
    pub notes: Vec<String>,
}

/// The frames a file gave, by what its format yields.
#[derive(Debug, Clone)]
pub enum Yielded {
    /// Boxed: a mapping is large beside a frame.
    Runs(Box<RunsRead>),
    UtilizationSamples(DataFrame),
    Nodes(Vec<super::node_list::Node>),
}

/// A job log's runs and what comes with them.
#[derive(Debug, Clone)]
pub struct RunsRead {
    pub jobs: DataFrame,
    /// Jobs that never started; `None` when there are none.
    pub pending: Option<DataFrame>,
    /// Host → cluster, from the hosts the log ran jobs on.
    pub hosts: BTreeMap<String, String>,
    /// The mapping as applied, for tabular logs (to read chosen rows back).
    pub mapping: Option<Mapping>,
    /// Where each piece of a delimited file begins.
    pub pieces: Vec<Piece>,
}

impl RunsRead {
    /// Runs with no mapping, pieces or hosts: a reader of its own layout.
    pub fn of(jobs: DataFrame, pending: Option<DataFrame>) -> RunsRead {
        RunsRead {
            jobs,
            pending,
            hosts: BTreeMap::new(),
            mapping: None,
            pieces: Vec::new(),
        }
    }

    /// The runs and jobs never started of a log read whole (Philly's, sacct's), as frames.
    pub fn from_runs(runs: &[JobRun], pending: &[PendingRun]) -> Result<RunsRead, DataError> {
        let jobs = frame_from_runs(runs)?;
        let pending = (!pending.is_empty()).then(|| frame_from_pending(pending)).transpose()?;
        Ok(RunsRead::of(jobs, pending))
    }
}

/// What detection knows of a file: its path and first bytes, and, when they are text, that
/// text taken apart once for every entry.
#[derive(Debug)]
pub struct Probe<'a> {
    pub path: &'a Path,
    pub head: &'a [u8],
    text: Result<TextProbe, DataError>,
}

/// A text file's first bytes as the text formats test them.
#[derive(Debug)]
pub struct TextProbe {
    /// The first bytes (lossy UTF-8).
    pub text: String,
    /// The file's extension, lower case.
    pub extension: String,
    /// The file's name.
    pub file_name: String,
    /// The first line, without a byte-order mark or `\r`.
    pub header_line: String,
    /// The header's delimiter: a tab for `.tsv`, else sniffed.
    pub delimiter: u8,
    /// The header split on `delimiter`.
    pub header: Vec<String>,
}

impl TextProbe {
    /// The text without a byte-order mark or leading white space.
    pub fn trimmed(&self) -> &str {
        self.text.trim_start_matches('\u{feff}').trim_start()
    }
}

impl<'a> Probe<'a> {
    pub fn new(path: &'a Path, head: &'a [u8]) -> Probe<'a> {
        Probe {
            path,
            head,
            text: text_probe(path, head),
        }
    }

    /// The file's first bytes as text, or why they are not (empty, UTF-16, binary).
    pub fn text(&self) -> Result<&TextProbe, DataError> {
        self.text.as_ref().map_err(Clone::clone)
    }
}

fn text_probe(path: &Path, head: &[u8]) -> Result<TextProbe, DataError> {
    use super::detect::{sniff_delimiter, split_header};
    if head.is_empty() {
        return Err(DataError::Empty);
    }
    let probe = &head[..head.len().min(8192)];
    if probe.starts_with(&[0xff, 0xfe]) || probe.starts_with(&[0xfe, 0xff]) {
        return Err(DataError::Utf16);
    }
    if probe.contains(&0) {
        return Err(DataError::Binary);
    }
    let text = String::from_utf8_lossy(head).into_owned();
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let header_line = text
        .lines()
        .next()
        .unwrap_or("")
        .trim_start_matches('\u{feff}')
        .trim_end_matches('\r')
        .to_string();
    let delimiter = if extension == "tsv" {
        b'\t'
    } else {
        sniff_delimiter(&header_line)
    };
    let header = split_header(&header_line, delimiter);
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("").to_string();
    Ok(TextProbe {
        text,
        extension,
        file_name,
        header_line,
        delimiter,
        header,
    })
}

/// A whole file as UTF-8 text, for the formats that read it at once.
pub fn read_text(path: &Path) -> Result<String, DataError> {
    let bytes = std::fs::read(path).map_err(|e| DataError::cannot_read(path, e))?;
    String::from_utf8(bytes).map_err(|e| DataError::NotUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// The entry a user's format name (or alias, any case) names.
pub fn reader_named(name: &str) -> Result<&'static dyn LogReader, DataError> {
    let lower = name.to_ascii_lowercase();
    FORMATS
        .iter()
        .copied()
        .find(|reader| reader.name() == lower || reader.aliases().contains(&lower.as_str()))
        .ok_or(DataError::UnknownFormat { name: lower })
}

/// Every format's name, in `FORMATS`' order, for messages and help.
pub fn format_names() -> String {
    FORMATS
        .iter()
        .map(|reader| reader.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `--input-format`'s help: the names it takes.
pub fn input_format_help() -> String {
    format!(
        "The logs' layout when detection guesses wrong: {} (the order detection tries them in)",
        format_names()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::readers::detect::{detect_format, parse_format_name};

    #[test]
    fn every_registered_name_and_alias_round_trips_through_parse() {
        for reader in FORMATS {
            for name in std::iter::once(reader.name()).chain(reader.aliases().iter().copied()) {
                let format = parse_format_name(name, None).expect(name);
                assert!(reader.reads(format), "{name}");
                assert_eq!(format.name(), reader.name(), "{name}");
                assert_eq!(parse_format_name(&name.to_ascii_uppercase(), None).ok(), Some(format));
            }
            assert_eq!(reader.layout(None).reader().name(), reader.name());
        }
        for name in format_names().split(", ") {
            assert!(reader_named(name).is_ok(), "{name}");
        }
        assert!(parse_format_name("xlsx", None).is_err_and(|e| e.to_string().contains(&format_names())));
    }

    #[test]
    fn names_and_aliases_name_one_format_each() {
        let mut seen = std::collections::BTreeSet::new();
        for reader in FORMATS {
            for name in std::iter::once(reader.name()).chain(reader.aliases().iter().copied()) {
                assert!(seen.insert(name), "{name} names two formats");
            }
        }
    }

    #[test]
    fn every_layout_has_one_entry() {
        let layouts = [
            LogFormat::Csv { delimiter: b',' },
            LogFormat::Csv { delimiter: b';' },
            LogFormat::Csv { delimiter: b'\t' },
            LogFormat::Parquet,
            LogFormat::Ndjson,
            LogFormat::JsonArray,
            LogFormat::Sacct,
            LogFormat::Philly,
            LogFormat::DcgmLong,
            LogFormat::DcgmWide,
            LogFormat::NvidiaSmi,
            LogFormat::Dmon,
            LogFormat::NodeList,
        ];
        // A new layout does not compile here until it is listed above too.
        for layout in layouts {
            match layout {
                LogFormat::Csv { .. }
                | LogFormat::Parquet
                | LogFormat::Ndjson
                | LogFormat::JsonArray
                | LogFormat::Sacct
                | LogFormat::Philly
                | LogFormat::DcgmLong
                | LogFormat::DcgmWide
                | LogFormat::NvidiaSmi
                | LogFormat::Dmon
                | LogFormat::NodeList => {}
            }
        }
        for layout in layouts {
            let owners = FORMATS.iter().filter(|reader| reader.reads(layout)).count();
            assert_eq!(owners, 1, "{layout:?}");
        }
    }

    /// A file each entry recognises, in `FORMATS`' order.
    const SAMPLES: [(&str, &str); 12] = [
        ("x.bin", "PAR1...."),
        ("p.json", "[\n {\"id\": \"a\", \"attempts\": []}]"),
        ("r.json", "[{\"job\": 1}]"),
        ("r.log", "{\"job\": 1}\n{\"job\": 2}\n"),
        ("node17.txt", "# gpu    sm\n# Idx     %\n    0     45\n"),
        (
            "node17.csv",
            "timestamp, index, utilization.gpu [%]\n2026/11/26 20:37:19.985, 0, 45 %\n",
        ),
        ("s.txt", "JobID|JobName|State\n1|x|RUNNING\n"),
        ("d.csv", "time,host,gpu,metric,value\n"),
        ("DCGM_FI_DEV_GPU_UTIL.csv", "Time,node-1,node-2\n"),
        (
            "openb_node_list_gpu_node.csv",
            "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,P100\n",
        ),
        ("a.tsv", "job_id\tstart\n"),
        ("a.csv", "job_id,start,end\n1,2,3\n"),
    ];

    #[test]
    fn detection_tries_the_formats_in_the_registrys_order() {
        assert_eq!(SAMPLES.len(), FORMATS.len());
        for (index, (file, head)) in SAMPLES.iter().enumerate() {
            let path = Path::new(file);
            let probe = Probe::new(path, head.as_bytes());
            let detected = detect_format(path, head.as_bytes()).expect(file);
            // The first entry that recognises the sample is the registry's `index`th, the one
            // detection answers with.
            let first = FORMATS
                .iter()
                .position(|reader| reader.recognise(&probe).is_ok_and(|f| f.is_some()));
            assert_eq!(first, Some(index), "{file}");
            assert_eq!(detected.name(), FORMATS[index].name(), "{file}");
            assert!(FORMATS[index].reads(detected), "{file}");
        }
        // Wider formats after narrower ones: a Philly file is a JSON array too, any text is CSV.
        let position = |name: &str| FORMATS.iter().position(|r| r.name() == name);
        assert!(position("philly") < position("json"));
        assert_eq!(position("csv"), Some(FORMATS.len() - 1));
        let philly = Probe::new(Path::new(SAMPLES[1].0), SAMPLES[1].1.as_bytes());
        assert!(tabular::format::JsonArray.recognise(&philly).is_ok_and(|f| f.is_some()));
    }
}
