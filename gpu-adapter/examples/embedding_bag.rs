//! End to end on the GPU: a Norm file → decoder (`SliceSource`) → pinned staging ring →
//! device → pooled embeddings, against the same pipeline on the CPU
//! (`tessera_core::data::embedding_bag`), printing samples per second for both and whether
//! the last batch's pooled embeddings are bit-equal.
//!
//! ```text
//! cargo run --release -p tessera-gpu --example embedding_bag [NORM_FILE]
//! ```
//!
//! `NORM_FILE` holds samples of 1 label, 13 dense features and 26 `u32`-key slots of at most
//! 4 keys each (no checksums); without it, 262 144 such samples are generated in memory (the
//! formulas of `benches/support`). Pooling: sum, width 64, a table of 100 000 rows, batches
//! of 4 096 samples, 3 staging slots.
//!
//! Exit status: 0 after a run; 1 on an error; 2 when there is no CUDA driver or device (it
//! prints why), so scripts can tell "cannot run here" from "failed".

#[path = "../benches/support/mod.rs"]
mod support;

use std::process::ExitCode;
use std::time::Instant;

use tessera_core::data::{
    BatchSource, NormConfig, NormDecoder, NormEncoder, PoolConfig, Pooling, SampleBatch,
    SliceSource, embedding_bag,
};
use tessera_gpu::staging::BatchShape;
use tessera_gpu::{BatchUploader, DeviceTable, EmbeddingBag, Gpu, GpuError, PooledOutput};

const BATCH: usize = 4096;
const DIM: usize = 64;
const MAX_NNZ: u32 = 4;
const GENERATED: usize = 262_144;

fn config() -> NormConfig {
    NormConfig::new(support::dims(), MAX_NNZ)
}

/// A Norm file of `samples` samples of the bench formulas.
fn generate(samples: usize) -> Vec<u8> {
    let encoder = NormEncoder::<u32>::new(config());
    let mut out = vec![0u8; 4096];
    let n = encoder.header(samples as u64, &mut out).unwrap();
    out.truncate(n);
    let mut record = vec![0u8; config().max_record_bytes(4)];
    let dense = [0.25f32; 13];
    let mut keys: Vec<Vec<u32>> = vec![Vec::new(); support::SLOTS];
    for s in 0..samples {
        for (slot, row) in keys.iter_mut().enumerate() {
            let r = s * support::SLOTS + slot;
            row.clear();
            row.extend((0..support::row_len(r)).map(|i| support::key(r, i)));
        }
        let slots: Vec<&[u32]> = keys.iter().map(Vec::as_slice).collect();
        let n = encoder.sample(&[1.0], &dense, &slots, &mut record).unwrap();
        out.extend_from_slice(&record[..n]);
    }
    out
}

fn source(bytes: &[u8]) -> SliceSource<'_, NormDecoder<u32>> {
    SliceSource::norm(config(), bytes)
}

/// The CPU pipeline: decode and pool every batch; returns (samples, seconds, last output).
fn cpu(bytes: &[u8], table: &[f32]) -> Result<(usize, f64, Vec<f32>), Box<dyn std::error::Error>> {
    let dims = support::dims();
    let max_keys = BATCH * support::SLOTS * MAX_NNZ as usize;
    let (l, o, v) = dims.buffer_lens(BATCH, max_keys).ok_or("batch too large")?;
    let (mut ld, mut offsets, mut values) = (vec![0f32; l], vec![0u32; o], vec![0u32; v]);
    let mut out = vec![0f32; BATCH * support::SLOTS * DIM];
    let mut src = source(bytes);
    let (mut samples, mut last) = (0, Vec::new());
    let start = Instant::now();
    loop {
        let mut batch = SampleBatch::new(dims, &mut ld, &mut offsets, &mut values)?;
        if src.next_batch(&mut batch)?.is_none() {
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

/// The GPU pipeline: decoding batch `i + 1` into a pinned slot overlaps the copy and the
/// kernel of batch `i`; two outputs alternate so the host waits only for batch `i - 1`.
fn gpu(gpu: &Gpu, bytes: &[u8], table: &[f32]) -> Result<(usize, f64, Vec<f32>), GpuError> {
    let shape = BatchShape::new(
        support::dims(),
        BATCH,
        BATCH * support::SLOTS * MAX_NNZ as usize,
    );
    let mut uploader = BatchUploader::<u32>::new(gpu, shape, 3)?;
    let kernels = EmbeddingBag::new(gpu)?;
    let device_table = DeviceTable::new(gpu, table, DIM)?;
    let rows = BATCH * support::SLOTS;
    let mut outs = [
        PooledOutput::new(gpu, rows, DIM)?,
        PooledOutput::new(gpu, rows, DIM)?,
    ];
    let mut src = source(bytes);
    let config = PoolConfig::new(Pooling::Sum);
    let (mut samples, mut batches, mut last_rows) = (0, 0usize, 0);
    let start = Instant::now();
    while let Some(batch) = uploader.upload_next(&mut src)? {
        let out = &mut outs[batches % 2];
        out.wait()?;
        kernels.launch(&batch, &device_table, out, config)?;
        samples += batch.samples;
        last_rows = batch.rows;
        batches += 1;
    }
    for out in &mut outs {
        out.wait()?;
    }
    let seconds = start.elapsed().as_secs_f64();
    let mut last = vec![0f32; last_rows * DIM];
    if batches > 0 {
        outs[(batches - 1) % 2].read(&mut last)?;
    }
    Ok((samples, seconds, last))
}

fn main() -> ExitCode {
    let device = match Gpu::first() {
        Ok(device) => device,
        Err(e @ (GpuError::NoDriver { .. } | GpuError::NoDevice { .. })) => {
            eprintln!("embedding_bag example cannot run here: {e}");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let bytes = match std::env::args_os().nth(1) {
        Some(path) => match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.to_string_lossy());
                return ExitCode::FAILURE;
            }
        },
        None => generate(GENERATED),
    };
    let table = support::table(DIM);
    let run = || -> Result<(), Box<dyn std::error::Error>> {
        let (n_cpu, t_cpu, last_cpu) = cpu(&bytes, &table)?;
        let (n_gpu, t_gpu, last_gpu) = gpu(&device, &bytes, &table)?;
        let name = device.name().unwrap_or_default();
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
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
