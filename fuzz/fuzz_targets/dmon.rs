#![no_main]
//! `nvidia-smi dmon` recordings (any -s selection, -o DT, GPM columns).
use libfuzzer_sys::fuzz_target;
use std::path::Path;

use gpuplan::data::readers::nvidia_smi::{RecordingLayout, read_recording_text};
use gpuplan_fuzz::check_recording;

fuzz_target!(|text: &str| {
    if let Ok(read) = read_recording_text(Path::new("node17.dmon.txt"), text, RecordingLayout::Dmon, None) {
        check_recording(&read);
    }
});
