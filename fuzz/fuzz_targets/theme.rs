#![no_main]
//! A user's theme file beside the built-in themes.
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fuzz_target!(|data: &[u8]| {
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| gpuplan_fuzz::scratch_dir("themes"));
    std::fs::write(dir.join("user.toml"), data).expect("write the theme");
    let _ = gpuplan::runtime::theme_files::load_themes(Some(dir), false);
});
