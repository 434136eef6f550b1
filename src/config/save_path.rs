//! The path typed into "save as": what file it names, why it cannot be written, and Tab's
//! completion of it from the folders on disk.

use std::path::{Path, PathBuf};

/// The file a typed path saves to, relative paths taken from `current_folder`: `.toml` added
/// when the name has no such ending, `plan.toml` inside a folder named as one. The folder must
/// exist (it is not created: a typo would leave folders behind) and the file must not (a save
/// as never replaces another plan).
pub fn save_target(typed: &str, current_folder: &Path) -> Result<PathBuf, String> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Err("type a path to save the plan to".to_string());
    }
    let expanded = expand_home(typed);
    let mut path = current_folder.join(&expanded);
    if typed.ends_with('/') || path.is_dir() {
        path.push("plan.toml");
    } else if path.extension().is_none_or(|e| e != "toml") {
        let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        name.push(".toml");
        path.set_file_name(name);
    }
    let folder = path.parent().unwrap_or(current_folder);
    if !folder.is_dir() {
        return Err(format!(
            "not saved: the folder {} does not exist (create it first, or type another path)",
            folder.display()
        ));
    }
    if path.exists() {
        return Err(format!(
            "not saved: {} exists (type another name; Ctrl-S saves over the plan that is open)",
            path.display()
        ));
    }
    Ok(path)
}

/// `~/x` as the home folder's `x`.
fn expand_home(typed: &str) -> PathBuf {
    match (typed.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => Path::new(&home).join(rest),
        _ => PathBuf::from(typed),
    }
}

/// What Tab makes of a typed path: the longest completion all matches share, and the matches'
/// names when more than one is left (folders end in `/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    pub text: String,
    pub choices: Vec<String>,
}

/// Completes the last part of `typed` from the entries of its folder (relative to
/// `current_folder`): folders and `.toml` files, hidden ones only when a `.` was typed.
pub fn complete(typed: &str, current_folder: &Path) -> Completion {
    let (folder_part, prefix) = match typed.rfind('/') {
        Some(i) => typed.split_at(i + 1),
        None => ("", typed),
    };
    let folder = current_folder.join(expand_home(if folder_part.is_empty() { "." } else { folder_part }));
    let mut names: Vec<String> = std::fs::read_dir(&folder)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let is_dir = e.path().is_dir();
                    let wanted = name.starts_with(prefix)
                        && (prefix.starts_with('.') || !name.starts_with('.'))
                        && (is_dir || name.ends_with(".toml"));
                    wanted.then(|| if is_dir { format!("{name}/") } else { name })
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let Some(first) = names.first() else {
        return Completion {
            text: typed.to_string(),
            choices: Vec::new(),
        };
    };
    let shared = names
        .iter()
        .fold(first.clone(), |shared, name| common_prefix(&shared, name));
    Completion {
        text: format!("{folder_part}{shared}"),
        choices: if names.len() > 1 { names } else { Vec::new() },
    }
}

fn common_prefix(a: &str, b: &str) -> String {
    a.chars()
        .zip(b.chars())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder_with(files: &[&str], folders: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        for f in folders {
            std::fs::create_dir_all(dir.path().join(f)).expect("folder");
        }
        for f in files {
            std::fs::write(dir.path().join(f), "").expect("file");
        }
        dir
    }

    #[test]
    fn tab_completes_a_folder_shared_by_one_match() {
        let dir = folder_with(&["notes.txt"], &["scenarios", "data"]);
        let done = complete("sc", dir.path());
        assert_eq!(done.text, "scenarios/");
        assert!(done.choices.is_empty());
        // Inside it, the plans it holds.
        std::fs::write(dir.path().join("scenarios/q3-east.toml"), "").expect("plan");
        std::fs::write(dir.path().join("scenarios/q3-west.toml"), "").expect("plan");
        let done = complete("scenarios/q", dir.path());
        assert_eq!(done.text, "scenarios/q3-");
        assert_eq!(done.choices, ["q3-east.toml", "q3-west.toml"]);
    }

    #[test]
    fn tab_leaves_what_matches_nothing_and_skips_other_files() {
        let dir = folder_with(&["notes.txt", ".hidden.toml"], &[]);
        assert_eq!(
            complete("no", dir.path()),
            Completion {
                text: "no".to_string(),
                choices: Vec::new()
            }
        );
        assert_eq!(complete("", dir.path()).text, "");
        assert_eq!(complete(".h", dir.path()).text, ".hidden.toml");
    }

    #[test]
    fn an_absolute_path_completes_from_its_own_folder() {
        let dir = folder_with(&[], &["alpha"]);
        let typed = format!("{}/al", dir.path().display());
        let done = complete(&typed, Path::new("/"));
        assert_eq!(done.text, format!("{}/alpha/", dir.path().display()));
    }

    #[test]
    fn a_save_target_needs_its_folder_and_no_file_there() {
        let dir = folder_with(&["taken.toml"], &["scenarios"]);
        let here = dir.path();
        assert_eq!(save_target("plan.toml", here), Ok(here.join("plan.toml")));
        assert_eq!(save_target("scenarios/q3", here), Ok(here.join("scenarios/q3.toml")));
        assert_eq!(save_target("scenarios", here), Ok(here.join("scenarios/plan.toml")));
        let missing = save_target("nowhere/plan.toml", here).expect_err("no folder");
        assert!(
            missing.contains("nowhere") && missing.contains("does not exist"),
            "{missing}"
        );
        let taken = save_target("taken.toml", here).expect_err("exists");
        assert!(taken.contains("taken.toml exists"), "{taken}");
        assert!(save_target("  ", here).is_err());
    }
}
