#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|text: &str| {
    let path = Path::new("fuzz-dcgm.csv");
    let _ = gpuplan::data::readers::dcgm::read_dcgm_long_detailed(path, text);
    let _ = gpuplan::data::readers::dcgm::read_dcgm_wide_detailed(path, text, None);
});
