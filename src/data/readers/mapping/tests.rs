use super::*;

fn header(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn guesses_fields_and_units_from_common_headers() {
    let mut m = Mapping::default();
    m.complete_from_header(&header(&[
        "JobID",
        "JobName",
        "User",
        "Partition",
        "Start",
        "End",
        "gpu_milli",
        "GPU Util %",
    ]));
    assert_eq!(m.columns["job_id"], "JobID");
    assert_eq!(m.columns["name"], "JobName");
    assert_eq!(m.columns["queue"], "Partition");
    assert_eq!(m.columns["gpus"], "gpu_milli");
    assert_eq!(m.units.gpus, GpuUnit::Milli);
    assert!(!m.columns.contains_key("label"));
}

#[test]
fn pai_job_table_maps_plan_gpu_as_hundredths_and_does_not_reuse_a_column() {
    let mut m = Mapping::default();
    m.complete_from_header(&header(&[
        "job_name",
        "task_name",
        "inst_num",
        "status",
        "start_time",
        "end_time",
        "plan_cpu",
        "plan_mem",
        "plan_gpu",
        "gpu_type",
    ]));
    assert_eq!(m.columns["gpus"], "plan_gpu");
    assert_eq!(m.units.gpus, GpuUnit::Percent);
    assert_eq!(m.columns["start"], "start_time");
    let sources: Vec<&String> = m.columns.values().collect();
    let mut unique = sources.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), sources.len(), "{:?}", m.columns);
}

#[test]
fn the_rendered_mapping_parses_back_to_the_same_mapping() {
    let mut m = Mapping::default();
    let h = header(&["job_id", "start", "end", "gpus", "gpu_util_pct"]);
    m.complete_from_header(&h);
    let text = render_mapping_toml(&m, &h, "logs/east.csv");
    let mut parsed: Mapping = toml::from_str(&text).expect("rendered mapping parses");
    assert_eq!(parsed.constants.remove("cluster").as_deref(), Some("east"));
    assert_eq!(parsed.units.gpu_util, UtilUnit::Percent);
    assert_eq!(parsed.columns, m.columns);
    assert!(parsed.problems().is_empty());
}

#[test]
fn problems_name_unknown_fields() {
    let mut m = Mapping::default();
    m.columns.insert("gpu_count".into(), "n".into());
    m.delimiter = Some("||".into());
    let keys: Vec<String> = m.problems().into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys, vec!["columns.gpu_count".to_string(), "delimiter".to_string()]);
}
