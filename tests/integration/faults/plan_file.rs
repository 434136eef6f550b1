//! Faults: plan_file (filled in by the change that handles it).
