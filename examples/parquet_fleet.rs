//! Writes a generated job log as a hive-partitioned Parquet dataset, one folder per cluster
//! (`DIR/cluster=NAME/part-00000.parquet`), for the partitioned-audit benchmark
//! (README "Performance"). The rows are `gpuplan sample`'s, defects included; times stay text
//! as a scheduler export has them, GPUs and utilization are numbers.
//!
//! `cargo run --release --example parquet_fleet -- DIR ROWS [CLUSTERS] [SEED]`

use std::collections::HashMap;
use std::io::Cursor;
use std::path::Path;
use std::sync::Arc;

use gpuplan::data::sample::{SAMPLE_END_MS, SampleRow, SampleSpec, rows, write_csv_iter};
use polars::prelude::*;

/// Rows per Parquet file.
const ROWS_PER_FILE: usize = 1_000_000;

fn write_part(dir: &Path, cluster: &str, part: usize, batch: &[SampleRow]) -> Result<(), String> {
    let mut csv = Vec::with_capacity(batch.len() * 140);
    write_csv_iter(batch.iter().cloned(), &mut csv).map_err(|e| e.to_string())?;
    let mut frame = CsvReadOptions::default()
        .with_has_header(true)
        .with_infer_schema_length(Some(0))
        .into_reader_with_file_handle(Cursor::new(csv))
        .finish()
        .map_err(|e| e.to_string())?
        .lazy()
        .with_columns([
            col("gpus").cast(DataType::Float64),
            col("gpu_util_pct").cast(DataType::Float64),
            col("job_id").cast(DataType::Int64),
        ])
        .collect()
        .map_err(|e| e.to_string())?;
    let folder = dir.join(format!("cluster={cluster}"));
    std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let path = folder.join(format!("part-{part:05}.parquet"));
    let file = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    ParquetWriter::new(file)
        .finish(&mut frame)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(())
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(count)) = (args.first(), args.get(1).and_then(|n| n.parse::<usize>().ok())) else {
        return Err("usage: parquet_fleet DIR ROWS [CLUSTERS] [SEED]".to_string());
    };
    let clusters = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(8);
    let seed = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(11);
    let spec = SampleSpec {
        jobs: count,
        days: 90,
        clusters,
        seed,
        end_ms: SAMPLE_END_MS,
    };
    let dir = Path::new(dir);
    let mut batches: HashMap<Arc<str>, (usize, Vec<SampleRow>)> = HashMap::new();
    let mut written = 0usize;
    for row in rows(&spec) {
        let (part, batch) = batches.entry(row.cluster.clone()).or_default();
        batch.push(row);
        if batch.len() >= ROWS_PER_FILE {
            let cluster = batch[0].cluster.clone();
            write_part(dir, &cluster, *part, batch)?;
            written += batch.len();
            *part += 1;
            batch.clear();
            eprint!("\r{written} rows written");
        }
    }
    for (cluster, (part, batch)) in &batches {
        if !batch.is_empty() {
            write_part(dir, cluster, *part, batch)?;
            written += batch.len();
        }
    }
    eprintln!("\r{written} rows written to {}", dir.display());
    Ok(())
}
