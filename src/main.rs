//! The `qpslab` binary: a shell over the library (see src/lib.rs).

fn main() {
    qpslab::cli::main()
}
