//! `tessera`: the main job. With no arguments it runs HugeCTR's data path end to end on the
//! bundled demo files (`lite-runtime/cli/demo`, found through the path this crate was built
//! at: 1 024 Criteo-shaped samples with checksums, the CTR model, LiteRT's predictions):
//! decode into CSR batches, sum-pool every slot over an embedding table, predict every sample
//! with the model, check the predictions against LiteRT's, and print what it found and the
//! throughput.
//!
//! - `tessera [--seconds S] [--batch N] [--dim D] [--dataset F] [--model F] [--predictions F]`:
//!   that run, repeated for at least `S` seconds (default 1) to time it, on other files if
//!   given.
//! - `tessera strings [WORD ...]`: the strings demo (TFLite tensor, OFFSET and VIEW
//!   `TF_TString`s, no copy).
//! - `tessera dataset inspect|convert …`: HugeCTR datasets (see `tessera dataset --help`).
//!
//! Exit status: 0 on success, 1 on an error (printed as `tessera: <file>: <what>, <where>`),
//! 2 on a command line that does not parse, 141 (`cat`'s, 128 + SIGPIPE) when standard output
//! is closed early, silently. No input makes it panic: `tests/hostile.rs` checks.

mod dataset;
mod failure;
mod files;
mod model;
mod numbers;
mod output;
mod pipeline;
mod profile;
mod progress;
mod strings;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand;
use clap::{ArgMatches, Command};

use failure::{CLOSED_OUTPUT, Failure, USAGE};
use output::Out;

/// One command group under `tessera`: how its command line is defined, and how it runs.
struct Group {
    /// The clap definition; its name is the word after `tessera`.
    command: fn() -> Command,
    /// Runs the group with its parsed arguments, printing through `out`.
    run: fn(&ArgMatches, &mut Out) -> Result<(), Failure>,
}

/// Every command group. A new one (`model inspect|run|bench`) is one row here and one module
/// with the same two functions; the hostile-input battery (`tests/hostile.rs`) gets its rows.
const GROUPS: &[Group] = &[
    Group {
        command: dataset::command,
        run: dataset::run,
    },
    Group {
        command: strings::command,
        run: strings::run,
    },
    Group {
        command: model::command,
        run: model::run,
    },
];

/// The whole command line: the bundled run's options at the top, the groups below.
fn command() -> Command {
    let top = Command::new("tessera")
        .version(env!("CARGO_PKG_VERSION"))
        .about(
            "With no command: decodes the bundled Norm dataset (checksums on) into CSR \
             batches, sum-pools every slot over an embedding table, and prints the results \
             and throughput.",
        )
        .args_conflicts_with_subcommands(true)
        .args(pipeline::args());
    GROUPS.iter().fold(top, |c, g| c.subcommand((g.command)()))
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    let matches = match command().try_get_matches_from(args) {
        Ok(m) => m,
        // A usage error, in the program's own `tessera: <what>` form.
        Err(e) if e.use_stderr() && e.kind() != DisplayHelpOnMissingArgumentOrSubcommand => {
            let text = e.render().to_string();
            let text = text.strip_prefix("error: ").unwrap_or(&text);
            failure::eprint_lossy(&format!("tessera: {text}"));
            return ExitCode::from(USAGE);
        }
        // `--help` and `--version` arrive here too, as errors that print to stdout.
        Err(e) => {
            return match e.print() {
                Err(io) if io.kind() == std::io::ErrorKind::BrokenPipe => {
                    ExitCode::from(CLOSED_OUTPUT)
                }
                _ if e.use_stderr() => ExitCode::from(USAGE),
                _ => ExitCode::SUCCESS,
            };
        }
    };
    let mut out = Out::stdout();
    let result = match matches.subcommand() {
        Some((name, sub)) => match GROUPS.iter().find(|g| (g.command)().get_name() == name) {
            Some(g) => (g.run)(sub, &mut out),
            None => Err(Failure::Usage(format!("unknown command {name:?}"))),
        },
        None => pipeline::run(&matches, &mut out),
    };
    // Output still buffered must reach the reader (or fail) like the rest.
    let result = result.and_then(|()| std::io::Write::flush(&mut out).map_err(Failure::from));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => f.report(),
    }
}
