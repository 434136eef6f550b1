use std::process::ExitCode;

fn main() -> ExitCode {
    gpuplan::cli::main()
}
