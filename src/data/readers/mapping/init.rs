//! The commented TOML `gpuplan mapping init` writes: the mapping guessed from a file's header,
//! with every field, unit and option shown for the user to check.

use serde::Serialize;

use super::{EmptyStart, MAPPING_SCHEMA_VERSION, Mapping, TimeFormat, canonical_fields};

/// The commented TOML `gpuplan mapping init` writes for a file with `header`.
pub fn render_mapping_toml(mapping: &Mapping, header: &[String], file_name: &str) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "# gpuplan column mapping for {file_name}, guessed from its header: check every line.\n"
    ));
    out.push_str("# Use it with: gpuplan audit LOG --mapping THIS_FILE\n");
    out.push_str(&format!("# Source columns: {}\n", header.join(", ")));
    out.push_str(&format!("schema_version = {MAPPING_SCHEMA_VERSION}\n"));
    if let Some(format) = &mapping.format {
        out.push_str(&format!("format = \"{format}\"\n"));
    }
    if let Some(delimiter) = &mapping.delimiter {
        out.push_str(&format!("delimiter = {}\n", toml_string(delimiter)));
    }
    out.push_str(&format!("has_header = {}\n", mapping.has_header));
    if let Some(header_file) = &mapping.header_file {
        out.push_str(&format!("header_file = {}\n", toml_string(header_file)));
    }
    if !mapping.column_names.is_empty() {
        let names: Vec<String> = mapping.column_names.iter().map(|n| toml_string(n)).collect();
        out.push_str(&format!("column_names = [{}]\n", names.join(", ")));
    }
    let nulls: Vec<String> = mapping.null_values.iter().map(|n| toml_string(n)).collect();
    out.push_str(&format!(
        "null_values = [{}]   # strings that mean \"no value\"{}\n",
        nulls.join(", "),
        mapping
            .reasons
            .get("null_values")
            .map(|why| format!(": {why}"))
            .unwrap_or_default()
    ));
    match &mapping.gpu_multiplier {
        Some(m) => out.push_str(&format!(
            "\n# GPUs = gpus × this column (a share per GPU times the GPU count){}\ngpu_multiplier = {}\n",
            mapping
                .reasons
                .get("gpu_multiplier")
                .map(|why| format!(": {why}"))
                .unwrap_or_default(),
            toml_string(m)
        )),
        None => out.push_str(
            "\n# gpu_multiplier = \"num_gpu\"   # when gpus is a share per GPU and another column counts the GPUs\n",
        ),
    }
    out.push_str("\n# canonical field = source column. Remove a line to leave a field empty.\n[columns]\n");
    for field in canonical_fields() {
        match mapping.columns.get(field) {
            Some(source) => {
                let line = format!("{field} = {}", toml_string(source));
                match mapping.reasons.get(field) {
                    Some(why) => out.push_str(&format!("{line:<32}# {why}\n")),
                    None => out.push_str(&format!("{line}\n")),
                }
            }
            None => out.push_str(&format!(
                "# {field} = \"...\"   # {}\n",
                mapping
                    .reasons
                    .get(field)
                    .map_or("not found in the header", String::as_str)
            )),
        }
    }
    out.push_str("\n# A value for every row of the file, e.g. the cluster it comes from.\n[constants]\n");
    let mut constants = mapping.constants.clone();
    if !mapping.columns.contains_key("cluster") && !constants.contains_key("cluster") {
        let stem = file_name
            .rsplit('/')
            .next()
            .unwrap_or(file_name)
            .split('.')
            .next()
            .unwrap_or("cluster");
        constants.insert("cluster".into(), stem.to_string());
    }
    for (field, value) in &constants {
        let line = format!("{field} = {}", toml_string(value));
        match mapping.reasons.get(field) {
            Some(why) => out.push_str(&format!("{line:<32}# {why}\n")),
            None => out.push_str(&format!("{line}\n")),
        }
    }
    let u = &mapping.units;
    out.push_str("\n[units]\n");
    for (key, why) in mapping
        .reasons
        .iter()
        .filter_map(|(k, why)| Some((k.strip_prefix("units.")?, why)))
    {
        out.push_str(&format!("# {key}: {why}\n"));
    }
    out.push_str(&format!(
        "gpus = \"{}\"       # count, milli (1000 = one GPU) or percent (100 = one GPU)\n",
        kebab(&u.gpus)
    ));
    out.push_str(&format!(
        "gpu_util = \"{}\"   # auto, percent (0-100) or ratio (0-1)\n",
        kebab(&u.gpu_util)
    ));
    let time = match &u.time {
        TimeFormat::Pattern(p) => toml_string(p),
        other => format!("\"{}\"", kebab(other)),
    };
    out.push_str(&format!(
        "time = {time}       # auto, epoch-s, epoch-ms, offset-s, or a strftime pattern like \"%d/%m/%Y %H:%M\"\n"
    ));
    out.push_str(&format!(
        "time_zone = {}   # zone of times written without an offset\n",
        toml_string(u.time_zone.as_deref().unwrap_or("UTC"))
    ));
    match &u.time_origin {
        Some(origin) => out.push_str(&format!("time_origin = {}\n", toml_string(origin))),
        None => out.push_str(
            "# time_origin = \"2020-01-01T00:00:00Z\"   # for time = \"offset-s\": the instant second 0 stands for\n",
        ),
    }
    out.push_str(&format!(
        "empty_end = \"{}\"  # censored (clipped to the observation window) or reject\n",
        kebab(&u.empty_end)
    ));
    if u.empty_start != EmptyStart::default() {
        out.push_str(&format!(
            "empty_start = \"{}\"  # reject, or trace-start (running before the trace began: starts at second 0)\n",
            kebab(&u.empty_start)
        ));
    }
    out.push_str(&format!(
        "empty_gpus = \"{}\"  # an empty GPU count: reject the row, or zero (a CPU-only task)\n",
        kebab(&u.empty_gpus)
    ));
    out.push_str(&format!(
        "time_limit = \"{}\"  # bare numbers of the time_limit column: seconds, minutes or hours ([D-]HH:MM:SS is read as it is)\n",
        kebab(&u.time_limit)
    ));
    out
}

fn kebab<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}
