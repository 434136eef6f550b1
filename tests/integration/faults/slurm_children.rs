//! Faults: slurm_children (filled in by the change that handles it).
