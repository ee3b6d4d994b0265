//! Running the built `tessera` program from the command-line tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A file or directory of `tests/fixtures/data`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/data")
        .join(name)
}

/// Runs `tessera` with `args`, collecting its output.
pub fn tessera(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .output()
        .expect("runs")
}
