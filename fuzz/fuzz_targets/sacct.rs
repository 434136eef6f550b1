#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|text: &str| {
    let _ = gpuplan::data::readers::slurm::read_sacct_detailed(Path::new("fuzz.sacct"), text, "c");
});
