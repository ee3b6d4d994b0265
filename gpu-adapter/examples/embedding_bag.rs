//! End to end on the GPU: a Norm file → a cursor set (worker threads decoding its batches,
//! handed over in the file's order) → pinned staging ring → device → pooled embeddings,
//! against the same pipeline pooling on the CPU (`tessera_core::data::embedding_bag` on the
//! consumer's thread), printing samples per second for both and whether the last batch's
//! pooled embeddings are bit-equal.
//!
//! ```text
//! cargo run --release -p tessera-gpu --example embedding_bag [NORM_FILE [WORKERS]]
//! ```
//!
//! `NORM_FILE` holds samples of 1 label, 13 dense features and 26 `u32`-key slots of at most
//! 4 keys each (no checksums); without it, 262 144 such samples (the formulas of
//! `benches/support`) are written to a file in the temporary folder first. `WORKERS`: the
//! cursor set's decoding threads (default 4). Pooling: sum, width 64, a table of 100 000
//! rows, batches of 4 096 samples, 3 staging slots.
//!
//! Exit status: 0 after a run; 1 on an error; 2 when there is no CUDA driver or device (it
//! prints why), so scripts can tell "cannot run here" from "failed".

#[path = "../benches/support/mod.rs"]
mod support;

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use tessera_core::data::{
    BatchSource, NormConfig, NormEncoder, PoolConfig, Pooling, SampleBatch, embedding_bag,
};
use tessera_data::cursor_set::{CursorSet, CursorSetConfig};
use tessera_data::dataset::DatasetPlan;
use tessera_gpu::staging::BatchShape;
use tessera_gpu::{BatchUploader, DeviceTable, EmbeddingBag, Gpu, GpuError, PooledOutput};

const BATCH: usize = 4096;
const DIM: usize = 64;
const MAX_NNZ: u32 = 4;
const GENERATED: usize = 262_144;
const WORKERS: usize = 4;

fn norm() -> NormConfig {
    NormConfig::new(support::dims(), MAX_NNZ)
}

/// Room for the keys of a whole batch.
fn max_keys() -> usize {
    BATCH * support::SLOTS * MAX_NNZ as usize
}

/// Writes a Norm file of `samples` samples of the bench formulas to `path`.
fn generate(path: &Path, samples: usize) -> Result<(), Box<dyn Error>> {
    let encoder = NormEncoder::<u32>::new(norm());
    let mut out = vec![0u8; 4096];
    let n = encoder.header(samples as u64, &mut out)?;
    out.truncate(n);
    let mut record = vec![0u8; norm().max_record_bytes(4)];
    let dense = [0.25f32; 13];
    let mut keys: Vec<Vec<u32>> = vec![Vec::new(); support::SLOTS];
    for s in 0..samples {
        support::sample_keys(s, &mut keys);
        let slots: Vec<&[u32]> = keys.iter().map(Vec::as_slice).collect();
        let n = encoder.sample(&[1.0], &dense, &slots, &mut record)?;
        out.extend_from_slice(&record[..n]);
    }
    std::fs::write(path, out)?;
    Ok(())
}

/// A run's result: samples, seconds, and the last batch's pooled rows.
type Run = (usize, f64, Vec<f32>);

/// Runs `consume` over a cursor set of `workers` threads reading `plan`.
fn over_set<T>(
    plan: &DatasetPlan,
    workers: usize,
    consume: impl FnOnce(&mut CursorSet<'_, u32>) -> Result<T, Box<dyn Error>>,
) -> Result<T, Box<dyn Error>> {
    let config = CursorSetConfig::new(support::dims(), BATCH, max_keys()).with_workers(workers);
    std::thread::scope(|s| {
        let mut set = CursorSet::scoped(s, config, |w, n| plan.partition::<u32>(w, n))?;
        consume(&mut set)
    })
}

/// The CPU pipeline: the set's batches pooled on the consumer's thread.
fn cpu(set: &mut CursorSet<'_, u32>, table: &[f32]) -> Result<Run, Box<dyn Error>> {
    let dims = support::dims();
    let (l, o, v) = dims
        .buffer_lens(BATCH, max_keys())
        .ok_or("batch too large")?;
    let (mut ld, mut offsets, mut values) = (vec![0f32; l], vec![0u32; o], vec![0u32; v]);
    let mut out = vec![0f32; BATCH * support::SLOTS * DIM];
    let (mut samples, mut last) = (0, Vec::new());
    let start = Instant::now();
    loop {
        let mut batch = SampleBatch::new(dims, &mut ld, &mut offsets, &mut values)?;
        if set.next_batch(&mut batch)?.is_none() {
            break;
        }
        let rows = batch.csr().rows();
        embedding_bag(
            batch.csr(),
            table,
            DIM,
            &mut out[..rows * DIM],
            PoolConfig::new(Pooling::Sum),
        )?;
        samples += batch.samples();
        last.clear();
        last.extend_from_slice(&out[..rows * DIM]);
    }
    Ok((samples, start.elapsed().as_secs_f64(), last))
}

/// The GPU side, set up before the clock starts: the ring, the kernels, the table and two
/// outputs.
struct Device {
    uploader: BatchUploader<u32>,
    kernels: EmbeddingBag,
    table: DeviceTable,
    outs: [PooledOutput; 2],
}

impl Device {
    fn new(gpu: &Gpu, table: &[f32]) -> Result<Self, GpuError> {
        let shape = BatchShape::new(support::dims(), BATCH, max_keys());
        let rows = BATCH * support::SLOTS;
        Ok(Self {
            uploader: BatchUploader::new(gpu, shape, 3)?,
            kernels: EmbeddingBag::new(gpu)?,
            table: DeviceTable::new(gpu, table, DIM)?,
            outs: [
                PooledOutput::new(gpu, rows, DIM)?,
                PooledOutput::new(gpu, rows, DIM)?,
            ],
        })
    }

    /// The set's batches copied into pinned slots as they arrive (while the previous batch
    /// copies and pools), uploaded and pooled; two outputs alternate so the host waits only
    /// for batch `i - 2` before launching batch `i`.
    fn run(&mut self, set: &mut CursorSet<'_, u32>) -> Result<Run, GpuError> {
        let config = PoolConfig::new(Pooling::Sum);
        let (mut samples, mut batches, mut last_rows) = (0, 0usize, 0);
        let start = Instant::now();
        while let Some(batch) = self.uploader.upload_next(set)? {
            let out = &mut self.outs[batches % 2];
            out.wait()?;
            self.kernels.launch(&batch, &self.table, out, config)?;
            samples += batch.samples;
            last_rows = batch.rows;
            batches += 1;
        }
        for out in &mut self.outs {
            out.wait()?;
        }
        let seconds = start.elapsed().as_secs_f64();
        let mut last = vec![0f32; last_rows * DIM];
        if batches > 0 {
            self.outs[(batches - 1) % 2].read(&mut last)?;
        }
        Ok((samples, seconds, last))
    }
}

fn run(gpu: &Gpu, path: &Path, workers: usize) -> Result<(), Box<dyn Error>> {
    let plan = DatasetPlan::norm(vec![path.to_path_buf()], norm())?;
    let table = support::table(DIM);
    let (n_cpu, t_cpu, last_cpu) = over_set(&plan, workers, |set| cpu(set, &table))?;
    let mut device = Device::new(gpu, &table)?;
    let (n_gpu, t_gpu, last_gpu) = over_set(&plan, workers, |set| Ok(device.run(set)?))?;
    let name = gpu.name().unwrap_or_default();
    println!("{}: {workers} decoding workers", path.display());
    println!(
        "CPU: {n_cpu} samples in {t_cpu:.3} s = {:.0} samples/s",
        n_cpu as f64 / t_cpu
    );
    println!(
        "GPU ({name}): {n_gpu} samples in {t_gpu:.3} s = {:.0} samples/s",
        n_gpu as f64 / t_gpu
    );
    println!("GPU / CPU: {:.2}x", t_cpu / t_gpu);
    let equal = last_cpu.len() == last_gpu.len()
        && last_cpu
            .iter()
            .zip(&last_gpu)
            .all(|(a, b)| a.to_bits() == b.to_bits());
    println!("last batch bit-equal to the CPU reference: {equal}");
    if n_cpu != n_gpu || !equal {
        return Err("GPU and CPU disagree".into());
    }
    Ok(())
}

fn main() -> ExitCode {
    let gpu = match Gpu::first() {
        Ok(gpu) => gpu,
        Err(e @ (GpuError::NoDriver { .. } | GpuError::NoDevice { .. })) => {
            eprintln!("embedding_bag example cannot run here: {e}");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut args = std::env::args_os().skip(1);
    let path = args.next().map(PathBuf::from);
    let workers = match args.next().map(|w| w.to_string_lossy().parse::<usize>()) {
        None => WORKERS,
        Some(Ok(w)) if w > 0 => w,
        Some(_) => {
            eprintln!("error: WORKERS must be a whole number of at least 1");
            return ExitCode::FAILURE;
        }
    };
    let path = match path {
        Some(path) => path,
        None => {
            let path = std::env::temp_dir().join("tessera-gpu-example.norm");
            if let Err(e) = generate(&path, GENERATED) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
            path
        }
    };
    match run(&gpu, &path, workers) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            ExitCode::FAILURE
        }
    }
}
