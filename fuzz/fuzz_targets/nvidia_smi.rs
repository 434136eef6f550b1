#![no_main]
//! `nvidia-smi --query-gpu ... --format=csv` recordings: the input is the recording, or a field
//! list (a `noheader` recording's `.header` file), a line `%%`, then the recording.
use libfuzzer_sys::fuzz_target;
use std::path::Path;

use gpuplan::data::readers::nvidia_smi::{RecordingLayout, read_recording_text};
use gpuplan_fuzz::check_recording;

fuzz_target!(|text: &str| {
    let (header, recording) = match text.split_once("\n%%\n") {
        Some((header, recording)) => (Some(header), recording),
        None => (None, text),
    };
    let read = read_recording_text(Path::new("node17.csv"), recording, RecordingLayout::Query, header);
    if let Ok(read) = read {
        check_recording(&read);
    }
});
