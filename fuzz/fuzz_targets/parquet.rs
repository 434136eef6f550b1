#![no_main]
//! The log loader on a `.parquet` file.
use gpuplan::data::readers::load::load_logs;
use gpuplan::data::readers::tabular::Detail;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = gpuplan_fuzz::scratch_file("log.parquet", data);
    let _ = load_logs(&[path], None, None, Detail::Full);
});
