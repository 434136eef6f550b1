#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|text: &str| {
    let _ = gpuplan::data::readers::philly::read_philly_detailed(Path::new("fuzz-philly.json"), text, "c");
});
