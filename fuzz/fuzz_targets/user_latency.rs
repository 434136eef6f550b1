#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = gpuplan::data::readers::user_latency_csv::read_user_latencies(text);
});
