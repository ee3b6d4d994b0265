//! Batch upload throughput: `BatchUploader` (copy a prepared batch into a pinned staging
//! slot, enqueue the copy, record the slot's event) against a plain pinned `cuMemcpyHtoD` of
//! the same bytes (copy them into pinned memory, then copy to the device), both waiting for
//! the device at the end of each batch. Batches of 1 024 to 65 536 Criteo-shaped samples.
//!
//! Needs an NVIDIA GPU: without one it prints why and exits 0 (`cargo bench --no-run` builds
//! it anywhere).

mod support;

use std::hint::black_box;

use criterion::{Criterion, Throughput};
use tessera_core::data::SampleBatch;
use tessera_core::memory::HostMemory;
use tessera_gpu::staging::BatchShape;
use tessera_gpu::{BatchUploader, DeviceMemory, Gpu, PinnedMemory};

fn bench(c: &mut Criterion, gpu: &Gpu) {
    let mut group = c.benchmark_group("upload");
    for samples in [1024usize, 4096, 16384, 65536] {
        let (mut ld, mut offsets, mut values) = support::host_buffers(samples);
        let nnz = values.len();
        let host =
            SampleBatch::resume(support::dims(), &mut ld, &mut offsets, &mut values, samples)
                .unwrap();
        let bytes = (samples * 14 * 4 + (samples * support::SLOTS + 1) * 4 + nnz * 4) as u64;
        group.throughput(Throughput::Bytes(bytes));

        let shape = BatchShape::new(support::dims(), samples, nnz);
        let mut uploader = BatchUploader::<u32>::new(gpu, shape, 3).unwrap();
        group.bench_function(format!("tessera_uploader/{samples}"), |b| {
            b.iter(|| {
                let batch = uploader
                    .upload_with(|staged| {
                        staged.append(&host)?;
                        Ok(true)
                    })
                    .unwrap()
                    .unwrap();
                black_box(batch.nnz);
                gpu.synchronize().unwrap();
            })
        });

        // The same bytes, laid out back to back, through one pinned buffer.
        let mut flat = Vec::with_capacity(bytes as usize);
        for f in host.label_dense() {
            flat.extend_from_slice(&f.to_le_bytes());
        }
        for k in host.csr().row_offsets().iter().chain(host.csr().values()) {
            flat.extend_from_slice(&k.to_le_bytes());
        }
        let mut pinned = PinnedMemory::new(gpu, flat.len()).unwrap();
        let mut device = DeviceMemory::new(gpu, flat.len()).unwrap();
        group.bench_function(format!("pinned_memcpy/{samples}"), |b| {
            b.iter(|| {
                pinned.bytes_mut().copy_from_slice(&flat);
                device.write(0, pinned.bytes()).unwrap();
            })
        });
    }
    group.finish();
}

fn main() {
    let gpu = match Gpu::first() {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("upload bench skipped: no CUDA driver/device ({e})");
            return;
        }
    };
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, &gpu);
    c.final_summary();
}
