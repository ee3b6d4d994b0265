//! `tessera` with no command: the data path end to end on the demo files (or the files
//! given instead), timed, its predictions checked against LiteRT's.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Arg, ArgMatches, value_parser};
use tessera_data::ctr::{self, Predictor};
use tessera_data::pipeline::{
    DEMO_CONFIG, DEMO_VOCAB, PipelineError, Reference, demo_table, run as run_pipeline,
};

use crate::failure::Failure;
use crate::files::{ModelBytes, read_bounded};
use crate::model::{Session, load};
use crate::numbers;
use crate::output::Out;

/// The demo dataset: 1 024 Criteo-shaped samples, Norm with checksums ([`DEMO_CONFIG`]).
const DEMO_DATASET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/demo/demo.norm");
/// The CTR model the demo dataset feeds (batch 4, TensorFlow's converter).
const DEMO_MODEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/demo/ctr_b4.tflite");
/// LiteRT's predictions for the demo dataset with the demo model, float32 `[1024]`.
const DEMO_PREDICTIONS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/demo/ctr_b4.demo_predictions.npy"
);

/// The run's options, at the top level of `tessera`.
pub fn args() -> [Arg; 6] {
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
        Arg::new("dataset")
            .long("dataset")
            .value_name("FILE")
            .value_parser(value_parser!(PathBuf))
            .default_value(DEMO_DATASET)
            .help("the Norm dataset (checksums; 1 label, 13 dense, 26 slots of 1..=3 u32 keys)"),
        Arg::new("model")
            .long("model")
            .value_name("FILE")
            .value_parser(value_parser!(PathBuf))
            .default_value(DEMO_MODEL)
            .help("the CTR model (.tflite; inputs 'keys' and 'dense' by signature)"),
        Arg::new("predictions")
            .long("predictions")
            .value_name("FILE")
            .value_parser(value_parser!(PathBuf))
            .default_value(DEMO_PREDICTIONS)
            .help("LiteRT's predictions to match (.npy, float32, one per sample)"),
    ]
}

/// A file the run reads: its path, and how the output names it.
struct Input<'a> {
    path: &'a Path,
    /// "the bundled dataset" for a demo file, its path for another.
    name: String,
    demo: bool,
}

impl<'a> Input<'a> {
    fn new(m: &'a ArgMatches, id: &str, demo: &'static str, bundled: &str) -> Self {
        let path = m
            .get_one::<PathBuf>(id)
            .map_or(Path::new(demo), PathBuf::as_path);
        let demo = path == Path::new(demo);
        let name = match demo {
            true => bundled.to_owned(),
            false => path.display().to_string(),
        };
        Self { path, name, demo }
    }

    /// A failure reading the file; for a demo file that is not there, where it was expected.
    fn failed(&self, f: Failure) -> Failure {
        match self.demo && !self.path.exists() {
            true => f.hint(
                "the demo files are read from the source tree tessera was built in \
                 (lite-runtime/cli/demo); give --dataset, --model and --predictions",
            ),
            false => f,
        }
    }
}

pub fn run(m: &ArgMatches, out: &mut Out) -> Result<(), Failure> {
    // Defaults are set, and the parsers checked every value: these are present and valid.
    let seconds = m.get_one::<f64>("seconds").copied().unwrap_or(1.0);
    let batch = m.get_one::<usize>("batch").copied().unwrap_or(256);
    let dim = m.get_one::<usize>("dim").copied().unwrap_or(16);
    let min_time = Duration::try_from_secs_f64(seconds).map_err(Failure::other)?;
    let dataset = Input::new(m, "dataset", DEMO_DATASET, "the bundled dataset");
    let model_file = Input::new(m, "model", DEMO_MODEL, "the bundled CTR model");
    let reference = Input::new(m, "predictions", DEMO_PREDICTIONS, "LiteRT's predictions");
    let norm = read_bounded(dataset.path).map_err(|f| dataset.failed(f))?;
    let model_bytes = ModelBytes::read(model_file.path).map_err(|f| model_file.failed(f))?;
    let litert = read_bounded(reference.path).map_err(|f| reference.failed(f))?;
    let litert = Reference::parse(&litert).map_err(|e| Failure::file(reference.path, e))?;

    let dims = DEMO_CONFIG.dims;
    writeln!(
        out,
        "tessera: HugeCTR's data path on {} ({} bytes, Norm with checksums)",
        dataset.name,
        norm.len()
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
    // The CTR model, run by tessera's interpreter over one arena allocated here.
    let model = load(model_file.path, &model_bytes)?;
    let mut session = Session::new(
        model_file.path,
        model,
        tessera_lite::interpreter::Options::default(),
    )?;
    let it = session.interpreter(model_file.path)?;
    let arena_used = it.arena_used_bytes();
    let mut predictor = Predictor::new(it).map_err(|e| Failure::file(model_file.path, e))?;
    let r = run_pipeline(
        &norm,
        DEMO_CONFIG,
        batch,
        &table,
        dim,
        min_time,
        Some(&mut predictor),
    )
    .map_err(|e| match e {
        PipelineError::Memory(_) => too_big(&e),
        _ => Failure::file(dataset.path, e),
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
    let worst = litert
        .largest_difference(&r.predictions)
        .map_err(|e| Failure::file(reference.path, e))?;
    let clicks = r.predictions.iter().filter(|&&p| p >= 0.5).count();
    let mean = r.predictions.iter().map(|&p| f64::from(p)).sum::<f64>()
        / r.predictions.len().max(1) as f64;
    writeln!(
        out,
        "  predicted: {} (TensorFlow Lite, {} operators, arena {arena_used} bytes) \
         on every sample, {} at p >= 0.5, mean p {mean:.4}; largest difference from LiteRT {worst:.1e}",
        model_file.name,
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
        norm.len() as f64 * passes / dec.max(1e-9) / 1e6,
        r.samples as f64 * passes / dec.max(1e-9) / 1e6,
        r.pool_bytes as f64 * passes / pool.max(1e-9) / 1e9,
        r.samples as f64 * passes / predict.max(1e-9) / 1e3,
        predict / (r.samples as f64 * passes / ctr::MODEL_BATCH as f64).max(1.0) * 1e6,
        ctr::MODEL_BATCH,
        r.samples as f64 * passes / (dec + pool + predict).max(1e-9) / 1e3,
    )?;
    if worst > 1e-4 {
        return Err(Failure::file(
            model_file.path,
            format!("predictions differ from LiteRT's by {worst}"),
        ));
    }
    Ok(())
}
