//! Settings of the global allocator (mimalloc, chosen in `src/main.rs`): set once, at start,
//! by the binary and by the benchmark examples that must add up to it.

use libmimalloc_sys::{mi_option_set, mi_option_t};

/// `mi_option_purge_delay` in mimalloc v3's `mimalloc.h`; libmimalloc-sys 0.1.49 names no
/// constant for it.
const MI_OPTION_PURGE_DELAY: mi_option_t = 15;

/// Tunes mimalloc for a process that allocates and frees gigabyte-sized column buffers:
/// - freed pages go back to the OS at once rather than after 10 ms: a 10M-row audit peaks
///   ~700 MB lower;
/// - no transparent huge pages (Linux): mimalloc marks its arenas `MADV_HUGEPAGE`, and each
///   page it purges and reuses then costs the kernel 2 MiB of zeroing. The first arena is
///   reserved before `main` runs, too early for mimalloc's own `allow_thp` option, so the
///   process opts out with `PR_SET_THP_DISABLE`. On the 10M-row audit this cut system time
///   from 5.7–7.2 s to 3.5–4.5 s (bench/audit-10m.sh, docs/performance.md).
///
/// Call first thing in `main`, before any other thread exists.
pub fn tune_for_columns() {
    // SAFETY: mimalloc options are plain process-wide integers; setting them before other
    // threads start races with nothing.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 0) };
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes integer arguments only. Failing (an old kernel) leaves
    // huge pages on, which is slower but correct, so the result is ignored.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}
