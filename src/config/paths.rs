//! Where gpuplan keeps the user's files (directories crate), overridable for tests and
//! sandboxes with GPUPLAN_CONFIG_DIR, GPUPLAN_DATA_DIR and GPUPLAN_CACHE_DIR.

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

/// The user's cache folder (`~/.cache/gpuplan` on Linux): GPUPLAN_CACHE_DIR, else inside
/// GPUPLAN_DATA_DIR when that sandboxes the data, else the platform's.
pub fn cache_dir() -> Option<PathBuf> {
    std::env::var_os("GPUPLAN_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("GPUPLAN_DATA_DIR").map(|d| PathBuf::from(d).join("cache")))
        .or_else(|| project_dirs().map(|d| d.cache_dir().to_path_buf()))
}

/// The cache of reads of logs, bounded by GPUPLAN_CACHE_MAX_MB (MiB) when set; `None`
/// without a cache folder.
pub fn read_cache() -> Option<crate::data::read_cache::ReadCache> {
    let max_bytes = std::env::var("GPUPLAN_CACHE_MAX_MB")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(crate::data::read_cache::DEFAULT_MAX_BYTES, |mb| {
            mb.saturating_mul(1 << 20)
        });
    cache_dir().map(|dir| crate::data::read_cache::ReadCache::new(dir.join("reads"), max_bytes))
}
