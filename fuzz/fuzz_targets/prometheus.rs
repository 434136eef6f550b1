#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = gpuplan::data::prometheus::response::parse_matrix(data);
    let _ = gpuplan::data::prometheus::response::parse_labels(data);
});
