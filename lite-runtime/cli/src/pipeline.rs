//! `tessera` with no command: the data path end to end on the bundled dataset, timed.

use std::io::Write;
use std::time::Duration;

use clap::{Arg, ArgMatches};
use tessera_core::npy::NpyView;
use tessera_lite::ctr::{self, Predictor};
use tessera_lite::interpreter::{AllOps, Interpreter, Options};
use tessera_lite::model::Model;
use tessera_lite::pipeline::{
    DEMO_CONFIG, DEMO_NORM, DEMO_PREDICTIONS, DEMO_VOCAB, demo_table, run as run_pipeline,
};

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
    // The bundled CTR model, run by tessera's interpreter over one arena allocated here.
    let bundled = |e: &dyn std::fmt::Display| Failure::other(format!("bundled model: {e}"));
    let model = Model::load(ctr::model()).map_err(|e| bundled(&e))?;
    let options = Options::default();
    let needed = Interpreter::required(&model, &AllOps, &options).map_err(|e| bundled(&e))?;
    let mut arena = vec![0u8; needed];
    let it = Interpreter::new(model, &AllOps, &mut arena, &options).map_err(|e| bundled(&e))?;
    let arena_used = it.arena_used_bytes();
    let mut predictor = Predictor::new(it).map_err(|e| bundled(&e))?;
    let r = run_pipeline(
        DEMO_NORM,
        DEMO_CONFIG,
        batch,
        &table,
        dim,
        min_time,
        Some(&mut predictor),
    )
    .map_err(|e| match e {
        tessera_lite::pipeline::PipelineError::Memory(_) => too_big(&e),
        _ => Failure::other(format!("bundled dataset: {e}")),
    })?;
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
    let litert = NpyView::parse(DEMO_PREDICTIONS).map_err(|e| bundled(&e))?;
    let worst = r
        .predictions
        .iter()
        .zip(litert.data().chunks_exact(4))
        .map(|(g, w)| (g - f32::from_le_bytes([w[0], w[1], w[2], w[3]])).abs())
        .fold(0f32, f32::max);
    let clicks = r.predictions.iter().filter(|&&p| p >= 0.5).count();
    let mean = r.predictions.iter().map(|&p| f64::from(p)).sum::<f64>()
        / r.predictions.len().max(1) as f64;
    writeln!(
        out,
        "  predicted: the bundled CTR model (TensorFlow Lite, {} operators, arena {arena_used} bytes) \
         on every sample, {} at p >= 0.5, mean p {mean:.4}; largest difference from LiteRT {worst:.1e}",
        model.subgraph(0).map_or(0, |g| g.operators().len()),
        clicks,
    )?;
    let passes = f64::from(r.passes);
    let (dec, pool) = (r.decode.as_secs_f64(), r.pool.as_secs_f64());
    let predict = r.predict.as_secs_f64();
    writeln!(
        out,
        "  throughput over {} passes: decode {:.0} MB/s ({:.2} M samples/s), pooling {:.2} GB/s touched, \
         model {:.0} k samples/s ({:.1} us per invoke of {}), end to end {:.0} k samples/s",
        r.passes,
        DEMO_NORM.len() as f64 * passes / dec.max(1e-9) / 1e6,
        r.samples as f64 * passes / dec.max(1e-9) / 1e6,
        r.pool_bytes as f64 * passes / pool.max(1e-9) / 1e9,
        r.samples as f64 * passes / predict.max(1e-9) / 1e3,
        predict / (r.samples as f64 * passes / ctr::MODEL_BATCH as f64).max(1.0) * 1e6,
        ctr::MODEL_BATCH,
        r.samples as f64 * passes / (dec + pool + predict).max(1e-9) / 1e3,
    )?;
    if worst > 1e-4 {
        return Err(Failure::other(format!(
            "bundled model: predictions differ from LiteRT's by {worst}"
        )));
    }
    Ok(())
}
