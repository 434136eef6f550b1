//! Faults: signals (filled in by the change that handles it).
