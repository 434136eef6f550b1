//! Faults: prometheus (filled in by the change that handles it).
