use std::process::ExitCode;

// Polars allocates and frees many column buffers from several threads. mimalloc is faster at
// that than glibc, whose per-thread arenas also keep freed memory resident.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    gpuplan::runtime::allocator::tune_for_columns();
    gpuplan::cli::main()
}
