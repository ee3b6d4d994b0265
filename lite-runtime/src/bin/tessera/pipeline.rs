//! `tessera` with no command: the data path end to end on the bundled dataset, timed.

use std::io::Write;
use std::time::Duration;

use clap::{Arg, ArgMatches};
use tessera_lite::pipeline::{DEMO_CONFIG, DEMO_NORM, DEMO_VOCAB, demo_table, run as run_pipeline};

use crate::failure::Failure;
use crate::numbers;
use crate::output::Out;

/// The run's options, at the top level of `tessera`.
pub fn args() -> [Arg; 3] {
    [
        Arg::new("seconds")
            .long("seconds")
            .value_name("S")
            .value_parser(numbers::seconds)
            .default_value("1")
            .help("repeat whole passes for at least S seconds (0 to 1000000)"),
        Arg::new("batch")
            .long("batch")
            .value_name("N")
            .value_parser(numbers::positive)
            .default_value("256")
            .help("samples per batch (at least 1)"),
        Arg::new("dim")
            .long("dim")
            .value_name("D")
            .value_parser(numbers::positive)
            .default_value("16")
            .help("embedding width (at least 1)"),
    ]
}

pub fn run(m: &ArgMatches, out: &mut Out) -> Result<(), Failure> {
    // Defaults are set, and the parsers checked every value: these are present and valid.
    let seconds = m.get_one::<f64>("seconds").copied().unwrap_or(1.0);
    let batch = m.get_one::<usize>("batch").copied().unwrap_or(256);
    let dim = m.get_one::<usize>("dim").copied().unwrap_or(16);
    let min_time = Duration::try_from_secs_f64(seconds).map_err(Failure::other)?;

    let dims = DEMO_CONFIG.dims;
    writeln!(
        out,
        "tessera: HugeCTR's data path on the bundled dataset ({} bytes, Norm with checksums)",
        DEMO_NORM.len()
    )?;
    writeln!(
        out,
        "  sample: {} label, {} dense, {} slots of 1..={} u32 keys",
        dims.label_dim, dims.dense_dim, dims.slot_num, DEMO_CONFIG.max_nnz
    )?;
    let too_big = |e: &dyn std::fmt::Display| {
        Failure::other(format!("--batch {batch} --dim {dim}: {e}"))
            .hint("a smaller --batch or --dim")
    };
    let table = demo_table(DEMO_VOCAB, dim).map_err(|e| too_big(&e))?;
    let r = run_pipeline(DEMO_NORM, DEMO_CONFIG, batch, &table, dim, min_time).map_err(
        |e| match e {
            tessera_lite::pipeline::PipelineError::Memory(_) => too_big(&e),
            _ => Failure::other(format!("bundled dataset: {e}")),
        },
    )?;
    let rows = r.samples.saturating_mul(dims.slot_num as u64);
    writeln!(
        out,
        "  decoded: {} samples in {} batches of {batch}, every checksum verified, {} skipped",
        r.samples, r.batches, r.stats.skipped
    )?;
    writeln!(
        out,
        "  CSR: {rows} rows (sample x slot), {} keys, {:.2} keys per row",
        r.keys,
        r.keys as f64 / rows.max(1) as f64
    )?;
    writeln!(
        out,
        "  pooled: embedding-bag sum over a {DEMO_VOCAB} x {dim} table -> {rows} x {dim}, sum of outputs {:.4}",
        r.pooled_sum
    )?;
    let passes = f64::from(r.passes);
    let (dec, pool) = (r.decode.as_secs_f64(), r.pool.as_secs_f64());
    writeln!(
        out,
        "  throughput over {} passes: decode {:.0} MB/s ({:.2} M samples/s), pooling {:.2} GB/s touched, \
         end to end {:.2} M samples/s",
        r.passes,
        DEMO_NORM.len() as f64 * passes / dec.max(1e-9) / 1e6,
        r.samples as f64 * passes / dec.max(1e-9) / 1e6,
        r.pool_bytes as f64 * passes / pool.max(1e-9) / 1e9,
        r.samples as f64 * passes / (dec + pool).max(1e-9) / 1e6,
    )?;
    Ok(())
}
