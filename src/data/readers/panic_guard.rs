//! Decoders we do not own (Polars' Parquet reader) can panic on a damaged file instead of
//! returning an error; a user's file must get a message naming it, never a crash.

use std::panic::AssertUnwindSafe;

use crate::data::error::DataError;

/// Runs `f`, turning a panic inside it into an error (and keeping its message off stderr).
pub(crate) fn without_panics<T>(f: impl FnOnce() -> T) -> Result<T, DataError> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(AssertUnwindSafe(f));
    std::panic::set_hook(hook);
    result.map_err(|payload| DataError::Panicked {
        message: payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "the decoder stopped".to_string()),
    })
}
