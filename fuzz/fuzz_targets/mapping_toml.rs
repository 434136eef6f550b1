#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(mapping) = toml::from_str::<gpuplan::data::readers::mapping::Mapping>(text) {
        let _ = mapping.problems();
    }
});
