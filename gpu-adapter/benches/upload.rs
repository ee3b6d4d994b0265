//! Batch upload throughput: `BatchUploader` (copy a prepared batch into a pinned staging
//! slot, enqueue the copy, record the slot's event) against a plain pinned `cuMemcpyHtoD` of
//! the same bytes (copy them into one pinned buffer, then copy to the device), both waiting
//! for the device at the end of each batch (so the uploader has one slot, as the plain copy
//! has one buffer). Batches of 1 024 to 65 536 Criteo-shaped samples.
//!
//! Before criterion it prints a table of wall-clock medians (`TESSERA_GPU_TABLE_ONLY=1`: the
//! table alone): per batch, as above; and streaming, 32 batches back to back, where staging
//! batch `i + 1` on the host overlaps the copy of batch `i`: the uploader with 3 slots
//! against the same loop written by hand (3 pinned buffers, `cuMemcpyHtoDAsync`, an event
//! each), and against the copies alone from pinned memory already filled (the DMA, the floor
//! when a decoder writes straight into the staging slot).
//!
//! Needs an NVIDIA GPU: without one it prints why and exits 0 (`cargo bench --no-run` builds
//! it anywhere).

mod support;
#[path = "support/timing.rs"]
mod timing;

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, Throughput};
use cudarc::driver::{CudaEvent, result};
use tessera_core::data::SampleBatch;
use tessera_core::memory::HostMemory;
use tessera_gpu::staging::BatchShape;
use tessera_gpu::{BatchUploader, DeviceMemory, Gpu, PinnedMemory};

/// Uploads a copy of `host` through `uploader` (staging it into the next slot).
fn upload(uploader: &mut BatchUploader<u32>, host: &SampleBatch<'_, u32>) {
    let batch = uploader
        .upload_with(|staged| {
            staged.append(host)?;
            Ok(true)
        })
        .unwrap()
        .unwrap();
    black_box(batch.nnz);
}

/// The batch's bytes back to back (labels and dense, offsets, keys), for the plain copies.
fn flat(host: &SampleBatch<'_, u32>) -> Vec<u8> {
    let mut flat = Vec::new();
    for f in host.label_dense() {
        flat.extend_from_slice(&f.to_le_bytes());
    }
    for k in host.csr().row_offsets().iter().chain(host.csr().values()) {
        flat.extend_from_slice(&k.to_le_bytes());
    }
    flat
}

/// Calls `run` with each batch size's host batch and its shape.
fn each_size(mut run: impl FnMut(usize, &SampleBatch<'_, u32>, BatchShape)) {
    for samples in [1024usize, 4096, 16384, 65536] {
        let (mut ld, mut offsets, mut values) = support::host_buffers(samples);
        let shape = BatchShape::new(support::dims(), samples, values.len());
        let host =
            SampleBatch::resume(support::dims(), &mut ld, &mut offsets, &mut values, samples)
                .unwrap();
        run(samples, &host, shape);
    }
}

fn bench(c: &mut Criterion, gpu: &Gpu) {
    let mut group = c.benchmark_group("upload");
    each_size(|samples, host, shape| {
        // The same bytes, laid out back to back, through one pinned buffer.
        let flat = flat(host);
        group.throughput(Throughput::Bytes(flat.len() as u64));

        let mut uploader = BatchUploader::<u32>::new(gpu, shape, 1).unwrap();
        group.bench_function(format!("tessera_uploader/{samples}"), |b| {
            b.iter(|| {
                upload(&mut uploader, host);
                gpu.synchronize().unwrap();
            })
        });

        let mut pinned = PinnedMemory::new(gpu, flat.len()).unwrap();
        let mut device = DeviceMemory::new(gpu, flat.len()).unwrap();
        group.bench_function(format!("pinned_memcpy/{samples}"), |b| {
            b.iter(|| {
                pinned.bytes_mut().copy_from_slice(&flat);
                device.write(0, pinned.bytes()).unwrap();
            })
        });
    });
    group.finish();
}

/// Batches uploaded back to back in the streaming rows.
const STREAM: usize = 32;

/// The streaming loop written by hand: `depth` pinned buffers and events, staging each batch
/// into the next free buffer and copying it asynchronously. Returns seconds for `STREAM`
/// batches; `stage: false` copies buffers filled once beforehand (the DMA alone).
fn by_hand(gpu: &Gpu, flat: &[u8], depth: usize, stage: bool) -> f64 {
    let mut pinned: Vec<PinnedMemory> = (0..depth)
        .map(|_| PinnedMemory::new(gpu, flat.len()).unwrap())
        .collect();
    let device: Vec<DeviceMemory> = (0..depth)
        .map(|_| DeviceMemory::new(gpu, flat.len()).unwrap())
        .collect();
    let events: Vec<CudaEvent> = (0..depth)
        .map(|_| gpu.context().new_event(None).unwrap())
        .collect();
    for p in &mut pinned {
        p.bytes_mut().copy_from_slice(flat);
    }
    gpu.synchronize().unwrap();
    let t = Instant::now();
    for i in 0..STREAM {
        let s = i % depth;
        if i >= depth {
            events[s].synchronize().unwrap();
        }
        if stage {
            pinned[s].bytes_mut().copy_from_slice(flat);
        }
        // SAFETY: `device[s]` holds `flat.len()` bytes, as `pinned[s]` does; the buffer is
        // not written again before `events[s]` (recorded next) says the copy is done, and
        // both outlive the final synchronisation below.
        unsafe {
            result::memcpy_htod_async(
                device[s].device_ptr(),
                pinned[s].bytes(),
                gpu.stream().cu_stream(),
            )
        }
        .unwrap();
        events[s].record(gpu.stream()).unwrap();
    }
    gpu.synchronize().unwrap();
    t.elapsed().as_secs_f64()
}

/// The table: per-batch and streaming throughput of the uploader against plain pinned
/// copies of the same bytes.
fn table(gpu: &Gpu) {
    each_size(|samples, host, shape| {
        let flat = flat(host);
        let bytes = flat.len() as f64;
        let mut one_slot = BatchUploader::<u32>::new(gpu, shape, 1).unwrap();
        let per_batch = timing::time(
            gpu,
            || upload(&mut one_slot, host),
            || gpu.synchronize().unwrap(),
        );
        drop(one_slot);
        let mut pinned = PinnedMemory::new(gpu, flat.len()).unwrap();
        let mut device = DeviceMemory::new(gpu, flat.len()).unwrap();
        let plain = timing::time(
            gpu,
            || {
                pinned.bytes_mut().copy_from_slice(&flat);
                device.write(0, pinned.bytes()).unwrap();
            },
            || {},
        );
        drop((pinned, device));

        let mut ring = BatchUploader::<u32>::new(gpu, shape, 3).unwrap();
        let (mut streamed, mut hand, mut dma) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..7 {
            let t = Instant::now();
            for _ in 0..STREAM {
                upload(&mut ring, host);
            }
            ring.synchronize().unwrap();
            streamed.push(t.elapsed().as_secs_f64());
            hand.push(by_hand(gpu, &flat, 3, true));
            dma.push(by_hand(gpu, &flat, 3, false));
        }
        let gbs = |seconds: f64, n: usize| bytes * n as f64 / seconds / 1e9;
        let (streamed, hand, dma) = (
            timing::median(streamed),
            timing::median(hand),
            timing::median(dma),
        );
        println!(
            "upload batch{samples} ({:.2} MB): per batch {:.1} GB/s uploader, {:.1} GB/s pinned \
             memcpy ({:.2}x); streaming {:.1} GB/s uploader, {:.1} GB/s by hand ({:.2}x), \
             {:.1} GB/s copies alone ({:.2}x)",
            bytes / 1e6,
            gbs(per_batch.wall_ms / 1e3, 1),
            gbs(plain.wall_ms / 1e3, 1),
            plain.wall_ms / per_batch.wall_ms,
            gbs(streamed, STREAM),
            gbs(hand, STREAM),
            hand / streamed,
            gbs(dma, STREAM),
            dma / streamed,
        );
    });
}

fn main() {
    let gpu = match Gpu::first() {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("upload bench skipped: no CUDA driver/device ({e})");
            return;
        }
    };
    table(&gpu);
    if timing::table_only() {
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, &gpu);
    c.final_summary();
}
