//! `gpuplan sample`: a realistic, deterministic job log for demos, tests and benchmarks.

use std::io::{BufWriter, Write};
use std::path::Path;

use super::Failure;
use crate::config::diagnostic::Diagnostic;
use crate::data::sample::{SAMPLE_END_MS, SampleSpec, rows, write_csv_iter};

pub fn run(jobs: usize, days: u32, clusters: u32, seed: u64, output: Option<&Path>) -> Result<(), Failure> {
    if jobs == 0 || days == 0 || clusters == 0 {
        return Err(Diagnostic::file("gpuplan sample", "--jobs, --days and --clusters must be above 0").into());
    }
    let spec = SampleSpec {
        jobs,
        days,
        clusters,
        seed,
        end_ms: SAMPLE_END_MS,
    };
    let written = match output {
        None => {
            let stdout = std::io::stdout();
            let mut out = BufWriter::with_capacity(1 << 20, stdout.lock());
            write_csv_iter(rows(&spec), &mut out).and_then(|n| out.flush().map(|()| n))
        }
        Some(path) => {
            let shown = path.display().to_string();
            let file =
                std::fs::File::create(path).map_err(|e| Diagnostic::file(&shown, format!("cannot create: {e}")))?;
            let mut out = BufWriter::with_capacity(1 << 20, file);
            let n = write_csv_iter(rows(&spec), &mut out)
                .and_then(|n| out.flush().map(|()| n))
                .map_err(|e| Diagnostic::file(&shown, format!("cannot write: {e}")))?;
            eprintln!("wrote {n} rows to {shown}");
            Ok(n)
        }
    };
    written
        .map(|_| ())
        .map_err(|e| Diagnostic::file("standard output", e.to_string()).into())
}
