//! The forecasts fitted on a read's series, kept in the read cache beside it
//! (`data::fit_store`): taken into the process's memo when the logs are read, written back
//! with what was fitted since when the read is replaced, the pipeline dropped, or `keep` asked.
//! Without a cache of reads (`--no-cache`, a folder, a live source) nothing is kept on disk;
//! the memo still serves every later fit of the process.

use std::path::PathBuf;

use crate::data::fit_store;
use crate::data::read_cache::{ReadCache, entry_name};
use crate::model::forecast::methods::memo;

pub(super) struct KeptFits {
    path: PathBuf,
}

impl KeptFits {
    /// The file for the read keyed `read_key`, its forecasts taken into the memo. A damaged
    /// file is not used (the forecasts are fitted again: the same figures) and is rewritten.
    pub(super) fn open(cache: &ReadCache, read_key: &str) -> KeptFits {
        let path = fit_store::fits_path(&cache.dir, &entry_name(read_key));
        if let Ok(entries) = fit_store::load(&path) {
            memo::restore(entries);
        }
        KeptFits { path }
    }

    /// Writes what was fitted since the last write; nothing when nothing was. A file that
    /// cannot be written only means the next open fits again.
    pub(super) fn keep(&self) {
        let fresh = memo::drain_fresh();
        if fresh.is_empty() {
            return;
        }
        let older = fit_store::load(&self.path).unwrap_or_default();
        let _ = fit_store::save(&self.path, older, &fresh);
    }
}

impl Drop for KeptFits {
    fn drop(&mut self) {
        self.keep();
    }
}
