//! Embedding-bag pooling on the GPU: sum and mean over 26 slots, widths 16, 64 and 128,
//! batches of 1 024 to 65 536 samples (the data of `support`, which
//! `torch_embedding_bag.py` repeats for PyTorch's `embedding_bag` with offsets on the same
//! GPU). Each iteration launches the kernel and waits for it; throughput counts the bytes
//! the kernel must move (table rows read, offsets and keys read, output written), so
//! criterion's GB/s compares with the GPU's memory bandwidth.
//!
//! Before criterion's wall-clock runs it prints a table timed as the PyTorch script times
//! `embedding_bag` (CUDA events around the launch, and the wall clock around launch and wait,
//! medians of 50): the columns `BENCHMARKS.md` compares. `TESSERA_GPU_TABLE_ONLY=1` prints
//! the table alone.
//!
//! Needs an NVIDIA GPU: without one it prints why and exits 0.

mod support;
#[path = "support/timing.rs"]
mod timing;

use std::cell::RefCell;

use criterion::{Criterion, Throughput};
use tessera_core::data::{PoolConfig, Pooling};
use tessera_gpu::staging::BatchShape;
use tessera_gpu::{BatchUploader, DeviceBatch, DeviceTable, EmbeddingBag, Gpu, PooledOutput};

/// One case: a batch on the device, its table and output, and the bytes a bag moves.
struct Case<'a> {
    kernels: &'a EmbeddingBag,
    table: &'a DeviceTable,
    batch: DeviceBatch<'a, u32>,
    out: PooledOutput,
    /// The case's name without the pooling: `dim{dim}/batch{samples}`.
    name: String,
    samples: usize,
    /// Table rows read, keys and offsets read, output written.
    moved: u64,
}

impl Case<'_> {
    fn launch(&mut self, config: PoolConfig) {
        self.kernels
            .launch(&self.batch, self.table, &mut self.out, config)
            .unwrap();
    }

    fn wait(&mut self) -> usize {
        self.out.wait().unwrap()
    }
}

/// Calls `run` for every width and batch size, its batch uploaded once.
fn each_case(gpu: &Gpu, mut run: impl FnMut(&mut Case<'_>)) {
    // `TESSERA_GPU_SHIPPED=1`: the PTX shipped with the crate, not NVRTC's compilation.
    let kernels = if std::env::var_os("TESSERA_GPU_SHIPPED").is_some_and(|v| v == "1") {
        EmbeddingBag::shipped(gpu)
    } else {
        EmbeddingBag::new(gpu)
    }
    .unwrap();
    for dim in [16usize, 64, 128] {
        let table = DeviceTable::new(gpu, &support::table(dim), dim).unwrap();
        for samples in [1024usize, 4096, 16384, 65536] {
            let nnz = support::batch_keys(samples);
            let rows = samples * support::SLOTS;
            let shape = BatchShape::new(support::dims(), samples, nnz);
            let mut uploader = BatchUploader::<u32>::new(gpu, shape, 1).unwrap();
            let batch = uploader
                .upload_with(|b| {
                    support::fill(b, samples);
                    Ok(true)
                })
                .unwrap()
                .unwrap();
            run(&mut Case {
                kernels: &kernels,
                table: &table,
                batch,
                out: PooledOutput::new(gpu, rows, dim).unwrap(),
                name: format!("dim{dim}/batch{samples}"),
                samples,
                moved: (nnz * dim * 4 + rows * dim * 4 + (rows + 1) * 4 + nnz * 4) as u64,
            });
        }
    }
}

fn bench(c: &mut Criterion, gpu: &Gpu) {
    let mut group = c.benchmark_group("embedding_bag");
    each_case(gpu, |case| {
        group.throughput(Throughput::Bytes(case.moved));
        for pooling in [Pooling::Sum, Pooling::Mean] {
            let config = PoolConfig::new(pooling);
            let name = format!("{pooling:?}/{}", case.name).to_lowercase();
            group.bench_function(name, |b| {
                b.iter(|| {
                    case.launch(config);
                    case.wait()
                })
            });
        }
    });
    group.finish();
}

/// The table timed as PyTorch is timed, and a checksum of each width's smallest case (the
/// PyTorch script prints the same sums for the same data).
fn table(gpu: &Gpu) {
    each_case(gpu, |case| {
        for pooling in [Pooling::Sum, Pooling::Mean] {
            let config = PoolConfig::new(pooling);
            let t = {
                let case = RefCell::new(&mut *case);
                timing::time(
                    gpu,
                    || case.borrow_mut().launch(config),
                    || {
                        case.borrow_mut().wait();
                    },
                )
            };
            let name = format!("{pooling:?}/{}", case.name).to_lowercase();
            let mut check = String::new();
            if case.samples == 1024 {
                let mut host = vec![0f32; case.batch.rows * case.out.dim()];
                case.out.read(&mut host).unwrap();
                let sum: f64 = host.iter().map(|&x| f64::from(x)).sum();
                check = format!(", checksum {sum:.6e}");
            }
            println!(
                "tessera {name}: device {:.4} ms, wall {:.4} ms, {:.1} GB/s{check}",
                t.device_ms,
                t.wall_ms,
                case.moved as f64 / t.device_ms / 1e6
            );
        }
    });
}

fn main() {
    let gpu = match Gpu::first() {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("embedding_bag bench skipped: no CUDA driver/device ({e})");
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
