//! Where gpuplan keeps the user's files (directories crate), overridable for tests and
//! sandboxes with GPUPLAN_CONFIG_DIR and GPUPLAN_DATA_DIR.

use std::path::PathBuf;

use directories::ProjectDirs;

fn project_dirs() -> Option<ProjectDirs> {
    ProjectDirs::from("", "", "gpuplan")
}

/// The user's configuration folder (`~/.config/gpuplan` on Linux); `None` without a home.
pub fn config_dir() -> Option<PathBuf> {
    std::env::var_os("GPUPLAN_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| project_dirs().map(|d| d.config_dir().to_path_buf()))
}

/// The user's data folder, where saved plans live (`~/.local/share/gpuplan` on Linux).
pub fn data_dir() -> Option<PathBuf> {
    std::env::var_os("GPUPLAN_DATA_DIR")
        .map(PathBuf::from)
        .or_else(|| project_dirs().map(|d| d.data_dir().to_path_buf()))
}

/// The folder whose `*.toml` files override the built-in catalogs.
pub fn catalog_override_dir() -> Option<PathBuf> {
    config_dir().map(|d| d.join("catalogs"))
}
