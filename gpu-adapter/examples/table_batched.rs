//! End to end on the GPU with 26 tables sized like Criteo's: a Norm file → worker threads
//! decoding its batches straight into pinned staging slots ([`SlotUploader`]: no host copy)
//! → device → one table-batched launch per batch (sum, keys reduced modulo each table, as
//! hashed ids are) → pooled `[batch, 26 x width]` rows. Prints samples per second, the GB/s
//! of table rows read and of batches copied, and their shares of a measured device-to-device
//! copy (HBM) and of a measured pinned host-to-device copy (PCIe); then checks the last batch
//! bit for bit against `tessera_core::data::TableSet::pool`.
//!
//! ```text
//! cargo run --release -p tessera-gpu --example table_batched [NORM_FILE [WORKERS [ROW_TYPE]]]
//! ```
//!
//! `NORM_FILE`: 1 label, 13 dense features, 26 `u32`-key slots of at most 4 keys (the
//! `embedding_bag` example's format; without it, or as `-`, 1 048 576 samples are generated
//! into the temporary folder). `WORKERS`: decoding threads (default 4). `ROW_TYPE`: `f32` (default),
//! `f16`, `bf16` or `int8`. Tables: 1.5 GiB of rows of width 64 in Criteo's proportions.
//! Batches of 4 096 samples, 2 slots per worker, 3 device buffers.
//!
//! Exit status: 0 after a run; 1 on an error; 2 when there is no CUDA driver, device or
//! NVRTC.

#[path = "../benches/support/mod.rs"]
mod support;
#[path = "../benches/support/tables.rs"]
mod tables;

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Instant;

use tessera_core::data::{
    NormConfig, NormEncoder, OutOfRange, PoolConfig, Pooling, RowType, TableSet, TableView,
};
use tessera_data::dataset::DatasetPlan;
use tessera_gpu::staging::BatchShape;
use tessera_gpu::{
    DeviceTableSet, Gpu, GpuError, PinnedMemory, PinnedSlot, PooledOutput, SlotUploader,
    TableBatchedBag,
};

const BATCH: usize = 4096;
const WIDTH: usize = 64;
const MAX_NNZ: u32 = 4;
const GENERATED: usize = 1 << 20;
const WORKERS: usize = 4;
const TABLE_BYTES: u64 = 3 << 29; // 1.5 GiB

fn norm() -> NormConfig {
    NormConfig::new(support::dims(), MAX_NNZ)
}

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

/// GB/s of a pinned host-to-device copy of 1 GiB (the PCIe figure the run is compared with).
fn measured_upload(gpu: &Gpu) -> Result<f64, Box<dyn Error>> {
    let bytes = 1usize << 30;
    let host = PinnedMemory::new(gpu, bytes)?;
    let mut device = tessera_gpu::DeviceMemory::new(gpu, bytes)?;
    use tessera_core::memory::HostMemory;
    let start = Instant::now();
    device.write(0, host.bytes())?;
    Ok(bytes as f64 / start.elapsed().as_secs_f64() / 1e9)
}

/// GB/s of a device-to-device copy of 2 GiB, bytes read and written (the HBM figure).
fn measured_copy(gpu: &Gpu) -> Result<f64, Box<dyn Error>> {
    let n = 1usize << 29;
    let stream = gpu.stream();
    let src = stream.alloc_zeros::<f32>(n)?;
    let mut dst = stream.alloc_zeros::<f32>(n)?;
    stream.memcpy_dtod(&src, &mut dst)?;
    stream.synchronize()?;
    let start = Instant::now();
    stream.memcpy_dtod(&src, &mut dst)?;
    stream.synchronize()?;
    Ok(2.0 * (n * 4) as f64 / start.elapsed().as_secs_f64() / 1e9)
}

fn run(gpu: &Gpu, path: &Path, workers: usize, ty: RowType) -> Result<(), Box<dyn Error>> {
    let kernels = TableBatchedBag::new(gpu)?;
    let rows = tables::criteo_rows(TABLE_BYTES, WIDTH, ty);
    let data: Vec<Vec<u8>> = rows
        .iter()
        .map(|&r| tables::table_bytes(r, WIDTH, ty))
        .collect();
    let views: Vec<TableView<'_>> = data
        .iter()
        .map(|b| TableView::new(b, WIDTH, ty))
        .collect::<Result<_, _>>()?;
    let slots: Vec<usize> = (0..support::SLOTS).collect();
    let set = DeviceTableSet::new(gpu, &views, &slots)?;
    let host_set = TableSet::new(&views, &slots)?;
    let (hbm, pcie) = (measured_copy(gpu)?, measured_upload(gpu)?);
    let plan = DatasetPlan::norm(vec![path.to_path_buf()], norm())?;
    let shape = BatchShape::new(support::dims(), BATCH, max_keys());
    let mut uploader = SlotUploader::<u32>::new(gpu, shape, 2 * workers, 3)?;
    let width = set.layout().sample_width();
    let mut outs = [
        PooledOutput::new(gpu, BATCH, width)?,
        PooledOutput::new(gpu, BATCH, width)?,
    ];
    let config = PoolConfig::new(Pooling::Sum).with_out_of_range(OutOfRange::Modulo);
    let (mut samples, mut batches, mut rows_read, mut staged) = (0usize, 0usize, 0u64, 0u64);
    let mut last: Option<(Vec<u32>, Vec<u32>)> = None;
    let start = Instant::now();
    std::thread::scope(|scope| -> Result<(), Box<dyn Error>> {
        let (mut to_worker, mut from_worker) = (Vec::new(), Vec::new());
        for w in 0..workers {
            let (free_tx, free_rx) = mpsc::channel::<PinnedSlot<u32>>();
            let (out_tx, out_rx) = mpsc::channel();
            for _ in 0..2 {
                free_tx.send(uploader.take()?)?;
            }
            to_worker.push(free_tx);
            from_worker.push(out_rx);
            let mut source = plan.partition::<u32>(w as u64, workers as u64);
            scope.spawn(move || {
                while let Ok(mut slot) = free_rx.recv() {
                    let filled = slot.fill_from(&mut source);
                    let stop = !matches!(filled, Ok(true));
                    if out_tx.send((filled, slot)).is_err() || stop {
                        break;
                    }
                }
            });
        }
        // Batches in the file's order: worker k % workers holds batch k.
        for k in 0.. {
            let w = k % workers;
            let (filled, mut slot) = from_worker[w].recv()?;
            if !filled? {
                uploader.give_back(slot)?;
                break;
            }
            rows_read += slot
                .with_csr(|csr| set.layout().row_bytes_read(csr))?
                .unwrap_or(0);
            staged += slot.staged()?.len() as u64;
            if k % 64 == 0 {
                last = Some(slot.with_csr(|c| (c.row_offsets().to_vec(), c.values().to_vec()))?);
            }
            let batch = uploader.upload(slot)?.ok_or("empty batch")?;
            let out = &mut outs[batches % 2];
            out.wait()?;
            kernels.launch(&batch, &set, None, out, config)?;
            samples += batch.samples;
            batches += 1;
            if k % 64 == 0 {
                out.wait()?;
                let (offsets, values) = last.take().ok_or("no batch")?;
                let csr = tessera_core::data::CsrView::new(&offsets, &values)?;
                let n = csr.rows() / support::SLOTS;
                let mut expected = vec![0f32; n * width];
                host_set.pool(csr, None, &mut expected, config)?;
                let mut got = vec![0f32; n * width];
                out.read(&mut got)?;
                if got
                    .iter()
                    .zip(&expected)
                    .any(|(a, b)| a.to_bits() != b.to_bits())
                {
                    return Err(format!("batch {k} differs from the CPU reference").into());
                }
            }
            let _ = to_worker[w].send(uploader.take()?);
        }
        drop(to_worker);
        Ok(())
    })?;
    for out in &mut outs {
        out.wait()?;
    }
    let seconds = start.elapsed().as_secs_f64();
    let (rows_gbs, staged_gbs) = (
        rows_read as f64 / seconds / 1e9,
        staged as f64 / seconds / 1e9,
    );
    println!(
        "{} ({ty}, width {WIDTH}, 26 tables, {:.2} GiB): {workers} decoding workers",
        gpu.name().unwrap_or_default(),
        set.bytes() as f64 / (1u64 << 30) as f64
    );
    println!(
        "{samples} samples in {seconds:.3} s = {:.0} samples/s ({batches} batches, every 64th checked bit-equal)",
        samples as f64 / seconds
    );
    println!(
        "table rows read {rows_gbs:.1} GB/s = {:.1}% of a device copy's {hbm:.0} GB/s; \
         batches uploaded {staged_gbs:.2} GB/s = {:.1}% of a pinned upload's {pcie:.1} GB/s",
        100.0 * rows_gbs / hbm,
        100.0 * staged_gbs / pcie
    );
    Ok(())
}

fn main() -> ExitCode {
    let gpu = match Gpu::first() {
        Ok(gpu) => gpu,
        Err(e @ (GpuError::NoDriver { .. } | GpuError::NoDevice { .. })) => {
            eprintln!("table_batched example cannot run here: {e}");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut args = std::env::args_os().skip(1);
    // `-` (or nothing) for the generated file, so WORKERS and ROW_TYPE can follow.
    let path = args.next().filter(|p| p != "-").map(PathBuf::from);
    let workers = match args.next().map(|w| w.to_string_lossy().parse::<usize>()) {
        None => WORKERS,
        Some(Ok(w)) if w > 0 => w,
        Some(_) => {
            eprintln!("error: WORKERS must be a whole number of at least 1");
            return ExitCode::FAILURE;
        }
    };
    let ty = match args
        .next()
        .map(|t| t.to_string_lossy().into_owned())
        .as_deref()
    {
        None | Some("f32") => RowType::F32,
        Some("f16") => RowType::F16,
        Some("bf16") => RowType::Bf16,
        Some("int8") => RowType::Int8Rowwise,
        Some(other) => {
            eprintln!("error: ROW_TYPE {other:?} is not f32, f16, bf16 or int8");
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
    match run(&gpu, &path, workers, ty) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if e.downcast_ref::<GpuError>()
                .is_some_and(|g| matches!(g, GpuError::NoNvrtc { .. }))
            {
                eprintln!("table_batched example cannot run here: {e}");
                return ExitCode::from(2);
            }
            eprintln!("error: {}: {e}", path.display());
            ExitCode::FAILURE
        }
    }
}
