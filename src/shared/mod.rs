//! Tools every layer uses: number formatting and the random number generator. They import
//! nothing of ours, so `model`, `data`, `ui`, `cli` and `present` may all depend on them
//! without an arrow pointing the wrong way.

pub mod format;
pub mod random;
