//! Faults: bounds (filled in by the change that handles it).
