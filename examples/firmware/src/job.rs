//! The work the firmware does, in plain `no_std` code over caller buffers, so that `build.rs`
//! runs the very same code on the host and the firmware can check its results against the
//! host's bit for bit.

use tessera_core::data::{
    Check, DataError, Dims, NormConfig, NormDecoder, PoolConfig, Pooling, SampleBatch, Status,
    embedding_bag,
};
use tessera_data::ctr::{PredictError, Predictor};
use tessera_lite::interpreter::{InterpreterError, MutableOpResolver, kernels};
use tessera_lite::model::{Model, ModelError};

/// The bundled dataset: 1 024 Criteo-shaped samples (1 label, 13 dense, 26 slots of 1 to 3
/// `u32` keys) in HugeCTR's Norm format with checksums, kept in flash.
pub static DEMO_NORM: &[u8] = include_bytes!("../../../lite-runtime/cli/demo/demo.norm");

/// How the dataset is read.
pub const CONFIG: NormConfig = NormConfig::new(Dims::new(1, 13, 26), 3).with_check(Check::Sum);

/// Samples per batch.
pub const BATCH: usize = 64;
/// Embedding width.
pub const DIM: usize = 8;
/// Rows of the embedding table: 26 slots of 400 keys.
pub const VOCAB: usize = 26 * 400;

const LD: usize = BATCH * 14;
const ROWS: usize = BATCH * 26;
const KEYS: usize = ROWS * 3;

/// The embedding table, computed at compile time into flash: the same deterministic values
/// as the host's `tessera` main job (`demo_table`), in `[-0.5, 0.5)`.
pub static TABLE: [f32; VOCAB * DIM] = table();

const fn table() -> [f32; VOCAB * DIM] {
    let mut t = [0f32; VOCAB * DIM];
    let mut i = 0;
    while i < VOCAB * DIM {
        t[i] = ((i as u64).wrapping_mul(2_654_435_761) % 1000) as f32 / 1000.0 - 0.5;
        i += 1;
    }
    t
}

/// The kernels the bundled CTR model needs, and only those: the others are not linked.
pub fn ctr_ops() -> MutableOpResolver<9> {
    let mut ops = MutableOpResolver::new();
    for k in [
        &kernels::STRIDED_SLICE,
        &kernels::LESS,
        &kernels::ADD,
        &kernels::SELECT,
        &kernels::GATHER,
        &kernels::SUM,
        &kernels::CONCATENATION,
        &kernels::FULLY_CONNECTED,
        &kernels::LOGISTIC,
    ] {
        // Nine slots for nine kernels: never full.
        let _ = ops.add(k);
    }
    ops
}

/// Bytes kept on a 16-byte boundary, so the model's constants are read in place.
#[repr(C, align(16))]
struct Aligned<B: ?Sized>(B);

/// The bundled CTR model (`ctr_b4.tflite`: batch 4, TensorFlow's converter), in flash.
static MODEL_BYTES: &Aligned<[u8]> = &Aligned(*include_bytes!(
    "../../../lite-runtime/cli/demo/ctr_b4.tflite"
));

/// The bundled CTR model, checked (it lies in flash, 16-byte aligned).
pub fn model() -> Result<Model<'static>, ModelError> {
    Model::load(&MODEL_BYTES.0)
}

/// What one pass over the dataset found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// Samples decoded.
    pub samples: u32,
    /// Keys read.
    pub keys: u32,
    /// Batches pooled.
    pub batches: u32,
    /// Wrapping sum of the bit patterns of every pooled value: equal only if every value is.
    pub pooled_bits: u64,
    /// Sum of the labels, as a second, readable check.
    pub positives: u32,
    /// Wrapping sum of the bit patterns of every prediction of the CTR model.
    pub prediction_bits: u64,
    /// Samples the model predicts a click for (p >= 0.5).
    pub clicks: u32,
}

/// Why the pass stopped.
#[derive(Debug, Clone, Copy)]
pub enum JobError {
    /// The Norm file is bad (the error names the sample and byte offset).
    Data(DataError),
    /// The batch buffers are too small (a sizing bug in this file).
    Batch,
    /// A key is outside the table.
    Pool,
    /// The model is bad (never, for the bundled one).
    Model(ModelError),
    /// The interpreter could not be set up (an arena too small names the bytes needed).
    Interpreter(InterpreterError),
    /// The model could not predict a batch.
    Predict(PredictError),
}

impl core::fmt::Display for JobError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Data(e) => write!(f, "the dataset: {e}"),
            Self::Batch => f.write_str("the batch buffers are too small"),
            Self::Pool => f.write_str("a key is outside the embedding table"),
            Self::Model(e) => write!(f, "the model: {e}"),
            Self::Interpreter(e) => write!(f, "the interpreter: {e}"),
            Self::Predict(e) => write!(f, "predicting: {e}"),
        }
    }
}

/// The batch buffers, in one struct so the firmware can keep them in a static.
pub struct Buffers {
    ld: [f32; LD],
    offsets: [u32; ROWS + 1],
    keys: [u32; KEYS],
    out: [f32; ROWS * DIM],
}

impl Buffers {
    /// Zeroed buffers.
    pub const fn new() -> Self {
        Self {
            ld: [0.0; LD],
            offsets: [0; ROWS + 1],
            keys: [0; KEYS],
            out: [0.0; ROWS * DIM],
        }
    }

    /// Bytes the buffers take.
    pub const fn bytes() -> usize {
        core::mem::size_of::<Self>()
    }
}

/// Decodes `file` into CSR batches of [`BATCH`] samples, sum-pools every slot over
/// [`TABLE`], and predicts every sample with the bundled CTR model run by `predictor`.
pub fn run(
    file: &[u8],
    buf: &mut Buffers,
    predictor: &mut Predictor<'_, '_>,
) -> Result<Outcome, JobError> {
    let Buffers {
        ld,
        offsets,
        keys,
        out,
    } = buf;
    let mut batch = SampleBatch::new(CONFIG.dims, &mut ld[..], &mut offsets[..], &mut keys[..])
        .map_err(|_| JobError::Batch)?;
    let mut decoder = NormDecoder::<u32>::new(CONFIG);
    let pool = PoolConfig::new(Pooling::Sum);
    let mut o = Outcome {
        samples: 0,
        keys: 0,
        batches: 0,
        pooled_bits: 0,
        positives: 0,
        prediction_bits: 0,
        clicks: 0,
    };
    let mut predictions = [0f32; BATCH];
    let mut pos = 0;
    loop {
        let p = decoder
            .decode(&file[pos..], &mut batch)
            .map_err(JobError::Data)?;
        pos += p.consumed;
        if batch.samples() > 0 {
            for s in 0..batch.samples() {
                if batch.labels(s).is_some_and(|l| l[0] > 0.5) {
                    o.positives += 1;
                }
            }
            let csr = batch.csr();
            let rows = csr.rows();
            embedding_bag(csr, &TABLE, DIM, &mut out[..rows * DIM], pool)
                .map_err(|_| JobError::Pool)?;
            for v in &out[..rows * DIM] {
                o.pooled_bits = o.pooled_bits.wrapping_add(u64::from(v.to_bits()));
            }
            predictor
                .predict(&batch, &mut predictions)
                .map_err(JobError::Predict)?;
            for p in &predictions[..batch.samples()] {
                o.prediction_bits = o.prediction_bits.wrapping_add(u64::from(p.to_bits()));
                o.clicks += u32::from(*p >= 0.5);
            }
            o.samples += batch.samples() as u32;
            o.keys += csr.nnz() as u32;
            o.batches += 1;
            batch.clear();
        }
        if p.status != Status::BatchFull {
            break;
        }
    }
    decoder.finish(&file[pos..]).map_err(JobError::Data)?;
    Ok(o)
}
