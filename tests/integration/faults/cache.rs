//! Faults: cache (filled in by the change that handles it).
