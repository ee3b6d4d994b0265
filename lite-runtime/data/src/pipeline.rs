//! The main job: HugeCTR's data path end to end over a Norm file in memory — decode with
//! checksums into CSR batches, pool every slot over an embedding table, and predict each
//! sample's click probability with a CTR model (a TensorFlow Lite file run by tessera's
//! interpreter) — with the time each stage took, and the predictions checked against
//! reference ones ([`Reference`]). Every input is an argument: `tessera` with no
//! arguments reads the demo files (`lite-runtime/cli/demo`: [`DEMO_CONFIG`]'s dataset, the CTR
//! model and LiteRT's predictions) and runs it on them.

use std::time::{Duration, Instant};

use tessera_core::data::{
    Check, DataError, DecodeStats, Dims, NormConfig, NormDecoder, PoolConfig, PoolError, Pooling,
    SampleBatch, Status, embedding_bag,
};
use tessera_core::npy::{NpyError, NpyType, NpyView};

use crate::buffers::{MemoryBudget, MemoryError};
use crate::ctr::{PredictError, Predictor};

/// How the demo dataset is read: `lite-runtime/cli/demo/demo.norm` (written by
/// `make_demo.py` there), 1 024 Criteo-shaped samples — 1 label, 13 dense features, 26 slots
/// of 1 to 3 `u32` keys, slot `s` drawing from keys `400 s .. 400 (s + 1)` — with checksums,
/// the shape the CTR model ([`ctr`](crate::ctr)) takes.
pub const DEMO_CONFIG: NormConfig = NormConfig::new(Dims::new(1, 13, 26), 3).with_check(Check::Sum);

/// Keys in the demo dataset: 26 slots of 400.
pub const DEMO_VOCAB: usize = 26 * 400;

/// What a pipeline run did and how long it took.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// Samples decoded per pass.
    pub samples: u64,
    /// Batches per pass.
    pub batches: u64,
    /// Keys per pass.
    pub keys: u64,
    /// The decoder's counts of the last pass (skipped samples included).
    pub stats: DecodeStats,
    /// Passes over the file.
    pub passes: u32,
    /// Time spent decoding, all passes.
    pub decode: Duration,
    /// Time spent pooling, all passes.
    pub pool: Duration,
    /// Sum of every pooled value of the last pass (a checksum of the output).
    pub pooled_sum: f64,
    /// Bytes the pooling read and wrote per pass: table rows gathered, CSR read, output.
    pub pool_bytes: u64,
    /// Time spent predicting (feeding the model and invoking it), all passes.
    pub predict: Duration,
    /// The last pass's predictions, one per sample in file order (empty without a model).
    pub predictions: Vec<f32>,
}

/// Why the pipeline stopped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PipelineError {
    /// The file is bad.
    Data(DataError),
    /// A key is outside the table.
    Pool(PoolError),
    /// The batch or output buffers for the `batch` and `dim` asked for are over the memory
    /// budget (or overflow), or the allocator refused them.
    Memory(MemoryError),
    /// The model could not predict a batch.
    Predict(PredictError),
}

impl std::fmt::Display for PipelineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Data(e) => write!(f, "decoding: {e}"),
            Self::Pool(e) => write!(f, "pooling: {e}"),
            Self::Memory(e) => write!(f, "buffers: {e}"),
            Self::Predict(e) => write!(f, "predicting: {e}"),
        }
    }
}

impl std::error::Error for PipelineError {}

/// A deterministic `vocab x dim` embedding table (values in `[-0.5, 0.5)`), or an error
/// naming its size if that is over [`MemoryBudget::DEFAULT`] (or overflows).
pub fn demo_table(vocab: usize, dim: usize) -> Result<Vec<f32>, MemoryError> {
    let len = (vocab as u128) * (dim as u128);
    MemoryBudget::DEFAULT.check::<f32>("embedding table", len)?;
    // Within the budget, so the length fits usize.
    let mut table = MemoryBudget::DEFAULT.vec("embedding table", len as usize, 0f32)?;
    for (i, x) in table.iter_mut().enumerate() {
        *x = ((i as u64).wrapping_mul(2_654_435_761) % 1000) as f32 / 1000.0 - 0.5;
    }
    Ok(table)
}

/// Decodes `file` in batches of `batch` samples and sum-pools each over `table` (`dim`
/// columns) and, given a `predictor`, predicts each sample with the model, repeating whole
/// passes until `min_time` has gone by (at least one pass).
/// Buffers are allocated once, before the first pass, each checked against
/// [`MemoryBudget::DEFAULT`] first: a `batch` or `dim` too large for it is
/// [`PipelineError::Memory`] naming the bytes, never an abort.
pub fn run(
    file: &[u8],
    config: NormConfig,
    batch: usize,
    table: &[f32],
    dim: usize,
    min_time: Duration,
    mut predictor: Option<&mut Predictor<'_, '_>>,
) -> Result<Report, PipelineError> {
    let dims = config.dims;
    let budget = MemoryBudget::DEFAULT;
    let memory = PipelineError::Memory;
    // Every length in u128 (no product of two usizes overflows it), checked before use.
    let rows = batch as u128 * dims.slot_num as u128;
    let max_values = rows * u128::from(config.max_nnz);
    let ld_len = batch as u128 * (dims.label_dim as u128 + dims.dense_dim as u128);
    budget
        .check::<u32>("key buffer", max_values)
        .and(budget.check::<f32>("label and dense buffer", ld_len))
        .and(budget.check::<u32>("row offsets", rows + 1))
        .and(budget.check::<f32>("pooled output", rows * dim as u128))
        .map_err(memory)?;
    // Each passed the budget check, so each fits usize.
    let (rows, max_values, ld_len) = (rows as usize, max_values as usize, ld_len as usize);
    let mut ld = budget
        .vec("label and dense buffer", ld_len, 0f32)
        .map_err(memory)?;
    let mut offsets = budget.vec("row offsets", rows + 1, 0u32).map_err(memory)?;
    let mut values = budget.vec("key buffer", max_values, 0u32).map_err(memory)?;
    let mut out = budget
        .vec("pooled output", rows * dim, 0f32)
        .map_err(memory)?;
    let pool = PoolConfig::new(Pooling::Sum);
    let mut report = Report {
        samples: 0,
        batches: 0,
        keys: 0,
        stats: DecodeStats::default(),
        passes: 0,
        decode: Duration::ZERO,
        pool: Duration::ZERO,
        pooled_sum: 0.0,
        pool_bytes: 0,
        predict: Duration::ZERO,
        predictions: Vec::new(),
    };
    let mut preds = match predictor {
        Some(_) => budget.vec("predictions", batch, 0f32).map_err(memory)?,
        None => Vec::new(),
    };
    let started = Instant::now();
    while report.passes == 0 || started.elapsed() < min_time {
        let mut b = SampleBatch::new(dims, &mut ld, &mut offsets, &mut values)
            .map_err(|e| PipelineError::Data(no_room(e)))?;
        let mut dec = NormDecoder::<u32>::new(config);
        let (mut pos, mut sum, mut samples, mut batches, mut keys, mut bytes) =
            (0, 0f64, 0u64, 0u64, 0u64, 0u64);
        loop {
            let t = Instant::now();
            let p = dec
                .decode(&file[pos..], &mut b)
                .map_err(PipelineError::Data)?;
            pos += p.consumed;
            report.decode += t.elapsed();
            if b.samples() > 0 {
                let csr = b.csr();
                let rows = csr.rows();
                let t = Instant::now();
                embedding_bag(csr, table, dim, &mut out[..rows * dim], pool)
                    .map_err(PipelineError::Pool)?;
                report.pool += t.elapsed();
                sum += out[..rows * dim].iter().map(|&x| f64::from(x)).sum::<f64>();
                samples += b.samples() as u64;
                keys += csr.nnz() as u64;
                batches += 1;
                bytes += (csr.nnz() * dim * 4 + (rows + 1 + csr.nnz()) * 4 + rows * dim * 4) as u64;
                if let Some(p) = predictor.as_deref_mut() {
                    let t = Instant::now();
                    p.predict(&b, &mut preds).map_err(PipelineError::Predict)?;
                    report.predict += t.elapsed();
                    if report.passes == 0 {
                        report.predictions.extend_from_slice(&preds[..b.samples()]);
                    }
                }
                b.clear();
            }
            if p.status != Status::BatchFull {
                break;
            }
        }
        let t = Instant::now();
        report.stats = dec.finish(&file[pos..]).map_err(PipelineError::Data)?;
        report.decode += t.elapsed();
        report.passes += 1;
        (report.samples, report.batches, report.keys) = (samples, batches, keys);
        report.pooled_sum = sum;
        report.pool_bytes = bytes;
    }
    Ok(report)
}

/// Why reference predictions cannot be compared with a run's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReferenceError {
    /// Not a `.npy` file tessera reads.
    Npy(NpyError),
    /// Not float32 values.
    Type(NpyType),
    /// Not one value per prediction.
    Count {
        /// Values in the file.
        values: usize,
        /// The run's predictions.
        predictions: usize,
    },
}

impl std::fmt::Display for ReferenceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Self::Npy(e) => e.fmt(f),
            Self::Type(t) => write!(f, "holds {t} values, not float32 predictions (<f4)"),
            Self::Count {
                values,
                predictions,
            } => write!(f, "holds {values} predictions, the run made {predictions}"),
        }
    }
}

impl std::error::Error for ReferenceError {}

/// Reference predictions to check a run's against: a `.npy` file of float32 values, one per
/// sample in the same order (the demo's `ctr_b4.demo_predictions.npy` holds LiteRT's for the
/// demo dataset, in file order). Read in place.
#[derive(Debug, Clone, Copy)]
pub struct Reference<'a> {
    npy: NpyView<'a>,
}

impl<'a> Reference<'a> {
    /// Checks that `bytes` are a `.npy` file of float32 values.
    ///
    /// # Errors
    /// [`ReferenceError::Npy`] or [`ReferenceError::Type`].
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ReferenceError> {
        let npy = NpyView::parse(bytes).map_err(ReferenceError::Npy)?;
        match npy.dtype() {
            NpyType::F32 => Ok(Self { npy }),
            t => Err(ReferenceError::Type(t)),
        }
    }

    /// Predictions held.
    #[must_use]
    pub fn len(&self) -> usize {
        self.npy.elements()
    }

    /// Whether it holds none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The largest absolute difference between `predictions` and these.
    ///
    /// # Errors
    /// [`ReferenceError::Count`] unless there are as many of each.
    pub fn largest_difference(&self, predictions: &[f32]) -> Result<f32, ReferenceError> {
        if predictions.len() != self.len() {
            return Err(ReferenceError::Count {
                values: self.len(),
                predictions: predictions.len(),
            });
        }
        Ok(predictions
            .iter()
            .zip(self.npy.data().chunks_exact(4))
            .map(|(g, w)| (g - f32::from_le_bytes([w[0], w[1], w[2], w[3]])).abs())
            .fold(0f32, f32::max))
    }
}

fn no_room(e: tessera_core::data::BatchError) -> DataError {
    DataError {
        kind: tessera_core::data::DataErrorKind::Batch(e),
        sample: None,
        offset: 0,
    }
}

#[cfg(test)]
mod tests;
