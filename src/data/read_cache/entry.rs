//! One cache entry on disk: the read's frames as Parquet (through Polars) and the rest of it
//! as JSON (`meta.json`), with what each frame file must be (its length, an XXH3-128 checksum
//! of all its bytes, its rows); `meta.sum`, written last, is the checksum of `meta.json`'s
//! bytes. Every file is fsynced before the folder is renamed into place. On the way back each
//! checksum is verified and the runs kept within the readers' bounds (`entry_bounds`), so a
//! damaged, edited or partial entry is recognised and never used.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::Path;

use polars::prelude::*;
use serde::{Deserialize, Serialize};

use super::entry_bounds::check_runs;
use super::error::CacheError;
use super::key::{ENTRY_FORMAT, bytes_hash, content_hash};
use crate::data::audit::classify::features::GPU_TYPE_CODE;
use crate::data::audit::classify::vocabulary::{GPU_TYPES, MAX_NAMES, UNKNOWN_LABELS, Vocabulary};
use crate::data::audit::classify::{LABEL_CODE, UNKNOWN_LABEL_BASE};
use crate::data::audit::fleet_source::FleetSource;
use crate::data::audit::job_details::RunOrigins;
use crate::data::readers::formats::reader_named;
use crate::data::readers::load::FileSummary;
use crate::data::readers::panic_guard::without_panics;
use crate::data::readers::reject::Quarantine;

pub const META: &str = "meta.json";
/// The checksum of `meta.json`'s bytes, as 32 hex digits: written last, so an entry without it
/// is partial.
pub const SUM: &str = "meta.sum";
const RUNS: &str = "runs.parquet";
const PENDING: &str = "pending.parquet";
const UTILIZATION: &str = "utilization.parquet";

#[derive(Debug, Serialize, Deserialize)]
struct FrameFile {
    name: String,
    bytes: u64,
    /// XXH3-128 of every byte, as 32 hex digits.
    checksum: String,
    rows: usize,
}

#[derive(Debug, Serialize, Deserialize)]
struct CachedFile {
    path: String,
    format: String,
    rows: usize,
    rejected: u64,
    warnings: Vec<String>,
    #[serde(default)]
    notes: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Meta {
    entry_format: u32,
    key: String,
    frames: Vec<FrameFile>,
    files: Vec<CachedFile>,
    quarantine: Quarantine,
    hosts: BTreeMap<String, String>,
    origins: RunOrigins,
    has_utilization: bool,
    /// The process's vocabularies when written: the numbers in `gpu_type_code` and
    /// `label_code` are renumbered into the reading process's on the way back.
    gpu_types: Vec<String>,
    unknown_labels: Vec<String>,
}

fn write_frame(dir: &Path, name: &str, frame: &mut DataFrame) -> Result<FrameFile, CacheError> {
    let path = dir.join(name);
    let mut file = File::create(&path).map_err(CacheError::io(&path))?;
    // Uncompressed: reading it back is the point, and it needs no codec.
    // No statistics: nothing filters this file, it is read whole.
    ParquetWriter::new(&mut file)
        .with_compression(ParquetCompression::Uncompressed)
        .with_statistics(StatisticsOptions {
            min_value: false,
            max_value: false,
            distinct_count: false,
            null_count: false,
            binary_statistics_truncate_length: None,
        })
        .finish(frame)
        .map_err(|source| CacheError::Parquet {
            frame: name.to_string(),
            source,
        })?;
    file.sync_all().map_err(CacheError::io(&path))?;
    let bytes = std::fs::metadata(&path).map_err(CacheError::io(&path))?.len();
    let checksum = content_hash(&path).map_err(CacheError::io(&path))?;
    Ok(FrameFile {
        name: name.to_string(),
        bytes,
        checksum: format!("{checksum:032x}"),
        rows: frame.height(),
    })
}

/// Writes a read into `dir` (a new, empty folder). Only runs read whole are kept.
pub fn write_entry(dir: &Path, key: &str, source: &FleetSource) -> Result<(), CacheError> {
    let FleetSource::Runs {
        runs,
        quarantine,
        files,
        utilization,
        hosts,
        pending,
        origins,
    } = source
    else {
        return Err(CacheError::NotReadWhole);
    };
    // A read the way back would refuse is not kept (it would only be read again, and said damaged).
    check_runs(RUNS, runs)?;
    let mut frames = vec![
        write_frame(dir, RUNS, &mut runs.clone())?,
        write_frame(dir, PENDING, &mut pending.clone())?,
    ];
    if let Some(utilization) = utilization {
        frames.push(write_frame(dir, UTILIZATION, &mut utilization.clone())?);
    }
    let meta = Meta {
        entry_format: ENTRY_FORMAT,
        key: key.to_string(),
        frames,
        files: files
            .iter()
            .map(|f| CachedFile {
                path: f.path.clone(),
                format: f.format.to_string(),
                rows: f.rows,
                rejected: f.rejected,
                warnings: f.warnings.clone(),
                notes: f.notes.clone(),
            })
            .collect(),
        quarantine: quarantine.clone(),
        hosts: hosts.clone(),
        origins: origins.clone(),
        has_utilization: utilization.is_some(),
        gpu_types: GPU_TYPES.texts(),
        unknown_labels: UNKNOWN_LABELS.texts(),
    };
    let text = serde_json::to_string(&meta).map_err(|source| CacheError::Index { source })?;
    write_synced(&dir.join(META), text.as_bytes())?;
    // Written last: an entry without it is partial.
    write_synced(
        &dir.join(SUM),
        format!("{:032x}", bytes_hash(text.as_bytes())).as_bytes(),
    )
}

/// `bytes` in a new file at `path`, on the disk before this returns.
fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), CacheError> {
    let mut file = File::create(path).map_err(CacheError::io(path))?;
    file.write_all(bytes).map_err(CacheError::io(path))?;
    file.sync_all().map_err(CacheError::io(path))
}

fn read_frame(dir: &Path, expected: &FrameFile) -> Result<DataFrame, CacheError> {
    let path = dir.join(&expected.name);
    let frame_name = || expected.name.clone();
    let bytes = std::fs::metadata(&path).map_err(CacheError::io(&path))?.len();
    if bytes != expected.bytes
        || format!("{:032x}", content_hash(&path).map_err(CacheError::io(&path))?) != expected.checksum
    {
        return Err(CacheError::Changed { frame: frame_name() });
    }
    let file = File::open(&path).map_err(CacheError::io(&path))?;
    // Polars' decoder panics on some damaged files (found by fuzzing the Parquet reader).
    let frame = without_panics(|| ParquetReader::new(file).finish())
        .map_err(|source| CacheError::Decoder {
            frame: frame_name(),
            source,
        })?
        .map_err(|source| CacheError::Parquet {
            frame: frame_name(),
            source,
        })?;
    if frame.height() != expected.rows {
        return Err(CacheError::Rows {
            frame: frame_name(),
            found: frame.height(),
            expected: expected.rows,
        });
    }
    Ok(frame)
}

/// `column`'s numbers from `offset` up mapped through `texts` (the writer's vocabulary) to
/// `vocabulary`'s numbers in this process; numbers below `offset` are not the vocabulary's.
fn renumber_column(
    frame: &mut DataFrame,
    column: &str,
    offset: u32,
    texts: &[String],
    vocabulary: &Vocabulary,
) -> Result<(), CacheError> {
    let Ok(values) = frame.column(column) else {
        return Ok(());
    };
    let now: Vec<u32> = texts.iter().map(|t| vocabulary.intern(t)).collect();
    let parquet = |source| CacheError::Parquet {
        frame: column.to_string(),
        source,
    };
    let values = values.u32().map_err(parquet)?;
    let mapped: UInt32Chunked = values
        .iter()
        .map(|v| {
            v.map(|code| match code.checked_sub(offset) {
                None => code,
                Some(number) => offset + now.get(number as usize).copied().unwrap_or(MAX_NAMES as u32),
            })
        })
        .collect();
    frame
        .with_column(mapped.with_name(column.into()).into_column())
        .map_err(parquet)?;
    Ok(())
}

fn renumbered(mut frame: DataFrame, gpu_types: &[String], unknown_labels: &[String]) -> Result<DataFrame, CacheError> {
    renumber_column(&mut frame, GPU_TYPE_CODE, 0, gpu_types, &GPU_TYPES)?;
    renumber_column(
        &mut frame,
        LABEL_CODE,
        UNKNOWN_LABEL_BASE,
        unknown_labels,
        &UNKNOWN_LABELS,
    )?;
    Ok(frame)
}

/// The read kept in `dir` when it is whole and stands for `key`; why not, otherwise.
pub fn read_entry(dir: &Path, key: &str) -> Result<FleetSource, CacheError> {
    let sum_path = dir.join(SUM);
    let sum = match std::fs::read_to_string(&sum_path) {
        Ok(sum) => sum,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(CacheError::Unfinished),
        Err(e) => return Err(CacheError::io(&sum_path)(e)),
    };
    let path = dir.join(META);
    let text = std::fs::read(&path).map_err(CacheError::io(&path))?;
    if format!("{:032x}", bytes_hash(&text)) != sum.trim() {
        return Err(CacheError::Changed {
            frame: META.to_string(),
        });
    }
    let meta: Meta = serde_json::from_slice(&text).map_err(|source| CacheError::Index { source })?;
    if meta.entry_format != ENTRY_FORMAT || meta.key != key {
        return Err(CacheError::OtherInputs);
    }
    let frame = |name: &str| -> Result<Option<DataFrame>, CacheError> {
        meta.frames
            .iter()
            .find(|f| f.name == name)
            .map(|f| read_frame(dir, f))
            .transpose()
    };
    let renumber = |frame: DataFrame| renumbered(frame, &meta.gpu_types, &meta.unknown_labels);
    let missing = |frame: &'static str| CacheError::MissingFrame { frame };
    let runs = frame(RUNS)?.ok_or_else(|| missing(RUNS))?;
    // Cached rows skip the readers' checks: a value they would set aside means damage.
    check_runs(RUNS, &runs)?;
    let runs = renumber(runs)?;
    let pending = renumber(frame(PENDING)?.ok_or_else(|| missing(PENDING))?)?;
    let utilization = frame(UTILIZATION)?;
    if utilization.is_some() != meta.has_utilization {
        return Err(missing(UTILIZATION));
    }
    let files = meta
        .files
        .into_iter()
        .map(|f| {
            let format = reader_named(&f.format)
                .map_err(|source| CacheError::Format { source })?
                .name();
            Ok(FileSummary {
                path: f.path,
                format,
                rows: f.rows,
                rejected: f.rejected,
                warnings: f.warnings,
                notes: f.notes,
            })
        })
        .collect::<Result<Vec<_>, CacheError>>()?;
    Ok(FleetSource::Runs {
        runs,
        quarantine: meta.quarantine,
        files,
        utilization,
        hosts: meta.hosts,
        pending,
        origins: meta.origins,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_of_the_writers_vocabulary_are_renumbered_into_this_processs() {
        // This process already numbered another type first, so the writer's 0 and 1 move.
        let seen_here = GPU_TYPES.intern("read-cache-test-seen-first");
        let texts = vec!["read-cache-test-a".to_string(), "read-cache-test-b".to_string()];
        let frame = df!(GPU_TYPE_CODE => [Some(0u32), Some(1), None, Some(MAX_NAMES as u32)]).expect("frame");
        let frame = renumbered(frame, &texts, &[]).expect("renumbered");
        let codes: Vec<Option<u32>> = frame
            .column(GPU_TYPE_CODE)
            .expect("column")
            .u32()
            .expect("u32")
            .iter()
            .collect();
        let (a, b) = (
            GPU_TYPES.intern("read-cache-test-a"),
            GPU_TYPES.intern("read-cache-test-b"),
        );
        assert_ne!(a, seen_here);
        assert_eq!(codes, vec![Some(a), Some(b), None, Some(MAX_NAMES as u32)]);
        assert_eq!(GPU_TYPES.name_of(a), "read-cache-test-a");
    }

    #[test]
    fn label_codes_below_the_unknown_base_are_classes_and_stay() {
        let texts = vec!["read-cache-test-label".to_string()];
        let frame = df!(LABEL_CODE => [Some(0u32), Some(2), Some(UNKNOWN_LABEL_BASE)]).expect("frame");
        let frame = renumbered(frame, &[], &texts).expect("renumbered");
        let codes: Vec<Option<u32>> = frame
            .column(LABEL_CODE)
            .expect("column")
            .u32()
            .expect("u32")
            .iter()
            .collect();
        let label = UNKNOWN_LABEL_BASE + UNKNOWN_LABELS.intern("read-cache-test-label");
        assert_eq!(codes, vec![Some(0), Some(2), Some(label)]);
    }
}
