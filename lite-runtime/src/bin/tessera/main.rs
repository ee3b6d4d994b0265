//! `tessera`: the main job. With no arguments it runs HugeCTR's data path end to end on the
//! bundled dataset (1 024 Criteo-shaped samples with checksums): decode into CSR batches,
//! sum-pool every slot over an embedding table, and print what it found and the throughput.
//!
//! - `tessera [--seconds S] [--batch N] [--dim D]`: that run, repeated for at least `S`
//!   seconds (default 1) to time it.
//! - `tessera strings [WORD ...]`: the strings demo (TFLite tensor, OFFSET and VIEW
//!   `TF_TString`s, no copy).
//! - `tessera dataset inspect|convert …`: HugeCTR datasets (see `tessera dataset --help`).

mod args;
mod dataset;
mod pipeline;
mod progress;
mod strings;

use std::process::ExitCode;

const USAGE: &str = "usage: tessera [--seconds S] [--batch N] [--dim D]
       tessera strings [WORD ...]
       tessera dataset inspect|convert ... (see tessera dataset --help)

With no arguments: decodes the bundled Norm dataset (checksums on) into CSR batches,
sum-pools every slot over an embedding table, and prints the results and throughput.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("dataset") => dataset::main(&args[1..]),
        Some("strings") => {
            let words: Vec<&str> = if args.len() > 1 {
                args[1..].iter().map(String::as_str).collect()
            } else {
                strings::DEFAULT_WORDS.to_vec()
            };
            strings::run(&words)
        }
        Some("-h" | "--help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => pipeline::main(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tessera: {e}");
            ExitCode::FAILURE
        }
    }
}
