//! `tessera` with no command: the data path end to end on the bundled dataset, timed.

use std::error::Error;
use std::time::Duration;

use tessera_lite::pipeline::{DEMO_CONFIG, DEMO_NORM, DEMO_VOCAB, demo_table, run};

use crate::args::Args;

pub fn main(args: &[String]) -> Result<(), Box<dyn Error>> {
    let args = Args::parse(args, &["seconds", "batch", "dim"], &[])?;
    if let Some(extra) = args.positional.first() {
        return Err(format!("unknown command {extra:?} (see tessera --help)").into());
    }
    let number = |name: &str, default: f64| -> Result<f64, String> {
        args.value(name).map_or(Ok(default), |v| {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or(format!("--{name} {v:?} is not a number"))
        })
    };
    let seconds = number("seconds", 1.0)?;
    let batch = (number("batch", 256.0)? as usize).max(1);
    let dim = (number("dim", 16.0)? as usize).max(1);

    let dims = DEMO_CONFIG.dims;
    println!(
        "tessera: HugeCTR's data path on the bundled dataset ({} bytes, Norm with checksums)",
        DEMO_NORM.len()
    );
    println!(
        "  sample: {} label, {} dense, {} slots of 1..={} u32 keys",
        dims.label_dim, dims.dense_dim, dims.slot_num, DEMO_CONFIG.max_nnz
    );
    let table = demo_table(DEMO_VOCAB, dim);
    let r = run(
        DEMO_NORM,
        DEMO_CONFIG,
        batch,
        &table,
        dim,
        Duration::from_secs_f64(seconds),
    )?;
    let rows = r.samples * dims.slot_num as u64;
    println!(
        "  decoded: {} samples in {} batches of {batch}, every checksum verified, {} skipped",
        r.samples, r.batches, r.stats.skipped
    );
    println!(
        "  CSR: {rows} rows (sample x slot), {} keys, {:.2} keys per row",
        r.keys,
        r.keys as f64 / rows.max(1) as f64
    );
    println!(
        "  pooled: embedding-bag sum over a {DEMO_VOCAB} x {dim} table -> {rows} x {dim}, sum of outputs {:.4}",
        r.pooled_sum
    );
    let passes = f64::from(r.passes);
    let (dec, pool) = (r.decode.as_secs_f64(), r.pool.as_secs_f64());
    println!(
        "  throughput over {} passes: decode {:.0} MB/s ({:.2} M samples/s), pooling {:.2} GB/s touched, \
         end to end {:.2} M samples/s",
        r.passes,
        DEMO_NORM.len() as f64 * passes / dec.max(1e-9) / 1e6,
        r.samples as f64 * passes / dec.max(1e-9) / 1e6,
        r.pool_bytes as f64 * passes / pool.max(1e-9) / 1e9,
        r.samples as f64 * passes / (dec + pool).max(1e-9) / 1e6,
    );
    Ok(())
}
