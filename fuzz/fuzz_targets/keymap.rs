#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = gpuplan::runtime::keymap_file::parse_keymap("fuzz-keys.toml", text);
});
