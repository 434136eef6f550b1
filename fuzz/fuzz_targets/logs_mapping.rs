#![no_main]
//! A delimited log read through a user's column mapping, as `gpuplan audit LOG --mapping M`
//! does: the input is the mapping's TOML, a line `%%`, then the log. The first byte of the log
//! part picks `.csv` or `.tsv`. A mapping that does not read is the end of the run (the
//! `mapping_toml` target covers it); one that does is applied to the log.
use gpuplan::config::mapping_file::read_mapping;
use gpuplan::data::readers::load::load_logs;
use gpuplan::data::readers::tabular::Detail;
use libfuzzer_sys::fuzz_target;

const SEPARATOR: &[u8] = b"\n%%\n";
const EXTENSIONS: [&str; 2] = ["csv", "tsv"];

fuzz_target!(|data: &[u8]| {
    let Some(at) = data.windows(SEPARATOR.len()).position(|w| w == SEPARATOR) else {
        return;
    };
    let (mapping_text, rest) = (&data[..at], &data[at + SEPARATOR.len()..]);
    let Some((&pick, log)) = rest.split_first() else {
        return;
    };
    let mapping_path = gpuplan_fuzz::scratch_file("log.mapping.toml", mapping_text);
    let Ok(mapping) = read_mapping(&mapping_path) else {
        return;
    };
    let name = format!("log.{}", EXTENSIONS[pick as usize % EXTENSIONS.len()]);
    let path = gpuplan_fuzz::scratch_file(&name, log);
    let _ = load_logs(&[path], None, Some(&mapping), Detail::Full);
});
