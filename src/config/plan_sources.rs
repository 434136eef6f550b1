//! The data a plan file names (`[[logs]]` paths and their mapping), read relative to the plan's
//! folder and written relative to it where the data sits below that folder: a scenario keeps
//! naming its data when the folder holding both is moved or shared.

use std::path::{Component, Path, PathBuf};

use crate::model::plan::Plan;

/// Whether a log path is a pattern (`jobs/*.parquet`) rather than one file or folder.
pub fn is_pattern(path: &str) -> bool {
    path.contains(['*', '?', '['])
}

/// `path` as read from a plan in `folder`: an absolute path stays, a relative one is taken from
/// the plan's folder, as `users_csv` is.
pub fn from_plan_folder(folder: Option<&Path>, path: &str) -> String {
    let named = Path::new(path);
    if named.is_absolute() {
        return path.to_string();
    }
    let joined = folder.map_or_else(|| named.to_path_buf(), |f| f.join(named));
    std::path::absolute(&joined)
        .map(|p| lexically_normal(&p))
        .unwrap_or(joined)
        .display()
        .to_string()
}

/// The plan's `[[logs]]` paths and mappings and its `users_csv`, read relative to the plan
/// file's folder.
pub fn anchor_read(plan: &mut Plan, plan_file: &Path) {
    let folder = plan_file.parent();
    if let Some(users) = &plan.inference.users_csv {
        plan.inference.users_csv = Some(from_plan_folder(folder, users));
    }
    for log in &mut plan.logs {
        log.path = from_plan_folder(folder, &log.path);
        if let Some(mapping) = &log.mapping {
            log.mapping = Some(from_plan_folder(folder, mapping));
        }
    }
}

/// The plan with its `[[logs]]` paths and mappings and its `users_csv` as they are written
/// into `plan_file`:
/// relative to its folder where the data sits below it, absolute otherwise. Relative paths in
/// `plan` are taken from the current folder (as the command line gave them).
pub fn anchor_written(plan: &Plan, plan_file: &Path) -> Plan {
    let mut plan = plan.clone();
    let Ok(plan_file) = std::path::absolute(plan_file) else {
        return plan;
    };
    let folder = plan_file.parent().unwrap_or(Path::new("/"));
    let written = |path: &str| {
        std::path::absolute(path).map_or_else(
            |_| path.to_string(),
            |data| written_path(&lexically_normal(&data), folder),
        )
    };
    for log in &mut plan.logs {
        log.path = written(&log.path);
        log.mapping = log.mapping.as_deref().map(written);
    }
    plan.inference.users_csv = plan.inference.users_csv.as_deref().map(written);
    plan
}

/// How a plan in `plan_folder` names the data at `data` (both absolute): relative where the
/// data sits below the folder, absolute otherwise (a `../` path breaks when the plan moves
/// without its neighbours).
pub fn written_path(data: &Path, plan_folder: &Path) -> String {
    match data.strip_prefix(lexically_normal(plan_folder)) {
        Ok(below) if !below.as_os_str().is_empty() => below.display().to_string(),
        _ => data.display().to_string(),
    }
}

/// `a/./b/../c` as `a/c`, without touching the file system (a log named through a link keeps
/// the link's path).
fn lexically_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::plan::LogSource;

    #[test]
    fn data_below_the_plans_folder_is_written_relative() {
        let folder = Path::new("/work/scenarios");
        assert_eq!(written_path(Path::new("/work/scenarios/jobs.csv"), folder), "jobs.csv");
        assert_eq!(
            written_path(Path::new("/work/scenarios/data/q3/jobs.parquet"), folder),
            "data/q3/jobs.parquet"
        );
    }

    #[test]
    fn data_elsewhere_is_written_absolute() {
        let folder = Path::new("/work/scenarios");
        assert_eq!(written_path(Path::new("/data/jobs.csv"), folder), "/data/jobs.csv");
        // A sibling folder whose name starts the same is not below.
        assert_eq!(
            written_path(Path::new("/work/scenarios-old/jobs.csv"), folder),
            "/work/scenarios-old/jobs.csv"
        );
        assert_eq!(written_path(Path::new("/work/jobs.csv"), folder), "/work/jobs.csv");
    }

    #[test]
    fn a_relative_path_is_read_from_the_plans_folder_and_written_back_the_same() {
        let plan_file = Path::new("/work/scenarios/q3.toml");
        let read = from_plan_folder(plan_file.parent(), "data/../jobs.csv");
        assert_eq!(read, "/work/scenarios/jobs.csv");
        assert_eq!(from_plan_folder(plan_file.parent(), "/data/jobs.csv"), "/data/jobs.csv");
        let mut plan = crate::config::plan_file::default_plan(&crate::config::catalog::builtin().catalog)
            .expect("the default plan");
        plan.logs = vec![LogSource {
            path: read,
            mapping: Some("/maps/jobs.mapping.toml".to_string()),
            format: Some("csv".to_string()),
            time_origin: None,
        }];
        let written = anchor_written(&plan, plan_file);
        assert_eq!(written.logs[0].path, "jobs.csv");
        assert_eq!(written.logs[0].mapping.as_deref(), Some("/maps/jobs.mapping.toml"));
        assert_eq!(written.logs[0].format.as_deref(), Some("csv"));
        // Saved into another folder, the same log is named absolutely.
        let elsewhere = anchor_written(&plan, Path::new("/tmp/elsewhere/plan.toml"));
        assert_eq!(elsewhere.logs[0].path, "/work/scenarios/jobs.csv");
    }

    #[test]
    fn the_users_csv_follows_the_plan_to_another_folder() {
        let mut plan = crate::config::plan_file::default_plan(&crate::config::catalog::builtin().catalog)
            .expect("the default plan");
        plan.inference.users_csv = Some("users.csv".to_string());
        anchor_read(&mut plan, Path::new("/work/scenarios/q3.toml"));
        assert_eq!(plan.inference.users_csv.as_deref(), Some("/work/scenarios/users.csv"));
        let beside = anchor_written(&plan, Path::new("/work/scenarios/q4.toml"));
        assert_eq!(beside.inference.users_csv.as_deref(), Some("users.csv"));
        let above = anchor_written(&plan, Path::new("/work/q3.toml"));
        assert_eq!(above.inference.users_csv.as_deref(), Some("scenarios/users.csv"));
    }

    #[test]
    fn patterns_are_told_from_files() {
        assert!(is_pattern("runs/*.parquet"));
        assert!(is_pattern("runs/part-[0-9].csv"));
        assert!(!is_pattern("runs/jobs.csv"));
    }
}
