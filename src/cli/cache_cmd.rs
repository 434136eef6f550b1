//! `gpuplan cache info` and `gpuplan cache clear`: the cache of reads, where it is and what it
//! holds, and emptying it.

use super::Failure;
use crate::config::diagnostic::Diagnostic;
use crate::shared::format::thousands;

pub fn run(clear: bool) -> Result<(), Failure> {
    let Some(cache) = crate::config::paths::read_cache() else {
        return Err(Diagnostic::file("cache", "no cache folder: set GPUPLAN_CACHE_DIR").into());
    };
    let shown = cache.dir.display().to_string();
    if clear {
        let (entries, bytes) = cache
            .clear()
            .map_err(|e| Diagnostic::file(&shown, format!("cannot clear the cache: {e}")))?;
        println!(
            "removed {entries} kept read{} ({} MiB) from {shown}",
            if entries == 1 { "" } else { "s" },
            thousands((bytes >> 20) as f64)
        );
        let (files, fit_bytes) = crate::data::fit_store::clear(&cache.dir);
        if files > 0 {
            println!(
                "removed the forecasts kept for {files} read{} ({} MiB)",
                if files == 1 { "" } else { "s" },
                thousands((fit_bytes >> 20) as f64)
            );
        }
        return Ok(());
    }
    let (entries, bytes) = cache.usage();
    println!(
        "{shown}: {entries} kept read{}, {} MiB of at most {} MiB (GPUPLAN_CACHE_MAX_MB)",
        if entries == 1 { "" } else { "s" },
        thousands((bytes >> 20) as f64),
        thousands((cache.max_bytes >> 20) as f64)
    );
    let (files, fit_bytes) = crate::data::fit_store::usage(&cache.dir);
    if files > 0 {
        println!(
            "{}: forecasts kept for {files} read{}, {} MiB of at most {} MiB",
            crate::data::fit_store::fits_folder(&cache.dir).display(),
            if files == 1 { "" } else { "s" },
            thousands((fit_bytes >> 20) as f64),
            thousands((crate::data::fit_store::MAX_FOLDER_BYTES >> 20) as f64)
        );
    }
    let (staging, staging_bytes) = cache.staging_usage();
    if staging > 0 {
        println!(
            "{staging} staging folder{} ({} MiB) left by a write that stopped or is under way; \
             the next read removes those whose process is gone",
            if staging == 1 { "" } else { "s" },
            thousands((staging_bytes >> 20) as f64)
        );
    }
    Ok(())
}
