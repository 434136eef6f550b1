#![no_main]
//! A FOCUS bill (CSV, or Parquet when it starts with PAR1) from a file.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = gpuplan_fuzz::scratch_file("bill.csv", data);
    let _ = gpuplan::data::focus::read_focus(&path, "cluster");
});
