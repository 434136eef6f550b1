#![no_main]
//! The whole log loader on one file (format detected as for a user's file): CSV, TSV, NDJSON,
//! JSON arrays, sacct and DCGM. The first byte picks the file's extension.
use gpuplan::data::readers::load::load_logs;
use gpuplan::data::readers::tabular::Detail;
use libfuzzer_sys::fuzz_target;

const EXTENSIONS: [&str; 5] = ["csv", "tsv", "ndjson", "json", "txt"];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let name = format!("log.{}", EXTENSIONS[pick as usize % EXTENSIONS.len()]);
    let path = gpuplan_fuzz::scratch_file(&name, body);
    let _ = load_logs(&[path], None, None, Detail::Full);
});
