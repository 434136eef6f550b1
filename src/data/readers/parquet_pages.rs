//! What Polars would misread in a Parquet input, checked before Polars decodes it.
//!
//! Polars reads a data page's `num_values` (a signed 32-bit Thrift field) as an unsigned size:
//! a damaged page that says -1 makes it reserve 2^61 bytes for the page's validity bitmap, and
//! a failed allocation aborts the process, which no panic guard can catch (found by fuzzing).
//! So every page header is read first, with Polars' own page reader over a memory map (only the
//! footer and the page headers are read), and a negative count is refused with a message that
//! names the file, the row group and the column. Any other damage (a footer or page that does
//! not parse) is left to Polars, which reports it as an error. A folder with no `.parquet` file
//! under it is refused here too, in our words rather than Polars' scan error.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use polars_buffer::Buffer;
use polars_parquet::parquet::page::{CompressedPage, DataPageHeader};
use polars_parquet::parquet::read::{PageReader, read_metadata};

use crate::data::error::DataError;

/// Refuses a folder with no `.parquet` file under it, and, as a damaged file, a Parquet file
/// (or any `.parquet` or `.pq` file of a folder or glob) whose footer or page headers carry a
/// negative count.
pub(crate) fn refuse_before_decoding(path: &Path) -> Result<(), DataError> {
    let files = parquet_files(path);
    // Polars' scan of a folder reads `**/*.parquet`.
    if path.is_dir() && !files.iter().any(|f| f.extension().is_some_and(|e| e == "parquet")) {
        return Err(DataError::NoParquetInFolder);
    }
    for file in &files {
        check_file(file).map_err(|why| {
            let why = if file.as_path() == path {
                why
            } else {
                DataError::InFile {
                    file: file.display().to_string(),
                    line: None,
                    source: Box::new(why),
                }
            };
            DataError::DamagedParquet(Box::new(why))
        })?;
    }
    Ok(())
}

/// The files a Parquet input stands for: itself, the Parquet files under a (hive) folder, or
/// the files a glob matches.
fn parquet_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut files = Vec::new();
    if path.is_dir() {
        collect_under(path, &mut files, 0);
    } else if let Ok(matches) = glob::glob(&path.to_string_lossy()) {
        files.extend(matches.filter_map(Result::ok).filter(|p| p.is_file()));
    }
    files.sort();
    files
}

/// Hive partitions nest a folder per key; 32 levels is far past any real layout and stops a
/// symlink loop.
const MAX_FOLDER_DEPTH: usize = 32;

fn collect_under(folder: &Path, files: &mut Vec<PathBuf>, depth: usize) {
    if depth > MAX_FOLDER_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            collect_under(&path, files, depth + 1);
        } else if path.extension().is_some_and(|e| e == "parquet" || e == "pq") {
            files.push(path);
        }
    }
}

fn check_file(file: &Path) -> Result<(), DataError> {
    // An unreadable file is left to Polars, which names it the way every other read does.
    let Ok(opened) = std::fs::File::open(file) else {
        return Ok(());
    };
    // SAFETY: the map is only read, and only while this function runs; a log rewritten under
    // us in that time gives wrong counts at worst, as it would to Polars, which maps it too.
    let Ok(map) = (unsafe { memmap2::Mmap::map(&opened) }) else {
        return Ok(());
    };
    let file_len = map.len();
    let buffer = Buffer::from_owner(map);
    let Ok(metadata) = read_metadata(&mut Cursor::new(buffer.clone())) else {
        return Ok(());
    };
    for (group_index, group) in metadata.row_groups.iter().enumerate() {
        for column in group.parquet_columns() {
            let name: Vec<&str> = column.descriptor().path_in_schema.iter().map(|s| s.as_str()).collect();
            let refuse = |in_page: bool, count: i64, counted: &'static str| DataError::NegativeParquetCount {
                row_group: group_index + 1,
                column: name.join("."),
                in_page,
                count,
                counted,
            };
            if column.num_values() < 0 {
                return Err(refuse(false, column.num_values(), "values"));
            }
            let mut reader = Cursor::new(buffer.clone());
            reader.set_position(column.byte_range().start);
            // No page is larger than the file that holds it. Pages are slices of the map, not
            // copies, so only the headers are read from disk.
            for page in PageReader::new(reader, column, Vec::new(), file_len) {
                let Ok(page) = page else {
                    break;
                };
                if let CompressedPage::Data(data) = page
                    && let Some((counted, count)) = negative_count(data.header())
                {
                    return Err(refuse(true, i64::from(count), counted));
                }
            }
        }
    }
    Ok(())
}

/// The first negative count of a data page header: what it counts, and the count.
fn negative_count(header: &DataPageHeader) -> Option<(&'static str, i32)> {
    let (values, nulls, rows) = match header {
        DataPageHeader::V1(h) => (h.num_values, 0, 0),
        DataPageHeader::V2(h) => (h.num_values, h.num_nulls, h.num_rows),
    };
    [("values", values), ("nulls", nulls), ("rows", rows)]
        .into_iter()
        .find(|(_, n)| *n < 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars::prelude::*;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/hostile")
            .join(name)
    }

    #[test]
    fn a_written_file_and_its_folder_pass() {
        let dir = tempfile::tempdir().expect("dir");
        let part = dir.path().join("cluster=east");
        std::fs::create_dir(&part).expect("partition");
        let mut frame = df!("job_id" => ["a", "b", "c"], "gpus" => [Some(8i64), None, Some(1)]).expect("frame");
        for name in ["v1.parquet", "v2.parquet"] {
            let file = std::fs::File::create(part.join(name)).expect("file");
            ParquetWriter::new(file).finish(&mut frame).expect("write");
        }
        assert!(refuse_before_decoding(&part.join("v1.parquet")).is_ok());
        assert!(refuse_before_decoding(dir.path()).is_ok());
        assert_eq!(parquet_files(dir.path()).len(), 2);
        // Polars' scan of a folder reads only `.parquet`.
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).expect("folder");
        std::fs::write(empty.join("part.pq"), b"").expect("file");
        assert!(matches!(
            refuse_before_decoding(&empty),
            Err(DataError::NoParquetInFolder)
        ));
    }

    #[test]
    fn a_negative_page_count_is_refused_with_its_place() {
        let why = refuse_before_decoding(&fixture("parquet-negative-page-count.parquet")).expect_err("refused");
        assert_eq!(
            why.to_string(),
            "not a readable Parquet file (truncated or damaged?): row group 1, column name: a data page says it holds -33 values"
        );
    }

    #[test]
    fn damage_it_does_not_look_for_is_left_to_polars() {
        // Polars' footer decoder may panic on this one; the callers catch that. The check itself
        // must not refuse it with a count message of its own.
        let outcome = crate::data::readers::panic_guard::without_panics(|| {
            refuse_before_decoding(&fixture("parquet-damaged-statistics.parquet"))
        });
        assert!(!matches!(outcome, Ok(Err(_))), "{outcome:?}");
    }
}
