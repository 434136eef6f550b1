//! The fault suite: each fault a hostile operator found silent, reproduced with the real thing
//! (a real file rewritten under a read, a real HTTP server that misbehaves, a real process tree
//! for sacct, the real workbench in a pseudo-terminal sent signals), and what gpuplan now does
//! about it: survive it, or say it on every output. docs/hardening.md, "Faults", lists them.

mod bounds;
mod cache;
mod column_types;
mod messages;
mod missing_log;
mod pipes;
mod plan_file;
mod prometheus;
mod read_notices;
mod signals;
mod slurm_children;
