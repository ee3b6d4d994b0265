//! `tessera._tessera.Reader`: one pass over a HugeCTR dataset (Norm or Raw files, file lists,
//! a Parquet dataset; whole or one rank's shard), decoded by a cursor set's worker threads,
//! handed to Python as numpy batches in the serial order. The GIL is released while a batch
//! is awaited and copied out, so the workers decode while Python trains.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::{self, JoinHandle};

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PySlice, PyTuple};
use tessera_core::data::{
    BatchInfo, BatchSource, Check, DataError, Dims, ErrorPolicy, Key, NormConfig, RawConfig,
    SampleBatch,
};
use tessera_data::buffers::BatchBuffers;
use tessera_data::cursor_set::{CursorSet, CursorSetConfig};
use tessera_data::dataset::{
    DatasetError, DatasetPlan, FileList, IoMode, NormFileHeader, ParquetConfig, Shard,
};

use crate::errors::{Class, Detail, raise};

/// Batches each worker may hold decoded ahead of the consumer (as `tessera dataset read`).
const QUEUE_DEPTH: usize = 2;

/// The most workers a reader takes: more threads than any machine has cores is a mistake.
const MAX_WORKERS: usize = 256;

fn data_error(message: impl Into<String>, path: Option<&Path>) -> PyErr {
    let path = path.map(|p| Detail::Text(p.display().to_string()));
    raise(Class::Data, message, &[("path", path)])
}

fn dataset_error(e: &DatasetError) -> PyErr {
    raise(Class::Data, e.to_string(), &[])
}

fn decode_error(e: &DataError, plan: &DatasetPlan) -> PyErr {
    // The plan keeps the failing file's error, which names the file; else the bare one.
    let message = match plan.failure() {
        Some(full) => full.to_string(),
        None => e.to_string(),
    };
    raise(
        Class::Data,
        message,
        &[
            ("sample", e.sample.map(|s| Detail::Int(s.into()))),
            ("offset", Some(Detail::Int(e.offset as i128))),
        ],
    )
}

/// One batch copied out of the consumer's buffers: labels, dense, row offsets and keys, the
/// number of samples, and the batch's number and first row.
struct Copied<K> {
    /// Labels then dense features, a row per sample (Python views split them).
    label_dense: Vec<f32>,
    row_offsets: Vec<K>,
    keys: Vec<K>,
    samples: usize,
    id: u64,
    first_row: u64,
}

/// What the driver thread sends the reader.
enum Msg<K> {
    /// The set is running (sent first), or why it could not start.
    Started(Result<(), String>),
    Batch(Copied<K>),
    /// A decoding error in its serial place; the pass ends.
    Failed(DataError),
    End,
}

/// Copies the batch in `batch` out: the samples' rows, offsets and keys in use.
fn copy_out<K: Key>(batch: &SampleBatch<'_, K>, info: BatchInfo, dims: Dims) -> Copied<K> {
    let samples = batch.samples();
    let used = samples.saturating_mul(dims.label_dense());
    let label_dense = batch.label_dense().get(..used).unwrap_or_default().to_vec();
    let csr = batch.csr();
    Copied {
        label_dense,
        row_offsets: csr.row_offsets().to_vec(),
        keys: csr.values().to_vec(),
        samples,
        id: info.id,
        first_row: info.first_row,
    }
}

/// The driver: runs the cursor set (which stays on this thread: its lanes are not `Send`),
/// takes its batches in serial order and sends them, copied out, to the reader. Ends when the
/// pass ends or fails, or when the reader is gone (a send fails); dropping the set joins its
/// workers.
fn drive<K: Key + Send + 'static>(
    plan: DatasetPlan,
    config: CursorSetConfig,
    tx: SyncSender<Msg<K>>,
) {
    let dims = plan.dims();
    let started = BatchBuffers::<K>::new(dims, config.batch_samples, config.max_values)
        .map_err(|e| format!("batch buffers: {e}"))
        .and_then(|b| {
            let source = plan.clone();
            CursorSet::spawn(config, move |w, n| source.partition::<K>(w, n))
                .map(|set| (b, set))
                .map_err(|e| format!("cursor set: {e}"))
        });
    let (mut buffers, mut set) = match started {
        Ok(running) => {
            if tx.send(Msg::Started(Ok(()))).is_err() {
                return;
            }
            running
        }
        Err(e) => {
            let _ = tx.send(Msg::Started(Err(e)));
            return;
        }
    };
    loop {
        let msg = match buffers.batch() {
            Err(e) => Msg::Started(Err(format!("batch buffers: {e}"))),
            Ok(mut batch) => match set.next_batch(&mut batch) {
                Ok(Some(info)) => Msg::Batch(copy_out(&batch, info, dims)),
                Ok(None) => Msg::End,
                Err(e) => Msg::Failed(e),
            },
        };
        let last = !matches!(msg, Msg::Batch(_));
        if tx.send(msg).is_err() || last {
            return;
        }
    }
}

/// A running pass with keys of type `K`: the driver's channel and thread.
struct Pass<K> {
    /// A `Mutex` only to make the reader `Sync`: one Python thread at a time holds the
    /// reader's `&mut` anyway.
    rx: Mutex<Receiver<Msg<K>>>,
    driver: Option<JoinHandle<()>>,
}

impl<K: Key + Send + 'static> Pass<K> {
    /// Starts the driver and waits until the set runs (or says why it cannot).
    fn start(plan: &DatasetPlan, config: CursorSetConfig) -> Result<Self, String> {
        let (tx, rx) = sync_channel(QUEUE_DEPTH);
        let plan = plan.clone();
        let driver = thread::Builder::new()
            .name("tessera-data".into())
            .spawn(move || drive::<K>(plan, config, tx))
            .map_err(|e| format!("a thread for the reader: {e}"))?;
        let pass = Self {
            rx: Mutex::new(rx),
            driver: Some(driver),
        };
        match pass.recv() {
            Msg::Started(Ok(())) => Ok(pass),
            Msg::Started(Err(e)) => Err(e),
            _ => Err("the reader's thread stopped before it started".into()),
        }
    }

    /// The next message (the driver's end if it is gone).
    fn recv(&self) -> Msg<K> {
        match self.rx.lock() {
            Ok(rx) => rx.recv().unwrap_or(Msg::End),
            Err(_) => Msg::End,
        }
    }
}

impl<K> Msg<K> {
    /// A message that is not a batch, with no key type (a batch becomes the end: callers
    /// handle batches first).
    fn map_batch(self) -> Msg<()> {
        match self {
            Msg::Started(r) => Msg::Started(r),
            Msg::Failed(e) => Msg::Failed(e),
            Msg::Batch(_) | Msg::End => Msg::End,
        }
    }
}

impl<K> Drop for Pass<K> {
    fn drop(&mut self) {
        // Closing the channel stops the driver at its next send; it drops the set, which
        // joins the workers. Waiting for it here means no thread outlives the reader.
        if let Ok(rx) = self.rx.get_mut() {
            *rx = sync_channel(0).1;
        }
        if let Some(driver) = self.driver.take() {
            let _ = driver.join();
        }
    }
}

/// A pass with `u32` or `i64` keys.
enum Keys {
    U32(Pass<u32>),
    I64(Pass<i64>),
}

/// One pass over a dataset, as numpy batches: iterate it; each item is the tuple
/// `(labels, dense, row_offsets, keys, batch, first_row)` (`tessera.data` wraps it in a
/// `Batch`). Made by `tessera.data.Dataset.__iter__`.
#[pyclass(module = "tessera._tessera")]
pub(crate) struct Reader {
    /// `None` once the pass has ended or failed (the workers are joined then).
    keys: Option<Keys>,
    plan: DatasetPlan,
    dims: Dims,
}

/// What a dataset's batches need: the plan, the batch's samples and key capacity.
struct Planned {
    plan: DatasetPlan,
    samples: usize,
    keys: usize,
}

/// Bytes of the regular files among `paths` (`None` if one is a pipe or device).
fn total_bytes(paths: &[PathBuf]) -> Option<u64> {
    let mut total = 0u64;
    for p in paths {
        match std::fs::metadata(p) {
            Ok(m) if m.is_file() => total = total.saturating_add(m.len()),
            _ => return None,
        }
    }
    Some(total)
}

#[allow(clippy::too_many_arguments)] // the dataset's options, as tessera dataset read has them
fn plan(
    paths: &[PathBuf],
    format: &str,
    batch_size: usize,
    dims: Option<(usize, usize, usize)>,
    max_nnz: Option<u32>,
    skip_bad: bool,
    raw_int_values: bool,
    slot_sizes: Option<Vec<u64>>,
) -> PyResult<Planned> {
    let first = paths
        .first()
        .ok_or_else(|| data_error("no dataset files given", None))?;
    let policy = match skip_bad {
        true => ErrorPolicy::Skip,
        false => ErrorPolicy::Stop,
    };
    let given = dims.map(|(l, d, s)| Dims::new(l, d, s));
    let (plan, least) = match format {
        "norm" | "raw" => {
            let mut files = Vec::new();
            for f in paths {
                files.extend(FileList::resolve(f).map_err(|e| dataset_error(&e))?);
            }
            let Some(head) = files.first() else {
                return Err(data_error("the file list names no file", Some(first)));
            };
            if format == "norm" {
                let h = NormFileHeader::read(head).map_err(|e| dataset_error(&e))?;
                let dims = given.unwrap_or(h.dims);
                let config =
                    NormConfig::new(dims, max_nnz.unwrap_or(i32::MAX as u32)).with_check(h.check);
                let config = config.with_policy(policy);
                let least = 4 * (dims.label_dense() as u64 + dims.slot_num as u64)
                    + u64::from(h.check != Check::None);
                let plan = DatasetPlan::norm(files, config).map_err(|e| dataset_error(&e))?;
                (plan.with_io(IoMode::Map), least)
            } else {
                let dims = given.ok_or_else(|| {
                    data_error("Raw files have no header: give dims=(L, D, S)", Some(first))
                })?;
                let mut config = RawConfig::new(dims);
                config.policy = policy;
                config.float_label_dense = !raw_int_values;
                let least = config.sample_bytes() as u64;
                let plan = DatasetPlan::raw(files, config).map_err(|e| dataset_error(&e))?;
                (plan.with_io(IoMode::Map), least)
            }
        }
        "parquet" => {
            if paths.len() > 1 {
                return Err(data_error(
                    "a Parquet dataset is one source: its directory, _metadata.json or file list",
                    Some(first),
                ));
            }
            let config = ParquetConfig {
                slot_size_array: slot_sizes,
                policy,
                ..ParquetConfig::default()
            };
            let plan = DatasetPlan::parquet(first, config).map_err(|e| dataset_error(&e))?;
            (plan, 0)
        }
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "format {other:?}: give \"norm\", \"raw\" or \"parquet\""
            )));
        }
    };
    let dims = plan.dims();
    if dims.label_dense() == 0 && dims.slot_num == 0 {
        return Err(data_error(
            "the dataset's samples hold nothing",
            Some(first),
        ));
    }
    // Keys: max_nnz per slot if given; else at most what the files' bytes can hold (4 bytes
    // a key at the least) and at most 8 a slot on average (at least 1 Mi), as `tessera
    // dataset read` sizes its batches.
    let default_keys = batch_size
        .saturating_mul(dims.slot_num)
        .saturating_mul(8)
        .max(1 << 20);
    let keys = match max_nnz {
        Some(n) => batch_size
            .checked_mul(dims.slot_num)
            .and_then(|k| k.checked_mul(n as usize))
            .ok_or_else(|| data_error(format!("max_nnz {n}: batch keys overflow"), None))?
            .max(1),
        None => match (least, total_bytes(file_paths(&plan).as_slice())) {
            (0, _) | (_, None) => default_keys,
            (_, Some(total)) => usize::try_from(total / 4)
                .unwrap_or(usize::MAX)
                .clamp(1, default_keys),
        },
    };
    Ok(Planned {
        plan,
        samples: batch_size,
        keys,
    })
}

/// The paths of a plan's files.
fn file_paths(plan: &DatasetPlan) -> Vec<PathBuf> {
    plan.files().iter().map(|f| f.path.clone()).collect()
}

/// The Rust cursor set alone, as `Reader` runs it (same plan, workers and batches) but with
/// the consumer's batch read in place, nothing copied out or handed to Python: `(rows,
/// seconds)` of one pass. For `bench/bench.py`, which sets `Reader`'s rows/s against it.
#[pyfunction]
#[pyo3(signature = (paths, format, *, batch_size=1024, workers=2))]
pub(crate) fn _cursor_set_pass(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    format: &str,
    batch_size: usize,
    workers: usize,
) -> PyResult<(u64, f64)> {
    if !(1..=MAX_WORKERS).contains(&workers) || batch_size == 0 {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "workers 1 to 256, batch_size at least 1",
        ));
    }
    let planned = plan(&paths, format, batch_size, None, None, false, false, None)?;
    let plan = planned.plan;
    let config = CursorSetConfig::new(plan.dims(), planned.samples, planned.keys)
        .with_workers(workers)
        .with_queue_depth(QUEUE_DEPTH)
        // Worker 0 decodes on the driver's thread, as `tessera dataset read` does on its
        // consumer's: `n` workers take `n - 1` threads beside the driver.
        .with_consumer_decoding(true);
    py.detach(|| {
        let start = std::time::Instant::now();
        let mut buffers = BatchBuffers::<u32>::new(plan.dims(), planned.samples, planned.keys)
            .map_err(|e| format!("batch buffers: {e}"))?;
        let source = plan.clone();
        let mut set = CursorSet::spawn(config, move |w, n| source.partition::<u32>(w, n))
            .map_err(|e| format!("cursor set: {e}"))?;
        let mut rows = 0u64;
        loop {
            let mut batch = buffers.batch().map_err(|e| format!("batch: {e}"))?;
            match set.next_batch(&mut batch) {
                Ok(Some(_)) => rows += batch.samples() as u64,
                Ok(None) => break,
                Err(e) => return Err(e.to_string()),
            }
        }
        Ok((rows, start.elapsed().as_secs_f64()))
    })
    .map_err(|e: String| data_error(e, None))
}

fn to_tuple<'py, K: Key + numpy::Element>(
    py: Python<'py>,
    c: Copied<K>,
    dims: Dims,
) -> PyResult<Bound<'py, PyTuple>> {
    // One array of the rows as decoded; labels and dense are views of its columns (no copy).
    let (l, ld) = (dims.label_dim, dims.label_dense());
    let rows = PyArray1::from_vec(py, c.label_dense).reshape([c.samples, ld])?;
    let columns = |from: usize, to: usize| {
        let slice = PySlice::new(py, from as isize, to as isize, 1);
        rows.get_item((PySlice::full(py), slice))
    };
    let labels = columns(0, l)?;
    let dense = columns(l, ld)?;
    let offsets = PyArray1::from_vec(py, c.row_offsets);
    let keys = PyArray1::from_vec(py, c.keys);
    (labels, dense, offsets, keys, c.id, c.first_row).into_pyobject(py)
}

#[pymethods]
impl Reader {
    /// Starts a pass: `workers` threads decode batches of `batch_size` samples of the
    /// dataset `paths` (data files or file lists; one Parquet directory, `_metadata.json`
    /// or file list), or of rank `rank`'s shard of `world`.
    #[new]
    #[pyo3(signature = (
        paths, format, *, batch_size=1024, workers=2, rank=0, world=1, key_type="u32",
        dims=None, max_nnz=None, skip_bad=false, raw_int_values=false, slot_sizes=None
    ))]
    #[allow(clippy::too_many_arguments)] // the dataset's options, as tessera dataset read has them
    fn new(
        py: Python<'_>,
        paths: Vec<PathBuf>,
        format: &str,
        batch_size: usize,
        workers: usize,
        rank: u64,
        world: u64,
        key_type: &str,
        dims: Option<(usize, usize, usize)>,
        max_nnz: Option<u32>,
        skip_bad: bool,
        raw_int_values: bool,
        slot_sizes: Option<Vec<u64>>,
    ) -> PyResult<Self> {
        if !(1..=MAX_WORKERS).contains(&workers) {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "workers {workers}: give 1 to {MAX_WORKERS}"
            )));
        }
        if batch_size == 0 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "batch_size must be at least 1",
            ));
        }
        let shard = Shard::new(rank, world)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        let planned = py.detach(|| {
            plan(
                &paths,
                format,
                batch_size,
                dims,
                max_nnz,
                skip_bad,
                raw_int_values,
                slot_sizes,
            )
        })?;
        let plan = planned.plan.shard(shard);
        let dims = plan.dims();
        let config = CursorSetConfig::new(dims, planned.samples, planned.keys)
            .with_workers(workers)
            .with_queue_depth(QUEUE_DEPTH)
            .with_consumer_decoding(true);
        let failed = |e: String| data_error(e, None);
        let keys = match key_type {
            "u32" => Keys::U32(py.detach(|| Pass::start(&plan, config)).map_err(failed)?),
            "i64" => Keys::I64(py.detach(|| Pass::start(&plan, config)).map_err(failed)?),
            other => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "key_type {other:?}: give \"u32\" or \"i64\""
                )));
            }
        };
        Ok(Self {
            keys: Some(keys),
            plan,
            dims,
        })
    }

    /// `(label_dim, dense_dim, slot_num)`.
    #[getter]
    fn dims(&self) -> (usize, usize, usize) {
        (self.dims.label_dim, self.dims.dense_dim, self.dims.slot_num)
    }

    /// Rows the pass reads (the shard's), as the files announce them.
    #[getter]
    fn rows(&self) -> u64 {
        self.plan.rows()
    }

    /// The data files read.
    #[getter]
    fn files(&self) -> Vec<PathBuf> {
        file_paths(&self.plan)
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let dims = self.dims;
        let Some(keys) = self.keys.as_mut() else {
            return Ok(None);
        };
        let msg = match keys {
            Keys::U32(pass) => match py.detach(|| pass.recv()) {
                Msg::Batch(c) => return to_tuple(py, c, dims).map(Some),
                other => other.map_batch(),
            },
            Keys::I64(pass) => match py.detach(|| pass.recv()) {
                Msg::Batch(c) => return to_tuple(py, c, dims).map(Some),
                other => other.map_batch(),
            },
        };
        // The pass has ended or failed: the driver and the workers are done; join them.
        let keys = self.keys.take();
        py.detach(|| drop(keys));
        match msg {
            Msg::Failed(e) => Err(decode_error(&e, &self.plan)),
            Msg::Started(Err(e)) => Err(data_error(e, None)),
            _ => Ok(None),
        }
    }

    /// Stops the workers (a pass left early; the end of a pass does it by itself).
    fn close(&mut self, py: Python<'_>) {
        let keys = self.keys.take();
        py.detach(|| drop(keys));
    }
}
